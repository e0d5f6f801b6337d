"""Rows in chunks and partitions: how a dataset is cut for the workers that fingerprint it.

The parent reads a dataset in ``RowChunk``s (``row_chunks``): runs of 1,024 consecutive rows of
one input, JSON lines as stored (the worker parses them) or rows read already (CSV, Parquet).
A Dask cluster's workers read ``RowPartition``s themselves (``row_partitions``): runs of
Parquet row groups, byte spans of an uncompressed JSON Lines file, or a whole file; a span's
rows and lines are counted first (``count_partition``), so that ``numbered`` can give each
partition the number of its first row and line, and ``partition_chunks`` gives the chunks a
read of the whole file gives. The rows themselves are read by ``readers.rows``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..records import SkippedFile, SkippedRow
from .rows import (
    Row,
    RowOptions,
    compression_of,
    delimited_rows,
    format_of,
    jsonl_line_id,
    jsonl_lines,
    parquet_rows,
    parse_jsonl_line,
)


@dataclass(frozen=True, slots=True)
class NoRow:
    """Why a row read by the parent is no document (a ``RowChunk`` item), and its id when it
    has one that can be read (its skip record is keyed by it, as a document is)."""

    reason: str
    id: str | None = None


# A row in a chunk: a JSON line as stored (the worker parses it), a row read already (its
# text, id and keep-policy value), or the reason it is no document.
ChunkItem = bytes | tuple[str, str | None, Any] | NoRow


@dataclass(frozen=True, slots=True)
class RowChunk:
    """Consecutive rows of one input (``file``: its index among the inputs), from row
    ``first_row`` of it, with the line of each (None: Parquet, or rows given in memory)."""

    file: int
    first_row: int
    items: list[ChunkItem]
    lines: list[int] | None

    def line_numbers(self) -> np.ndarray:
        """The line of each row as int64, -1 where a row has none (what a worker gives back)."""
        if self.lines is None:
            return np.full(len(self.items), -1, dtype=np.int64)
        return np.asarray(self.lines, dtype=np.int64)

    def row(self, offset: int, options: RowOptions) -> RowText | NoRow:
        """Row ``offset`` of the chunk decoded: its text, id and keep-policy value, or why it
        is no document with its id when one can be read (a JSON line is parsed here, in the
        worker). The one decoding of a chunk's rows for ``dedup``, ``decon`` and ``dedup
        --spans``."""
        item = self.items[offset]
        if isinstance(item, NoRow):
            return item
        if isinstance(item, bytes):
            line = self.lines[offset] if self.lines is not None else 0
            parsed = parse_jsonl_line(item, line, options)
            if isinstance(parsed, str):
                return NoRow(parsed, jsonl_line_id(item, options))
            return RowText(*parsed)
        return RowText(*item)

    def rows(self, options: RowOptions) -> Iterator[tuple[int, RowText | NoRow]]:
        """Every row of the chunk decoded (``row``), with its offset in the chunk."""
        for offset in range(len(self.items)):
            yield offset, self.row(offset, options)


@dataclass(frozen=True, slots=True)
class RowText:
    """A row that is a document, decoded: its text, id (None: no id field) and keep-policy
    value (None: none)."""

    text: str
    id: str | None
    order: Any


CHUNK_ROWS = 1024
CHUNK_BYTES = 4 << 20


def _chunked(
    file: int,
    items: Iterable[tuple[int | None, ChunkItem]],
    rows: int,
    size: int,
    first: int = 0,
) -> Iterator[RowChunk]:
    """``items`` (each with its line) in chunks of at most ``rows`` rows or about ``size``
    bytes, the first row numbered ``first``."""
    batch: list[ChunkItem] = []
    lines: list[int] = []
    held = 0
    for line, item in items:
        batch.append(item)
        lines.append(-1 if line is None else line)
        held += (
            len(item) if isinstance(item, bytes) else len(item[0]) if isinstance(item, tuple) else 0
        )
        if len(batch) >= rows or held >= size:
            yield RowChunk(file, first, batch, lines)
            first += len(batch)
            batch, lines, held = [], [], 0
    if batch:
        yield RowChunk(file, first, batch, lines)


def _file_items(
    path: str, kind: str, options: RowOptions
) -> Iterator[tuple[int | None, ChunkItem]]:
    """The rows of one file as chunk items with their lines."""
    if kind == "jsonl":
        return (
            (number, NoRow(line) if isinstance(line, str) else line)
            for number, line in jsonl_lines(path, options)
        )
    read = (
        parquet_rows(path, options)
        if kind == "parquet"
        else (delimited_rows(path, options, tabs=kind == "tsv"))
    )
    return _found_items(read)


def _found_items(read: Iterable[Row | SkippedFile]) -> Iterator[tuple[int | None, ChunkItem]]:
    for found in read:
        if isinstance(found, SkippedRow):
            yield found.line, NoRow(found.reason, found.id)
        elif isinstance(found, SkippedFile):
            yield None, NoRow(found.reason)
        else:
            yield found.line, (found.text, found.id, found.order)


def row_chunks(
    paths: Iterable[str],
    options: RowOptions,
    *,
    rows: int | None = None,
    size: int | None = None,
) -> Iterator[RowChunk | SkippedFile]:
    """The rows of dataset files in chunks, read as ``read_records`` reads them (the same
    rows, numbers and reasons; JSON lines are left for the worker to parse), and the record
    of each file that cannot be read at all."""
    for file, path in enumerate(paths):
        try:
            kind = format_of(path, options)
        except OSError as exc:
            yield SkippedFile(path, "read", exc.strerror or str(exc))
            continue
        items = _file_items(path, kind, options)
        yield from _chunked(file, items, rows or CHUNK_ROWS, size or CHUNK_BYTES)


@dataclass(frozen=True, slots=True)
class RowPartition:
    """A part of one input (``file``: its index) that a worker reads on its own: Parquet row
    groups ``[start, stop)``, the lines of an uncompressed JSON Lines file that begin at byte
    offsets ``[start, stop)``, or the whole file (``stop`` -1: a compressed stream or a CSV
    file cannot be cut). ``first_row`` and ``first_line`` number its first row and line
    (-1: not known yet; ``count_partition`` counts a JSON Lines span's rows and lines)."""

    file: int
    path: str
    kind: str
    start: int = 0
    stop: int = -1
    first_row: int = 0
    first_line: int = 1


PARTITION_BYTES = 64 << 20


def row_partitions(
    paths: Sequence[str], options: RowOptions, size: int = PARTITION_BYTES
) -> Iterator[RowPartition | SkippedFile]:
    """The partitions of dataset files, about ``size`` bytes each, in input order (see
    ``RowPartition``), and the record of each file that cannot be read at all."""
    for file, path in enumerate(paths):
        try:
            kind = format_of(path, options)
            with open(path, "rb") as fh:
                head = fh.read(8)
            total = os.path.getsize(path)
        except OSError as exc:
            yield SkippedFile(path, "read", exc.strerror or str(exc))
            continue
        whole = RowPartition(file, path, kind)
        if kind == "jsonl" and compression_of(path, head) is None and total > size:
            for start in range(0, total, size):
                first = 0 if start == 0 else -1
                yield RowPartition(file, path, kind, start, min(start + size, total), first,
                                   1 if start == 0 else -1)  # fmt: skip
        elif kind == "parquet":
            yield from _parquet_partitions(whole, options, size)
        else:
            yield whole


def _parquet_partitions(
    whole: RowPartition, options: RowOptions, size: int
) -> Iterator[RowPartition]:
    """Runs of row groups of about ``size`` bytes; the whole file when it cannot be read or
    lacks the text column (read whole, it gives the skip record a local run gives)."""
    try:
        import pyarrow.parquet as pq

        opened = pq.ParquetFile(whole.path)
        meta, names = opened.metadata, opened.schema_arrow.names
    except Exception:  # a damaged file, pyarrow missing: the whole file says why
        yield whole
        return
    if options.text_field.split(".")[0] not in names or meta.num_row_groups == 0:
        yield whole
        return
    start, held, first, row = 0, 0, 0, 0
    for group in range(meta.num_row_groups):
        held += meta.row_group(group).total_byte_size
        row += meta.row_group(group).num_rows
        if held >= size or group == meta.num_row_groups - 1:
            yield RowPartition(whole.file, whole.path, "parquet", start, group + 1, first, -1)
            start, held, first = group + 1, 0, row


def count_partition(part: RowPartition, options: RowOptions) -> tuple[int, int]:
    """The rows and lines of a JSON Lines span (blank lines are lines, not rows)."""
    counted: list[int] = []
    rows = sum(1 for _ in jsonl_lines(part.path, options, (part.start, part.stop), 1, counted))
    return rows, counted[0] if counted else 0


def is_span(part: RowPartition) -> bool:
    """A byte span of a JSON Lines file, numbered only once the spans before it are counted."""
    return part.kind == "jsonl" and part.stop >= 0


def numbered(
    parts: Sequence[RowPartition], counts: dict[int, tuple[int, int]]
) -> list[RowPartition]:
    """``parts`` (in input order) with the first row and line of each JSON Lines span, from
    the ``(rows, lines)`` counted in each span (``counts``, by position in ``parts``)."""
    out: list[RowPartition] = []
    row = line = 0
    for n, part in enumerate(parts):
        if n == 0 or parts[n - 1].file != part.file:
            row = line = 0
        if is_span(part):
            part = replace(part, first_row=row, first_line=line + 1)
            rows, lines = counts[n]
            row, line = row + rows, line + lines
        out.append(part)
    return out


def partition_chunks(
    part: RowPartition, options: RowOptions, *, rows: int | None = None, size: int | None = None
) -> Iterator[RowChunk]:
    """The rows of a partition in chunks, numbered as a read of the whole file numbers them
    (its ``first_row`` and ``first_line`` known)."""
    items: Iterable[tuple[int | None, ChunkItem]]
    if part.stop < 0:
        items = _file_items(part.path, part.kind, options)
    elif part.kind == "parquet":
        groups = range(part.start, part.stop)
        items = _found_items(parquet_rows(part.path, options, groups, part.first_row))
    else:
        span = (part.start, part.stop)
        items = (
            (number, NoRow(line) if isinstance(line, str) else line)
            for number, line in jsonl_lines(part.path, options, span, part.first_line)
        )
    return _chunked(part.file, items, rows or CHUNK_ROWS, size or CHUNK_BYTES, part.first_row)
