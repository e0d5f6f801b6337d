"""``DaskEngine``: sources fingerprinted by the workers of a Dask cluster.

The files are cut into partitions of consecutive sources; each partition is one Dask task that
runs the process's ``DocumentProcessor`` (``simdup.text.processor.processor_for``, built once per
worker process and parameter set) on each source, exactly as ``SerialEngine`` does, and
returns the records. Results come back in the order of the files. A task is a pure function
of its sources, so when a worker is lost mid-run Dask runs its tasks again elsewhere and the
result is the same.

Paths stay as the user wrote them in the records; a worker reads a relative path from the
client's working folder (workers started elsewhere must see the files at the same absolute
paths: a shared file system). The device and inode that discovery saw identify a file only on
the machine that saw it (an NFS mount has another device number on each client), so a worker
on another host checks the file's identity only by its path. fsspec URLs (``s3://...``) are
read with fsspec on the worker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from ..engines import Progress, Result, Sink, TextTask
from ..engines.tasks import Origin as Origin  # where the client runs (importable from here)
from ..params import FeatureParams
from ..records import SkippedFile, SourceFile
from .cluster import check_version, task_result, worker_count

# Sources per task: large enough that scheduling costs little (~1 ms a task), small enough
# that a lost worker costs little and that progress moves. The number of tasks is also kept
# at 4 per worker or more, so that no worker waits for the last long one.
MAX_PARTITION = 256


def is_url(path: str) -> bool:
    """An fsspec URL (``s3://bucket/key``, ``file:///...``), not a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.isidentifier() and len(scheme) > 1


def read_url(path: str, max_size: int) -> bytes:
    """The bytes behind an fsspec URL, at most ``max_size`` (else ``ValueError``)."""
    import fsspec

    with fsspec.open(path, "rb") as handle:
        data: bytes = handle.read(max_size + 1)
    if len(data) > max_size:
        raise ValueError(f"larger than --max-size ({max_size} bytes)")
    return data


def fingerprint_partition(
    sources: Sequence[SourceFile], params: FeatureParams, max_size: int, origin: Origin
) -> list[Result]:
    """The records of ``sources`` (run on a worker)."""
    check_version(origin.version)
    from ..engines.work import fingerprint_bytes, fingerprint_file
    from ..text.processor import processor_for

    processor = processor_for(params)
    out: list[Result] = []
    for source in sources:
        if is_url(source.path):
            try:
                data = read_url(source.path, max_size)
            except (OSError, ValueError) as exc:
                out.append(SkippedFile(source.path, "read", str(exc) or type(exc).__name__))
                continue
            out.append(fingerprint_bytes(processor, source.path, data))
            continue
        local = origin.source(source)
        result = fingerprint_file(processor, local, max_size)
        out.append(result if local.path == source.path else replace(result, path=source.path))
    return out


def partitions(files: Sequence[SourceFile], workers: int) -> list[Sequence[SourceFile]]:
    """Consecutive runs of ``files``: at least 4 per worker, at most ``MAX_PARTITION`` long."""
    if not files:
        return []
    size = max(1, min(MAX_PARTITION, -(-len(files) // (4 * max(1, workers)))))
    return [files[start : start + size] for start in range(0, len(files), size)]


class DaskEngine:
    """Files fingerprinted by the workers of ``client`` (a ``distributed.Client``)."""

    def __init__(self, params: FeatureParams, max_size: int, client: Any) -> None:
        self.params = params
        self.max_size = max_size
        self.client = client

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        from distributed import as_completed

        parts = partitions(files, worker_count(self.client))
        origin = Origin.here()
        futures = self.client.map(
            fingerprint_partition,
            parts,
            params=self.params,
            max_size=self.max_size,
            origin=origin,
            pure=False,
        )
        index = {future.key: n for n, future in enumerate(futures)}
        results: list[list[Result] | None] = [None] * len(parts)
        done, total = 0, len(files)
        try:
            for future in as_completed(futures):
                batch = task_result(future)
                n = index[future.key]
                results[n] = batch
                done += len(parts[n])
                if progress:
                    progress(done, total)
        finally:
            self.client.cancel(futures)
        for batch in results:
            assert batch is not None
            yield from batch

    def with_task(self, task: TextTask, sink: Sink) -> None:
        """None: the texts stay on the workers (the caller reads the files it needs)."""
        return None
