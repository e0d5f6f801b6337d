"""Short texts joined by edit similarity: every pair at or above a threshold, none missed.

A short text (a review, a title, a list item) has too few words for a word set to judge it, so
it is compared by what the project's definition of a near-duplicate says: the edit similarity
``1 - lev(a, b) / max(len(a), len(b))`` of the two texts, computed exactly (rapidfuzz).

Candidates come from a pivotal prefix filter on positional q-grams (Deng, Li, Feng & Li 2014,
after Ed-Join, Xiao, Wang & Lin 2008). Why no pair at or above the threshold is missed:

* Two texts ``s`` and ``r`` reach the threshold only if ``lev(s, r) <= e``, ``e`` the pair's
  most edits ``floor((1 - t) * max(|s|, |r|))``, and no more than ``k_s = max_edits(|s|)``
  (the longest partner of ``s`` has ``|s| / t`` characters): so ``e <= min(k_s, k_r)``.
* Each text is padded with ``q - 1`` marks at each end and cut into its ``n + q - 1``
  q-grams, each with its position. All q-grams are put in one global order (how often they
  occur, then a 22-bit id from their hash; q-grams that share an id are taken as one, which
  can only add candidates). The *prefix* of ``s`` is its first ``q * k_s + 1`` q-grams in
  that order and every other occurrence of the last of them: all its q-grams up to a rank
  ``last(s)``. ``gram_length`` picks q so that every text has that many q-grams.
* The *pivots* of ``s`` are ``k_s + 1`` q-grams of its prefix at positions ``q`` or more
  apart (disjoint): taken leftmost first, each rules out at most the ``q - 1`` next
  positions, so ``q * k_s + 1`` q-grams always hold them.
* One edit touches at most one of a text's disjoint q-grams, so with ``e <= k_s`` edits at
  least one pivot ``g`` of ``s`` comes through whole: ``r`` holds ``g`` at a position that
  differs by at most ``e`` (only the edits before it move it). ``g`` ranks no later than
  ``last(s)``; when ``last(r) >= last(s)``, ``g`` ranks no later than ``last(r)``, so it is in
  the prefix of ``r``. Otherwise ``last(s) > last(r)`` and the same holds with ``s`` and ``r``
  exchanged.
* So every such pair has a pivot of one text in the prefix of the other, under the same
  q-gram, at most ``e`` positions apart, the prefix of the pivot's text reaching no further
  than the other's. The candidate step (``window_pairs_python``; ``speedups.edit_window_pairs``
  natively) looks at exactly those pivot-prefix meetings, and keeps a pair when its lengths
  allow the threshold and the bag distance (half the L1 distance of the two texts'
  character histograms plus half their length difference, characters counted by code modulo
  ``HISTOGRAM_BINS``; every edit changes it by at most one, merging characters only lowers
  it) is at most ``e``: both are lower bounds of ``lev``, so no pair within ``e`` is dropped.

No q-gram is left out however many texts hold it: a common q-gram makes long lists, but they
are looked at within a window of positions and their pairs are cut by the bag distance before
any is verified. ``tests/algorithms/test_edit_join.py`` checks the join against every pair on
small alphabets (where every q-gram is common); ``benchmarks/edit_join.py`` against every pair
of 10^5 English and Chinese lines.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from ..native import speedups
from .minhash import _GOLDEN, mix64

# The join's version, in a scan's settings (``ScanOptions.describe``): a remembered scan whose
# join was another is joined again (its fingerprints are reused). Not ALGORITHM_VERSION: the
# fingerprints and sketches are the same; only pairs the join used to miss are found.
# 2: the pivotal prefix filter, exact at any scale (1: a q-gram in the prefixes of more than
# max(128, n/512) texts was no key, issue 50). 3: the block-move join beside it
# (``move_join``: moved paragraphs of short texts are moves, issue 50).
JOIN_VERSION = "edit-join/3"

_CODE_BITS = 21  # Unicode code points fit in 21 bits: a bigram is two of them


def edit_similarity(a: str, b: str) -> float:
    """``1 - lev(a, b) / max(len(a), len(b))`` (1.0 for two empty texts)."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(a, b))


def edit_similarities(a: list[str], b: list[str]) -> np.ndarray:
    """``edit_similarity(a[n], b[n])`` for each ``n`` (float64), on every core."""
    if not a:
        return np.empty(0, dtype=np.float64)
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    out = process.cpdist(
        a, b, scorer=Levenshtein.normalized_similarity, workers=-1, dtype=np.float64
    )
    return np.asarray(out, dtype=np.float64)


def _similarities_near(a: list[str], b: list[str], threshold: float) -> np.ndarray:
    """``edit_similarities(a, b)`` where it reaches ``threshold``, less elsewhere: the distance
    is computed with an integer cutoff (the most edits any of the pairs may take), so
    rapidfuzz stops early on a pair beyond it (its similarity cutoff, a float, drops some
    pairs exactly at the threshold)."""
    if not a:
        return np.empty(0, dtype=np.float64)
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    longer = np.maximum(np.fromiter(map(len, a), np.int64, len(a)),
                        np.fromiter(map(len, b), np.int64, len(b)))  # fmt: skip
    most = int(np.floor((1.0 - threshold) * int(longer.max()) + 1e-9))
    distance = process.cpdist(
        a, b, scorer=Levenshtein.distance, score_cutoff=most, workers=-1, dtype=np.int64
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = 1.0 - np.asarray(distance, dtype=np.float64) / longer
    return np.where(longer == 0, 1.0, similarity)


_BIGRAM_SEED = np.uint64(0x62696772616D7321)  # "bigrams!": never a word's hash


def bigram_hashes_python(text: str) -> np.ndarray:
    """The stable 64-bit hash of each character bigram of ``text`` with a mark (code 0) at
    each end, in order, repeats kept (the reference implementation)."""
    codes = np.frombuffer(("\x00" + text + "\x00").encode("utf-32-le", "surrogatepass"),
                          dtype=np.uint32).astype(np.uint64)  # fmt: skip
    grams = (codes[:-1] << np.uint64(_CODE_BITS)) | codes[1:]
    return mix64(grams ^ _BIGRAM_SEED)


def bigram_features_python(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct character bigrams of ``text`` (with a mark at each end) as stable 64-bit
    hashes, ascending, and how often each occurs (the reference implementation)."""
    distinct, counts = np.unique(bigram_hashes_python(text), return_counts=True)
    return distinct, counts.astype(np.float64)


def bigram_features(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The features of a short text's fingerprint (``bigram_features_python``), in one native
    call where the accelerator is built (~2 us a row; ~9 us with numpy's unique)."""
    if speedups is not None and sys.byteorder == "little":
        hashes, counts = speedups.bigram_features(text)
        return np.frombuffer(hashes, dtype=np.uint64), np.frombuffer(counts, dtype=np.float64)
    return bigram_features_python(text)


def max_edits(length: np.ndarray, threshold: float) -> np.ndarray:
    """The most edits a text of ``length`` characters may be from a partner with edit
    similarity ``>= threshold``: the partner is at most ``length / threshold`` long."""
    if threshold <= 0.0:
        return length.astype(np.int64)
    longest = np.floor(length / threshold + 1e-9)
    return np.floor((1.0 - threshold) * longest + 1e-9).astype(np.int64)


def _qgrams(texts: list[str], q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every q-gram of every text as ``(doc, gram, position)``, texts in order and each text's
    q-grams by position (``q - 1`` marks before and after each text: ``n + q - 1`` of them for
    ``n`` characters). Equal q-grams have equal values."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    pad = "\x00" * (q - 1)
    joined = pad + pad.join(texts) + pad if q > 1 else "".join(texts)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    wide = codes.astype(np.uint64)
    del codes
    count = lengths + q - 1
    # Texts and pads laid end to end: text t's q-grams start at each of ``count[t]`` places
    # from its pad before it, the last reading into the pad after it.
    total = int(count.sum())
    gram = wide[:total].copy()
    with np.errstate(over="ignore"):
        for offset in range(1, q):
            gram *= _GOLDEN  # odd: a polynomial hash modulo 2^64, mixed after
            gram += wide[offset : offset + total]
        gram = mix64(gram)
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), count)
    position = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    return doc, gram, position


# Candidate slots (a pivot and a prefix entry under one q-gram, near in position) looked at in
# one step: memory stays bounded when many short texts share their q-grams.
_SLOTS_AT_ONCE = 1 << 22  # ~0.5 GB of arrays in window_pairs_python
_NATIVE_SLOTS_AT_ONCE = 1 << 24  # natively only the pairs kept take memory
_GRAM_ID_BITS = 22  # q-grams are told apart by 22 bits of their hash: a clash adds candidates
_NATIVE_SPAN = 1 << 10  # speedups.edit_prefixes packs a key (id, position) in 32 bits
HISTOGRAM_BINS = 32  # characters counted by code modulo 32: the bag-distance bound


MIN_THRESHOLD = 0.7  # below it the q-gram lemma bounds nothing for the shortest texts


LONGEST_GRAM = 5  # longer q-grams are rarer, but make a longer prefix (measured below)


def gram_length(threshold: float, longest: int) -> int:
    """The q of the q-grams for ``threshold`` and texts of up to ``longest`` characters: the
    largest q up to ``LONGEST_GRAM`` for which a text of any of those lengths, k edits at most
    from a partner, has the q * k + 1 q-grams its prefix needs (``n + q - 1`` of them for ``n``
    characters). At 0.9 that is 5 (k ~ n / 9), at 0.8 it is 3 (k ~ n / 4), from
    ``MIN_THRESHOLD`` it is 2 (k ~ 0.43 n). Measured on 25,000 English lines at 0.9: q = 2, 3,
    4, 5 look at 30, 6.2, 2.3 and 1.2 million pivot-prefix slots, the prefixes take ~10% longer
    to build from 3 to 5."""
    if threshold < MIN_THRESHOLD:
        raise ValueError(f"an edit similarity threshold below {MIN_THRESHOLD}: {threshold}")
    length = np.arange(longest + 1, dtype=np.int64)
    edits = max_edits(length, threshold)
    for q in range(LONGEST_GRAM, 1, -1):
        if np.all(q * edits + 1 <= length + q - 1):
            return q
    raise AssertionError("q = 2 fits every length from MIN_THRESHOLD")  # pragma: no cover


class _Block(NamedTuple):
    """Candidate pairs ``(i, j)`` of one block, and how far the join is after it: ``done`` of
    ``total`` candidate slots."""

    i: np.ndarray
    j: np.ndarray
    done: int
    total: int


class Signatures(NamedTuple):
    """What the candidate step reads (see the module docstring), as int64 tables:

    ``pivots`` (doc, key, low, high): each pivot, its key (q-gram id, then position) and the
    window ``[low, high)`` of ``prefix`` within its text's most edits of its position;
    ``prefix`` (doc, key): every prefix entry, sorted by key; ``docs`` (rank of the last
    q-gram of the prefix, length) per text; ``histograms`` (uint16, ``HISTOGRAM_BINS`` per
    text); ``by_length`` (most edits of a pair whose longer text has this length, the
    shortest partner that can reach the threshold) per length."""

    pivots: np.ndarray
    prefix: np.ndarray
    docs: np.ndarray
    histograms: np.ndarray
    by_length: np.ndarray


def prefixes_python(
    texts: list[str], edits: np.ndarray, q: int, span: int, count_bits: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each text's prefix entries and its pivots as ``(doc, key)`` rows (int64), both sorted by
    key (stably: by text among equal keys), the key ``id * span + position + max(edits) + 1``
    of the q-gram; and the rank of the last q-gram of each prefix (see the module docstring;
    ``edits``: each text's most edits; a q-gram's rank is how often it occurs, capped at
    ``count_bits`` bits, then its id). The reference implementation of
    ``speedups.edit_prefixes``."""
    n = len(texts)
    doc, gram, position = _qgrams(texts, q)
    # The global order: q-grams by how often they occur (rarest first, the count capped), then
    # by id. Any fixed order keeps the filter exact; rarest first keeps its lists short.
    gid = (gram >> np.uint64(64 - _GRAM_ID_BITS)).astype(np.int64)
    del gram
    occurs = np.bincount(gid)
    rank = (np.minimum(occurs, (1 << count_bits) - 1)[gid] << _GRAM_ID_BITS) | gid
    del occurs, gid
    # The prefix: the first q * k + 1 q-grams of a text of k most edits in that order, and
    # every other occurrence of its last q-gram (all the q-grams of the text up to a rank).
    starts = np.searchsorted(doc, np.arange(n + 1))
    doc_bits = max(n - 1, 1).bit_length()
    if doc_bits + count_bits + _GRAM_ID_BITS <= 63:
        ranks = np.sort((doc << (63 - doc_bits)) | rank)
        last = ranks[starts[:-1] + q * edits] & ((1 << (63 - doc_bits)) - 1)
        del ranks
    else:
        last = rank[np.lexsort((rank, doc))[starts[:-1] + q * edits]]
    prefix = rank <= last[doc]
    doc, rank, position = doc[prefix], rank[prefix], position[prefix]
    del prefix
    # Pivots: k + 1 disjoint q-grams of each prefix, leftmost first (each one taken rules out
    # at most the q - 1 next positions, so q * k + 1 q-grams always hold k + 1 of them).
    pivots = np.sort(_leftmost_disjoint(doc * span + position, doc, edits + 1, q, n))
    # Keys group each q-gram's entries by position: any order of the q-grams would do.
    key = (rank & ((1 << _GRAM_ID_BITS) - 1)) * span + position + int(edits.max()) + 1
    prefix = np.stack((doc, key), 1)[np.argsort(key, kind="stable")]
    pivots = pivots[np.argsort(key[pivots], kind="stable")]
    return prefix, np.stack((doc[pivots], key[pivots]), 1), last


def signatures(
    texts: list[str], threshold: float, told: Callable[[int], None] | None = None
) -> Signatures:
    """The prefixes and pivots of ``texts`` for an edit join at ``threshold``."""
    told = told or (lambda step: None)
    n = len(texts)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=n)
    q = gram_length(threshold, int(lengths.max()))
    edits = max_edits(lengths, threshold)
    span = int(lengths.max()) + q + 2 * int(edits.max()) + 2  # a window never leaves its rank
    # Ranks fit in 63 bits with the text's number above them (prefixes_python sorts by both).
    count_bits = max(0, min(24, 63 - max(n - 1, 1).bit_length() - _GRAM_ID_BITS))
    told(1)
    if speedups is not None and span <= _NATIVE_SPAN and n < 1 << 31:
        raw = speedups.edit_prefixes(texts, edits, q, span, count_bits)
        prefix, pivots, last = (np.frombuffer(r, dtype=np.int64) for r in raw)
        prefix, pivots = prefix.reshape(-1, 2), pivots.reshape(-1, 2)
    else:
        prefix, pivots, last = prefixes_python(texts, edits, q, span, count_bits)
    told(3)
    windows = pivot_windows(pivots, prefix, edits)
    histograms = character_histograms("".join(texts), lengths)
    longest = np.arange(int(lengths.max()) + 1, dtype=np.int64)
    by_length = np.stack(
        (np.floor((1.0 - threshold) * longest + 1e-9), np.ceil(threshold * longest - 1e-9)), 1
    ).astype(np.int64)
    told(4)
    return Signatures(
        windows,
        prefix,
        np.stack((last, lengths), 1),
        histograms,
        by_length,
    )


def windows_python(pivots: np.ndarray, prefix: np.ndarray, edits: np.ndarray) -> np.ndarray:
    """The pivots ``(doc, key)`` as ``(doc, key, low, high)``: each pivot pairs with the prefix
    entries of its q-gram within its text's most edits of its position, a window ``[low,
    high)`` of the prefix's keys (sorted). The reference implementation of
    ``speedups.edit_windows``."""
    pivot_doc, pivot_key = pivots[:, 0], pivots[:, 1]
    prefix_key = np.ascontiguousarray(prefix[:, 1])
    reach = edits[pivot_doc]
    low = np.searchsorted(prefix_key, pivot_key - reach)
    high = np.searchsorted(prefix_key, pivot_key + reach, side="right")
    return np.stack((pivot_doc, pivot_key, low, high), 1)


def pivot_windows(pivots: np.ndarray, prefix: np.ndarray, edits: np.ndarray) -> np.ndarray:
    """``windows_python``, natively when the extension is there (on every core, no copy of
    the prefix's keys)."""
    if speedups is not None and sys.byteorder == "little":
        table = speedups.edit_windows(np.ascontiguousarray(pivots, np.int64),
                                      np.ascontiguousarray(prefix, np.int64),
                                      np.ascontiguousarray(edits, np.int64))  # fmt: skip
        return np.frombuffer(table, dtype=np.int64).reshape(-1, 4)
    return windows_python(pivots, prefix, edits)


def character_histograms(joined: str, lengths: np.ndarray) -> np.ndarray:
    """Each text's characters counted by code modulo ``HISTOGRAM_BINS`` (the bag-distance
    bound), ``HISTOGRAM_BINS`` uint16 per text: ``joined`` is the texts end to end, ``lengths``
    their lengths."""
    if speedups is not None and sys.byteorder == "little":
        # One native pass (~20 ms at 10^5 texts of 200 characters; ~0.9 s in numpy).
        counted = speedups.edit_histograms(joined, np.ascontiguousarray(lengths, np.int64))
        return np.frombuffer(counted, dtype=np.uint16)
    return character_histograms_python(joined, lengths)


def character_histograms_python(joined: str, lengths: np.ndarray) -> np.ndarray:
    """``character_histograms`` in numpy (the reference implementation of
    ``speedups.edit_histograms``)."""
    n = int(lengths.size)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bins = np.repeat(np.arange(n, dtype=np.int64), lengths) * HISTOGRAM_BINS
    bins += codes % HISTOGRAM_BINS
    return np.bincount(bins, minlength=n * HISTOGRAM_BINS).astype(np.uint16)


def window_pairs_python(sig: Signatures, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The candidate pairs ``(i, j)``, ``i < j``, of pivots ``first`` to ``stop`` (in order of
    pivot, then of prefix entry; repeats kept): each pivot of a text ``s`` with each prefix
    entry of a text ``r`` in its window, kept when ``r`` is not ``s``, the prefix of ``r``
    reaches at least as far in the order as that of ``s`` (else the pivots of ``r`` meet the
    prefix of ``s``), their lengths allow the threshold, the q-gram moved by no more than the
    pair's most edits, and the bag distance of their histograms is within them too (the
    reference implementation of ``speedups.edit_window_pairs``)."""
    pivots = sig.pivots[first:stop]
    count = pivots[:, 3] - pivots[:, 2]
    left = np.repeat(np.arange(pivots.shape[0]), count)
    entry = pivots[left, 2] + np.arange(left.size) - np.repeat(np.cumsum(count) - count, count)
    s, r = pivots[left, 0], sig.prefix[entry, 0]
    length_s, length_r = sig.docs[s, 1], sig.docs[r, 1]
    longer = np.maximum(length_s, length_r)
    edits = sig.by_length[longer, 0]
    keep = (s != r) & (sig.docs[r, 0] >= sig.docs[s, 0])
    keep &= np.minimum(length_s, length_r) >= sig.by_length[longer, 1]
    keep &= np.abs(pivots[left, 1] - sig.prefix[entry, 1]) <= edits
    s, r, edits = s[keep], r[keep], edits[keep]
    bins = HISTOGRAM_BINS
    hist = sig.histograms.reshape(-1, bins).astype(np.int64)
    bag = np.zeros(s.size, dtype=np.int64)
    for start in range(0, s.size, 1 << 20):
        part = slice(start, start + (1 << 20))
        bag[part] = np.abs(hist[s[part]] - hist[r[part]]).sum(1)
    keep = bag + np.abs(sig.docs[s, 1] - sig.docs[r, 1]) <= 2 * edits
    s, r = s[keep], r[keep]
    return np.minimum(s, r), np.maximum(s, r)


def _leftmost_disjoint(
    place: np.ndarray, doc: np.ndarray, wanted: np.ndarray, q: int, texts: int
) -> np.ndarray:
    """Indexes into ``place`` (``doc * span + position``, sorted) of up to ``wanted[d]``
    q-grams of each text ``d`` whose positions are at least ``q`` apart, leftmost first: one
    round per pivot, every text at once."""
    starts = np.searchsorted(doc, np.arange(texts + 1))
    ends = starts[1:]
    current = starts[:-1][starts[:-1] < ends]
    active = doc[current]
    taken = [current]
    for round_ in range(1, int(wanted.max()) if wanted.size else 0):
        keep = wanted[active] > round_
        current = np.searchsorted(place, place[current[keep]] + q)
        active = active[keep]
        keep = current < ends[active]
        current, active = current[keep], active[keep]
        if not current.size:
            break
        taken.append(current)
    return np.concatenate(taken)


def window_pairs(sig: Signatures, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """``window_pairs_python``, natively when the extension is there."""
    if speedups is not None:
        i, j = speedups.edit_window_pairs(
            sig.pivots, sig.prefix, sig.docs, sig.histograms, sig.by_length, first, stop
        )
        return np.frombuffer(i, dtype=np.int64), np.frombuffer(j, dtype=np.int64)
    return window_pairs_python(sig, first, stop)


def _candidate_blocks(
    texts: list[str], threshold: float, setup: Callable[[int], None] | None = None
) -> Iterator[_Block]:
    """Candidate pairs ``(i, j)``, ``i < j``, a block at a time (a pair may come in more
    than one block, never twice in one). ``setup(step)``: told of each of the
    ``_SETUP_STEPS`` steps of the index built before the first block."""
    if len(texts) < 2:
        return
    told = setup or (lambda step: None)
    sig = signatures(texts, threshold, told)
    count = sig.pivots[:, 3] - sig.pivots[:, 2]
    ends = np.cumsum(count)
    told(_SETUP_STEPS)
    first, total = 0, int(ends[-1]) if ends.size else 0
    while first < count.size:
        # The pivots whose slots fit in one step (at least one pivot).
        base = int(ends[first] - count[first])
        at_once = _NATIVE_SLOTS_AT_ONCE if speedups is not None else _SLOTS_AT_ONCE
        stop = max(int(np.searchsorted(ends, base + at_once, side="right")), first + 1)
        i, j = window_pairs(sig, first, stop)
        pair = np.unique(i * len(texts) + j)
        yield _Block(pair // len(texts), pair % len(texts), int(ends[stop - 1]), total)
        first = stop


def candidate_pairs(texts: list[str], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(i[n], j[n])``, ``i < j``, of ``texts`` that could have edit similarity
    ``>= threshold`` (a superset of those that have: see the module docstring), each once."""
    blocks = list(_candidate_blocks(texts, threshold))
    if not blocks:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    pair = np.unique(np.concatenate([b.i * len(texts) + b.j for b in blocks]))
    return pair // len(texts), pair % len(texts)


# Pairs compared between two calls of a join's ``progress``: ~0.1 s at 52,000 short rows.
_PROGRESS_PAIRS = 1 << 15
# A join's progress is told in thousandths: its index (``_SETUP_STEPS`` steps) takes the first
# ``_SETUP_SHARE`` of them, its pairs the rest (measured at 103,000 English lines of 40-200
# characters: the prefixes, pivots and windows ~2/3 of the join's time, the candidates and
# their verification the rest).
_SETUP_STEPS = 5
_SETUP_SHARE = 650
_PROGRESS_TOTAL = 1000


def join(
    texts: list[str],
    threshold: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(i, j, similarity)`` of ``texts`` whose edit similarity is
    ``>= threshold``, ``i < j``, ordered by ``(i, j)``: all of them. ``progress(done, total)``
    is told how far the join is as it goes, in thousandths (``_PROGRESS_TOTAL``): its index
    built, then the candidate pairs compared."""
    found: list[np.ndarray] = []
    sims: list[np.ndarray] = []

    def told(share: int) -> None:
        if progress is not None:
            progress(share, _PROGRESS_TOTAL)

    def built(step: int) -> None:
        told(_SETUP_SHARE * step // _SETUP_STEPS)

    rest = _PROGRESS_TOTAL - _SETUP_SHARE
    told(0)
    before = 0
    for i, j, done, total in _candidate_blocks(texts, threshold, setup=built):
        step = _PROGRESS_PAIRS if progress is not None else max(int(i.size), 1)
        parts = []
        for start in range(0, int(i.size), step):
            ii, jj = i[start : start + step].tolist(), j[start : start + step].tolist()
            left, right = [texts[k] for k in ii], [texts[k] for k in jj]
            parts.append(_similarities_near(left, right, threshold))
            # The block's pair slots, in proportion to its pairs compared.
            slots = before + (done - before) * (start + len(ii)) // int(i.size)
            told(_SETUP_SHARE + rest * slots // max(total, 1))
        before = done
        got = np.concatenate(parts) if parts else np.empty(0, dtype=np.float64)
        near = got >= threshold - 1e-12
        found.append(i[near] * len(texts) + j[near])
        sims.append(got[near])
    told(_PROGRESS_TOTAL)
    if not found:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0, dtype=np.float64)
    pair, first = np.unique(np.concatenate(found), return_index=True)
    return pair // len(texts), pair % len(texts), np.concatenate(sims)[first]


def too_far(length_a: int, length_b: int, threshold: float) -> bool:
    """Whether two texts of these lengths cannot reach ``threshold`` (the length filter)."""
    return min(length_a, length_b) < math.ceil(threshold * max(length_a, length_b) - 1e-9)
