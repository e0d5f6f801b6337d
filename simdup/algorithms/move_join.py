"""Short texts joined by block-move similarity: a moved paragraph is a move, not a deletion and
a retyping. Every pair at or above a threshold, none missed.

A short text here is a list of *blocks* (its paragraphs, list items and headings, each a
comparison form, none empty: ``text.normalize.block_form``), written as one string with
``BLOCK_MARK`` between blocks. Its length ``|A|`` is
the sum of its blocks' lengths (the marks and the spaces that stood between blocks are not
counted). The *block-move distance* of two texts is

    ``D(A, B) = min over one-to-one matchings of blocks, in any order, of the summed
    Levenshtein distances``,

the shorter list padded with empty blocks (an unmatched block costs its length: matching it
with any block instead never costs more, as ``lev(x, y) <= |x| + |y|``), computed exactly by an
optimal assignment (``block_distance``). The *block-move similarity* is
``1 - D(A, B) / max(|A|, |B|)`` (1.0 for two empty texts). A text of one block is compared as
by ``edit_join.edit_similarity``; a text whose paragraphs were swapped keeps similarity 1.0.

Candidates: the pivotal prefix filter of ``edit_join`` on q-grams taken *within* blocks (none
spans a block boundary), without positions (a move changes every position). Why no pair at or
above the threshold is missed:

* ``D(A, B) <= e``, ``e = floor((1 - t) * max(|A|, |B|))``, and ``e <= min(k_A, k_B)``,
  ``k_A = edit_join.max_edits(|A|)`` (the longest partner of ``A`` has ``|A| / t``
  characters).
* Each block is padded with ``q - 1`` marks at each end and cut into its ``|x| + q - 1``
  q-grams; ``A`` has ``sum(|x| + q - 1) >= |A| + q - 1`` of them, so ``edit_join.gram_length``
  gives a q for which every text has the ``q * k + 1`` q-grams its prefix needs. (Natively:
  the blocks joined by ``q - 1`` marks are given to ``speedups.edit_prefixes`` as one text:
  the q-grams of that string are exactly the padded blocks' q-grams, and q-grams disjoint
  in it are disjoint in their blocks.)
* One edit inside a matched block touches at most one of a set of disjoint q-grams of that
  block; an unmatched block of ``L >= 1`` characters costs ``L`` and holds at most
  ``floor((L + 2q - 2) / q) <= L`` disjoint q-grams. So ``D`` touches at most ``D`` of ``A``'s
  disjoint q-grams, and of its ``k_A + 1`` pivots (disjoint, in its prefix) at least one comes
  through whole: ``B`` holds that q-gram ``g``, somewhere.
* The prefix of a text is every q-gram of it up to a rank ``last`` in the global order; ``g``
  ranks no later than ``last(A)``, so when ``last(B) >= last(A)``, ``g`` is in the prefix of
  ``B``; otherwise the same holds with ``A`` and ``B`` exchanged.
* So every such pair has a pivot of one text among the prefix entries of the other under the
  same q-gram, the pivot's prefix reaching no further: ``edit_join.window_pairs`` looks at
  exactly those (its window is every prefix entry of the q-gram), and keeps a pair when its
  lengths allow the threshold (``D >= ||A| - |B||``) and the bag distance of the blocks'
  characters is at most ``e`` (a lower bound of each block's ``lev``, and the bag distance of
  two texts is at most the sum of their matched blocks').

``tests/algorithms/test_move_join.py`` checks the join against every pair (small alphabets,
blocks shuffled and edited) and ``block_distance`` against every permutation.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from ..native import speedups
from . import edit_join

# What stands between two blocks of a text (a comparison form holds no line break). A scan's
# settings name the joins of short texts by ``edit_join.JOIN_VERSION``, this one included.
BLOCK_MARK = "\n"


def blocks_of(text: str) -> list[str]:
    """The blocks of a text written with ``BLOCK_MARK`` between them (empty ones left out)."""
    if BLOCK_MARK not in text:
        return [text] if text else []
    return [b for b in text.split(BLOCK_MARK) if b]


def block_length(text: str) -> int:
    """``|A|``: the characters of the text's blocks."""
    return len(text) - text.count(BLOCK_MARK)


def min_assignment(cost: np.ndarray) -> int:
    """The least total cost of a one-to-one assignment of the rows of a square matrix to its
    columns (the Hungarian method with potentials, O(n^3))."""
    n = int(cost.shape[0])
    if n == 0:
        return 0
    if n == 1:
        return int(cost[0, 0])
    c = cost.astype(np.int64)
    big = np.iinfo(np.int64).max // 4
    u = np.zeros(n + 1, dtype=np.int64)
    v = np.zeros(n + 1, dtype=np.int64)
    match = np.zeros(n + 1, dtype=np.int64)  # column -> row (1-based; 0: free)
    for row in range(1, n + 1):
        match[0] = row
        col0 = 0
        least = np.full(n + 1, big, dtype=np.int64)
        way = np.zeros(n + 1, dtype=np.int64)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[col0] = True
            r0 = int(match[col0])
            free = ~used[1:]
            reduced = c[r0 - 1] - u[r0] - v[1:]
            better = free & (reduced < least[1:])
            least[1:][better] = reduced[better]
            way[1:][better] = col0
            masked = np.where(free, least[1:], big)
            col1 = int(np.argmin(masked)) + 1
            delta = int(masked[col1 - 1])
            u[match[used]] += delta
            v[used] -= delta
            least[1:][free] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while col0:
            col1 = int(way[col0])
            match[col0] = match[col1]
            col0 = col1
    total = 0
    for col in range(1, n + 1):
        total += int(c[match[col] - 1, col - 1])
    return total


def block_distance(a: list[str], b: list[str], cutoff: int | None = None) -> int:
    """``D(a, b)`` of two lists of blocks (see the module docstring); with ``cutoff``, any
    value above it is ``cutoff + 1``. Equal blocks are matched first (an optimal matching
    holds them: swapping partners never costs more, by the triangle inequality), the rest by
    an optimal assignment."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    common = Counter(a) & Counter(b)
    if common:
        left, right = Counter(a) - common, Counter(b) - common
        a, b = list(left.elements()), list(right.elements())
    if not a or not b:
        total = sum(map(len, a or b))
        return total if cutoff is None else min(total, cutoff + 1)
    if len(a) < len(b):
        a, b = b, a
    if len(a) == 1:
        return int(Levenshtein.distance(a[0], b[0], score_cutoff=cutoff))
    matrix = process.cdist(a, b, scorer=Levenshtein.distance, score_cutoff=cutoff, dtype=np.int64)
    cost = np.empty((len(a), len(a)), dtype=np.int64)
    cost[:, : len(b)] = matrix
    lengths = np.fromiter(map(len, a), dtype=np.int64, count=len(a))
    if cutoff is not None:
        lengths = np.minimum(lengths, cutoff + 1)
    cost[:, len(b) :] = lengths[:, None]
    total = min_assignment(cost)
    return total if cutoff is None else min(total, cutoff + 1)


def move_similarity(a: str, b: str) -> float:
    """``1 - D(A, B) / max(|A|, |B|)`` of two texts written with ``BLOCK_MARK`` between their
    blocks (1.0 for two empty texts)."""
    longer = max(block_length(a), block_length(b))
    if longer == 0:
        return 1.0
    return 1.0 - block_distance(blocks_of(a), blocks_of(b)) / longer


def move_similarities_near(a: list[str], b: list[str], threshold: float) -> np.ndarray:
    """``move_similarity(a[n], b[n])`` where it reaches ``threshold``, less elsewhere (each
    distance is cut off at the most edits its pair may take)."""
    out = np.empty(len(a), dtype=np.float64)
    for n, (x, y) in enumerate(zip(a, b, strict=True)):
        longer = max(block_length(x), block_length(y))
        if longer == 0:
            out[n] = 1.0
            continue
        most = int(np.floor((1.0 - threshold) * longer + 1e-9))
        out[n] = 1.0 - block_distance(blocks_of(x), blocks_of(y), most) / longer
    return out


def _gram_text(text: str, q: int) -> str:
    """The text whose q-grams are its padded blocks' q-grams: blocks joined by ``q - 1``
    marks (code 0, as ``edit_join`` pads a text)."""
    pad = "\x00" * (q - 1)
    if text[:1] != BLOCK_MARK != text[-1:] and BLOCK_MARK * 2 not in text:
        return text.replace(BLOCK_MARK, pad)  # no empty block: the same, ~5x faster
    return pad.join(blocks_of(text))


def signatures(
    texts: list[str], threshold: float, told: Callable[[int], None] | None = None
) -> edit_join.Signatures:
    """The prefixes and pivots of ``texts`` for a block-move join at ``threshold``, as
    ``edit_join.Signatures`` whose keys are q-gram ids alone (no positions): a pivot's window
    is every prefix entry of its q-gram."""
    told = told or (lambda step: None)
    n = len(texts)
    lengths = np.fromiter(map(block_length, texts), dtype=np.int64, count=n)
    q = edit_join.gram_length(threshold, int(lengths.max()))
    gram_texts = [_gram_text(t, q) for t in texts]
    joined = np.fromiter(map(len, gram_texts), dtype=np.int64, count=n)
    edits = edit_join.max_edits(lengths, threshold)
    span = int(joined.max()) + q + 2 * int(edits.max()) + 2  # keys: id * span + position + ...
    count_bits = max(0, min(24, 63 - max(n - 1, 1).bit_length() - edit_join._GRAM_ID_BITS))
    told(1)
    # Keys sorted by (id, position): by id alone they stay sorted. Natively the rows come as
    # ids; here the keys are divided. (A text's length in ``Signatures.docs`` is its blocks'
    # characters: the marks are none.)
    if speedups is not None and span <= edit_join._NATIVE_SPAN and n < 1 << 31:
        raw = speedups.edit_prefixes(gram_texts, edits, q, span, count_bits, True)
        prefix, pivots, last = (np.frombuffer(r, dtype=np.int64) for r in raw)
        prefix, pivots = prefix.reshape(-1, 2), pivots.reshape(-1, 2)
        del raw
    else:
        prefix, pivots, last = edit_join.prefixes_python(gram_texts, edits, q, span, count_bits)
        prefix[:, 1] //= span
        pivots[:, 1] //= span
    del gram_texts
    told(3)
    # A pivot's window is every prefix entry of its q-gram: the windows of an edit join with
    # no edits (keys are ids, no positions), found natively without copying the keys.
    windows = edit_join.pivot_windows(pivots, prefix, np.zeros(n, dtype=np.int64))
    del pivots
    plain = "".join(texts).replace(BLOCK_MARK, "")
    histograms = edit_join.character_histograms(plain, lengths)
    del plain
    longest = np.arange(int(lengths.max()) + 1, dtype=np.int64)
    by_length = np.stack(
        (np.floor((1.0 - threshold) * longest + 1e-9), np.ceil(threshold * longest - 1e-9)), 1
    ).astype(np.int64)
    told(4)
    return edit_join.Signatures(
        windows,
        prefix,
        np.stack((last, lengths), 1),
        histograms,
        by_length,
    )


def _candidate_blocks(
    texts: list[str], threshold: float, setup: Callable[[int], None] | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray, int, int]]:
    """Candidate pairs ``(i, j)``, ``i < j``, a slice of pivots at a time, with the candidate
    slots done and in all."""
    if len(texts) < 2:
        return
    told = setup or (lambda step: None)
    sig = signatures(texts, threshold, told)
    count = sig.pivots[:, 3] - sig.pivots[:, 2]
    ends = np.cumsum(count)
    told(edit_join._SETUP_STEPS)
    first, total = 0, int(ends[-1]) if ends.size else 0
    native = speedups is not None and sys.byteorder == "little"
    at_once = edit_join._NATIVE_SLOTS_AT_ONCE if native else edit_join._SLOTS_AT_ONCE
    while first < count.size:
        base = int(ends[first] - count[first])
        stop = max(int(np.searchsorted(ends, base + at_once, side="right")), first + 1)
        i, j = edit_join.window_pairs(sig, first, stop)
        pair = np.unique(i * len(texts) + j)
        yield pair // len(texts), pair % len(texts), int(ends[stop - 1]), total
        first = stop


def candidate_pairs(texts: list[str], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(i, j)``, ``i < j``, that could have block-move similarity ``>=
    threshold`` (a superset of those that have), each once."""
    found = [i * len(texts) + j for i, j, _, _ in _candidate_blocks(texts, threshold)]
    if not found:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    pair = np.unique(np.concatenate(found))
    return pair // len(texts), pair % len(texts)


def join(
    texts: list[str],
    threshold: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(i, j, similarity)`` of ``texts`` (blocks between ``BLOCK_MARK``s) whose
    block-move similarity is ``>= threshold``, ``i < j``, ordered by ``(i, j)``: all of them.
    ``progress(done, total)``: told in thousandths as in ``edit_join.join``."""
    found: list[np.ndarray] = []
    sims: list[np.ndarray] = []

    def told(share: int) -> None:
        if progress is not None:
            progress(share, edit_join._PROGRESS_TOTAL)

    def built(step: int) -> None:
        told(edit_join._SETUP_SHARE * step // edit_join._SETUP_STEPS)

    rest = edit_join._PROGRESS_TOTAL - edit_join._SETUP_SHARE
    told(0)
    for i, j, done, total in _candidate_blocks(texts, threshold, setup=built):
        got = move_similarities_near([texts[k] for k in i.tolist()],
                                     [texts[k] for k in j.tolist()], threshold)  # fmt: skip
        near = got >= threshold - 1e-12
        found.append(i[near] * len(texts) + j[near])
        sims.append(got[near])
        told(edit_join._SETUP_SHARE + rest * done // max(total, 1))
    told(edit_join._PROGRESS_TOTAL)
    if not found:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0, dtype=np.float64)
    pair, first = np.unique(np.concatenate(found), return_index=True)
    return pair // len(texts), pair % len(texts), np.concatenate(sims)[first]
