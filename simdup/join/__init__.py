"""Step 2 of a scan: candidates, the one near-duplicate rule, pairs, clusters.

``verify`` makes candidate pairs (block index or MinHash bands) and holds the one rule,
``Verifier``; ``local`` joins and clusters in this process (``LocalJoin``) and merges the
matches of a stored index (``scan --against``); ``simdup.distributed.join.DaskJoin`` does the
same on a Dask cluster. The protocols both follow are here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..options import ScanOptions
from ..records import Cluster, FingerprintedDocument
from .verify import VerifiedPair


class Join(Protocol):
    """Where candidates are joined and verified and clusters built: ``LocalJoin`` here, or
    ``simdup.distributed.join.DaskJoin`` on a Dask cluster (the same results)."""

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        """The number of candidate pairs, and the verified ones."""
        ...

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]: ...


class Reference(Protocol):
    """Stored documents that a scan's files are checked against (``scan --against``):
    ``simdup.store.index.Index``."""

    path: str

    def match_documents(
        self, docs: Iterable[FingerprintedDocument], options: ScanOptions | None = None
    ) -> list[Any]:  # IndexMatch: path, key, distance, similarity, exact
        ...

    def document(self, key: str) -> FingerprintedDocument | None: ...
