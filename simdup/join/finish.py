"""The tail every scan ends in, whatever made its documents (files, rows of datasets, a Dask
cluster, the scan cache): the stored documents of a reference taken in, clusters, the
reported pairs, and the stats every report shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..options import ScanOptions
from ..records import Cluster, DuplicatePair, FingerprintedDocument
from . import Join, Reference
from .local import with_reference
from .verify import VerifiedPair, duplicate_pair


@dataclass(frozen=True)
class Joined:
    """The end of a scan: its pairs (paths in order, sorted) and clusters, and how many
    stored documents of its reference joined them."""

    pairs: tuple[DuplicatePair, ...]
    clusters: tuple[Cluster, ...]
    stored: int = 0


def finish(
    docs: Sequence[FingerprintedDocument],
    verified: list[VerifiedPair],
    options: ScanOptions,
    join: Join,
    reference: Reference | None = None,
) -> Joined:
    """Pairs and clusters of ``docs`` from their ``verified`` pairs (numbered over ``docs``);
    with ``reference``, its stored documents that are near-duplicates of them too."""
    everyone: Sequence[FingerprintedDocument] = docs
    stored = 0
    if reference is not None:
        everyone, verified, stored = with_reference(docs, verified, reference, options)
    clusters = join.clusters(
        everyone, verified, options.cluster_method, options.features.sketch_size
    )
    pairs = sorted((duplicate_pair(everyone, p) for p in verified), key=lambda p: (p.a, p.b))
    return Joined(tuple(pairs), tuple(clusters), stored)


def scan_stats(
    *,
    files_found: int,
    docs: Sequence[FingerprintedDocument],
    skipped: int,
    ignored: int,
    candidates: int,
    joined: Joined,
    reference: Reference | None,
    times: tuple[float, float, float, float],
    rows_read: int | None = None,
) -> dict[str, Any]:
    """The stats of a scan's report. ``times``: when it started, when discovery, the
    fingerprints and the join ended (``time.perf_counter``); ``rows_read`` for a scan of
    datasets' rows."""
    started, discovered, fingerprinted, finished = times
    sizes = getattr(docs, "size", None)
    return {
        "files_found": files_found,
        **({"rows_read": rows_read} if rows_read is not None else {}),
        "files_fingerprinted": len(docs),
        "files_skipped": skipped,
        # Left out by .gitignore / .simdupignore (an ignored folder counts once).
        "files_ignored": ignored,
        "bytes_read": int(sizes.sum()) if sizes is not None else sum(d.size for d in docs),
        "candidates": candidates,
        "pairs": len(joined.pairs),
        "clusters": len(joined.clusters),
        **({"against": reference.path, "stored_matched": joined.stored} if reference else {}),
        "seconds": {
            "discovery": round(discovered - started, 3),
            "fingerprint": round(fingerprinted - discovered, 3),
            "index_and_cluster": round(finished - fingerprinted, 3),
            "total": round(finished - started, 3),
        },
    }
