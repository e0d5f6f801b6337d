"""simdup.engines.warmup: discovery in a child while the scan's process learns the words."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import simdup
import simdup.engines.backend
from simdup.engines import warmup
from simdup.engines.backend import LOCAL, Backend
from simdup.options import ScanOptions, resolve_options
from simdup.readers.discovery import DiscoveryOptions, find_files
from simdup.scanning.cache import CachedBackend
from simdup.store.cache import ScanCache
from simdup.text.features import forget_vocabularies, vocabulary
from simdup.text.processor import processor_for


def _tree(root: Path, n: int = 700) -> Path:
    """Folders of small texts (more than one report's worth), a hidden file, a symbolic link,
    an empty file, a binary file and an ignore file: discovery has something to pass over."""
    root.mkdir()
    for k in range(n):
        folder = root / f"d{k % 7}"
        folder.mkdir(exist_ok=True)
        words = " ".join(f"word{(k * 7 + j) % 301}" for j in range(80))
        (folder / f"f{k:04d}.txt").write_text(f"文件{k} 的内容。\n{words}\n", encoding="utf-8")
    (root / ".hidden.txt").write_text("hidden", encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 8)
    (root / "d0" / "ignored.log").write_text("left out", encoding="utf-8")
    (root / ".simdupignore").write_text("*.log\n", encoding="utf-8")
    os.symlink(root / "d1" / "f0001.txt", root / "link.txt")
    return root


def test_the_child_finds_what_discovery_here_finds(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs")
    options = DiscoveryOptions()
    here = find_files([str(root)], options)
    there = warmup.discover_while_learning([str(root)], options, resolve_options(None, {}).features)
    assert list(there.files) == list(here.files)
    assert there.skipped == here.skipped
    assert there.ignored == here.ignored == 1
    assert any("symbolic link" in s.reason for s in there.skipped)


def test_files_are_reported_as_found_and_the_reports_stop_when_told(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs")
    reports: list[list[Any]] = []

    def hear(files: list[Any]) -> bool:
        reports.append(files)
        return len(reports) < 2

    found = find_files([str(root)], DiscoveryOptions(), on_files=hear)
    assert len(reports) == 2  # told to stop after the second report
    reported = [f for report in reports for f in report]
    assert len(reported) >= 256
    assert {f.path for f in reported} <= {f.path for f in found.files}
    every: list[Any] = []
    find_files([str(root)], DiscoveryOptions(), on_files=lambda fs: every.extend(fs) or True)
    assert sorted(f.path for f in every) == sorted(f.path for f in found.files)


def test_this_process_learns_the_words_while_the_child_walks(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs")
    params = resolve_options(None, {}).features
    forget_vocabularies()
    processor = processor_for(params)
    vocab = vocabulary(processor.segmenter, processor.stopwords)
    assert not vocab.terms
    real = warmup.find_files

    def slow(roots: Any, options: Any, on_files: Any = None) -> Any:
        """The child's walk, pausing after each report (a walk as long as a large tree's)."""

        def hear(files: Any) -> bool:
            more = bool(on_files(files))
            time.sleep(0.5)
            return more

        return real(roots, options, on_files=hear if on_files else None)

    with (
        mock.patch.object(warmup, "find_files", side_effect=slow),
        mock.patch.object(warmup, "_learn_from", wraps=warmup._learn_from) as learn,
    ):
        warmup.discover_while_learning([str(root)], DiscoveryOptions(), params)
    assert learn.called
    assert vocabulary(processor.segmenter, processor.stopwords).terms  # something was learned


def test_a_child_that_fails_leaves_discovery_to_this_process(tmp_path: Path) -> None:
    """A walk that raises or dies in the child ends in discovery done here (the child is a
    fork: the patched function is what it runs)."""
    root = _tree(tmp_path / "docs", n=40)
    expected = find_files([str(root)], DiscoveryOptions())
    real = warmup.find_files
    params = resolve_options(None, {}).features

    def raising(*args: Any, **kwargs: Any) -> Any:
        if "on_files" in kwargs:
            raise RuntimeError("boom")
        return real(*args, **kwargs)

    def dying(*args: Any, **kwargs: Any) -> Any:
        if "on_files" in kwargs:
            os._exit(3)
        return real(*args, **kwargs)

    for broken in (raising, dying):
        with mock.patch.object(warmup, "find_files", side_effect=broken):
            got = warmup.discover_while_learning([str(root)], DiscoveryOptions(), params)
        assert list(got.files) == list(expected.files)


def test_scans_with_and_without_learning_are_identical(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs")
    forget_vocabularies()
    with mock.patch.object(
        simdup.engines.backend, "discover_while_learning", wraps=warmup.discover_while_learning
    ) as learning:
        warm = simdup.scan([str(root)], jobs=2)
    assert learning.called
    forget_vocabularies()
    with mock.patch.object(Backend, "learns", return_value=False):
        cold = simdup.scan([str(root)], jobs=2)
    for got in (warm, cold):
        assert len(got.files) == 700  # the texts (the symbolic link is not followed)
    assert warm.files == cold.files
    assert warm.pairs and warm.pairs == cold.pairs and warm.clusters == cold.clusters
    assert warm.skipped == cold.skipped


@pytest.mark.parametrize("method", ["auto", "simhash", "minhash"])
def test_a_rescan_the_cache_knows_learns_nothing(tmp_path: Path, method: str) -> None:
    root = str(_tree(tmp_path / "docs", n=40))
    options = ScanOptions(method=method)
    with ScanCache(tmp_path / "cache") as cache:
        cached = CachedBackend.around(LOCAL, cache)
        assert cached.learns([root], options)
        simdup.scan([root], options, backend=cached)
        assert not cached.learns([root], options)
        with mock.patch.object(simdup.engines.backend, "discover_while_learning") as learning:
            simdup.scan([root], options, backend=cached)
        assert not learning.called
    # Files named one by one, or files not fingerprinted here (a cluster's): no child.
    first = str(next(Path(root).rglob("*.txt")))
    assert not LOCAL.learns([first], options)
    with mock.patch.object(simdup.engines.backend, "discover_while_learning") as learning:
        simdup.scan([root], options, backend=Backend(find=find_files, local=False))
        # A listing of the caller's own: walked as the caller says, never in a child.
        listed = mock.Mock(side_effect=find_files)
        simdup.scan([root], options, backend=Backend(find=listed))
    assert not learning.called and listed.called


def test_a_processor_that_cannot_load_learns_nothing_and_discovery_still_ends(
    tmp_path: Path,
) -> None:
    root = _tree(tmp_path / "docs", n=40)
    params = resolve_options(None, {}).features
    with mock.patch("simdup.text.processor.processor_for", side_effect=OSError("no dictionary")):
        got = warmup.discover_while_learning([str(root)], DiscoveryOptions(), params)
    assert list(got.files) == list(find_files([str(root)], DiscoveryOptions()).files)
