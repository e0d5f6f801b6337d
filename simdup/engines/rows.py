"""The engine for datasets of rows: runs of rows (``RowChunk``) become batches of columns.

A file is one document in a scan; a dataset file holds millions, so its rows travel to the
workers in chunks of ``CHUNK_ROWS`` as the parent reads them: JSON lines as stored (the
worker parses them, so that the parent only decompresses and splits lines), rows already read
from CSV and Parquet. A worker gives back a ``ChunkResult``: a ``FingerprintBatch`` of the
chunk's documents (``at``: their offsets in the chunk), every row that is no document with its
reason, and each row's id and keep-policy value. The parent holds a few chunks in flight, never
the dataset: what it keeps of a row is its columns.

The work is the same here and in the workers (``fingerprint_chunk``), with the processor a
scan uses, so a row's fingerprint is that of the same text in a file.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from ..document_table import FingerprintBatch
from ..params import SHORT_TEXT_CHARS, FeatureParams
from ..readers.chunking import NoRow, RowChunk, row_chunks
from ..readers.rows import RowOptions, parse_jsonl_line
from ..records import DecodedDocument, FingerprintedDocument, SkippedFile
from .base import BandLayout
from .batching import keyed
from .local import default_jobs
from .workerpool import WorkerState as WorkerState  # the state a verb's worker holds
from .workerpool import chunks_in_order

Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """What a worker made of a chunk: where its rows are (``file``, ``first_row``, ``lines``:
    -1 where a row has none), its documents as columns (``batch``; a row too short to
    fingerprint is among ``batch.skipped`` at stage ``features``), the rows that are no
    document (``batch.skipped`` at stage ``row``, keyed by nothing yet), each row's id (None:
    no id; a row that is no document has its id when one can be read) and keep-policy value
    (NaN: none)."""

    file: int
    first_row: int
    lines: np.ndarray
    batch: FingerprintBatch
    ids: list[str | None] | None
    orders: np.ndarray | None

    @property
    def count(self) -> int:
        return int(self.lines.size)


_STATE: WorkerState[tuple[Any, RowOptions]] = WorkerState("fingerprinting rows")


def init_row_worker(params: FeatureParams, options: RowOptions, words: bool = True) -> None:
    """The processor and row options ``fingerprint_chunk`` uses in this process; ``words``:
    its segmenter's dictionary loaded now (else when a row first needs it)."""
    from ..text.processor import processor_for

    _STATE.set((processor_for(params, words=words), options))


def may_hold_words(chunk: RowChunk, options: RowOptions) -> bool:
    """Whether a row of ``chunk`` may be long enough to be judged by its words: a text of
    ``SHORT_TEXT_CHARS`` characters or more (whitespace not yet collapsed; JSON lines parsed
    here, ~2 ms a chunk)."""
    for offset, item in enumerate(chunk.items):
        if isinstance(item, bytes):
            if len(item) < SHORT_TEXT_CHARS:  # a character takes a byte of its line at least
                continue
            line = int(chunk.lines[offset]) if chunk.lines is not None else 0
            parsed = parse_jsonl_line(item, line, options)
            if not isinstance(parsed, str) and len(parsed[0]) >= SHORT_TEXT_CHARS:
                return True
        elif isinstance(item, tuple) and len(item[0]) >= SHORT_TEXT_CHARS:
            return True
    return False


def order_value(value: Any) -> float:
    """A keep-policy value as a number (NaN when it is none: missing, not a number)."""
    if isinstance(value, bool) or value is None:
        return math.nan
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return math.nan
    return math.nan


def fingerprint_chunk(chunk: RowChunk, bands: BandLayout | None = None) -> ChunkResult:
    """The chunk's rows fingerprinted (in this process: a worker's, or the parent's)."""
    processor, options = _STATE.get()
    results: list[FingerprintedDocument | SkippedFile] = []
    ids: list[str | None] = []
    orders: list[float] = []
    for _, row in chunk.rows(options):
        if isinstance(row, NoRow):
            results.append(SkippedFile("", "row", row.reason))
            ids.append(row.id)  # the key of its skip record
            orders.append(math.nan)
            continue
        ids.append(row.id)
        orders.append(order_value(row.order))
        decoded = DecodedDocument("", row.text, "utf-8", "utf-8", 1.0, len(row.text))
        try:
            results.append(processor.document(decoded))
        except MemoryError:
            results.append(SkippedFile("", "internal", "out of memory while fingerprinting it"))
        except Exception as exc:  # one bad row never stops a run
            reason = f"internal error: {type(exc).__name__}: {exc}"
            results.append(SkippedFile("", "internal", reason))
    lines = chunk.line_numbers()
    return ChunkResult(
        chunk.file,
        chunk.first_row,
        lines,
        keyed(FingerprintBatch.pack(results), bands),
        ids if any(i is not None for i in ids) else None,
        np.array(orders, dtype=np.float64) if options.order_field else None,
    )


def _describe(chunk: RowChunk) -> str:
    return f"{len(chunk.items)} rows from row {chunk.first_row} of input {chunk.file}"


def row_chunks_in_order(
    work: Callable[[RowChunk], Result],
    chunks: Iterable[RowChunk],
    *,
    jobs: int | None,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...] = (),
) -> Iterator[Result]:
    """``work`` of each chunk of rows, in the chunks' order: by ``jobs`` worker processes
    (None: all cores) as the chunks are read, or in this process with one job or a single
    chunk (a pool would cost more than it saves). The one pool of every verb over rows
    (``dedup``, ``decon``, ``dedup --spans``): what a worker does with a chunk is the verb's,
    how chunks reach workers and come back in order is the engines'."""
    return chunks_in_order(work, chunks, jobs or default_jobs(), initializer=initializer,
                           initargs=initargs, describe=_describe)  # fmt: skip


def fingerprint_rows(
    chunks: Iterable[RowChunk],
    params: FeatureParams,
    options: RowOptions,
    *,
    jobs: int | None = None,
    bands: BandLayout | None = None,
) -> Iterator[ChunkResult]:
    """What ``chunks`` hold, fingerprinted, in their order: by ``jobs`` worker processes (None:
    all cores) as the chunks are read, or in this process with one job or a single chunk (a
    pool would cost more than it saves)."""
    # The dictionaries are loaded once here, before the workers fork (they share them), when
    # the first chunk has a row long enough to need them: a dataset of short rows never loads
    # the segmenter's (~0.13 s); a long row after the first chunk has each worker load it.
    stream = iter(chunks)
    first = next(stream, None)
    if first is None:
        return
    work = functools.partial(fingerprint_chunk, bands=bands)
    words = may_hold_words(first, options)
    yield from row_chunks_in_order(
        work, itertools.chain([first], stream), jobs=jobs, initializer=init_row_worker,
        initargs=(params, options, words),
    )  # fmt: skip


class RowEngine(Protocol):
    """The engine seam for datasets of rows: the rows of ``paths`` fingerprinted with
    ``params`` (band keys in ``bands`` instead of MinHash signatures), as ``ChunkResult``s in
    input order (``results``), or whatever a verb's ``work`` makes of each chunk, after
    ``initializer(*initargs)`` has set a worker's state (``chunk_results``: ``decon``,
    ``dedup --spans``); a file that cannot be read at all is added to ``skipped``. Engines
    differ only in where the rows are read and worked on, never in the result."""

    def results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        params: FeatureParams,
        bands: BandLayout | None,
        skipped: list[SkippedFile],
    ) -> Iterator[ChunkResult]: ...

    def chunk_results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        work: Callable[[RowChunk], Result],
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        skipped: list[SkippedFile],
    ) -> Iterator[Result]: ...


class LocalRowEngine:
    """Rows read here, a chunk at a time, and fingerprinted by ``jobs`` worker processes."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs

    def results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        params: FeatureParams,
        bands: BandLayout | None,
        skipped: list[SkippedFile],
    ) -> Iterator[ChunkResult]:
        chunks = _readable_chunks(paths, rows, skipped)
        return fingerprint_rows(chunks, params, rows, jobs=self.jobs, bands=bands)

    def chunk_results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        work: Callable[[RowChunk], Result],
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        skipped: list[SkippedFile],
    ) -> Iterator[Result]:
        chunks = _readable_chunks(paths, rows, skipped)
        return row_chunks_in_order(work, chunks, jobs=self.jobs, initializer=initializer,
                                   initargs=initargs)  # fmt: skip


def _readable_chunks(
    paths: Sequence[str], rows: RowOptions, skipped: list[SkippedFile]
) -> Iterator[RowChunk]:
    """The chunks of rows of ``paths``, read here; a file that cannot be read is added to
    ``skipped``."""
    for found in row_chunks(paths, rows):
        if isinstance(found, SkippedFile):
            skipped.append(found)
        else:
            yield found
