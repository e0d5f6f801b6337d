"""Line-level alignment, for the edges of passages (``simdup.passages.edges``).

A range of lines of a text is tokenized once (``TextLines.tokens``), into ids that one
vocabulary (``EdgeVocabulary``) makes equal exactly for equal tokens; two ranges are aligned
as ``difflib.SequenceMatcher`` aligns them (its matching blocks, found from n-grams without
its quadratic cost on common tokens: ``matching_runs``), and the alignment and the choice of
the chain are one native call per pair (``edge_chain``). Each native function has its Python
definition here, with the same result (the twins named in ``simdup.native.TWINS``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..native import speedups
from ..text.blocks import split_lines
from ..text.textscan import CJK_RANGE

# One token per CJK character (no segmenter needed for order), else a run of word characters;
# a line end is a token of its own, so one pass over a range of lines says where each token is.
_EDGE_TOKEN = re.compile(rf"\n|[{CJK_RANGE}]|[^\W_{CJK_RANGE}]+")
# More token pairs than this starting equal runs (a table of numbers) keep their ends too.
EDGE_MAX_GRAMS = 1 << 20


def line_offsets_python(text: str) -> tuple[list[int], list[int]]:
    """Where each line of ``text`` (``split_lines``) starts and ends."""
    if "\r" in text:
        lines = split_lines(text)
        return [o for _, o in lines], [o + len(line) for line, o in lines]
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    breaks = np.flatnonzero(codes == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.append(breaks, len(text))
    if starts[-1] == len(text):  # ends with a newline (or is empty): no line after it
        starts, ends = starts[:-1], ends[:-1]
    return starts.tolist(), ends.tolist()


def _line_offsets(text: str) -> tuple[list[int], list[int]]:
    """``line_offsets_python`` (natively where the extension is built: one pass, no copy)."""
    if speedups is None:
        return line_offsets_python(text)
    starts, ends = speedups.line_offsets(text)
    return np.frombuffer(starts, dtype=np.int64).tolist(), np.frombuffer(ends, np.int64).tolist()


class EdgeVocabulary:
    """The ids of tokens (``edge_tokens_python``), one for the texts whose tokens are compared:
    where the extension is built, a table it keeps (no str or dict lookup per token), else a
    dict."""

    def __init__(self) -> None:
        self._table: Any = speedups.edge_vocabulary() if speedups else {}

    def __len__(self) -> int:
        if speedups is None:
            return len(self._table)
        return int(speedups.edge_vocabulary_size(self._table))

    def tokens(self, folded: str) -> tuple[np.ndarray, np.ndarray]:
        """``edge_tokens_python(folded, vocabulary)``."""
        if speedups is None:
            return edge_tokens_python(folded, self._table)
        ids, first = speedups.edge_tokens(folded, self._table)
        return np.frombuffer(ids, dtype=np.int64), np.frombuffer(first, dtype=np.int64)


class TextLines:
    """A text and where its lines start and end (those of ``split_lines``; lists, read an item
    at a time), and its tokens as ids of ``vocabulary`` (one shared by the texts whose tokens
    are compared)."""

    def __init__(self, text: str, vocabulary: EdgeVocabulary | None = None) -> None:
        self.text = text
        self.vocabulary = EdgeVocabulary() if vocabulary is None else vocabulary
        self._tokens: dict[tuple[int, int], tuple[np.ndarray, list[int]]] = {}
        self.starts, self.ends = _line_offsets(text)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, k: int) -> str:
        return self.text[self.starts[k] : self.ends[k]]

    def tokens(self, lo: int, hi: int) -> tuple[np.ndarray, list[int]]:
        """The ids of the tokens of lines ``lo..hi`` (0-based, inclusive; ``edge_tokens_python``
        of them casefolded), and where each line's tokens start among them: line ``lo + k``'s
        are ``ids[first[k] : first[k + 1]]``. Remembered: a region of a text is often in several
        pairs, and the lines of no pair's region (most of a text) are never tokenized."""
        found = self._tokens.get((lo, hi))
        if found is None:
            chunk = self.text[self.starts[lo] : self.ends[hi]]
            ids, first = self.vocabulary.tokens(chunk.casefold())
            found = self._tokens[lo, hi] = (ids, first.tolist())
        return found


def edge_tokens_python(folded: str, vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The id of each token of ``folded`` (a casefolded text; tokens as ``_EDGE_TOKEN`` finds
    them, a line end not one): ``vocabulary``'s, a token new to it getting ``len(vocabulary)``
    (so that ids are equal exactly where tokens are, across the texts sharing it); and, for each
    line (ended by ``\\n``, ``\\r\\n`` or ``\\r``, as ``split_lines`` has it), the index of its
    first token, then the number of tokens."""
    if "\r" in folded:
        folded = folded.replace("\r\n", "\n").replace("\r", "\n")
    found: list[str] = _EDGE_TOKEN.findall(folded)
    put = vocabulary.setdefault
    ids = np.fromiter((put(t, len(vocabulary)) for t in found if t != "\n"), dtype=np.int64)
    is_break = np.fromiter((t == "\n" for t in found), dtype=bool, count=len(found))
    breaks = np.flatnonzero(is_break)
    # The k-th line end has k line ends before it, the rest of what precedes it being tokens.
    first = np.concatenate(([0], breaks - np.arange(breaks.size), [ids.size]))
    return ids, first.astype(np.int64)


def _token_ids(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[str, int] = {}
    put = ids.setdefault
    ia = np.array([put(t, len(ids)) for t in a], dtype=np.int64)
    ib = np.array([put(t, len(ids)) for t in b], dtype=np.int64)
    return ia, ib


def _gram_keys(a: np.ndarray, b: np.ndarray, min_run: int) -> tuple[np.ndarray, np.ndarray]:
    """A key of each ``min_run``-gram of ``a`` and of ``b`` (int64 ids), equal exactly where
    the grams are: the ids ranked, then side by side in one int64 where they fit in it."""
    n, m = a.size - min_run + 1, b.size - min_run + 1
    _, inverse = np.unique(np.concatenate((a, b)), return_inverse=True)
    code = inverse.reshape(-1).astype(np.int64)
    size = int(code.max(initial=0)) + 1
    ca, cb = code[: a.size], code[a.size :]
    ka, kb = ca[:n].copy(), cb[:m].copy()
    bits = max(1, (size - 1).bit_length())
    if bits * min_run <= 63:
        for t in range(1, min_run):
            ka = (ka << bits) | ca[t : t + n]
            kb = (kb << bits) | cb[t : t + m]
        return ka, kb
    for t in range(1, min_run):  # ranked again after each token, so that keys stay small
        _, inverse = np.unique(
            np.concatenate((ka * size + ca[t : t + n], kb * size + cb[t : t + m])),
            return_inverse=True,
        )
        key = inverse.reshape(-1).astype(np.int64)
        ka, kb = key[:n], key[n:]
    return ka, kb


def _equal_runs(
    a: np.ndarray, b: np.ndarray, min_run: int, max_grams: int = EDGE_MAX_GRAMS
) -> list[tuple[int, int, int]] | None:
    """Every maximal run ``(i, j, size)`` of ``a[i:i+size] == b[j:j+size]`` with ``size >=
    min_run`` (int64 token ids); None when more than ``max_grams`` pairs ``(i, j)`` start equal
    ``min_run``-grams (too many to look at)."""
    n, m = a.size - min_run + 1, b.size - min_run + 1
    if n < 1 or m < 1:
        return []
    ka, kb = _gram_keys(a, b, min_run)
    order = np.argsort(kb, kind="stable")
    sb = kb[order]
    lo = np.searchsorted(sb, ka, side="left")
    count = np.searchsorted(sb, ka, side="right") - lo
    total = int(count.sum())
    if total == 0:
        return []
    if total > max_grams:
        return None
    i = np.repeat(np.arange(n, dtype=np.int64), count)
    j = order[
        np.repeat(lo, count) + (np.arange(total) - np.repeat(np.cumsum(count) - count, count))
    ]
    d = i - j
    o = np.lexsort((i, d))
    i, d = i[o], d[o]
    new = np.ones(i.size, dtype=bool)
    new[1:] = (d[1:] != d[:-1]) | (i[1:] != i[:-1] + 1)
    first = np.flatnonzero(new)
    last = np.append(first[1:], i.size) - 1
    start = i[first]
    return list(
        zip(
            start.tolist(),
            (start - d[first]).tolist(),
            (i[last] - start + min_run).tolist(),
            strict=True,
        )
    )


def _choose_runs(
    runs: list[tuple[int, int, int]], n: int, m: int, min_run: int
) -> list[tuple[int, int, int]]:
    """The runs difflib's ``get_matching_blocks`` keeps of ``runs`` (maximal equal runs of
    sequences of ``n`` and ``m`` tokens): the longest in the box, ties to the smallest ``i``,
    then ``j``; then recursively left and right of it, each run clipped to the box."""
    chosen: list[tuple[int, int, int]] = []
    boxes = [(0, n, 0, m, runs)]
    while boxes:
        alo, ahi, blo, bhi, inside = boxes.pop()
        clipped = []
        best: tuple[int, int, int] | None = None
        for i, j, k in inside:
            d = i - j
            lo = max(i, alo, blo + d)
            hi = min(i + k, ahi, bhi + d)
            if hi - lo >= min_run:
                run = (lo, lo - d, hi - lo)
                clipped.append(run)
                if best is None or (-run[2], lo, run[1]) < (-best[2], best[0], best[1]):
                    best = run
        if best is None:
            continue
        chosen.append(best)
        bi, bj, bk = best
        left = [r for r in clipped if r[0] < bi and r[1] < bj]
        right = [r for r in clipped if r[0] + r[2] > bi + bk and r[1] + r[2] > bj + bk]
        if left:
            boxes.append((alo, bi, blo, bj, left))
        if right:
            boxes.append((bi + bk, ahi, bj + bk, bhi, right))
    chosen.sort()
    return chosen


def matching_blocks_python(
    a: np.ndarray, b: np.ndarray, min_run: int, max_grams: int
) -> list[tuple[int, int, int]] | None:
    """The matching blocks ``(i, j, size)`` of ``difflib.SequenceMatcher(None, a, b,
    autojunk=False)`` (int64 token ids) of at least ``min_run`` tokens, in order; None when
    ``_equal_runs`` finds too many to look at. A shorter match only splits a box in which no
    run of ``min_run`` is left, so leaving them out changes nothing."""
    if min_run < 1:
        raise ValueError("matching_blocks() needs min_run >= 1")
    runs = _equal_runs(a, b, min_run, max_grams)
    return None if runs is None else _choose_runs(runs, a.size, b.size, min_run)


def edge_chain_python(
    a: np.ndarray,
    b: np.ndarray,
    min_run: int,
    max_grams: int,
    gap: int,
    core_a_start: int,
    core_a_stop: int,
    core_b_start: int,
    core_b_stop: int,
) -> tuple[int, int, int, int] | None:
    """Of the matching blocks of ``a`` and ``b`` (``matching_blocks_python``), the chain
    (blocks no more than ``gap`` tokens apart on either side) holding most tokens of the
    block-level regions ``a[core_a_start:core_a_stop]`` and ``b[core_b_start:core_b_stop]``
    (the first such chain): its first and last token on each side, ``(first_a, last_a,
    first_b, last_b)``. None when nothing aligns, too much does, or no chain holds any."""
    runs = matching_blocks_python(a, b, min_run, max_grams)
    if not runs:
        return None
    # Tokens of the block-level region before each position, on each side (a run's score in
    # O(1)).
    inside_a = np.clip(np.arange(a.size + 1), core_a_start, core_a_stop) - core_a_start
    inside_b = np.clip(np.arange(b.size + 1), core_b_start, core_b_stop) - core_b_start
    ra = np.array(runs, dtype=np.int64).reshape(-1, 3)
    weight = (
        inside_a[ra[:, 0] + ra[:, 2]]
        - inside_a[ra[:, 0]]
        + inside_b[ra[:, 1] + ra[:, 2]]
        - inside_b[ra[:, 1]]
    ).tolist()
    best: tuple[int, int] | None = None  # first and last run of the best chain
    best_score = 0
    head, score = 0, 0
    for r, (i, j, _) in enumerate(runs):
        if r and (
            i - (runs[r - 1][0] + runs[r - 1][2]) > gap
            or j - (runs[r - 1][1] + runs[r - 1][2]) > gap
        ):
            if score > best_score:
                best, best_score = (head, r - 1), score
            head, score = r, 0
        score += weight[r]
    if score > best_score:
        best = (head, len(runs) - 1)
    if best is None:
        return None
    first, last = runs[best[0]], runs[best[1]]
    return first[0], last[0] + last[2] - 1, first[1], last[1] + last[2] - 1


# The native versions where the extension is built (tests/native/test_native.py holds them to
# these).
_matching_blocks: Callable[
    [np.ndarray, np.ndarray, int, int], list[tuple[int, int, int]] | None
] = speedups.matching_blocks if speedups else matching_blocks_python
edge_chain: Callable[..., tuple[int, int, int, int] | None] = (
    speedups.edge_chain if speedups else edge_chain_python
)


def matching_runs(a: Sequence[str], b: Sequence[str], min_run: int) -> list[tuple[int, int, int]]:
    """The matching blocks ``(i, j, size)`` of ``difflib.SequenceMatcher(None, a, b,
    autojunk=False)`` of at least ``min_run`` tokens, in order, without difflib's cost on
    common tokens: the maximal equal runs of at least ``min_run`` are found from their
    ``min_run``-grams, then chosen as difflib chooses (``matching_blocks_python``)."""
    if min_run < 1:
        raise ValueError("min_run must be at least 1")
    ia, ib = _token_ids(a, b)
    runs = _matching_blocks(ia, ib, min_run, EDGE_MAX_GRAMS)
    if runs is None:
        raise ValueError("too many equal runs to choose from")
    return runs
