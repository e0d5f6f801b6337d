"""The step every engine runs per source: read it with its reader, fingerprint its text, and
turn any failure into a skip record.

The text layer fingerprints texts (``text.processor.DocumentProcessor``); reading a file is the
readers' (``simdup.readers``); this puts the two together for the engines (serial, pool, Dask),
the index and ``hash``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import xxhash

from ..readers import document_of, documents_of
from ..readers.files import read_or_skip
from ..records import DecodedDocument, FingerprintedDocument, SkippedFile, SourceFile
from ..text.processor import DocumentProcessor, is_too_short

T = TypeVar("T")
Record = FingerprintedDocument | SkippedFile


def fingerprint_source(
    processor: DocumentProcessor,
    source: SourceFile,
    max_size: int,
    task: Callable[[DecodedDocument], T] | None = None,
) -> tuple[Record, T | None, bytes]:
    """One file, read once: its fingerprint (read by its reader, ``simdup.readers``) or the
    record of why it has none; ``task(document)`` of its decoded document when it was
    fingerprinted (None otherwise, or when the task runs out of memory: the record still
    stands); and the xxh3-128 of its bytes (``b""`` when they could not be read), by which the
    scan cache knows the file again. One bad file never stops a run: even an unexpected error
    (a bug, memory exhausted by one huge text) becomes a skip record of stage ``internal``,
    which ``--strict`` counts."""
    path = source.path
    data = read_or_skip(source, max_size)
    if isinstance(data, SkippedFile):
        return data, None, b""
    digest = xxhash.xxh3_128_digest(data)
    document: DecodedDocument | None = None

    def decode() -> DecodedDocument | SkippedFile:
        nonlocal document
        decoded = document_of(path, documents_of(path, data))
        if task is not None and not isinstance(decoded, SkippedFile):
            document = decoded
        return decoded

    result = _guarded(processor, path, decode)
    if task is None or document is None:
        return result, None, digest
    if isinstance(result, SkippedFile) and not is_too_short(result):
        # A text with nothing to judge still goes to the task, which decides for itself.
        return result, None, digest
    try:
        return result, task(document), digest
    except MemoryError:
        return result, None, digest


def fingerprint_file(processor: DocumentProcessor, source: SourceFile, max_size: int) -> Record:
    """``fingerprint_source`` without a task: the file's record."""
    return fingerprint_source(processor, source, max_size)[0]


def fingerprint_bytes(processor: DocumentProcessor, path: str, data: bytes) -> Record:
    """``fingerprint_file`` for bytes already read (standard input, a file behind an fsspec
    URL read by a worker)."""
    return _guarded(processor, path, lambda: document_of(path, documents_of(path, data)))


def _guarded(
    processor: DocumentProcessor, path: str, decode: Callable[[], DecodedDocument | SkippedFile]
) -> Record:
    try:
        decoded = decode()
        if isinstance(decoded, SkippedFile):
            return decoded
        return processor.document(decoded)
    except MemoryError:
        return SkippedFile(path, "internal", "out of memory while fingerprinting it")
    except Exception as exc:
        reason = f"internal error: {type(exc).__name__}: {exc}"
        return SkippedFile(path, "internal", reason)
