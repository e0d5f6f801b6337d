"""Opening the files simdup reads: the one open function, ``read_bytes``.

Every reader gets its bytes from here, and so does the scan cache when it hashes a file, so the
safety rules live in one place: a symbolic link put where discovery found a file is not
followed, the file opened must be the one discovery found, and nothing blocks on a FIFO or
device swapped in after discovery.
"""

from __future__ import annotations

import errno
import os
import stat

from ..records import SkippedFile, SourceFile


class ReadFailure(Exception):
    """Why a file could not be read (becomes a ``SkippedFile`` of stage ``read``)."""


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# What open(O_NOFOLLOW) fails with when the path is a symbolic link: ELOOP (Linux, macOS),
# EMLINK (FreeBSD), EFTYPE (NetBSD).
_NOFOLLOW_ERRORS = frozenset(
    getattr(errno, name) for name in ("ELOOP", "EMLINK", "EFTYPE") if hasattr(errno, name)
)
REPLACED_BY_LINK = "replaced by a symbolic link after discovery (not followed)"
CHANGED = "changed after discovery (another file is now at this path)"


_READ_CHUNK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_bytes(source: SourceFile | str, max_size: int) -> bytes:
    """Read a regular file: the one open function of simdup for the files it fingerprints.

    ``source`` is what discovery found: a symbolic link at its path is not followed unless
    ``source.follow``, and the file opened must be the one discovery found (same device and
    inode, when known), so a link or another file put there since is never read. A plain
    ``str`` is a path the user named: links are followed, there is nothing to check against.
    Never blocks on a FIFO or device swapped in after discovery.
    """
    if isinstance(source, str):
        source = SourceFile(source, 0, follow=True)
    nofollow = 0 if source.follow else _NOFOLLOW
    try:
        fd = os.open(source.path, _OPEN_FLAGS | nofollow)
    except OSError as exc:
        if nofollow and exc.errno in _NOFOLLOW_ERRORS and os.path.islink(source.path):
            raise ReadFailure(REPLACED_BY_LINK) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReadFailure("not a regular file")
        if source.inode and (st.st_dev, st.st_ino) != (source.device, source.inode):
            raise ReadFailure(CHANGED)
        if st.st_size > max_size:
            raise ReadFailure(f"larger than --max-size ({st.st_size} > {max_size} bytes)")
        chunks = []
        remaining = max_size + 1
        # The first read asks for the size fstat gave and one byte more: a small file comes in
        # one call, and no megabyte buffer is made and shrunk for it (~19 us a file).
        want = min(remaining, st.st_size + 1, _READ_CHUNK)
        while remaining > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            # A short read that reaches the size fstat gave is the end of the file: no read
            # more to be told so (one system call per file fewer). A file that grew since
            # fstat, or a read cut short by a signal, reads on.
            if len(chunk) < want and max_size + 1 - remaining == st.st_size:
                break
            want = min(remaining, _READ_CHUNK)
        data = b"".join(chunks)
        if len(data) > max_size:
            raise ReadFailure(f"grew beyond --max-size ({max_size} bytes) while being read")
        return data
    finally:
        os.close(fd)


def read_or_skip(source: SourceFile | str, max_size: int) -> bytes | SkippedFile:
    """``read_bytes``, or the record of why the file could not be read."""
    path = source if isinstance(source, str) else source.path
    try:
        return read_bytes(source, max_size)
    except ReadFailure as exc:
        return SkippedFile(path, "read", str(exc))
    except OSError as exc:
        return SkippedFile(path, "read", exc.strerror or str(exc))


def file_state(path: str) -> tuple[int, int, int]:
    """What tells whether a file changed while it was read: its size, modification time (ns)
    and inode (a writer that replaced it by renaming changes the inode)."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)
