"""The one way simdup writes a file: to a temporary file beside it, moved into place only when
complete (a stopped run leaves no partial output), compressed as its name says (``.gz``,
``.zst``, ``.bz2``, ``.xz``), with the permissions an ordinary new file gets (the umask's) or,
replacing a file, that file's owner and mode."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from ..errors import MissingExtraError, OutputError


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
    """A binary stream to ``target`` (compressed as its name says, unless not ``compress``),
    moved into place when the block ends without an error; removed otherwise."""
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
