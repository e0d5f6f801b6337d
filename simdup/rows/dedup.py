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

A row with nothing to judge (an empty or blank text) is kept, counted (``too_short``) and marked
(``judged``): it cannot be a near-duplicate of anything.

What is kept of a row is columns (``rows.fingerprints``: its place, its fingerprint, its id when
the dataset names one; its sketch in a temporary file): no text, and no object per row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..engines.base import Progress
from ..engines.rows import RowEngine, fingerprint_rows
from ..errors import ConfigError, MissingExtraError
from ..join import Reference
from ..join.verify import Verifier
from ..options import ScanOptions
from ..readers import chunking
from ..readers.chunking import ChunkItem, NoRow, RowChunk
from ..readers.rows import (
    DEFAULT_ID_FIELD,
    Row,
    RowOptions,
    record_id_text,
    record_row,
    rows_description,
)
from ..records import RowPlace, SkippedFile
from ..text.segmentation import resolve_backend
from .fingerprints import (
    FingerprintedRows,
    collect_rows,
    fingerprint_dataset,
    row_bands,
    rows_scan_options,
    verified_pairs,
)

KEEP_POLICIES = ("first", "longest", "shortest")
# The rules a removal is decided by (``Dedup.rule`` holds their positions): the same text after
# normalisation, two short texts by edit similarity, two long ones by word-set similarity, the
# SimHash threshold alone (no verification), a stored document (``against``), two short texts
# by block-move similarity (their paragraphs moved).
RULES = ("", "same", "edit", "similarity", "threshold", "stored", "moves")
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
    # False for a row with nothing to judge (an empty or blank text): kept, never compared.
    judged: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    # Of a removed row: the SimHash distance to the row kept for it (-1 when kept) and the
    # rule that decided (``RULES[rule[r]]``, from the verifier's finding; "" when kept).
    distance: np.ndarray = field(default_factory=lambda: np.empty(0, np.int16))
    rule: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint8))
    # Of a row removed for a stored document: the index's reason.
    stored_reason: dict[int, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def removed(self) -> int:
        return int((~self.keep).sum())

    def place(self, n: int) -> RowPlace:
        """Where row ``n`` is, as reports say it: its file, row and line (None in Parquet,
        as JSON's null; the ``line`` column, an int array, holds -1 there)."""
        line = int(self.line[n]) if n < self.line.size else -1
        file = self.files[int(self.file[n])] if self.files else ""
        return RowPlace(file, int(self.row[n]), line if line >= 0 else None)

    def rule_of(self, n: int) -> str:
        """The rule that removed row ``n`` (``RULES``; "" when kept or not recorded)."""
        return RULES[int(self.rule[n])] if n < self.rule.size else ""

    def removals(self) -> Iterator[tuple[int, int, float]]:
        """``(row, kept row, similarity)`` of every removed row, in row order (kept row -1:
        a stored document, ``stored_match[row]``)."""
        for row in np.flatnonzero(~self.keep).tolist():
            yield row, int(self.duplicate_of[row]), float(self.similarity[row])


def _has(items: Any, name: str) -> bool:
    """Whether ``items``'s type has the attribute: asked of the type, so that no property is
    evaluated (a polars LazyFrame warns when its ``schema`` or ``columns`` is read)."""
    return hasattr(type(items), name)


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError as exc:
        raise MissingExtraError("reading Arrow data", "rows") from exc
    return pa


def _lazy_batches(frame: Any, rows: RowOptions) -> Iterator[Any]:
    """The batches of a polars LazyFrame, only the columns ``rows`` names computed: streamed
    a batch at a time (``collect_batches``, polars >= 1.33), else collected once."""
    pa = _pyarrow()
    names = list(frame.collect_schema().names())
    columns = [c for c in _wanted(rows) if c in names] or names[:1]
    frame = frame.select(columns)
    parts = frame.collect_batches() if _has(frame, "collect_batches") else [frame.collect()]
    for part in parts:
        yield from pa.RecordBatchReader.from_stream(part)


def _arrow_batches(items: Any, rows: RowOptions) -> Any:
    """The record batches of an Arrow-like table or stream, None for anything else: a pyarrow
    ``Table`` or ``RecordBatchReader``, a ``datasets.Dataset`` (read through its Arrow format,
    selections and filters applied), a polars ``LazyFrame`` (``_lazy_batches``), or anything
    with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (polars, DuckDB, pandas >= 2.2: read
    through pyarrow, without importing them). A stream or array of one column that is not a
    table (a pandas or polars Series, an Arrow array: string, large_string or string_view) is
    its texts, one a row: its batches are Arrow arrays. (An iterator, typed Any: what
    comes back from the libraries is.)"""
    if _has(items, "collect_schema") and _has(items, "collect"):  # a polars LazyFrame
        return _lazy_batches(items, rows)
    if _has(items, "with_format") and _has(items, "iter") and _has(items, "features"):
        return iter(items.with_format("arrow").iter(batch_size=chunking.CHUNK_ROWS))
    if _has(items, "schema") and _has(items, "to_batches"):
        return iter(items.to_batches())
    if _has(items, "schema") and _has(items, "read_next_batch"):
        return iter(items)
    if _has(items, "__arrow_c_stream__"):
        pa = _pyarrow()
        try:
            return iter(pa.RecordBatchReader.from_stream(items))
        except pa.ArrowInvalid:  # a stream of one column (a Series), exported anew when asked
            return iter(pa.chunked_array(items).chunks)
    if _has(items, "__arrow_c_array__") and not _has(items, "num_columns"):
        return iter([_pyarrow().array(items)])
    return None


def _is_arrow_batch(item: Any) -> bool:
    """A record batch (or table) of Arrow, as a generator of them yields
    (``ParquetFile.iter_batches()``)."""
    return _has(item, "schema") and _has(item, "num_rows") and _has(item, "to_pylist")


def _record_rows(records: Iterable[Any], rows: RowOptions) -> Iterator[ChunkItem]:
    """Mappings (a dict a row) as chunk items: the text, id and keep-policy value at the
    fields ``rows`` names (dotted paths), or why a record is no document."""
    for record in records:
        if not isinstance(record, Mapping):
            yield NoRow(f"a {type(record).__name__}, not a record")
            continue
        found = record_row(record, rows)
        if found is None:
            yield NoRow(f"no text field {rows.text_field!r}", record_id_text(record, rows))
        elif isinstance(found, str):
            yield NoRow(found, record_id_text(record, rows))
        else:
            yield found


def _column_rows(values: Iterable[Any]) -> Iterator[ChunkItem]:
    """The values of a column of texts (a Series) as chunk items: a string is a row's text,
    anything else (a null) why it is no document."""
    for value in values:
        if isinstance(value, str):
            yield value, None, None
        else:
            yield NoRow("null, not a text" if value is None
                        else f"a {type(value).__name__}, not a text")  # fmt: skip


def _wanted(rows: RowOptions) -> list[str]:
    """The top-level columns a row's text, id and keep-policy value are read from."""
    id_name = rows.id_field or DEFAULT_ID_FIELD
    wanted = [f.split(".")[0] for f in (rows.text_field, id_name, rows.order_field) if f]
    return list(dict.fromkeys(wanted))


def _batch_rows(batch: Any, rows: RowOptions) -> Iterator[ChunkItem]:
    """The rows of an Arrow record batch (or table), only the columns ``rows`` names read; of
    an Arrow array, its texts (a struct array: its records)."""
    if not _has(batch, "schema"):
        values = batch.to_pylist()
        is_struct = batch.type.num_fields > 0
        yield from _record_rows(values, rows) if is_struct else _column_rows(values)
        return
    names = list(batch.schema.names)
    columns = [c for c in _wanted(rows) if c in names]
    if _has(batch, "select") and columns:
        batch = batch.select(columns)
    yield from _record_rows(batch.to_pylist(), rows)


def _item_rows(items: Any, rows: RowOptions, skipped: list[SkippedFile]) -> Iterator[ChunkItem]:
    """Each of ``items`` as chunk items (an Arrow batch among them is its rows)."""
    batches = _arrow_batches(items, rows)
    if batches is not None:
        for batch in batches:
            yield from _batch_rows(batch, rows)
        return
    for item in items:
        if isinstance(item, str):
            yield item, None, None
        elif isinstance(item, Row):
            yield item.text, item.key, item.order
        elif isinstance(item, SkippedFile):
            skipped.append(item)
        elif isinstance(item, Mapping):
            yield from _record_rows((item,), rows)
        elif _is_arrow_batch(item):
            yield from _batch_rows(item, rows)
        else:
            raise ConfigError(
                f"cannot deduplicate a {type(item).__name__} (strings, dicts, Row records, "
                "Arrow tables or record batches, pandas or polars frames and Series)"
            )


def _item_chunks(items: Any, rows: RowOptions, skipped: list[SkippedFile]) -> Iterator[RowChunk]:
    """Chunks of in-memory items (``dedup_records``)."""
    batch: list[ChunkItem] = []
    first = 0
    for item in _item_rows(items, rows, skipped):
        batch.append(item)
        if len(batch) >= chunking.CHUNK_ROWS:
            yield RowChunk(0, first, batch, None)
            first += len(batch)
            batch = []
    if batch:
        yield RowChunk(0, first, batch, None)


def dedup_records(
    items: Iterable[Any] | Any,
    options: ScanOptions | None = None,
    *,
    keep: str = "first",
    text_field: str = "text",
    id_field: str | None = None,
    against: Reference | None = None,
    **overrides: Any,
) -> Dedup:
    """Which rows of ``items`` to keep. ``items``: strings; dicts (their ``text_field`` and
    ``id_field``, dotted paths); ``read_records`` results; an Arrow table, record batch
    reader or generator of record batches (``ParquetFile.iter_batches()``); a
    ``datasets.Dataset``; anything with ``__arrow_c_stream__`` (a polars or DuckDB frame,
    pandas >= 2.2), read through pyarrow; a column of texts (a pandas or polars Series, an
    Arrow array: string, large_string, string_view), one text a row; a polars LazyFrame
    (streamed, only the columns read computed). A row is keyed by its ``id_field`` value when
    given, else by its number; so is a row that is no document (``skipped``, a ``SkippedRow``)
    when its id can be read. Keyword arguments are ``ScanOptions`` fields (``threshold``,
    ``min_similarity``, ``jobs``, ...). ``keep``: ``first``, ``longest``, ``shortest``, or
    ``max:FIELD``/``min:FIELD`` (a field of dict and Arrow rows, the ``order_field`` of ``Row``
    items)."""
    field_name = keep_field(keep)
    skipped: list[SkippedFile] = []
    row_options = RowOptions(text_field=text_field, id_field=id_field, order_field=field_name)
    options = rows_scan_options(options, overrides)
    bands = row_bands(options)
    results = fingerprint_rows(_item_chunks(items, row_options, skipped), options.features,
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
    progress: Progress | None = None,
    stage: Callable[[str], None] | None = None,
    **overrides: Any,
) -> Dedup:
    """``dedup_records`` of the rows of dataset files, read a chunk at a time and fingerprinted
    by ``engine`` (default: worker processes here, ``options.jobs``; ``DaskRowEngine``: on a
    Dask cluster, the same decisions); the rows are not held. ``progress(rows, total)`` is told
    of the rows read; when they are all fingerprinted, ``stage(name)`` of each step after
    (``"matching stored documents"`` with ``against``, ``"finding candidates"``,
    ``"verifying"``) and ``progress(done, total)`` within it."""
    field_name = keep_field(keep)
    rows = replace(rows or RowOptions(), order_field=field_name)
    options = rows_scan_options(options, overrides)
    skipped: list[SkippedFile] = []
    got = fingerprint_dataset(paths, rows, options, skipped, engine=engine, progress=progress)
    return _decide(got, tuple(paths), rows, options, keep, against, skipped, progress, stage)


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
    progress: Progress | None = None,
    stage: Callable[[str], None] | None = None,
) -> Dedup:
    n = int(got.row.size)
    row_of = got.fingerprinted
    keys, table = got.keys, got.table
    keep_mask = np.ones(n, dtype=bool)
    cluster = np.full(n, -1, dtype=np.int64)
    duplicate_of = np.full(n, -1, dtype=np.int64)
    similarity = np.full(n, np.nan, dtype=np.float64)
    distance = np.full(n, -1, dtype=np.int16)
    rule = np.zeros(n, dtype=np.uint8)
    stored: dict[int, str] = {}
    stored_reason: dict[int, str] = {}
    clusters = 0
    if against is not None:
        if stage is not None:
            stage("matching stored documents")
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
                stored_reason[r] = match.reason
                distance[r] = match.distance
                rule[r] = RULES.index("stored")
                value = match.similarity
                similarity[r] = 1.0 if match.exact or value is None else float(value)
            if progress is not None:
                progress(min(start + 4096, len(table)), len(table))
    verified = verified_pairs(got, options, progress, stage)[1]
    got.spill.close()
    neighbours: dict[int, dict[int, float]] = {}
    found: dict[tuple[int, int], tuple[int, int]] = {}  # (a, b), a < b: distance, rule
    verifier = Verifier(options)
    for pair in verified:
        a, b = int(row_of[pair.i]), int(row_of[pair.j])
        if a in stored or b in stored:
            continue  # removed for a stored document already
        value = 1.0 if pair.exact or pair.similarity is None else float(pair.similarity)
        neighbours.setdefault(a, {})[b] = value
        neighbours.setdefault(b, {})[a] = value
        how = verifier.rule_of(int(got.chars[a]), int(got.chars[b]), pair.exact, pair.moved)
        found[min(a, b), max(a, b)] = (pair.distance, RULES.index(how))
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
            distance[member], rule[member] = found[min(centre, member), max(centre, member)]
        clusters += 1
    # A group of one comparison form larger than SAME_FORM_CLIQUE is joined as a star around
    # its first row: when the keep policy made another row the centre, the star's other rows
    # are left alone. They are the same text as the star's first row, so they go where it went
    # (removed as duplicates of its centre, or of it when it is a centre).
    for pair in verified:
        if not pair.exact:
            continue
        a, b = int(row_of[pair.i]), int(row_of[pair.j])
        for alone, placed in ((a, b), (b, a)):
            if alone in assigned or placed not in assigned or alone in stored:
                continue
            centre = placed if duplicate_of[placed] < 0 else int(duplicate_of[placed])
            assigned.add(alone)
            keep_mask[alone] = False
            cluster[alone] = cluster[centre]
            duplicate_of[alone] = centre
            similarity[alone] = neighbours[placed].get(centre, 1.0) if placed != centre else 1.0
            # The same text as ``placed``: removed by the rule that removed it.
            distance[alone], rule[alone] = (
                (distance[placed], rule[placed]) if placed != centre
                else found[min(alone, placed), max(alone, placed)]
            )  # fmt: skip
    settings = options.describe(resolve_backend(options.features.segmenter))
    settings["keep"] = keep
    settings["records"] = rows_description(rows)
    judged = np.zeros(n, dtype=bool)
    judged[row_of] = True
    return Dedup(
        keys, keep_mask, cluster, duplicate_of, similarity, got.too_short, tuple(skipped),
        settings, files, got.file, got.row, got.line, stored, judged, distance, rule,
        stored_reason,
    )  # fmt: skip
