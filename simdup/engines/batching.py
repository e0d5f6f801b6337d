"""Results in batches: how work is cut for the workers, and how any engine's results become the
batches of columns a scan keeps."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from ..algorithms.minhash import band_keys
from ..document_table import FingerprintBatch
from ..records import SourceFile
from .base import BandLayout, BatchEngine, Batches, Engine, Progress, Result, StreamingEngine


def keyed(batch: FingerprintBatch, bands: BandLayout | None) -> FingerprintBatch:
    """``batch`` with the band keys of its signatures in ``bands`` layout instead of the
    signatures (unchanged without a layout)."""
    if bands is None or batch.band_keys is not None:
        return batch
    n_bands, rows = bands
    signature = batch.signature
    if signature is None:
        if batch.at.size:
            raise ValueError("documents without MinHash signatures have no band keys")
        signature = np.empty((0, n_bands * rows), dtype=np.uint64)
    return replace(batch, signature=None, band_keys=band_keys(signature, n_bands, rows))


PACKED_BATCH = 1024


def packed(
    completed: Iterable[tuple[int, Result]],
    size: int | None = None,
    bands: BandLayout | None = None,
) -> Batches:
    """Results given one at a time with their indexes (``completed``), as batches of ``size``
    (``PACKED_BATCH``), ``keyed`` with ``bands``."""
    size = size or PACKED_BATCH
    indexes: list[int] = []
    results: list[Result] = []
    for index, result in completed:
        indexes.append(index)
        results.append(result)
        if len(results) >= size:
            yield np.array(indexes, dtype=np.int64), keyed(FingerprintBatch.pack(results), bands)
            indexes, results = [], []
    if results:
        yield np.array(indexes, dtype=np.int64), keyed(FingerprintBatch.pack(results), bands)


def batches_of(engine: Engine, files: Sequence[SourceFile], progress: Progress | None = None,
               bands: BandLayout | None = None) -> Batches:  # fmt: skip
    """The results of any engine as batches: its own where it makes them, else packed from
    its records (in the order it finishes them where it can say so). With ``bands``, each
    batch holds band keys in that layout, not signatures (``keyed``)."""
    if isinstance(engine, BatchEngine):
        return engine.completed_batches(files, progress, bands)
    if isinstance(engine, StreamingEngine):
        return packed(engine.completed(files, progress), bands=bands)
    return packed(enumerate(engine.run(files, progress)), bands=bands)


def in_file_order(completed: Iterator[tuple[int, Result]], total: int) -> Iterator[Result]:
    """The results of ``completed`` (in any order) in the order of their indexes."""
    results: list[Result | None] = [None] * total
    for index, result in completed:
        results[index] = result
    for finished in results:
        assert finished is not None
        yield finished


# A task's round trip (pickling its files, unpickling its results, filling the table) cost the
# parent ~0.6 ms: at 128 files a batch, 10^5 short files kept the parent busy 0.5 s of the two
# workers' cores; at 1024, 0.36 s. Guided sizes still shrink to MIN_BATCH at the end.
MAX_BATCH = 1024
MIN_BATCH = 4


def batches(files: Sequence[SourceFile], jobs: int) -> list[tuple[int, Sequence[SourceFile]]]:
    """Consecutive runs of files with their start index, each 1/(2 jobs) of what is left
    (guided scheduling): batches shrink towards the end so that no worker is left with a long
    batch while the others idle."""
    out: list[tuple[int, Sequence[SourceFile]]] = []
    start = 0
    while start < len(files):
        size = min(MAX_BATCH, max(MIN_BATCH, -(-(len(files) - start) // (2 * jobs))))
        out.append((start, files[start : start + size]))
        start += size
    return out


def describe_batch(batch: tuple[int, Sequence[SourceFile]]) -> str:
    """A batch of work as the pool names it when a worker dies on it."""
    _, sources = batch
    first = sources[0].path if sources else "?"
    return f"a batch of {len(sources)} files from {first!r}"


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
