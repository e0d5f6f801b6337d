"""The local engines: ``SerialEngine`` in this process, ``ProcessPoolEngine`` in supervised
worker processes (it falls back to serial work where a pool costs more than it saves).

Both run the same worker functions on the same process globals (the worker's processor), so
they live together: the serial engine is the pool's work done here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..document_table import FingerprintBatch
from ..params import FeatureParams
from ..records import SourceFile, SourceFiles
from .base import BandLayout, Batches, Progress, Result, Sink, TextTask
from .batching import batches, describe_batch, in_file_order, keyed, packed
from .workerpool import WorkerPool

if TYPE_CHECKING:
    from ..text.processor import DocumentProcessor


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

    def with_task(self, task: TextTask, sink: Sink) -> SerialEngine:
        return SerialEngine(self.params, self.max_size, task, sink)


_WORKER: DocumentProcessor | None = None
_WORKER_MAX_SIZE = 0
_WORKER_TASK: TextTask | None = None


def _init_worker(params: FeatureParams, max_size: int, task: TextTask | None = None) -> None:
    global _WORKER, _WORKER_MAX_SIZE, _WORKER_TASK
    # Imported here: a run the cache answers whole never loads a segmenter.
    from ..text.processor import processor_for

    _WORKER = processor_for(params)
    _WORKER_MAX_SIZE = max_size
    _WORKER_TASK = task


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


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class ProcessPoolEngine:
    """Files fingerprinted by ``jobs`` supervised worker processes (``engines.workerpool``).

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

    def with_task(self, task: TextTask, sink: Sink) -> ProcessPoolEngine:
        return ProcessPoolEngine(self.params, self.max_size, self.jobs, task, sink)

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
            describe=describe_batch,
        )  # fmt: skip
