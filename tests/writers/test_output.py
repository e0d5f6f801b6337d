"""simdup.writers.output: how each kind of output target is written (never replaced unless it is
a regular file or a new path). Real processes writing to devices, FIFOs and sockets, and closed
standard streams, are cases of the catalogue in tests/contract/test_bad_inputs.py."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from simdup.errors import ConfigError, OutputError
from simdup.writers.output import OutputTarget, descriptor_named


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/dev/stdout", (1, True)),
        ("/dev/stderr", (2, True)),
        ("/dev/./stdout", (1, True)),
        ("/dev/fd/5", (5, True)),
        ("/proc/self/fd/7", (7, True)),
        (f"/proc/{os.getpid()}/fd/3", (3, True)),
        ("/proc/1/fd/3", (3, False)),
        ("report.json", (None, False)),
        ("/dev/stdout-report.json", (None, False)),
    ],
)
def test_descriptor_names_are_recognised_by_name(path: str, expected: tuple[int, bool]) -> None:
    """Names of open descriptors are known by their spelling (nothing is opened)."""
    assert descriptor_named(path) == expected


def test_a_symlink_to_a_descriptor_name_is_one(tmp_path: Path) -> None:
    """A link (in the user's folder) to the name of descriptor 1 is recognised as that name
    (only read with readlink; nothing is opened or written)."""
    link = tmp_path / "out"
    link.symlink_to("/dev/stdout")
    assert descriptor_named(str(link)) == (1, True)


def test_stdout_names_resolve_to_stdout() -> None:
    """The dash and the name of descriptor 1 both resolve to standard output: resolution only,
    no path under /dev is opened or written by this test."""
    assert OutputTarget.resolve(None).how == "stdout"
    assert OutputTarget.resolve("-").how == "stdout"
    assert OutputTarget.resolve("/dev/stdout").how == "stdout"


def test_own_descriptor_is_written_through_a_duplicate() -> None:
    """`-o /proc/self/fd/N` for a pipe this process holds: the report goes into the pipe, through
    a duplicate of N (append mode and offset kept); N itself stays open."""
    read_end, write_end = os.pipe()
    try:
        target = OutputTarget.resolve(f"/proc/self/fd/{write_end}")
        assert (target.how, target.fd) == ("descriptor", write_end)
        with target.open() as stream:
            stream.write("report\n")
        os.write(write_end, b"more\n")  # still open
        assert os.read(read_end, 100) == b"report\nmore\n"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_new_and_regular_files_are_replaced_atomically(tmp_path: Path) -> None:
    """A new path or an existing regular file: written beside it, renamed over it."""
    new = tmp_path / "new.json"
    assert OutputTarget.resolve(str(new)).how == "replace"
    existing = tmp_path / "old.json"
    existing.write_text("old")
    target = OutputTarget.resolve(str(existing))
    assert target.how == "replace"
    inode = existing.stat().st_ino
    with target.open() as stream:
        stream.write("new")
    assert existing.read_text() == "new"
    assert existing.stat().st_ino != inode  # a new file took its place
    assert [p.name for p in tmp_path.iterdir()] == ["old.json"]


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    """An exception while writing: the target keeps its old content, no temporary file stays."""
    existing = tmp_path / "old.json"
    existing.write_text("old")
    with pytest.raises(RuntimeError), OutputTarget.resolve(str(existing)).open() as stream:
        stream.write("half a rep")
        raise RuntimeError("interrupted")
    assert existing.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["old.json"]


def test_a_file_in_a_folder_we_may_not_write_is_written_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No temporary file can be made beside it: the file itself is truncated and written (same
    inode; not atomic). Simulated, because root may write any folder."""
    existing = tmp_path / "old.json"
    existing.write_text("a much longer old report")
    inode = existing.stat().st_ino
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    target = OutputTarget.resolve(str(existing))
    assert target.how == "in_place"
    with target.open() as stream:
        stream.write("new")
    assert existing.read_text() == "new"
    assert existing.stat().st_ino == inode


def test_a_missing_folder_is_an_output_error_before_any_work(tmp_path: Path) -> None:
    """Known before the scan starts."""
    with pytest.raises(OutputError, match="no such folder"):
        OutputTarget.resolve(str(tmp_path / "missing" / "r.json"))


def test_a_fifo_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    """A FIFO is opened as it is (here with a reader already waiting: O_RDWR keeps it open)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    keep = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a reader, so opening for write won't wait
    try:
        target = OutputTarget.resolve(str(fifo))
        assert target.how == "in_place"
        with target.open() as stream:
            stream.write("through the pipe")
        assert os.read(keep, 100) == b"through the pipe"
    finally:
        os.close(keep)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("path", ["", "out/", "missing-folder/"])
def test_a_name_that_is_no_file_is_a_config_error(path: str) -> None:
    """'' (the current folder) and 'out/' (a folder) never become a file named 'out'."""
    with pytest.raises(ConfigError, match="does not name a file"):
        OutputTarget.resolve(path)
