"""Rows as a scan's columns: what the row engine makes of a dataset, put together in input order.

``fingerprint_dataset`` runs a ``RowEngine`` (worker processes here, or a Dask cluster) and
``collect_rows`` keeps of each row only columns: its place (input, row, line), its key (its id
packed in one buffer, else ``file#row``), and for each fingerprinted row a ``DocumentTable`` row
and its MinHash band keys. The bottom-k sketches, the largest part of a row's record (~600
bytes a short row), go to an unlinked temporary file (``SketchSpill``) as they arrive;
``verified_pairs`` reads back those of each slice of candidate pairs to verify it. Dedup
(``rows.dedup``) and ``scan --records`` (``rows.scan_records.scan_rows``) both start here.
"""

from __future__ import annotations

import array
import itertools
import mmap
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np

from ..document_table import DocumentTable, FingerprintBatch, TableBuilder
from ..engines.base import BandLayout, Progress
from ..engines.batching import long_lived_records
from ..engines.rows import ChunkResult, LocalRowEngine, RowEngine
from ..join.verify import (
    Candidates,
    VerifiedPair,
    Verifier,
    band_layout,
    candidate_pairs,
    short_rows,
)
from ..options import ScanOptions, for_rows, resolve_options
from ..readers.rows import RowOptions, format_of
from ..records import SkippedFile, SkippedRow
from ..text.processor import is_too_short


def rows_scan_options(
    options: ScanOptions | None, overrides: dict[str, Any] | None = None
) -> ScanOptions:
    """The scan options for rows: ``auto`` is MinHash LSH with verification (a dataset's size
    is known only once read, and datasets are what ``AUTO_MINHASH_ABOVE`` is for; below it
    MinHash costs no more), SimHash without; ``auto`` markup is none (a row is compared as
    written, ``FeatureParams.for_rows``)."""
    options = for_rows(resolve_options(options, overrides or {}))
    if options.method == "auto":
        options = replace(options, method="minhash" if options.verify else "simhash")
    return resolve_options(options, {})


class RowKeys(Sequence[str]):
    """The key of each row, made when asked for: its id as written, else ``file#row`` (rows
    read from files), else its number (strings given in memory)."""

    def __init__(
        self,
        files: Sequence[str],
        file: np.ndarray,
        row: np.ndarray,
        ids: PackedStrings | None,
    ) -> None:
        self.files = files
        self.file = file
        self.row = row
        self.ids = ids

    def __len__(self) -> int:
        return int(self.row.size)

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same keys (a tuple, a list)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if self.ids is not None:
            ident = self.ids[index]
            if ident is not None:
                return ident
        if not self.files:
            return str(int(self.row[index]))
        return f"{self.files[int(self.file[index])]}#{int(self.row[index])}"


@dataclass
class FingerprintedRows:
    """The rows that are documents, in input order (their input, row, line and key, counted
    characters and keep-policy value), and the fingerprinted ones as a table (``table[k]`` is
    row ``fingerprinted[k]``, named by its key) with their MinHash band keys."""

    file: np.ndarray
    row: np.ndarray
    line: np.ndarray
    keys: RowKeys
    orders: np.ndarray | None
    chars: np.ndarray
    fingerprinted: np.ndarray  # the row of each table document
    table: DocumentTable
    band_keys: np.ndarray | None
    too_short: int
    spill: SketchSpill


class PackedStrings(Sequence[str | None]):
    """Strings (or None) packed in one buffer: the ids of a million rows as ~10 bytes each,
    not a ~60-byte str object each."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._ends = array.array("q")
        self._none = bytearray()

    def append(self, value: str | None) -> None:
        if value is not None:
            self._data += value.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._data))
        self._none.append(value is None)

    def extend(self, values: Iterable[str | None]) -> None:
        # A chunk at a time: one join and one run of ends (~4x faster than append a value).
        items = list(values)
        parts = [b"" if v is None else v.encode("utf-8", "surrogatepass") for v in items]
        base = len(self._data)
        self._data += b"".join(parts)
        self._ends.extend(base + end for end in itertools.accumulate(map(len, parts)))
        self._none.extend(v is None for v in items)

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[str | None]: ...

    def __getitem__(self, index: int | slice) -> str | None | list[str | None]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if self._none[index]:
            return None
        start = self._ends[index - 1] if index else 0
        return self._data[start : self._ends[index]].decode("utf-8", "surrogatepass")


class SketchSpill:
    """The bottom-k sketches of fingerprinted rows, written to an unlinked temporary file as
    they arrive (~600 bytes a short row: 600 MB at a million rows, the largest part of what a
    row would keep in memory) and read back for the rows verification compares. The file is
    gone when it is closed or the process ends, however it ends."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="simdup-sketches-")  # noqa: SIM115
        self._lengths: list[np.ndarray] = []
        self._ends: np.ndarray | None = None
        self._map: mmap.mmap | None = None

    def write(self, sketches: Sequence[bytes]) -> None:
        self._file.write(b"".join(sketches))
        self._lengths.append(np.fromiter(map(len, sketches), dtype=np.int64, count=len(sketches)))

    def read(self, rows: np.ndarray) -> list[bytes]:
        """The sketches of ``rows`` (table rows), in that order."""
        self._finish()
        ends, view = self._ends, self._map
        assert ends is not None
        if view is None:
            return [b""] * int(rows.size)
        found = [view[int(ends[r - 1]) if r else 0 : int(ends[r])] for r in rows.tolist()]
        # The pages read stay in the page cache, not in this process (they were copied).
        view.madvise(mmap.MADV_DONTNEED)
        return found

    def load(self, rows: np.ndarray, size: int) -> list[bytes]:
        """A list of ``size`` sketches holding those of ``rows`` (the others empty)."""
        out = [b""] * size
        for r, sketch in zip(rows.tolist(), self.read(rows), strict=True):
            out[r] = sketch
        return out

    def _finish(self) -> None:
        if self._ends is None:
            self._file.flush()
            self._ends = (
                np.cumsum(np.concatenate(self._lengths))
                if self._lengths
                else (np.empty(0, np.int64))
            )
            self._lengths = []
            if self._ends.size and self._ends[-1]:
                self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
        self._file.close()


def row_bands(options: ScanOptions, keep_signatures: bool = False) -> BandLayout | None:
    """The band layout whose keys the workers send instead of MinHash signatures (None: not
    a MinHash run, or the signatures are kept: ``--write-fingerprints``)."""
    return band_layout(options) if options.method == "minhash" and not keep_signatures else None


def fingerprint_dataset(
    paths: Sequence[str],
    rows: RowOptions,
    options: ScanOptions,
    skipped: list[SkippedFile],
    *,
    engine: RowEngine | None = None,
    keep_short: bool = False,
    keep_signatures: bool = False,
    progress: Progress | None = None,
) -> FingerprintedRows:
    """The rows of dataset files fingerprinted with ``options`` (resolved: a method, not
    ``auto``) by ``engine`` (default: ``LocalRowEngine(options.jobs)``); see
    ``collect_rows``."""
    bands = row_bands(options, keep_signatures)
    engine = engine or LocalRowEngine(options.jobs)
    results = engine.results(paths, rows, options.features, bands, skipped)
    total = known_row_count(paths, rows) if progress is not None else 0
    return collect_rows(results, paths, skipped, bands=bands, keep_short=keep_short,
                        keep_signatures=keep_signatures, progress=progress,
                        total=total)  # fmt: skip


def known_row_count(paths: Sequence[str], rows: RowOptions) -> int:
    """How many rows the inputs hold, when their footers say (Parquet), for a progress bar's
    total; 0 when any input is a stream of unknown length (JSON Lines, CSV)."""
    total = 0
    for path in paths:
        try:
            if format_of(path, rows) != "parquet":
                return 0
            import pyarrow.parquet as pq

            total += int(pq.ParquetFile(path).metadata.num_rows)
        except Exception:  # unreadable: reading it says why, not the progress bar
            return 0
    return total


def collect_rows(
    results: Iterable[ChunkResult],
    files: Sequence[str],
    skipped: list[SkippedFile],
    *,
    bands: BandLayout | None,
    keep_short: bool = False,
    keep_signatures: bool = False,
    progress: Progress | None = None,
    total: int = 0,
) -> FingerprintedRows:
    """What an engine made of the rows (``results``, in input order) as columns: rows that
    are no document become ``SkippedRow`` records keyed by their id when they have one, else
    ``file#row`` (``#row`` for items given in memory), with their line, added to
    ``skipped``; so do rows too short to fingerprint with ``keep_short`` (a scan lists them;
    deduplication keeps them). The table's sketches go to ``spill`` until
    ``verified_pairs`` reads those it needs. ``keep_signatures``: the table holds the MinHash
    signatures (``--write-fingerprints``), not only their band keys. ``progress(rows, total)``
    is told of the rows read so far (``total``: 0 when their number is not known before the
    end, as for a stream of JSON lines)."""
    spill = SketchSpill()
    files_col, rows_col, lines_col, chars_col = [], [], [], []
    orders_col: list[np.ndarray] = []
    ids: PackedStrings | None = None
    fingerprinted: list[np.ndarray] = []
    batches: list[FingerprintBatch] = []
    too_short = 0
    count = 0  # rows that are documents so far
    read = 0  # rows read so far
    with long_lived_records() as settle:
        for number, piece in enumerate(results, 1):  # in input order
            batch = piece.batch
            n = piece.count
            document = np.ones(n, dtype=bool)
            for offset, skip in batch.skipped:
                short = is_too_short(skip)
                if short:
                    too_short += 1
                    if not keep_short:
                        continue
                document[offset] = short
                file = files[piece.file] if files else ""
                row = piece.first_row + offset
                ident = piece.ids[offset] if piece.ids is not None else None
                key = str(ident) if ident is not None else f"{file}#{row}"
                line = int(piece.lines[offset])
                skipped.append(SkippedRow(key, skip.stage, skip.reason, file=file, row=row,
                                          line=line if line >= 0 else None,
                                          id=None if ident is None else str(ident)))  # fmt: skip
            offsets = np.flatnonzero(document)
            position = np.full(n, -1, dtype=np.int64)  # offset -> document row
            position[offsets] = count + np.arange(offsets.size)
            files_col.append(np.full(offsets.size, piece.file, dtype=np.int32))
            rows_col.append(piece.first_row + offsets)
            lines_col.append(piece.lines[offsets])
            chars = np.zeros(offsets.size, dtype=np.int64)
            chars[position[batch.at] - count] = batch.chars
            chars_col.append(chars)
            if piece.orders is not None:
                orders_col.append(piece.orders[offsets])
            if piece.ids is not None and ids is None:
                ids = PackedStrings()
                ids.extend([None] * count)
            if ids is not None:
                got = piece.ids or [None] * n
                ids.extend(got[k] for k in offsets.tolist())
            fingerprinted.append(position[batch.at])
            spill.write(batch.sketch)
            batches.append(replace(batch, sketch=[b""] * int(batch.at.size), skipped=[]))
            count += int(offsets.size)
            if number % 64 == 0:
                settle()
            read += n
            if progress is not None:
                progress(read, total)
        at = np.concatenate(fingerprinted) if fingerprinted else np.empty(0, np.int64)
        file_col = np.concatenate(files_col) if files_col else np.empty(0, np.int32)
        row_col = np.concatenate(rows_col) if rows_col else np.empty(0, np.int64)
        keys = RowKeys(files, file_col, row_col, ids)
        named = _TableKeys(keys, at)
        builder = TableBuilder(named, signatures=keep_signatures)
        band = np.empty((at.size, bands[0]), np.uint64) if bands else None
        start = 0
        for batch in batches:
            stop = start + int(batch.at.size)
            span = np.arange(start, stop, dtype=np.int64)
            builder.put(span, batch)
            if band is not None and batch.band_keys is not None and batch.at.size:
                band[start:stop] = batch.band_keys
            start = stop
        del batches
        settle()
        release_freed_memory()
        return FingerprintedRows(
            file_col,
            row_col,
            np.concatenate(lines_col) if lines_col else np.empty(0, np.int64),
            keys,
            np.concatenate(orders_col) if orders_col else None,
            np.concatenate(chars_col) if chars_col else np.empty(0, np.int64),
            at,
            builder.table(named=True),
            band,
            too_short,
            spill,
        )


def verified_pairs(
    got: FingerprintedRows,
    options: ScanOptions,
    progress: Progress | None = None,
    stage: Callable[[str], None] | None = None,
) -> tuple[int, list[VerifiedPair]]:
    """The candidate pairs among the fingerprinted rows and the verified ones. Candidates are
    verified a slice at a time, with the sketches of that slice's rows read back into the
    table and let go after it (the other rows' sketches stay empty: nothing compares them);
    afterwards the table holds the sketches of the rows in a verified pair (clusters report
    their similarities). ``stage("finding candidates")``, then ``stage("verifying")``; within
    each, ``progress(done, total)`` as it goes (the edit join of the short rows, then the
    candidate pairs verified)."""
    table = got.table
    if len(table) < 2:
        return 0, []
    if stage is not None:
        stage("finding candidates")
    # The short rows' sketches (their comparison forms) are what their candidates come from.
    table.sketch = got.spill.load(short_rows(table.chars), len(table))
    candidates = candidate_pairs(table, options, got.band_keys, progress)
    table.sketch = []
    got.band_keys = None  # used once
    if stage is not None:
        stage("verifying")
    verifier = Verifier(options)
    verified: list[VerifiedPair] = []
    # Sketches are loaded a _VERIFY_ROWS slice at a time; pairs are told of more often.
    step = _PROGRESS_PAIRS if progress is not None else _VERIFY_ROWS
    for start in range(0, len(candidates), _VERIFY_ROWS):
        part = slice(start, start + _VERIFY_ROWS)
        ii, jj = candidates.i[part], candidates.j[part]
        table.sketch = got.spill.load(_rows_in(len(table), ii, jj), len(table))
        for at in range(0, int(ii.size), step):
            piece = slice(at, at + step)
            verified += verifier.pairs(table, Candidates(ii[piece], jj[piece],
                                                         candidates.distance[part][piece]))
            if progress is not None:
                progress(start + min(at + step, int(ii.size)), len(candidates))
        table.sketch = []
    paired = _rows_in(len(table), *(np.array([getattr(p, side) for p in verified], np.int64)
                                    for side in ("i", "j")))  # fmt: skip
    table.sketch = got.spill.load(paired, len(table))
    return len(candidates), verified


# Candidate pairs verified with one load of their rows' sketches.
_VERIFY_ROWS = 1 << 20
# Candidate pairs verified between two calls of ``progress``.
_PROGRESS_PAIRS = 1 << 16


def _rows_in(size: int, *columns: np.ndarray) -> np.ndarray:
    """The distinct rows named in ``columns``, ascending."""
    used = np.zeros(size, dtype=bool)
    for column in columns:
        used[column] = True
    return np.flatnonzero(used)


def release_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``): the pieces of
    a million rows, once put together, leave ~1/3 of the process's memory free but held."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


class _TableKeys(Sequence[str]):
    """The key of each fingerprinted row, in table order."""

    def __init__(self, keys: RowKeys, rows: np.ndarray) -> None:
        self.keys = keys
        self.rows = rows

    def __len__(self) -> int:
        return int(self.rows.size)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self.keys[int(r)] for r in self.rows[index].tolist()]
        return self.keys[int(self.rows[index])]
