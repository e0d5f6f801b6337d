"""A scan: discovery -> engine (fingerprints) -> candidates -> verification -> clusters -> result.

``scan`` asks its backend (``engines.backend``) for each choice and for a run whose steps
(reuse, engine, join, save) say what a backend that remembers scans changes; there is no
branch for the cache here. The library never prints and never exits; progress is reported
through a plain callback.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..document_table import DocumentTable, TableBuilder
from ..engines import Engine, Progress, batches_of, make_engine
from ..engines.backend import LOCAL, Backend, Fingerprinted
from ..engines.batching import long_lived_records
from ..join import Reference
from ..join.finish import finish, scan_stats
from ..join.verify import band_layout
from ..options import ScanOptions, resolve_options
from ..readers import set_limits_of
from ..records import ScanResult, SkippedFile, SourceFile, SourceFiles
from ..text.segmentation import resolve_backend


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


def scan_cache_key(options: ScanOptions, roots: Sequence[str]) -> str:
    """The key under which the scan cache keeps a scan of ``roots`` with ``options`` (its
    method decided, as ``resolve_options`` decides it once the files are counted)."""
    from .cache import cached_scan_key

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
    **overrides: Any,
) -> ScanResult:
    """Find near-duplicate documents under ``paths``. ``options``: a ``ScanOptions`` whose
    fields keyword arguments override (``scan(["docs"], threshold=2, jobs=1)``). ``backend``:
    how files are listed, fingerprinted and joined (default: this machine's) and whether scans
    are remembered (``cache.CachedBackend``: earlier scans of the same folders reused, this
    one kept). ``reference`` (a named index): pairs with its stored documents too (clusters
    may hold them, under their keys). A MinHash scan joined here keeps its records without
    their signatures (band keys taken as they arrive) unless ``keep_signatures``."""
    options = resolve_options(options, overrides)
    set_limits_of(options.discovery)
    roots, backend = [os.fspath(p) for p in paths], backend or LOCAL
    started = time.perf_counter()
    found = backend.discover(roots, options)
    files, skipped, files_ignored = found.files, found.skipped, found.ignored
    del found
    options = resolve_options(options, {}, files=len(files))
    # The name only: a scan answered from the cache loads no dictionary.
    settings = options.describe(resolve_backend(options.features.segmenter))
    run = backend.start(roots, options, settings, keep_outcome=reference is None,
                        keep_signatures=keep_signatures)  # fmt: skip
    discovered, files_found = time.perf_counter(), len(files)
    with long_lived_records() as settle:
        settle()  # the files found
        reused = run.reuse(files)
        if reused is not None:
            docs, candidates, joined = reused.docs, reused.candidates, reused.joined
            skips = list(skipped) + reused.skips
            fingerprinted = time.perf_counter()
        else:
            got = collect_fingerprints(files, skipped, options, progress, run.engine,
                                       band_keys=run.band_keys, settle=settle)  # fmt: skip
            docs, skips = got.table, got.skips
            settle()
            fingerprinted = time.perf_counter()
            kept = run.kept(files)  # None unless the run saves them: let go of them
            del files
            join = run.join(got)
            candidates, verified = join.pairs(docs, options)
            joined = finish(docs, verified, options, join, reference)
        finished = time.perf_counter()
    stats = scan_stats(
        files_found=files_found, docs=docs, skipped=len(skips), ignored=files_ignored,
        candidates=candidates, joined=joined, reference=reference,
        times=(started, discovered, fingerprinted, finished),
    )  # fmt: skip
    result = ScanResult(settings, docs, tuple(sorted(skips, key=lambda s: s.path)),
                        joined.pairs, joined.clusters, stats)  # fmt: skip
    if reused is None:
        run.save(kept, got, result, verified)
    return result
