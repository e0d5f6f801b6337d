"""``DaskRowEngine``: the rows of datasets read and worked on by the workers of a cluster.

The client cuts each input into partitions (``readers.chunking.row_partitions``): runs of Parquet
row groups, byte spans of an uncompressed JSON Lines file, or the whole file where it cannot be
cut (a compressed stream, CSV). The workers read their partitions themselves: the client reads
only Parquet metadata. A JSON Lines span's first row and line are not known before the spans
before it are read, so its rows and lines are first counted on the workers (a cheap pass: no
parsing), then every partition's chunks, numbered as a read of the whole file numbers them, go
through the function a local worker runs: ``engines.rows.fingerprint_chunk`` (``dedup``,
``scan --records``), ``rows.decon.worker.scan_chunk`` or ``rows.spans.worker.spans_chunk``,
after the same initializer has set the worker's state. The results come back in input order:
the same objects as the local engine's, so the same decisions.

Paths are resolved on the workers from the client's working folder (``engines.tasks.Origin``): the
workers must see the files at the same paths (a shared file system).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ..engines.base import BandLayout
from ..engines.rows import ChunkResult, fingerprint_chunk, init_row_worker
from ..engines.tasks import Origin
from ..params import FeatureParams
from ..readers.chunking import (
    PARTITION_BYTES,
    RowChunk,
    RowPartition,
    count_partition,
    is_span,
    numbered,
    partition_chunks,
    row_partitions,
)
from ..readers.rows import RowOptions
from ..records import SkippedFile
from .cluster import check_version, task_result, worker_count

Result = TypeVar("Result")

# Partitions a worker gets at least, when the inputs allow (see ``_partition_bytes``); none is
# smaller than ``MIN_PARTITION_BYTES``: a task costs a few milliseconds to schedule and its
# partition's spans are counted in a pass of their own.
PARTITIONS_PER_WORKER = 4
MIN_PARTITION_BYTES = 4 << 20


def _local(part: RowPartition, origin: Origin) -> RowPartition:
    return replace(part, path=origin.path(part.path))


def count_rows(part: RowPartition, rows: RowOptions, origin: Origin) -> tuple[int, int]:
    """The rows and lines of a JSON Lines span (run on a worker)."""
    check_version(origin.version)
    return count_partition(_local(part, origin), rows)


def partition_results(
    part: RowPartition,
    rows: RowOptions,
    work: Callable[[RowChunk], Result],
    setup: tuple[Callable[..., None], tuple[Any, ...]],
    origin: Origin,
) -> list[Result]:
    """``work`` of each chunk of a partition's rows (run on a worker), after ``setup``'s
    initializer has set this process's state from its arguments, as a local worker's does."""
    check_version(origin.version)
    initializer, initargs = setup
    initializer(*initargs)
    return [work(chunk) for chunk in partition_chunks(_local(part, origin), rows)]


def _gathered(futures: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` of each future as it finishes; a failed task ends the run."""
    from distributed import as_completed

    index = {future.key: n for n, future in enumerate(futures)}
    for future in as_completed(futures):
        yield index[future.key], task_result(future)


class DaskRowEngine:
    """Rows read and fingerprinted by the workers of ``client`` (a ``distributed.Client``), in
    partitions of about ``partition_bytes``."""

    def __init__(self, client: Any, partition_bytes: int | None = None) -> None:
        self.client = client
        self.partition_bytes = partition_bytes

    def results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        params: FeatureParams,
        bands: BandLayout | None,
        skipped: list[SkippedFile],
    ) -> Iterator[ChunkResult]:
        work = functools.partial(fingerprint_chunk, bands=bands)
        return self.chunk_results(paths, rows, work, init_row_worker, (params, rows), skipped)

    def chunk_results(
        self,
        paths: Sequence[str],
        rows: RowOptions,
        work: Callable[[RowChunk], Result],
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        skipped: list[SkippedFile],
    ) -> Iterator[Result]:
        """``work`` of each chunk of the rows of ``paths``, in input order, run by the workers
        on the partitions they read; ``initializer(*initargs)`` sets a worker's state first.
        The arguments travel once to each worker (scattered), not once a task: a verb's state
        may be large (``decon``'s item index)."""
        origin = Origin.here()
        parts: list[RowPartition] = []
        size = self.partition_bytes or self._partition_bytes(paths)
        for found in row_partitions(paths, rows, size):
            if isinstance(found, SkippedFile):
                skipped.append(found)
            else:
                parts.append(found)
        parts = self._numbered(parts, rows, origin)
        if not parts:
            return
        (setup,) = self.client.scatter([(initializer, initargs)], broadcast=True, hash=False)
        futures = self.client.map(
            partition_results, parts, rows=rows, work=work, setup=setup, origin=origin,
            pure=False,
        )  # fmt: skip
        waiting: dict[int, list[Result]] = {}
        due = 0
        try:
            for n, results in _gathered(futures):
                waiting[n] = results
                while due in waiting:
                    yield from waiting.pop(due)
                    due += 1
        finally:
            self.client.cancel([*futures, setup])

    def _partition_bytes(self, paths: Sequence[str]) -> int:
        """Partitions of at most ``PARTITION_BYTES``, and at least ``PARTITIONS_PER_WORKER`` a
        worker where the inputs are large enough: 202 MB cut in 64 MB pieces gave one of two
        workers twice the other's work (measured: read and fingerprint 1.5x the local engine's
        time), and a small partition is little to run again when a worker is lost."""
        workers = max(1, worker_count(self.client))
        total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
        even = total // (PARTITIONS_PER_WORKER * workers)
        return max(MIN_PARTITION_BYTES, min(PARTITION_BYTES, even))

    def _numbered(
        self, parts: list[RowPartition], rows: RowOptions, origin: Origin
    ) -> list[RowPartition]:
        """The partitions with the first row and line of each JSON Lines span, from the rows
        and lines the workers counted in the spans before it."""
        spans = [n for n, p in enumerate(parts) if is_span(p)]
        if not spans:
            return parts
        futures = self.client.map(
            count_rows, [parts[n] for n in spans], rows=rows, origin=origin, pure=False
        )
        counts: dict[int, tuple[int, int]] = {}
        try:
            for k, value in _gathered(futures):
                counts[spans[k]] = value
        finally:
            self.client.cancel(futures)
        return numbered(parts, counts)
