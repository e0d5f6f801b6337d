"""A row file's bytes: decompressed as they are read (gzip, zstd, bz2 and xz, known by their
first bytes, else by the file's name), as a stream (``open_binary``) or a block at a time as
decompression gives them (``read_blocks``); and the lines of an uncompressed file that begin
in a byte span (``span_blocks``: a Dask partition). A compressed stream that ends early raises
(``EOF_ERRORS``): a zstd frame without its end raises ``TruncatedStream``, where a zstd stream
reader could take it for the end of the data."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from collections.abc import Iterator
from typing import IO, Any

from ...errors import MissingExtraError

_COMPRESSED = {  # first bytes -> name
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
}
_SUFFIXES = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd", ".bz2": "bz2", ".xz": "xz"}
_CHUNK = 1 << 20


class TruncatedStream(Exception):
    """A compressed stream ended before its end marker."""


def compression_of(path: str, head: bytes) -> str | None:
    """The compression of a file, by its first bytes (its name when they say nothing)."""
    for magic, name in _COMPRESSED.items():
        if head.startswith(magic):
            return name
    return _SUFFIXES.get(os.path.splitext(path)[1].lower())


def compressed_by_name(path: str) -> bool:
    """Whether a file's name ends in a compression suffix (``.gz``, ``.zst``, ...)."""
    return os.path.splitext(path.lower())[1] in _SUFFIXES


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of a zstd file of one or more frames; a last frame without its
    end raises ``TruncatedStream`` (a stream reader would end there silently)."""

    def __init__(self, raw: IO[bytes]) -> None:
        try:
            import zstandard
        except ImportError as exc:
            raise MissingExtraError("reading zstd-compressed rows", "rows") from exc
        self._zstd = zstandard
        self._raw = raw
        self._inner = zstandard.ZstdDecompressor().decompressobj()
        self._pending = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        while not self._pending and not self._done:
            chunk = self._raw.read(_CHUNK)
            if not chunk:
                if not self._inner.eof and self._started:
                    raise TruncatedStream("the zstd stream ends inside a frame")
                self._done = True
                break
            self._feed(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    _started = False

    def _feed(self, chunk: bytes) -> None:
        while chunk:
            self._started = True
            out = self._inner.decompress(chunk)
            self._pending += out
            if self._inner.eof:
                chunk = self._inner.unused_data
                self._inner = self._zstd.ZstdDecompressor().decompressobj()
                self._started = False
            else:
                chunk = b""


def open_binary(path: str) -> IO[bytes]:
    """The file's bytes, decompressed as they are read (closing it closes the file)."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    kind = compression_of(path, head)
    stream: Any
    if kind == "gzip":
        stream = gzip.open(path, "rb")  # noqa: SIM115
    elif kind == "bz2":
        stream = bz2.open(path, "rb")  # noqa: SIM115
    elif kind == "xz":
        stream = lzma.open(path, "rb")  # noqa: SIM115
    elif kind == "zstd":
        stream = io.BufferedReader(_ZstdFrames(open(path, "rb")), _CHUNK)  # noqa: SIM115
    else:
        stream = open(path, "rb")  # noqa: SIM115 (closed by the caller)
    opened: IO[bytes] = stream
    return opened


# What reading a truncated or damaged stream raises (after every byte before the damage).
EOF_ERRORS = (EOFError, TruncatedStream, gzip.BadGzipFile, OSError, lzma.LZMAError)


def read_blocks(path: str) -> Iterator[bytes]:
    """The file's bytes, decompressed, a block at a time as decompression gives them (no copy
    through a buffered reader: that doubled the cost of reading zstd). Raises what
    ``open_binary``'s stream raises for a truncated or damaged stream, after every byte
    before the damage."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if compression_of(path, head) != "zstd":
        with open_binary(path) as stream:
            read = getattr(stream, "read1", stream.read)
            while block := read(_CHUNK):
                yield block
        return
    try:
        import zstandard
    except ImportError as exc:
        raise MissingExtraError("reading zstd-compressed rows", "rows") from exc
    with open(path, "rb") as raw:
        inner = zstandard.ZstdDecompressor().decompressobj()
        started = False
        while chunk := raw.read(_CHUNK):
            while chunk:
                started = True
                out = inner.decompress(chunk)
                if out:
                    yield out
                if inner.eof:  # a frame ended: the next one, if any, starts here
                    chunk = inner.unused_data
                    inner = zstandard.ZstdDecompressor().decompressobj()
                    started = False
                else:
                    chunk = b""
        if started and not inner.eof:
            raise TruncatedStream("the zstd stream ends inside a frame")


def span_blocks(path: str, start: int, stop: int) -> Iterator[bytes]:
    """The bytes of the lines of an uncompressed file that begin at offsets ``[start,
    stop)``: from the first line start at or after ``start`` to the end of the line that holds
    byte ``stop - 1`` (the partitions of a Dask run, each line in exactly one)."""
    with open(path, "rb") as fh:
        at = 0
        if start > 0:
            fh.seek(start - 1)
            at = start - 1
            while True:  # the rest of the line that began before ``start``, passed over
                block = fh.read(_CHUNK)
                if not block:
                    return
                end = block.find(b"\n")
                if end >= 0:
                    at += end + 1
                    break
                at += len(block)
            fh.seek(at)
        left = stop - at
        last = b"\n"
        while left > 0:
            block = fh.read(min(_CHUNK, left))
            if not block:
                return
            left -= len(block)
            last = block[-1:]
            yield block
        if last == b"\n":
            return
        while block := fh.read(_CHUNK):  # the end of the last line begun in the span
            end = block.find(b"\n")
            if end >= 0:
                yield block[: end + 1]
                return
            yield block


