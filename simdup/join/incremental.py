"""The join of a rescan: the remembered pairs of unchanged documents, and only the candidates
that involve a changed one.

A pair's verdict depends on its two documents' records and the settings alone, so for two
documents whose records the scan cache reused unchanged, the remembered scan (with the same
settings) already decided: its pairs among them are taken as they are. Candidates are looked
for only where a document is new or changed (``candidate_pairs_touching``: exact, as the whole
join is), and verified by the one rule. The count of candidates is the remembered count, less
those of documents gone or changed, plus the new ones: the figure a whole join would report.
The pairs, and so the clusters, are those of a scan from scratch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..document_table import DocumentTable
from ..options import ScanOptions
from ..records import Cluster, FingerprintedDocument
from .local import build_clusters
from .verify import VerifiedPair, Verifier, candidate_pairs_touching, candidates_of


@dataclass
class Previous:
    """What the remembered scan knew of its documents (numbered in its file order): their
    fingerprints, lengths and band keys, its verified pairs and its count of candidates."""

    fingerprint: np.ndarray
    chars: np.ndarray
    band_keys: np.ndarray | None
    pair_i: np.ndarray
    pair_j: np.ndarray
    pair_distance: np.ndarray
    pair_similarity: np.ndarray  # NaN: none computed
    pair_exact: np.ndarray
    candidates: int

    @classmethod
    def of_rows(cls, rows: object, doc_rows: np.ndarray, outcome: object) -> Previous:
        """From a snapshot's rows (``store.snapshot.Rows``) and outcome."""
        keys = getattr(rows, "band_keys", None)
        return cls(
            fingerprint=np.asarray(rows.fingerprint)[doc_rows],  # type: ignore[attr-defined]
            chars=np.asarray(rows.chars)[doc_rows],  # type: ignore[attr-defined]
            band_keys=None if keys is None else np.asarray(keys)[doc_rows],
            pair_i=outcome.pair_i,  # type: ignore[attr-defined]
            pair_j=outcome.pair_j,  # type: ignore[attr-defined]
            pair_distance=outcome.pair_distance,  # type: ignore[attr-defined]
            pair_similarity=outcome.pair_similarity,  # type: ignore[attr-defined]
            pair_exact=outcome.pair_exact,  # type: ignore[attr-defined]
            candidates=int(outcome.stats.get("candidates", 0)),  # type: ignore[attr-defined]
        )


class IncrementalJoin:
    """The ``Join`` of a rescan (see the module docstring). ``previous_doc[k]``: the
    remembered document that document ``k`` of this scan is, unchanged (-1: new or changed);
    ``keys``: this scan's band keys (a MinHash scan)."""

    def __init__(
        self, previous: Previous, previous_doc: np.ndarray, keys: np.ndarray | None = None
    ) -> None:
        self.previous = previous
        self.previous_doc = previous_doc
        self.keys = keys

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        table = DocumentTable.of(docs)
        prev = self.previous
        kept = self.previous_doc >= 0
        touched = ~kept
        # The remembered pairs of two unchanged documents, in this scan's numbering.
        now_of = np.full(prev.fingerprint.size, -1, dtype=np.int64)
        now_of[self.previous_doc[kept]] = np.flatnonzero(kept)
        a, b = now_of[prev.pair_i], now_of[prev.pair_j]
        both = (a >= 0) & (b >= 0)
        old = [
            VerifiedPair(min(i, j), max(i, j), d, None if s != s else s, bool(e))
            for i, j, d, s, e in zip(
                a[both].tolist(), b[both].tolist(), prev.pair_distance[both].tolist(),
                prev.pair_similarity[both].tolist(), prev.pair_exact[both].tolist(),
                strict=True,
            )
        ]  # fmt: skip
        keys, self.keys = self.keys, None
        found = candidate_pairs_touching(table, options, touched, keys)
        del keys
        new = Verifier(options).pairs(table, found)
        # Candidates the remembered scan counted that involve a document gone or changed.
        gone = np.ones(prev.fingerprint.size, dtype=bool)
        gone[self.previous_doc[kept]] = False
        lost = len(candidates_of(prev.fingerprint, prev.chars, prev.band_keys, options, gone))
        merged = sorted(old + new, key=lambda p: (p.i, p.j))
        return prev.candidates - lost + len(found), merged

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]:
        return build_clusters(docs, pairs, method, sketch_size)
