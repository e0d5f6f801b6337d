"""Engines: the one place where sources become fingerprint records.

An engine's ``run(files)`` yields, for each ``SourceFile`` in order, its
``FingerprintedDocument`` or the ``SkippedFile`` saying why it has none. Engines differ only in
where the work happens, never in the result: ``SerialEngine`` in this process,
``ProcessPoolEngine`` in supervised worker processes (it falls back to serial work where a pool
costs more than it saves); the scan cache (``simdup.store.cached_engine.CachedEngine``) wraps
either. Process globals (the worker's processor) live here, with the engine that needs them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .algorithms.minhash import band_keys
from .document_table import FingerprintBatch
from .document_table import Result as Result  # re-exported: what an engine gives per file
from .params import FeatureParams
from .records import SourceFile, SourceFiles
from .workerpool import WorkerPool

if TYPE_CHECKING:
    from .text.processor import DocumentProcessor

Progress = Callable[[int, int], None]


class Engine(Protocol):
    """Turns sources into fingerprint records, one per file, in the order of ``files``."""

    params: FeatureParams

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]: ...


@runtime_checkable
class StreamingEngine(Engine, Protocol):
    """An engine that can also give each result as soon as it is ready, with its index in
    ``files``: the scan cache stores them as they come, so a run killed midway keeps what its
    workers had finished."""

    def completed(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[tuple[int, Result]]: ...


# Results with the index in ``files`` of each of them: ``(indexes, batch)``.
Batches = Iterator[tuple[np.ndarray, FingerprintBatch]]
# The LSH band layout ``(bands, rows)`` whose keys a MinHash scan needs of each signature.
BandLayout = tuple[int, int]


@runtime_checkable
class BatchEngine(Engine, Protocol):
    """An engine that gives its results in batches of columns, as they are ready: result
    ``k`` of a batch is that of file ``indexes[k]``. A scan of 10^6 files then keeps columns
    (``DocumentTable``), never a record per file, and unpickles a few arrays per batch. With
    ``bands``, batches carry the band keys of the signatures instead of them (``keyed``)."""

    def completed_batches(self, files: Sequence[SourceFile], progress: Progress | None = None,
                          bands: BandLayout | None = None) -> Batches: ...  # fmt: skip


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


class TextTask(Protocol):
    """More work done with each text a worker fingerprints, while it has the decoded text
    (``scan --passages`` cuts it into passage windows): a text is read and decoded once. Made
    in the parent and pickled to the workers; its result goes back to the engine's ``sink``.
    """

    def __call__(self, path: str, text: str) -> Any: ...


# In the parent: what a text task made of a file (None when it was not fingerprinted).
Sink = Callable[[SourceFile, Result, Any], None]


class SerialEngine:
    """Every file in this process, one after the other. With ``task``, ``sink(source, result,
    task's result)`` is called for every file."""

    def __init__(
        self,
        params: FeatureParams,
        max_size: int,
        task: TextTask | None = None,
        sink: Sink | None = None,
    ) -> None:
        self.params = params
        self.max_size = max_size
        self.task = task
        self.sink = sink

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        for _, result in self.completed(files, progress):
            yield result

    def completed(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[tuple[int, Result]]:
        _init_worker(self.params, self.max_size, self.task)
        total = len(files)
        for done, source in enumerate(files, 1):
            result, made = _work_file(source)
            if self.sink is not None:
                self.sink(source, result, made)
            if progress:
                progress(done, total)
            yield done - 1, result


_WORKER: DocumentProcessor | None = None
_WORKER_MAX_SIZE = 0
_WORKER_TASK: TextTask | None = None


def _init_worker(params: FeatureParams, max_size: int, task: TextTask | None = None) -> None:
    global _WORKER, _WORKER_MAX_SIZE, _WORKER_TASK
    # Imported here: a run the cache answers whole never loads a segmenter.
    from .text.processor import processor_for

    _WORKER = processor_for(params)
    _WORKER_MAX_SIZE = max_size
    _WORKER_TASK = task


def _describe_batch(batch: tuple[int, Sequence[SourceFile]]) -> str:
    _, sources = batch
    first = sources[0].path if sources else "?"
    return f"a batch of {len(sources)} files from {first!r}"


def _work_file(source: SourceFile) -> tuple[Result, Any]:
    assert _WORKER is not None
    if _WORKER_TASK is None:
        return _WORKER.file(source, _WORKER_MAX_SIZE), None
    return _WORKER.file_with(source, _WORKER_MAX_SIZE, _WORKER_TASK)


def _work_batch(
    batch: tuple[int, Sequence[SourceFile]],
) -> tuple[int, list[tuple[Result, Any]]]:
    start, sources = batch
    return start, [_work_file(source) for source in sources]


def _work_packed(
    batch: tuple[int, Sequence[SourceFile]], bands: BandLayout | None = None
) -> tuple[int, FingerprintBatch]:
    """``_work_batch`` without a task, its records packed as columns for the trip back
    (``keyed`` with ``bands``)."""
    assert _WORKER is not None
    start, sources = batch
    worker, max_size = _WORKER, _WORKER_MAX_SIZE
    results = [worker.file(source, max_size) for source in sources]
    return start, keyed(FingerprintBatch.pack(results), bands)


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


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class ProcessPoolEngine:
    """Files fingerprinted by ``jobs`` supervised worker processes (``simdup.workerpool``).

    Workers take the largest files first. Near-duplicates have similar sizes, so a worker meets
    a document's other versions in neighbouring batches, where its memo of lines already holds
    most of their lines; and the small files left for the end balance the load. On small
    inputs a pool costs more than it saves, and the files are fingerprinted here instead: the
    results are identical either way. ``task`` and ``sink``: as for ``SerialEngine``.
    """

    def __init__(
        self,
        params: FeatureParams,
        max_size: int,
        jobs: int | None = None,
        task: TextTask | None = None,
        sink: Sink | None = None,
    ) -> None:
        self.params = params
        self.max_size = max_size
        self.jobs = jobs or default_jobs()
        self.task = task
        self.sink = sink

    def pays(self, files: Sequence[SourceFile]) -> bool:
        jobs = self.jobs
        return (
            jobs > 1 and len(files) >= 4 * jobs and int(SourceFiles.of(files).size.sum()) > 1 << 20
        )

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        yield from in_file_order(self.completed(files, progress), len(files))

    def completed(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[tuple[int, Result]]:
        if not self.pays(files):
            serial = SerialEngine(self.params, self.max_size, self.task, self.sink)
            yield from serial.completed(files, progress)
            return
        order, work = self._plan(files)
        done, total = 0, len(files)
        with self._pool(_work_batch) as pool:
            for _, (start, batch) in pool.results(work):
                done += len(batch)
                if progress:
                    progress(done, total)
                for k, (result, made) in enumerate(batch):
                    index = order[start + k]
                    if self.sink is not None:
                        self.sink(files[index], result, made)
                    yield index, result

    def completed_batches(
        self,
        files: Sequence[SourceFile],
        progress: Progress | None = None,
        bands: BandLayout | None = None,
    ) -> Batches:
        """``completed`` as batches packed (and ``keyed``) by the workers (a task or a sink
        needs each record here, and serial work makes them here: those are packed here)."""
        if self.task is not None or self.sink is not None or not self.pays(files):
            yield from packed(self.completed(files, progress), bands=bands)
            return
        order, work = self._plan(files)
        positions = np.array(order, dtype=np.int64)
        done, total = 0, len(files)
        with self._pool(functools.partial(_work_packed, bands=bands)) as pool:
            for _, (start, batch) in pool.results(work):
                done += batch.count
                if progress:
                    progress(done, total)
                yield positions[start : start + batch.count], batch

    def _plan(
        self, files: Sequence[SourceFile]
    ) -> tuple[list[int], list[tuple[int, Sequence[SourceFile]]]]:
        """The files' indexes largest first, and the batches of that order."""
        found = SourceFiles.of(files)
        # Largest first; a stable sort keeps equal sizes in file order.
        order = np.argsort(-found.size, kind="stable")
        return order.tolist(), batches(found.take(order), self.jobs)

    def _pool(self, work: Callable[..., Any]) -> WorkerPool[tuple[int, Sequence[SourceFile]], Any]:
        initargs = (self.params, self.max_size, self.task)
        _init_worker(*initargs)  # load dictionaries once, before fork
        return WorkerPool(
            work, self.jobs, initializer=_init_worker, initargs=initargs,
            describe=_describe_batch,
        )  # fmt: skip


def make_engine(
    params: FeatureParams,
    *,
    max_size: int,
    jobs: int | None = None,
    task: TextTask | None = None,
    sink: Sink | None = None,
) -> Engine:
    """The local engine for ``jobs`` workers (None: all cores; 1: this process only), with a
    text task if given (see ``TextTask``)."""
    if jobs == 1:
        return SerialEngine(params, max_size, task, sink)
    return ProcessPoolEngine(params, max_size, jobs, task, sink)


def fingerprint_files(
    files: Sequence[SourceFile],
    params: FeatureParams,
    *,
    max_size: int,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> Iterator[Result]:
    """``make_engine(params, max_size=..., jobs=...).run(files, progress)``."""
    return make_engine(params, max_size=max_size, jobs=jobs).run(files, progress)
