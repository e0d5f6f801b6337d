"""Reworded copies and summaries of one source, found (``align_sentences``): the passages of
``sentences`` (seeds clustered, evidenced, validated), then the summaries of ``summaries``,
which build on them, then only the passages that bring words of their source. Its own module
so that ``sentences`` and ``summaries`` import one way: ``summaries`` builds on ``sentences``,
and this module on both.
"""

from __future__ import annotations

import numpy as np

from .fragments import Match
from .sentences import (
    SentenceRule,
    Side,
    Spans,
    _brings,
    _evidenced,
    _Passage,
    _single,
    _strong_ends,
    _validated,
    dense_ends,
    passages,
    seeds,
)
from .summaries import summaries


def align_sentences(query: Side, source: Side, rule: SentenceRule) -> list[Match]:
    """The reworded passages of ``query`` found in ``source``, as ``Match`` rows over tokens
    (``matched``: the query tokens of the passage whose feature the source passage has), and
    with ``rule.summaries`` the summaries of source stretches (``summaries``)."""
    found, cosine, contained = seeds(query, source, rule)
    if not found.size:
        return []
    # A seed strong enough to end a passage: alike as a whole, and most of the query
    # sentence's words in the source's (a long sentence of the author's own on the subject
    # shares a few words with a source sentence, not most of its own).
    strong = (cosine >= rule.min_edge_cosine) & (contained >= rule.min_edge_containment)
    strength = dict(zip(map(tuple, found.tolist()), strong.tolist(), strict=True))
    # A summary's sentence condenses several of the source's: few of its words are in any
    # one of them, and its ends are judged by cosine alone.
    alike = dict(zip(map(tuple, found.tolist()), (cosine >= rule.min_edge_cosine).tolist(),
                     strict=True))  # fmt: skip
    spans = Spans(query, source)
    # A seed that is a copy alone: alike as a whole and most of its words shared
    # (``_single``).
    alone = (cosine >= rule.single_min_cosine) & (contained >= rule.single_min_cosine)
    sure = dict(zip(map(tuple, found.tolist()), alone.tolist(), strict=True))
    kept: list[_Passage] = []
    clusters = [
        part
        for whole in passages(found, rule.max_gap)
        for part in _evidenced(
            whole, query, source, rule.min_gap_containment, rule.min_gap_containment_one
        )
    ]
    for cluster in clusters:
        cluster = _strong_ends(cluster, strength, rule)
        ends = dense_ends(cluster, rule.min_seeds, rule.min_density)
        if ends is None:
            ends = _single(cluster, spans, sure, rule)
        if ends is None:
            continue
        passage = _validated(query, source, spans, ends, rule, "reworded")
        if passage is not None:
            kept.append(passage)
    if rule.summaries:
        kept = summaries(query, source, spans, found, alike, kept, rule)
    return [p.match for p in _drawn(query, source, kept, rule.min_drawn_words, found)]


def _drawn(
    query: Side, source: Side, kept: list[_Passage], least: int, found: np.ndarray
) -> list[_Passage]:
    """``kept`` without the reworded passages that bring fewer than ``least`` distinct
    features of their source passage that the query's own text has nowhere
    (``SentenceRule.min_drawn_words``, ``brings_source_words``; ``found``: the seeds)."""
    return [
        p for p in kept
        if p.match.how != "reworded"
        or _brings(query, source, (p.qa, p.qb, p.sa, p.sb), least, found[:, 0])
    ]  # fmt: skip
