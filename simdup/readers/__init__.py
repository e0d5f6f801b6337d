"""Readers: the one place that turns a discovered file into documents.

A file's bytes are read once (``files.read_bytes``), its reader chosen by its first bytes with
the extension breaking ties (``reader_for``), and the reader yields the documents it holds
(``base.Reader``): one for a text file; none, one or many for other formats. Today every file is
read by the plain-text reader (``plain``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..errors import InputError
from ..records import DecodedDocument, SkippedFile, SourceFile
from . import files
from .base import HEAD_BYTES, Reader
from .plain import PlainTextReader

PLAIN_TEXT = PlainTextReader()
# The readers a file is offered to, in order (``reader_for``).
READERS: Sequence[Reader] = (PLAIN_TEXT,)

__all__ = [
    "HEAD_BYTES",
    "PLAIN_TEXT",
    "READERS",
    "Reader",
    "document_of",
    "documents_of",
    "read_document",
    "read_documents",
    "read_named",
    "reader_for",
]


def _suffix(path: str) -> str:
    """The extension of ``path``, lower case with its dot ("" without one)."""
    name = path.rpartition("/")[2].rpartition("\\")[2]
    stem, dot, ext = name.rpartition(".")
    return "." + ext.lower() if dot and stem and ext else ""


def reader_for(path: str, head: bytes, readers: Sequence[Reader] | None = None) -> Reader:
    """The reader for a file named ``path`` that starts with ``head``: the one whose format
    the first bytes show (where several do, the one the extension names, else the first);
    with none, the first that the extension names; else the plain-text reader."""
    offered = READERS if readers is None else readers
    by_content = [r for r in offered if r.sniff(head)]
    if len(by_content) == 1:
        return by_content[0]
    suffix = None  # found only when a reader has extensions to match
    for reader in by_content or offered:
        if reader.extensions:
            suffix = _suffix(path) if suffix is None else suffix
            if suffix in reader.extensions:
                return reader
    return by_content[0] if by_content else PLAIN_TEXT


def documents_of(
    path: str, data: bytes, hint: str | None = None
) -> Iterator[DecodedDocument | SkippedFile]:
    """The documents in the bytes ``data`` of the file at ``path`` (read already: a URL's
    bytes, standard input)."""
    head = data if len(data) <= HEAD_BYTES else data[:HEAD_BYTES]
    return iter(reader_for(path, head).read(path, data, hint))


def read_documents(
    source: SourceFile | str, max_size: int, hint: str | None = None
) -> Iterator[DecodedDocument | SkippedFile]:
    """The documents of one file (at most ``max_size`` bytes read), or the record of why it
    could not be read. A ``str`` is a path the user named (links followed)."""
    path = source if isinstance(source, str) else source.path
    data = files.read_or_skip(source, max_size)
    if isinstance(data, SkippedFile):
        return iter((data,))
    return documents_of(path, data, hint)


def document_of(
    path: str, found: Iterable[DecodedDocument | SkippedFile]
) -> DecodedDocument | SkippedFile:
    """A file read as one document (what a scan's engines take, one record a file): its
    document, the first skip record when it has none, or a skip record when it holds many."""
    found = iter(found)
    first = next(found, None)
    if first is None:
        return SkippedFile(path, "read", "no documents in it")
    second = next(found, None)
    if second is None:
        return first
    count = 2 + sum(1 for _ in found)
    return SkippedFile(path, "read", f"holds {count} documents, not one")


def read_document(
    source: SourceFile | str, max_size: int, hint: str | None = None
) -> DecodedDocument | SkippedFile:
    """``document_of(read_documents(...))``: one file as one document, any failure a
    ``SkippedFile`` (never an exception from the file itself)."""
    path = source if isinstance(source, str) else source.path
    return document_of(path, read_documents(source, max_size, hint))


def read_named(path: str, max_size: int, stdin: bytes | None = None) -> DecodedDocument:
    """A file the user named (``compare``) as one document, or ``InputError`` with the reason
    it cannot be used. ``"-"`` with ``stdin`` is the bytes read from standard input."""
    if path == "-" and stdin is not None:
        found = document_of(path, documents_of(path, stdin))
    else:
        found = read_document(path, max_size)
    if isinstance(found, SkippedFile):
        raise InputError(path, found.reason)
    return found
