"""Where a passage begins and ends: a copy is found on exact runs of a k-gram or more, so its
first or last few tokens past an edit near its edge, and its lines without words (a code
fence, a closing brace), are found here, after it.

- ``extended``: a copy's ends moved out over one more edit, as its runs are chained inside it
  (at most ``gap`` differing tokens on each side), to the equal tokens after it, too few to
  seed ("``name: 'my-module'``" between two edited words) or left out of the copy's
  stretch;
- ``widened``: its regions with the lines next to them that have characters but no word and
  are the same on both sides.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..algorithms.fragments import Match
from ..records import PassageSpan
from .documents import DocumentPassages

# A run beyond a copy's end is taken into it when it weighs at least this many words (a CJK
# character 8/13): one equal word after a few differing ones is as often chance (two texts'
# "the", a newsletter's standing label) as a copy.
MIN_EDGE_RUN = 2.0


def _reach(a: list[int], weights: np.ndarray, b: list[int], gap: int) -> list[tuple[int, int, int]]:
    """How far a copy may go on into ``a`` (its tokens' ``weights`` in words) and ``b``
    (tokens from its end, in reading order): each run of equal tokens weighing at least
    ``MIN_EDGE_RUN`` words reached with at most ``gap`` differing tokens on each side in all,
    as (tokens of ``a``, of ``b``, equal tokens) up to its end, nearest first."""
    from rapidfuzz.distance import Indel

    reached: list[tuple[int, int, int]] = []
    taken = differ_a = differ_b = 0
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            size = op.src_end - op.src_start
            if float(weights[op.src_start : op.src_end].sum()) >= MIN_EDGE_RUN - 1e-9:
                taken += size
                reached.append((op.src_end, op.dest_end, taken))
                continue
            differ_a += size
            differ_b += size
        else:
            differ_a += op.src_end - op.src_start
            differ_b += op.dest_end - op.dest_start
        if differ_a > gap or differ_b > gap:
            break
    return reached


def _fills(doc: DocumentPassages, edge: int, was: int, first: int, last: int, share: float) -> bool:
    """Whether a copy's new end ``edge`` (its end was ``was``) is on the same line, or on a
    line of ``doc`` of whose tokens the copy, tokens ``first..last``, holds at least
    ``share``."""
    lo, hi = doc.tokens_of_line(edge)
    if lo <= was < hi:
        return True
    return min(hi - 1, last) - max(lo, first) + 1 >= share * (hi - lo)


def extended(
    m: Match, doc_a: DocumentPassages, doc_b: DocumentPassages, kgram: int, gap: int, share: float
) -> Match:
    """``m`` (tokens of ``doc_a`` and of ``doc_b``) with its ends moved out to the furthest
    equal run within one edit (``_reach``) and two k-grams and gaps beyond them that stays on
    the line of the end, or reaches a line the copy then fills (``share`` of its tokens, on
    each side, as ``options.LINE_SHARE`` asks of a whole copy's lines): a copy does not end on
    a line of which it holds a word or two."""
    window = 2 * (kgram + gap)
    a, b, weights = doc_a.tokens.hashes, doc_b.tokens.hashes, doc_a.tokens.weights
    after = slice(m.last + 1, m.last + 1 + window)
    after_b = b[m.source_last + 1 : m.source_last + 1 + window].tolist()
    on_a = on_b = more = 0
    for x, y, equal in reversed(_reach(a[after].tolist(), weights[after], after_b, gap)):
        last_a, last_b = m.last + x, m.source_last + y
        if _fills(doc_a, last_a, m.last, m.first, last_a, share) and _fills(
            doc_b, last_b, m.source_last, m.source_first, last_b, share
        ):
            on_a, on_b, more = x, y, equal
            break
    before = slice(max(0, m.first - window), m.first)
    before_b = b[max(0, m.source_first - window) : m.source_first].tolist()[::-1]
    back_a = back_b = earlier = 0
    for x, y, equal in reversed(
        _reach(a[before].tolist()[::-1], weights[before][::-1], before_b, gap)
    ):
        first_a, first_b = m.first - x, m.source_first - y
        if _fills(doc_a, first_a, m.first, first_a, m.last, share) and _fills(
            doc_b, first_b, m.source_first, first_b, m.source_last, share
        ):
            back_a, back_b, earlier = x, y, equal
            break
    if not (more or earlier):
        return m
    return replace(
        m,
        first=m.first - back_a,
        last=m.last + on_a,
        source_first=m.source_first - back_b,
        source_last=m.source_last + on_b,
        matched=m.matched + more + earlier,
    )


def widened(
    doc_a: DocumentPassages, a: PassageSpan, doc_b: DocumentPassages, b: PassageSpan
) -> tuple[PassageSpan, PassageSpan]:
    """Two regions of a copy with the lines next to them that have characters but no word
    (``DocumentPassages.bare``: a code fence, a closing brace, a comment's ``*/``) and are the
    same on both sides: a copy is found on words, so a code block's last lines (``}`` and the
    closing fence) were left out of it, though they were copied with it."""
    while a.start_line > 1 and b.start_line > 1:
        x, y = doc_a.bare_line(a.start_line - 1), doc_b.bare_line(b.start_line - 1)
        if x is None or y is None or x[0] != y[0]:
            break
        a = replace(a, start_line=a.start_line - 1, start_char=x[1])
        b = replace(b, start_line=b.start_line - 1, start_char=y[1])
    while a.end_line < doc_a.line_count and b.end_line < doc_b.line_count:
        x, y = doc_a.bare_line(a.end_line + 1), doc_b.bare_line(b.end_line + 1)
        if x is None or y is None or x[0] != y[0]:
            break
        a = replace(a, end_line=a.end_line + 1, end_char=x[2])
        b = replace(b, end_line=b.end_line + 1, end_char=y[2])
    return a, b
