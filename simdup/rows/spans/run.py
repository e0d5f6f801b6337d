"""``dedup_spans``: repeated spans (paragraphs, lines, runs of sentences) removed from every
row but the first that has them.

The rows are read once in chunks (``readers.chunking``) and cut into units and windows
(``units``) by the workers of a row engine (``worker``: local processes, or a Dask cluster's
workers reading their own partitions); the parent keeps, per window, its digest
(XXH3-128 of its units' comparison forms: two 64-bit words, no Python object per span) and
where it is, in dataset order: the inputs in the order given, rows in file order, units in
text order. Then, all at once (a stable sort of the digests), each window's first occurrence
is known; every later occurrence is removed, unit by unit, each unit paired with the unit it
repeats in the first occurrence. So the kept copy is the first in dataset order, the same
whatever the number of workers, and every unit's first occurrence stays: a removed unit always
has its kept twin (same comparison form) earlier in the dataset.

Then the inputs are read again and written as ``dedup`` writes (``writers.rows``): a row with
nothing removed byte for byte; a row with spans removed with its text field changed (its
other fields as they were); a row whose every unit was removed (nothing but whitespace left)
is not written (``removed`` lists it) unless ``annotate``, which writes every row unchanged
with ``repeated_spans`` (the removed characters, ``start:end``) added. An input that changed
between the two reads stops the run (``InputChangedError``); a truncated or damaged input
raises ``DamagedInputError`` unless ``accept_damaged``; a row that is no document is a skip
record (not written, listed in ``removed``), never a stopped run.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from ...engines.base import Progress
from ...engines.rows import LocalRowEngine, RowEngine
from ...errors import ConfigError, InputChangedError
from ...params import MARKUPS
from ...readers.files import file_state
from ...readers.rows import RowOptions, damage_error, skipped_place
from ...records import SkippedFile, SkippedRow
from ...writers.base import Kept, skipped_note
from ...writers.output import output_file
from ...writers.rows import write_rows, written_format
from .units import DEFAULT_MIN_SPAN_CHARS, UNITS, cut, removed_runs
from .worker import ChunkSpans, init_spans_worker, spans_chunk

# Characters of a removed span's text given in its record.
RECORD_TEXT = 200
ANNOTATION_COLUMNS = (("repeated_spans", "strings"),)
EMPTIED = "every span of its text repeats an earlier one: nothing is left"


class _Columns:
    """Arrays appended chunk by chunk, joined once."""

    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []

    def add(self, values: np.ndarray) -> None:
        if values.size:
            self.parts.append(values)

    def join(self, dtype: Any, shape: tuple[int, ...] = (0,)) -> np.ndarray:
        joined = np.concatenate(self.parts) if self.parts else np.empty(shape, dtype)
        self.parts = []
        return joined.astype(dtype, copy=False)


@dataclass
class SpanTable:
    """Every row with units, every unit and every window, in dataset order.

    Rows: ``file``, ``row`` (0-based), ``line`` (1-based, -1: none), ``ids`` (None: no id),
    ``base`` (its first unit) and ``units``; units: ``starts``, ``ends`` (characters of its
    row's text) and ``breaks`` (line breaks after the unit before); windows: ``first`` and
    ``last`` unit and ``hashes`` (XXH3-128). Decided: ``twin`` per unit, the unit it
    repeats (-1: kept)."""

    file: np.ndarray
    row: np.ndarray
    line: np.ndarray
    ids: list[str | None]
    base: np.ndarray
    units: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    breaks: np.ndarray
    first: np.ndarray
    last: np.ndarray
    hashes: np.ndarray
    twin: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def row_of_unit(self, unit: int) -> int:
        return int(np.searchsorted(self.base, unit, "right")) - 1

    @property
    def nbytes(self) -> int:
        arrays = (self.file, self.row, self.line, self.base, self.units, self.starts, self.ends,
                  self.breaks, self.first, self.last, self.hashes, self.twin)
        return sum(a.nbytes for a in arrays)  # fmt: skip


def first_occurrences(hashes: np.ndarray) -> np.ndarray:
    """For each digest (rows of two uint64), the index of the first row with the same digest
    (a stable sort: ties stay in index order)."""
    n = hashes.shape[0]
    if n == 0:
        return np.empty(0, np.int64)
    order = np.lexsort((hashes[:, 1], hashes[:, 0]))
    ranked = hashes[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = (ranked[1:, 0] != ranked[:-1, 0]) | (ranked[1:, 1] != ranked[:-1, 1])
    group = np.cumsum(starts) - 1
    leaders = order[starts]
    first = np.empty(n, dtype=np.int64)
    first[order] = leaders[group]
    return first


def twins(first: np.ndarray, last: np.ndarray, hashes: np.ndarray, units: int) -> np.ndarray:
    """Per unit, the unit it repeats (-1: none): each window that is not the first with its
    digest pairs its units, in order, with those of the first; a unit in several such windows
    takes the earliest window's pairing."""
    leader = first_occurrences(hashes)
    later = np.flatnonzero(leader != np.arange(leader.size))
    twin = np.full(units, -1, dtype=np.int64)
    if later.size == 0:
        return twin
    sizes = (last[later] - first[later] + 1).astype(np.int64)
    step = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    removed = np.repeat(first[later], sizes) + step
    kept = np.repeat(first[leader[later]], sizes) + step
    at = np.argsort(removed, kind="stable")  # windows are in dataset order: earliest first
    chosen, where = np.unique(removed[at], return_index=True)
    twin[chosen] = kept[at][where]
    return twin


@dataclass
class SpansResult:
    """What ``dedup_spans`` did: the table it decided on, counts, the rows that are no
    documents (``skipped``), settings and the rows written."""

    inputs: list[str]
    unit: str
    min_chars: int
    rows: RowOptions
    markup: str = "none"
    table: SpanTable | None = None
    rows_read: int = 0
    documents: int = 0
    rows_changed: int = 0
    rows_emptied: int = 0
    spans_removed: int = 0
    units_removed: int = 0
    chars_removed: int = 0
    written: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    unreadable: list[dict[int, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        table = self.table
        return {
            "unit": self.unit,
            "min_span_chars": self.min_chars,
            "markup": self.markup,
            "rows_read": self.rows_read,
            "documents": self.documents,
            "units": int(table.starts.size) if table is not None else 0,
            "windows": int(table.hashes.shape[0]) if table is not None else 0,
            "rows_changed": self.rows_changed,
            "rows_emptied": self.rows_emptied,
            "spans_removed": self.spans_removed,
            "units_removed": self.units_removed,
            "chars_removed": self.chars_removed,
            "rows_skipped": len(self.skipped),
            "rows_written": self.written,
            "seconds": self.seconds,
        }


def _read(
    result: SpansResult,
    unit: str,
    min_chars: int,
    engine: RowEngine,
    progress: Progress | None,
) -> SpanTable:
    """The first read: every row cut into units and windows, kept as columns."""
    inputs, rows = result.inputs, result.rows
    row_cols = [_Columns() for _ in range(5)]  # file, row, line, base, units
    unit_cols = [_Columns() for _ in range(3)]
    window_cols = [_Columns() for _ in range(3)]
    ids: list[str | None] = []
    units_so_far = 0

    setup = (unit, min_chars, rows, result.markup)
    found = engine.chunk_results(inputs, rows, spans_chunk, init_spans_worker, setup,
                                 result.skipped)  # fmt: skip
    for got in found:
        _skips(result, got)
        result.rows_read += got.count
        result.documents += got.documents
        n = int(got.offsets.size)
        if n:
            counts = got.units.astype(np.int64)
            base = units_so_far + np.cumsum(counts) - counts
            row_cols[0].add(np.full(n, got.file, dtype=np.int32))
            row_cols[1].add(got.first_row + got.offsets.astype(np.int64))
            row_cols[2].add(got.lines[got.offsets])
            row_cols[3].add(base)
            row_cols[4].add(got.units)
            ids.extend(got.ids)
            for column, values in zip(unit_cols, (got.starts, got.ends, got.breaks),
                                      strict=True):  # fmt: skip
                column.add(values)
            shift = np.repeat(base, got.windows.astype(np.int64))
            window_cols[0].add(got.first + shift)
            window_cols[1].add(got.last + shift)
            window_cols[2].add(got.hashes)
            units_so_far += int(counts.sum())
        if progress is not None:
            progress(result.rows_read, 0)
    offsets = np.int64 if any(p.dtype == np.int64 for p in unit_cols[0].parts) else np.int32
    return SpanTable(
        file=row_cols[0].join(np.int32),
        row=row_cols[1].join(np.int64),
        line=row_cols[2].join(np.int64),
        ids=ids if any(i is not None for i in ids) else [],
        base=row_cols[3].join(np.int64),
        units=row_cols[4].join(np.int32),
        starts=unit_cols[0].join(offsets),
        ends=unit_cols[1].join(offsets),
        breaks=unit_cols[2].join(offsets),
        first=window_cols[0].join(np.int64),
        last=window_cols[1].join(np.int64),
        hashes=window_cols[2].join(np.uint64, (0, 2)),
    )


def _skips(result: SpansResult, got: ChunkSpans) -> None:
    path = result.inputs[got.file]
    for offset, reason, ident in got.skipped:
        row = got.first_row + offset
        result.unreadable[got.file][row] = reason
        line = int(got.lines[offset])
        result.skipped.append(SkippedRow.of(path, row, reason, line, ident))


class _Writer:
    """The second read's side: which rows change, their new text, and their records."""

    def __init__(self, result: SpansResult, table: SpanTable, records: IO[bytes] | None,
                 annotate: bool) -> None:  # fmt: skip
        self.result, self.table, self.records, self.annotate = result, table, records, annotate
        removed = table.twin >= 0
        per_row = (
            np.add.reduceat(removed.astype(np.int64), table.base)
            if table.base.size
            else np.empty(0, np.int64)
        )
        changed = np.flatnonzero(per_row > 0)
        self.emptied = set(np.flatnonzero(per_row == table.units).tolist()) & set(
            changed.tolist()
        )
        result.rows_changed = int(changed.size)
        result.rows_emptied = len(self.emptied)
        result.units_removed = int(removed.sum())
        files = len(result.inputs)
        self.changed_rows = [table.row[changed[table.file[changed] == f]] for f in range(files)]
        self.changed_index = [changed[table.file[changed] == f] for f in range(files)]

    def index(self, f: int, row: int) -> int | None:
        rows = self.changed_rows[f]
        at = int(np.searchsorted(rows, row))
        if at < rows.size and int(rows[at]) == row:
            return int(self.changed_index[f][at])
        return None

    def rewrite(self, f: int, row: int) -> Callable[[str], str | None] | None:
        r = self.index(f, row)
        if r is None:
            return None
        return lambda text: self._change(r, text)

    def runs(self, r: int) -> list[tuple[int, int, int, int]]:
        """The removed units of row ``r`` as runs of consecutive units (first and last unit,
        first character cut and the one after the last), each cut with one separator
        (``text.spans.removed_runs``)."""
        t = self.table
        base, n = int(t.base[r]), int(t.units[r])
        return removed_runs(
            t.starts[base : base + n].tolist(), t.ends[base : base + n].tolist(),
            t.breaks[base : base + n].tolist(), (t.twin[base : base + n] >= 0).tolist(),
        )  # fmt: skip

    def intervals(self, r: int) -> list[tuple[int, int]]:
        """The characters removed from row ``r``."""
        return [(a, b) for _, _, a, b in self.runs(r)]

    def pieces(
        self, r: int, runs: list[tuple[int, int, int, int]]
    ) -> list[tuple[int, int, int, int]]:
        """The removed runs of row ``r`` split where their twins do not follow on in one row,
        so that each piece repeats one span: (first and last unit, global; the characters it
        cuts: the pieces of a run share its characters out, end to end)."""
        t = self.table
        base = int(t.base[r])
        twin = t.twin
        out: list[tuple[int, int, int, int]] = []
        for i, j, a, b in runs:
            first, start = base + i, a
            for u in range(base + i + 1, base + j + 2):
                if u <= base + j and int(twin[u]) == int(twin[u - 1]) + 1 and \
                        t.row_of_unit(int(twin[u])) == t.row_of_unit(int(twin[u - 1])):  # fmt: skip
                    continue
                end = b if u > base + j else int(t.starts[u])
                out.append((first, u - 1, start, end))
                first, start = u, end
        return out

    def notes(self, f: int, row: int) -> dict[str, Any]:
        reason = self.result.unreadable[f].get(row)
        if reason is not None:
            return skipped_note(ANNOTATION_COLUMNS, reason)
        r = self.index(f, row)
        return {"repeated_spans": [] if r is None else
                [f"{a}:{b}" for a, b in self.intervals(r)]}  # fmt: skip

    def _place(self, r: int) -> dict[str, Any]:
        t = self.table
        path = self.result.inputs[int(t.file[r])]
        row = int(t.row[r])
        ident = t.ids[r] if t.ids else None
        line = int(t.line[r])
        return {"key": ident if ident is not None else f"{path}#{row}", "file": path, "row": row,
                "line": line if line >= 0 else None}  # fmt: skip

    def _change(self, r: int, text: str) -> str | None:
        t = self.table
        whole = self.runs(r)
        new = cut(text, [(a, b) for _, _, a, b in whole])
        self.result.chars_removed += len(text) - len(new)
        runs = self.pieces(r, whole)
        self.result.spans_removed += len(runs)
        if self.records is not None:
            place = self._place(r)
            for a, b, removed_from, removed_to in runs:
                start, end = int(t.starts[a]), int(t.ends[b])
                span = text[start:end]
                ka, kb = int(t.twin[a]), int(t.twin[b])
                kept_row = t.row_of_unit(ka)
                record = {
                    **place,
                    "start": removed_from,
                    "end": removed_to,
                    "span_start": start,
                    "span_end": end,
                    "units": b - a + 1,
                    "text": span if len(span) <= RECORD_TEXT else span[:RECORD_TEXT] + "…",
                    "kept": {**self._place(kept_row), "span_start": int(t.starts[ka]),
                             "span_end": int(t.ends[kb])},
                }  # fmt: skip
                self.records.write(json.dumps(record, ensure_ascii=False).encode() + b"\n")
            if r in self.emptied:
                record = {**place, "emptied": True, "written": self.annotate, "reason": EMPTIED}
                self.records.write(json.dumps(record, ensure_ascii=False).encode() + b"\n")
        if self.annotate:
            return text
        return None if r in self.emptied else new


def dedup_spans(
    inputs: Sequence[str],
    output: str,
    *,
    unit: str = "paragraph",
    min_chars: int = DEFAULT_MIN_SPAN_CHARS,
    markup: str = "none",
    rows: RowOptions | None = None,
    removed: str | None = None,
    annotate: bool = False,
    jobs: int | None = None,
    engine: RowEngine | None = None,
    progress: Progress | None = None,
    accept_damaged: bool = False,
    stage: Callable[[str], None] | None = None,
) -> SpansResult:
    """Write the rows of ``inputs`` (JSON Lines, CSV, TSV, compressed or not, or Parquet) to
    ``output`` in their format with every repeated span (``unit``: ``paragraph``, ``line`` or
    ``substring``, a run of whole sentences; at least ``min_chars`` characters of comparison
    form) removed from every occurrence but the first in dataset order; ``removed``: a JSON
    line per removed span (where, its text, the kept occurrence), per emptied row and per row
    that is no document. ``annotate``: every row as it was, with ``repeated_spans`` added.
    Units are compared as written unless ``markup`` (``markdown``, ``html``) names what the
    rows hold: then without it. The rows are cut into units by ``engine`` (default: ``jobs``
    local worker processes; a ``distributed.DaskRowEngine``: the workers of a Dask cluster),
    with the same result."""
    if unit not in UNITS:
        raise ConfigError(f"unknown span unit {unit!r} ({', '.join(UNITS)})")
    if min_chars < 1:
        raise ConfigError("the minimum span length must be at least 1 character")
    if markup not in MARKUPS:
        raise ConfigError(f"unknown markup {markup!r} (choose from {', '.join(MARKUPS)})")
    rows = rows or RowOptions()
    inputs = list(inputs)
    kind = written_format(inputs, rows, output)
    if kind == "parquet" and "." in rows.text_field:
        raise ConfigError("--spans with Parquet needs a top-level text column (not a dotted path)")
    result = SpansResult(inputs, unit, min_chars, rows, markup)
    result.unreadable = [{} for _ in inputs]
    before = {path: file_state(path) for path in inputs}
    started = time.perf_counter()
    table = _read(result, unit, min_chars, engine or LocalRowEngine(jobs), progress)
    read = time.perf_counter()
    for path in inputs:
        if file_state(path) != before[path]:
            raise InputChangedError(f"{path} changed while its spans were being deduplicated")
    if not accept_damaged:
        damage = damage_error(result.skipped)
        if damage is not None:
            raise damage
    if stage is not None:
        stage("deciding")
    table.twin = twins(table.first, table.last, table.hashes, int(table.starts.size))
    result.table = table
    decided = time.perf_counter()
    if stage is not None:
        stage("writing")
    with contextlib.ExitStack() as stack:
        records = (
            stack.enter_context(output_file(removed, "--removed")) if removed is not None else None
        )
        writer = _Writer(result, table, records, annotate)
        result.written = write_rows(
            kind, inputs, output, rows,
            kept=None if annotate else [Kept.all_but(u) for u in result.unreadable],
            columns=ANNOTATION_COLUMNS if annotate else (),
            notes=writer.notes if annotate else None, rewrite=writer.rewrite,
        )  # fmt: skip
        if records is not None:
            for skip in result.skipped:
                file, row = skipped_place(skip)
                line = skip.line if isinstance(skip, SkippedRow) else None
                record = {"key": skip.path, "file": file or None, "row": row, "line": line,
                          "unreadable": True, "reason": skip.reason}  # fmt: skip
                records.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
    finished = time.perf_counter()
    result.seconds = {
        "read": round(read - started, 3),
        "decide": round(decided - read, 3),
        "write": round(finished - decided, 3),
        "total": round(finished - started, 3),
    }
    return result
