"""``dedup_records``: which rows of a dataset to keep, and which row each removed one repeats.

Rows are fingerprinted as a scan fingerprints files (the same processor, the same parameters),
their candidate pairs come from the same index and are judged by the one ``Verifier``; then a
cluster is made around each kept row, visiting the rows in the order of the keep policy
(``first``: row order; ``longest``/``shortest``: by counted characters, then row order): a row
not yet in a cluster is kept, and takes every verified near-duplicate of it not yet in one.
So every removed row is a verified near-duplicate of the row kept for it (no chaining), and
which row is kept follows the policy, not an accident of the index.

A row too short to fingerprint is kept: it cannot be judged a near-duplicate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .errors import ConfigError
from .join.local import LocalJoin
from .options import ScanOptions, resolve_options
from .readers.rows import Row
from .records import DecodedDocument, FingerprintedDocument, SkippedFile
from .text.processor import processor_for

KEEP_POLICIES = ("first", "longest", "shortest")


@dataclass(frozen=True)
class Dedup:
    """The decision on each row (in the order given; skip records apart): its ``keys``,
    whether it is kept, its ``cluster`` (-1: alone), the row it duplicates (``duplicate_of``,
    -1 when kept) and the similarity with that row (the verifier's word-set Jaccard; 1.0 for
    the same text, NaN when kept)."""

    keys: tuple[str, ...]
    keep: np.ndarray
    cluster: np.ndarray
    duplicate_of: np.ndarray
    similarity: np.ndarray
    too_short: int
    skipped: tuple[SkippedFile, ...]
    settings: dict[str, Any]

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def removed(self) -> int:
        return int((~self.keep).sum())

    def removals(self) -> Iterator[tuple[int, int, float]]:
        """``(row, kept row, similarity)`` of every removed row, in row order."""
        for row in np.flatnonzero(~self.keep).tolist():
            yield row, int(self.duplicate_of[row]), float(self.similarity[row])


def _texts(items: Any, text_field: str) -> Iterator[tuple[str, str] | SkippedFile]:
    """``(key, text)`` of each item: strings (keyed by their number), ``Row`` records, skip
    records (passed on), or an Arrow table or record-batch stream (polars, DuckDB and
    ``datasets`` give them) with a ``text_field`` column."""
    if hasattr(items, "schema") and (
        hasattr(items, "to_batches") or hasattr(items, "read_next_batch")
    ):
        batches = items.to_batches() if hasattr(items, "to_batches") else items
        row = 0
        for batch in batches:
            for value in batch.column(text_field).to_pylist():
                if isinstance(value, str):
                    yield str(row), value
                else:
                    yield SkippedFile(
                        f"#{row}", "row", f"text is {type(value).__name__}, not a string"
                    )
                row += 1
        return
    for n, item in enumerate(items):
        if isinstance(item, str):
            yield str(n), item
        elif isinstance(item, Row):
            yield item.key, item.text
        elif isinstance(item, SkippedFile):
            yield item
        else:
            raise ConfigError(f"cannot deduplicate a {type(item).__name__} (strings or rows)")


def dedup_records(
    items: Iterable[str | Row | SkippedFile] | Any,
    options: ScanOptions | None = None,
    *,
    keep: str = "first",
    text_field: str = "text",
    **overrides: Any,
) -> Dedup:
    """Which rows of ``items`` to keep (strings, ``read_records`` results, or an Arrow table
    or record-batch stream with a ``text_field`` column); keyword arguments are
    ``ScanOptions`` fields (``threshold``, ``min_similarity``, ...)."""
    if keep not in KEEP_POLICIES:
        raise ConfigError(f"unknown keep policy {keep!r} (choose from {', '.join(KEEP_POLICIES)})")
    options = resolve_options(options, overrides)
    if options.method == "auto":
        options = replace(options, method="simhash")
    options = resolve_options(options, {})
    proc = processor_for(options.features)
    keys: list[str] = []
    chars: list[int] = []
    docs: list[FingerprintedDocument] = []
    rows_of: list[int] = []
    skipped: list[SkippedFile] = []
    too_short = 0
    for found in _texts(items, text_field):
        if isinstance(found, SkippedFile):
            skipped.append(found)
            continue
        key, text = found
        row = len(keys)
        keys.append(key)
        record = proc.document(DecodedDocument(key, text, "utf-8", "utf-8", 1.0, len(text)))
        if isinstance(record, SkippedFile):
            too_short += 1
            chars.append(len(text))
            continue
        chars.append(record.chars)
        docs.append(record)
        rows_of.append(row)
    n = len(keys)
    keep_mask = np.ones(n, dtype=bool)
    cluster = np.full(n, -1, dtype=np.int64)
    duplicate_of = np.full(n, -1, dtype=np.int64)
    similarity = np.full(n, np.nan, dtype=np.float64)
    _, verified = LocalJoin().pairs(docs, options) if len(docs) > 1 else (0, [])
    neighbours: dict[int, dict[int, float]] = {}
    for pair in verified:
        a, b = rows_of[pair.i], rows_of[pair.j]
        value = 1.0 if pair.exact or pair.similarity is None else float(pair.similarity)
        neighbours.setdefault(a, {})[b] = value
        neighbours.setdefault(b, {})[a] = value
    if keep == "first":
        order = sorted(neighbours)
    elif keep == "longest":
        order = sorted(neighbours, key=lambda r: (-chars[r], r))
    else:
        order = sorted(neighbours, key=lambda r: (chars[r], r))
    assigned: set[int] = set()
    clusters = 0
    for centre in order:
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
    settings = options.describe(proc.segmenter.backend)
    settings["keep"] = keep
    return Dedup(
        tuple(keys),
        keep_mask,
        cluster,
        duplicate_of,
        similarity,
        too_short,
        tuple(skipped),
        settings,
    )
