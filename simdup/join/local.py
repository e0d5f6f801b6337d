"""Candidates, verification and clusters in this process, and the merge of a stored index's
matches into a scan's pairs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..algorithms.clustering import cluster, max_pairwise_distance
from ..algorithms.simhash import hamming
from ..document_table import DocumentTable
from ..options import ScanOptions
from ..records import Cluster, ClusterMember, FingerprintedDocument
from . import Reference
from .verify import VerifiedPair, Verifier, candidate_pairs, document_similarity


def build_clusters(
    docs: Sequence[FingerprintedDocument],
    pairs: Sequence[VerifiedPair],
    method: str,
    sketch_size: int,
) -> list[Cluster]:
    """Clusters of ``docs`` from their verified pairs (``method``: centers or components)."""
    # Among equally connected documents the longest becomes the representative, then the path.
    order_key = _OrderKey(DocumentTable.of(docs))
    groups = cluster(len(docs), [(p.i, p.j) for p in pairs], order_key, method)
    built = []
    for rep, members in groups:
        # Each member's record made once (a table makes one a time it is asked).
        held = {m: docs[m] for m in members}
        held.setdefault(rep, docs[rep])
        r = held[rep]
        rows = []
        # The representative is an exact duplicate when another member is (not of itself).
        twins = sum(held[m].content_hash == r.content_hash for m in members) > 1
        for m in members:
            doc = held[m]
            exact = doc.content_hash == r.content_hash and (m != rep or twins)
            sim: float | None = 1.0 if exact or m == rep else None
            if not exact and r.sketch and doc.sketch:  # a bare stored fingerprint has none
                sim = round(document_similarity(r, doc, sketch_size), 4)
            rows.append(
                ClusterMember(doc.path, hamming(r.fingerprint, doc.fingerprint), sim, exact)
            )
        rows.sort(key=lambda c: (c.path != r.path, c.distance, c.path))
        spread = max_pairwise_distance([held[m].fingerprint for m in members])
        built.append((r.path, rows, spread))
    built.sort(key=lambda c: (-len(c[1]), c[0]))
    return [Cluster(n, rep, tuple(rows), spread) for n, (rep, rows, spread) in enumerate(built, 1)]


class _OrderKey:
    """``(-chars, path)`` of document ``i``, made when clustering asks for it (only documents
    in a pair are asked for: not a tuple per document of a million)."""

    def __init__(self, table: DocumentTable) -> None:
        self.table = table

    def __getitem__(self, i: int) -> tuple[int, str]:
        return -int(self.table.chars[i]), self.table.paths[i]


class LocalJoin:
    """Candidates, verification and clusters in this process. ``keys``: the MinHash band keys
    of the documents, when they were taken as the records arrived (``collect_fingerprints``)."""

    def __init__(self, keys: np.ndarray | None = None) -> None:
        self.keys = keys

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        keys, self.keys = self.keys, None  # used once: let go with the candidates made
        candidates = candidate_pairs(docs, options, keys)
        del keys
        return len(candidates), Verifier(options).pairs(docs, candidates)

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]:
        return build_clusters(docs, pairs, method, sketch_size)


def with_reference(
    docs: Sequence[FingerprintedDocument],
    verified: list[VerifiedPair],
    reference: Reference,
    options: ScanOptions,
) -> tuple[list[FingerprintedDocument], list[VerifiedPair], int]:
    """``docs`` and their pairs, plus the stored documents that are near-duplicates of them
    and those pairs (never a pair of two stored documents); and how many stored ones."""
    position = {d.path: n for n, d in enumerate(docs)}
    union = list(docs)
    seen = {(p.i, p.j) for p in verified}
    pairs = list(verified)
    for match in reference.match_documents(docs, options):
        j = position.get(match.key)
        if j is None:  # a stored document that is not one of the scanned files
            stored = reference.document(match.key)
            if stored is None:  # a bare fingerprint: reported by its key
                stored = FingerprintedDocument(match.key, 0, "", "", 0, 0, 0, "", 0)
            j = position[match.key] = len(union)
            union.append(stored)
        i = position[match.path]
        key = (min(i, j), max(i, j))
        if key not in seen:
            seen.add(key)
            pairs.append(VerifiedPair(*key, match.distance, match.similarity, match.exact))
    return union, pairs, len(union) - len(docs)
