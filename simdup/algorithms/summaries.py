"""Summaries (Sanchez-Perez, Sidorov and Gelbukh's summary mode): a block of the query that
condenses a longer stretch of a source, found whole as one passage, "summarised".

A summary's sentences seed (``sentences.seeds``) with sentences of the passages they condense,
which lie further apart in the source than the ordinary gap of a reworded passage; the block is
one passage when it seeds in the source's order over a stretch of it at least
``summary_min_compression`` times as long (``summaries``). Built on ``sentences``' passages:
``sentences.align_sentences`` calls ``summaries`` after finding them.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from .sentences import SentenceRule, Side, Spans, _Passage, _strong_ends, _validated, passages


def summaries(
    query: Side, source: Side, spans: Spans, found: np.ndarray,
    strength: dict[tuple[int, int], bool], kept: list[_Passage], rule: SentenceRule,
) -> list[_Passage]:  # fmt: skip
    """``kept`` with the summaries of ``query`` found in ``source`` (Sanchez-Perez et al.'s
    summary mode, after the passages): a block of the query whose sentences (``min_density``
    of them, ``summary_min_seeds`` at least) seed, in the same order, with sentences of a
    source stretch ``summary_min_compression`` times as long, however far apart they lie there
    (``summary_max_gap``). A passage about as long on both sides is a copy, not part of a
    summary: its seeds are left out, and no summary overlaps it on either side (a copy with a
    stray seed beside it is no summary). A passage whose source side is itself that much
    longer is a piece of a summary that the ordinary gap found: a summary overlapping it takes
    its place."""
    copies = [p for p in kept if not _compressed(spans, p.qa, p.qb, p.sa, p.sb, rule)]
    free = np.ones(len(found), dtype=bool)
    for p in copies:
        free &= (found[:, 0] < p.qa) | (found[:, 0] > p.qb)
        free &= (found[:, 1] < p.sa) | (found[:, 1] > p.sb)
    summaries: list[_Passage] = []
    for chain in _ordered_chains(found[free], rule):
        chain = _strong_ends(chain, strength, rule)
        if not len(chain):
            continue
        qa, qb = int(chain[0, 0]), int(chain[-1, 0])
        sa, sb = int(chain[0, 1]), int(chain[-1, 1])
        if len(chain) < max(rule.summary_min_seeds, rule.min_density * (qb - qa + 1)):
            continue
        if any(p.qa <= qb and p.qb >= qa or p.sa <= sb and p.sb >= sa for p in copies):
            continue
        if not _compressed(spans, qa, qb, sa, sb, rule):
            continue
        passage = _validated(query, source, spans, (qa, qb, sa, sb), rule, "summarised")
        if passage is not None:
            summaries.append(passage)
    pieces = [
        p for p in kept
        if not any(s.qa <= p.qb and s.qb >= p.qa for s in summaries)
    ]  # fmt: skip
    return sorted(pieces + summaries, key=lambda p: (p.qa, p.sa))


def _compressed(spans: Spans, qa: int, qb: int, sa: int, sb: int, rule: SentenceRule) -> bool:
    """Whether source sentences ``sa..sb`` weigh ``summary_min_compression`` times query
    sentences ``qa..qb``."""
    first, last, source_first, source_last = spans.tokens(qa, qb, sa, sb)
    words = float(spans.query.weights[first : last + 1].sum())
    source_words = float(spans.source.weights[source_first : source_last + 1].sum())
    return source_words >= rule.summary_min_compression * words


def _ordered_chains(found: np.ndarray, rule: SentenceRule) -> list[np.ndarray]:
    """Seeds clustered with ``max_gap`` on the query side and ``summary_max_gap`` on the
    source side; of each cluster the longest chain of seeds in the same order on both sides
    (one seed a query sentence), cut where its seeds lie further apart than those gaps."""
    chains = []
    for cluster in passages(found, rule.max_gap, rule.summary_max_gap):
        # Query order, and a query sentence's seeds from the last source sentence back: an
        # increasing chain of source sentences then holds one seed per query sentence.
        ordered = cluster[np.lexsort((-cluster[:, 1], cluster[:, 0]))]
        chain = ordered[_increasing(ordered[:, 1])]
        steps = np.diff(chain, axis=0)
        cuts = (steps[:, 0] > rule.max_gap + 1) | (steps[:, 1] > rule.summary_max_gap + 1)
        parts = np.split(chain, np.flatnonzero(cuts) + 1)
        chains += [_nearest_ends(part, ordered) for part in parts]
    return chains


def _nearest_ends(chain: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """``chain`` ending, on both sides, on the seeds of its first and last query sentences
    nearest the rest of it: a sentence the source says twice seeds with both, and the one
    further away would stretch the summary over text it does not condense."""
    if len(chain) < 2:
        return chain
    chain = chain.copy()
    first = seeds[(seeds[:, 0] == chain[0, 0]) & (seeds[:, 1] < chain[1, 1])]
    last = seeds[(seeds[:, 0] == chain[-1, 0]) & (seeds[:, 1] > chain[-2, 1])]
    chain[0, 1], chain[-1, 1] = first[:, 1].max(), last[:, 1].min()
    return chain


def _increasing(values: np.ndarray) -> np.ndarray:
    """The positions of a longest strictly increasing subsequence of ``values``."""
    tails: list[int] = []  # per length, the position of the smallest last value
    before = np.full(values.size, -1, dtype=np.int64)
    ends: list[int] = []
    for k, v in enumerate(values.tolist()):
        at = bisect_left(ends, v)
        if at:
            before[k] = tails[at - 1]
        if at == len(ends):
            ends.append(v)
            tails.append(k)
        else:
            ends[at], tails[at] = v, k
    out = []
    k = tails[-1] if tails else -1
    while k >= 0:
        out.append(k)
        k = int(before[k])
    return np.array(out[::-1], dtype=np.int64)
