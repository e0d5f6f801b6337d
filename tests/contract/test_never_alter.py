"""simdup never alters what it reads, and never leaves a partial report behind.

``tree`` builds a folder with documents, duplicates, a binary, an empty file, a hidden file, a
read-only file, a symbolic link, a file name that is not UTF-8 and nested folders. Every run in
``RUNS`` (every command and output format, ``-o`` outside and inside the tree) is checked
against a snapshot taken before it: the same entries (relative path and type), the same
content (sha256; link target for symbolic links), mtime_ns and mode for every file, folder and
link. Folder mtimes also catch a temporary file that was created and removed again. The
``outside`` folder must afterwards hold exactly what it held plus the report the run wrote.

Adding a command or option is one ``run(...)`` line in ``RUNS``.

The interrupt tests check exit status 130, a one-line message, and that ``-o FILE`` never leaves
a partial report or a ``.simdup-*.tmp`` file (an existing FILE keeps its old content).
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import simdup.cli
import simdup.cli.compare
import simdup.cli.hash
import simdup.cli.scan
from simdup.cli import cli
from simdup.policy.exitcodes import ExitCode
from tests.conftest import pseudo_words as words

DOC = words(1)
ZH = (
    "中华人民共和国是一个位于东亚的国家，首都是北京。这个国家有着悠久的历史和灿烂的文化，"
    "人口众多，经济发展迅速。长江和黄河是两条最重要的河流，沿岸城市繁荣，交通发达。\n"
    "春节是最隆重的传统节日，家家户户贴春联、吃饺子、放鞭炮。近年来，科技创新不断涌现，"
    "高速铁路、移动支付和电子商务改变了人们的生活方式。\n"
)


def _write(path: Path | bytes, data: str | bytes, mode: int | None = None) -> None:
    raw = os.fsencode(path)
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    with open(raw, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(raw, mode)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/tree`` (the scanned folder) and ``tmp_path/outside``; cwd is ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "tree"
    _write(root / "a.txt", DOC)
    _write(root / "b.txt", DOC)  # exact duplicate
    _write(root / "c.txt", DOC.replace("\n", " ", 3) + words(2, 6))  # near duplicate
    _write(root / "other.txt", words(3))
    _write(root / "readonly.txt", words(4), mode=0o444)
    _write(root / "empty.txt", b"")
    _write(root / "image.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    _write(root / ".hidden.txt", DOC)
    _write(root / "nested" / "deeper" / "d.txt", DOC)
    _write(root / "nested" / "zh.txt", ZH.encode("gb18030"))
    _write(root / "nested" / "zh-utf8.txt", ZH)
    _write(os.fsencode(root) + b"/caf\xe9.txt", DOC)
    os.symlink("a.txt", root / "link.txt")
    os.symlink("../outside/report.json", root / "report-link")  # dangling until a run writes it
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "list.txt").write_text("tree/a.txt\ntree/b.txt\ntree/nested\n", encoding="utf-8")
    os.symlink("../tree/nested", outside / "into-tree")
    # mtimes in the past, so a change within the same clock tick would still show.
    past = time.time_ns() - 3_600 * 10**9
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root), topdown=False):
        for name in (*filenames, *dirnames):
            os.utime(os.path.join(dirpath, name), ns=(past, past), follow_symlinks=False)
    os.utime(root, ns=(past, past))
    return root


Snapshot = dict[bytes, tuple[Any, ...]]


def snapshot(root: Path) -> Snapshot:
    """Relative path -> (type, mode, mtime_ns, size, sha256 or link target), links not followed."""
    broot = os.fsencode(root)
    out: Snapshot = {}
    top = os.lstat(broot)
    out[b"."] = (stat.S_IFMT(top.st_mode), stat.S_IMODE(top.st_mode), top.st_mtime_ns, None, None)
    for dirpath, dirnames, filenames in os.walk(broot):
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            content: Any = None
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as handle:
                    content = hashlib.sha256(handle.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                content = os.readlink(path)
            out[os.path.relpath(path, broot)] = (
                stat.S_IFMT(st.st_mode),
                stat.S_IMODE(st.st_mode),
                st.st_mtime_ns,
                st.st_size,
                content,
            )
    return out


def diff(before: Snapshot, after: Snapshot) -> list[str]:
    changes = [f"removed {p!r}" for p in sorted(before.keys() - after.keys())]
    changes += [f"created {p!r}" for p in sorted(after.keys() - before.keys())]
    changes += [
        f"changed {p!r}: {before[p]} -> {after[p]}"
        for p in sorted(before.keys() & after.keys())
        if before[p] != after[p]
    ]
    return changes


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    exit_code: int = 0
    writes: str | None = None  # the report file the run must create (outside the tree)
    refused: str | None = None  # an --output the run must refuse: it must not exist afterwards


def run(
    name: str,
    *args: str,
    exit_code: int = 0,
    writes: str | None = None,
    refused: str | None = None,
    bug: str | None = None,
) -> Any:
    marks = [pytest.mark.xfail(reason=f"BUG: {bug}", strict=True)] if bug else []
    return pytest.param(Run(args, exit_code, writes, refused), id=name, marks=marks)


DUPS = int(ExitCode.DUPLICATES_FOUND)
SKIPS = int(ExitCode.FILES_SKIPPED)
USAGE = int(ExitCode.USAGE)

RUNS = [
    run("scan-text", "scan", "tree"),
    run("scan-json", "scan", "tree", "--format", "json"),
    run("scan-jsonl", "scan", "tree", "--format", "jsonl"),
    run("scan-csv", "scan", "tree", "--format", "csv"),
    run("scan-html", "scan", "tree", "--format", "html"),
    run("calibrate", "calibrate", "tree"),
    run("calibrate-json", "calibrate", "tree", "--format", "json"),
    run("scan-quiet-one-job", "scan", "tree", "-q", "-j", "1"),
    run("scan-components-no-verify", "scan", "tree", "--cluster", "components", "--no-verify"),
    run("scan-follow-symlinks-hidden", "scan", "tree", "--follow-symlinks", "--hidden"),
    run("scan-include-exclude", "scan", "tree", "--include", "*.txt", "--exclude", "nested/*"),
    run("scan-markup-tfidf", "scan", "tree", "--keep-markup", "--weighting", "tfidf"),
    run("scan-small-max-size", "scan", "tree", "--max-size", "1K"),
    run("scan-fail-on-duplicates", "scan", "tree", "--fail-on-duplicates", exit_code=DUPS),
    run("scan-strict", "scan", "tree", "--strict", exit_code=SKIPS),
    run("scan-files-from", "scan", "--files-from", "outside/list.txt"),
    run("scan-files", "scan", "tree/a.txt", "tree/b.txt", "tree/link.txt"),
    run(
        "scan-output-outside-text",
        "scan",
        "tree",
        "-o",
        "outside/report.txt",
        writes="outside/report.txt",
    ),
    run(
        "scan-output-outside-json",
        "scan",
        "tree",
        "-f",
        "json",
        "-o",
        "outside/report.json",
        writes="outside/report.json",
    ),
    run(
        "scan-output-outside-csv",
        "scan",
        "tree",
        "-f",
        "csv",
        "-o",
        "outside/pairs.csv",
        writes="outside/pairs.csv",
    ),
    run(
        "scan-output-inside",
        "scan",
        "tree",
        "-o",
        "tree/report.json",
        exit_code=USAGE,
        refused="tree/report.json",
    ),
    run(
        "scan-output-inside-nested",
        "scan",
        "tree",
        "-f",
        "csv",
        "-o",
        "tree/nested/pairs.csv",
        exit_code=USAGE,
        refused="tree/nested/pairs.csv",
    ),
    run(
        "scan-output-inside-relative-spelling",
        "scan",
        "./tree/",
        "-o",
        "tree/../tree/r.json",
        exit_code=USAGE,
        refused="tree/r.json",
    ),
    run(
        "scan-output-via-symlink-into-tree",
        "scan",
        "tree",
        "-o",
        "outside/into-tree/r.json",
        exit_code=USAGE,
        refused="tree/nested/r.json",
    ),
    run(
        "scan-output-over-scanned-file",
        "scan",
        "tree/a.txt",
        "tree/b.txt",
        "-o",
        "tree/a.txt",
        exit_code=USAGE,
    ),
    run(
        "scan-output-symlink-in-tree",
        "scan",
        "tree",
        "-o",
        "tree/report-link",
        exit_code=USAGE,
    ),
    run("compare-text", "compare", "tree/a.txt", "tree/c.txt"),
    run("compare-json", "compare", "tree/a.txt", "tree/nested/zh.txt", "--format", "json"),
    run("compare-binary", "compare", "tree/a.txt", "tree/image.png", exit_code=SKIPS),
    run("hash-folder", "hash", "tree"),  # the empty file and the binary: reported, exit 0
    run("hash-files", "hash", "tree/a.txt", "tree/readonly.txt", "tree/nested/zh.txt"),
]


def _check_no_temp_files(folder: Path) -> None:
    assert not [p.name for p in folder.glob(".simdup-*")], list(folder.iterdir())


@pytest.mark.parametrize("spec", RUNS)
def test_never_alters_the_scanned_tree(tree: Path, spec: Run) -> None:
    outside = tree.parent / "outside"
    before, outside_before = snapshot(tree), snapshot(outside)

    result = CliRunner().invoke(cli, list(spec.args))

    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == spec.exit_code, (result.stderr, result.stdout)
    assert diff(before, snapshot(tree)) == []
    expected_outside = set(outside_before)
    if spec.writes:
        written = tree.parent / spec.writes
        assert written.is_file() and not written.is_symlink()
        assert written.stat().st_size > 0
        if written.suffix == ".json":
            json.loads(written.read_text(encoding="utf-8"))
        expected_outside.add(os.fsencode(written.relative_to(outside)))
    assert set(snapshot(outside)) == expected_outside
    if spec.refused:
        assert not (tree.parent / spec.refused).exists()
        assert "never writes into the folders it scans" in result.stderr
        assert result.stdout == ""
    _check_no_temp_files(outside)


# ---------------------------------------------------------------- interrupts


def _interrupt(*args: Any, **kwargs: Any) -> Any:
    raise KeyboardInterrupt


def _assert_short_interrupt_message(result: Result) -> None:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 100, result.stderr
    assert "interrupted" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("existing", [False, True], ids=["new-output", "existing-output"])
def test_interrupt_during_scan_exits_130_without_output(
    tree: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    report = tree.parent / "outside" / "report.json"
    if existing:
        report.write_text("old report\n", encoding="utf-8")
    before = snapshot(tree)
    monkeypatch.setattr(simdup.cli.scan, "scan", _interrupt)

    result = CliRunner().invoke(cli, ["scan", "tree", "-f", "json", "-o", str(report)])

    assert result.exit_code == ExitCode.INTERRUPTED == 130
    _assert_short_interrupt_message(result)
    assert result.stdout == ""
    if existing:
        assert report.read_text(encoding="utf-8") == "old report\n"
    else:
        assert not report.exists()
    _check_no_temp_files(report.parent)
    assert diff(before, snapshot(tree)) == []


def test_interrupt_during_scan_to_stdout_prints_no_report(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simdup.cli.scan, "scan", _interrupt)
    result = CliRunner().invoke(cli, ["scan", "tree", "-f", "json"])
    assert result.exit_code == 130
    assert result.stdout == ""
    _assert_short_interrupt_message(result)


def _partial_then_interrupt(result: Any, fmt: str, stream: Any) -> None:
    stream.write('{"schema": "simdup-scan/1", "files": [')  # half a report, then Ctrl-C
    stream.flush()
    raise KeyboardInterrupt


@pytest.mark.parametrize("existing", [False, True], ids=["new-output", "existing-output"])
def test_interrupt_while_writing_leaves_no_partial_file(
    tree: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    report = tree.parent / "outside" / "report.json"
    if existing:
        report.write_text("old report\n", encoding="utf-8")
    monkeypatch.setattr(simdup.cli.scan, "render", _partial_then_interrupt)

    result = CliRunner().invoke(cli, ["scan", "tree", "-f", "json", "-o", str(report)])

    assert result.exit_code != 0
    if existing:
        assert report.read_text(encoding="utf-8") == "old report\n"
    else:
        assert not report.exists()
    _check_no_temp_files(report.parent)


OUTSIDE_SCAN_BUG = (
    "Ctrl-C outside the scan() call exits 1 with 'Aborted!' instead of 130: click's standalone "
    "mode turns KeyboardInterrupt into Abort before simdup.cli.main() can map it (main's "
    "'except KeyboardInterrupt' never runs); affects writing the report, hash, compare and "
    "reading --files-from"
)


@pytest.mark.parametrize(
    ("target", "args"),
    [
        ("scan.render", ["scan", "tree", "-o", "outside/report.txt"]),
        ("hash.fingerprint_files", ["hash", "tree/a.txt"]),
        ("compare.compare", ["compare", "tree/a.txt", "tree/b.txt"]),
    ],
    ids=["scan-writing-report", "hash", "compare"],
)
def test_interrupt_outside_scan_exits_130(
    tree: Path, monkeypatch: pytest.MonkeyPatch, target: str, args: list[str]
) -> None:
    module, name = target.split(".")
    monkeypatch.setattr(getattr(simdup.cli, module), name, _interrupt)
    monkeypatch.setattr(sys, "argv", ["simdup", *args])
    with pytest.raises(SystemExit) as info:
        simdup.cli.main()  # the console-script entry point, as a user runs it
    assert info.value.code == ExitCode.INTERRUPTED


def test_sigint_while_reading_files_from_stdin_exits_130(tmp_path: Path) -> None:
    """A real Ctrl-C (SIGINT) to a real process blocked reading ``--files-from -``."""
    code = (
        "import signal, sys\n"
        # As in an interactive shell, whatever the test runner's own SIGINT disposition is.
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import simdup.cli\n"
        "sys.argv = ['simdup', 'scan', '--files-from', '-', '-o', 'report.txt']\n"
        "sys.stderr.write('ready\\n'); sys.stderr.flush()\n"
        "simdup.cli.main()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready and proc.stderr.readline() == b"ready\n"
        time.sleep(0.5)  # now blocked in sys.stdin.buffer.read()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (tmp_path / "report.txt").exists()
    assert list(tmp_path.iterdir()) == []
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert b"interrupted" in err


def test_output_file_gets_the_usual_permissions(tree: Path) -> None:
    report = tree.parent / "outside" / "report.txt"
    old = os.umask(0o022)
    try:
        result = CliRunner().invoke(cli, ["scan", "tree", "-o", str(report)])
    finally:
        os.umask(old)
    assert result.exit_code == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o644
