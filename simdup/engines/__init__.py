"""Engines: the one place where sources become fingerprint records.

An engine's ``run(files)`` yields, for each ``SourceFile`` in order, its
``FingerprintedDocument`` or the ``SkippedFile`` saying why it has none (``base``). Engines
differ only in where the work happens, never in the result: ``SerialEngine`` in this process,
``ProcessPoolEngine`` in supervised worker processes (``local``, on ``workerpool``); the scan
cache (``simdup.scanning.cache.CachedEngine``) wraps either, and the Dask engine
(``simdup.distributed.engine``) runs the same work on a cluster. ``batching`` cuts the work
and packs results as columns; ``rows`` is the engine of datasets of rows (and the one pool of
every verb over rows); ``backend`` the choices a scan makes (where files are listed,
fingerprinted and joined); ``warmup`` discovery in a child while this process learns words.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..params import FeatureParams
from ..records import SourceFile
from .base import (
    BandLayout,
    BatchEngine,
    Batches,
    Engine,
    Progress,
    Result,
    Sink,
    StreamingEngine,
    TextTask,
)
from .batching import batches, batches_of, in_file_order, keyed, packed
from .local import ProcessPoolEngine, SerialEngine, default_jobs

__all__ = [
    "BandLayout",
    "BatchEngine",
    "Batches",
    "Engine",
    "ProcessPoolEngine",
    "Progress",
    "Result",
    "SerialEngine",
    "Sink",
    "StreamingEngine",
    "TextTask",
    "batches",
    "batches_of",
    "default_jobs",
    "fingerprint_files",
    "in_file_order",
    "keyed",
    "make_engine",
    "packed",
]


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
