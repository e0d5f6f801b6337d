"""Ignore rules: .gitignore (in a git work tree), .git/info/exclude and .simdupignore."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup.cli import cli
from simdup.readers.discovery import DiscoveryOptions, find_files

# Long enough to be fingerprinted (20 distinct words), so that nothing is skipped.
TEXT = (
    "The quick brown fox jumps over the lazy dog near the quiet river bank today, while "
    "seven curious herons watch patient fishermen mending green nets beside old boats.\n"
)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def found(root: Path, *roots: str, **options: object) -> tuple[list[str], int]:
    """Discovered paths relative to ``root`` (run from inside it), and the ignored count."""
    cwd = os.getcwd()
    os.chdir(root)
    try:
        result = find_files(list(roots), DiscoveryOptions(**options))  # type: ignore[arg-type]
    finally:
        os.chdir(cwd)
    return [f.path for f in result.files], result.ignored


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree: an ignored folder, an ignored pattern, a .simdupignore'd file."""
    root = tmp_path / "repo"
    root.mkdir()
    git_init(root)
    write(
        root,
        {
            ".gitignore": "build/\n*.log\n",
            "docs/.simdupignore": "draft.txt\n",
            "docs/a.txt": TEXT,
            "docs/draft.txt": TEXT,
            "docs/run.log": TEXT,
            "build/out.txt": TEXT,
            "docs/sub/b.txt": TEXT,
        },
    )
    return root


def test_gitignored_folder_and_simdupignored_file_are_not_scanned(repo: Path) -> None:
    """In a git work tree a .gitignore'd folder and pattern and a .simdupignore'd file are
    left out and counted (the folder once: it is not walked)."""
    paths, ignored = found(repo, ".")
    assert paths == ["./docs/a.txt", "./docs/sub/b.txt"]
    assert ignored == 3  # build/, docs/run.log, docs/draft.txt


def test_ancestor_gitignore_applies_when_scanning_a_subfolder(repo: Path) -> None:
    """Scanning a subfolder still honours the .gitignore files above it, up to the
    repository root, with patterns relative to their own folder."""
    write(repo, {".gitignore": "build/\n*.log\n/docs/sub/\n"})
    paths, _ = found(repo / "docs", ".")
    assert paths == ["./a.txt"]


def test_nested_gitignore_negation_overrides_the_parent(repo: Path) -> None:
    """A deeper .gitignore overrides a shallower one: `!keep.txt` re-includes a file that
    the root's `*.txt` ignores."""
    write(
        repo,
        {
            ".gitignore": "*.txt\n",
            "notes/.gitignore": "!keep.txt\n",
            "notes/keep.txt": TEXT,
            "notes/other.txt": TEXT,
        },
    )
    paths, _ = found(repo, "notes")
    assert paths == ["notes/keep.txt"]


def test_git_info_exclude_is_honoured(repo: Path) -> None:
    """Patterns in .git/info/exclude are ignored like those of the root .gitignore."""
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("sub/\n", encoding="utf-8")
    paths, _ = found(repo, "docs")
    assert paths == ["docs/a.txt"]


def test_ignore_files_off_scans_everything(repo: Path) -> None:
    """With ignore_files=False (--no-ignore) nothing is ignored."""
    paths, ignored = found(repo, ".", ignore_files=False)
    assert "./build/out.txt" in paths and "./docs/draft.txt" in paths
    assert "./docs/run.log" in paths and ignored == 0


def test_outside_a_repository_only_simdupignore_counts(tmp_path: Path) -> None:
    """Outside a git work tree .gitignore files are not read (they belong to no repository),
    but .simdupignore is."""
    write(
        tmp_path / "plain",
        {".gitignore": "a.txt\n", ".simdupignore": "b.txt\n", "a.txt": TEXT, "b.txt": TEXT},
    )
    paths, ignored = found(tmp_path / "plain", ".")
    assert paths == ["./a.txt"] and ignored == 1


def test_a_file_named_explicitly_is_scanned_even_if_ignored(repo: Path) -> None:
    """A file given as a root is scanned even if ignored, as `git add -f` adds it."""
    paths, ignored = found(repo, "docs/draft.txt", "build/out.txt")
    assert paths == ["build/out.txt", "docs/draft.txt"] and ignored == 0


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_scan_counts_ignored_files_in_stats_and_summary(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON stats carry files_ignored; the text summary says "N ignored"; ignored files
    are not skipped files."""
    monkeypatch.chdir(repo)
    result = run("scan", ".", "-j", "1", "-f", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["summary"]["files_ignored"] == 3
    assert report["summary"]["files_found"] == 2
    assert report["skipped"] == []
    text = run("scan", ".", "-j", "1")
    assert "skipped, 3 ignored;" in text.stdout


def test_no_ignore_option_scans_ignored_files(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-ignore scans what the ignore files leave out, and the summary says nothing of
    ignored files."""
    monkeypatch.chdir(repo)
    result = run("scan", ".", "-j", "1", "--no-ignore", "-f", "json")
    report = json.loads(result.stdout)
    assert report["summary"]["files_found"] == 5 and report["summary"]["files_ignored"] == 0
    assert report["settings"]["ignore_files"] is False
    text = run("scan", ".", "-j", "1", "--no-ignore")
    assert "ignored" not in text.stdout


def test_simdupignore_overrides_gitignore_in_the_same_folder(repo: Path) -> None:
    """In one folder .simdupignore is read after .gitignore, so it can re-include a file."""
    write(repo, {"docs/.simdupignore": "!run.log\n"})
    paths, _ = found(repo, "docs")
    assert "docs/run.log" in paths and "docs/draft.txt" in paths
