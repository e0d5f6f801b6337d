"""Which pairs of documents are aligned for passages, and where (``matching`` step 1): two
documents sharing a winnowed k-gram fingerprint held by at most ``max_repeats`` documents, with
``MIN_ANCHOR_RUN`` tokens in a row equal on both sides around it, are a candidate pair; each
such shared fingerprint is an anchor, a place of each document to align around. A fingerprint
held by more documents is boilerplate and pairs none."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..algorithms.winnowing import kgram_hashes_at
from .documents import DocumentPassages
from .options import SHORT_ANCHOR_RUN


@dataclass(frozen=True)
class Candidates:
    """Pairs of documents to align and where: anchor ``n`` is fingerprint place
    ``at_a[n]`` of document ``a[n]`` and ``at_b[n]`` of document ``b[n]`` (``a < b``), sorted by
    pair; ``common``: the fingerprints held by more than ``max_repeats`` documents (ascending)."""

    a: np.ndarray
    b: np.ndarray
    at_a: np.ndarray
    at_b: np.ndarray
    common: np.ndarray

    def pairs(self) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Each pair with its anchors."""
        if not self.a.size:
            return
        cuts = np.flatnonzero(
            np.r_[True, (self.a[1:] != self.a[:-1]) | (self.b[1:] != self.b[:-1]), True]
        )
        for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            yield int(self.a[lo]), int(self.b[lo]), self.at_a[lo:hi], self.at_b[lo:hi]


def candidates(
    docs: Sequence[DocumentPassages], max_repeats: int, short: bool = False
) -> Candidates:
    """Every place where two documents share a fingerprint held by at most ``max_repeats``
    documents (0: any number), and the fingerprints held by more; ``short``: their
    fingerprints for short copies (``DocumentPassages.short_shingles``)."""
    held = [(d.short_shingles, d.short_at) if short else (d.shingles, d.shingle_at) for d in docs]
    sizes = [p.size for p, _ in held]
    empty = np.empty(0, dtype=np.int64)
    if sum(sizes) == 0:
        return Candidates(empty, empty, empty, empty, np.empty(0, dtype=np.uint64))
    prints = np.concatenate([p for p, _ in held])
    places = np.concatenate([at for _, at in held])
    owner = np.repeat(np.arange(len(docs), dtype=np.int64), sizes)
    order = np.lexsort((owner, prints))
    prints, owner, places = prints[order], owner[order], places[order]
    cuts = np.flatnonzero(np.r_[True, prints[1:] != prints[:-1], True])
    group = np.diff(cuts)
    limit = max_repeats if max_repeats else len(docs)
    common = prints[cuts[:-1][group > limit]]
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for size in np.unique(group[(group > 1) & (group <= limit)]).tolist():
        starts = cuts[:-1][group == size]
        i, j = np.triu_indices(size, 1)
        rows = starts[:, None] + np.arange(size)
        parts.append((rows[:, i].ravel(), rows[:, j].ravel()))
    if not parts:
        return Candidates(empty, empty, empty, empty, common)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    order = np.lexsort((places[x], owner[y], owner[x]))  # owners ascending within a group
    x, y = x[order], y[order]
    return Candidates(owner[x], owner[y], places[x], places[y], common)


def kept(found: Candidates, keep: np.ndarray) -> Candidates:
    """``found`` with only the anchors ``keep`` (bool) keeps."""
    return Candidates(
        found.a[keep], found.b[keep], found.at_a[keep], found.at_b[keep], found.common
    )


# Most pairs of documents sharing a fingerprint share it by chance: a common phrase, its
# tokens equal for a few tokens around it. A pair is aligned when, around one of its shared
# fingerprints, this many tokens in a row are equal on both sides (a copy of a passage holds
# such runs between its edits; ``check`` aligns every candidate).
MIN_ANCHOR_RUN = 12


def anchored(
    found: Candidates, docs: Sequence[DocumentPassages], min_run: int = MIN_ANCHOR_RUN
) -> Candidates:
    """``found`` with only the anchors where ``min_run`` tokens in a row are equal on both
    sides, through the fingerprint (its own k tokens included), in one pass over all."""
    if not found.a.size:
        return found
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    tokens = np.concatenate([d.tokens.hashes for d in docs] + [np.zeros(1, np.uint64)])
    lengths = np.diff(offsets)
    run = np.zeros(found.a.size, dtype=np.int64)
    for sign in (1, -1):
        reach = np.zeros(found.a.size, dtype=np.int64)
        alive = np.ones(found.a.size, dtype=bool)
        for step in range(1, min_run):
            pa, pb = found.at_a + sign * step, found.at_b + sign * step
            inside = (pa >= 0) & (pa < lengths[found.a]) & (pb >= 0) & (pb < lengths[found.b])
            ta = tokens[np.where(inside, offsets[found.a] + pa, -1)]
            tb = tokens[np.where(inside, offsets[found.b] + pb, -1)]
            alive &= inside & (ta == tb)
            reach += alive
            if not alive.any():
                break
        run += reach
    keep = run + 1 >= min_run
    return Candidates(
        found.a[keep], found.b[keep], found.at_a[keep], found.at_b[keep], found.common
    )


def with_short(
    found: Candidates, short: Candidates, docs: Sequence[DocumentPassages]
) -> Candidates:
    """``found`` with the pairs of ``short`` (sharing fingerprints for short copies) it does
    not hold, anchored with ``SHORT_ANCHOR_RUN`` tokens in a row equal: a pair that shares a
    passage's fingerprints is aligned around those alone (its short copies are looked for
    there too), as before; the others share a short copy or nothing. Aligning the first
    around their fingerprints for short copies as well found no more copies on the collection
    set of issue 48 (either half) and cost the visible benchmark set's matching 13% more."""
    if not short.a.size:
        return found
    size = np.int64(max(int(found.b.max(initial=0)), int(short.b.max())) + 1)
    new = ~np.isin(short.a * size + short.b, found.a * size + found.b)
    more = Candidates(short.a[new], short.b[new], short.at_a[new], short.at_b[new], found.common)
    more = anchored(more, docs, SHORT_ANCHOR_RUN)
    a, b = np.r_[found.a, more.a], np.r_[found.b, more.b]
    at_a, at_b = np.r_[found.at_a, more.at_a], np.r_[found.at_b, more.at_b]
    order = np.lexsort((at_a, b, a))
    return Candidates(a[order], b[order], at_a[order], at_b[order], found.common)


class KgramPlaces:
    """Where each document holds again the k-grams it holds more than once
    (``DocumentPassages.repeat_hashes``), to move anchors to every place of their k-gram
    (``at_every_place``)."""

    def __init__(self, docs: Sequence[DocumentPassages], kgram: int) -> None:
        self.docs, self.kgram = docs, kgram

    def others(self, doc: int, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For places ``at`` of document ``doc``: which of them (indices into ``at``) its
        k-gram is at again, and where, each other place once."""
        d = self.docs[doc]
        empty = np.empty(0, dtype=np.int64)
        if not d.repeat_hashes.size:
            return empty, empty
        kgrams = kgram_hashes_at(d.tokens.hashes, at, self.kgram)
        lo = np.searchsorted(d.repeat_hashes, kgrams, "left")
        count = np.searchsorted(d.repeat_hashes, kgrams, "right") - lo
        index = np.repeat(np.arange(at.size), count)
        within = np.arange(index.size) - np.repeat(np.cumsum(count) - count, count)
        place = d.repeat_at[np.repeat(lo, count) + within]
        new = place != at[index]
        return index[new], place[new]


def at_every_place(found: Candidates, places: KgramPlaces) -> Candidates:
    """``found`` with each anchor also at the other places of its k-gram in each document
    (k-grams a document holds at most ``options.EVERY_PLACE`` times). A fingerprint is kept
    where it first starts (``DocumentPassages.shingle_at``), yet a page can hold its k-gram
    again (a sentence it repeats, a code block's line), and a copy may be of that place:
    aligned around the first alone, a copy of a later place is found as the repeated words
    alone (too short a passage), or not at all when the first place has too few equal tokens
    around it (``anchored``). The anchors of a pair then hold a place twice on one side."""
    if not found.a.size:
        return found
    a, b, at_a, at_b = [found.a], [found.b], [found.at_a], [found.at_b]
    for side in (0, 1):
        doc, at = (found.a, found.at_a) if side == 0 else (found.b, found.at_b)
        by_doc = np.argsort(doc, kind="stable")
        cuts = np.flatnonzero(np.r_[True, doc[by_doc][1:] != doc[by_doc][:-1], True])
        for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            rows = by_doc[lo:hi]
            index, place = places.others(int(doc[rows[0]]), at[rows])
            if not index.size:
                continue
            row = rows[index]
            a.append(found.a[row])
            b.append(found.b[row])
            at_a.append(place if side == 0 else found.at_a[row])
            at_b.append(place if side == 1 else found.at_b[row])
    if len(a) == 1:
        return found
    xa, xb, ya, yb = (np.concatenate(v).astype(np.int64) for v in (a, b, at_a, at_b))
    order = np.lexsort((ya, xb, xa))
    return Candidates(xa[order], xb[order], ya[order], yb[order], found.common)
