"""The one way simdup writes what a user names as an output (``-o``, ``--removed``, ``--report``,
``--write-baseline``, …): ``OutputTarget``, whatever the command and whether it writes a text
report or binary rows. What the path is decides how it is written, never the command:

* a new path, or an existing regular file in a folder we may write: written to a temporary file
  beside the real target (a symbolic link is followed, never replaced) and renamed over it
  (``atomic_file``), so the target is either the whole new output or untouched (a stopped run
  leaves no partial output); an existing file keeps its permission bits and, where allowed, its
  owner and group, a new one gets what the umask gives;
* an existing regular file in a folder we may not write: written in place (not atomic);
* anything else that exists (a character or block device such as ``/dev/null``, a FIFO) and
  the names of open file descriptors (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
  ``/proc/self/fd/N``): opened and written as it is, never unlinked, created or renamed over;
  descriptors of this process are written through a duplicate, which keeps append mode and the
  file offset; ``-`` is standard output;
* a socket, a closed standard output, a missing folder: ``OutputError`` from ``resolve``, before
  any work is done; an empty name or one ending in ``/`` (a folder): ``ConfigError``.

A binary output is compressed as its name says (``.gz``, ``.zst``, ``.bz2``, ``.xz``) wherever it
goes; a text report never is (``report.json.gz`` is the user's name for a JSON report).

Stores (an index, a cache entry) are simdup's own files, not outputs: they use ``atomic_file``
or SQLite directly (``simdup.store.database`` refuses a store path that is not a regular file).
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import io
import lzma
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, TextIO, cast

from ..errors import ConfigError, MissingExtraError, OutputError

# Standard descriptors that were closed when the process started (filled with the null device by
# ``simdup.cli.output.guard_standard_streams``): a report is never written "to" them.
CLOSED_AT_START: set[int] = set()

_DESCRIPTOR_NAME = re.compile(
    r"/dev/(?P<std>stdin|stdout|stderr)|/dev/fd/(?P<dev_fd>\d+)|/proc/(?P<pid>self|\d+)/fd/(?P<fd>\d+)"
)
_STANDARD = {"stdin": 0, "stdout": 1, "stderr": 2}
_MAX_LINK_HOPS = 40


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
class OutputTarget:
    """A resolved destination. ``how``: ``stdout``, ``descriptor`` (``fd``), ``replace`` (atomic,
    via ``real``), ``in_place`` (``real`` opened and written as it is)."""

    path: str | None
    how: str
    real: str | None = None
    fd: int | None = None

    @classmethod
    def resolve(cls, path: str | None, option: str = "--output") -> OutputTarget:
        """Decide how ``path`` (``None`` or ``-``: standard output) will be written; raise
        ``OutputError`` now for what cannot work (``option`` names it in a message)."""
        if path is None or path == "-":
            if sys.stdout is None or 1 in CLOSED_AT_START:
                raise OutputError(f"standard output is closed (use {option} FILE)")
            return cls(None, "stdout")
        if not path or path.endswith(("/", os.sep)):
            # "" would be the current folder, "out/" a folder: never a file to create
            raise ConfigError(f"{option} {path!r} does not name a file")
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
            raise OutputError(f"{path}: is {_kind(st.st_mode)}: cannot write output into it")
        return cls(path, "in_place", path)  # a device or a FIFO: written as it is

    @property
    def is_stdout(self) -> bool:
        return self.how == "stdout"

    @contextlib.contextmanager
    def open(self) -> Iterator[TextIO]:
        """A text stream (UTF-8, never compressed) to write a report to. Leaving the block
        flushes it (errors raise ``OSError``); an exception inside leaves a replaced target
        untouched."""
        if self.how == "stdout":
            assert sys.stdout is not None
            yield sys.stdout
            sys.stdout.flush()
            return
        with self.open_binary(compress=False) as raw, _text_of(raw) as handle:
            yield handle

    @contextlib.contextmanager
    def open_binary(self, *, compress: bool = True) -> Iterator[IO[bytes]]:
        """A binary stream to the target, compressed as its name says unless not ``compress``;
        as ``open``, an exception inside leaves a replaced target untouched."""
        if self.how == "replace":
            assert self.real is not None
            with atomic_file(self.real, compress=compress) as stream:
                yield stream
            return
        owned = self.how != "stdout"  # standard output is flushed, never closed, at the end
        if self.how == "stdout":
            assert sys.stdout is not None
            sys.stdout.flush()  # what was written as text goes first
            raw: IO[bytes] = sys.stdout.buffer  # type: ignore[assignment]
        elif self.how == "descriptor":
            assert self.fd is not None
            try:
                raw = os.fdopen(os.dup(self.fd), "wb")
            except OSError as exc:
                raise OutputError(f"{self.path}: {exc.strerror or exc}") from exc
        else:
            assert self.real is not None
            raw = os.fdopen(_open_in_place(self.real), "wb")
        try:
            compressed = _compressor(raw, self.path or "") if compress else None
            if compressed is None:
                yield cast(IO[bytes], _Counted(raw))
            else:
                with compressed:
                    yield compressed
        finally:
            if owned:
                raw.close()
            else:
                raw.flush()


def _open_in_place(target: str) -> int:
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
    return fd


class _Counted(io.RawIOBase):
    """A stream that answers ``tell`` with the bytes written through it: a device, a FIFO or a
    pipe cannot seek, and a writer that asks where it is (Parquet's) needs only that count."""

    def __init__(self, inner: IO[bytes]) -> None:
        self.inner = inner
        self.written = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        count = self.inner.write(data)
        count = len(data) if count is None else count
        self.written += count
        return count

    def tell(self) -> int:
        return self.written

    def flush(self) -> None:
        self.inner.flush()

    def close(self) -> None:  # the stream it wraps is closed (or kept) by its owner
        if not self.closed:
            try:
                self.inner.flush()  # a full disk or a closed pipe is an error of the output
            finally:
                super().close()


def _text_of(raw: IO[bytes]) -> TextIO:
    return io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=False)


def _take_mode(fd: int, target: str) -> None:
    """Give the temporary file ``fd`` the owner and mode of ``target`` when it exists, else
    what the umask gives a new file (``mkstemp`` makes 0600: an output is an ordinary file that
    another user's job may read)."""
    try:
        existing = os.stat(target)
    except OSError:
        existing = None
    if existing is not None and stat.S_ISREG(existing.st_mode):
        # Owner first: a chown may clear set-id bits that the chmod then restores.
        with contextlib.suppress(OSError):
            os.fchown(fd, existing.st_uid, existing.st_gid)
        os.fchmod(fd, stat.S_IMODE(existing.st_mode))
        return
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)


@contextlib.contextmanager
def atomic_file(target: str, *, compress: bool = True) -> Iterator[IO[bytes]]:
    """A binary stream to a new file at ``target`` (compressed as its name says, unless not
    ``compress``), moved into place when the block ends without an error; removed otherwise.
    Only for a path that is new or a regular file (``OutputTarget`` decides that for outputs):
    the rename would replace whatever else is there."""
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory):
        raise OutputError(f"{target}: no such folder: {directory}")
    fd, tmp = tempfile.mkstemp(prefix=".simdup-", suffix=".tmp", dir=directory)
    try:
        _take_mode(fd, target)
        with os.fdopen(fd, "wb") as raw:
            stream = _compressor(raw, target) if compress else None
            if stream is None:
                yield raw
            else:
                with stream:
                    yield stream
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _compressor(raw: IO[bytes], target: str) -> Any:
    """A stream compressing into ``raw`` as ``target``'s name says (None: not compressed)."""
    suffix = os.path.splitext(target)[1].lower()
    if suffix == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
    if suffix == ".bz2":
        return bz2.BZ2File(raw, "wb")
    if suffix == ".xz":
        return lzma.LZMAFile(raw, "wb")
    if suffix in (".zst", ".zstd"):
        try:
            import zstandard
        except ImportError as exc:
            raise MissingExtraError("writing zstd-compressed rows", "rows") from exc
        # Compressed on every core (rows are written after the workers are done).
        return zstandard.ZstdCompressor(threads=-1).stream_writer(raw, closefd=False)
    return None


@contextlib.contextmanager
def output_file(path: str, option: str = "--output") -> Iterator[IO[bytes]]:
    """A binary stream to the output ``path`` (``OutputTarget``), compressed as its name says."""
    with OutputTarget.resolve(path, option).open_binary() as stream:
        yield stream
