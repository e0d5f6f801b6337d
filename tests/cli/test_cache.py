"""The scan cache through the command line: ``scan --cache`` and ``--no-cache``, ``cache
info|clear`` (the library itself: tests/store/test_cache.py)."""

from __future__ import annotations

import json
from pathlib import Path

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
