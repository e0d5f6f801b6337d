"""``DaskRowEngine``: the rows of datasets read and fingerprinted by the workers of a cluster.

The client cuts each input into partitions (``readers.chunking.row_partitions``): runs of Parquet
row groups, byte spans of an uncompressed JSON Lines file, or the whole file where it cannot be
cut (a compressed stream, CSV). The workers read their partitions themselves: the client reads
only Parquet metadata. A JSON Lines span's first row and line are not known before the spans
before it are read, so its rows and lines are first counted on the workers (a cheap pass: no
parsing), then every partition is fingerprinted on a worker by ``engines.rows.fingerprint_chunk``,
as the local engine does, numbered as a read of the whole file numbers it. The results come
back in input order: the same ``ChunkResult``s as the local engine's, so the same decisions.

Paths are resolved on the workers from the client's working folder (``engine.Origin``): the
workers must see the files at the same paths (a shared file system).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from ..engines.base import BandLayout
from ..engines.rows import ChunkResult, fingerprint_chunk, init_row_worker
from ..params import FeatureParams
from ..readers.chunking import (
    PARTITION_BYTES,
    RowPartition,
    count_partition,
    is_span,
    numbered,
    partition_chunks,
    row_partitions,
)
from ..readers.rows import RowOptions
from ..records import SkippedFile
from .cluster import ClusterError, VersionMismatch, check_version
from .engine import Origin


def _local(part: RowPartition, origin: Origin) -> RowPartition:
    if os.path.isabs(part.path):
        return part
    return replace(part, path=os.path.join(origin.cwd, part.path))


def count_rows(part: RowPartition, rows: RowOptions, origin: Origin) -> tuple[int, int]:
    """The rows and lines of a JSON Lines span (run on a worker)."""
    check_version(origin.version)
    return count_partition(_local(part, origin), rows)


def fingerprint_partition(
    part: RowPartition,
    params: FeatureParams,
    rows: RowOptions,
    bands: BandLayout | None,
    origin: Origin,
) -> list[ChunkResult]:
    """The rows of a partition fingerprinted (run on a worker)."""
    check_version(origin.version)
    init_row_worker(params, rows)
    return [
        fingerprint_chunk(chunk, bands) for chunk in partition_chunks(_local(part, origin), rows)
    ]


def _gathered(futures: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` of each future as it finishes; a failed task ends the run."""
    from distributed import as_completed

    index = {future.key: n for n, future in enumerate(futures)}
    for future in as_completed(futures):
        try:
            value = future.result()
        except VersionMismatch:
            raise
        except Exception as exc:
            raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from exc
        yield index[future.key], value


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
        origin = Origin.here()
        parts: list[RowPartition] = []
        for found in row_partitions(paths, rows, self.partition_bytes or PARTITION_BYTES):
            if isinstance(found, SkippedFile):
                skipped.append(found)
            else:
                parts.append(found)
        parts = self._numbered(parts, rows, origin)
        futures = self.client.map(
            fingerprint_partition, parts, params=params, rows=rows, bands=bands, origin=origin,
            pure=False,
        )  # fmt: skip
        waiting: dict[int, list[ChunkResult]] = {}
        due = 0
        try:
            for n, results in _gathered(futures):
                waiting[n] = results
                while due in waiting:
                    yield from waiting.pop(due)
                    due += 1
        finally:
            self.client.cancel(futures)

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
