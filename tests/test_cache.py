"""simdup.store.cache and simdup.store.cached_engine: the scan cache.

Every test has a cache folder of its own (``SIMDUP_CACHE_DIR`` under ``tmp_path``). Files get a
modification time a day old, except where a test is about recent files: a file modified within
``RACY_NS`` of being cached is always checked by content.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import pseudo_words

import simdup.params
import simdup.readers.files
from simdup.discovery import DEFAULT_MAX_SIZE, discover
from simdup.engines import Engine, ProcessPoolEngine, Progress, Result, SerialEngine
from simdup.errors import StoreError
from simdup.options import resolve_options
from simdup.params import FeatureParams
from simdup.records import FingerprintedDocument, SkippedFile, SourceFile
from simdup.scanning import scan
from simdup.store.cache import (
    CACHE_FILE_NAME,
    FingerprintCache,
    _pack,
    _unpack,
    cache_inside,
    default_cache_path,
)
from simdup.store.cached_engine import CachedEngine, with_cache

DAY_AGO = time.time() - 86_400
DEFAULTS = FeatureParams()
REPO = Path(__file__).resolve().parents[1]


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

    def __init__(self, params: FeatureParams = DEFAULTS) -> None:
        self.params = params
        self.max_size = DEFAULT_MAX_SIZE
        self.asked: list[str] = []

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        self.asked += [f.path for f in files]
        return SerialEngine(self.params, self.max_size).run(files, progress)


def reference(files: Sequence[SourceFile], params: FeatureParams = DEFAULTS) -> list[Result]:
    return list(SerialEngine(params, DEFAULT_MAX_SIZE).run(files))


def cached_run(
    files: Sequence[SourceFile],
    params: FeatureParams = DEFAULTS,
    **cache_options: Any,
) -> tuple[list[Result], CountingEngine, FingerprintCache]:
    """One run through a fresh FingerprintCache (as a new process would open it)."""
    inner = CountingEngine(params)
    with FingerprintCache(**cache_options) as cache:
        results = list(CachedEngine(inner, cache).run(files))
    return results, inner, cache


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths passed to ``simdup.readers.files.read_bytes``, the one function simdup opens
    documents with (the cache's hashing and the engines' decoding both call it)."""
    seen: list[str] = []
    real = simdup.readers.files.read_bytes

    def counting(source: SourceFile | str, max_size: int) -> bytes:
        seen.append(source if isinstance(source, str) else source.path)
        return real(source, max_size)

    monkeypatch.setattr(simdup.readers.files, "read_bytes", counting)
    return seen


# ---------------------------------------------------------------- hits and misses


def test_a_warm_run_reuses_every_record_without_opening_a_file(
    tmp_path: Path, sample_corpus: Path, reads: list[str]
) -> None:
    """After one run, an unchanged tree is answered from the cache alone: no file is opened,
    the engine is not called, and the records equal the uncached engine's, field for field."""
    root = sample_copy(tmp_path, sample_corpus)
    files = files_of(root)
    expected = reference(files)
    cold, inner, _ = cached_run(files)
    assert cold == expected
    reads.clear()
    warm, inner, cache = cached_run(files)
    assert warm == expected
    assert reads == [] and inner.asked == []
    info = cache.info()
    assert (info.hits, info.reread, info.misses) == (len(files), 0, 0)


def test_only_content_skips_are_cached(tmp_path: Path, sample_corpus: Path) -> None:
    """Binary (decode stage), too-short (features stage) and empty files are remembered like
    fingerprints; a file that could not be read is not: that may not happen again."""
    root = sample_copy(tmp_path, sample_corpus)
    (root / "misc" / "vanishing.txt").write_text(pseudo_words(3), "utf-8")
    age(root)
    files = files_of(root)
    os.unlink(root / "misc" / "vanishing.txt")  # gone between discovery and reading
    cached_run(files)
    results, inner, _ = cached_run(files)
    assert [os.path.relpath(p, root) for p in inner.asked] == ["misc/vanishing.txt"]
    skipped = {
        os.path.relpath(r.path, root): r.stage for r in results if isinstance(r, SkippedFile)
    }
    assert skipped == {
        "misc/empty.txt": "read",
        "misc/hello.txt": "features",
        "misc/image.bin": "decode",
        "misc/vanishing.txt": "read",
    }
    assert results == reference(files)


def test_warm_scan_equals_cold_scan_on_the_sample_corpus(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """scan() with the cached engine gives the same files, skips, pairs and clusters cold, warm
    and without a cache."""
    root = sample_copy(tmp_path, sample_corpus)
    options = resolve_options(None, {"jobs": 1}, files=100)

    def run(engine: Engine | None) -> tuple[object, ...]:
        result = scan([root], options, engine=engine)
        return result.files, result.skipped, result.pairs, result.clusters, result.settings

    plain = run(None)
    for _ in ("cold", "warm"):
        with FingerprintCache() as cache:
            engine = CachedEngine(SerialEngine(options.features, DEFAULT_MAX_SIZE), cache)
            assert run(engine) == plain
    assert cache.hits == len(files_of(root)) and cache.misses == 0


def test_a_size_change_is_a_miss(tmp_path: Path) -> None:
    """A file whose size changed is fingerprinted again."""
    root = make_docs(tmp_path / "docs", 3)
    cached_run(files_of(root))
    target = root / "doc001.txt"
    target.write_text(pseudo_words(1) + pseudo_words(77), "utf-8")
    age(root)
    files = files_of(root)
    results, inner, _ = cached_run(files)
    assert inner.asked == [str(target)]
    assert results == reference(files)


def test_a_time_change_with_other_content_of_the_same_size_is_a_miss(tmp_path: Path) -> None:
    """Same size, new modification time, other bytes: the hash differs, so it is a miss."""
    root = make_docs(tmp_path / "docs", 3)
    cached_run(files_of(root))
    target = root / "doc002.txt"
    old = target.read_bytes()
    new = old.replace(b"ka", b"zo", 1) if b"ka" in old else b"x" + old[1:]
    assert len(new) == len(old) and new != old
    target.write_bytes(new)
    os.utime(target, (DAY_AGO + 60, DAY_AGO + 60))
    files = files_of(root)
    results, inner, cache = cached_run(files)
    assert inner.asked == [str(target)]
    assert results == reference(files)
    assert (cache.hits, cache.misses) == (2, 1)


def test_a_touched_file_is_reused_by_its_content_then_by_its_time(
    tmp_path: Path, reads: list[str]
) -> None:
    """A file touched (new time, same bytes) is read and hashed once, not fingerprinted; its
    entry takes the new time, so the run after does not read it at all."""
    root = make_docs(tmp_path / "docs", 3)
    cached_run(files_of(root))
    target = root / "doc000.txt"
    os.utime(target, (DAY_AGO + 3600, DAY_AGO + 3600))
    reads.clear()
    files = files_of(root)
    results, inner, cache = cached_run(files)
    assert reads == [str(target)] and inner.asked == []
    assert (cache.hits, cache.reread) == (3, 1)
    assert results == reference(files)
    reads.clear()
    cached_run(files)
    assert reads == []


def test_a_renamed_or_copied_file_is_reused_under_its_new_path(tmp_path: Path) -> None:
    """The same bytes under another path (renamed, copied into another tree) reuse the stored
    record, which carries the new path."""
    root = make_docs(tmp_path / "docs", 4)
    cached_run(files_of(root))
    (root / "doc003.txt").rename(root / "renamed.txt")
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy2(root / "doc000.txt", other / "copy.txt")
    files = files_of(root) + files_of(other)
    results, inner, cache = cached_run(files)
    assert inner.asked == []
    assert cache.reread == 2
    assert results == reference(files)
    assert {r.path for r in results} >= {str(root / "renamed.txt"), str(other / "copy.txt")}


def test_a_file_modified_within_its_timestamp_tick_is_checked_by_content(tmp_path: Path) -> None:
    """A file cached moments after it was written may change again with the same size and
    the same time (a coarse clock): such an entry is trusted only after its bytes are hashed
    again, so the new content is fingerprinted."""
    root = tmp_path / "docs"
    root.mkdir()
    target = root / "fresh.txt"
    target.write_text(pseudo_words(5), "utf-8")
    first = os.stat(target)
    cached_run(files_of(root))
    text = target.read_bytes()
    target.write_bytes(text.replace(b"ka", b"lo") if b"ka" in text else text[::-1])
    os.utime(target, ns=(first.st_atime_ns, first.st_mtime_ns))  # the same tick
    files = files_of(root)
    assert files[0].mtime_ns == first.st_mtime_ns and files[0].size == first.st_size
    results, inner, _ = cached_run(files)
    assert inner.asked == [str(target)]
    assert results == reference(files)


def test_progress_counts_hits_then_fingerprinted_files(tmp_path: Path) -> None:
    """Progress reaches the total: the hits at once, then each file the engine does."""
    root = make_docs(tmp_path / "docs", 4)
    cached_run(files_of(root)[:2])
    seen: list[tuple[int, int]] = []
    with FingerprintCache() as cache:
        engine = CachedEngine(CountingEngine(), cache)
        list(engine.run(files_of(root), lambda done, total: seen.append((done, total))))
    assert seen == [(2, 4), (3, 4), (4, 4)]


def test_misses_go_to_a_process_pool_in_one_call(tmp_path: Path) -> None:
    """The files the cache misses are handed to the wrapped engine in one call, so a process
    pool shares them out; hits and pool results come back in the order of the files."""
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(12):  # over 1 MB in all: the pool pays
        (root / f"big{i:02}.txt").write_text(pseudo_words(500 + i, 20_000), "utf-8")
    age(root)
    files = files_of(root)
    cached_run(files[::3])
    calls: list[int] = []
    pool = ProcessPoolEngine(DEFAULTS, DEFAULT_MAX_SIZE, jobs=2)
    assert pool.pays(files[1::3] + files[2::3])

    class Recording:
        params = DEFAULTS
        max_size = DEFAULT_MAX_SIZE

        def run(
            self, batch: Sequence[SourceFile], progress: Progress | None = None
        ) -> Iterator[Result]:
            calls.append(len(batch))
            return pool.run(batch, progress)

    with FingerprintCache() as cache:
        results = list(CachedEngine(Recording(), cache).run(files))
    assert calls == [8]
    assert results == reference(files)


# ---------------------------------------------------------------- the parameter key

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
        "minhash perms": lambda: FeatureParams(user_dict=str(words), minhash_perms=64),
        "user dictionary content": edited_user_dict,
        "algorithm version": algorithm,
    }


@pytest.mark.parametrize(
    "part",
    [
        "weighting",
        "stopwords",
        "bundled stopwords",
        "sketch size",
        "minhash perms",
        "user dictionary content",
        "algorithm version",
    ],
)
def test_each_part_of_the_parameter_key_invalidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    """Changing any setting that can change a fingerprint misses every entry (and gives the
    uncached records); the unchanged settings still hit."""
    root = make_docs(tmp_path / "docs", 3)
    files = files_of(root)
    base = FeatureParams(user_dict=str(tmp_path / "user.dict"))
    make = variants(tmp_path, monkeypatch)[part]
    cached_run(files, base)
    _, inner, _ = cached_run(files, base)
    assert inner.asked == []
    key = base.cache_key()
    changed = make()
    assert changed.cache_key() != key
    results, inner, _ = cached_run(files, changed)
    assert len(inner.asked) == len(files)
    assert results == reference(files, changed)


# ---------------------------------------------------------------- bounds, records, files


def test_eviction_keeps_the_bound_and_the_recently_used(tmp_path: Path) -> None:
    """Past ``max_entries`` the least recently used entries go first (down to 90% of the
    bound, so that eviction is not needed on every write); the cache never holds more."""
    root = make_docs(tmp_path / "docs", 15)
    files = files_of(root)
    old, new = files[:10], files[10:]
    clock = [1_000_000.0]

    def run(batch: list[SourceFile], when: float) -> CountingEngine:
        clock[0] = when
        return cached_run(batch, max_entries=10, batch_size=2, clock=lambda: clock[0])[1]

    run(old, 1_000_000)
    run(old[:3], 1_000_000 + 7200)  # used again, two hours later
    run(new, 1_000_000 + 14_400)
    with FingerprintCache(max_entries=10) as cache:
        assert cache.info().entries <= 10
    inner = run(old[:3] + new, 1_000_000 + 14_400)
    assert inner.asked == []  # the recently used and the new ones are all still there
    with FingerprintCache(max_entries=10) as cache:
        entries = cache.info().entries
    inner = run(old[3:], 1_000_000 + 14_400)
    assert len(inner.asked) == len(old[3:]) - (entries - 8)  # the rest were evicted


def test_records_round_trip_through_their_packed_form() -> None:
    """A packed record unpacks to the same record under any path, names that are not UTF-8
    included; damaged bytes raise ValueError."""
    doc = FingerprintedDocument(
        "a", 2**64 - 1, "gb18030", "detected", 10, 3, 2, "ab" * 16, 9, b"\x01" * 1024, b"\2" * 64
    )
    skip = SkippedFile("a", "features", "too short: 3 words \udcff", True)
    for record in (doc, skip):
        assert _unpack(_pack(record), "b/\udcff.txt") == replace(record, path="b/\udcff.txt")
        with pytest.raises(ValueError):
            _unpack(_pack(record)[:-1], "a")
    with pytest.raises(ValueError):
        _unpack(b"\x09", "a")


def damage_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_pages(path: Path) -> None:
    """Garbage over every page but the first (the header and schema stay readable)."""
    data = bytearray(path.read_bytes())
    for at in range(4096, len(data), 4096):
        data[at : at + 64] = os.urandom(64)
    path.write_bytes(bytes(data))


def damage_all(path: Path) -> None:
    path.write_bytes(os.urandom(path.stat().st_size))


def damage_tail(path: Path) -> None:
    """Garbage over the last three pages: the file opens, the damage shows in a lookup."""
    data = bytearray(path.read_bytes())
    for at in range(len(data) - 3 * 4096, len(data), 4096):
        data[at : at + 4096] = os.urandom(4096)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage", [damage_truncate, damage_pages, damage_all, damage_tail], ids=lambda f: f.__name__
)
def test_a_damaged_cache_is_rebuilt_with_a_warning(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    """A truncated or overwritten cache (at the default location) is treated as empty and
    rebuilt: one warning, correct records, and the run after is answered from the cache."""
    root = make_docs(tmp_path / "docs", 40)
    files = files_of(root)
    cached_run(files)
    cache_file = Path(default_cache_path())
    assert not Path(str(cache_file) + "-wal").exists()  # closed cleanly: all in the main file
    damage(cache_file)
    warnings: list[str] = []
    results, _, _ = cached_run(files, warn=warnings.append)
    assert results == reference(files)
    assert len(warnings) == 1 and "rebuilt" in warnings[0], warnings
    warnings.clear()
    _, inner, _ = cached_run(files, warn=warnings.append)
    assert inner.asked == [] and warnings == []


def test_a_damaged_cache_named_explicitly_is_rebuilt_too(tmp_path: Path) -> None:
    """A damaged SQLite file given as the cache path is still recognisably a cache: rebuilt."""
    root = make_docs(tmp_path / "docs", 20)
    path = tmp_path / "mine.sqlite"
    cached_run(files_of(root), path=path)
    damage_truncate(path)
    warnings: list[str] = []
    results, _, _ = cached_run(files_of(root), path=path, warn=warnings.append)
    assert results == reference(files_of(root)) and len(warnings) == 1


def test_someone_elses_file_is_never_replaced(tmp_path: Path) -> None:
    """A cache path naming a file that is not SQLite, or a healthy database of something else,
    raises StoreError and leaves the file as it was."""
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n", "utf-8")
    with pytest.raises(StoreError):
        FingerprintCache(text)
    assert text.read_text("utf-8") == "my notes\n"
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    before = other.read_bytes()
    with pytest.raises(StoreError):
        FingerprintCache(other)
    assert other.read_bytes() == before


def test_info_and_clear(tmp_path: Path) -> None:
    """info() gives the entries, the bytes on disk, the path and this run's hits and misses;
    clear() empties the cache."""
    root = make_docs(tmp_path / "docs", 5)
    cached_run(files_of(root))
    results, _, cache = cached_run(files_of(root)[:3])
    info = cache.info()  # after close: read from the file
    assert (info.entries, info.hits, info.misses) == (5, 3, 0)
    assert info.path == default_cache_path() and info.bytes > 0
    with FingerprintCache() as cache:
        cache.clear()
        assert cache.info().entries == 0
    assert len(cached_run(files_of(root))[1].asked) == 5


def test_default_path_is_under_simdup_cache_dir(cache_dir: Path) -> None:
    """SIMDUP_CACHE_DIR overrides the user's cache folder (the tests rely on it)."""
    assert default_cache_path() == str(cache_dir / CACHE_FILE_NAME)


def test_a_cache_inside_a_scanned_root_is_not_used(tmp_path: Path) -> None:
    """The cache is never part of what is scanned: a cache file inside a root (or named as
    one) is reported and the plain engine is used."""
    root = make_docs(tmp_path / "docs", 2)
    inner = CountingEngine()
    inside = root / "sub" / "cache.sqlite"
    assert cache_inside(inside, [str(tmp_path / "x"), str(root)]) == str(root)
    assert cache_inside(tmp_path / "c.sqlite", [str(root)]) is None
    assert cache_inside(tmp_path / "c.sqlite", [str(tmp_path / "c.sqlite-wal")]) is not None
    warnings: list[str] = []
    assert with_cache(inner, [root], inside, warn=warnings.append) is inner
    assert len(warnings) == 1 and not inside.exists()
    engine = with_cache(inner, [root], tmp_path / "c.sqlite", warn=warnings.append)
    assert isinstance(engine, CachedEngine)
    engine.close()


def test_an_unusable_default_cache_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the default cache cannot be created (no writable cache folder), the scan goes on
    without it and says so; a cache path given explicitly that cannot be used is an error."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", "utf-8")
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(blocker / "cache"))
    inner = CountingEngine()
    warnings: list[str] = []
    assert with_cache(inner, [tmp_path / "docs"], warn=warnings.append) is inner
    assert len(warnings) == 1 and "not used" in warnings[0]
    with pytest.raises(StoreError):
        with_cache(inner, [tmp_path / "docs"], blocker / "c.sqlite")


# ---------------------------------------------------------------- several processes

DRIVER = textwrap.dedent(
    """
    import json, sys, time
    from simdup.discovery import discover
    from simdup.engines import SerialEngine
    from simdup.params import FeatureParams
    from simdup.store.cache import FingerprintCache
    from simdup.store.cached_engine import CachedEngine

    root, out, batch, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])

    class Slow(SerialEngine):
        def completed(self, files, progress=None):
            for done in super().completed(files, progress):
                time.sleep(pause)
                yield done

    files = discover([root])[0]
    with FingerprintCache(batch_size=batch) as cache:
        engine = CachedEngine(Slow(FeatureParams(), 1 << 26), cache)
        records = [
            [r.path, getattr(r, "fingerprint", None), getattr(r, "sketch", b"").hex(),
             getattr(r, "reason", None)]
            for r in engine.run(files)
        ]
    with open(out, "w") as handle:
        json.dump({"records": records, "hits": cache.hits}, handle)
    """
)


def as_records(results: Sequence[Result]) -> list[list[Any]]:
    return [
        [
            r.path,
            getattr(r, "fingerprint", None),
            getattr(r, "sketch", b"").hex(),
            getattr(r, "reason", None),
        ]
        for r in results
    ]


def start_driver(
    tmp_path: Path, root: Path, out: Path, batch: int, pause: float
) -> subprocess.Popen[bytes]:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, str(script), str(root), str(out), str(batch), str(pause)]
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE)


def wait_for_entries(wanted: int, poll: float) -> int:
    """How many entries the default cache holds, once it holds ``wanted`` (or after 30 s)."""
    cache_file = default_cache_path()
    deadline = time.monotonic() + 30
    committed = 0
    while time.monotonic() < deadline and committed < wanted:
        time.sleep(poll)
        if os.path.exists(cache_file):
            try:
                with sqlite3.connect(cache_file, timeout=5) as conn:
                    committed = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            except sqlite3.OperationalError:  # not created yet
                pass
    return committed


def test_two_processes_writing_one_cache_both_finish_correctly(tmp_path: Path) -> None:
    """Two simdup processes fingerprinting overlapping trees into one cache at the same time
    (small batches, so their transactions interleave) both give the uncached records, and the
    cache then answers both trees."""
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
        assert report["records"] == as_records(reference(files_of(root)))
    _, inner, _ = cached_run(files_of(a) + files_of(b))
    assert inner.asked == []


def test_a_run_killed_mid_way_loses_only_its_open_batch(tmp_path: Path) -> None:
    """A process SIGKILLed while fingerprinting keeps the batches it committed; the next run
    reuses them and gives exactly the uncached records, with no warning."""
    root = make_docs(tmp_path / "docs", 30)
    files = files_of(root)
    proc = start_driver(tmp_path, root, tmp_path / "killed.json", 3, 0.1)
    committed = wait_for_entries(6, poll=0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert 6 <= committed < len(files)
    warnings: list[str] = []
    results, inner, cache = cached_run(files, warn=warnings.append)
    assert results == reference(files)
    assert warnings == []
    assert cache.hits >= 6 and len(inner.asked) == len(files) - cache.hits


POOL_DRIVER = textwrap.dedent(
    """
    import sys, time
    import simdup.text.processor
    from simdup.discovery import discover
    from simdup.engines import ProcessPoolEngine
    from simdup.params import FeatureParams
    from simdup.store.cache import FingerprintCache
    from simdup.store.cached_engine import CachedEngine

    original = simdup.text.processor.DocumentProcessor.file

    def slow(self, source, max_size):  # inherited by the forked workers
        time.sleep(0.05)
        return original(self, source, max_size)

    simdup.text.processor.DocumentProcessor.file = slow
    files = discover([sys.argv[1]])[0]
    engine = ProcessPoolEngine(FeatureParams(), 1 << 26, jobs=2)
    assert engine.pays(files)
    with FingerprintCache(batch_size=4) as cache:
        for _ in CachedEngine(engine, cache).run(files):
            pass
    """
)


def test_a_pool_run_killed_mid_way_keeps_what_its_workers_finished(tmp_path: Path) -> None:
    """With a process pool, fingerprints are stored as the workers' batches come back, not
    when the whole run ends: a run SIGKILLed midway leaves them in the cache, and the next run
    reuses them and gives exactly the uncached records."""
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(40):  # 1.2 MB in all: the pool pays
        (root / f"doc{i:02}.txt").write_text(pseudo_words(700 + i, 30_000), "utf-8")
    age(root)
    files = files_of(root)
    script = tmp_path / "pool_driver.py"
    script.write_text(POOL_DRIVER, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), str(root)], env=env)
    committed = wait_for_entries(4, poll=0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert 4 <= committed < len(files)
    results, inner, cache = cached_run(files)
    assert results == reference(files)
    assert cache.hits >= 4 and len(inner.asked) == len(files) - cache.hits
