"""One source's copies as one set: exact fragments and reworded passages merged (a passage
takes in the exact runs inside it), and pieces of one copy joined (``joined``).

Arrays in, ``fragments.Match`` out, as ``fragments.align`` and ``reworded.align_sentences``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fragments import Match, longest_first
from .sentences import Side

# A passage whose exact fragments cover this share of it is a verbatim copy (with edits
# bridged as exact fragments bridge them), not a reworded one.
VERBATIM_SHARE = 0.9


@dataclass(frozen=True)
class JoinRule:
    """When two fragments of one source are pieces of one copy (``joined``), when a
    verbatim fragment is a stock phrase (``without_lone``), and where a mostly verbatim
    reworded passage ends (``merged``). Chosen on PAN 2013's training
    corpus (03 random and 04 translation obfuscation; 02 and 01 watched for precision), never
    its test corpus."""

    # Pieces are joined across at most ``max_gap_share`` of the shorter piece's words (or
    # ``max_gap_words``) on each side, when the gaps are alike on both sides (the query's at
    # most ``balance`` times the source's plus ``balance_words``: a reworded stretch between
    # two seeded ones), or else ``min_containment`` of each gap's features are in the other
    # side's joined span. The author's own sentence between two copies of adjacent source text
    # has no counterpart in the source, and few of its words there. Train: granularity
    # 1.14 → 1.02 (03), 1.08 → 1.00 (04); without the balance, 1.05 (03).
    max_gap_share: float = 2.0
    max_gap_words: float = 40.0
    min_containment: float = 0.25
    balance: float = 2.0
    balance_words: float = 5.0
    # A verbatim fragment shorter than ``lone_min_words`` words with no other match of its
    # source within ``lone_reach_words`` words is a stock phrase two texts share (an address,
    # a byline, a menu line, "This article has been cited by other articles"), not a copy.
    # Train: 02 precision +0.02 (at 12 words, +0.00); PAN has no case that short.
    lone_min_words: float = 16.0
    lone_reach_words: float = 30.0
    # A reworded passage whose verbatim runs span ``end_min_verbatim_share`` of it or more (a
    # pasted paragraph with a reworded sentence at an end) keeps each stretch beyond its
    # outermost runs, at each end of each side, only when ``min_end_containment`` of the
    # stretch's features are in the other side's stretches beyond the runs, or it weighs less
    # than ``end_min_words`` (``merged``). The bag of a whole passage holds the subject's words:
    # the host's own sentence beside a pasted paragraph shares many of them with it, and few
    # with the source's text beside the runs, which a reworded sentence there copies. With
    # fewer runs their places say too little (random obfuscation leaves short runs here and
    # there, not always in order). Train: 02 precision 0.944 -> 0.957 (recall unchanged),
    # 03 plagdet -0.003, 04 +0.001, 05 and 01 unchanged; swept on simdup-check/8: containment
    # 0.15 / 0.35: 02 precision 0.957 / 0.960, 03 0.860 / 0.857 (0.25: 0.959, 0.860); share
    # 0.3 / 0.7: 02 precision 0.959 / 0.955, 03 0.854 / 0.862.
    min_end_containment: float = 0.25
    end_min_words: float = 6.0
    end_min_verbatim_share: float = 0.5

    def describe(self) -> dict[str, float]:
        return {
            "join_max_gap_share": self.max_gap_share,
            "join_max_gap_words": self.max_gap_words,
            "join_min_containment": self.min_containment,
            "join_balance": self.balance,
            "join_balance_words": self.balance_words,
            "lone_verbatim_min_words": self.lone_min_words,
            "lone_verbatim_reach_words": self.lone_reach_words,
            "end_min_containment": self.min_end_containment,
            "end_min_words": self.end_min_words,
            "end_min_verbatim_share": self.end_min_verbatim_share,
        }


def merged(
    exact: list[Match], reworded: list[Match], sides: tuple[Side, Side] | None = None,
    rule: JoinRule | None = None,
) -> list[Match]:  # fmt: skip
    """The exact fragments and reworded passages of one source as one set of matches: a
    passage takes in the exact fragments that overlap it on both sides (a reworded passage
    keeps exact runs here and there, and it is one copied passage, not several), and what
    still overlaps is resolved to the longest (``fragments.longest_first``). A passage that
    its exact fragments cover (``VERBATIM_SHARE``) is verbatim, unless it is a summary. With
    ``sides`` (query, source) and ``rule``, a reworded passage's ends beyond its verbatim
    runs are kept only where evidenced (``_evidenced_ends``)."""
    if not reworded:
        return exact
    rest: list[Match] = []
    grown = [[m.first, m.last, m.source_first, m.source_last, m.matched, 0, 0] for m in reworded]
    inner: list[list[Match]] = [[] for _ in reworded]
    for m in exact:
        for p, absorbed in zip(grown, inner, strict=True):
            inside = m.first <= p[1] and m.last >= p[0]
            if inside and m.source_first <= p[3] and m.source_last >= p[2]:
                p[0], p[1] = min(p[0], m.first), max(p[1], m.last)
                p[2], p[3] = min(p[2], m.source_first), max(p[3], m.source_last)
                p[5] += m.last - m.first + 1  # tokens the exact fragments span
                p[6] += m.matched
                absorbed.append(m)
                break
        else:
            rest.append(m)
    passages = []
    for (a, b, c, d, n, spanned, matched), m, absorbed in zip(grown, reworded, inner, strict=True):
        # A summary stays one however much of it is verbatim: its source side is the stretch
        # it condenses, which no verbatim copy is as short as.
        if m.how != "summarised" and spanned >= VERBATIM_SHARE * (b - a + 1):
            # A verbatim copy ends where its exact runs end, on both sides: the sentences
            # its seeds are in may run on past what was copied (a page of lines without
            # full stops is one sentence).
            a, b = min(x.first for x in absorbed), max(x.last for x in absorbed)
            c, d = min(x.source_first for x in absorbed), max(x.source_last for x in absorbed)
            passages.append(Match(a, b, c, d, matched))
        else:  # its matched tokens count at least its span's: it is the copy as a whole
            if (
                m.how == "reworded" and sides is not None and rule is not None
                and spanned >= rule.end_min_verbatim_share * (b - a + 1)
            ):  # fmt: skip
                a, b, c, d = _evidenced_ends((a, b, c, d), absorbed, *sides, rule)
            passages.append(Match(a, b, c, d, max(n, b - a + 1), m.how))
    return longest_first(rest + passages)


def _apart(a_first: int, a_last: int, b_first: int, b_last: int) -> tuple[int, int]:
    """The tokens between two ranges, in either order (empty, ``last < first``, when they
    touch or overlap)."""
    if b_first > a_last:
        return a_last + 1, b_first - 1
    if a_first > b_last:
        return b_last + 1, a_first - 1
    return 0, -1


def _features(side: Side, first: int, last: int) -> np.ndarray:
    inside = side.feature[first : last + 1]
    return np.unique(inside[inside != 0])


def _evidenced(
    side: Side, gap: tuple[int, int], other: Side, span: tuple[int, int], min_containment: float
) -> bool:
    """Whether ``min_containment`` of the features of ``gap`` (tokens of ``side``) are in
    the other side's ``span``: a stretch too changed to seed still keeps some of its words."""
    words = _features(side, *gap)
    if not words.size:
        return True
    found = int(np.isin(words, _features(other, *span), assume_unique=True).sum())
    return found >= min_containment * words.size


def _evidenced_ends(
    ends: tuple[int, int, int, int], runs: list[Match], query: Side, source: Side,
    rule: JoinRule,
) -> tuple[int, int, int, int]:  # fmt: skip
    """A reworded passage's token ``ends`` (query first, last, source first, last) with each
    stretch beyond its verbatim ``runs`` (before the first, after the last, on each side)
    cut off unless ``rule.min_end_containment`` of its features are in the other side's
    stretches beyond the runs (either end: a rewording may move a sentence), or it weighs
    less than ``rule.end_min_words``. The bag of a whole passage holds the subject's words:
    a host's sentence beside a pasted paragraph shares many of them with it, but few with
    the source's text beyond the copied runs, which a reworded sentence there copies."""
    a, b, c, d = ends
    qa, qb = min(r.first for r in runs), max(r.last for r in runs)
    sa, sb = min(r.source_first for r in runs), max(r.source_last for r in runs)
    q_ends = ((a, qa - 1), (qb + 1, b))
    s_ends = ((c, sa - 1), (sb + 1, d))
    q_beyond = np.union1d(_features(query, *q_ends[0]), _features(query, *q_ends[1]))
    s_beyond = np.union1d(_features(source, *s_ends[0]), _features(source, *s_ends[1]))

    def kept(side: Side, stretch: tuple[int, int], other: np.ndarray) -> bool:
        if float(side.weights[stretch[0] : stretch[1] + 1].sum()) < rule.end_min_words:
            return True
        words = _features(side, *stretch)
        found = int(np.isin(words, other, assume_unique=True).sum())
        return found >= rule.min_end_containment * words.size

    if not kept(query, q_ends[0], s_beyond):
        a = qa
    if not kept(query, q_ends[1], s_beyond):
        b = qb
    if not kept(source, s_ends[0], q_beyond):
        c = sa
    if not kept(source, s_ends[1], q_beyond):
        d = sb
    return a, b, c, d


class _Words:
    """The words of a side's tokens ``first..last`` (0 when ``last < first``), in O(1)."""

    def __init__(self, weights: np.ndarray) -> None:
        self.cumulative = np.r_[0.0, np.cumsum(weights)]

    def __call__(self, first: int, last: int) -> float:
        return float(self.cumulative[last + 1] - self.cumulative[first]) if last >= first else 0.0


def joined(matches: list[Match], query: Side, source: Side, rule: JoinRule) -> list[Match]:
    """``matches`` (of one source, in query order after ``merged``) with neighbours joined
    when they are pieces of one copy: the words between them weigh, on each side, at most
    ``rule.max_gap_share`` of the shorter piece's (or ``max_gap_words``), and either
    the gaps are alike on both sides (the query's at most ``balance`` times the source's
    plus ``balance_words``: a reworded stretch that gave no seed has its counterpart in
    the source) or ``min_containment`` of the query gap's features are in the source's
    joined span and the source gap's in the query's. The author's own sentence between two
    copies of adjacent source text has no counterpart, and keeps few of its words there: it
    stays out. The pieces may lie in another order in the source (a rewording that moves
    sentences)."""
    if len(matches) < 2:
        return matches
    q_words, s_words = _Words(query.weights), _Words(source.weights)
    ordered = sorted(matches, key=lambda m: (m.first, m.source_first))
    out = [ordered[0]]
    for m in ordered[1:]:
        p = out[-1]
        q_gap = (p.last + 1, m.first - 1)
        s_gap = _apart(p.source_first, p.source_last, m.source_first, m.source_last)
        q_gap_words, s_gap_words = q_words(*q_gap), s_words(*s_gap)
        q_short = min(q_words(p.first, p.last), q_words(m.first, m.last))
        s_short = min(
            s_words(p.source_first, p.source_last), s_words(m.source_first, m.source_last)
        )
        near = q_gap_words <= max(rule.max_gap_words, rule.max_gap_share * q_short)
        near = near and s_gap_words <= max(
            rule.max_gap_words, rule.max_gap_share * s_short
        )
        if not near:
            out.append(m)
            continue
        q_span = (p.first, max(p.last, m.last))
        s_span = (min(p.source_first, m.source_first), max(p.source_last, m.source_last))
        balanced = q_gap_words <= rule.balance * s_gap_words + rule.balance_words
        if balanced or (
            _evidenced(query, q_gap, source, s_span, rule.min_containment)
            and _evidenced(source, s_gap, query, q_span, rule.min_containment)
        ):
            # Two verbatim pieces with words between them that are no run of the source's:
            # the stretch between was reworded (``how`` per part is worked out from the runs).
            how = p.how if p.how != "verbatim" else m.how
            if how == "verbatim" and q_gap_words > 0:
                how = "reworded"
            out[-1] = Match(*q_span, *s_span, p.matched + m.matched, how)
        else:
            out.append(m)
    return out


def without_lone(matches: list[Match], weights: np.ndarray, rule: JoinRule) -> list[Match]:
    """``matches`` (of one source) without the verbatim ones shorter than
    ``rule.lone_min_words`` words that have no other match within ``rule.lone_reach_words``
    words on the checked side (``weights``: its tokens'): a stock phrase two texts share."""
    words = _Words(weights)
    kept = []
    for m in matches:
        if m.how != "verbatim" or words(m.first, m.last) >= rule.lone_min_words:
            kept.append(m)
            continue
        if any(
            o is not m and words(*_apart(m.first, m.last, o.first, o.last)) <= rule.lone_reach_words
            for o in matches
        ):
            kept.append(m)
    return kept
