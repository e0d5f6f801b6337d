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
from ..records import FingerprintedDocument
from .local import LocalJoin
from .verify import Candidates, VerifiedPair, Verifier, candidates_of, signature_band_keys


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


class IncrementalJoin(LocalJoin):
    """The ``Join`` of a rescan (see the module docstring; clusters as ``LocalJoin`` makes
    them). ``previous_doc[k]``: the
    remembered document that document ``k`` of this scan is, unchanged (-1: new or changed);
    ``keys``: this scan's band keys (a MinHash scan)."""

    def __init__(
        self, previous: Previous, previous_doc: np.ndarray, keys: np.ndarray | None = None
    ) -> None:
        super().__init__(keys)
        self.previous = previous
        self.previous_doc = previous_doc

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
        if options.method == "minhash" and keys is None and len(table):
            keys = signature_band_keys(table, options)
        found, lost = self._candidates(table, options, touched, keys)
        del keys
        new = Verifier(options).pairs(table, found)
        merged = sorted(old + new, key=lambda p: (p.i, p.j))
        return prev.candidates - lost + len(found), merged

    def _candidates(
        self,
        table: DocumentTable,
        options: ScanOptions,
        touched: np.ndarray,
        keys: np.ndarray | None,
    ) -> tuple[Candidates, int]:
        """The candidates of this scan that involve a new or changed document, and how many
        of the remembered scan's involved a document gone or changed since: one search over
        the remembered documents and the new ones together (the unchanged ones are in both
        sets of pairs)."""
        prev = self.previous
        new_rows = np.flatnonzero(touched)
        kept = np.zeros(prev.fingerprint.size, dtype=bool)
        kept[self.previous_doc[~touched]] = True
        m = prev.fingerprint.size
        fps = np.concatenate([prev.fingerprint, table.fingerprint[new_rows]])
        chars = np.concatenate([prev.chars, table.chars[new_rows]])
        union_keys = None
        if keys is not None and prev.band_keys is not None:
            union_keys = np.concatenate([prev.band_keys, keys[new_rows]])
        is_new = np.concatenate([np.zeros(m, dtype=bool), np.ones(new_rows.size, dtype=bool)])
        is_gone = np.concatenate([~kept, np.zeros(new_rows.size, dtype=bool)])
        both = candidates_of(fps, chars, union_keys, options, is_new | is_gone)
        new = is_new[both.i] | is_new[both.j]
        gone = is_gone[both.i] | is_gone[both.j]
        lost = int((gone & ~new).sum())
        mine = new & ~gone
        # This scan's numbering: a kept remembered document by its row now, a new one by its
        # place among the new ones.
        now_of = np.full(m, -1, dtype=np.int64)
        now_of[self.previous_doc[~touched]] = np.flatnonzero(~touched)
        to_now = np.concatenate([now_of, new_rows])
        a, b = to_now[both.i[mine]], to_now[both.j[mine]]
        i, j = np.minimum(a, b), np.maximum(a, b)
        order = np.lexsort((j, i))
        return Candidates(i[order], j[order], both.distance[mine][order]), lost
