"""The scan cache through the command line: ``scan --cache`` and ``--no-cache``, ``cache
info|clear`` (the library itself: tests/store/test_cache.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.cli.conftest import run


def cache_files(path: Path) -> int:
    info = json.loads(run("cache", "info", "--cache", str(path), "-f", "json").stdout)
    return int(info["files"])


def test_scan_fills_the_cache_and_a_rescan_gives_the_same_report(corpus: Path) -> None:
    """The second scan is answered from the cache (identical report); --no-cache neither
    reads nor writes it; cache clear empties it."""
    cache = corpus.parent / "c"
    first = run("scan", "docs", "-f", "json", "-j", "1", "--cache", str(cache))
    assert first.exit_code == 0, first.stderr
    stored = cache_files(cache)
    assert stored > 30
    second = run("scan", "docs", "-f", "json", "-j", "1", "--cache", str(cache))
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    for key in ("files", "skipped", "pairs", "clusters"):
        assert one[key] == two[key], key
    other = corpus.parent / "other"
    run("scan", "docs", "-j", "1", "--cache", str(other), "--no-cache")
    assert not other.exists()
    run("cache", "clear", "--cache", str(cache))
    assert cache_files(cache) == 0


def test_a_cache_inside_the_scanned_folder_is_not_used(corpus: Path) -> None:
    """A cache is never written inside what is scanned: a warning, and the scan goes on."""
    result = run("scan", "docs", "-j", "1", "--cache", "docs/c")
    assert result.exit_code == 0
    assert "inside docs, which is scanned: cache not used" in result.stderr
    assert not (corpus / "c").exists()


def test_the_default_cache_is_in_simdup_cache_dir(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --cache, the cache is $SIMDUP_CACHE_DIR/scans (else the user's cache folder):
    never beside the documents."""
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(corpus.parent / "cache-home"))
    assert run("scan", "docs", "-j", "1").exit_code == 0
    assert list((corpus.parent / "cache-home" / "scans").glob("*.snapshot"))
    assert "cache-home" in run("cache", "info").stdout


def _fill_sentence_cache(folder: Path, sources: int, sentences: int = 4) -> None:
    """A real sentence cache in ``folder`` (as ``check --semantic`` leaves it), written through
    the store: no embedding model needed."""
    from simdup.store.sentence_vectors import open_sentence_cache, text_digest

    rng = np.random.default_rng(7)
    cache = open_sentence_cache(str(folder), [])
    assert cache is not None
    rows = [
        (f"src/{n}.txt", text_digest(str(n)), "use-m3 (test)",
         rng.standard_normal((sentences, 512)).astype(np.float32))
        for n in range(sources)
    ]  # fmt: skip
    assert cache.put(rows) == sources
    cache.close()


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """simdup's cache folder ($SIMDUP_CACHE_DIR) holding a sentence cache of 3 sources."""
    home = tmp_path / "cache-home"
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(home))
    monkeypatch.chdir(tmp_path)
    _fill_sentence_cache(home, 3)
    return home


def test_cache_info_lists_the_sentence_cache(cache_home: Path) -> None:
    """``cache info`` shows the sentence cache beside the scans: its file, its sentences and
    sources, the model that made them and its size on disk (text and JSON)."""
    sqlite = cache_home / "sentences.sqlite"
    on_disk = sum(p.stat().st_size for p in cache_home.glob("sentences.sqlite*"))
    text = run("cache", "info")
    assert text.exit_code == 0, text.stderr
    assert f"sentence cache  {sqlite} (check --semantic)\n" in text.stdout
    assert "  sentences     12 of 3 sources\n" in text.stdout
    assert "  model         use-m3 (test)\n" in text.stdout
    assert f"  size          {on_disk:,} bytes\n" in text.stdout
    info = json.loads(run("cache", "info", "-f", "json").stdout)
    assert info["sentence_cache"] == {
        "path": str(sqlite), "exists": True, "sources": 3, "sentences": 12,
        "models": ["use-m3 (test)"], "bytes": on_disk, "max_bytes": 1 << 30, "error": None,
    }  # fmt: skip
    assert info["scans"] == 0


def test_cache_clear_removes_the_sentence_cache(corpus: Path, cache_home: Path) -> None:
    """``cache clear`` empties the scan cache and removes the sentence cache (its SQLite file
    with -wal and -shm); --scans and --sentences clear that one only."""
    assert run("scan", "docs", "-j", "1").exit_code == 0
    scans = json.loads(run("cache", "info", "-f", "json").stdout)["files"]
    assert scans > 30
    only_scans = run("cache", "clear", "--scans")
    assert only_scans.exit_code == 0, only_scans.stderr
    assert "sentence cache" not in only_scans.stderr
    after = json.loads(run("cache", "info", "-f", "json").stdout)
    assert after["files"] == 0 and after["sentence_cache"]["sources"] == 3
    assert run("scan", "docs", "-j", "1").exit_code == 0
    only_sentences = run("cache", "clear", "--sentences")
    assert "removed (" in only_sentences.stderr and "scan cache" not in only_sentences.stderr
    after = json.loads(run("cache", "info", "-f", "json").stdout)
    assert after["files"] == scans and after["sentence_cache"]["exists"] is False
    assert not list(cache_home.glob("sentences.sqlite*"))
    _fill_sentence_cache(cache_home, 2)
    both = run("cache", "clear")
    assert both.exit_code == 0, both.stderr
    assert f"simdup: sentence cache {cache_home / 'sentences.sqlite'} removed (" in both.stderr
    after = json.loads(run("cache", "info", "-f", "json").stdout)
    assert after["files"] == 0 and after["sentence_cache"]["exists"] is False
    assert "sentence cache" in run("cache", "info").stdout and "  none yet\n" in run(
        "cache", "info").stdout  # fmt: skip


def test_a_damaged_sentence_cache_is_shown_and_cleared(cache_home: Path) -> None:
    """A sentence cache that cannot be read is said so by ``cache info`` (exit 0, with its
    size), and ``cache clear`` removes it; a folder in its place is refused, untouched."""
    for extra in cache_home.glob("sentences.sqlite-*"):
        extra.unlink()
    (cache_home / "sentences.sqlite").write_bytes(b"garbage" * 300)
    info = run("cache", "info")
    assert info.exit_code == 0, info.stderr
    assert "  cannot be read: " in info.stdout and "(simdup cache clear removes it)" in info.stdout
    assert "  size          2,100 bytes\n" in info.stdout
    assert run("cache", "clear").exit_code == 0
    assert not (cache_home / "sentences.sqlite").exists()
    (cache_home / "sentences.sqlite").mkdir()
    refused = run("cache", "clear", "--sentences")
    assert refused.exit_code == 4
    assert "not a regular file (not touched)" in refused.stderr
    assert (cache_home / "sentences.sqlite").is_dir()
