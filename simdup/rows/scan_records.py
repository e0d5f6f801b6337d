"""Datasets of rows scanned as documents (``scan --records``, ``index add``/``query --records``):
each row fingerprinted and named by its key (its id, else ``file#row``), then the scan's tail
(pairs, clusters, stats) over them (``scan_rows``), or each stored in a named index
(``add_rows``) or queried against one (``query_rows``)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from ..engines.backend import Backend
from ..engines.base import Progress
from ..engines.rows import LocalRowEngine, RowEngine
from ..join import Reference
from ..join.finish import finish, scan_stats
from ..join.local import LocalJoin
from ..options import ScanOptions, for_rows, resolve_options
from ..readers.rows import (
    RowOptions,
    rows_description,
)
from ..records import FingerprintedDocument, RowPlace, ScanResult, SkippedFile
from ..store.index import AddResult, Index, IndexMatch
from ..text.segmentation import resolve_backend
from .fingerprints import fingerprint_dataset, rows_scan_options, verified_pairs


def row_documents(
    inputs: Sequence[str],
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    engine: RowEngine | None = None,
) -> Iterator[tuple[FingerprintedDocument | SkippedFile, RowPlace | None]]:
    """Each row of dataset files fingerprinted, named by its key (its id, else ``file#row``),
    or the record of why it is none, with where the row is (None for a file that cannot be
    read at all), in input order (``index add --records``, ``query --records``), by
    ``engine`` (default: ``options.jobs`` local worker processes); the rows are not held."""
    rows = rows or RowOptions()
    options = for_rows(resolve_options(options, {}))
    names = list(inputs)
    unreadable: list[SkippedFile] = []
    engine = engine or LocalRowEngine(options.jobs)
    for result in engine.results(names, rows, options.features, None, unreadable):
        yield from ((skip, None) for skip in unreadable)
        unreadable.clear()
        path, ids = names[result.file], result.ids
        keys: list[str] = []
        for k in range(result.count):
            ident = ids[k] if ids is not None else None
            keys.append(ident if ident is not None else f"{path}#{result.first_row + k}")
        lines = result.lines.tolist()
        for k, found in enumerate(result.batch.records(keys)):
            line = lines[k]
            yield found, RowPlace(path, result.first_row + k, line if line >= 0 else None)
    yield from ((skip, None) for skip in unreadable)


@dataclass(frozen=True, slots=True)
class QueryAnswer:
    """One document queried against a named index (a file, or a row of a dataset): its
    matches, nearest first, or why it has none (``error``)."""

    path: str
    matches: tuple[IndexMatch, ...]
    error: str | None = None
    place: RowPlace | None = None  # a row of a dataset (``query --records``): where it is


def add_rows(
    index: Index,
    inputs: Sequence[str],
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    engine: RowEngine | None = None,
) -> AddResult:
    """The rows of dataset files stored in ``index`` under their keys (``index add
    --records``), a batch at a time as they are fingerprinted (by ``engine``: default local
    worker processes, or a Dask cluster's workers: the same rows stored); the rows that cannot
    be (bad rows, unreadable files, texts too short) are the result's ``skipped``, in input
    order."""
    names = list(inputs)
    file_number = {path: n for n, path in enumerate(names)}
    skipped: list[tuple[int, SkippedFile]] = []

    def documents() -> Iterator[FingerprintedDocument]:
        for found, place in row_documents(names, rows, options, engine):
            if isinstance(found, SkippedFile):
                # A file that cannot be read is met when its chunks would be: by a local
                # engine as it reads ahead, by a cluster's before any row; its place among the
                # skips is its input's, whichever it is.
                where = place.file if place is not None else found.path
                skipped.append((file_number.get(where, len(names)), found))
            else:
                yield found

    added = index.add_documents(documents())
    skipped.sort(key=lambda s: s[0])  # stable: the rows of one file in their order
    return AddResult(added, tuple(skip for _, skip in skipped))


def query_rows(
    index: Index,
    inputs: Sequence[str],
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
) -> list[QueryAnswer]:
    """A query of ``index`` per row of dataset files (``query --records``), named by its key,
    in input order: the row's stored near-duplicates under the scan's rules, or why the row
    could not be fingerprinted. A row's own entry (stored under its key) is not its
    duplicate."""
    answers = []
    for found, place in row_documents(inputs, rows, options):
        if isinstance(found, SkippedFile):
            answers.append(QueryAnswer(found.path, (), found.reason, place))
            continue
        matches = [m for m in index.match_documents([found], options) if m.key != found.path]
        answers.append(QueryAnswer(found.path, tuple(matches), place=place))
    return answers


def scan_rows(
    inputs: Sequence[str],
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    *,
    reference: Reference | None = None,
    keep_signatures: bool = False,
    backend: Backend | None = None,
    progress: Progress | None = None,
) -> ScanResult:
    """``scan`` of the rows of dataset files (``scan --records``): each row is a document
    named by its key (its id, else ``file#row``), and the result is a scan's (pairs,
    clusters, skip records: bad rows and rows too short to fingerprint), so every renderer
    and exit policy applies. ``auto`` is MinHash LSH, as for ``dedup_rows``. With
    ``reference``, pairs with its stored documents too; ``keep_signatures``: the documents
    keep their MinHash signatures (``--write-fingerprints``). ``backend``: the scan's
    (``engines.backend.Backend``), whose row engine fingerprints the rows (none: worker
    processes here)."""
    rows = rows or RowOptions()
    options = rows_scan_options(options)
    names = list(inputs)
    started = time.perf_counter()
    skipped: list[SkippedFile] = []
    engine = backend.row_engine if backend is not None else None
    got = fingerprint_dataset(names, rows, options, skipped, engine=engine, keep_short=True,
                              keep_signatures=keep_signatures, progress=progress)  # fmt: skip
    fingerprinted = time.perf_counter()
    docs = got.table
    candidates, verified = verified_pairs(got, options)
    if reference is not None:  # every document is compared with the stored ones
        docs.sketch = got.spill.load(np.arange(len(docs)), len(docs))
    joined = finish(docs, verified, options, LocalJoin(), reference)
    got.spill.close()
    finished = time.perf_counter()
    settings = options.describe(resolve_backend(options.features.segmenter))
    settings["records"] = rows_description(rows)
    stats = scan_stats(
        files_found=len(names), docs=docs, skipped=len(skipped), ignored=0,
        candidates=candidates, joined=joined, reference=reference,
        times=(started, started, fingerprinted, finished),
        rows_read=int(got.row.size) + sum(1 for s in skipped if s.stage != "features"),
    )  # fmt: skip
    return ScanResult(
        settings=settings,
        files=docs,
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        pairs=joined.pairs,
        clusters=joined.clusters,
        stats=stats,
        places=RowPlaces(names, got.file, got.row, got.line, got.fingerprinted),
    )


class RowPlaces(Sequence[RowPlace]):
    """Where each fingerprinted row is (``rows[k]`` of the rows' columns), made when asked."""

    def __init__(
        self,
        names: Sequence[str],
        file: np.ndarray,
        row: np.ndarray,
        line: np.ndarray,
        rows: np.ndarray,
    ) -> None:
        self.names, self.file, self.row, self.line, self.rows = names, file, row, line, rows

    def __len__(self) -> int:
        return int(self.rows.size)

    @overload
    def __getitem__(self, index: int) -> RowPlace: ...

    @overload
    def __getitem__(self, index: slice) -> list[RowPlace]: ...

    def __getitem__(self, index: int | slice) -> RowPlace | list[RowPlace]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        r = int(self.rows[index])
        line = int(self.line[r])
        return RowPlace(
            self.names[int(self.file[r])], int(self.row[r]), line if line >= 0 else None
        )
