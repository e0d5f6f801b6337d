"""Where a report goes: standard output, or ``-o PATH``, without ever replacing what PATH is, and
never into what a command scans (``check_output``, ``check_not_scanned``).

One policy for every command:

* a new path, or an existing regular file in a folder we may write: the report is written to a
  temporary file beside the real target (a symbolic link is followed, never replaced) and
  renamed over it, so the target is either the whole new report or untouched; an existing
  file keeps its permission bits and, where allowed, its owner and group;
* an existing regular file in a folder we may not write: written in place (not atomic);
* anything else that exists (a character or block device, a FIFO) and the names of open file
  descriptors (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``): opened
  and written in place, never unlinked, created or renamed over; descriptors of this process
  are written through a duplicate, which keeps append mode and the file offset;
* a socket, a closed standard output, a missing folder: ``OutputError`` before any work is
  done where that can be known in advance (``ReportTarget.resolve``), else when writing; an
  empty name or one ending in ``/`` (a folder): ``ConfigError``.

``guard_standard_streams`` is the stream policy of the ``simdup`` process: a closed standard
stream is remembered and its descriptor number filled with the null device, so that no file
simdup opens later can take the number 0, 1 or 2 and receive stray output; a closed standard
error is a sink (messages are lost, the work is not); writes to standard error never fail.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, TextIO

import click

from ..errors import ConfigError, OutputError
from ..names import display_path
from ..writers.output import atomic_file

# Descriptors closed when the process started (see guard_standard_streams).
CLOSED_AT_START: set[int] = set()

_DESCRIPTOR_NAME = re.compile(
    r"/dev/(?P<std>stdin|stdout|stderr)|/dev/fd/(?P<dev_fd>\d+)|/proc/(?P<pid>self|\d+)/fd/(?P<fd>\d+)"
)
_STANDARD = {"stdin": 0, "stdout": 1, "stderr": 2}
_MAX_LINK_HOPS = 40


def guard_standard_streams() -> None:
    """Fill closed descriptors 0-2 with the null device and make standard error forgiving."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            CLOSED_AT_START.add(fd)
            with contextlib.suppress(OSError):
                opened = os.open(os.devnull, os.O_RDWR)
                if opened != fd:  # a lower number was free after all: keep the order
                    os.dup2(opened, fd)
                    os.close(opened)
    if sys.stderr is None or 2 in CLOSED_AT_START:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if not isinstance(sys.stderr, ForgivingStream):
        sys.stderr = ForgivingStream(sys.stderr)


class ForgivingStream(io.TextIOBase):
    """A text stream whose writes never raise: for messages, which must not stop the work
    (a hung-up terminal, a closed pipe or a full disk behind standard error)."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError):
            self.inner.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.inner.flush()

    def isatty(self) -> bool:
        try:
            return self.inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8") or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def descriptor_named(path: str) -> tuple[int | None, bool]:
    """``(fd, ours)`` when ``path`` names an open file descriptor (``/dev/stdout``,
    ``/proc/self/fd/3``, or a symbolic link to such a name); ``(None, False)`` otherwise.
    ``ours``: the descriptor is this process's own."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINK_HOPS):
        match = _DESCRIPTOR_NAME.fullmatch(os.path.normpath(current))
        if match:
            if match["std"]:
                return _STANDARD[match["std"]], True
            if match["dev_fd"]:
                return int(match["dev_fd"]), True
            ours = match["pid"] in ("self", str(os.getpid()))
            return int(match["fd"]), ours
        try:
            link = os.readlink(current)
        except OSError:
            return None, False
        current = os.path.join(os.path.dirname(current), link)
    return None, False


def names_own_descriptor(path: str) -> bool:
    """``path`` is ``/dev/stdout``, ``/proc/self/fd/N`` or the like, for this process."""
    fd, ours = descriptor_named(path)
    return fd is not None and ours


def _kind(mode: int) -> str:
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


@dataclass(frozen=True)
class ReportTarget:
    """A resolved destination. ``how``: ``stdout``, ``descriptor`` (``fd``), ``replace`` (atomic,
    via ``real``), ``in_place`` (``real`` opened and written as it is)."""

    path: str | None
    how: str
    real: str | None = None
    fd: int | None = None

    @classmethod
    def resolve(cls, path: str | None) -> ReportTarget:
        """Decide how ``path`` (``None`` or ``-``: standard output) will be written; raise
        ``OutputError`` now for what cannot work."""
        if path is None or path == "-":
            if sys.stdout is None or 1 in CLOSED_AT_START:
                raise OutputError("standard output is closed (use -o FILE)")
            return cls(None, "stdout")
        if not path or path.endswith(("/", os.sep)):
            # "" would be the current folder, "out/" a folder: never a file to create
            raise ConfigError(f"--output {path!r} does not name a file")
        fd, ours = descriptor_named(path)
        if fd is not None and ours:
            if fd in CLOSED_AT_START:
                raise OutputError(f"{path}: descriptor {fd} is closed")
            if fd == 1 and sys.stdout is not None:
                return cls(path, "stdout")
            return cls(path, "descriptor", fd=fd)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            real = os.path.realpath(path)
            if not os.path.isdir(os.path.dirname(real)):
                raise OutputError(f"{path}: no such folder: {os.path.dirname(real)}") from None
            return cls(path, "replace", real)
        except OSError as exc:
            raise OutputError(f"{path}: {exc.strerror or exc}") from exc
        if fd is not None:  # another process's descriptor: whatever it is, never replaced
            return cls(path, "in_place", path)
        if stat.S_ISREG(st.st_mode):
            real = os.path.realpath(path)
            how = "replace" if os.access(os.path.dirname(real), os.W_OK | os.X_OK) else "in_place"
            return cls(path, how, real)
        if stat.S_ISSOCK(st.st_mode) or stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{path}: is {_kind(st.st_mode)}: cannot write a report into it")
        return cls(path, "in_place", path)  # a device or a FIFO: written as it is

    @property
    def is_stdout(self) -> bool:
        return self.how == "stdout"

    @contextlib.contextmanager
    def open(self) -> Iterator[TextIO]:
        """A text stream to write the report to. Leaving the block flushes it (errors raise
        ``OSError``); an exception inside leaves a replaced target untouched."""
        if self.how == "stdout":
            assert sys.stdout is not None
            yield sys.stdout
            sys.stdout.flush()
        elif self.how == "descriptor":
            assert self.fd is not None
            try:
                fd = os.dup(self.fd)
            except OSError as exc:
                raise OutputError(f"{self.path}: {exc.strerror or exc}") from exc
            with _text(fd) as handle:
                yield handle
        elif self.how == "in_place":
            assert self.real is not None
            yield from _in_place(self.real)
        else:
            assert self.real is not None
            yield from _replace(self.real)


def _text(fd: int) -> TextIO:
    return open(fd, "w", encoding="utf-8", newline="")  # noqa: SIM115


def _in_place(target: str) -> Iterator[TextIO]:
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)  # never O_CREAT: nothing new appears here
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(f"{target}: no reader (a socket or a device without one)") from exc
        raise
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
    with _text(fd) as handle:
        yield handle


def _replace(target: str) -> Iterator[TextIO]:
    # The one atomic writer (a report is never compressed by its name: report.json.gz is the
    # user's name for a JSON report).
    with atomic_file(target, compress=False) as raw, _text_of(raw) as handle:
        yield handle


def _text_of(raw: IO[bytes]) -> TextIO:
    return io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=False)


def _inside(child: str, parent: str) -> bool:
    """``child`` is ``parent`` or below it, as spelled or after resolving symbolic links."""
    for resolve in (os.path.abspath, os.path.realpath):
        c, p = resolve(child), resolve(parent)
        if c == p or c.startswith(p.rstrip(os.sep) + os.sep):
            return True
    return False


def check_output(output: str | None, roots: list[str]) -> None:
    """Refuse an output file that is a scanned file or lies inside a scanned folder (the name
    of a descriptor, ``/dev/stdout``, is standard output: what the shell opened, not simdup)."""
    if not output or output == "-" or names_own_descriptor(output):
        return
    check_not_scanned("--output", output, roots)


def check_not_scanned(option: str, path: str, roots: Sequence[str]) -> None:
    """Refuse a file simdup writes (a report, a database and its journal) inside what it scans."""
    for root in roots:
        if _inside(path, root):
            where = (
                f"inside the scanned folder {display_path(root)}"
                if os.path.isdir(root)
                else f"the scanned file {display_path(root)}"
            )
            raise click.UsageError(
                f"{option} {display_path(path)} is {where}: "
                "simdup never writes into the folders it scans"
            )

