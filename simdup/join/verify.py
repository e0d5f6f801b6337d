"""Candidates and verification: which pairs of fingerprinted documents are near-duplicates.

``candidate_pairs`` proposes pairs (the exact SimHash block index within the search radius, or
MinHash LSH); ``Verifier.judge`` is the one rule that decides, for ``scan``, ``compare``,
``calibrate`` and index queries alike:

* the same normalised text is always a near-duplicate (``exact``);
* without verification, a pair is a near-duplicate when its Hamming distance is within
  ``threshold``;
* with verification, a pair within the search radius (any LSH candidate for
  ``method="minhash"``) is a near-duplicate when the shorter text is at least
  ``min_length_ratio`` of the longer and the word-set Jaccard (estimated from the bottom-k
  sketches, unless the caller knows it exactly) reaches ``min_similarity``. The method only
  proposes pairs; both methods judge them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..algorithms.index import near_pairs, near_pairs_touching
from ..algorithms.minhash import (
    band_keys,
    choose_bands,
    keyed_candidates,
    keyed_candidates_touching,
    length_lanes,
)
from ..algorithms.sketch import sketch_jaccard, sketch_jaccard_pairs
from ..document_table import DocumentTable
from ..options import ScanOptions
from ..records import DuplicatePair, FingerprintedDocument


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate pairs as parallel arrays: documents ``i[n]`` and ``j[n]`` at Hamming
    distance ``distance[n]``."""

    i: np.ndarray
    j: np.ndarray
    distance: np.ndarray

    def __len__(self) -> int:
        return int(self.i.size)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision on one pair, and why."""

    near: bool
    exact: bool  # the same normalised text
    similarity: float | None  # word-set Jaccard (estimated or exact) when it was needed
    reason: str


@dataclass(frozen=True, slots=True)
class VerifiedPair:
    """A near-duplicate pair of documents ``i`` < ``j`` of a list, with the facts reported."""

    i: int
    j: int
    distance: int
    similarity: float | None
    exact: bool


_KEY_CHUNK = 1 << 15
_VERIFY_SLICE = 1 << 20


def band_layout(options: ScanOptions) -> tuple[int, int]:
    """``(bands, rows)`` of a MinHash scan with ``options``."""
    return choose_bands(options.min_similarity, options.minhash_perms)


def signature_band_keys(docs: Sequence[FingerprintedDocument], options: ScanOptions) -> np.ndarray:
    """``uint64[len(docs), bands]``: the band keys of the documents' MinHash signatures, a
    slice of documents at a time (stacking every signature first would hold a second copy of
    them all: 1 GB at a million documents)."""
    bands, rows = band_layout(options)
    keys = np.empty((len(docs), bands), dtype=np.uint64)
    table = DocumentTable.of(docs)
    signed = table.signature if table.signature is not None else [b""] * len(table)
    for start in range(0, len(docs), _KEY_CHUNK):
        chunk = signed[start : start + _KEY_CHUNK]
        signatures = np.frombuffer(b"".join(chunk), dtype="<u8")
        keys[start : start + len(chunk)] = band_keys(
            signatures.reshape(len(chunk), -1), bands, rows
        )
    return keys


def candidate_pairs(
    docs: Sequence[FingerprintedDocument], options: ScanOptions, keys: np.ndarray | None = None
) -> Candidates:
    """Candidate pairs among ``docs`` from the method of ``options`` (resolved: not "auto").
    ``keys``: the ``signature_band_keys`` of ``docs``, when they were taken already (a scan
    takes them as records arrive and keeps no signatures)."""
    return candidate_pairs_touching(docs, options, None, keys)


def candidate_pairs_touching(
    docs: Sequence[FingerprintedDocument],
    options: ScanOptions,
    touched: np.ndarray | None,
    keys: np.ndarray | None = None,
) -> Candidates:
    """``candidate_pairs``, only those that hold a ``touched`` document (a bool per
    document; None: every pair). A rescan looks for the pairs of its changed documents only."""
    table = DocumentTable.of(docs)
    if options.method == "minhash" and len(table) and keys is None:
        keys = signature_band_keys(docs, options)
    return candidates_of(table.fingerprint, table.chars, keys, options, touched)


def candidates_of(
    fps: np.ndarray,
    chars: np.ndarray,
    keys: np.ndarray | None,
    options: ScanOptions,
    touched: np.ndarray | None = None,
) -> Candidates:
    """The candidates of documents given by their fingerprints, lengths and (MinHash) band
    keys: those holding a ``touched`` document, or all (None)."""
    if options.method == "simhash":
        if touched is None:
            return Candidates(*near_pairs(fps, options.search_radius))
        return Candidates(*near_pairs_touching(fps, touched, options.search_radius))
    if not fps.size or keys is None:  # no signatures to band (nothing fingerprinted)
        return Candidates(*(np.empty(0, dtype=np.int64) for _ in range(3)))
    # Only pairs whose lengths could pass the length check (MinHash scans always verify).
    lanes = length_lanes(chars, options.min_length_ratio)
    if touched is None:
        ii, jj = keyed_candidates(keys, lanes)
    else:
        ii, jj = keyed_candidates_touching(keys, touched, lanes)
    # The distances a slice at a time (three temporaries of 8 bytes a candidate otherwise).
    distance = np.empty(ii.size, dtype=np.uint8)
    for start in range(0, ii.size, _VERIFY_SLICE):
        part = slice(start, start + _VERIFY_SLICE)
        distance[part] = np.bitwise_count(fps[ii[part]] ^ fps[jj[part]])
    return Candidates(ii, jj, distance)


class Verifier:
    """The near-duplicate rule of ``options`` (see the module docstring)."""

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self._radius = options.search_radius

    def length_ok(self, a: FingerprintedDocument, b: FingerprintedDocument) -> bool:
        """The shorter text is at least ``min_length_ratio`` of the longer."""
        return min(a.chars, b.chars) >= self.options.min_length_ratio * max(a.chars, b.chars)

    def estimate(self, a: FingerprintedDocument, b: FingerprintedDocument) -> float:
        """Estimated word-set Jaccard, from the bottom-k sketches whatever found the pair: a
        sketch is exact below ``sketch_size`` distinct words (most short documents) and its
        256 values vary less than a 128-value MinHash estimate above it."""
        return sketch_jaccard(a.sketch, b.sketch, self.options.features.sketch_size)

    def judge(
        self,
        a: FingerprintedDocument,
        b: FingerprintedDocument,
        distance: int,
        similarity: float | None = None,
    ) -> Verdict:
        """Is (a, b) a near-duplicate? ``similarity``: the exact word-set Jaccard, when the
        caller has it (``compare``); otherwise it is estimated."""
        o, radius = self.options, self._radius
        rule, near, sim = self._decide(a, b, distance, similarity)
        if rule == "same":
            return Verdict(True, True, 1.0, "identical normalised text")
        if rule == "threshold":
            relation = "<=" if near else ">"
            return Verdict(
                near, False, None, f"distance {distance} {relation} threshold {o.threshold}"
            )
        if rule == "radius":
            return Verdict(False, False, None, f"distance {distance} > verify radius {radius}")
        if rule == "length":
            ratio = min(a.chars, b.chars) / max(a.chars, b.chars, 1)
            return Verdict(False, False, None, f"length ratio {ratio:.2f} < {o.min_length_ratio}")
        assert sim is not None
        reason = (
            f"distance {distance} <= verify radius {radius}, word-set Jaccard "
            f"{sim:.2f} {'>=' if near else '<'} {o.min_similarity}"
        )
        return Verdict(near, False, round(sim, 4), reason)

    def _decide(
        self,
        a: FingerprintedDocument,
        b: FingerprintedDocument,
        distance: int,
        similarity: float | None,
    ) -> tuple[str, bool, float | None]:
        """The rule itself: which check settles (a, b) ("same", "threshold", "radius",
        "length" or "similarity"), whether it is near, and the similarity judged. ``judge``
        words the reason; ``pairs`` calls this for every candidate without wording one."""
        o = self.options
        if a.content_hash == b.content_hash:
            return "same", True, 1.0
        if not o.verify and o.method != "minhash":
            return "threshold", distance <= o.threshold, None
        if o.method != "minhash" and distance > self._radius:
            return "radius", False, None
        if not self.length_ok(a, b):
            return "length", False, None
        sim = self.estimate(a, b) if similarity is None else similarity
        return "similarity", sim >= o.min_similarity, sim

    def pairs(
        self, docs: Sequence[FingerprintedDocument], candidates: Candidates
    ) -> list[VerifiedPair]:
        """The candidates that are near-duplicates: the rule of ``judge``, applied to a slice
        of candidates at a time where it verifies (millions of chance candidates at scale,
        with the memory of one slice's arrays)."""
        o = self.options
        ii, jj, dd = candidates.i, candidates.j, candidates.distance
        if not len(candidates) or not (o.verify or o.method == "minhash"):
            return self._one_by_one(docs, ii, jj, dd)
        table = DocumentTable.of(docs)
        digests = table.digest_keys()
        chars = table.chars.astype(np.float64)
        out: list[VerifiedPair] = []
        for start in range(0, len(candidates), _VERIFY_SLICE):
            part = slice(start, start + _VERIFY_SLICE)
            out += self._slice(table, digests, chars, ii[part], jj[part], dd[part])
        return out

    def _slice(
        self,
        table: DocumentTable,
        digests: np.ndarray,
        chars: np.ndarray,
        ii: np.ndarray,
        jj: np.ndarray,
        dd: np.ndarray,
    ) -> list[VerifiedPair]:
        # Identical normalised texts are near whatever else: equal hashes of the content
        # digests, then confirmed.
        same = digests[ii] == digests[jj]
        for p in np.flatnonzero(same).tolist():
            same[p] = table.content_hash(ii[p]) == table.content_hash(jj[p])
        sketches = table.sketch
        if not isinstance(sketches, list):  # a remembered table's sketches, still in place
            sketches = list(sketches)
        near, sims = self.near(chars, sketches, ii, jj, dd, same)
        return [
            VerifiedPair(i, j, d, 1.0 if exact else round(sim, 4), exact)
            for i, j, d, exact, sim in zip(
                ii[near].tolist(),
                jj[near].tolist(),
                dd[near].tolist(),
                same[near].tolist(),
                sims.tolist(),
                strict=True,
            )
        ]

    def near(
        self,
        chars: np.ndarray,
        sketches: list[bytes],
        ii: np.ndarray,
        jj: np.ndarray,
        dd: np.ndarray,
        same: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The rule of ``judge`` on arrays, for a verifying rule: the positions ``p`` of the
        candidates ``(ii[p], jj[p])`` at distance ``dd[p]`` that are near-duplicates, and their
        estimated similarity (unrounded; 1.0 where ``same[p]``, the caller's finding that the
        two texts are the same). ``chars`` and ``sketches`` are the items' (a document's, a
        passage window's) lengths and bottom-k sketches."""
        o = self.options
        if not (o.verify or o.method == "minhash"):
            raise ValueError("Verifier.near needs a rule that verifies")
        # The others must be within the radius (SimHash candidates) and pass the length check.
        a, b = chars[ii], chars[jj]
        keep = np.minimum(a, b) >= o.min_length_ratio * np.maximum(a, b)
        if o.method != "minhash":
            keep &= dd <= self._radius
        keep |= same
        kept = np.flatnonzero(keep)
        estimated = sketch_jaccard_pairs(sketches, ii[kept], jj[kept], o.features.sketch_size)
        sims = np.where(same[kept], 1.0, estimated)
        near = same[kept] | (sims >= o.min_similarity)
        return kept[near], sims[near]

    def _one_by_one(
        self,
        docs: Sequence[FingerprintedDocument],
        ii: np.ndarray,
        jj: np.ndarray,
        dd: np.ndarray,
    ) -> list[VerifiedPair]:
        out: list[VerifiedPair] = []
        decide = self._decide
        for i, j, d in zip(ii.tolist(), jj.tolist(), dd.tolist(), strict=True):
            rule, near, sim = decide(docs[i], docs[j], d, None)
            if near:
                exact = rule == "same"
                reported = sim if exact or sim is None else round(sim, 4)
                out.append(VerifiedPair(i, j, d, reported, exact))
        return out


def duplicate_pair(docs: Sequence[FingerprintedDocument], pair: VerifiedPair) -> DuplicatePair:
    """The reported record of a verified pair: paths in order."""
    if isinstance(docs, DocumentTable):
        a, b = docs.paths[pair.i], docs.paths[pair.j]
    else:
        a, b = docs[pair.i].path, docs[pair.j].path
    if b < a:
        a, b = b, a
    return DuplicatePair(a, b, pair.distance, pair.similarity, pair.exact)
