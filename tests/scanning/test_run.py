"""simdup.scanning.run: a scan end to end, on the sample corpus and the benchmark set, with either
method, segmenter and engine, any number of jobs."""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import simdup
import simdup.engines.workerpool
import simdup.options
import simdup.text.segmentation
from simdup.engines.backend import LOCAL
from simdup.options import ScanOptions
from simdup.params import SHORT_TEXT_CHARS, FeatureParams
from simdup.records import DecodedDocument, ScanResult
from simdup.scanning.cache import CachedBackend
from tests.conftest import BENCH_DOCS

try:
    import rjieba  # noqa: F401
except ImportError:  # pragma: no cover
    HAVE_RJIEBA = False
else:
    HAVE_RJIEBA = True


def readme_block(corpus: Path, name: str) -> list[str]:
    """Lines of the ```name fenced block of sample_corpus/README.md."""
    text = (corpus / "README.md").read_text("utf-8")
    match = re.search(rf"^```{name}\n(.*?)^```", text, re.M | re.S)
    assert match, f"no ```{name} block in the sample corpus README"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def rel(path: str, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


def cluster_sets(result: ScanResult, root: Path) -> set[frozenset[str]]:
    return {frozenset(rel(m.path, root) for m in c.members) for c in result.clusters}


def comparable(result: ScanResult) -> dict[str, Any]:
    """Everything in a ScanResult except timings."""
    return {
        "files": result.files,
        "skipped": result.skipped,
        "pairs": result.pairs,
        "clusters": result.clusters,
        "settings": result.settings,
        "stats": {k: v for k, v in result.stats.items() if k != "seconds"},
    }


@pytest.fixture(scope="module")
def corpus_result(sample_corpus: Path) -> ScanResult:
    return simdup.scan([str(sample_corpus)], jobs=1)


# ---------------------------------------------------------------- the sample corpus


def test_sample_corpus_gives_exactly_the_expected_clusters(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """The clusters are exactly those of the ```clusters block of sample_corpus/README.md."""
    expected = {frozenset(line.split()) for line in readme_block(sample_corpus, "clusters")}
    assert cluster_sets(corpus_result, sample_corpus) == expected


def test_sample_corpus_singletons_are_in_no_cluster_and_no_pair(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """Template-sharing newsletters, meeting notes and standalone documents are fingerprinted
    but paired with nothing."""
    singletons = set(readme_block(sample_corpus, "singletons"))
    fingerprinted = {rel(f.path, sample_corpus) for f in corpus_result.files}
    assert singletons <= fingerprinted
    paired = {rel(p, sample_corpus) for pair in corpus_result.pairs for p in (pair.a, pair.b)}
    assert not singletons & paired


def test_sample_corpus_skips_only_the_empty_and_binary_files(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """The empty file is skipped at 'read', the binary at 'decode'; nothing else is skipped.
    The two-word file of the ```too-short block is a short text now: fingerprinted (by its
    characters, its comparison form in place of a sketch) and in no pair."""
    skipped = {rel(s.path, sample_corpus): s for s in corpus_result.skipped}
    assert set(skipped) == set(readme_block(sample_corpus, "skipped"))
    assert skipped["misc/empty.txt"].stage == "read"
    assert skipped["misc/empty.txt"].reason == "empty file"
    assert skipped["misc/image.bin"].stage == "decode"
    assert skipped["misc/image.bin"].reason.startswith("binary file")
    files = {rel(f.path, sample_corpus): f for f in corpus_result.files}
    paired = {rel(p, sample_corpus) for pair in corpus_result.pairs for p in (pair.a, pair.b)}
    short = readme_block(sample_corpus, "too-short")
    assert short == ["misc/hello.txt"]
    hello = files["misc/hello.txt"]
    assert hello.chars == len("hello world") < SHORT_TEXT_CHARS
    assert hello.sketch == b"hello world"
    assert hello.fingerprint == simdup.fingerprint("hello world")
    assert "misc/hello.txt" not in paired


def test_scan_result_is_internally_consistent(corpus_result: ScanResult) -> None:
    """Stats match the records; pairs are ordered a < b; every cluster member is paired with
    its representative; cluster ids count from 1."""
    r = corpus_result
    assert r.stats["files_fingerprinted"] == len(r.files)
    assert r.stats["files_skipped"] == len(r.skipped)
    later = [s for s in r.skipped if s.stage != "discovery"]  # found, then dropped
    assert r.stats["files_found"] == len(r.files) + len(later)
    assert r.stats["pairs"] == len(r.pairs)
    assert r.stats["clusters"] == len(r.clusters)
    assert [c.id for c in r.clusters] == list(range(1, len(r.clusters) + 1))
    pair_set = {(p.a, p.b) for p in r.pairs}
    for p in r.pairs:
        assert p.a < p.b
        assert 0 <= p.distance <= 64
    for c in r.clusters:
        assert c.members[0].path == c.representative
        assert c.members[0].distance == 0
        for m in c.members[1:]:
            assert tuple(sorted((c.representative, m.path))) in pair_set
        assert c.max_distance >= max(m.distance for m in c.members)
    assert list(r.pairs) == sorted(r.pairs, key=lambda p: (p.a, p.b))


def test_reencoded_copies_are_exact_duplicates(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """GBK, Big5, UTF-16, UTF-8-BOM and CRLF copies are exact duplicates of their originals."""
    exact = {
        frozenset((rel(p.a, sample_corpus), rel(p.b, sample_corpus)))
        for p in corpus_result.pairs
        if p.exact
    }
    for original, copy in [
        ("zh/library-report.txt", "encodings/library-report-gbk.txt"),
        ("zh-hant/tea-notes.txt", "encodings/tea-notes-big5.txt"),
        ("en/fable-crow.txt", "encodings/fable-crow-utf16.txt"),
        ("zh/daodejing-1-14.txt", "encodings/daodejing-1-14-utf8bom.txt"),
        ("en/declaration-preamble.txt", "encodings/declaration-preamble-crlf.txt"),
    ]:
        assert frozenset((original, copy)) in exact


def test_encodings_are_recorded_per_file(corpus_result: ScanResult, sample_corpus: Path) -> None:
    """Each fingerprinted file records the encoding it was read in."""
    enc = {rel(f.path, sample_corpus): (f.encoding, f.encoding_source) for f in corpus_result.files}
    assert enc["encodings/library-report-gbk.txt"] == ("gb18030", "detected")
    assert enc["encodings/tea-notes-big5.txt"] == ("big5hkscs", "detected")
    assert enc["encodings/fable-crow-utf16.txt"] == ("utf-16-le-bom", "bom")
    assert enc["encodings/daodejing-1-14-utf8bom.txt"] == ("utf-8-sig", "bom")
    assert enc["zh/lunyu-xueer.txt"] == ("utf-8", "utf-8")


def test_scan_is_deterministic(corpus_result: ScanResult, sample_corpus: Path) -> None:
    """Scanning again gives the same files, skips, pairs and clusters."""
    again = simdup.scan([str(sample_corpus)], jobs=1)
    assert comparable(again) == comparable(corpus_result)


@pytest.mark.skipif(not HAVE_RJIEBA, reason="rjieba is not installed")
def test_jieba_and_rjieba_give_identical_results(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """The segmenter backend changes nothing: same fingerprints, pairs and clusters."""
    results = {
        backend: simdup.scan(
            [str(sample_corpus)], jobs=1, features=FeatureParams(segmenter=backend)
        )
        for backend in ("jieba", "rjieba")
    }
    assert results["jieba"].settings["features"]["segmenter"] == "jieba"
    assert results["rjieba"].settings["features"]["segmenter"] == "rjieba"
    for result in results.values():
        assert result.files == corpus_result.files
        assert result.pairs == corpus_result.pairs
        assert result.clusters == corpus_result.clusters
        assert result.skipped == corpus_result.skipped


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory, sample_corpus: Path) -> Path:
    """The sample corpus plus generated documents: over 1 MB, so jobs=2 uses worker processes."""
    root = tmp_path_factory.mktemp("big")
    shutil.copytree(sample_corpus, root / "sample")
    rng = random.Random(1234)
    vocab = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "ru", "so", "ti") for b in
             ("bar", "dex", "fin", "gol", "hup", "jin", "kol", "lum", "mop", "nix")]  # fmt: skip
    for n in range(6):
        words = [rng.choice(vocab) + str(rng.randrange(400)) for _ in range(30000)]
        text = "\n".join(" ".join(words[i : i + 12]) for i in range(0, len(words), 12))
        (root / f"gen-{n}.txt").write_text(text, encoding="utf-8")
        edited = words[:]
        for _ in range(300):
            edited[rng.randrange(len(edited))] = rng.choice(vocab)
        (root / f"gen-{n}-edited.txt").write_text(" ".join(edited), encoding="utf-8")
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) > 1 << 20
    return root


def test_jobs_do_not_change_the_result(big_corpus: Path) -> None:
    """jobs=1 and jobs=2 (worker processes) give identical files, pairs and clusters."""
    one = simdup.scan([str(big_corpus)], jobs=1)
    with mock.patch(
        "simdup.engines.workerpool.pool_context", wraps=simdup.engines.workerpool.pool_context
    ) as pool_context:
        two = simdup.scan([str(big_corpus)], jobs=2)
    assert pool_context.called, "jobs=2 did not use worker processes"
    assert comparable(one) == comparable(two)
    names = {frozenset(Path(m.path).name for m in c.members) for c in two.clusters}
    for n in range(6):
        assert frozenset({f"gen-{n}.txt", f"gen-{n}-edited.txt"}) in names


class _LengthTask:
    """A text task whose result is the text's length (picklable: it goes to the workers)."""

    def __call__(self, document: DecodedDocument) -> int:
        return len(document.text)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_engine_with_a_task_runs_it_on_every_text_it_fingerprints(
    big_corpus: Path, tmp_path: Path, jobs: int
) -> None:
    """``with_task`` (what passages ask of any engine): the local engines run the task on each
    text they fingerprint and hand its result to the sink here, with identical records; the
    scan cache in front hands only the files it does not hold to the task; engines whose
    workers never hold the texts answer None."""
    from simdup.distributed.engine import DaskEngine
    from simdup.engines import make_engine
    from simdup.readers.discovery import find_files
    from simdup.scanning.cache import CachedEngine, CachedScan
    from simdup.store.cache import ScanCache

    files = find_files([str(big_corpus)]).files
    params = FeatureParams()
    plain = make_engine(params, max_size=1 << 26, jobs=jobs)
    seen: dict[str, int | None] = {}

    def sink(source: Any, result: Any, made: int | None) -> None:
        seen[source.path] = made

    tasked = plain.with_task(_LengthTask(), sink)
    assert tasked is not None and type(tasked) is type(plain)
    assert list(tasked.run(files)) == list(plain.run(files))
    assert set(seen) == {f.path for f in files}
    assert seen[str(big_corpus / "gen-0.txt")] == len((big_corpus / "gen-0.txt").read_text())
    assert seen[str(big_corpus / "sample" / "misc" / "empty.txt")] is None  # not fingerprinted

    tree = tmp_path / "tree"
    shutil.copytree(big_corpus, tree)
    with ScanCache(tmp_path / "cache") as cache:
        # Remembers every file.
        simdup.scan([str(tree)], jobs=jobs, backend=CachedBackend.around(LOCAL, cache))
    edited = tree / "gen-0-edited.txt"
    edited.write_text(edited.read_text() + " and one more line", encoding="utf-8")
    files = find_files([str(tree)]).files
    with ScanCache(tmp_path / "cache") as cache:
        later = CachedScan(cache, [str(tree)], params.cache_key(), {}, bands=None,
                           max_size=1 << 26)  # fmt: skip
        seen.clear()
        again = later.engine(plain).with_task(_LengthTask(), sink)
        assert isinstance(again, CachedEngine)
        assert list(again.run(files)) == list(plain.run(files))
        assert set(seen) == {str(edited)}  # the one file the cache did not answer
    assert DaskEngine(params, 1 << 26, client=None).with_task(_LengthTask(), sink) is None


def test_minhash_candidates_find_the_same_clusters(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """method='minhash' (LSH candidates) finds the same clusters on the sample corpus."""
    result = simdup.scan([str(sample_corpus)], jobs=1, method="minhash")
    assert result.settings["method"] == "minhash"
    assert cluster_sets(result, sample_corpus) == cluster_sets(corpus_result, sample_corpus)


def test_both_methods_judge_pairs_alike(corpus_result: ScanResult, sample_corpus: Path) -> None:
    """The method only proposes candidate pairs: MinHash and SimHash scans verify with the
    same sketches, so where both propose a pair they report it with the same similarity (and
    the clusters' similarities agree)."""
    minhash = simdup.scan([str(sample_corpus)], jobs=1, method="minhash")
    simhash = {(p.a, p.b): p.similarity for p in corpus_result.pairs}
    assert minhash.pairs
    for p in minhash.pairs:
        assert simhash[(p.a, p.b)] == p.similarity
    members = {m.path: m.similarity for c in corpus_result.clusters for m in c.members}
    for c in minhash.clusters:
        for m in c.members:
            assert members[m.path] == m.similarity


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_minhash_scan_bands_records_as_they_arrive_and_drops_their_signatures(
    big_corpus: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MinHash scan takes each batch's band keys, made where the batch was made (here
    batches of 4 in this process; the workers' batches), and keeps the records without their
    signatures (memory at millions of documents); the pairs and clusters are those of the
    same scan keeping every signature, whose band keys are the same."""
    import simdup.engines.batching
    from simdup.join.verify import signature_band_keys
    from simdup.scanning import collect_fingerprints

    monkeypatch.setattr(simdup.engines.batching, "PACKED_BATCH", 4)
    lean = simdup.scan([str(big_corpus)], jobs=jobs, method="minhash")
    full = simdup.scan([str(big_corpus)], jobs=jobs, method="minhash", keep_signatures=True)
    assert lean.files and all(d.minhash == b"" for d in lean.files)
    assert all(len(d.minhash) == 128 * 8 for d in full.files)
    assert lean.pairs == full.pairs and lean.clusters == full.clusters
    assert [d.path for d in lean.files] == [d.path for d in full.files]
    options = simdup.options.resolve_options(
        ScanOptions(method="minhash", jobs=jobs), {}, files=len(full.files)
    )
    from simdup.readers.discovery import discover

    files, skipped = discover([str(big_corpus)])
    got = collect_fingerprints(files, skipped, options, band_keys=True)
    keys = got.keys
    assert keys is not None
    assert (keys == signature_band_keys(list(full.files), options)).all()


def test_progress_callback_counts_every_file(sample_corpus: Path) -> None:
    """The progress callback sees done = 1..total for the files found."""
    calls: list[tuple[int, int]] = []
    result = simdup.scan([str(sample_corpus)], jobs=1, progress=lambda d, t: calls.append((d, t)))
    total = result.stats["files_found"]
    assert calls == [(d, total) for d in range(1, total + 1)]


def test_no_verify_reports_exactly_the_pairs_within_threshold(sample_corpus: Path) -> None:
    """With verify=False, pairs are exactly the fingerprints within threshold, no similarity
    estimate (except identical texts)."""
    result = simdup.scan([str(sample_corpus)], jobs=1, verify=False, threshold=3)
    fps = {f.path: f.fingerprint for f in result.files}
    expected = {(a, b) for a in fps for b in fps if a < b and simdup.hamming(fps[a], fps[b]) <= 3}
    assert {(p.a, p.b) for p in result.pairs} == expected
    assert all(p.similarity is None for p in result.pairs if not p.exact)


def test_components_clustering_never_splits_a_centre_cluster(
    corpus_result: ScanResult, sample_corpus: Path
) -> None:
    """Every centre cluster lies inside one component cluster."""
    comps = simdup.scan([str(sample_corpus)], jobs=1, cluster_method="components")
    comp_sets = cluster_sets(comps, sample_corpus)
    for centre in cluster_sets(corpus_result, sample_corpus):
        assert any(centre <= comp for comp in comp_sets)


@pytest.mark.skipif(not BENCH_DOCS.is_dir(), reason=f"benchmark docs not found at {BENCH_DOCS}")
@pytest.mark.skipif(
    simdup.text.segmentation.resolve_backend("auto") != "rjieba", reason="rjieba is not installed"
)
def test_backends_and_jobs_give_identical_scans_of_the_benchmark_set() -> None:
    """Every fingerprint, pair and cluster of the whole labelled set is the same with jieba in
    one process and with rjieba in two (only timings may differ)."""
    reference = simdup.scan([BENCH_DOCS], features=FeatureParams(segmenter="jieba"), jobs=1)
    fast = simdup.scan([BENCH_DOCS], features=FeatureParams(segmenter="rjieba"), jobs=2)
    assert len(reference.files) == 1170
    assert [(f.path, f.fingerprint) for f in reference.files] == [
        (f.path, f.fingerprint) for f in fast.files
    ]
    assert reference.pairs == fast.pairs
    assert reference.clusters == fast.clusters
    assert reference.settings["features"]["segmenter"] == "jieba"
    assert fast.settings["features"]["segmenter"] == "rjieba"


def test_auto_method_switches_to_minhash_above_the_file_limit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """method="auto" is the SimHash index for small corpora and MinHash LSH above
    AUTO_MINHASH_ABOVE files (or SimHash when verification is off); the settings record the
    method used, and both find the same near-duplicates here."""
    text = " ".join(f"word{i}" for i in range(80))
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(text + ("" if name == "a" else f" extra{name}"))
    (tmp_path / "other.txt").write_text(" ".join(f"other{i}" for i in range(80)))
    small = simdup.scan([tmp_path], jobs=1)
    assert small.settings["method"] == "simhash"
    monkeypatch.setattr(simdup.options, "AUTO_MINHASH_ABOVE", 3)
    large = simdup.scan([tmp_path], jobs=1)
    assert large.settings["method"] == "minhash"
    assert [(p.a, p.b) for p in large.pairs] == [(p.a, p.b) for p in small.pairs]
    assert len(small.pairs) == 3
    assert simdup.scan([tmp_path], jobs=1, verify=False).settings["method"] == "simhash"


def test_a_scan_hands_every_object_back_to_the_garbage_collector(sample_corpus: Path) -> None:
    """A scan freezes the records it piles up out of the collector's way, and unfreezes them
    when it ends (also when it fails); a process that froze objects itself keeps them frozen
    and its count unchanged."""
    import gc

    from simdup.engines.batching import long_lived_records

    assert gc.get_freeze_count() == 0
    simdup.scan([str(sample_corpus)], jobs=1)
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), long_lived_records() as settle:
        settle()
        assert gc.get_freeze_count() > 0
        raise RuntimeError("a scan that fails")
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with long_lived_records() as settle:
            settle()
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()
