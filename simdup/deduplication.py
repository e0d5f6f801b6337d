"""``dedup_records`` and ``dedup_rows``: which rows of a dataset to keep, and which row each
removed one repeats.

Rows are fingerprinted as a scan fingerprints files (the same processor, the same parameters;
by worker processes, a chunk of rows at a time, ``engines.rows``), their candidate pairs come
from the same index and are judged by the one ``Verifier``; then a cluster is made around each
kept row, visiting the rows in the order of the keep policy (``first``: row order;
``longest``/``shortest``: by counted characters, then row order; ``max:FIELD``/``min:FIELD``:
by the number in that field, rows without one last, then row order): a row not yet in a
cluster is kept, and takes every verified near-duplicate of it not yet in one. So every
removed row is a verified near-duplicate of the row kept for it (no chaining), and which row
is kept follows the policy, not an accident of the index.

With a stored index (``against``), a row that is a near-duplicate of a stored document is
removed first, as a duplicate of it; the other rows are then clustered among themselves.

A row too short to fingerprint is kept: it cannot be judged a near-duplicate.

What is kept of a row is columns (its place, its fingerprint, its sketch, its id when the
dataset names one): no text, and no object per row.
"""

from __future__ import annotations

import array
import math
import mmap
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, overload

import numpy as np

from .document_table import DocumentTable, FingerprintBatch, TableBuilder
from .engines.base import BandLayout
from .engines.rows import ChunkResult, LocalRowEngine, RowEngine, fingerprint_rows
from .errors import ConfigError
from .join import Reference
from .join.verify import Candidates, VerifiedPair, Verifier, band_layout, candidate_pairs
from .options import ScanOptions, resolve_options
from .readers.rows import (
    CHUNK_ROWS,
    NoRow,
    Row,
    RowChunk,
    RowOptions,
    rows_description,
)
from .records import SkippedFile
from .scanning import long_lived_records
from .text.processor import is_too_short
from .text.segmentation import resolve_backend

KEEP_POLICIES = ("first", "longest", "shortest")
KEEP_BY_VALUE = ("max", "min")


def keep_field(keep: str) -> str | None:
    """The field a keep policy reads (``max:score`` reads ``score``), None for the others;
    raises ``ConfigError`` for a policy that is none of them."""
    kind, _, name = keep.partition(":")
    if keep in KEEP_POLICIES:
        return None
    if kind in KEEP_BY_VALUE and name:
        return name
    choices = ", ".join([*KEEP_POLICIES, "max:FIELD", "min:FIELD"])
    raise ConfigError(f"unknown keep policy {keep!r} (choose from {choices})")


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


@dataclass(frozen=True)
class Dedup:
    """The decision on each row that is a document (in input order; skip records apart): its
    ``keys``, whether it is kept, its ``cluster`` (-1: alone), the row it duplicates
    (``duplicate_of``, -1 when kept or when it duplicates a stored document) and the
    similarity with that row (the verifier's word-set Jaccard; 1.0 for the same text, NaN when
    kept). Rows removed for a stored document have ``stored_match`` (the stored key). Where
    each row is: ``files[file[r]]``, row ``row[r]`` of it (0-based, as ``read_records``
    numbers rows), line ``line[r]`` (-1: none)."""

    keys: Sequence[str]
    keep: np.ndarray
    cluster: np.ndarray
    duplicate_of: np.ndarray
    similarity: np.ndarray
    too_short: int
    skipped: tuple[SkippedFile, ...]
    settings: dict[str, Any]
    files: tuple[str, ...] = ()
    file: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    row: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    line: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    stored_match: dict[int, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def removed(self) -> int:
        return int((~self.keep).sum())

    def removals(self) -> Iterator[tuple[int, int, float]]:
        """``(row, kept row, similarity)`` of every removed row, in row order (kept row -1:
        a stored document, ``stored_match[row]``)."""
        for row in np.flatnonzero(~self.keep).tolist():
            yield row, int(self.duplicate_of[row]), float(self.similarity[row])


def rows_scan_options(
    options: ScanOptions | None, overrides: dict[str, Any] | None = None
) -> ScanOptions:
    """The scan options for rows: ``auto`` is MinHash LSH with verification (a dataset's size
    is known only once read, and datasets are what ``AUTO_MINHASH_ABOVE`` is for; below it
    MinHash costs no more), SimHash without."""
    options = resolve_options(options, overrides or {})
    if options.method == "auto":
        options = replace(options, method="minhash" if options.verify else "simhash")
    return resolve_options(options, {})


def _item_chunks(items: Any, text_field: str, skipped: list[SkippedFile]) -> Iterator[RowChunk]:
    """Chunks of in-memory items: strings (keyed by their number), ``Row`` records (their
    keys), skip records (kept aside, no row), or an Arrow table or record-batch stream
    (polars, DuckDB and ``datasets`` give them) with a ``text_field`` column."""
    batch: list[Any] = []
    first = 0

    def cut() -> Iterator[RowChunk]:
        nonlocal batch, first
        if len(batch) >= CHUNK_ROWS:
            yield RowChunk(0, first, batch, None)
            first += len(batch)
            batch = []

    if hasattr(items, "schema") and (
        hasattr(items, "to_batches") or hasattr(items, "read_next_batch")
    ):
        for arrow_batch in items.to_batches() if hasattr(items, "to_batches") else items:
            for value in arrow_batch.column(text_field).to_pylist():
                if isinstance(value, str):
                    batch.append((value, None, None))
                else:
                    batch.append(NoRow(f"text is {type(value).__name__}, not a string"))
                yield from cut()
    else:
        for item in items:
            if isinstance(item, str):
                batch.append((item, None, None))
            elif isinstance(item, Row):
                batch.append((item.text, item.key, item.order))
            elif isinstance(item, SkippedFile):
                skipped.append(item)
                continue
            else:
                raise ConfigError(f"cannot deduplicate a {type(item).__name__} (strings or rows)")
            yield from cut()
    if batch:
        yield RowChunk(0, first, batch, None)


def dedup_records(
    items: Iterable[str | Row | SkippedFile] | Any,
    options: ScanOptions | None = None,
    *,
    keep: str = "first",
    text_field: str = "text",
    against: Reference | None = None,
    **overrides: Any,
) -> Dedup:
    """Which rows of ``items`` to keep (strings, ``read_records`` results, or an Arrow table
    or record-batch stream with a ``text_field`` column); keyword arguments are
    ``ScanOptions`` fields (``threshold``, ``min_similarity``, ``jobs``, ...). ``keep``:
    ``first``, ``longest``, ``shortest``, or ``max:FIELD``/``min:FIELD`` of ``Row`` items
    read with that ``order_field``."""
    field_name = keep_field(keep)
    skipped: list[SkippedFile] = []
    row_options = RowOptions(text_field=text_field, order_field=field_name)
    options = rows_scan_options(options, overrides)
    bands = row_bands(options)
    results = fingerprint_rows(_item_chunks(items, text_field, skipped), options.features,
                               row_options, jobs=options.jobs, bands=bands)  # fmt: skip
    got = collect_rows(results, (), skipped, bands=bands)
    return _decide(got, (), row_options, options, keep, against, skipped)


def dedup_rows(
    paths: Sequence[str],
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    *,
    keep: str = "first",
    against: Reference | None = None,
    engine: RowEngine | None = None,
    **overrides: Any,
) -> Dedup:
    """``dedup_records`` of the rows of dataset files, read a chunk at a time and fingerprinted
    by ``engine`` (default: worker processes here, ``options.jobs``; ``DaskRowEngine``: on a
    Dask cluster, the same decisions); the rows are not held."""
    field_name = keep_field(keep)
    rows = replace(rows or RowOptions(), order_field=field_name)
    options = rows_scan_options(options, overrides)
    skipped: list[SkippedFile] = []
    got = fingerprint_dataset(paths, rows, options, skipped, engine=engine)
    return _decide(got, tuple(paths), rows, options, keep, against, skipped)


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
        for value in values:
            self.append(value)

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
) -> FingerprintedRows:
    """The rows of dataset files fingerprinted with ``options`` (resolved: a method, not
    ``auto``) by ``engine`` (default: ``LocalRowEngine(options.jobs)``); see
    ``collect_rows``."""
    bands = row_bands(options, keep_signatures)
    engine = engine or LocalRowEngine(options.jobs)
    results = engine.results(paths, rows, options.features, bands, skipped)
    return collect_rows(results, paths, skipped, bands=bands, keep_short=keep_short,
                        keep_signatures=keep_signatures)  # fmt: skip


def collect_rows(
    results: Iterable[ChunkResult],
    files: Sequence[str],
    skipped: list[SkippedFile],
    *,
    bands: BandLayout | None,
    keep_short: bool = False,
    keep_signatures: bool = False,
) -> FingerprintedRows:
    """What an engine made of the rows (``results``, in input order) as columns: rows that
    are no document become skip records ``file#row`` (``#row`` for items given in memory),
    added to ``skipped``; so do rows too short to fingerprint with ``keep_short`` (a scan
    lists them; deduplication keeps them). The table's sketches go to ``spill`` until
    ``verified_pairs`` reads those it needs. ``keep_signatures``: the table holds the MinHash
    signatures (``--write-fingerprints``), not only their band keys."""
    spill = SketchSpill()
    files_col, rows_col, lines_col, chars_col = [], [], [], []
    orders_col: list[np.ndarray] = []
    ids: PackedStrings | None = None
    fingerprinted: list[np.ndarray] = []
    batches: list[FingerprintBatch] = []
    too_short = 0
    count = 0  # rows that are documents so far
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
                where = f"{files[piece.file]}#" if files else "#"
                key = f"{where}{piece.first_row + offset}"
                if short and piece.ids is not None and piece.ids[offset] is not None:
                    key = str(piece.ids[offset])
                skipped.append(SkippedFile(key, skip.stage, skip.reason))
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


def verified_pairs(got: FingerprintedRows, options: ScanOptions) -> tuple[int, list[VerifiedPair]]:
    """The candidate pairs among the fingerprinted rows and the verified ones. Candidates are
    verified a slice at a time, with the sketches of that slice's rows read back into the
    table and let go after it (the other rows' sketches stay empty: nothing compares them);
    afterwards the table holds the sketches of the rows in a verified pair (clusters report
    their similarities)."""
    table = got.table
    if len(table) < 2:
        return 0, []
    candidates = candidate_pairs(table, options, got.band_keys)
    got.band_keys = None  # used once
    verifier = Verifier(options)
    verified: list[VerifiedPair] = []
    for start in range(0, len(candidates), _VERIFY_ROWS):
        part = slice(start, start + _VERIFY_ROWS)
        ii, jj = candidates.i[part], candidates.j[part]
        table.sketch = got.spill.load(_rows_in(len(table), ii, jj), len(table))
        verified += verifier.pairs(table, Candidates(ii, jj, candidates.distance[part]))
        table.sketch = []
    paired = _rows_in(len(table), *(np.array([getattr(p, side) for p in verified], np.int64)
                                    for side in ("i", "j")))  # fmt: skip
    table.sketch = got.spill.load(paired, len(table))
    return len(candidates), verified


# Candidate pairs verified with one load of their rows' sketches.
_VERIFY_ROWS = 1 << 20


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


def _order(candidates: Iterable[int], keep: str, chars: np.ndarray,
           orders: np.ndarray | None) -> list[int]:  # fmt: skip
    """The rows of ``candidates`` in the order the keep policy visits them."""
    rows = sorted(candidates)
    if keep == "first":
        return rows
    if keep == "longest":
        return sorted(rows, key=lambda r: (-int(chars[r]), r))
    if keep == "shortest":
        return sorted(rows, key=lambda r: (int(chars[r]), r))
    assert orders is not None
    sign = -1.0 if keep.startswith("max:") else 1.0

    def by_value(r: int) -> tuple[bool, float, int]:
        value = float(orders[r])
        return (math.isnan(value), sign * value if not math.isnan(value) else 0.0, r)

    return sorted(rows, key=by_value)


def _decide(
    got: FingerprintedRows,
    files: tuple[str, ...],
    rows: RowOptions,
    options: ScanOptions,
    keep: str,
    against: Reference | None,
    skipped: list[SkippedFile],
) -> Dedup:
    n = int(got.row.size)
    row_of = got.fingerprinted
    keys, table = got.keys, got.table
    keep_mask = np.ones(n, dtype=bool)
    cluster = np.full(n, -1, dtype=np.int64)
    duplicate_of = np.full(n, -1, dtype=np.int64)
    similarity = np.full(n, np.nan, dtype=np.float64)
    stored: dict[int, str] = {}
    clusters = 0
    if against is not None:
        for start in range(0, len(table), 4096):
            span = np.arange(start, min(start + 4096, len(table)))
            sketches = got.spill.read(span)
            part = [
                replace(table[int(k)], sketch=sketch)
                for k, sketch in zip(span.tolist(), sketches, strict=True)
            ]
            at = {doc.path: start + k for k, doc in enumerate(part)}
            best: dict[int, Any] = {}
            for match in against.match_documents(part, options):
                r = int(row_of[at[match.path]])
                if r not in best:  # nearest first
                    best[r] = match
            for r, match in best.items():
                keep_mask[r] = False
                stored[r] = match.key
                value = match.similarity
                similarity[r] = 1.0 if match.exact or value is None else float(value)
    verified = verified_pairs(got, options)[1]
    got.spill.close()
    neighbours: dict[int, dict[int, float]] = {}
    for pair in verified:
        a, b = int(row_of[pair.i]), int(row_of[pair.j])
        if a in stored or b in stored:
            continue  # removed for a stored document already
        value = 1.0 if pair.exact or pair.similarity is None else float(pair.similarity)
        neighbours.setdefault(a, {})[b] = value
        neighbours.setdefault(b, {})[a] = value
    assigned: set[int] = set()
    for centre in _order(neighbours, keep, got.chars, got.orders):
        if centre in assigned:
            continue
        members = sorted(m for m in neighbours[centre] if m not in assigned)
        if not members:
            continue
        assigned.add(centre)
        cluster[centre] = clusters
        for member in members:
            assigned.add(member)
            keep_mask[member] = False
            cluster[member] = clusters
            duplicate_of[member] = centre
            similarity[member] = neighbours[centre][member]
        clusters += 1
    settings = options.describe(resolve_backend(options.features.segmenter))
    settings["keep"] = keep
    settings["records"] = rows_description(rows)
    return Dedup(
        keys, keep_mask, cluster, duplicate_of, similarity, got.too_short, tuple(skipped),
        settings, files, got.file, got.row, got.line, stored,
    )  # fmt: skip


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
