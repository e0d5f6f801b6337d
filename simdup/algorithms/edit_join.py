"""Short texts joined by edit similarity: every pair at or above a threshold, none missed.

A short text (a review, a title, a list item) has too few words for a word set to judge it, so
it is compared by what the project's definition of a near-duplicate says: the edit similarity
``1 - lev(a, b) / max(len(a), len(b))`` of the two texts, computed exactly (rapidfuzz).

Candidates come from a prefix filter on character bigrams (the q-gram lemma, Ukkonen 1992;
Ed-Join, Xiao, Wang & Lin 2008), which is exact. Each text is padded with a mark at each end,
so a text of ``n`` characters has ``n + 1`` bigrams; if ``lev(a, b) <= k`` the two share at
least ``max(|a|, |b|) + 1 - 2k`` of them, counted with repeats. Each text's bigrams are put in
one global order (rarest first, by how many texts hold them, then by value), and a text is
indexed under the first ``2k + 1`` of them, ``k`` the most edits a partner may need. Two texts
within ``k`` edits then share an indexed bigram: no pair at or above the threshold is missed
(``tests/algorithms/test_edit_join.py`` checks it against every pair). Rarest first keeps the
lists short: the bigrams that many texts share come last in each text's order.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from ..native import speedups
from .minhash import _GOLDEN, mix64

_CODE_BITS = 21  # Unicode code points fit in 21 bits: a bigram is two of them
_GRAM_BITS = 2 * _CODE_BITS


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


_BIGRAM_SEED = np.uint64(0x62696772616D7321)  # "bigrams!": never a word's hash


def bigram_hashes_python(text: str) -> np.ndarray:
    """The stable 64-bit hash of each character bigram of ``text`` with a mark (code 0) at
    each end, in order, repeats kept (the reference implementation)."""
    codes = np.frombuffer(("\x00" + text + "\x00").encode("utf-32-le", "surrogatepass"),
                          dtype=np.uint32).astype(np.uint64)  # fmt: skip
    grams = (codes[:-1] << np.uint64(_CODE_BITS)) | codes[1:]
    return mix64(grams ^ _BIGRAM_SEED)


def bigram_features(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct character bigrams of ``text`` (with a mark at each end) as stable 64-bit
    hashes, and how often each occurs: the features of a short text's fingerprint."""
    if speedups is not None and sys.byteorder == "little":
        hashes = np.frombuffer(speedups.bigram_hashes(text), dtype=np.uint64)
    else:
        hashes = bigram_hashes_python(text)
    distinct, counts = np.unique(hashes, return_counts=True)
    return distinct, counts.astype(np.float64)


def max_edits(length: np.ndarray, threshold: float) -> np.ndarray:
    """The most edits a text of ``length`` characters may be from a partner with edit
    similarity ``>= threshold``: the partner is at most ``length / threshold`` long."""
    if threshold <= 0.0:
        return length.astype(np.int64)
    longest = np.floor(length / threshold + 1e-9)
    return np.floor((1.0 - threshold) * longest + 1e-9).astype(np.int64)


def _qgrams(texts: list[str], q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each text's q-grams with repeats told apart: ``(doc, token)`` of every q-gram (``q - 1``
    marks before and after each text: ``n + q - 1`` of them for ``n`` characters; equal q-grams
    have equal values, and two different ones the same value only by a 64-bit hash collision,
    which can only add a candidate), and each text's length."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    pad = "\x00" * (q - 1)
    joined = pad + pad.join(texts) + pad if q > 1 else "".join(texts)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    codes = codes.astype(np.uint64)
    count = lengths + q - 1
    # Texts and pads laid end to end: text t's q-grams start at each of ``count[t]`` places
    # from its pad before it, the last reading into the pad after it.
    total = int(count.sum())
    gram = np.zeros(total, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for offset in range(q):
            gram = mix64(gram ^ codes[offset : offset + total])
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), count)
    # The k-th repeat of a q-gram in a text is its own token (the lemma counts repeats).
    order = np.lexsort((gram, doc))
    gram, doc = gram[order], doc[order]
    first = np.ones(gram.size, dtype=bool)
    first[1:] = (gram[1:] != gram[:-1]) | (doc[1:] != doc[:-1])
    run_start = np.maximum.accumulate(np.where(first, np.arange(gram.size), 0))
    repeat = (np.arange(gram.size) - run_start).astype(np.uint64)
    with np.errstate(over="ignore"):
        token = mix64(gram + repeat * _GOLDEN)
    return doc, token, lengths


# Candidate pairs made (and verified) at a time: memory stays bounded when many short texts
# share their rare bigrams (templates, lists of similar items).
_PAIRS_AT_ONCE = 1 << 22


MIN_THRESHOLD = 0.7  # below it the q-gram lemma bounds nothing for the shortest texts


def gram_length(threshold: float) -> int:
    """The q of the q-grams for ``threshold``: 3 from 0.8 (a text of n characters may then be
    n / 4 edits from a partner, and n + 2 - 3n/4 > 0 of its trigrams are still shared), 2 from
    ``MIN_THRESHOLD`` (0.43n edits: n + 1 - 0.86n > 0 bigrams shared)."""
    if threshold < MIN_THRESHOLD:
        raise ValueError(f"an edit similarity threshold below {MIN_THRESHOLD}: {threshold}")
    return 3 if threshold >= 0.8 else 2


# A q-gram in the prefixes of more than ``crowd(n)`` of n texts is not a key. Rarest first, a
# prefix holds such a q-gram only when its text has few rarer ones (a text made of the commonest
# letters of a small alphabet, a template), and pairing every text under it would cost the
# square of the crowd: the join stays near-linear at the price of exactness for such texts
# alone (their copies of the same form are still found by ``join.verify.same_form_pairs``).
# On 67,949 distinct lines of the benchmark set's documents a crowd of 128 loses no pair (64
# loses 8%); it grows with the number of texts, as the counts of real q-grams do.
CROWD = 128
CROWD_SHARE = 512  # texts per unit of crowd above CROWD


def crowd_limit(texts: int) -> int:
    """The crowd above which a q-gram is no key, for a join of ``texts`` texts."""
    return max(CROWD, texts // CROWD_SHARE)


class _Block(NamedTuple):
    """Candidate pairs ``(i, j)`` of one block, and how far the join is after it: ``done`` of
    ``total`` pair slots (a pair under several q-grams takes several)."""

    i: np.ndarray
    j: np.ndarray
    done: int
    total: int


def _candidate_blocks(
    texts: list[str],
    threshold: float,
    q: int | None = None,
    crowd: int | None = None,
    setup: Callable[[int], None] | None = None,
) -> Iterator[_Block]:
    """Candidate pairs ``(i, j)``, ``i < j``, a block at a time (a pair may come in more
    than one block, never twice in one). ``setup(step)``: told of each of the
    ``_SETUP_STEPS`` steps of the index built before the first block (seconds each at
    10^5 texts)."""
    if len(texts) < 2:
        return
    told = setup or (lambda step: None)
    q = gram_length(threshold) if q is None else q
    crowd = crowd_limit(len(texts)) if crowd is None else crowd
    doc, token, lengths = _qgrams(texts, q)
    told(1)
    # Rarest first: how many texts hold each token, then the token itself.
    _, where, held = np.unique(token, return_inverse=True, return_counts=True)
    told(2)
    order = np.lexsort((token, held[where], doc))
    doc, token = doc[order], token[order]
    del where, held, order
    told(3)
    position = np.arange(doc.size) - np.searchsorted(doc, doc)
    prefix = position < q * max_edits(lengths, threshold)[doc] + 1
    doc, token = doc[prefix], token[prefix]
    # A token in the prefixes of more than ``crowd`` texts is no key (see ``crowd_limit``).
    _, where, held = np.unique(token, return_inverse=True, return_counts=True)
    rare = held[where] <= crowd
    doc, token = doc[rare], token[rare]
    del where, held, rare
    told(4)
    # Pairs under one token whose lengths allow the threshold: sorted by (token, length), each
    # entry pairs with the entries after it under its token up to length / threshold.
    length = lengths[doc]
    order = np.lexsort((doc, length, token))
    doc, token, length = doc[order], token[order], length[order]
    told(_SETUP_STEPS)
    if not doc.size:
        return
    group = np.concatenate(([0], np.cumsum(token[1:] != token[:-1])))
    span = int(lengths.max()) + 2  # keys (group, length) as one integer
    if threshold > 0:
        longest = np.minimum(np.floor(length / threshold + 1e-9).astype(np.int64), span - 1)
    else:
        longest = np.full(length.size, span - 1, dtype=np.int64)
    stop = np.searchsorted(group * span + length, group * span + longest, side="right")
    count = stop - np.arange(doc.size) - 1
    ends = np.cumsum(count)
    first = 0
    while first < doc.size:
        # The entries whose pairs fit in one block (at least one entry).
        base = int(ends[first] - count[first])
        last = max(int(np.searchsorted(ends, base + _PAIRS_AT_ONCE, side="right")), first + 1)
        part = count[first:last]
        if part.sum():
            left = np.repeat(np.arange(first, last), part)
            offset = np.arange(left.size) - np.repeat(np.cumsum(part) - part, part)
            a, b = doc[left], doc[left + 1 + offset]
            i, j = np.minimum(a, b), np.maximum(a, b)
            keep = i != j
            pair = np.unique(i[keep] * len(texts) + j[keep])
            yield _Block(pair // len(texts), pair % len(texts), int(ends[last - 1]),
                         int(ends[-1]))  # fmt: skip
        first = last


def candidate_pairs(
    texts: list[str], threshold: float, crowd: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(i[n], j[n])``, ``i < j``, of ``texts`` that could have edit similarity
    ``>= threshold`` (a superset of those that have, when no prefix q-gram is held by more
    than ``crowd`` texts: see the module docstring), each once."""
    blocks = list(_candidate_blocks(texts, threshold, crowd=crowd))
    if not blocks:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    pair = np.unique(np.concatenate([b.i * len(texts) + b.j for b in blocks]))
    return pair // len(texts), pair % len(texts)


# Pairs compared between two calls of a join's ``progress``: ~0.1 s at 52,000 short rows.
_PROGRESS_PAIRS = 1 << 15
# A join's progress is told in thousandths: its index (``_SETUP_STEPS`` steps) takes the first
# ``_SETUP_SHARE`` of them, its pairs the rest (measured at 52,000 rows of ~190 characters:
# ~3/4 of the join's time, and its first block came only after it).
_SETUP_STEPS = 5
_SETUP_SHARE = 700
_PROGRESS_TOTAL = 1000


def join(
    texts: list[str],
    threshold: float,
    crowd: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(i, j, similarity)`` of ``texts`` whose edit similarity is
    ``>= threshold``, ``i < j``, ordered by ``(i, j)`` (all of them while no prefix q-gram is
    held by more than ``crowd`` texts; default ``crowd_limit``). ``progress(done, total)``
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
    for i, j, done, total in _candidate_blocks(texts, threshold, crowd=crowd, setup=built):
        step = _PROGRESS_PAIRS if progress is not None else max(int(i.size), 1)
        parts = []
        for start in range(0, int(i.size), step):
            ii, jj = i[start : start + step].tolist(), j[start : start + step].tolist()
            parts.append(edit_similarities([texts[k] for k in ii], [texts[k] for k in jj]))
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
