"""simdup.store (cache, snapshot, columns, cached_scan) and join.incremental: the scan cache.

Every test has a cache folder of its own (``SIMDUP_CACHE_DIR`` under ``tmp_path``). Files get a
modification time a day old, except where a test is about recent files: a file modified within
``RACY_NS`` of being looked at is always checked by content. A scan with the cache must give
exactly the report of a scan without it: every test compares the two.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simdup.join.verify
import simdup.params
import simdup.readers.files
from simdup.engines import BandLayout, Batches, Progress, Result, SerialEngine, Sink, TextTask
from simdup.engines.backend import LOCAL, Backend
from simdup.errors import StoreError
from simdup.options import ScanOptions
from simdup.params import FeatureParams
from simdup.readers.discovery import DEFAULT_MAX_SIZE, discover
from simdup.records import ScanResult, SkippedFile, SourceFile, SourceFiles
from simdup.scanning import collect_fingerprints, scan
from simdup.scanning.cache import CachedBackend
from simdup.store.cache import (
    CACHE_DIR_NAME,
    TAG_FILE,
    ScanCache,
    cache_inside,
    default_cache_path,
    open_cache,
)
from simdup.store.columns import Frame, FrameError, frame_of
from simdup.store.snapshot import Rows
from tests.conftest import REPO, pseudo_words

DAY_AGO = time.time() - 86_400
DEFAULTS = FeatureParams()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(folder))
    return folder


def age(root: Path, when: float = DAY_AGO) -> None:
    """Give every file under ``root`` the modification time ``when``."""
    for path in [root, *root.rglob("*")]:
        if path.is_file():
            os.utime(path, (when, when))


def make_docs(root: Path, n: int, seed: int = 0) -> Path:
    """``n`` distinct documents of pseudo-words under ``root``, a day old."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / f"doc{i:03}.txt").write_text(pseudo_words(seed * 1000 + i), "utf-8")
    age(root)
    return root


def sample_copy(tmp_path: Path, sample_corpus: Path) -> Path:
    root = tmp_path / "docs"
    shutil.copytree(sample_corpus, root)
    age(root)
    return root


def files_of(root: Path) -> list[SourceFile]:
    return discover([str(root)])[0]


class CountingEngine:
    """A serial engine that remembers which files it was asked to fingerprint."""

    def __init__(self, params: FeatureParams = DEFAULTS, jobs: int = 1) -> None:
        self.params = params
        self.max_size = DEFAULT_MAX_SIZE
        self.asked: list[str] = []
        self.inner = SerialEngine(params, DEFAULT_MAX_SIZE)

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        self.asked += [f.path for f in files]
        return self.inner.run(files, progress)

    def completed_batches(
        self, files: Sequence[SourceFile], progress: Progress | None = None,
        bands: BandLayout | None = None,
    ) -> Batches:  # fmt: skip
        self.asked += [f.path for f in files]
        return self.inner.completed_batches(files, progress, bands)

    def with_task(self, task: TextTask, sink: Sink) -> None:
        return None


def comparable(result: ScanResult) -> tuple[object, ...]:
    """A report without its timings."""
    stats = {k: v for k, v in result.stats.items() if k != "seconds"}
    return list(result.files), result.skipped, result.pairs, result.clusters, result.settings, stats


def options_for(params: FeatureParams = DEFAULTS, **fields: Any) -> ScanOptions:
    return ScanOptions(features=params, **{"jobs": 1, **fields})


def plain(roots: Sequence[Path], params: FeatureParams = DEFAULTS, **fields: Any) -> ScanResult:
    return scan([str(r) for r in roots], options_for(params, **fields))


def cached(
    roots: Sequence[Path],
    params: FeatureParams = DEFAULTS,
    *,
    cache_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> tuple[ScanResult, CountingEngine, ScanCache]:
    """One scan through a fresh ScanCache (as a new process would open it)."""
    made: list[CountingEngine] = []

    def engine_for(options: ScanOptions) -> CountingEngine:
        made.append(CountingEngine(options.features))
        return made[-1]

    with ScanCache(**(cache_options or {})) as cache:
        options = options_for(params, **fields)
        backend = CachedBackend.around(Backend(engine=engine_for), cache)
        result = scan([str(r) for r in roots], options, backend=backend, progress=progress)
    return result, made[-1], cache


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths passed to ``simdup.readers.files.read_bytes``, the one function simdup opens
    documents with (the cache's hashing and the engines' reading both call it)."""
    seen: list[str] = []
    real = simdup.readers.files.read_bytes

    def counting(source: SourceFile | str, max_size: int) -> bytes:
        seen.append(source if isinstance(source, str) else source.path)
        return real(source, max_size)

    monkeypatch.setattr(simdup.readers.files, "read_bytes", counting)
    return seen


@pytest.fixture
def no_join(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    """``no_join(True)`` makes any verification of candidates fail the test."""

    def arm(on: bool) -> None:
        if on:
            def refuse(*args: Any, **kwargs: Any) -> Any:
                raise AssertionError("the scan verified candidates")

            monkeypatch.setattr(simdup.join.verify.Verifier, "pairs", refuse)
        else:
            monkeypatch.undo()

    return arm


# ---------------------------------------------------------------- hits, misses, reuse


def test_an_unchanged_rescan_reuses_the_result_without_opening_a_file_or_joining(
    tmp_path: Path, sample_corpus: Path, reads: list[str], no_join: Callable[[bool], None]
) -> None:
    """After one scan, a scan of the unchanged tree with the same settings is answered from
    the cache alone: no file is opened, the engine is not called, nothing is verified, and
    the report equals the scan without a cache, field for field."""
    root = sample_copy(tmp_path, sample_corpus)
    expected = comparable(plain([root]))
    cold, _, _ = cached([root])
    assert comparable(cold) == expected
    reads.clear()
    no_join(True)
    warm, inner, cache = cached([root])
    assert comparable(warm) == expected
    assert reads == [] and inner.asked == []
    info = cache.info()
    assert (info.hits, info.reread, info.misses) == (len(files_of(root)), 0, 0)


@pytest.mark.parametrize("method", ["simhash", "minhash"])
def test_a_rescan_with_other_settings_reuses_records_but_joins_again(
    tmp_path: Path, sample_corpus: Path, method: str, reads: list[str]
) -> None:
    """Other verification settings (the same fingerprints and band keys): every record is
    reused (no file opened), and the pairs are found again under the new settings."""
    root = sample_copy(tmp_path, sample_corpus)
    cached([root], method=method)
    reads.clear()
    result, inner, _ = cached([root], method=method, min_length_ratio=0.5)
    assert inner.asked == [] and reads == []
    assert comparable(result) == comparable(plain([root], method=method, min_length_ratio=0.5))


def test_a_scan_remembered_from_another_edit_join_is_joined_again(
    tmp_path: Path, sample_corpus: Path, reads: list[str]
) -> None:
    """Issue 50: the edit join of short texts finds pairs its first version missed, with the
    same fingerprints. A scan's settings name the join's version, so a scan remembered from
    the old join reuses every record (no file opened) but is joined again."""
    import simdup.options
    from simdup.algorithms.edit_join import JOIN_VERSION

    root = sample_copy(tmp_path, sample_corpus)
    with pytest.MonkeyPatch.context() as old:
        old.setattr(simdup.options, "JOIN_VERSION", "edit-join/1")
        cached([root])
    joined: list[int] = []
    pairs = simdup.join.verify.Verifier.pairs

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        joined.append(1)
        return pairs(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as counting:
        counting.setattr(simdup.join.verify.Verifier, "pairs", counted)
        reads.clear()
        result, inner, _ = cached([root])
    assert joined and inner.asked == [] and reads == []
    assert result.settings["edit_join"] == JOIN_VERSION


def test_only_content_skips_are_remembered(tmp_path: Path, sample_corpus: Path) -> None:
    """Binary (decode stage), nothing-to-judge (features stage: whitespace alone) and empty
    files are remembered like fingerprints (the scan after reads none of them); a file that
    could not be read is not (the next test)."""
    root = sample_copy(tmp_path, sample_corpus)
    (root / "misc" / "blank.txt").write_text(" \n\t\n", encoding="utf-8")
    cached([root])
    result, inner, _ = cached([root])
    assert inner.asked == []
    skipped = {os.path.relpath(s.path, root): s.stage for s in result.skipped}
    assert skipped == {
        "misc/empty.txt": "read",
        "misc/blank.txt": "features",
        "misc/image.bin": "decode",
    }
    assert comparable(result) == comparable(plain([root]))


def test_a_file_that_cannot_be_read_is_asked_for_again(tmp_path: Path) -> None:
    """A file that vanished between discovery and reading is not remembered: the next scan
    that finds it fingerprints it."""
    root = make_docs(tmp_path / "docs", 3)
    files = files_of(root)
    os.rename(root / "doc001.txt", tmp_path / "away.txt")  # gone after discovery
    with ScanCache() as cache:
        engine = CountingEngine()
        from simdup.scanning.cache import CachedScan

        memory = CachedScan(cache, [str(root)], DEFAULTS.cache_key(), {}, bands=None,
                            max_size=DEFAULT_MAX_SIZE)  # fmt: skip
        got = collect_fingerprints(files, [], options_for(), engine=memory.engine(engine))
        assert [s.stage for _, s in got.dropped] == ["read"]
        memory.save(SourceFiles.of(files), got.table, got.positions, got.dropped,
                    got.file_hash, None, None)  # fmt: skip
    os.rename(tmp_path / "away.txt", root / "doc001.txt")
    age(root)
    result, inner, _ = cached([root])
    assert inner.asked == [str(root / "doc001.txt")]
    assert comparable(result) == comparable(plain([root]))


def test_a_size_change_is_a_miss(tmp_path: Path) -> None:
    """A file whose size changed is fingerprinted again."""
    root = make_docs(tmp_path / "docs", 3)
    cached([root])
    target = root / "doc001.txt"
    target.write_text(pseudo_words(1) + pseudo_words(77), "utf-8")
    age(root)
    result, inner, _ = cached([root])
    assert inner.asked == [str(target)]
    assert comparable(result) == comparable(plain([root]))


def test_a_time_change_with_other_content_of_the_same_size_is_a_miss(tmp_path: Path) -> None:
    """Same size, new modification time, other bytes: the hash differs, so it is a miss."""
    root = make_docs(tmp_path / "docs", 3)
    cached([root])
    target = root / "doc002.txt"
    old = target.read_bytes()
    new = old.replace(b"ka", b"zo", 1) if b"ka" in old else b"x" + old[1:]
    assert len(new) == len(old) and new != old
    target.write_bytes(new)
    os.utime(target, (DAY_AGO + 60, DAY_AGO + 60))
    result, inner, cache = cached([root])
    assert inner.asked == [str(target)]
    assert comparable(result) == comparable(plain([root]))
    assert (cache.hits, cache.misses) == (2, 1)


def test_a_touched_file_is_reused_by_its_content_then_by_its_time(
    tmp_path: Path, reads: list[str]
) -> None:
    """A file touched (new time, same bytes: a fresh checkout) is read and hashed once, not
    fingerprinted; its row takes the new time, so the scan after does not read it at all."""
    root = make_docs(tmp_path / "docs", 3)
    cached([root])
    target = root / "doc000.txt"
    os.utime(target, (DAY_AGO + 3600, DAY_AGO + 3600))
    reads.clear()
    result, inner, cache = cached([root])
    assert reads == [str(target)] and inner.asked == []
    assert (cache.hits, cache.reread) == (3, 1)
    assert comparable(result) == comparable(plain([root]))
    reads.clear()
    cached([root])
    assert reads == []


def test_a_renamed_or_copied_file_is_reused_under_its_new_path(tmp_path: Path) -> None:
    """The same bytes under another path of the tree (renamed, copied) reuse the remembered
    record, which carries the new path; their pairs are looked for anew (the copy and its
    original are a pair)."""
    root = make_docs(tmp_path / "docs", 4)
    cached([root])
    (root / "doc003.txt").rename(root / "renamed.txt")
    shutil.copy2(root / "doc000.txt", root / "copy.txt")
    result, inner, cache = cached([root])
    assert inner.asked == []
    assert cache.reread == 2
    assert comparable(result) == comparable(plain([root]))
    pair = (str(root / "copy.txt"), str(root / "doc000.txt"))
    assert {(p.a, p.b) for p in result.pairs} == {pair}


def test_a_file_modified_within_its_timestamp_tick_is_checked_by_content(tmp_path: Path) -> None:
    """A file looked at moments after it was written may change again with the same size and
    the same time (a coarse clock): its row is trusted only after its bytes are hashed again,
    so the new content is fingerprinted."""
    root = tmp_path / "docs"
    make_docs(root, 2)
    target = root / "fresh.txt"
    target.write_text(pseudo_words(5), "utf-8")
    first = os.stat(target)
    cached([root])
    text = target.read_bytes()
    target.write_bytes(text.replace(b"ka", b"lo") if b"ka" in text else text[::-1])
    os.utime(target, ns=(first.st_atime_ns, first.st_mtime_ns))  # the same tick
    files = files_of(root)
    mine = next(f for f in files if f.path == str(target))
    assert mine.mtime_ns == first.st_mtime_ns and mine.size == first.st_size
    result, inner, _ = cached([root])
    assert inner.asked == [str(target)]
    assert comparable(result) == comparable(plain([root]))


def test_progress_counts_hits_then_fingerprinted_files(tmp_path: Path) -> None:
    """Progress reaches the total: the hits at once, then each file the engine does."""
    root = make_docs(tmp_path / "docs", 4)
    cached([root])
    for k, name in enumerate(("doc002.txt", "doc003.txt")):
        (root / name).write_text(pseudo_words(900 + k, 150), "utf-8")  # another size
    age(root)
    seen: list[tuple[int, int]] = []
    cached([root], progress=lambda done, total: seen.append((done, total)))
    assert seen == [(2, 4), (3, 4), (4, 4)]


def test_misses_go_to_the_engine_in_one_call(tmp_path: Path) -> None:
    """The files the cache misses are handed to the wrapped engine in one call (so a process
    pool shares them out); hits and the engine's results come back in the order of the files,
    and the report is the one of a scan without a cache, with worker processes too."""
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(12):  # over 1 MB in all: the pool pays
        (root / f"big{i:02}.txt").write_text(pseudo_words(500 + i, 20_000), "utf-8")
    age(root)
    cached([root])
    for i in (1, 2, 4, 5, 7, 8, 10, 11):
        (root / f"big{i:02}.txt").write_text(pseudo_words(600 + i, 21_000), "utf-8")
    age(root)
    calls: list[int] = []
    real = CountingEngine.completed_batches

    def recording(self: CountingEngine, files: Sequence[SourceFile], *args: Any) -> Batches:
        calls.append(len(files))
        return real(self, files, *args)

    CountingEngine.completed_batches = recording  # type: ignore[method-assign]
    try:
        result, _, _ = cached([root])
    finally:
        CountingEngine.completed_batches = real  # type: ignore[method-assign]
    assert calls == [8]
    assert comparable(result) == comparable(plain([root]))
    with ScanCache() as cache:
        pooled = scan([str(root)], options_for(jobs=2), backend=CachedBackend.around(LOCAL, cache))
    assert comparable(pooled) == comparable(plain([root], jobs=2))


# ---------------------------------------------------------------- a rescan joins what changed


def _edit(rng: random.Random, root: Path, step: int) -> None:
    """Edit a random few files of ``root``: append, rewrite, copy, rename, delete, add. The
    files written get a time of their own, a day old (files that are not racy)."""
    names = sorted(p.name for p in root.iterdir())
    written: list[Path] = []
    for _ in range(rng.randint(1, 4)):
        name = rng.choice(names)
        path = root / name
        if not path.exists():
            continue
        what = rng.choice(["append", "rewrite", "copy", "rename", "delete", "add"])
        if what == "append":
            extra = pseudo_words(rng.randrange(9999), 6)
            path.write_text(path.read_text("utf-8") + extra, "utf-8")
            written.append(path)
        elif what == "rewrite":
            path.write_text(pseudo_words(rng.randrange(9999), rng.randint(100, 200)), "utf-8")
            written.append(path)
        elif what == "copy":
            shutil.copy2(path, root / f"copy-{step}-{name}")
        elif what == "rename":
            path.rename(root / f"moved-{step}-{name}")
        elif what == "delete":
            path.unlink()
        else:
            written.append(root / f"new-{step}.txt")
            written[-1].write_text(pseudo_words(rng.randrange(9999)), "utf-8")
    for path in written:
        when = DAY_AGO + 60 * (step + 1)
        os.utime(path, (when, when))


def _near_copies(root: Path, n: int, seed: int) -> Path:
    """``n`` documents in families of near-copies (a few words changed), a day old."""
    rng = random.Random(seed)
    root.mkdir(parents=True)
    for family in range(n // 3):
        base = pseudo_words(seed * 100 + family, 200).split(" ")
        for k in range(3):
            words = list(base)
            for _ in range(k * 3):
                words[rng.randrange(len(words))] = "edited"
            (root / f"f{family:03}-{k}.txt").write_text(" ".join(words), "utf-8")
    age(root)
    return root


@pytest.mark.parametrize("method", ["simhash", "minhash"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rescans_after_edits_give_the_report_of_a_scan_from_scratch(
    tmp_path: Path, method: str, seed: int
) -> None:
    """Scans after random edits (appends, rewrites, copies, renames, deletions, new files)
    find the changed documents' pairs from the remembered ones: the same pairs, clusters and
    candidate count as a scan without a cache, every time."""
    root = _near_copies(tmp_path / "docs", 30, seed)
    rng = random.Random(seed)
    cached([root], method=method)
    for step in range(4):
        _edit(rng, root, step)
        result, _, _ = cached([root], method=method)
        assert comparable(result) == comparable(plain([root], method=method)), step


def test_an_incremental_join_verifies_only_the_changed_documents_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one file changed, only candidates involving it are verified."""
    root = _near_copies(tmp_path / "docs", 30, 7)
    cached([root])
    target = root / "f004-1.txt"
    target.write_text(target.read_text("utf-8") + " more words here", "utf-8")
    age(root)
    verified: list[tuple[int, int]] = []
    real = simdup.join.verify.Verifier.pairs

    def spy(self: Any, docs: Any, candidates: Any) -> Any:
        verified.extend(zip(candidates.i.tolist(), candidates.j.tolist(), strict=True))
        return real(self, docs, candidates)

    monkeypatch.setattr(simdup.join.verify.Verifier, "pairs", spy)
    result, _, _ = cached([root])
    row = [d.path for d in result.files].index(str(target))
    assert verified and all(row in pair for pair in verified)
    monkeypatch.undo()
    assert comparable(result) == comparable(plain([root]))


def test_against_a_named_index_reuses_records_but_not_the_result(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """With --against, the pairs with stored documents are found each time (the stored index
    may have changed); the files' records still come from the cache."""
    from simdup.store.index import Index

    root = sample_copy(tmp_path, sample_corpus)
    db = tmp_path / "ref.simdup"
    with Index(str(db), params=DEFAULTS) as index:
        index.add_files([str(root / "en")])
    for _ in range(2):
        with Index(str(db), create=False, params=DEFAULTS) as index, ScanCache() as cache:
            inner = CountingEngine()
            backend = CachedBackend.around(Backend.with_engine(inner), cache)
            got = scan([str(root)], options_for(), backend=backend, reference=index)
        with Index(str(db), create=False, params=DEFAULTS) as index:
            expected = scan([str(root)], options_for(), reference=index)
        assert comparable(got) == comparable(expected)
    assert inner.asked == []


# ---------------------------------------------------------------- the key


USER_DICT = "卡洛米 100 n\n"


def variants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Callable[[], FeatureParams]]:
    """Parameter changes, each of which must give another key."""
    words = tmp_path / "user.dict"
    words.write_text(USER_DICT, "utf-8")

    def edited_user_dict() -> FeatureParams:
        words.write_text(USER_DICT + "洛米内 50 n\n", "utf-8")
        return FeatureParams(user_dict=str(words))

    def algorithm() -> FeatureParams:
        monkeypatch.setattr(simdup.params, "ALGORITHM_VERSION", "simdup-simhash64/999")
        return FeatureParams(user_dict=str(words))

    return {
        "weighting": lambda: FeatureParams(user_dict=str(words), weighting="tf"),
        "stopwords": lambda: FeatureParams(user_dict=str(words), extra_stopwords=frozenset({"x"})),
        "bundled stopwords": lambda: FeatureParams(user_dict=str(words), stopwords=False),
        "sketch size": lambda: FeatureParams(user_dict=str(words), sketch_size=128),
        "user dictionary content": edited_user_dict,
        "algorithm version": algorithm,
    }


@pytest.mark.parametrize(
    "part",
    ["weighting", "stopwords", "bundled stopwords", "sketch size", "user dictionary content",
     "algorithm version"],
)  # fmt: skip
def test_each_part_of_the_parameter_key_invalidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    """Changing any setting that can change a fingerprint misses every file (and gives the
    report of a scan without a cache); the unchanged settings still hit."""
    root = make_docs(tmp_path / "docs", 3)
    base = FeatureParams(user_dict=str(tmp_path / "user.dict"))
    make = variants(tmp_path, monkeypatch)[part]
    cached([root], base)
    _, inner, _ = cached([root], base)
    assert inner.asked == []
    key = base.cache_key()
    changed = make()
    assert changed.cache_key() != key
    result, inner, _ = cached([root], changed)
    assert len(inner.asked) == len(files_of(root))
    assert comparable(result) == comparable(plain([root], changed))


def test_the_minhash_band_layout_is_part_of_the_key(tmp_path: Path) -> None:
    """A MinHash scan remembers its band keys: one with another band layout (another
    --min-similarity) fingerprints again rather than mix them."""
    root = make_docs(tmp_path / "docs", 3)
    cached([root], method="minhash")
    _, inner, _ = cached([root], method="minhash", min_similarity=0.5)
    assert len(inner.asked) == 3
    result, inner, _ = cached([root], method="minhash")
    assert inner.asked == []
    assert comparable(result) == comparable(plain([root], method="minhash"))


# ---------------------------------------------------------------- the folder


def test_the_folder_keeps_its_bound_by_dropping_whole_old_scans(tmp_path: Path) -> None:
    """Past ``max_bytes`` the least recently used snapshots go, whole; the one just written
    stays; a scan whose snapshot alone is over the bound is not kept, with a warning."""
    roots = [make_docs(tmp_path / f"docs{k}", 20, seed=k) for k in range(4)]
    cached([roots[0]])
    size = ScanCache().info().bytes
    bound = int(size * 2.5)
    for k, root in enumerate(roots):
        cached([root], cache_options={"max_bytes": bound})
        time.sleep(0.02)  # distinct times of last use
        info = ScanCache(max_bytes=bound).info()
        assert info.bytes <= bound and info.snapshots <= 2, k
    # The last two scans are remembered, the first two were dropped.
    assert len(cached([roots[3]], cache_options={"max_bytes": bound})[1].asked) == 0
    assert len(cached([roots[0]], cache_options={"max_bytes": bound})[1].asked) == 20
    warnings: list[str] = []
    cached([roots[1]], cache_options={"max_bytes": size // 2, "warn": warnings.append})
    assert any("larger than the cache's bound" in w for w in warnings)


def test_rows_round_trip_through_a_frame_and_names_that_are_not_utf8(tmp_path: Path) -> None:
    """Remembered rows read back from their frame give the same records, under file names
    that are not UTF-8 too; a frame cut short or altered is a FrameError."""
    root = make_docs(tmp_path / "docs", 3)
    odd = root / os.fsdecode(b"caf\xe9.txt")
    odd.write_text(pseudo_words(42), "utf-8")
    age(root)
    files = SourceFiles.of(files_of(root))
    got = collect_fingerprints(files, [], options_for())
    rows = Rows.of_scan(files, got.table, got.positions, got.dropped, got.file_hash, 1, None)
    data = frame_of(rows.columns(), rows.meta())
    back = Rows.of_frame(Frame(data))
    everything = np.arange(len(files))
    assert back.batch(everything, files.paths).records(files.paths) == list(got.table)
    with pytest.raises(FrameError):
        Frame(data[:-100])
    altered = bytearray(data)
    for at in range(len(data) // 2, len(data), 97):
        altered[at] ^= 0xFF
    with pytest.raises(FrameError):
        Rows.of_frame(Frame(bytes(altered)))


def damage_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_bytes(path: Path) -> None:
    """Garbage over bytes here and there past the header."""
    data = bytearray(path.read_bytes())
    for at in range(len(data) // 2, len(data), 997):
        data[at] ^= 0x5A
    path.write_bytes(bytes(data))


def damage_all(path: Path) -> None:
    path.write_bytes(os.urandom(path.stat().st_size))


def damage_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[30:60] = b"{" * 30
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage", [damage_truncate, damage_bytes, damage_all, damage_header],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_a_damaged_snapshot_is_dropped_with_a_warning(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    """A truncated or overwritten snapshot is dropped with one warning; the scan gives the
    report of a scan without a cache, and the scan after is answered from the cache again."""
    root = make_docs(tmp_path / "docs", 40)
    cached([root])
    (snapshot,) = Path(default_cache_path()).glob("*.snapshot")
    damage(snapshot)
    warnings: list[str] = []
    result, _, _ = cached([root], cache_options={"warn": warnings.append})
    assert comparable(result) == comparable(plain([root]))
    assert len(warnings) == 1 and "damaged" in warnings[0], warnings
    warnings.clear()
    _, inner, _ = cached([root], cache_options={"warn": warnings.append})
    assert inner.asked == [] and warnings == []


def test_someone_elses_file_or_folder_is_never_touched(tmp_path: Path) -> None:
    """A cache path naming a file, or a folder that holds other things, raises StoreError and
    leaves it as it was; an empty folder, or one simdup tagged, is used."""
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n", "utf-8")
    with pytest.raises(StoreError, match="not touched"):
        ScanCache(text)
    assert text.read_text("utf-8") == "my notes\n"
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"\xff\xd8\xff")
    with pytest.raises(StoreError, match="not touched"):
        ScanCache(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["cat.jpg"]
    empty = tmp_path / "empty"
    empty.mkdir()
    ScanCache(empty).close()
    assert (empty / TAG_FILE).read_bytes().startswith(b"Signature: 8a477f597d28d172789f")
    (empty / "x.snapshot").write_bytes(b"junk")
    ScanCache(empty).close()  # tagged by simdup: still ours


def test_info_and_clear(tmp_path: Path) -> None:
    """info() gives the scans and files remembered, the bytes on disk, the bound and this
    run's hits and misses; clear() empties the folder."""
    root = make_docs(tmp_path / "docs", 5)
    cached([root])
    _, _, cache = cached([root])
    info = cache.info()
    assert (info.snapshots, info.files, info.hits, info.misses) == (1, 5, 5, 0)
    assert info.path == default_cache_path() and info.bytes > 0
    with ScanCache() as cache:
        cache.clear()
        assert cache.info().files == 0
    assert len(cached([root])[1].asked) == 5


def test_default_path_is_under_simdup_cache_dir(cache_dir: Path) -> None:
    """SIMDUP_CACHE_DIR overrides the user's cache folder (the tests rely on it); the SQLite
    cache of earlier versions found there is removed."""
    assert default_cache_path() == str(cache_dir / CACHE_DIR_NAME)
    cache_dir.mkdir()
    (cache_dir / "fingerprints.sqlite").write_bytes(b"old")
    ScanCache().close()
    assert not (cache_dir / "fingerprints.sqlite").exists()


def test_a_cache_inside_a_scanned_root_is_not_used(tmp_path: Path) -> None:
    """The cache is never part of what is scanned: a cache folder inside a root (or named as
    one) is reported and no cache is used."""
    root = make_docs(tmp_path / "docs", 2)
    inside = root / "sub" / "cache"
    assert cache_inside(inside, [str(tmp_path / "x"), str(root)]) == str(root)
    assert cache_inside(tmp_path / "c", [str(root)]) is None
    warnings: list[str] = []
    assert open_cache([root], inside, warn=warnings.append) is None
    assert len(warnings) == 1 and not inside.exists()
    found = open_cache([root], tmp_path / "c", warn=warnings.append)
    assert isinstance(found, ScanCache)
    found.close()


def test_an_unusable_default_cache_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the default cache cannot be created (no writable cache folder), the scan goes on
    without it and says so; a cache path given explicitly that cannot be used is an error."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", "utf-8")
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(blocker / "cache"))
    warnings: list[str] = []
    assert open_cache([tmp_path / "docs"], warn=warnings.append) is None
    assert len(warnings) == 1 and "not used" in warnings[0]
    with pytest.raises(StoreError):
        open_cache([tmp_path / "docs"], blocker / "c")


# ---------------------------------------------------------------- several processes

DRIVER = textwrap.dedent(
    """
    import json, sys, time
    import simdup.engines.batching
    from simdup.engines import SerialEngine
    from simdup.engines.backend import Backend
    from simdup.options import ScanOptions
    from simdup.scanning import scan
    from simdup.scanning.cache import CachedBackend
    from simdup.store.cache import ScanCache

    root, out, batch, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    simdup.engines.batching.PACKED_BATCH = batch  # the engine's batches: what is journaled

    class Slow(SerialEngine):
        def completed_batches(self, files, progress=None, bands=None):
            for done in super().completed_batches(files, progress, bands):
                time.sleep(pause)
                yield done

    with ScanCache() as cache:
        slow = Slow(ScanOptions().features, 1 << 26)
        backend = CachedBackend.around(Backend.with_engine(slow), cache)
        result = scan([root], ScanOptions(jobs=1), backend=backend)
    with open(out, "w") as handle:
        json.dump({"files": [[d.path, d.fingerprint] for d in result.files],
                   "pairs": [[p.a, p.b] for p in result.pairs]}, handle)
    """
)


def start_driver(
    tmp_path: Path, root: Path, out: Path, batch: int, pause: float
) -> subprocess.Popen[bytes]:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, str(script), str(root), str(out), str(batch), str(pause)]
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE)


def journaled(wanted: int, poll: float) -> int:
    """How many files the journals of the default cache hold, once they hold ``wanted`` (or
    after 30 s)."""
    from simdup.store.columns import read_journal

    deadline = time.monotonic() + 30
    found = 0
    while time.monotonic() < deadline and found < wanted:
        time.sleep(poll)
        found = 0
        for journal in Path(default_cache_path()).glob("*.journal"):
            with contextlib.suppress(OSError):
                found += sum(int(frame.meta["rows"]) for frame in read_journal(str(journal)))
    return found


def test_two_processes_using_one_cache_both_finish_correctly(tmp_path: Path) -> None:
    """Two simdup processes scanning overlapping trees with one cache at the same time both
    give the report of a scan without a cache, and the cache then answers both."""
    shared = make_docs(tmp_path / "docs" / "shared", 16)
    a = make_docs(tmp_path / "docs" / "a", 4, seed=1)
    b = make_docs(tmp_path / "docs" / "b", 4, seed=2)
    for own in (a, b):
        shutil.copytree(shared, own / "shared", copy_function=shutil.copy2)
    procs = [
        start_driver(tmp_path, root, tmp_path / f"{root.name}.json", 2, 0.01) for root in (a, b)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    for root in (a, b):
        report = json.loads((tmp_path / f"{root.name}.json").read_text("utf-8"))
        expected = plain([root])
        assert report["files"] == [[d.path, d.fingerprint] for d in expected.files]
        assert report["pairs"] == [[p.a, p.b] for p in expected.pairs]
        _, inner, _ = cached([root])
        assert inner.asked == []


def test_a_run_killed_mid_way_loses_only_its_open_batch(tmp_path: Path) -> None:
    """A process SIGKILLed while fingerprinting keeps the batches it journaled; the next scan
    reuses them and gives exactly the report of a scan without a cache, with no warning."""
    root = make_docs(tmp_path / "docs", 30)
    proc = start_driver(tmp_path, root, tmp_path / "killed.json", 3, 0.1)
    done = journaled(6, poll=0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert 6 <= done < 30
    warnings: list[str] = []
    result, inner, cache = cached([root], cache_options={"warn": warnings.append})
    assert comparable(result) == comparable(plain([root]))
    assert warnings == []
    assert cache.hits >= 6 and len(inner.asked) == 30 - cache.hits
    assert not list(Path(default_cache_path()).glob("*.journal"))  # folded, then removed


POOL_DRIVER = textwrap.dedent(
    """
    import sys, time
    import simdup.engines.work
    from simdup.engines import ProcessPoolEngine
    from simdup.options import ScanOptions
    from simdup.engines.backend import LOCAL
    from simdup.scanning import scan
    from simdup.scanning.cache import CachedBackend
    from simdup.store.cache import ScanCache

    original = simdup.engines.work.fingerprint_source

    def slow(processor, source, max_size, task=None):  # inherited by the forked workers
        time.sleep(0.05)
        return original(processor, source, max_size, task)

    simdup.engines.work.fingerprint_source = slow
    with ScanCache() as cache:
        scan([sys.argv[1]], ScanOptions(jobs=2), backend=CachedBackend.around(LOCAL, cache))
    """
)


def test_a_pool_run_killed_mid_way_keeps_what_its_workers_finished(tmp_path: Path) -> None:
    """With a process pool, records are journaled as the workers' batches come back, not when
    the whole run ends: a run SIGKILLed midway leaves them in the cache, and the next scan
    reuses them and gives exactly the report of a scan without a cache."""
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(40):  # 1.2 MB in all: the pool pays
        (root / f"doc{i:02}.txt").write_text(pseudo_words(700 + i, 30_000), "utf-8")
    age(root)
    script = tmp_path / "pool_driver.py"
    script.write_text(POOL_DRIVER, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), str(root)], env=env)
    done = journaled(4, poll=0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert 4 <= done < 40
    result, inner, cache = cached([root], jobs=2)
    assert comparable(result) == comparable(plain([root], jobs=2))
    assert cache.hits >= 4 and len(inner.asked) == 40 - cache.hits


def test_skipped_records_carry_the_current_path(tmp_path: Path, sample_corpus: Path) -> None:
    """A remembered skip record (binary, too short) is reported under the file's path."""
    root = sample_copy(tmp_path, sample_corpus)
    cached([root])
    result, _, _ = cached([root])
    assert all(isinstance(s, SkippedFile) and s.path.startswith(str(root))
               for s in result.skipped)  # fmt: skip


WARM_IMPORTS = textwrap.dedent(
    """
    import json, sys
    import simdup.cli
    sys.argv = ["simdup", "scan", sys.argv[1], "-q", "-f", "json", "-o", sys.argv[2], "-j", "1"]
    try:
        simdup.cli.main()
    except SystemExit:
        pass
    print(json.dumps(sorted(sys.modules)))
    """
)


def test_a_rescan_answered_from_the_cache_loads_no_segmenter_and_no_other_command(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """A rescan of an unchanged tree imports what its path needs: no segmenter (no jieba, no
    rjieba), no index store, no passages beyond their options, no HTML report; the first scan
    did load the segmenter."""
    root = sample_copy(tmp_path, sample_corpus)
    script = tmp_path / "warm.py"
    script.write_text(WARM_IMPORTS, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    loaded = []
    for run in ("first", "again"):
        done = subprocess.run(
            [sys.executable, str(script), str(root), str(tmp_path / f"{run}.json")],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        loaded.append(set(json.loads(done.stdout)))
    first, again = loaded
    assert {"jieba", "rjieba"} & first
    assert not {"jieba", "rjieba"} & again
    for module in ("simdup.store.index", "simdup.report.html", "simdup.passages.matching",
                   "simdup.cli.compare", "simdup.text.processor"):  # fmt: skip
        assert module not in again, module


def test_an_empty_folder_or_a_missing_path_is_scanned_and_cached_without_a_warning(
    tmp_path: Path,
) -> None:
    """An empty folder, or only a missing path: no documents, a cache written and read back,
    no internal error shown as a warning (issue 33: a 2-D column without rows could not be
    written to the cache's snapshot)."""
    from click.testing import CliRunner

    from simdup.cli import cli

    empty = tmp_path / "empty"
    empty.mkdir()
    cache = tmp_path / "cache"
    for paths in ([str(empty)], [str(tmp_path / "missing")]):
        for _ in range(2):  # written, then read back
            result = CliRunner().invoke(cli, ["scan", *paths, "--cache", str(cache)])
            assert result.exit_code == 0, result.output
            assert "warning" not in result.stderr and "0 documents fingerprinted" in result.stdout
    assert "No such file or directory" in result.stderr
