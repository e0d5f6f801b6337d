"""A scan: discovery -> engine (fingerprints) -> candidates -> verification -> clusters -> result.

The library never prints and never exits; progress is reported through a plain callback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from .algorithms.clustering import cluster, max_pairwise_distance
from .algorithms.simhash import hamming
from .algorithms.sketch import sketch_jaccard
from .discovery import Discovery, DiscoveryOptions, find_files
from .document_table import DocumentTable, TableBuilder
from .engines import Engine, Progress, batches_of, make_engine
from .options import ScanOptions, resolve_options
from .records import (
    Cluster,
    ClusterMember,
    FingerprintedDocument,
    ScanResult,
    SkippedFile,
    SourceFile,
    SourceFiles,
)
from .text.segmentation import resolve_backend
from .verify import (
    VerifiedPair,
    Verifier,
    band_layout,
    candidate_pairs,
    duplicate_pair,
)


def build_clusters(
    docs: Sequence[FingerprintedDocument],
    pairs: Sequence[VerifiedPair],
    method: str,
    sketch_size: int,
) -> list[Cluster]:
    """Clusters of ``docs`` from their verified pairs (``method``: centers or components)."""
    # Among equally connected documents the longest becomes the representative, then the path.
    order_key = _OrderKey(DocumentTable.of(docs))
    groups = cluster(len(docs), [(p.i, p.j) for p in pairs], order_key, method)
    built = []
    for rep, members in groups:
        r = docs[rep]
        rows = []
        # The representative is an exact duplicate when another member is (not of itself).
        twins = sum(docs[m].content_hash == r.content_hash for m in members) > 1
        for m in members:
            doc = docs[m]
            exact = doc.content_hash == r.content_hash and (m != rep or twins)
            sim: float | None = 1.0 if exact or m == rep else None
            if not exact and r.sketch and doc.sketch:  # a bare stored fingerprint has none
                sim = round(sketch_jaccard(r.sketch, doc.sketch, sketch_size), 4)
            rows.append(
                ClusterMember(doc.path, hamming(r.fingerprint, doc.fingerprint), sim, exact)
            )
        rows.sort(key=lambda c: (c.path != r.path, c.distance, c.path))
        spread = max_pairwise_distance([docs[m].fingerprint for m in members])
        built.append((r.path, rows, spread))
    built.sort(key=lambda c: (-len(c[1]), c[0]))
    return [Cluster(n, rep, tuple(rows), spread) for n, (rep, rows, spread) in enumerate(built, 1)]


class _OrderKey:
    """``(-chars, path)`` of document ``i``, made when clustering asks for it (only documents
    in a pair are asked for: not a tuple per document of a million)."""

    def __init__(self, table: DocumentTable) -> None:
        self.table = table

    def __getitem__(self, i: int) -> tuple[int, str]:
        return -int(self.table.chars[i]), self.table.paths[i]


class Join(Protocol):
    """Where candidates are joined and verified and clusters built: ``LocalJoin`` here, or
    ``simdup.distributed.join.DaskJoin`` on a Dask cluster (the same results)."""

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        """The number of candidate pairs, and the verified ones."""
        ...

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]: ...


class LocalJoin:
    """Candidates, verification and clusters in this process. ``keys``: the MinHash band keys
    of the documents, when they were taken as the records arrived (``collect_fingerprints``)."""

    def __init__(self, keys: np.ndarray | None = None) -> None:
        self.keys = keys

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        keys, self.keys = self.keys, None  # used once: let go with the candidates made
        candidates = candidate_pairs(docs, options, keys)
        del keys
        return len(candidates), Verifier(options).pairs(docs, candidates)

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]:
        return build_clusters(docs, pairs, method, sketch_size)


class Reference(Protocol):
    """Stored documents that a scan's files are checked against (``scan --against``):
    ``simdup.store.index.Index``."""

    path: str

    def match_documents(
        self, docs: Iterable[FingerprintedDocument], options: ScanOptions | None = None
    ) -> list[Any]:  # IndexMatch: path, key, distance, similarity, exact
        ...

    def document(self, key: str) -> FingerprintedDocument | None: ...


def _with_reference(
    docs: Sequence[FingerprintedDocument],
    verified: list[VerifiedPair],
    reference: Reference,
    options: ScanOptions,
) -> tuple[list[FingerprintedDocument], list[VerifiedPair], int]:
    """``docs`` and their pairs, plus the stored documents that are near-duplicates of them
    and those pairs (never a pair of two stored documents); and how many stored ones."""
    position = {d.path: n for n, d in enumerate(docs)}
    union = list(docs)
    seen = {(p.i, p.j) for p in verified}
    pairs = list(verified)
    for match in reference.match_documents(docs, options):
        j = position.get(match.key)
        if j is None:  # a stored document that is not one of the scanned files
            stored = reference.document(match.key)
            if stored is None:  # a bare fingerprint: reported by its key
                stored = FingerprintedDocument(match.key, 0, "", "", 0, 0, 0, "", 0)
            j = position[match.key] = len(union)
            union.append(stored)
        i = position[match.path]
        key = (min(i, j), max(i, j))
        if key not in seen:
            seen.add(key)
            pairs.append(VerifiedPair(*key, match.distance, match.similarity, match.exact))
    return union, pairs, len(union) - len(docs)


def fingerprint_corpus(
    files: Sequence[SourceFile],
    skipped: Sequence[SkippedFile],
    options: ScanOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> tuple[DocumentTable, list[SkippedFile]]:
    """Fingerprinted documents in discovery order, and every file dropped on the way."""
    docs, skips, _ = collect_fingerprints(files, skipped, options, progress, engine)
    return docs, skips


# Results between two calls of a scan's ``settle`` (``long_lived_records``).
_SETTLE_EVERY = 1 << 14


@contextlib.contextmanager
def long_lived_records() -> Iterator[Callable[[], None]]:
    """For the length of a scan: a function that moves every object made so far out of the
    garbage collector's way (``gc.freeze``); the scan calls it as the records it keeps pile up
    (files found, fingerprints: no reference cycles among them). A collection visits every
    tracked object, which at 10^5 documents cost ~8% of a ``-j1`` scan. Everything is handed
    back to the collector (``gc.unfreeze``) when the scan ends; nothing is frozen when the
    process had frozen objects of its own."""
    if gc.get_freeze_count():
        yield lambda: None
        return
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


def collect_fingerprints(
    files: Sequence[SourceFile],
    skipped: Sequence[SkippedFile],
    options: ScanOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
    *,
    band_keys: bool = False,
    settle: Callable[[], None] | None = None,
) -> tuple[DocumentTable, list[SkippedFile], np.ndarray | None]:
    """Fingerprinted documents in discovery order (a ``DocumentTable``), every file dropped on
    the way, and with ``band_keys`` (a MinHash scan) the documents' ``signature_band_keys``:
    made from each batch's signatures where the batch was made (by the workers), so that no
    signature travels or is kept (1 KB of the ~2 KB a short document's record holds). Results
    are taken in batches as the engine finishes them (``batches_of``). ``settle`` is called
    every ``_SETTLE_EVERY`` results (``long_lived_records``)."""
    if engine is None:
        engine = make_engine(
            options.features, max_size=options.discovery.max_size, jobs=options.jobs
        )
    builder = TableBuilder(SourceFiles.of(files).paths, signatures=not band_keys)
    answered = np.zeros(len(files), dtype=bool)
    dropped: list[tuple[int, SkippedFile]] = []
    layout = band_layout(options) if band_keys else None
    keys = np.empty((len(files), layout[0]), np.uint64) if layout else None
    arrived = 0
    for indexes, batch in batches_of(engine, files, progress, layout):
        answered[indexes] = True
        rows = indexes[batch.at]
        builder.put(rows, batch)
        dropped.extend((int(indexes[k]), skip) for k, skip in batch.skipped)
        if keys is not None and rows.size:
            if batch.band_keys is None:
                raise RuntimeError(f"{engine!r} gave documents without MinHash band keys")
            keys[rows] = batch.band_keys
        before, arrived = arrived, arrived + batch.count
        if settle is not None and arrived // _SETTLE_EVERY != before // _SETTLE_EVERY:
            settle()
    if not answered.all():
        missing = files[int(np.flatnonzero(~answered)[0])].path
        raise RuntimeError(f"{engine!r} gave no result for {missing!r}")
    dropped.sort(key=lambda item: item[0])
    skips = list(skipped) + [skip for _, skip in dropped]
    positions = np.flatnonzero(builder.filled)
    return builder.table(positions), skips, None if keys is None else keys[positions]


def scan(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    *,
    progress: Progress | None = None,
    engine: Engine | None = None,
    engine_for: Callable[[ScanOptions], Engine] | None = None,
    reference: Reference | None = None,
    finder: Callable[[list[str], DiscoveryOptions], Discovery] | None = None,
    join: Join | None = None,
    keep_signatures: bool = False,
    **overrides: Any,
) -> ScanResult:
    """Find near-duplicate documents under ``paths``.

    ``options`` is a ``ScanOptions``; keyword arguments override its fields, e.g.
    ``scan(["docs"], threshold=2, jobs=1)``. ``engine`` fingerprints the files (default: the
    local engine for ``options.jobs``); its parameters must be ``options.features`` as
    resolved for the scan's method; or ``engine_for(options)`` makes it from the resolved
    options (the method, and so the parameters, are decided once the files are counted). With
    ``reference`` (a named index), the pairs are those
    among the files and those between a file and a stored document; clusters may then hold
    stored documents, under their keys. ``finder`` lists the files (default: ``find_files``;
    e.g. fsspec URLs, or stored fingerprints) and ``join`` makes pairs and clusters (default:
    ``LocalJoin``). A MinHash scan joined here keeps its documents' records without their
    signatures (their band keys are taken as they arrive) unless ``keep_signatures``.
    """
    options = resolve_options(options, overrides)
    started = time.perf_counter()
    found = (finder or find_files)([os.fspath(p) for p in paths], options.discovery)
    files, skipped = found.files, found.skipped
    options = resolve_options(options, {}, files=len(files))
    if engine_for is not None:
        engine = engine_for(options)
    if engine is not None and engine.params != options.features:
        raise ValueError("the engine's parameters are not the scan's (options.features)")
    discovered = time.perf_counter()
    strip = options.method == "minhash" and join is None and not keep_signatures
    with long_lived_records() as settle:
        settle()  # the files found
        docs, skips, keys = collect_fingerprints(
            files, skipped, options, progress, engine, band_keys=strip, settle=settle
        )
        settle()
        fingerprinted = time.perf_counter()
        # What the rest needs of discovery: its counts (a million SourceFile records: 180 MB).
        files_found, files_ignored = len(files), found.ignored
        del files, found
        join = join or LocalJoin(keys)
        candidates, verified = join.pairs(docs, options)
        everyone: Sequence[FingerprintedDocument] = docs
        stored = 0
        if reference is not None:
            everyone, verified, stored = _with_reference(docs, verified, reference, options)
        sketch_size = options.features.sketch_size
        clusters = join.clusters(everyone, verified, options.cluster_method, sketch_size)
        finished = time.perf_counter()
    pairs = sorted((duplicate_pair(everyone, p) for p in verified), key=lambda p: (p.a, p.b))
    # The name only: a scan answered from the cache loads no dictionary.
    backend = resolve_backend(options.features.segmenter)
    stats = {
        "files_found": files_found,
        "files_fingerprinted": len(docs),
        "files_skipped": len(skips),
        # Left out by .gitignore / .simdupignore (an ignored folder counts once).
        "files_ignored": files_ignored,
        "bytes_read": int(docs.size.sum()),
        "candidates": candidates,
        "pairs": len(pairs),
        "clusters": len(clusters),
        **({"against": reference.path, "stored_matched": stored} if reference else {}),
        "seconds": {
            "discovery": round(discovered - started, 3),
            "fingerprint": round(fingerprinted - discovered, 3),
            "index_and_cluster": round(finished - fingerprinted, 3),
            "total": round(finished - started, 3),
        },
    }
    return ScanResult(
        settings=options.describe(backend),
        files=docs,
        skipped=tuple(sorted(skips, key=lambda s: s.path)),
        pairs=tuple(pairs),
        clusters=tuple(clusters),
        stats=stats,
    )
