"""simdup.store.index: a named index answers exactly, persists, refuses what it cannot mix,
survives damage, concurrent writers and killed writers, and verifies like a scan."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdup
from simdup.algorithms.index import MAX_THRESHOLD
from simdup.errors import ConfigError, InputError, StoreError
from simdup.params import FeatureParams
from simdup.readers.discovery import discover
from simdup.store import database
from simdup.store import index as store_index
from simdup.store.index import Index, choose_strategy, probe_count, probe_plan
from tests.conftest import REPO
from tests.strategies import MAX64, edge_fingerprints, fingerprints, near_copy

STRATEGIES = ("probe", "scan")


def brute_force(stored: dict[str, int], query: int, k: int) -> list[tuple[str, int]]:
    """Every stored ``(key, distance)`` within ``k`` of ``query``, nearest first, then key."""
    found = [(key, (fp ^ query).bit_count()) for key, fp in stored.items()]
    return sorted(((key, d) for key, d in found if d <= k), key=lambda item: (item[1], item[0]))


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> object:
    """``forced(strategy)`` makes every query probe the block indexes or scan every row."""

    def force(strategy: str) -> None:
        monkeypatch.setattr(store_index, "choose_strategy", lambda threshold, n: strategy)

    return force


# ---------------------------------------------------------------- exactness


def test_probe_plan_covers_every_split_of_the_distance() -> None:
    """For every threshold, every way of spreading at most k differing bits over the four
    16-bit blocks leaves some probed block within its radius (the pigeonhole argument)."""
    from itertools import product

    for k in range(MAX_THRESHOLD + 1):
        plan = dict(probe_plan(k))
        for split in product(range(17), repeat=4):
            if sum(split) <= k:
                assert any(split[b] <= r for b, r in plan.items()), (k, split)


def test_probe_plan_is_small_at_the_usual_thresholds() -> None:
    """Threshold 3 is four lookups, 6 is 52 (not 68), 12 is 1,108: what makes queries fast."""
    assert probe_count(3) == 4
    assert probe_count(6) == 3 * 17 + 1
    assert probe_count(12) == 697 + 3 * 137
    assert choose_strategy(3, 10**6) == "probe"
    assert choose_strategy(12, 10**6) == "probe"
    assert choose_strategy(31, 10**6) == "scan"
    assert choose_strategy(20, 100) == "scan"


@st.composite
def stored_and_query(draw: st.DrawFn) -> tuple[dict[str, int], int]:
    """Random and edge fingerprints, plus copies of the query with 0..34 bits flipped (so that
    every threshold from 0 to 31 splits them) and copies of those copies."""
    query = draw(st.one_of(fingerprints, edge_fingerprints))
    values = draw(st.lists(st.one_of(fingerprints, edge_fingerprints), max_size=30))
    for _ in range(draw(st.integers(0, 40))):
        values.append(draw(near_copy(query, 34)))
    for _ in range(draw(st.integers(0, 5))):
        if values:
            values.append(draw(near_copy(values[draw(st.integers(0, len(values) - 1))], 4)))
    return {f"k{i:03d}": v for i, v in enumerate(values)}, query


@settings(max_examples=60)
@given(
    data=stored_and_query(),
    threshold=st.integers(0, MAX_THRESHOLD),
    strategy=st.sampled_from(STRATEGIES),
)
def test_query_equals_brute_force(
    data: tuple[dict[str, int], int], threshold: int, strategy: str
) -> None:
    """``query`` returns exactly the stored keys within the threshold, nearest first then by
    key, whether it probes the block indexes or scans every row."""
    stored, query = data
    original = store_index.choose_strategy
    store_index.choose_strategy = lambda k, n: strategy  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp, Index(Path(tmp) / "i.simdup") as idx:
            idx.add_many(stored.items(), batch_size=7)
            assert idx.query(query, threshold) == brute_force(stored, query, threshold)
    finally:
        store_index.choose_strategy = original  # type: ignore[assignment]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_threshold_against_brute_force(tmp_path: Path, forced: object, strategy: str) -> None:
    """On 3,000 fingerprints (a third of them near the queries), every threshold 0..31 gives
    exactly the brute-force answer with both strategies."""
    import random

    rng = random.Random(20240610)
    queries = [rng.getrandbits(64) for _ in range(4)] + [0, MAX64]
    stored: dict[str, int] = {}
    for i in range(3000):
        if i % 3:
            stored[f"r{i}"] = rng.getrandbits(64)
        else:
            value = queries[i % len(queries)]
            for bit in rng.sample(range(64), rng.randint(0, 33)):
                value ^= 1 << bit
            stored[f"n{i}"] = value
    forced(strategy)  # type: ignore[operator]
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_many(stored.items())
        for query in queries:
            for k in range(MAX_THRESHOLD + 1):
                assert idx.query(query, k) == brute_force(stored, query, k), (query, k)


def test_invalid_fingerprints_and_thresholds_are_config_errors(tmp_path: Path) -> None:
    """Out-of-range fingerprints and thresholds, non-integers and non-string keys raise
    ``ConfigError`` (a ``ValueError``) before anything is written."""
    with Index(tmp_path / "i.simdup") as idx:
        for bad in (-1, 1 << 64, 1.5, True, "12"):
            with pytest.raises(ConfigError):
                idx.add("k", bad)  # type: ignore[arg-type]
            with pytest.raises(ConfigError):
                idx.query(bad)  # type: ignore[arg-type]
        for bad_k in (-1, MAX_THRESHOLD + 1, 2.0):
            with pytest.raises(ConfigError):
                idx.query(0, bad_k)  # type: ignore[arg-type]
        with pytest.raises(ConfigError):
            idx.add(7, 1)  # type: ignore[arg-type]
        assert len(idx) == 0


# ---------------------------------------------------------------- keys, persistence


def test_add_remove_and_add_again(tmp_path: Path) -> None:
    """A key holds one fingerprint: adding it again replaces it, ``remove`` says whether there
    was one, and a removed key can be added again."""
    with Index(tmp_path / "i.simdup") as idx:
        idx.add("a", 1)
        idx.add("a", 1 << 40)
        assert idx.get("a") == 1 << 40 and len(idx) == 1
        assert idx.query(1, 0) == []
        assert idx.query(1 << 40, 0) == [("a", 0)]
        assert idx.remove("a") is True
        assert idx.remove("a") is False
        assert "a" not in idx and idx.query(1 << 40, 3) == []
        idx.add("a", 3)
        assert idx.query(1, 1) == [("a", 1)]


def test_persists_across_reopening_and_rolls_back_on_error(tmp_path: Path) -> None:
    """Committed entries are there after reopening; leaving a ``with`` block by an exception
    rolls back what ``add`` did since the last commit; ``close`` commits."""
    path = tmp_path / "i.simdup"
    with Index(path) as idx:
        idx.add("kept", 5)
        idx.commit()
        idx.add("lost", 6)
        with pytest.raises(RuntimeError), idx:
            raise RuntimeError("boom")
    idx = Index(path, create=False)
    assert list(idx.keys()) == ["kept"]
    idx.add("closed", 7)
    idx.close()
    idx.close()  # a second close does nothing
    with pytest.raises(StoreError, match="closed"):
        idx.query(5)
    with Index(path) as again:
        assert sorted(again.keys()) == ["closed", "kept"]
        assert again.get("kept") == 5 and again.get("missing") is None


def test_keys_in_order_across_pages_and_any_file_name(tmp_path: Path) -> None:
    """``keys()`` yields every key in code-point order, across its 1,000-key pages, including
    names that are not valid UTF-8 (surrogate escapes) and non-ASCII ones."""
    odd = os.fsdecode(b"caf\xe9.txt")  # Latin-1 bytes: a lone surrogate escape in Python
    names = [f"doc{i:05d}" for i in range(2500)] + [odd, "文档.md", "Ω"]
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_many((name, i) for i, name in enumerate(names))
        keys = list(idx.keys())
        assert keys == sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape"))
        assert idx.query(names.index(odd), 0) == [(odd, 0)]


def test_missing_index_without_create(tmp_path: Path) -> None:
    """``create=False`` on a path with no database raises ``StoreError`` naming it."""
    with pytest.raises(StoreError) as info:
        Index(tmp_path / "none.simdup", create=False)
    assert info.value.path == str(tmp_path / "none.simdup")
    assert not (tmp_path / "none.simdup").exists()


# ---------------------------------------------------------------- never mixed


def test_other_algorithm_version_is_refused(tmp_path: Path) -> None:
    """An index written by another algorithm version is refused, naming both versions, and
    ``rebuild=True`` recreates it empty."""
    path = tmp_path / "i.simdup"
    with Index(path) as idx:
        idx.add("a", 1)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = 'simdup-simhash64/2' WHERE key = 'algorithm_version'")
    with pytest.raises(StoreError, match="simdup-simhash64/2") as info:
        Index(path)
    assert info.value.path == str(path)
    with Index(path, rebuild=True) as idx:
        assert len(idx) == 0
        assert idx.stats().algorithm_version == simdup.ALGORITHM_VERSION


def test_other_parameters_are_refused(tmp_path: Path, sample_corpus: Path) -> None:
    """An index built with some fingerprint parameters refuses others (naming what differs),
    at opening when ``params`` is given, or when a file would be fingerprinted with the
    defaults; opening without ``params`` still serves bare-fingerprint queries and stats."""
    path = tmp_path / "i.simdup"
    tf = FeatureParams(weighting="tf")
    with Index(path, params=tf) as idx:
        idx.add_file(sample_corpus / "en" / "fable-crow.txt")
    with pytest.raises(StoreError, match="weighting='tf'"):
        Index(path, params=FeatureParams())
    with Index(path) as idx:
        assert idx.stats().params["weighting"] == "tf"
        stored = idx.get(str(sample_corpus / "en" / "fable-crow.txt"))
        assert stored is not None and len(idx.query(stored, 0)) == 1
        with pytest.raises(StoreError, match="other parameters"):
            idx.add_file(sample_corpus / "en" / "lentil-soup.txt")
        with pytest.raises(StoreError, match="other parameters"):
            idx.query_file(sample_corpus / "en" / "fable-crow-edited.txt")
    with Index(path, params=tf) as idx:
        assert len(idx.query_file(sample_corpus / "en" / "fable-crow-edited.txt")) == 1
    # The segmenter is a backend (identical tokens) and MinHash signatures are not used.
    with Index(path, params=FeatureParams(weighting="tf", segmenter="jieba", minhash_perms=64)):
        pass


# ---------------------------------------------------------------- damage


def _build(path: Path, n: int = 20_000) -> None:
    import random

    rng = random.Random(7)
    with Index(path) as idx:
        idx.add_many((f"k{i:06d}", rng.getrandbits(64)) for i in range(n))


def _use(path: Path) -> None:
    """Everything a user might do first with an index."""
    with Index(path) as idx:
        for q in range(0, 1 << 64, 1 << 58):
            idx.query(q, 12)
        idx.stats()
        list(idx.keys())
        idx.check()


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated-half", "truncated-header", "zeroed-pages", "empty-file"],
)
def test_damaged_index_is_a_store_error_and_rebuild_recovers(tmp_path: Path, damage: str) -> None:
    """Garbage bytes, a truncated file or overwritten pages raise ``StoreError`` naming the
    file (at opening or at the first use that meets the damage), never a raw sqlite3 error or
    a wrong answer; ``rebuild=True`` recreates it."""
    path = tmp_path / "i.simdup"
    _build(path)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "truncated-half":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "truncated-header":
        path.write_bytes(data[:50])
    elif damage == "zeroed-pages":
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes(8 * 4096) + data[middle + 8 * 4096 :])
    else:
        path.write_bytes(b"")
    if damage == "empty-file":
        # SQLite takes an empty file for a new database: it becomes a fresh index.
        _use(path)
    else:
        with pytest.raises(StoreError) as info:
            _use(path)
        assert info.value.path == str(path)
    with Index(path, rebuild=True) as idx:
        idx.add("a", 1)
        assert idx.query(1) == [("a", 0)]


def test_another_simdup_database_or_sqlite_file_is_refused(tmp_path: Path) -> None:
    """A SQLite file that is not a simdup index (another application's, or a scan cache) is
    refused without being changed."""
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not a simdup index"):
        Index(other)
    assert other.read_bytes() == before
    cache = tmp_path / "cache.sqlite"
    database.open_database(str(cache), "cache", []).close()
    with pytest.raises(StoreError, match="cache database, not a index"):
        Index(cache)


# ---------------------------------------------------------------- processes

_CHILD = textwrap.dedent(
    """
    import sys, time
    from simdup.store.index import Index
    path, prefix, count, batch, pause_at = sys.argv[1:6]
    count, batch, pause_at = int(count), int(batch), int(pause_at)
    def items():
        for i in range(count):
            if i == pause_at:
                print("paused", flush=True)
                time.sleep(600)
            yield f"{prefix}{i:07d}", (i * 0x9E3779B97F4A7C15) % (1 << 64)
    with Index(path) as idx:
        print("ready", flush=True)
        idx.add_many(items(), batch_size=batch)
    print("done", flush=True)
    """
)


def _child(path: Path, prefix: str, count: int, batch: int, pause_at: int = -1) -> list[str]:
    return [sys.executable, "-c", _CHILD, str(path), prefix, str(count), str(batch), str(pause_at)]


def test_two_processes_adding_at_once_both_finish(tmp_path: Path) -> None:
    """Two processes that create and fill the same new index at the same moment both finish,
    and every key of both is there afterwards."""
    path = tmp_path / "i.simdup"
    procs = [
        subprocess.Popen(_child(path, p, 20_000, 500), stdout=subprocess.PIPE, cwd=REPO)
        for p in ("a", "b")
    ]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    with Index(path) as idx:
        keys = list(idx.keys())
        assert len(keys) == 40_000
        assert keys[0] == "a0000000" and keys[-1] == "b0019999"
        idx.check()


def test_a_query_never_waits_for_an_open_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one connection holds a write transaction open (``add`` without ``commit``),
    another opens the index and queries it at once, seeing the last committed state."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.2)
    path = tmp_path / "i.simdup"
    writer = Index(path)
    writer.add("committed", 1)
    writer.commit()
    writer.add("pending", 2)
    started = time.perf_counter()
    with Index(path) as reader:
        assert reader.query(1, 1) == [("committed", 0)]
    assert time.perf_counter() - started < 0.2
    writer.close()


def test_sigkill_mid_batch_loses_only_the_open_batch(tmp_path: Path) -> None:
    """A writer killed in the middle of a batch leaves the batches it committed and nothing of
    the open one; the index opens cleanly and takes new entries."""
    path = tmp_path / "i.simdup"
    proc = subprocess.Popen(
        _child(path, "k", 100_000, 1000, pause_at=2500), stdout=subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    assert proc.stdout.readline().strip() == b"paused"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Index(path) as idx:
        assert list(idx.keys()) == [f"k{i:07d}" for i in range(2000)]
        idx.add("new", 1)
        idx.commit()
        idx.check()
        assert ("new", 0) in idx.query(1, 0)


def test_sigkill_at_a_random_moment_leaves_whole_batches(tmp_path: Path) -> None:
    """Killed at arbitrary moments (mid-write, mid-commit), a writer leaves a prefix of whole
    batches every time, and the next writer completes."""
    path = tmp_path / "i.simdup"
    survived = []
    for delay in (0.05, 0.2, 0.35, 0.5):
        proc = subprocess.Popen(_child(path, "k", 10**7, 777), stdout=subprocess.PIPE, cwd=REPO)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        with Index(path) as idx:
            keys = list(idx.keys())
            assert len(keys) % 777 == 0
            assert keys == [f"k{i:07d}" for i in range(len(keys))]
            survived.append(len(keys))
    assert max(survived) > 0  # the kills did land in the middle of the work
    done = subprocess.run(_child(path, "z", 2000, 500), capture_output=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    with Index(path) as idx:
        assert "z0001999" in idx
        idx.check()


# ---------------------------------------------------------------- verified queries


def _scan_pairs(corpus: Path) -> set[tuple[str, str]]:
    result = simdup.scan([str(corpus)], jobs=1)
    return {(p.a, p.b) for p in result.pairs}


def test_query_file_agrees_with_scan_on_the_sample_corpus(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """Indexing the sample corpus and querying each of its files gives exactly the pairs a
    scan of the corpus reports (the same rule), including the README's known near-duplicates
    and none of its template-sharing traps."""
    with Index(tmp_path / "i.simdup") as idx:
        added = idx.add_files([str(sample_corpus)], jobs=1)
        assert added.added == 46
        assert {s.path.rsplit("/", 1)[-1] for s in added.skipped} == {"empty.txt", "image.bin"}
        found: set[tuple[str, str]] = set()
        for key in list(idx.keys()):
            for match in idx.query_file(key):
                assert match.path == key
                if match.key != key:
                    found.add((min(key, match.key), max(key, match.key)))
                else:
                    assert match.exact and match.distance == 0
        expected = _scan_pairs(sample_corpus)
        assert found == expected
        root = str(sample_corpus)
        known = [
            ("en/fable-crow.txt", "en/fable-crow-edited.txt"),
            ("en/fable-crow.txt", "encodings/fable-crow-utf16.txt"),
            ("zh/library-report.txt", "zh/library-report-edited.txt"),
            ("zh/daodejing-1-14.txt", "zh/daodejing-1-14-swapped.txt"),
            ("mixed/deploy-checklist.txt", "mixed/deploy-checklist-halfwidth.txt"),
        ]
        for a, b in known:
            pair = (f"{root}/{a}", f"{root}/{b}")
            assert (min(pair), max(pair)) in found
        matches = idx.query_file(sample_corpus / "zh" / "newsletter" / "weekly-012.txt")
        assert [m.key for m in matches] == [f"{root}/zh/newsletter/weekly-012.txt"]
        # The two-word file is a short text now: stored and queried, its own only match.
        matches = idx.query_file(sample_corpus / "misc" / "hello.txt")
        assert [(m.key, m.exact) for m in matches] == [(f"{root}/misc/hello.txt", True)]


def test_query_file_orders_nearest_first_and_explains(tmp_path: Path, sample_corpus: Path) -> None:
    """Matches come nearest first with their similarity, exactness and the verifier's reason;
    a stored bare fingerprint is matched by distance within the threshold only."""
    original = sample_corpus / "en" / "fable-crow.txt"
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_file(original, key="stored/original")
        idx.add_file(sample_corpus / "encodings" / "fable-crow-utf16.txt", key="stored/utf16")
        doc = idx.document("stored/original")
        assert doc is not None and doc.path == "stored/original"
        idx.add("bare/near", doc.fingerprint ^ 0b111)  # 3 bits: within threshold 3
        idx.add("bare/far", doc.fingerprint ^ 0b1111)  # 4 bits: candidate, not a match
        matches = idx.query_file(original)
    assert [(m.key, m.distance, m.exact) for m in matches] == [
        ("stored/original", 0, True),
        ("stored/utf16", 0, True),
        ("bare/near", 3, False),
    ]
    assert matches[0].reason == "identical normalised text" and matches[0].similarity == 1.0
    assert matches[2].similarity is None and "unverified" in matches[2].reason
    assert all(m.path == str(original) for m in matches)


def test_query_file_follows_the_options(tmp_path: Path, sample_corpus: Path) -> None:
    """``query_file`` applies the scan's options: a stricter ``min_similarity`` drops the
    edited version, ``verify=False`` keeps only pairs within ``threshold``."""
    edited = sample_corpus / "en" / "fable-crow-edited.txt"
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_file(sample_corpus / "en" / "fable-crow.txt", key="original")
        assert [m.key for m in idx.query_file(edited)] == ["original"]
        strict = simdup.ScanOptions(min_similarity=0.95)
        assert idx.query_file(edited, strict) == []
        distance = idx.query_file(edited)[0].distance
        within = simdup.ScanOptions(verify=False, threshold=distance)
        assert [m.key for m in idx.query_file(edited, within)] == ["original"]
        below = simdup.ScanOptions(verify=False, threshold=distance - 1)
        assert idx.query_file(edited, below) == []


def test_query_file_of_an_unusable_file_is_an_input_error(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """A file that cannot be fingerprinted (missing, empty, binary, whitespace alone, a
    folder) raises ``InputError`` from ``query_file``; ``add_file`` returns its
    ``SkippedFile``."""
    blank = tmp_path / "blank.txt"
    blank.write_text(" \n\t\n  \n", encoding="utf-8")
    unusable = [sample_corpus / name for name in ("misc/empty.txt", "misc/image.bin")]
    unusable += [blank, sample_corpus / "no-such.txt", sample_corpus / "en"]
    with Index(tmp_path / "i.simdup") as idx:
        for path in unusable:
            with pytest.raises(InputError):
                idx.query_file(path)
            skipped = idx.add_file(path)
            assert isinstance(skipped, simdup.SkippedFile)
        assert len(idx) == 0
        with pytest.raises(InputError, match="too short to judge: no text"):
            idx.query_file(blank)


def test_match_documents_returns_only_cross_pairs(tmp_path: Path, sample_corpus: Path) -> None:
    """Against an index of part of the corpus, ``match_documents`` of the other part returns
    exactly the scan's pairs that join a new document to a stored one: none among the new
    documents, none among the stored, and none of a document with its own stored copy."""
    root = str(sample_corpus)
    stored_part = [f"{root}/en", f"{root}/zh"]
    new_part = [f"{root}/encodings", f"{root}/mixed", f"{root}/zh-hant"]
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_files(stored_part, jobs=1)
        new = list(simdup.scan(new_part, jobs=1).files)
        # A new document already stored under its own path is not its own duplicate.
        idx.add_documents([new[0]])
        matches = idx.match_documents(new)
    stored_keys = set(_keys_under(stored_part)) | {new[0].path}
    new_paths = {d.path for d in new}
    assert matches and all(m.path in new_paths and m.key in stored_keys for m in matches)
    assert all(m.path != m.key for m in matches)
    stored_prefixes = tuple(f"{folder}/" for folder in stored_part)
    expected = {
        (a, b)
        for a, b in _scan_pairs(sample_corpus)
        if a.startswith(stored_prefixes) != b.startswith(stored_prefixes)
    }
    got = {(min(m.path, m.key), max(m.path, m.key)) for m in matches if m.key != new[0].path}
    assert got == expected
    assert [m.path for m in matches] == sorted(m.path for m in matches)


def _keys_under(roots: list[str]) -> list[str]:
    files, _ = discover(roots)
    return [f.path for f in files]


def test_files_read_by_other_readers_are_refused(
    tmp_path: Path, sample_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index records the readers that read its files (each reader's version and its
    library's); reading files for it with other readers is refused, naming what differs, while
    what it stores is still served; rebuilt, it reads them anew. An index that held documents
    before readers were recorded is not checked (which read them is not known)."""
    import json

    import simdup.store.index as store_index
    from simdup.readers import readers_description

    path, crow = tmp_path / "i.simdup", sample_corpus / "en" / "fable-crow.txt"
    with Index(path) as idx:
        idx.add_file(crow)
    changed = {**readers_description(), "markdown": "0"}
    monkeypatch.setattr(store_index, "readers_description", lambda: changed)
    monkeypatch.setattr(store_index, "readers_key", lambda: json.dumps(changed, sort_keys=True))
    with Index(path) as idx:
        stored = idx.get(str(crow))
        assert stored is not None and len(idx.query(stored, 0)) == 1
        was = readers_description()["markdown"]
        with pytest.raises(StoreError, match=rf"other readers: markdown {was} \(here 0\)"):
            idx.add_file(sample_corpus / "en" / "lentil-soup.txt")
        with pytest.raises(StoreError, match="other readers"):
            idx.query_file(sample_corpus / "en" / "fable-crow-edited.txt")
    with Index(path, rebuild=True) as idx:
        idx.add_file(crow)
    with sqlite3.connect(path) as conn:  # as an index made before readers were recorded
        conn.execute("DELETE FROM meta WHERE key = 'readers'")
    monkeypatch.setattr(store_index, "readers_key", lambda: "{}")
    with Index(path) as idx:
        assert idx.add_file(sample_corpus / "en" / "lentil-soup.txt") is not None


def test_stats(tmp_path: Path, sample_corpus: Path) -> None:
    """``stats`` counts the keys and those stored with their documents, and reports size,
    algorithm version, schema version and the parameters."""
    with Index(tmp_path / "i.simdup") as idx:
        idx.add_many([("a", 1), ("b", 2)])
        idx.add_file(sample_corpus / "en" / "lentil-soup.txt")
        idx.commit()
        stats = idx.stats()
    assert (stats.documents, stats.verifiable) == (3, 1)
    assert stats.database_bytes > 0 and stats.schema_version == 4
    assert stats.algorithm_version == simdup.ALGORITHM_VERSION
    assert stats.params["weighting"] == "tfidf" and "segmenter" not in stats.params
