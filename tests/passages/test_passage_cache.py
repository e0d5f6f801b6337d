"""``scan --passages`` with the scan cache: a rescan of an unchanged tree with the same settings
reuses the passages of the last scan (``store.passages``), and gives what finding them again
gives; anything that changes them (a file's bytes, the passage options) finds them again."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.engines.backend import LOCAL
from simdup.passages import PassageOptions, scan_passages
from simdup.passages import run as passage_run
from simdup.records import ScanResult
from simdup.scanning.cache import CachedBackend
from simdup.store.cache import PASSAGES, ScanCache


def _words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "de", "pa", "zu", "ho"]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(count)]


def _lines(words: list[str], per_line: int = 10) -> str:
    return "\n".join(" ".join(words[i : i + per_line]) for i in range(0, len(words), per_line))


def _tree(tmp_path: Path) -> Path:
    """a.txt and b.txt: unrelated texts, b holding 60 words of a pasted after its line 20;
    c.txt: another text; short.txt: too short to fingerprint, held whole by c.txt."""
    a, b, c = _words(1, 400), _words(2, 400), _words(3, 400)
    short = ["tiny", "note"]
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text(_lines(a) + "\n", "utf-8")
    (tree / "b.txt").write_text(_lines(b[:200] + a[100:160] + b[200:]) + "\n", "utf-8")
    (tree / "c.txt").write_text(_lines(c) + "\n", "utf-8")
    (tree / "short.txt").write_text(" ".join(short) + "\n", "utf-8")
    return tree


def _age(tree: Path) -> None:
    """Files older than the scan cache's racy window (their time then proves they are
    unchanged)."""
    old = 1_600_000_000
    for path in tree.iterdir():
        os.utime(path, (old, old))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times ``match_passages`` runs (once per scan that finds passages)."""
    calls: list[int] = []
    real = passage_run.match_passages

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(passage_run, "match_passages", counting)
    return calls


def _scan(tree: Path, cache_dir: Path | None, **passage_options: Any) -> ScanResult:
    options = PassageOptions(**passage_options)
    if cache_dir is None:
        return scan_passages([str(tree)], passages=options, jobs=1)
    with ScanCache(cache_dir) as cache:
        return scan_passages([str(tree)], passages=options, jobs=1,
                             backend=CachedBackend.around(LOCAL, cache))  # fmt: skip


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*" + PASSAGES))


def _same_passages(x: ScanResult, y: ScanResult) -> None:
    assert x.passages == y.passages
    assert x.repeated_passages == y.repeated_passages
    # Previews and places are not compared by ``==`` (previews: compare=False).
    assert [(p.a.preview, p.b.preview, p.a.place, p.b.place, p.how) for p in x.passages] == [
        (p.a.preview, p.b.preview, p.a.place, p.b.place, p.how) for p in y.passages
    ]


def test_a_rescan_of_an_unchanged_tree_reuses_the_passages(
    tmp_path: Path, counted: list[int]
) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    cache_dir = tmp_path / "cache"
    fresh = _scan(tree, None)
    assert len(counted) == 1
    assert fresh.passages  # something to reuse
    first = _scan(tree, cache_dir)
    assert len(counted) == 2 and len(_entries(cache_dir)) == 1
    again = _scan(tree, cache_dir)
    assert len(counted) == 2  # not matched again
    _same_passages(again, fresh)
    _same_passages(again, first)
    stats, stored = again.stats["passage_stats"], first.stats["passage_stats"]
    assert stats["reused"] is True and "reused" not in stored
    assert {k: v for k, v in stats.items() if k != "reused"} == stored
    assert again.stats["passages"] == len(fresh.passages)
    assert again.stats["repeated_passages"] == len(fresh.repeated_passages)
    assert again.settings == first.settings and again.pairs == first.pairs


def test_the_short_document_counts_in_the_key(tmp_path: Path, counted: list[int]) -> None:
    """A file too short to fingerprint is still a passage document: its bytes are in the key."""
    tree = _tree(tmp_path)
    cache_dir = tmp_path / "cache"
    _scan(tree, cache_dir)
    (tree / "short.txt").write_text("tiny notes\n", "utf-8")
    _scan(tree, cache_dir)
    assert len(counted) == 2


def test_a_changed_file_finds_the_passages_again(tmp_path: Path, counted: list[int]) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    cache_dir = tmp_path / "cache"
    before = _scan(tree, cache_dir)
    assert [(p.b.start_line, p.b.end_line) for p in before.passages] == [(21, 26)]
    # Five lines before the copy: the same words, the passage five lines further down.
    b = tree / "b.txt"
    b.write_text("\n" * 5 + b.read_text("utf-8"), "utf-8")
    after = _scan(tree, cache_dir)
    assert len(counted) == 2
    assert [(p.b.start_line, p.b.end_line) for p in after.passages] == [(26, 31)]
    assert "reused" not in after.stats["passage_stats"]
    _same_passages(after, _scan(tree, None))
    assert len(_entries(cache_dir)) == 2


def test_other_passage_options_do_not_reuse_an_entry(tmp_path: Path, counted: list[int]) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    cache_dir = tmp_path / "cache"
    _scan(tree, cache_dir)
    # The copy is 60 words of whole lines, counted from half of min_words.
    longer = _scan(tree, cache_dir, min_words=130)
    assert len(counted) == 2 and longer.passages == ()
    fewer_previews = _scan(tree, cache_dir, max_previews=5)
    assert len(counted) == 3
    assert all(len(p.a.preview) <= 5 for p in fewer_previews.passages)
    _scan(tree, cache_dir)  # the first settings: still kept
    assert len(counted) == 3 and len(_entries(cache_dir)) == 3


def test_without_the_cache_nothing_is_read_or_written(
    tmp_path: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    cache_home = tmp_path / "cache-home"
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(cache_home))
    base = ["scan", str(tree), "--passages", "-j", "1", "-q", "-f", "json"]
    runner = CliRunner()
    first = runner.invoke(cli, base)
    assert first.exit_code == 0, first.output
    assert len(_entries(cache_home / "scans")) == 1
    again = runner.invoke(cli, base)
    assert len(counted) == 1
    assert json.loads(again.output)["passages"] == json.loads(first.output)["passages"]
    uncached = runner.invoke(cli, [*base, "--no-cache"])
    assert len(counted) == 2  # the entry is not read
    assert json.loads(uncached.output)["passages"] == json.loads(first.output)["passages"]
    (tree / "a.txt").write_text((tree / "a.txt").read_text("utf-8") + "more\n", "utf-8")
    runner.invoke(cli, [*base, "--no-cache"])
    assert len(_entries(cache_home / "scans")) == 1  # nor written
    info = runner.invoke(cli, ["cache", "info", "-f", "json"])
    assert json.loads(info.output)["passages"] == 1
    assert runner.invoke(cli, ["cache", "clear"]).exit_code == 0
    assert _entries(cache_home / "scans") == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"\xff\xfe not json",
        lambda data: json.dumps({"format": 1}).encode(),
        lambda data: data.replace(b'"start_line": ', b'"start_line": "x", "other": '),
    ],
    ids=["truncated", "not-json", "no-passages", "wrong-fields"],
)
def test_a_damaged_entry_is_ignored(
    tmp_path: Path, counted: list[int], damage: Callable[[bytes], bytes]
) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    cache_dir = tmp_path / "cache"
    first = _scan(tree, cache_dir)
    (entry,) = _entries(cache_dir)
    entry.write_bytes(damage(entry.read_bytes()))
    again = _scan(tree, cache_dir)
    assert len(counted) == 2
    _same_passages(again, first)
    assert "reused" not in again.stats["passage_stats"]
    (rewritten,) = _entries(cache_dir)  # found again, kept again
    assert _scan(tree, cache_dir).stats["passage_stats"]["reused"] is True
    assert rewritten == entry and len(counted) == 2


def test_a_touched_file_with_the_same_bytes_reuses_the_passages(
    tmp_path: Path, counted: list[int]
) -> None:
    """A fresh checkout gives every file a new time: its bytes are hashed, the same bytes are
    the same key."""
    tree = _tree(tmp_path)
    _age(tree)
    cache_dir = tmp_path / "cache"
    _scan(tree, cache_dir)
    now = 1_700_000_000
    os.utime(tree / "b.txt", (now, now))
    assert _scan(tree, cache_dir).stats["passage_stats"]["reused"] is True
    assert len(counted) == 1
