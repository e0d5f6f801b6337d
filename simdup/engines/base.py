"""The engine seam: what every engine gives, and the work it can be asked to do on the side.

An engine's ``run(files)`` yields, for each ``SourceFile`` in order, its
``FingerprintedDocument`` or the ``SkippedFile`` saying why it has none. Engines differ only in
where the work happens, never in the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..document_table import FingerprintBatch
from ..document_table import Result as Result  # re-exported: what an engine gives per file
from ..params import FeatureParams
from ..records import DecodedDocument, SourceFile

Progress = Callable[[int, int], None]


class TextTask(Protocol):
    """More work done with each text a worker fingerprints, while it has the decoded text
    (``scan --passages`` cuts it into passage windows): a text is read and decoded once. Made
    in the parent and pickled to the workers; its result goes back to the engine's ``sink``.
    """

    def __call__(self, document: DecodedDocument) -> Any: ...


# In the parent: what a text task made of a file (None when it was not fingerprinted).
Sink = Callable[[SourceFile, Result, Any], None]


class Engine(Protocol):
    """Turns sources into fingerprint records, one per file, in the order of ``files``."""

    params: FeatureParams

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]: ...

    def with_task(self, task: TextTask, sink: Sink) -> Engine | None:
        """The same engine running ``task`` on each text it fingerprints, with the task's
        result handed to ``sink`` in this process; None when it cannot (its workers never
        hold the texts, as on a Dask cluster): the caller then reads the files itself."""
        ...


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
