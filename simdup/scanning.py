"""A scan: discovery -> engine (fingerprints) -> candidates -> verification -> clusters -> result.

The library never prints and never exits; progress is reported through a plain callback.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .document_table import DocumentTable, TableBuilder
from .engines import Engine, Progress, batches_of, make_engine
from .engines.backend import LOCAL, Backend
from .engines.batching import long_lived_records
from .engines.warmup import discover_while_learning
from .join import Reference
from .join.finish import Joined, finish, scan_stats
from .join.local import LocalJoin
from .join.verify import band_layout, duplicate_pair
from .options import ScanOptions, resolve_options
from .readers import set_limits_of
from .readers.discovery import find_files
from .records import ScanResult, SkippedFile, SourceFile, SourceFiles
from .store.cache import ScanCache
from .text.segmentation import resolve_backend


@dataclass
class Fingerprinted:
    """What the engine made of a scan's files: the documents in discovery order (``table``,
    those of ``files[positions]``), every file dropped on the way (``skips``, discovery's
    first; ``dropped``: the engine's, with their file indexes), the documents' MinHash band
    keys when taken, and the hash of each file's bytes (zeros where not known)."""

    table: DocumentTable
    skips: list[SkippedFile]
    keys: np.ndarray | None
    positions: np.ndarray
    dropped: list[tuple[int, SkippedFile]]
    file_hash: np.ndarray


def fingerprint_corpus(
    files: Sequence[SourceFile],
    skipped: Sequence[SkippedFile],
    options: ScanOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> tuple[DocumentTable, list[SkippedFile]]:
    """Fingerprinted documents in discovery order, and every file dropped on the way."""
    found = collect_fingerprints(files, skipped, options, progress, engine)
    return found.table, found.skips


# Results between two calls of a scan's ``settle`` (``long_lived_records``).
_SETTLE_EVERY = 1 << 14


def collect_fingerprints(
    files: Sequence[SourceFile],
    skipped: Sequence[SkippedFile],
    options: ScanOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
    *,
    band_keys: bool = False,
    settle: Callable[[], None] | None = None,
) -> Fingerprinted:
    """The documents of ``files`` in discovery order and every file dropped on the way; with
    ``band_keys`` (a MinHash scan) the documents' ``signature_band_keys``: made from each
    batch's signatures where the batch was made (by the workers), so that no signature travels
    or is kept (1 KB of the ~2 KB a short document's record holds). Results are taken in
    batches as the engine finishes them (``batches_of``). ``settle`` is called every
    ``_SETTLE_EVERY`` results (``long_lived_records``)."""
    if engine is None:
        engine = make_engine(
            options.features, max_size=options.discovery.max_size, jobs=options.jobs
        )
    builder = TableBuilder(SourceFiles.of(files).paths, signatures=not band_keys)
    answered = np.zeros(len(files), dtype=bool)
    file_hash = np.zeros((len(files), 16), dtype=np.uint8)
    dropped: list[tuple[int, SkippedFile]] = []
    layout = band_layout(options) if band_keys else None
    keys = np.empty((len(files), layout[0]), np.uint64) if layout else None
    arrived = 0
    for indexes, batch in batches_of(engine, files, progress, layout):
        answered[indexes] = True
        rows = indexes[batch.at]
        builder.put(rows, batch)
        dropped.extend((int(indexes[k]), skip) for k, skip in batch.skipped)
        if batch.file_hash is not None:
            file_hash[indexes] = batch.file_hash
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
    return Fingerprinted(
        builder.table(positions), skips, None if keys is None else keys[positions], positions,
        dropped, file_hash,
    )  # fmt: skip


def _learns_while_discovering(
    roots: Sequence[str], options: ScanOptions, cache: ScanCache | None
) -> bool:
    """Whether discovery walks in a child while this process learns the words of the files
    it finds (``engines.warmup``): for folders the scan cache knows nothing of (a rescan's
    files are mostly answered by the cache, and learning would be wasted)."""
    if not any(os.path.isdir(root) for root in roots):
        return False
    if cache is None:
        return True
    methods = ("simhash", "minhash") if options.method == "auto" else (options.method,)
    for method in methods:
        if cache.knows(scan_cache_key(resolve_options(options, {"method": method}), roots)):
            return False
    return True


def scan_cache_key(options: ScanOptions, roots: Sequence[str]) -> str:
    """The key under which the scan cache keeps a scan of ``roots`` with ``options`` (its
    method decided, as ``resolve_options`` decides it once the files are counted)."""
    from .store.cached_scan import cached_scan_key

    bands = band_layout(options) if options.method == "minhash" else None
    return cached_scan_key(options.features.cache_key(), bands, roots)


def scan(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    *,
    backend: Backend | None = None,
    progress: Progress | None = None,
    reference: Reference | None = None,
    keep_signatures: bool = False,
    cache: ScanCache | None = None,
    **overrides: Any,
) -> ScanResult:
    """Find near-duplicate documents under ``paths``.

    ``options`` is a ``ScanOptions``; keyword arguments override its fields, e.g.
    ``scan(["docs"], threshold=2, jobs=1)``. ``backend`` (``engines.backend.Backend``) says
    how the files are listed, fingerprinted and joined (default: this machine's discovery,
    engine and join); the engine it makes must have ``options.features`` as resolved for
    the scan's method. With ``reference`` (a named index), the pairs are those among the
    files and those between a file and a stored document; clusters may then hold stored
    documents, under their keys. A MinHash scan joined here keeps its documents' records
    without their signatures (their band keys are taken as they arrive) unless
    ``keep_signatures``. ``cache`` (a ``store.cache.ScanCache``, for the local join): what
    earlier scans of the same folders learned is reused (``store.cached_scan``), and this
    scan is remembered.
    """
    options = resolve_options(options, overrides)
    set_limits_of(options.discovery)
    roots = [os.fspath(p) for p in paths]
    backend = backend or LOCAL
    started = time.perf_counter()
    walks_here = backend.local and backend.find is find_files
    if walks_here and _learns_while_discovering(roots, options, cache):
        found = discover_while_learning(roots, options.discovery, options.features)
    else:
        found = backend.find(roots, options.discovery)
    files, skipped = found.files, found.skipped
    options = resolve_options(options, {}, files=len(files))
    engine = backend.engine(options)
    if engine.params != options.features:
        raise ValueError("the engine's parameters are not the scan's (options.features)")
    join = backend.join
    # The name only: a scan answered from the cache loads no dictionary.
    settings = options.describe(resolve_backend(options.features.segmenter))
    memory = None
    if cache is not None and join is None and not keep_signatures:
        from .store.cached_scan import CachedScan

        memory = CachedScan(
            cache, roots, options.features.cache_key(), settings,
            bands=band_layout(options) if options.method == "minhash" else None,
            keep_outcome=reference is None, max_size=options.discovery.max_size,
        )  # fmt: skip
    discovered = time.perf_counter()
    strip = options.method == "minhash" and join is None and not keep_signatures
    files_found, files_ignored = len(files), found.ignored
    del found
    with long_lived_records() as settle:
        settle()  # the files found
        reused = memory.reuse(SourceFiles.of(files)) if memory is not None else None
        if reused is not None:
            docs, remembered_skips, outcome = reused
            skips = list(skipped) + remembered_skips
            fingerprinted = time.perf_counter()
            candidates = int(outcome.stats.get("candidates", 0))
            pairs = sorted(
                (duplicate_pair(docs, p) for p in outcome.verified()), key=lambda p: (p.a, p.b)
            )
            joined = Joined(tuple(pairs), tuple(outcome.clusters(docs.paths)))
        else:
            if memory is not None:
                engine = memory.engine(engine)
            got = collect_fingerprints(
                files, skipped, options, progress, engine, band_keys=strip, settle=settle
            )
            docs, skips, keys = got.table, got.skips, got.keys
            settle()
            fingerprinted = time.perf_counter()
            if memory is None:
                # What the rest needs of discovery: its counts (a million SourceFile records:
                # 180 MB).
                del files
            if join is None:
                join = memory.join(got.positions, keys) if memory else LocalJoin(keys)
            if memory is None:
                del keys
            candidates, verified = join.pairs(docs, options)
            joined = finish(docs, verified, options, join, reference)
        finished = time.perf_counter()
    stats = scan_stats(
        files_found=files_found, docs=docs, skipped=len(skips), ignored=files_ignored,
        candidates=candidates, joined=joined, reference=reference,
        times=(started, discovered, fingerprinted, finished),
    )  # fmt: skip
    result = ScanResult(
        settings=settings,
        files=docs,
        skipped=tuple(sorted(skips, key=lambda s: s.path)),
        pairs=joined.pairs,
        clusters=joined.clusters,
        stats=stats,
    )
    if memory is not None and reused is None:
        memory.save(SourceFiles.of(files), docs, got.positions, got.dropped, got.file_hash,
                    keys, result, verified)  # fmt: skip
    return result
