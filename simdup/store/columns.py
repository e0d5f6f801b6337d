"""Named numpy columns and a JSON header in one flat byte layout: the scan cache's file format.

A *frame* is ``MAGIC | header length (uint64) | header (JSON) | padding | column bytes...``,
each column starting on a 64-byte boundary. The header names each column's dtype, shape,
offset and xxh3-64 checksum, plus free-form ``meta``. A frame is written in one piece
(``frame_bytes``) and read without copying (``Frame.parse`` over a memory map): a column is
checked against its checksum the first time it is asked for, so reading the stat columns of a
million-file snapshot never touches its sketches. A frame that is cut short or altered is a
``FrameError``, never a wrong answer.

Snapshots are one frame in a file (written to a temporary name and renamed over the old one,
so a reader sees the old file or the new one, whole); journals are frames one after another,
each prefixed by its length, so that a run killed midway leaves every frame before the last
intact (a cut last frame is dropped).
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import xxhash

MAGIC = b"SIMDUP-COLUMNS\x00\x01"
_LENGTH = struct.Struct("<Q")
_ALIGN = 64
# A header larger than this is not one of ours (a damaged length).
_MAX_HEADER = 1 << 26


class FrameError(ValueError):
    """Bytes that are not a whole, intact frame."""


def _padded(size: int) -> int:
    return -(-size // _ALIGN) * _ALIGN


class Chunks:
    """A ``uint8`` column given as pieces (byte strings) that are never joined all at once: a
    snapshot's sketches and paths are written straight from the scan's own objects, a group of
    pieces at a time (one write and one checksum update per group, not per piece)."""

    _GROUP = 4096

    def __init__(self, pieces: Iterable[bytes]) -> None:
        self.pieces = pieces if isinstance(pieces, list) else list(pieces)
        self.nbytes = sum(map(len, self.pieces))

    def groups(self) -> Iterator[bytes]:
        pieces, size = self.pieces, self._GROUP
        for start in range(0, len(pieces), size):
            yield b"".join(pieces[start : start + size])


Column = np.ndarray | Chunks
# What a frame is written from: byte strings, buffers, and columns written a group at a time.
Piece = bytes | memoryview | Chunks


def frame_bytes(columns: Mapping[str, Column], meta: Mapping[str, Any]) -> list[Piece]:
    """The pieces of a frame holding ``columns`` and ``meta``, to be written one after
    another (``write_pieces``): the columns' own buffers, nothing copied whole."""
    specs: dict[str, dict[str, Any]] = {}
    body: list[Piece] = []
    offset = 0
    for name, column in columns.items():
        digest = xxhash.xxh3_64()
        if isinstance(column, Chunks):
            for group in column.groups():
                digest.update(group)
            size, dtype, shape = column.nbytes, "|u1", [column.nbytes]
            body.append(column)
        else:
            data = np.ascontiguousarray(column)
            if data.dtype.hasobject:
                raise TypeError(f"column {name!r} holds Python objects")
            # Its bytes, flat (a memoryview of a 2-D column with no rows cannot be cast).
            view = data.reshape(-1).view(np.uint8).data
            digest.update(view)
            size, dtype, shape = view.nbytes, data.dtype.str, list(data.shape)
            body.append(view)
        specs[name] = {
            "dtype": dtype, "shape": shape, "offset": offset, "bytes": size,
            "xxh3": digest.intdigest(),
        }  # fmt: skip
        body.append(bytes(_padded(size) - size))
        offset += _padded(size)
    header = json.dumps(
        {"columns": specs, "meta": dict(meta)}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    start = len(MAGIC) + _LENGTH.size + len(header)
    prefix = MAGIC + _LENGTH.pack(len(header)) + header + bytes(_padded(start) - start)
    return [prefix, *body]


def frame_size(pieces: Sequence[Piece]) -> int:
    return sum(p.nbytes if isinstance(p, Chunks | memoryview) else len(p) for p in pieces)


def frame_of(columns: Mapping[str, Column], meta: Mapping[str, Any]) -> bytes:
    """A whole frame as one byte string (small frames, tests)."""
    out: list[Any] = []
    write_pieces(out.append, frame_bytes(columns, meta))
    return b"".join(out)


def write_pieces(write: Callable[[Any], Any], pieces: Sequence[Piece]) -> None:
    """Write the pieces of a frame with ``write``."""
    for piece in pieces:
        if isinstance(piece, Chunks):
            for group in piece.groups():
                write(group)
        else:
            write(piece)


class Frame:
    """A frame read from a buffer (bytes, or a memory map): ``meta`` and ``column(name)``."""

    def __init__(self, buffer: Any, start: int = 0) -> None:
        self._buffer = buffer
        view = memoryview(buffer)
        if bytes(view[start : start + len(MAGIC)]) != MAGIC:
            raise FrameError("not a simdup cache frame (bad magic)")
        at = start + len(MAGIC)
        if len(view) < at + _LENGTH.size:
            raise FrameError("cut short (header length)")
        (size,) = _LENGTH.unpack_from(view, at)
        at += _LENGTH.size
        if size > _MAX_HEADER or len(view) < at + size:
            raise FrameError("cut short (header)")
        try:
            header = json.loads(bytes(view[at : at + size]).decode("utf-8"))
            self.meta: dict[str, Any] = header["meta"]
            self._specs: dict[str, dict[str, Any]] = header["columns"]
        except (ValueError, KeyError, TypeError) as exc:
            raise FrameError(f"damaged header ({exc})") from exc
        self._data = start + _padded(at + size - start)
        self._view = view
        self._checked: dict[str, np.ndarray] = {}
        self.size = self._data - start + sum(_padded(s["bytes"]) for s in self._specs.values())
        if len(view) < start + self.size:
            raise FrameError("cut short (columns)")

    def __contains__(self, name: str) -> bool:
        return name in self._specs

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    def nbytes(self, name: str) -> int:
        """The size of column ``name``, without reading it."""
        return int(self._specs[name]["bytes"])

    def column(self, name: str) -> np.ndarray:
        """Column ``name`` (read-only, not copied), checked against its checksum once."""
        found = self._checked.get(name)
        if found is not None:
            return found
        spec = self._specs.get(name)
        if spec is None:
            raise FrameError(f"no column {name!r}")
        try:
            begin = self._data + int(spec["offset"])
            raw = self._view[begin : begin + int(spec["bytes"])]
            if xxhash.xxh3_64_intdigest(raw) != spec["xxh3"]:
                raise FrameError(f"column {name!r} is damaged (checksum)")
            array = np.frombuffer(raw, dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])
        except (TypeError, ValueError, KeyError) as exc:
            if isinstance(exc, FrameError):
                raise
            raise FrameError(f"column {name!r} is damaged ({exc})") from exc
        self._checked[name] = array
        return array

    def check(self, name: str) -> None:
        """``column(name)`` checked now, its pages then given back: a memory map's pages read
        for the checksum stay in the page cache, not in this process's memory, until the
        column is used (a rescan of a million files need not hold their sketches)."""
        self.column(name)
        buffer = self._buffer
        if not isinstance(buffer, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
            return
        spec = self._specs[name]
        begin = self._data + int(spec["offset"])
        page = mmap.PAGESIZE
        first = begin // page * page
        end = min(len(buffer), -(-(begin + int(spec["bytes"])) // page) * page)
        if end > first:
            with contextlib.suppress(OSError, ValueError):
                buffer.madvise(mmap.MADV_DONTNEED, first, end - first)


# ---------------------------------------------------------------- files


def write_frame_file(path: str, columns: Mapping[str, Column], meta: Mapping[str, Any]) -> int:
    """Write one frame to ``path`` atomically (a temporary file in the same folder, renamed
    over ``path``): readers see the old file or the new one, whole. Returns its size."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=folder)
    try:
        pieces = frame_bytes(columns, meta)
        with os.fdopen(fd, "wb") as handle:
            write_pieces(handle.write, pieces)
        written = frame_size(pieces)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return written


def map_file(path: str) -> mmap.mmap | bytes:
    """The bytes of ``path``, memory-mapped (read-only) when it is not empty. The map stays
    valid when the file is replaced or removed (the old file lives on until unmapped)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def read_frame_file(path: str) -> Frame:
    """The frame in ``path`` (``FrameError`` when damaged, ``OSError`` when unreadable)."""
    return Frame(map_file(path))


class JournalWriter:
    """Frames appended to a file as they come, each prefixed by its length, so that a run
    killed midway leaves every frame but the last one it was writing intact."""

    def __init__(self, path: str) -> None:
        self.path = path
        # O_APPEND: every frame lands at the end, whole, even after a torn write before it.
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(path, flags, 0o600)

    def fileno(self) -> int:
        return self._fd

    def append(self, columns: Mapping[str, Column], meta: Mapping[str, Any]) -> None:
        pieces = frame_bytes(columns, meta)
        # One write of the whole frame (a batch's: small), so that frames never interleave.
        whole: list[bytes | memoryview] = [_LENGTH.pack(frame_size(pieces))]
        write_pieces(whole.append, pieces)
        os.write(self._fd, b"".join(whole))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def read_journal(path: str) -> Iterator[Frame]:
    """The intact frames of a journal, in order; reading stops at the first that is cut
    short or damaged (a run killed while writing it)."""
    data = map_file(path)
    at = 0
    while at + _LENGTH.size <= len(data):
        (size,) = _LENGTH.unpack_from(data, at)
        at += _LENGTH.size
        if at + size > len(data):
            return
        try:
            frame = Frame(data, at)
        except FrameError:
            return
        if frame.size != size:
            return
        yield frame
        at += size
