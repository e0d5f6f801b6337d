"""A scan: discovery -> engine (fingerprints) -> candidates -> verification -> clusters -> result.

The library never prints and never exits; progress is reported through a plain callback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .discovery import Discovery, DiscoveryOptions, find_files
from .document_table import DocumentTable, TableBuilder
from .engines import Engine, Progress, batches_of, make_engine
from .join import Join, Reference
from .join.local import LocalJoin, with_reference
from .join.verify import band_layout, duplicate_pair
from .options import ScanOptions, resolve_options
from .records import FingerprintedDocument, ScanResult, SkippedFile, SourceFile, SourceFiles
from .text.segmentation import resolve_backend


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
            everyone, verified, stored = with_reference(docs, verified, reference, options)
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
