"""What a worker of ``dedup --spans`` does: chunks of rows cut into units and windows.

A row engine (``engines.rows``) brings the rows in ``RowChunk``s (``readers.chunking``, as for
``dedup`` and ``decon``), read by the parent for local workers or by each Dask worker for its
partition; a worker cuts each row's text into units and hashes its windows (``units``) and gives
back, per chunk, columns: per row with units its offset in the chunk, id and unit count; per
unit its bounds and cut; per window its units (row-local) and XXH3-128 digest. Results come
back in input order, so the parent sees windows in dataset order whatever the number of
workers, and decides which occurrence is first itself. One bad row never stops a run: it
becomes a skip reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engines.rows import WorkerState
from ...readers.chunking import NoRow, RowChunk
from ...readers.rows import RowOptions
from .units import text_spans


@dataclass(frozen=True, slots=True)
class ChunkSpans:
    """A chunk's rows as units and windows. ``offsets``, ``ids``, ``units``, ``windows``: per
    row that has units (its offset in the chunk, id, unit and window counts); ``starts``,
    ``ends``, ``breaks``: per unit; ``first``, ``last`` (units of its row),
    ``hashes``: per window; ``skipped``: rows that are no document (offset, reason, id);
    ``documents``: rows that are."""

    file: int
    first_row: int
    lines: np.ndarray
    offsets: np.ndarray
    ids: list[str | None]
    units: np.ndarray
    windows: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    breaks: np.ndarray
    first: np.ndarray
    last: np.ndarray
    hashes: np.ndarray
    skipped: list[tuple[int, str, str | None]]
    documents: int

    @property
    def count(self) -> int:
        return int(self.lines.size)


_STATE: WorkerState[tuple[str, int, RowOptions, str]] = WorkerState("cutting rows into spans")


def init_spans_worker(unit: str, min_chars: int, options: RowOptions, markup: str = "none") -> None:
    """The unit, minimum span, row options and markup ``spans_chunk`` uses in this process."""
    _STATE.set((unit, min_chars, options, markup))


def _int32(values: list[int]) -> np.ndarray:
    """Offsets within rows: int32 (a row holds at most ``max_line`` bytes, 64 MB by
    default), int64 should one be longer."""
    if values and max(values) >= 2**31:
        return np.asarray(values, dtype=np.int64)
    return np.asarray(values, dtype=np.int32)


def spans_chunk(chunk: RowChunk) -> ChunkSpans:
    """The chunk's rows cut into units and windows (in this process: a worker's, or the
    parent's)."""
    unit, min_chars, options, markup = _STATE.get()
    skipped: list[tuple[int, str, str | None]] = []
    offsets: list[int] = []
    ids: list[str | None] = []
    units: list[int] = []
    windows: list[int] = []
    cols: list[list[int]] = [[] for _ in range(5)]
    hashes: list[bytes] = []
    documents = 0
    for offset, row in chunk.rows(options):
        if isinstance(row, NoRow):
            skipped.append((offset, row.reason, row.id))
            continue
        text, ident = row.text, row.id
        documents += 1
        try:
            found = text_spans(text, unit, min_chars, markup)
        except MemoryError:
            skipped.append((offset, "out of memory while cutting it into spans", None))
            continue
        if not len(found):
            continue
        offsets.append(offset)
        ids.append(ident)
        units.append(len(found))
        windows.append(len(found.first))
        for column, values in zip(
            cols, (found.starts, found.ends, found.breaks, found.first, found.last), strict=True
        ):
            column.extend(values)
        hashes.append(found.hashes)
    lines = chunk.line_numbers()
    digests = np.frombuffer(b"".join(hashes), dtype=">u8").reshape(-1, 2).astype(np.uint64)
    starts, ends, breaks, first, last = (_int32(c) for c in cols)
    return ChunkSpans(
        chunk.file, chunk.first_row, lines, np.asarray(offsets, dtype=np.int32), ids,
        np.asarray(units, dtype=np.int32), np.asarray(windows, dtype=np.int32),
        starts, ends, breaks, first, last, digests, skipped, documents,
    )  # fmt: skip
