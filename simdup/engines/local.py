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
from . import batching
from .base import BandLayout, Batches, Progress, Result, Sink, TextTask
from .batching import batches, describe_batch, in_file_order, keyed
from .workerpool import WorkerPool, WorkerState

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
        for start, done in self._worked(files, progress):
            for k, (result, _, _) in enumerate(done):
                yield start + k, result

    def completed_batches(
        self,
        files: Sequence[SourceFile],
        progress: Progress | None = None,
        bands: BandLayout | None = None,
    ) -> Batches:
        """``completed`` in batches of ``PACKED_BATCH``, with their files' hashes."""
        for start, done in self._worked(files, progress):
            yield np.arange(start, start + len(done), dtype=np.int64), pack_worked(done, bands)

    def _worked(
        self, files: Sequence[SourceFile], progress: Progress | None
    ) -> Iterator[tuple[int, list[Worked]]]:
        """Runs of ``(result, task's result, file hash)`` with the index of their first file
        (the sink told of each as it comes)."""
        from ..readers import reading_session

        _init_worker(self.params, self.max_size, self.task)
        total = len(files)
        run: list[Worked] = []
        start = 0
        with reading_session():  # one reading child for the PDFs, Word files... of the run
            for done, source in enumerate(files, 1):
                worked = _work_file(source)
                if self.sink is not None:
                    self.sink(source, worked[0], worked[1])
                run.append(worked)
                if progress:
                    progress(done, total)
                if len(run) >= batching.PACKED_BATCH or done == total:
                    yield start, run
                    start, run = done, []

    def with_task(self, task: TextTask, sink: Sink) -> SerialEngine:
        return SerialEngine(self.params, self.max_size, task, sink)


# The processor, the size limit and the text task of this process's files.
_STATE: WorkerState[tuple[DocumentProcessor, int, TextTask | None]] = WorkerState(
    "fingerprinting files"
)


def _init_worker(params: FeatureParams, max_size: int, task: TextTask | None = None) -> None:
    # Imported here: a run the cache answers whole never loads a segmenter.
    from ..text.processor import processor_for

    _STATE.set((processor_for(params), max_size, task))


def _init_pool_worker(
    params: FeatureParams, max_size: int, task: TextTask | None = None
) -> None:
    """``_init_worker`` in a worker process, which reads the documents of other formats in
    one reading child for its whole life."""
    from ..readers import open_reading_session

    _init_worker(params, max_size, task)
    open_reading_session()


# What a worker makes of one file: its record, the text task's result, its bytes' hash.
Worked = tuple[Result, Any, bytes]


def _work_file(source: SourceFile) -> Worked:
    from .work import fingerprint_source  # with the processor: not before a file is read

    processor, max_size, task = _STATE.get()
    return fingerprint_source(processor, source, max_size, task)


def _work_batch(batch: tuple[int, Sequence[SourceFile]]) -> tuple[int, list[Worked]]:
    start, sources = batch
    return start, [_work_file(source) for source in sources]


def pack_worked(done: Sequence[Worked], bands: BandLayout | None) -> FingerprintBatch:
    """Records and file hashes as a batch of columns (``keyed`` with ``bands``)."""
    batch = FingerprintBatch.pack([w[0] for w in done], [w[2] for w in done])
    return keyed(batch, bands)


def _work_packed(
    batch: tuple[int, Sequence[SourceFile]], bands: BandLayout | None = None
) -> tuple[int, FingerprintBatch]:
    """``_work_batch`` without a task, its records packed as columns for the trip back
    (``keyed`` with ``bands``)."""
    start, sources = batch
    return start, pack_worked([_work_file(source) for source in sources], bands)


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
            yield from self._serial().completed(files, progress)
            return
        for indexes, done in self._worked(files, progress):
            for index, (result, _, _) in zip(indexes.tolist(), done, strict=True):
                yield index, result

    def completed_batches(
        self,
        files: Sequence[SourceFile],
        progress: Progress | None = None,
        bands: BandLayout | None = None,
    ) -> Batches:
        """``completed`` as batches with their files' hashes, packed (and ``keyed``) by the
        workers; with a task or a sink each record is needed here, and is packed here."""
        if not self.pays(files):
            yield from self._serial().completed_batches(files, progress, bands)
            return
        if self.task is not None or self.sink is not None:
            for indexes, done in self._worked(files, progress):
                yield indexes, pack_worked(done, bands)
            return
        order, work = self._plan(files)
        positions = np.array(order, dtype=np.int64)
        done_count, total = 0, len(files)
        with self._pool(functools.partial(_work_packed, bands=bands)) as pool:
            for _, (start, batch) in pool.results(work):
                done_count += batch.count
                if progress:
                    progress(done_count, total)
                yield positions[start : start + batch.count], batch

    def _serial(self) -> SerialEngine:
        return SerialEngine(self.params, self.max_size, self.task, self.sink)

    def _worked(
        self, files: Sequence[SourceFile], progress: Progress | None
    ) -> Iterator[tuple[np.ndarray, list[Worked]]]:
        """What the workers made of each batch, with the files' indexes (the sink told of
        each record as it arrives)."""
        order, work = self._plan(files)
        positions = np.array(order, dtype=np.int64)
        done_count, total = 0, len(files)
        with self._pool(_work_batch) as pool:
            for _, (start, batch) in pool.results(work):
                done_count += len(batch)
                if progress:
                    progress(done_count, total)
                indexes = positions[start : start + len(batch)]
                if self.sink is not None:
                    for index, (result, made, _) in zip(indexes.tolist(), batch, strict=True):
                        self.sink(files[index], result, made)
                yield indexes, batch

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
            work, self.jobs, initializer=_init_pool_worker, initargs=initargs,
            describe=describe_batch,
        )  # fmt: skip
