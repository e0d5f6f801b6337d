"""Regions of matched windows, and repeated passages.

Windows matched across more than ``max_repeats`` documents are merged into block ranges per
document and reported once, as a repeated passage with its occurrences (``repeated_passages``).
The other matches of two documents are merged where they overlap or touch on both sides into
maximal regions (``merged_regions``), and each region's ends are trimmed block by block while
an end block shares less than ``min_containment`` of its words with the other side: windows
reach past a copy's end by design (``finish_region``). The reported pairs are sorted, once
each (``sorted_once``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..records import PassagePair, PassageSpan, RepeatedPassage
from .documents import DocumentPassages
from .options import PassageOptions
from .windows import Windows


def sorted_once(pairs: list[PassagePair]) -> list[PassagePair]:
    """``pairs`` sorted by their paths and first lines, each once (in place, then copied)."""
    pairs.sort(key=_pair_order)
    return [p for n, p in enumerate(pairs) if n == 0 or p != pairs[n - 1]]


def _pair_order(p: PassagePair) -> tuple[Any, ...]:
    return (p.a.path, p.b.path, p.a.start_line, p.b.start_line)


def repeated_passages(
    windows: Windows,
    window_component: np.ndarray,
    matched_windows: np.ndarray,
    repeated_component: np.ndarray,
) -> tuple[tuple[RepeatedPassage, ...], dict[int, set[int]]]:
    """The repeated passages (their windows merged into block ranges per document), and per
    document the blocks that belong to one."""
    boiler: dict[int, set[int]] = defaultdict(set)
    chosen = matched_windows[repeated_component[window_component[matched_windows]]]
    if chosen.size == 0:
        return (), boiler
    order = np.lexsort((windows.first[chosen], windows.doc[chosen], window_component[chosen]))
    chosen = chosen[order]
    comp, doc = window_component[chosen], windows.doc[chosen]
    first, last = windows.first[chosen], windows.last[chosen]
    # Windows of one component in one document merge where they overlap or touch: a window
    # starts a new range when its first block lies beyond every block of the range so far.
    new_group = np.ones(chosen.size, dtype=bool)
    new_group[1:] = (comp[1:] != comp[:-1]) | (doc[1:] != doc[:-1])
    rank = np.cumsum(new_group) - 1
    lifted = rank * (int(last.max()) + 2) + last  # running maxima that never cross a group
    reach = np.maximum.accumulate(lifted) - rank * (int(last.max()) + 2)
    new_range = new_group.copy()
    new_range[1:] |= first[1:] > reach[:-1] + 1
    cuts = np.flatnonzero(new_range)
    r_comp, r_doc, r_first = comp[cuts], doc[cuts], first[cuts]
    r_last = np.maximum.reduceat(last, cuts)
    spans = _spans(windows.docs, r_doc, r_first, r_last)
    for d, f, la in zip(r_doc.tolist(), r_first.tolist(), r_last.tolist(), strict=True):
        boiler[d].update(range(f, la + 1))
    out = []
    starts = np.flatnonzero(np.r_[True, r_comp[1:] != r_comp[:-1]])
    # Documents per component: ranges are in (component, document) order.
    counts = np.add.reduceat(new_group[cuts], starts).tolist()
    bounds = [*starts.tolist(), cuts.size]
    for lo, hi, count in zip(bounds, bounds[1:], counts, strict=False):
        occurrences = sorted(spans[lo:hi], key=lambda s: (s.path, s.start_line))
        out.append(RepeatedPassage(count, tuple(occurrences)))
    out.sort(key=lambda r: (-r.count, r.occurrences[0].path, r.occurrences[0].start_line))
    return tuple(out), boiler


def _spans(
    docs: Sequence[DocumentPassages], doc: np.ndarray, first: np.ndarray, last: np.ndarray
) -> list[PassageSpan]:
    """``docs[doc[k]].span(first[k], last[k])`` for every ``k``, gathered document by
    document rather than one block range at a time."""
    out: list[PassageSpan | None] = [None] * doc.size
    order = np.argsort(doc, kind="stable")
    cuts = [*np.flatnonzero(np.r_[True, doc[order][1:] != doc[order][:-1]]).tolist(), doc.size]
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        at = order[lo:hi]
        d = docs[int(doc[at[0]])]
        f, la = first[at], last[at]
        cumulative = np.concatenate(([0], np.cumsum(d.words)))
        rows = zip(
            at.tolist(),
            d.lines[f, 0].tolist(),
            d.lines[la, 1].tolist(),
            d.chars[f, 0].tolist(),
            d.chars[la, 1].tolist(),
            (cumulative[la + 1] - cumulative[f]).tolist(),
            f.tolist(),
            strict=True,
        )
        previews = d.previews
        for k, start_line, end_line, start_char, end_char, words, fk in rows:
            preview = previews[fk] if previews else ""
            out[k] = PassageSpan(d.path, start_line, end_line, start_char, end_char, words, preview)
    return [s for s in out if s is not None]


# A region: documents ``da`` and ``db`` (indexes), blocks ``fa..la`` of one and ``fb..lb`` of
# the other, before trimming.
Region = tuple[int, int, int, int, int, int]


def merged_regions(windows: Windows, wx: np.ndarray, wy: np.ndarray) -> list[Region]:
    """Matched window pairs merged into maximal regions per pair of documents: sweeping along
    side A, windows that overlap or touch join one run; within a run, sweeping along side B
    the same way. Each region is then trimmed and reported (``finish_region``)."""
    if wx.size == 0:
        return []
    dx, dy = windows.doc[wx], windows.doc[wy]
    fx, lx, fy, ly = windows.first[wx], windows.last[wx], windows.first[wy], windows.last[wy]
    # Side A is the document (and, within one, the place) that comes first.
    swap = (dx > dy) | ((dx == dy) & (fx > fy))
    dx, dy = np.where(swap, dy, dx), np.where(swap, dx, dy)
    fx, fy = np.where(swap, fy, fx), np.where(swap, fx, fy)
    lx, ly = np.where(swap, ly, lx), np.where(swap, lx, ly)
    order = np.lexsort((fy, fx, dy, dx))
    dx, dy, fx, lx, fy, ly = dx[order], dy[order], fx[order], lx[order], fy[order], ly[order]
    # Runs along A: a window starts a new run when its first block lies beyond every block
    # of the run so far (+1: touching windows join). Pairs of documents are ranked (not
    # keyed by da * n + db), so that rank * 2**32 stays far inside 64 bits at any size.
    big = np.int64(1 << 32)
    new_pair = np.ones(dx.size, dtype=bool)
    new_pair[1:] = (dx[1:] != dx[:-1]) | (dy[1:] != dy[:-1])
    pair_rank = np.cumsum(new_pair)
    reach = np.maximum.accumulate(pair_rank * big + lx)
    new_a = new_pair.copy()
    new_a[1:] |= pair_rank[1:] * big + fx[1:] > reach[:-1] + 1
    run = np.cumsum(new_a)
    order = np.lexsort((fy, run))
    run, dx, dy = run[order], dx[order], dy[order]
    fx, lx, fy, ly = fx[order], lx[order], fy[order], ly[order]
    reach = np.maximum.accumulate(run * big + ly)
    new_b = np.ones(run.size, dtype=bool)
    new_b[1:] = (run[1:] != run[:-1]) | (run[1:] * big + fy[1:] > reach[:-1] + 1)
    cuts = np.flatnonzero(new_b)
    regions = zip(
        dx[cuts].tolist(),
        dy[cuts].tolist(),
        np.minimum.reduceat(fx, cuts).tolist(),
        np.maximum.reduceat(lx, cuts).tolist(),
        fy[cuts].tolist(),
        np.maximum.reduceat(ly, cuts).tolist(),
        strict=True,
    )
    # A region of one document that reaches into its own copy is left out.
    return [r for r in regions if r[0] != r[1] or r[3] < r[4] or r[5] < r[2]]


def finish_all(
    docs: Sequence[DocumentPassages],
    regions: list[Region],
    options: PassageOptions,
    boiler: dict[int, set[int]],
) -> list[PassagePair]:
    """The reported pair of each region that trimming leaves (``finish_region``), in order.
    Two runs along A can end up as the same region after trimming: ``sorted_once`` reports
    it once."""
    found = (finish_region(docs, r, options, boiler) for r in regions)
    return [p for p in found if p is not None]


def finish_region(
    docs: Sequence[DocumentPassages],
    region: Region,
    options: PassageOptions,
    boiler: dict[int, set[int]],
) -> PassagePair | None:
    da, db, fa, la, fb, lb = region
    return _finish(docs[da], docs[db], (fa, la, fb, lb), options, boiler, da, db)


class _Side:
    """One side of a region being trimmed: which block identities and terms it holds (Python
    sets: a side holds a few hundred terms, and is asked about one block at a time)."""

    def __init__(self, doc: DocumentPassages, first: int, last: int) -> None:
        self.doc = doc
        self.identities = set(doc.identity[first : last + 1].tolist())
        self._terms: set[int] | None = None
        self.first, self.last = first, last

    def terms(self) -> set[int]:
        if self._terms is None:
            self._terms = _range_terms(self.doc, self.first, self.last)
        return self._terms

    def holds(self, other: DocumentPassages, k: int, need: float) -> bool:
        """Whether block ``k`` of ``other`` shares enough of its words with this side: the
        same text (fast), or ``need`` of its distinct terms."""
        if int(other.identity[k]) in self.identities:
            return True
        block = other.terms[other.offsets[k] : other.offsets[k + 1]].tolist()
        shared = len(self.terms().intersection(block)) / len(block) if block else 0.0
        return shared >= need


def _range_terms(doc: DocumentPassages, first: int, last: int) -> set[int]:
    """The distinct terms of blocks ``first..last``."""
    return set(doc.terms[doc.offsets[first] : doc.offsets[last + 1]].tolist())


def _finish(
    a: DocumentPassages,
    b: DocumentPassages,
    region: tuple[int, int, int, int],
    options: PassageOptions,
    boiler: dict[int, set[int]],
    da: int,
    db: int,
) -> PassagePair | None:
    """The reported pair of a region, its ends trimmed (see the module docstring), or None
    when too little is left."""
    fa, la, fb, lb = region
    need = options.min_containment
    boiler_a, boiler_b = boiler.get(da, set()), boiler.get(db, set())
    side_a, side_b = _Side(a, fa, la), _Side(b, fb, lb)
    for _ in range(256):
        before = (fa, la, fb, lb)
        if (side_a.first, side_a.last) != (fa, la):
            side_a = _Side(a, fa, la)
        if (side_b.first, side_b.last) != (fb, lb):
            side_b = _Side(b, fb, lb)
        if fa in boiler_a or not side_b.holds(a, fa, need):
            fa += 1
        elif la in boiler_a or not side_b.holds(a, la, need):
            la -= 1
        if fb in boiler_b or not side_a.holds(b, fb, need):
            fb += 1
        elif lb in boiler_b or not side_a.holds(b, lb, need):
            lb -= 1
        if fa > la or fb > lb:
            return None
        if (fa, la, fb, lb) == before:
            break
    words_a = int(a.words[fa : la + 1].sum())
    words_b = int(b.words[fb : lb + 1].sum())
    if min(words_a, words_b) < options.min_words // 2:
        return None
    if np.array_equal(a.identity[fa : la + 1], b.identity[fb : lb + 1]):
        similarity = 1.0
    else:
        ta, tb = _range_terms(a, fa, la), _range_terms(b, fb, lb)
        both = len(ta & tb)
        union = len(ta) + len(tb) - both
        similarity = round(both / union, 4) if union else 1.0
    return PassagePair(a.span(fa, la), b.span(fb, lb), similarity)
