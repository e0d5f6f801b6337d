"""Candidates and verification: which pairs of fingerprinted documents are near-duplicates.

``candidate_pairs`` proposes pairs (the exact SimHash block index within the search radius, or
MinHash LSH); ``Verifier.judge`` is the one rule that decides, for ``scan``, ``compare``,
``calibrate`` and index queries alike:

* the same normalised text is always a near-duplicate (``exact``);
* without verification, a pair is a near-duplicate when its Hamming distance is within
  ``threshold``;
* with verification, two short texts (both under ``SHORT_TEXT_CHARS`` characters) are
  near-duplicates when the edit similarity of their comparison forms reaches
  ``min_edit_similarity`` (the project's definition itself: a sentence has too few words for a
  word set to judge it), or, when both have two blocks or more, their block-move similarity
  does (``algorithms.move_join``: their paragraphs, list items and headings matched in any
  order, so a moved one is a move, not a deletion and a retyping); a short text and a long
  one never are (unless the same text);
* with verification, a pair of long texts within the search radius (any LSH candidate for
  ``method="minhash"``) is a near-duplicate when the shorter text is at least
  ``min_length_ratio`` of the longer and the word-set Jaccard (estimated from the bottom-k
  sketches, unless the caller knows it exactly) reaches ``min_similarity``. The method only
  proposes pairs; both methods judge them alike.

Candidates: the block index or LSH bands among the long texts; every pair of the same
comparison form (whatever its length); and the exact edit-similarity and block-move joins
among the short texts (``algorithms.edit_join``, ``algorithms.move_join``), so no short pair
at or above the threshold by either similarity is missed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..algorithms import edit_join, move_join
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
from ..params import SHORT_TEXT_CHARS
from ..records import DuplicatePair, FingerprintedDocument
from .short import both_have_blocks, short_blocks, short_form, short_join, short_similarities

# Told ``(done, total)`` as a long step goes (the CLI draws it): ``engines.base.Progress``.
Progress = Callable[[int, int], None]


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
    # Two short texts near by their block-move similarity only (their edit similarity is
    # below the threshold): the rule an audit names.
    moved: bool = False


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
    docs: Sequence[FingerprintedDocument],
    options: ScanOptions,
    keys: np.ndarray | None = None,
    progress: Progress | None = None,
) -> Candidates:
    """Candidate pairs among ``docs`` from the method of ``options`` (resolved: not "auto").
    ``keys``: the ``signature_band_keys`` of ``docs``, when they were taken already (a scan
    takes them as records arrive and keeps no signatures). ``progress(done, total)``: told how
    far the edit join of the short texts is (the long part of it)."""
    return candidate_pairs_touching(docs, options, None, keys, progress)


def candidate_pairs_touching(
    docs: Sequence[FingerprintedDocument],
    options: ScanOptions,
    touched: np.ndarray | None,
    keys: np.ndarray | None = None,
    progress: Progress | None = None,
) -> Candidates:
    """``candidate_pairs``, only those that hold a ``touched`` document (a bool per
    document; None: every pair). A rescan looks for the pairs of its changed documents only.
    With verification, short texts come from the edit join (their sketches, which hold their
    forms, must be in the table) and the long ones from the index; without, every document
    from the index. Documents of the same comparison form are always candidates."""
    table = DocumentTable.of(docs)
    if options.method == "minhash" and len(table) and keys is None:
        keys = signature_band_keys(docs, options)
    long = indexed_rows(table.chars, options)
    if long is None:
        found = candidates_of(table.fingerprint, table.chars, keys, options, touched)
        ii, jj = found.i, found.j
    else:
        found = candidates_of(
            table.fingerprint[long], table.chars[long], None if keys is None else keys[long],
            options, None if touched is None else touched[long],
        )  # fmt: skip
        ii, jj = long[found.i], long[found.j]
    del found
    extra = unindexed_pairs(table, options, progress)
    # The pairs of one form or of short texts that the index did not propose (most pairs of
    # one form it did: the same words). Looked up a slice of the index's candidates at a time,
    # and joined to them only when there are some: the candidates of 10^6 rows are ~9 million.
    new = _not_among(extra, ii, jj, len(table))
    if touched is not None and new.size:
        new = new[touched[new // len(table)] | touched[new % len(table)]]
    if new.size:
        ii = np.concatenate((ii, new // len(table)))
        jj = np.concatenate((jj, new % len(table)))
    fps = table.fingerprint
    distance = np.empty(ii.size, dtype=np.uint8)
    for start in range(0, ii.size, _VERIFY_SLICE):
        part = slice(start, start + _VERIFY_SLICE)
        distance[part] = np.bitwise_count(fps[ii[part]] ^ fps[jj[part]])
    return Candidates(ii, jj, distance)


def _not_among(
    extra: tuple[np.ndarray, np.ndarray], ii: np.ndarray, jj: np.ndarray, n: int
) -> np.ndarray:
    """The distinct pairs of ``extra`` (as keys ``lo * n + hi``, sorted) that are not among the
    pairs ``(ii, jj)`` (either order)."""
    a, b = extra
    if not a.size:
        return np.empty(0, dtype=np.int64)
    keys = np.unique(np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b))
    seen = np.zeros(keys.size, dtype=bool)
    for start in range(0, ii.size, _VERIFY_SLICE):
        lo = np.minimum(ii[start : start + _VERIFY_SLICE], jj[start : start + _VERIFY_SLICE])
        hi = np.maximum(ii[start : start + _VERIFY_SLICE], jj[start : start + _VERIFY_SLICE])
        seen |= np.isin(keys, lo.astype(np.int64) * n + hi)
    return keys[~seen]


def form_and_short_candidates(
    docs: Sequence[FingerprintedDocument], options: ScanOptions
) -> Candidates:
    """The candidates that come from no index: documents of one comparison form, and short
    texts within the edit similarity (for a join that makes the index's candidates elsewhere:
    ``DaskJoin`` adds these, made in the process that holds the records)."""
    table = DocumentTable.of(docs)
    n = max(len(table), 1)
    pair = _not_among(unindexed_pairs(table, options), np.empty(0, np.int64),
                      np.empty(0, np.int64), n)  # fmt: skip
    ii, jj = pair // n, pair % n
    distance = np.bitwise_count(table.fingerprint[ii] ^ table.fingerprint[jj]).astype(np.uint8)
    return Candidates(ii, jj, distance)


def unindexed_pairs(
    table: DocumentTable, options: ScanOptions, progress: Progress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs no index proposes: documents of one comparison form, and (with verification)
    short texts within the edit similarity. A pair may come twice."""
    same = same_form_pairs(table)
    short = short_rows(table.chars)
    if not verifies(options) or short.size < 2:
        return same
    near = short_text_pairs(table, short, options, progress)
    return np.concatenate((same[0], near[0])), np.concatenate((same[1], near[1]))


def short_rows(chars: np.ndarray) -> np.ndarray:
    """The rows of the documents judged as short texts."""
    return np.flatnonzero(chars < SHORT_TEXT_CHARS)


def verifies(options: ScanOptions) -> bool:
    """Whether candidates are verified (a MinHash scan always verifies): then short texts are
    judged by their characters and proposed by the short-text joins."""
    return options.verify or options.method == "minhash"


def indexed_rows(chars: np.ndarray, options: ScanOptions) -> np.ndarray | None:
    """The rows of the documents (of ``chars`` characters) the index proposes pairs among:
    with verification and a short text among them, the long ones (``chars`` at least
    ``SHORT_TEXT_CHARS``: the short-text joins propose the short ones); None: all of them.
    The local join and ``distributed.join.DaskJoin`` both follow it."""
    if not (verifies(options) and short_rows(chars).size):
        return None
    return np.flatnonzero(chars >= SHORT_TEXT_CHARS)


# A group of documents of one comparison form larger than this is joined as a star (each to
# its first document), not as every pair: ten thousand rows of "thanks!" would otherwise make
# fifty million pairs.
SAME_FORM_CLIQUE = 256


def same_form_pairs(table: DocumentTable) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of documents whose content digests are equal (the same comparison form, the
    verifier confirms): every pair of a group up to ``SAME_FORM_CLIQUE`` documents, a star
    around its first document above."""
    keys = table.digest_keys()
    empty = np.empty(0, dtype=np.int64)
    if keys.size < 2:
        return empty, empty
    order = np.argsort(keys, kind="stable")  # each group's documents in table order
    sorted_keys = keys[order]
    first = np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))
    start = np.flatnonzero(first)
    size = np.diff(np.append(start, keys.size))
    group_size = np.repeat(size, size)  # per entry of ``order``
    place = np.arange(keys.size) - np.repeat(start, size)  # its place in its group
    # Groups up to the clique size: each entry with every entry after it in its group.
    count = np.where(group_size <= SAME_FORM_CLIQUE, group_size - 1 - place, 0)
    left = np.repeat(np.arange(keys.size), count)
    offset = np.arange(left.size) - np.repeat(np.cumsum(count) - count, count)
    ii, jj = [order[left]], [order[left + 1 + offset]]
    # Larger groups: a star around the group's first document.
    star = (group_size > SAME_FORM_CLIQUE) & (place > 0)
    ii.append(order[(np.arange(keys.size) - place)[star]])
    jj.append(order[star])
    return np.concatenate(ii), np.concatenate(jj)


def short_text_pairs(
    table: DocumentTable, short: np.ndarray, options: ScanOptions, progress: Progress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of short texts (rows ``short`` of ``table``) whose edit or block-move
    similarity reaches ``min_edit_similarity``: the joins over their distinct marked forms
    (``short_join``), each form's pairs given to every document of that form (the first one
    only in a group over ``SAME_FORM_CLIQUE``: the star of ``same_form_pairs`` joins the
    rest)."""
    sketches = table.sketch
    forms = [short_blocks(sketches[r]) for r in short.tolist()]
    distinct: dict[str, int] = {}
    form_of = np.fromiter((distinct.setdefault(f, len(distinct)) for f in forms),
                          dtype=np.int64, count=len(forms))  # fmt: skip
    del forms
    fi, fj = short_join(list(distinct), options.min_edit_similarity, progress)
    empty = np.empty(0, dtype=np.int64)
    if not fi.size:
        return empty, empty
    pair = np.unique(fi * len(distinct) + fj)
    fi, fj = pair // len(distinct), pair % len(distinct)
    # The documents of each form (short rows, grouped), capped at the clique size.
    order = np.argsort(form_of, kind="stable")
    starts = np.searchsorted(form_of[order], np.arange(len(distinct) + 1))
    counts = np.diff(starts)
    counts[counts > SAME_FORM_CLIQUE] = 1
    # Each pair of forms gives counts[fi] * counts[fj] pairs of documents.
    per = counts[fi] * counts[fj]
    reps = np.repeat(np.arange(fi.size), per)
    within = np.arange(reps.size) - np.repeat(np.cumsum(per) - per, per)
    a = short[order[starts[fi[reps]] + within // counts[fj[reps]]]]
    b = short[order[starts[fj[reps]] + within % counts[fj[reps]]]]
    return a, b


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

    def rule_of(self, a_chars: int, b_chars: int, exact: bool, moved: bool = False) -> str:
        """Which check of ``_decide`` accepted a verified pair of texts of ``a_chars`` and
        ``b_chars`` characters (``exact``, ``moved``: the pair's own findings): "same", "edit"
        or "moves" (two short texts, by their edit or block-move similarity), "similarity"
        (two long ones, by their word sets) or "threshold" (no verification). What an audit
        of a removal names as the rule that decided."""
        if exact:
            return "same"
        if not self.options.verify and self.options.method != "minhash":
            return "threshold"
        if a_chars < SHORT_TEXT_CHARS and b_chars < SHORT_TEXT_CHARS:
            return "moves" if moved else "edit"
        return "similarity"

    def estimate(self, a: FingerprintedDocument, b: FingerprintedDocument) -> float:
        """The similarity the rule judges (a, b) by: for two short texts the higher of the edit
        similarity of their forms and their block-move similarity; for two long ones the
        word-set Jaccard estimated from the bottom-k sketches, whatever found the pair (a
        sketch is exact below ``sketch_size`` distinct words and its 256 values vary less than
        a 128-value MinHash estimate above it); 0.0 for a short text and a long one."""
        return document_similarity(a, b, self.options.features.sketch_size)

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
        if rule == "edit":
            assert sim is not None
            relation = ">=" if near else "<"
            return Verdict(
                near, False, round(sim, 4),
                f"short texts: edit similarity {sim:.2f} {relation} {o.min_edit_similarity}",
            )  # fmt: skip
        if rule == "moves":
            edit = edit_join.edit_similarity(short_form(a.sketch), short_form(b.sketch))
            moved = move_join.move_similarity(short_blocks(a.sketch), short_blocks(b.sketch))
            said = f"{edit:.2f}" if near else f"{edit:.2f} < {o.min_edit_similarity}"
            relation = ">=" if near else "<"
            return Verdict(
                near, False, round(max(edit, moved), 4),
                f"short texts: edit similarity {said}; with moved blocks {moved:.2f} {relation} "
                f"{o.min_edit_similarity}",
            )  # fmt: skip
        if rule == "kinds":
            return Verdict(
                False, False, None,
                f"one text is short (under {SHORT_TEXT_CHARS} characters, judged by its "
                "characters), the other long (judged by its words)",
            )  # fmt: skip
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
        """The rule itself: which check settles (a, b) ("same", "threshold", "edit", "moves",
        "kinds", "radius", "length" or "similarity"), whether it is near, and the similarity
        judged ("moves": two short texts that both have blocks, their edit similarity below
        the threshold, judged by their block-move similarity; the similarity is the higher of
        the two).
        ``judge`` words the reason; ``pairs`` calls this for every candidate without wording
        one. ``similarity``: the exact word-set Jaccard of two long texts, when known."""
        o = self.options
        if a.content_hash == b.content_hash:
            return "same", True, 1.0
        if not o.verify and o.method != "minhash":
            return "threshold", distance <= o.threshold, None
        short_a, short_b = a.chars < SHORT_TEXT_CHARS, b.chars < SHORT_TEXT_CHARS
        if short_a and short_b:
            sim = edit_join.edit_similarity(short_form(a.sketch), short_form(b.sketch))
            marked_a, marked_b = short_blocks(a.sketch), short_blocks(b.sketch)
            if sim >= o.min_edit_similarity or not both_have_blocks(marked_a, marked_b):
                return "edit", sim >= o.min_edit_similarity, sim
            moved = move_join.move_similarity(marked_a, marked_b)
            return "moves", moved >= o.min_edit_similarity, max(sim, moved)
        if short_a or short_b:
            return "kinds", False, None
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
        if not len(candidates) or not verifies(o):
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
        near, sims, moved = self.near(chars, sketches, ii, jj, dd, same)
        return [
            VerifiedPair(i, j, d, 1.0 if exact else round(sim, 4), exact, move)
            for i, j, d, exact, sim, move in zip(
                ii[near].tolist(),
                jj[near].tolist(),
                dd[near].tolist(),
                same[near].tolist(),
                sims.tolist(),
                moved.tolist(),
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
        short_texts: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rule of ``judge`` on arrays, for a verifying rule: the positions ``p`` of the
        candidates ``(ii[p], jj[p])`` at distance ``dd[p]`` that are near-duplicates, their
        similarity (unrounded; 1.0 where ``same[p]``, the caller's finding that the two texts
        are the same) and whether the block-move similarity decided (two short texts).
        ``chars`` and ``sketches`` are the items' lengths and what verifies them: documents'
        (a short text's sketch is its marked form), or, with ``short_texts`` False, word sets
        of any size (passage windows: ``chars`` is then their word counts)."""
        o = self.options
        if not verifies(o):
            raise ValueError("Verifier.near needs a rule that verifies")
        a, b = chars[ii], chars[jj]
        if short_texts:
            short_a, short_b = a < SHORT_TEXT_CHARS, b < SHORT_TEXT_CHARS
        else:
            short_a = short_b = np.zeros(ii.size, dtype=bool)
        # Two short texts: the edit similarity of their forms.
        both_short = np.flatnonzero(short_a & short_b & ~same)
        edit, moves = short_similarities(
            [short_blocks(sketches[k]) for k in ii[both_short].tolist()],
            [short_blocks(sketches[k]) for k in jj[both_short].tolist()],
            o.min_edit_similarity,
        )
        # Two long ones must be within the radius (SimHash candidates) and pass the length
        # check; a short text and a long one only when the same text.
        keep = ~(short_a | short_b) & (np.minimum(a, b) >= o.min_length_ratio * np.maximum(a, b))
        if o.method != "minhash":
            keep &= dd <= self._radius
        keep |= same
        kept = np.flatnonzero(keep)
        sims = np.ones(kept.size, dtype=np.float64)  # the same text: 1.0
        words = kept[~same[kept]]  # two long texts, judged by their word sets
        sims[~same[kept]] = sketch_jaccard_pairs(
            sketches, ii[words], jj[words], o.features.sketch_size
        )
        near = same[kept] | (sims >= o.min_similarity)
        close = edit >= o.min_edit_similarity
        at = np.concatenate((kept[near], both_short[close]))
        values = np.concatenate((sims[near], edit[close]))
        moved = np.concatenate((np.zeros(int(near.sum()), dtype=bool), moves[close]))
        order = np.argsort(at, kind="stable")
        return at[order], values[order], moved[order]

    def _one_by_one(
        self,
        docs: Sequence[FingerprintedDocument],
        ii: np.ndarray,
        jj: np.ndarray,
        dd: np.ndarray,
    ) -> list[VerifiedPair]:
        out: list[VerifiedPair] = []
        for i, j, d in zip(ii.tolist(), jj.tolist(), dd.tolist(), strict=True):
            pair = self.verified(i, j, docs[i], docs[j], d)
            if pair is not None:
                out.append(pair)
        return out

    def verified(
        self, i: int, j: int, a: FingerprintedDocument, b: FingerprintedDocument, distance: int
    ) -> VerifiedPair | None:
        """Documents ``i`` and ``j``, ``a`` and ``b``, at ``distance`` as a ``VerifiedPair``
        when they are near (the facts ``pairs`` reports, the rule that decided included), else
        None: what a caller that verifies one candidate at a time (a Dask partition) keeps."""
        rule, near, sim = self._decide(a, b, distance, None)
        if not near:
            return None
        exact = rule == "same"
        reported = sim if exact or sim is None else round(sim, 4)
        return VerifiedPair(i, j, distance, reported, exact, rule == "moves")


def document_similarity(
    a: FingerprintedDocument, b: FingerprintedDocument, sketch_size: int
) -> float:
    """What ``Verifier.estimate`` says of (a, b): the higher of the edit similarity of two short
    texts' forms and (both with blocks) their block-move similarity, estimated word-set
    Jaccard of two long texts, 0.0 for one of each."""
    short_a, short_b = a.chars < SHORT_TEXT_CHARS, b.chars < SHORT_TEXT_CHARS
    if short_a and short_b:
        edit = edit_join.edit_similarity(short_form(a.sketch), short_form(b.sketch))
        marked_a, marked_b = short_blocks(a.sketch), short_blocks(b.sketch)
        if not both_have_blocks(marked_a, marked_b):
            return edit
        return max(edit, move_join.move_similarity(marked_a, marked_b))
    if short_a or short_b:
        return 0.0
    return sketch_jaccard(a.sketch, b.sketch, sketch_size)


def duplicate_pair(docs: Sequence[FingerprintedDocument], pair: VerifiedPair) -> DuplicatePair:
    """The reported record of a verified pair: paths in order."""
    if isinstance(docs, DocumentTable):
        a, b = docs.paths[pair.i], docs.paths[pair.j]
    else:
        a, b = docs[pair.i].path, docs[pair.j].path
    if b < a:
        a, b = b, a
    return DuplicatePair(a, b, pair.distance, pair.similarity, pair.exact)
