"""simdup.readers.discovery: which files are scanned, in what order, and what is passed over;
the ignore rules (.gitignore in a git work tree, .git/info/exclude and .simdupignore)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup.cli import cli
from simdup.errors import ConfigError
from simdup.readers.discovery import DiscoveryOptions, discover, find_files, read_path_list
from simdup.records import SkippedFile, SourceFile

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="os.mkfifo is not available")


def make_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def paths(root: Path, *roots: str, **options: object) -> tuple[list[str], list[SkippedFile]]:
    """Discovered paths relative to ``root`` (discovery run from inside it), and the skips."""
    cwd = os.getcwd()
    os.chdir(root)
    try:
        files, skipped = discover(list(roots), DiscoveryOptions(**options))  # type: ignore[arg-type]
    finally:
        os.chdir(cwd)
    return [f.path for f in files], skipped


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    make_tree(
        tmp_path,
        {
            "d/b.txt": "b",
            "d/a.md": "a",
            "d/sub/c.txt": "c",
            "d/sub/deeper/e.txt": "e",
            "d/Z.txt": "z",
            "d/.hidden.txt": "h",
            "d/.cache/x.txt": "x",
            "d/.git/config.txt": "g",
            "d/build/out.txt": "o",
        },
    )
    return tmp_path


def test_recursion_and_sorted_order(tree: Path) -> None:
    """Folders are walked recursively; the list is sorted by path; hidden things are left out."""
    found, skipped = paths(tree, "d")
    assert found == [
        "d/Z.txt",
        "d/a.md",
        "d/b.txt",
        "d/build/out.txt",
        "d/sub/c.txt",
        "d/sub/deeper/e.txt",
    ]
    assert skipped == []


def test_order_does_not_depend_on_argument_order(tree: Path) -> None:
    """Roots given in any order give the same sorted list."""
    assert paths(tree, "d/sub", "d/build") == paths(tree, "d/build", "d/sub")


def test_source_files_carry_their_size(tree: Path) -> None:
    """Each SourceFile has the file's size in bytes."""
    files, _ = discover([str(tree / "d" / "sub")])
    assert [(f.path, f.size) for f in files] == [
        (str(tree / "d" / "sub" / "c.txt"), 1),
        (str(tree / "d" / "sub" / "deeper" / "e.txt"), 1),
    ]


@needs_symlinks
def test_source_files_carry_the_identity_of_what_was_found(tree: Path) -> None:
    """Each SourceFile has the device, inode and modification time of the file found (what
    reading and the scan cache check), and ``follow`` is true only where its path may end in a
    symbolic link: a link named as a PATH, or any file with --follow-symlinks."""
    (tree / "d" / "link.txt").symlink_to("sub/c.txt")
    c = os.stat(tree / "d" / "sub" / "c.txt")
    roots = [str(tree / "d" / "sub" / "c.txt"), str(tree / "d" / "link.txt")]
    files, _ = discover(roots, DiscoveryOptions(unique_files=False))
    found = {"device": c.st_dev, "inode": c.st_ino, "mtime_ns": c.st_mtime_ns}
    assert files == [
        SourceFile(str(tree / "d" / "link.txt"), 1, follow=True, **found),
        SourceFile(str(tree / "d" / "sub" / "c.txt"), 1, follow=False, **found),
    ]
    walked, _ = discover([str(tree / "d" / "sub")])
    assert walked and not any(f.follow for f in walked)
    followed, _ = discover([str(tree / "d" / "sub")], DiscoveryOptions(follow_symlinks=True))
    assert followed and all(f.follow for f in followed)
    assert all(f.inode == os.stat(f.path).st_ino for f in walked + followed)


@pytest.mark.parametrize(
    ("data", "null", "expected"),
    [
        (b"a.txt\n\nb c.txt\r\n  \nd.txt", False, ["a.txt", "b c.txt", "d.txt"]),
        (b"new\nline.txt\0 lead.txt\0\0", True, ["new\nline.txt", " lead.txt"]),
        (b"caf\xe9.txt\n", False, [os.fsdecode(b"caf\xe9.txt")]),
        ("\ufeffa.txt\nb.txt\n".encode(), False, ["a.txt", "b.txt"]),
        ("\ufeffa.txt\r\n中文.txt\r\n".encode("utf-16-le"), False, ["a.txt", "中文.txt"]),
        ("\ufeffa.txt\n中文.txt\n".encode("utf-16-be"), False, ["a.txt", "中文.txt"]),
        ("\ufeffa.txt\0中文.txt\0".encode("utf-16-le"), True, ["a.txt", "中文.txt"]),
        ("\ufeffa.txt\n".encode("utf-32-le"), False, ["a.txt"]),
        ("\ufeffx\u2028y.txt\n".encode("utf-16-le"), False, ["x\u2028y.txt"]),
    ],
    ids=[
        "lines",
        "nul",
        "non-utf8",
        "utf8-bom",
        "utf16le",
        "utf16be",
        "utf16-nul",
        "utf32",
        "u2028",
    ],
)
def test_read_path_list(data: bytes, null: bool, expected: list[str]) -> None:
    """--files-from lists: lines or NUL-separated items, blank ones ignored; a UTF-8 BOM
    dropped; UTF-16/32 lists with a BOM (Windows PowerShell) decoded, split at line breaks only
    (not at U+2028) or at NULs."""
    assert read_path_list(data, null) == expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a.txt\0b.txt\0", "use -0/--null"),
        ("\ufeffa.txt\0".encode("utf-16-le"), "use -0/--null"),
        (b"\xff\xfea\x00\x00\xd8", "not utf-16-le"),
    ],
)
def test_read_path_list_refuses_what_cannot_be_a_list_of_paths(data: bytes, message: str) -> None:
    """NUL bytes without -0 (`find -print0` piped without -0) and a list that is not in the
    encoding its BOM announces are ConfigErrors saying why."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        read_path_list(data, False)


def test_include_globs_match_name_or_relative_path(tree: Path) -> None:
    """--include keeps only matching files (by name or path relative to the root)."""
    assert paths(tree, "d", include=("*.md",))[0] == ["d/a.md"]
    assert paths(tree, "d", include=("sub/*",))[0] == ["d/sub/c.txt", "d/sub/deeper/e.txt"]
    assert paths(tree, "d", include=("*.md", "c.txt"))[0] == ["d/a.md", "d/sub/c.txt"]


def test_exclude_globs_skip_files_and_folders(tree: Path) -> None:
    """--exclude drops matching files, and whole folders whose path matches."""
    found, _ = paths(tree, "d", exclude=("build", "*.md"))
    assert found == ["d/Z.txt", "d/b.txt", "d/sub/c.txt", "d/sub/deeper/e.txt"]
    found, _ = paths(tree, "d", exclude=("sub/deeper",))
    assert "d/sub/deeper/e.txt" not in found and "d/sub/c.txt" in found


def test_include_does_not_filter_a_file_named_explicitly(tree: Path) -> None:
    """A file given on the command line is scanned even if it does not match --include."""
    assert paths(tree, "d/b.txt", include=("*.md",))[0] == ["d/b.txt"]


def test_hidden_files_and_vcs_folders_only_with_hidden(tree: Path) -> None:
    """Dot-files, dot-folders and .git are skipped unless hidden=True."""
    found, _ = paths(tree, "d", hidden=True)
    assert {"d/.hidden.txt", "d/.cache/x.txt", "d/.git/config.txt"} <= set(found)
    found, _ = paths(tree, "d")
    assert not any("/." in p for p in found)


def test_hidden_file_named_explicitly_is_scanned(tree: Path) -> None:
    """A hidden file given by name is scanned."""
    assert paths(tree, "d/.hidden.txt")[0] == ["d/.hidden.txt"]


@needs_symlinks
def test_symlinks_are_skipped_with_a_record_unless_followed(tree: Path) -> None:
    """A symlink inside a walked folder is a 'discovery' skip unless follow_symlinks."""
    os.symlink(tree / "d" / "sub", tree / "d" / "link-dir")
    os.symlink(tree / "outside.txt", tree / "d" / "link-file.txt")
    (tree / "outside.txt").write_text("o", encoding="utf-8")
    found, skipped = paths(tree, "d")
    assert not any("link" in p for p in found)
    assert {s.path for s in skipped} == {"d/link-dir", "d/link-file.txt"}
    assert all(s.stage == "discovery" and "symbolic link" in s.reason for s in skipped)
    found, skipped = paths(tree, "d", follow_symlinks=True)
    assert "d/link-file.txt" in found
    # d/link-dir is the same folder as d/sub: its files are listed once, under one name.
    assert sum(p.endswith("/c.txt") for p in found) == 1
    assert sum(p.endswith("/e.txt") for p in found) == 1


@needs_symlinks
def test_symlink_loop_terminates_with_a_record(tmp_path: Path) -> None:
    """A link back to an ancestor is followed once, then reported as a loop."""
    make_tree(tmp_path, {"d/a.txt": "a", "d/sub/b.txt": "b"})
    os.symlink(tmp_path / "d", tmp_path / "d" / "sub" / "loop")
    result: list[tuple[list[str], list[SkippedFile]]] = []
    worker = threading.Thread(
        target=lambda: result.append(paths(tmp_path, "d", follow_symlinks=True)), daemon=True
    )
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "discovery did not terminate on a symlink loop"
    found, skipped = result[0]
    assert found == ["d/a.txt", "d/sub/b.txt"]
    assert [(s.path, s.stage, s.reason) for s in skipped] == [
        ("d/sub/loop", "discovery", "symbolic link loop")
    ]


@needs_symlinks
def test_dangling_symlink_given_explicitly_is_a_record(tmp_path: Path) -> None:
    """A path that is a broken link is reported, not an exception."""
    os.symlink(tmp_path / "missing", tmp_path / "broken")
    files, skipped = discover([str(tmp_path / "broken")])
    assert files == []
    assert skipped == [SkippedFile(str(tmp_path / "broken"), "discovery", "dangling symbolic link")]


@needs_fifo
def test_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    """A FIFO inside a folder or given by name is skipped by its type, never opened."""
    make_tree(tmp_path, {"d/a.txt": "a"})
    os.mkfifo(tmp_path / "d" / "pipe")
    result: list[tuple[list[str], list[SkippedFile]]] = []
    worker = threading.Thread(
        target=lambda: result.append(paths(tmp_path, "d", "d/pipe")), daemon=True
    )
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "discovery blocked on a FIFO"
    found, skipped = result[0]
    assert found == ["d/a.txt"]
    assert [(s.path, s.stage) for s in skipped] == [("d/pipe", "discovery")] * 2
    assert all(s.reason == "not a regular file (FIFO)" for s in skipped)


def test_path_given_twice_is_scanned_once(tree: Path) -> None:
    """The same file or folder named twice is listed once, without a skip record."""
    found, skipped = paths(tree, "d/sub", "d/sub", "d/sub/c.txt")
    assert found == ["d/sub/c.txt", "d/sub/deeper/e.txt"]
    assert skipped == []


def test_overlapping_roots_are_counted_once(tree: Path) -> None:
    """A folder and its subfolder as roots: each file once."""
    found, _ = paths(tree, "d", "d/sub")
    assert found.count("d/sub/c.txt") == 1
    assert len(found) == len(set(found)) == 6
    # Spelled differently, the second sighting is a record that points at the first.
    found, skipped = paths(tree, "d/sub", "./d/sub")
    assert found == ["d/sub/c.txt", "d/sub/deeper/e.txt"]
    assert all("same file as d/sub/" in s.reason for s in skipped)
    assert len(skipped) == 2


@pytest.mark.skipif(not hasattr(os, "link"), reason="no hard links")
def test_hard_links_are_read_once(tmp_path: Path) -> None:
    """Two names of one file: the first is scanned, the second is a record."""
    make_tree(tmp_path, {"d/a.txt": "a"})
    os.link(tmp_path / "d" / "a.txt", tmp_path / "d" / "b.txt")
    found, skipped = paths(tmp_path, "d")
    assert found == ["d/a.txt"]
    assert [(s.path, s.reason) for s in skipped] == [
        ("d/b.txt", "same file as d/a.txt (hard link, symlink or repeated path)")
    ]


def test_files_over_max_size_are_skipped_with_a_record(tmp_path: Path) -> None:
    """A file larger than max_size is a 'discovery' skip naming both sizes; passed over on
    purpose, so it is not a failure for --strict."""
    make_tree(tmp_path, {"d/small.txt": "x" * 10, "d/big.txt": "x" * 11})
    found, skipped = paths(tmp_path, "d", max_size=10)
    assert found == ["d/small.txt"]
    assert skipped == [
        SkippedFile(
            "d/big.txt", "discovery", "larger than --max-size (11 > 10 bytes)", failure=False
        )
    ]


def test_missing_path_is_a_record(tmp_path: Path) -> None:
    """A path that does not exist is a skip record, and the rest is still scanned."""
    make_tree(tmp_path, {"d/a.txt": "a"})
    found, skipped = paths(tmp_path, "nope", "d")
    assert found == ["d/a.txt"]
    assert len(skipped) == 1
    assert skipped[0].path == "nope"
    assert skipped[0].stage == "discovery"
    assert "No such file" in skipped[0].reason


def test_avoid_keeps_a_path_out_of_the_scan(tmp_path: Path) -> None:
    """Files and folders listed in avoid (e.g. the report being written) are not scanned."""
    make_tree(tmp_path, {"d/a.txt": "a", "d/report.json": "{}", "d/out/x.txt": "x"})
    found, _ = paths(tmp_path, "d", avoid=(str(tmp_path / "d" / "report.json"), "d/out"))
    assert found == ["d/a.txt"]


def test_skip_records_are_sorted_by_path(tmp_path: Path) -> None:
    """Skip records come back in path order regardless of discovery order."""
    found, skipped = paths(tmp_path, "zz-missing", "aa-missing", "mm-missing")
    assert found == []
    assert [s.path for s in skipped] == ["aa-missing", "mm-missing", "zz-missing"]


def test_find_files_keeps_the_files_as_columns(tree: Path) -> None:
    """``find_files`` gives the files as ``SourceFiles`` (columns, no object per file), the
    same records ``discover`` lists, in path order."""
    from simdup.readers.discovery import find_files
    from simdup.records import SourceFiles

    found = find_files([str(tree)])
    listed, _ = discover([str(tree)])
    assert isinstance(found.files, SourceFiles) and len(found.files) > 1
    assert list(found.files) == listed
    assert [f.path for f in listed] == sorted(f.path for f in listed)


# ---------------------------------------------------------------- ignore rules


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
