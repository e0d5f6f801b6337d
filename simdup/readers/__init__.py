"""Readers: the one place that turns a discovered file into documents.

A file's bytes are read once (``files.read_bytes``), its reader chosen by its first bytes with
the extension breaking ties (``reader_for``), and the reader yields the documents it holds
(``base.Reader``): one for a text file; none, one or many for other formats. One module per
format: ``pdf``, ``docx`` (Word), ``odt`` (OpenDocument), ``epub``, ``rtf``, ``html``, ``doc``
(Word 97-2003, through antiword), ``markdown`` (read as rendered), and ``plain`` for every
other file. Readers of complex
formats run in a child process within ``ReadLimits`` (``contained``): a hostile file costs
bounded time and memory and becomes a skip record. Their libraries are the ``docs`` extra,
imported when a file of theirs is read; without it such a file is a skip record naming the
``pip install`` line. Datasets of rows (JSON Lines, CSV, TSV, Parquet: a document a row) are
read by ``rows/``, one module a format too.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import InputError, MissingExtraError
from ..records import DecodedDocument, SkippedFile, SourceFile
from . import files
from .base import HEAD_BYTES, Reader, ReadLimits
from .discovery import DiscoveryOptions
from .doc import DocReader
from .docx import DocxReader
from .epub import EpubReader
from .html import HtmlReader
from .markdown import MarkdownReader
from .markup import FormatError
from .odt import OdtReader
from .pdf import PdfReader
from .plain import PlainTextReader
from .rtf import RtfReader

PLAIN_TEXT = PlainTextReader()
# The readers a file is offered to, in order (``reader_for``).
READERS: Sequence[Reader] = (
    PdfReader(), DocxReader(), OdtReader(), EpubReader(), RtfReader(), HtmlReader(),
    DocReader(), MarkdownReader(), PLAIN_TEXT,
)  # fmt: skip
# What reading one file may cost (``set_limits``; worker processes are given the parent's).
_LIMITS = ReadLimits()


def set_limits(limits: ReadLimits) -> None:
    """The read limits of this process (``--read-timeout``, ``--read-memory``)."""
    global _LIMITS
    _LIMITS = limits


def limits() -> ReadLimits:
    return _LIMITS


def set_limits_of(discovery: DiscoveryOptions) -> None:
    """The read limits of ``discovery`` (``read_timeout``, ``read_memory``) for this process and
    the worker processes it forks."""
    set_limits(ReadLimits(discovery.read_timeout, discovery.read_memory))


@functools.cache
def _installed_versions() -> dict[str, str]:
    """The installed distributions' versions by normalised name, from the names of the
    ``*.dist-info`` folders on ``sys.path`` (``lxml-6.1.3.dist-info``): a directory listing,
    where ``importlib.metadata`` would cost a rescan answered from the cache ~30 ms of imports.
    The first of a name on the path wins, as for imports."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                project, _, version = name[: -len(".dist-info")].partition("-")
                found.setdefault(_normalised(project), version)
    return found


def _normalised(project: str) -> str:
    return re.sub(r"[-_.]+", "-", project).lower()


def installed_version(library: str) -> str | None:
    """The installed version of the distribution ``library``, None when it is not installed:
    from the ``*.dist-info`` folders on ``sys.path`` (``_installed_versions``), else
    ``importlib.metadata`` (an egg, a zip)."""
    version = _installed_versions().get(_normalised(library))
    if version is not None:
        return version
    import importlib.metadata  # rare: costs its imports

    try:
        return importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def readers_description() -> dict[str, str]:
    """What makes the texts fingerprints are computed from: each reader's version and the
    installed versions of its libraries (``"pdf": "1 (pypdfium2 5.15.2)"``). Reported in every
    report's settings and part of the scan cache's key, so that an upgraded PDF library never
    mixes its fingerprints with the old one's."""
    installed = _installed_versions()
    described = {}
    for reader in READERS:
        found = []
        for library in reader.libraries:
            version = installed.get(_normalised(library))
            if version is None:
                import importlib.metadata  # rare: an egg, a zip; costs its imports

                try:
                    version = importlib.metadata.version(library)
                except importlib.metadata.PackageNotFoundError:
                    version = "missing"
            found.append(f"{library} {version}")
        described[reader.name] = f"{reader.version} ({', '.join(found)})" if found else (
            reader.version
        )
    return described


def readers_key() -> str:
    """``readers_description`` as one string, for keys."""
    return json.dumps(readers_description(), sort_keys=True)


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


def _rarity(byte: int) -> int:
    """How seldom a byte stands in text (lower: rarer): control bytes, then symbols, then the
    rest (letters, digits, spaces and common punctuation)."""
    if byte < 0x20 and byte not in b"\t\n\r":
        return 0
    if byte in b"%{}\\<>|~^`@#$\x7f":
        return 1
    return 2


@functools.cache
def _dispatch(
    offered: tuple[Reader, ...],
) -> tuple[tuple[tuple[bytes, bytes], ...], dict[str, Reader]]:
    """What ``reader_for`` asks of ``offered`` for every file: the marks any of them needs to
    claim a file by its content, each behind its rarest byte (a one-byte search, ``memchr``,
    is several times faster than a search for the mark: most texts hold no ``%`` or ``{``,
    and only binaries a control byte), and the first reader each extension names."""
    marks = tuple(dict.fromkeys(mark for reader in offered for mark in reader.marks))
    gated = tuple((bytes([min(mark, key=_rarity)]), mark) for mark in marks)
    by_suffix: dict[str, Reader] = {}
    for reader in offered:
        for extension in reader.extensions:
            by_suffix.setdefault(extension, reader)
    return gated, by_suffix


def reader_for(path: str, head: bytes, readers: Sequence[Reader] | None = None) -> Reader:
    """The reader for a file named ``path`` that starts with ``head``: the one whose format
    the first bytes show (where several do, the one the extension names, else the first);
    with none, the first that the extension names; else the plain-text reader."""
    offered = READERS if readers is None else readers
    marks, by_suffix = _dispatch(offered if isinstance(offered, tuple) else tuple(offered))
    for gate, mark in marks:
        if gate in head and mark in head:
            break
    else:  # no reader can claim these bytes (asking each took ~3.5 us a file)
        return by_suffix.get(_suffix(path), PLAIN_TEXT) if by_suffix else PLAIN_TEXT
    by_content = [r for r in offered if r.marks and r.sniff(head)]
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
    reader = reader_for(path, head)
    if not reader.contained:
        return iter(reader.read(path, data, hint))
    return iter(_read_bounded(reader, path, data, hint))


# The modules each contained reader imports, imported in the reading process before its first
# child is forked: the children inherit them instead of importing them again for every file
# (lxml ~20 ms, pypdfium2 ~40 ms a child: more than reading most files takes).
_PRELOAD = {
    "pdf": ("pypdfium2",), "docx": ("lxml.etree",), "odt": ("lxml.etree",),
    "epub": ("lxml.etree", "lxml.html"), "html": ("lxml.etree", "lxml.html"),
    "rtf": ("striprtf.striprtf",),
}  # fmt: skip


@functools.cache
def _preload(name: str) -> None:
    for module in _PRELOAD.get(name, ()):
        # Missing: the reader says so (a skip record naming the extra).
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


if TYPE_CHECKING:
    from .contained import ReadingProcess

# The reading child of this process's reading session (``reading_session``), if one is open,
# and the process that opened it: a process forked while one is open (a worker reading files
# too) starts its own (``_session``), two processes never writing to one child's pipe.
_SESSION: ReadingProcess | None = None
_SESSION_PID = 0


def _serve(request: tuple[str, str, bytes, str | None]) -> list[DecodedDocument | SkippedFile]:
    """In a reading child: one file read by the reader named in ``request``."""
    name, path, data, hint = request
    reader = next(r for r in READERS if r.name == name)
    return list(reader.read(path, data, hint))


@contextlib.contextmanager
def reading_session() -> Iterator[None]:
    """Within it, files of the contained readers' formats are read by one child process, file
    after file (``contained.ReadingProcess``), not a child forked for each; the child is
    stopped at its end. Nested sessions share the outer one's child."""
    global _SESSION, _SESSION_PID
    if _SESSION is not None:
        yield
        return
    from .contained import ReadingProcess

    _SESSION, _SESSION_PID = ReadingProcess(_serve), os.getpid()
    try:
        yield
    finally:
        session, _SESSION = _SESSION, None
        if os.getpid() == _SESSION_PID:
            session.close()


def open_reading_session() -> None:
    """A reading session for the rest of this process's life (a worker process: its child
    sees the end of its pipe and ends when the worker does)."""
    global _SESSION, _SESSION_PID
    if _SESSION is None or os.getpid() != _SESSION_PID:
        from .contained import ReadingProcess

        _SESSION, _SESSION_PID = ReadingProcess(_serve), os.getpid()


def _session() -> ReadingProcess | None:
    """This process's reading child, if a session is open: in a process forked within one, a
    child of its own for the rest of its life (``open_reading_session``)."""
    if _SESSION is not None and os.getpid() != _SESSION_PID:
        open_reading_session()
    return _SESSION


def _read_bounded(
    reader: Reader, path: str, data: bytes, hint: str | None
) -> list[DecodedDocument | SkippedFile]:
    """``reader.read`` in a child process within the read limits (the session's, else one
    forked for this file); what goes wrong is a skip record with the reason."""
    from .contained import ReadFailed, read_contained  # here: a scan of text files needs none

    _preload(reader.name)
    try:
        session = _session()
        if session is not None:
            found: list[DecodedDocument | SkippedFile] = session.call(
                (reader.name, path, data, hint), _LIMITS
            )
            return found
        return read_contained(lambda: list(reader.read(path, data, hint)), _LIMITS)
    except ReadFailed as exc:
        reason = exc.reason
        if reason.startswith(("FormatError: ", "MissingExtraError: ")):
            reason = reason.partition(": ")[2]
        return [SkippedFile(path, "decode", f"{reader.name.upper()}: {reason}")]
    except (FormatError, MissingExtraError) as exc:  # in place, where there is no fork
        return [SkippedFile(path, "decode", f"{reader.name.upper()}: {exc}")]


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
