"""Reworded copies: sentences compared as bags of words, then extended into passages.

Exact runs of words (``fragments``) miss a copy whose words were reordered, swapped for others
or dropped here and there: such a copy keeps most of its words but few runs of four. The
method of Sanchez-Perez, Sidorov and Gelbukh (PAN 2014's best text alignment) finds it:

1. **Sentences as bags**: each side is cut into sentences; a sentence is the bag of its
   features, weighted by tf-isf (inverse sentence frequency over both sides). A feature is a
   word that is no stopword, by its stem, or for CJK text a pair of neighbouring characters
   (a Chinese word is mostly two characters, and a character alone says little).
2. **Seeds**: sentence pairs whose cosine and Dice coefficient both pass a threshold, over
   the words as written (``Side.forms``): a changed form extends a passage, never starts one.
3. **Extension**: seeds whose sentences lie at most ``max_gap`` sentences apart on both sides
   are one passage (clustered on one side, then the other, until nothing splits); a passage
   is kept when the bags of its two sides are similar as wholes, it is long enough, and it
   brings words of its source that the query has nowhere else (``min_drawn_words``).
4. **Summaries** (their summary mode): a summary's sentences seed with sentences of the
   passages they condense, which lie further apart in the source than ``max_gap``. A block
   of the query whose sentences seed in the source's order over a stretch of it at least
   ``summary_min_compression`` times as long is one passage, "summarised" (``summaries``).

``reworded.align_sentences`` runs the steps for one source; this module holds steps 1 to 3.

``merging`` puts a source's exact fragments and passages together (one copy, one fragment);
``bag_index.BagIndex`` proposes the sources a document shares many words with (a reworded copy keeps
few runs of them). ``sentence_meaning`` extends seeds found another way (the cosine of
sentence embeddings) with the same clustering (``passages``, ``dense_ends``, ``Spans``).
Arrays in, ``fragments.Match`` out, as ``fragments.align``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .fragments import Match

# Re-exported: the rule was defined here, and callers import it from here.
from .sentence_rule import SentenceRule as SentenceRule
from .sorted_sets import members, unique_counts, unique_sorted

# The most sentences of a paragraph compared whole (``Side.paragraphs``).
PARAGRAPH_SENTENCES = 8


@dataclass(frozen=True)
class Side:
    """One text for sentence alignment: per token its ``feature`` (0: none) and ``sentence``
    (non-decreasing), and its ``weights`` (in words)."""

    feature: np.ndarray  # uint64
    sentence: np.ndarray  # int64
    weights: np.ndarray  # float64
    # Per token its word as written (0: none), where ``feature`` holds its stem: seeds compare
    # sentences by their words as written (``seeds``). None: ``feature`` is both.
    forms: np.ndarray | None = None  # uint64
    # Per sentence its paragraph (non-decreasing; paragraphs end at blank lines). None: each
    # sentence is a paragraph of its own.
    paragraph: np.ndarray | None = None  # int64

    @property
    def sentences(self) -> int:
        return int(self.sentence[-1]) + 1 if self.sentence.size else 0

    @cached_property
    def paragraphs(self) -> np.ndarray:
        """The first and last sentence of each paragraph (rows, in order), a paragraph of
        more than ``PARAGRAPH_SENTENCES`` sentences cut into pieces of that many (a text
        without blank lines is one paragraph; a translator's is a few sentences)."""
        numbers = np.arange(self.sentences)
        if self.paragraph is None or not numbers.size:
            return np.stack([numbers, numbers], axis=1)
        starts = np.flatnonzero(np.r_[True, np.diff(self.paragraph) != 0])
        lengths = np.diff(np.r_[starts, numbers.size])
        pieces = -(-lengths // PARAGRAPH_SENTENCES)
        firsts = np.repeat(starts, pieces) + PARAGRAPH_SENTENCES * (
            np.arange(int(pieces.sum())) - np.repeat(np.cumsum(pieces) - pieces, pieces)
        )
        lasts = np.r_[firsts[1:] - 1, numbers.size - 1]
        return np.stack([firsts, lasts], axis=1).astype(np.int64)

    @cached_property
    def distinct_features(self) -> np.ndarray:
        """The side's distinct features (sorted; made once: a source is compared with every
        document checked against it)."""
        return np.unique(self.feature[self.feature != 0])

    @cached_property
    def bag_memo(self) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """The bags of runs of sentences made so far (``_bag``): aligning a document with a
        source asks for the same few thousand runs a dozen times each."""
        return {}

    @cached_property
    def feature_places(self) -> tuple[np.ndarray, np.ndarray]:
        """Every token's feature (0 left out) in feature order, and its sentence: where each
        feature is, made once."""
        has = np.flatnonzero(self.feature != 0)
        order = np.argsort(self.feature[has], kind="stable")
        return self.feature[has][order], self.sentence[has][order]

    @cached_property
    def bags(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_bags`` of this side, made once: a checked document is aligned with every
        candidate source, and a source with every document checked against it."""
        return _bags(self)

    @cached_property
    def form_bags(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``bags`` of the words as written (``forms``), made once."""
        if self.forms is None:
            return self.bags
        return _bags(Side(self.forms, self.sentence, self.weights))


def _bags(side: Side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (sentence, feature) entries of a side with their counts."""
    keep = side.feature != 0
    sentence, feature = side.sentence[keep], side.feature[keep]
    if not sentence.size:
        empty = np.empty(0, np.int64)
        return empty, np.empty(0, np.uint64), empty
    order = np.lexsort((feature, sentence))
    sentence, feature = sentence[order], feature[order]
    new = np.r_[True, (np.diff(sentence) != 0) | (feature[1:] != feature[:-1])]
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, sentence.size])
    return sentence[starts], feature[starts], counts


def seeds(
    query: Side, source: Side, rule: SentenceRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence pairs ``(q, s)`` (shape ``(n, 2)``) whose bags of words as written
    (``Side.forms``; by their stems with ``rule.seeds_by_stems``) pass both thresholds, their
    cosines, and the share of the query sentence's distinct words in the source's."""
    by_stems = rule.seeds_by_stems
    q_sent, q_feat, q_tf = query.bags if by_stems else query.form_bags
    s_sent, s_feat, s_tf = source.bags if by_stems else source.form_bags
    if not q_feat.size or not s_feat.size:
        return np.empty((0, 2), np.int64), np.empty(0), np.empty(0)
    # Inverse sentence frequency over the sentences of both sides.
    every = np.concatenate([q_feat, s_feat])
    distinct, inverse, df = np.unique(every, return_inverse=True, return_counts=True)
    total = query.sentences + source.sentences
    isf = np.log(total / df)
    q_w = q_tf * isf[inverse[: q_feat.size]]
    s_w = s_tf * isf[inverse[q_feat.size :]]
    q_norm = np.sqrt(np.bincount(q_sent, q_w * q_w, minlength=query.sentences))
    s_norm = np.sqrt(np.bincount(s_sent, s_w * s_w, minlength=source.sentences))
    q_size = np.bincount(q_sent, minlength=query.sentences)
    s_size = np.bincount(s_sent, minlength=source.sentences)
    # Every (query entry, source entry) with one feature, features in many sentences left out.
    order = np.argsort(s_feat, kind="stable")
    ordered = s_feat[order]
    lo = np.searchsorted(ordered, q_feat, "left")
    hi = np.searchsorted(ordered, q_feat, "right")
    count = hi - lo
    q_df = np.bincount(inverse[: q_feat.size], minlength=distinct.size)[inverse[: q_feat.size]]
    count[(count > rule.max_feature_sentences) | (q_df > rule.max_feature_sentences)] = 0
    n = int(count.sum())
    if n == 0:
        return np.empty((0, 2), np.int64), np.empty(0), np.empty(0)
    qi = np.repeat(np.arange(q_feat.size), count)
    sj = order[np.repeat(lo - np.cumsum(count) + count, count) + np.arange(n)]
    code = q_sent[qi] * np.int64(source.sentences) + s_sent[sj]
    pairs, at = np.unique(code, return_inverse=True)
    dot = np.bincount(at, q_w[qi] * s_w[sj])
    shared = np.bincount(at)
    q, s = pairs // source.sentences, pairs % source.sentences
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = dot / (q_norm[q] * s_norm[s])
        dice = 2 * shared / (q_size[q] + s_size[s])
    good = np.flatnonzero((cosine >= rule.min_cosine) & (dice >= rule.min_dice))
    # Each query sentence keeps its closest source sentence(s) only: a text that says similar
    # things in neighbouring sentences (a list of alike items) would otherwise stretch a
    # passage over sentences that were not copied.
    q, s, cosine, shared = q[good], s[good], cosine[good], shared[good]
    best = np.zeros(query.sentences)
    np.maximum.at(best, q, cosine)
    closest = cosine >= best[q] - 1e-9
    q, s, cosine, shared = q[closest], s[closest], cosine[closest], shared[closest]
    return np.stack([q, s], axis=1).astype(np.int64), cosine, shared / q_size[q]


def _split(cluster: np.ndarray, column: int, gap: int) -> list[np.ndarray]:
    """``cluster`` (seed rows) cut where its sentences on ``column`` lie more than ``gap``
    sentences apart."""
    ordered = cluster[np.argsort(cluster[:, column], kind="stable")]
    cuts = (np.flatnonzero(np.diff(ordered[:, column]) > gap + 1) + 1).tolist()
    return [ordered[a:b] for a, b in zip([0, *cuts], [*cuts, len(ordered)], strict=True)]


def passages(found: np.ndarray, gap: int, source_gap: int | None = None) -> list[np.ndarray]:
    """Seeds clustered: on the query side, then the source side (``source_gap``: ``gap``
    unless given), until nothing splits."""
    across = gap if source_gap is None else source_gap
    return _settled(found, gap, across) if found.size else []


def _settled(found: np.ndarray, gap: int, across: int) -> list[np.ndarray]:
    """``found`` split on both sides until nothing splits (``passages``). Each part settles
    alone: a part that does not split keeps its rows' order when split again (both sorts are
    stable), so settling the parts one by one, first to last, gives the parts of splitting
    them all round after round, in their order; one seed splits no more."""
    settled: list[np.ndarray] = []
    pending = [found]  # last first
    while pending:
        cluster = pending.pop()
        parts = [part for q in _split(cluster, 0, gap) for part in _split(q, 1, across)]
        if len(parts) == 1:
            settled.append(parts[0])
            continue
        pending += reversed(parts)
        while pending and len(pending[-1]) == 1:
            settled.append(pending.pop())
    return settled


def _bag(side: Side, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """Features and counts of sentences ``first..last`` of a side (read-only: kept in the
    side's ``bag_memo``)."""
    memo = side.bag_memo
    found = memo.get((first, last))
    if found is None:
        lo = int(np.searchsorted(side.sentence, first, "left"))  # sentence numbers ascend
        hi = int(np.searchsorted(side.sentence, last, "right"))
        inside = side.feature[lo:hi]
        found = unique_counts(inside[inside != 0])
        for array in found:
            array.setflags(write=False)
        memo[(first, last)] = found
    return found


def _words(side: Side, k: int) -> np.ndarray:
    """The distinct features of sentence ``k`` (``_bag(side, k, k)[0]``, from the side's
    bags made once)."""
    sentence, feature, _ = side.bags
    lo, hi = np.searchsorted(sentence, (k, k + 1))
    return feature[lo:hi]


def _cosine(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    ia = np.flatnonzero(members(a[0], b[0]))
    if not ia.size:
        return 0.0
    ib = np.searchsorted(b[0], a[0][ia])
    dot = float((a[1][ia] * b[1][ib]).sum())
    return dot / float(np.sqrt((a[1] ** 2).sum() * (b[1] ** 2).sum()))


@dataclass(frozen=True)
class _Passage:
    """A passage found: its sentences on both sides and its match."""

    qa: int
    qb: int
    sa: int
    sb: int
    match: Match


def brings_source_words(
    query: Side, source: Side, m: Match, least: int, alike: np.ndarray
) -> bool:
    """Whether the sentences of ``m`` bring ``least`` distinct features of its source
    sentences that the query has nowhere in its own text: outside them and outside the
    sentences ``alike`` (query sentence numbers alike to some source sentence: seeds). A
    copy carries its source's words into the document; the author's own sentence saying
    again what the document says elsewhere carries none. The sentences alike to the source
    are not the author's own text: two passages copied from one source share its words,
    and a document revised from one source draws on it all through."""
    ends = (int(query.sentence[m.first]), int(query.sentence[m.last]),
            int(source.sentence[m.source_first]), int(source.sentence[m.source_last]))  # fmt: skip
    return _brings(query, source, ends, least, alike)


def _brings(
    query: Side, source: Side, ends: tuple[int, int, int, int], least: int, alike: np.ndarray
) -> bool:
    qa, qb, sa, sb = ends
    if least <= 0:
        return True
    own = _bag(query, qa, qb)[0]
    drawn = own[members(own, _bag(source, sa, sb)[0])]
    if drawn.size < least:
        return False
    mine = np.ones(query.sentences, dtype=bool)
    mine[qa : qb + 1] = False
    mine[alike] = False
    # Whether each drawn feature is anywhere in the query's own sentences (``mine``): its
    # places there, in the side's index of features (each is somewhere: in the passage).
    features, sentences = query.feature_places
    lo = np.searchsorted(features, drawn, "left")
    counts = np.searchsorted(features, drawn, "right") - lo
    firsts = np.cumsum(counts) - counts
    places = np.repeat(lo - firsts, counts) + np.arange(int(counts.sum()))
    elsewhere = np.add.reduceat(mine[sentences[places]].astype(np.int64), firsts) > 0
    return int((~elsewhere).sum()) >= least


def _single(
    cluster: np.ndarray, spans: Spans, sure: dict[tuple[int, int], bool], rule: SentenceRule
) -> tuple[int, int, int, int] | None:
    """The sentences of a cluster with one seed sentence on a side (one long sentence copied
    as one or two) whose ``sure`` seeds (alike as a whole, most words shared) are a copy
    alone: both sides weigh ``single_min_words``. A long sentence that keeps most of
    another's words copies it; a short one may merely say the like (``min_seeds``)."""
    if not len(cluster) or min(unique_sorted(cluster[:, 0]).size,
                                unique_sorted(cluster[:, 1]).size) > 1:  # fmt: skip
        return None
    kept = cluster[[sure[(q, s)] for q, s in cluster.tolist()]]
    if not len(kept):
        return None
    qa, qb = int(kept[:, 0].min()), int(kept[:, 0].max())
    sa, sb = int(kept[:, 1].min()), int(kept[:, 1].max())
    first, last, source_first, source_last = spans.tokens(qa, qb, sa, sb)
    if not spans.long_enough(first, last, source_first, source_last, rule.single_min_words):
        return None
    return qa, qb, sa, sb


# Sentences a passage grows by at most, on each end of each side (``_grown``).
_MAX_GROWTH = 8


def _grown(
    query: Side, source: Side, ends: tuple[int, int, int, int], min_containment: float
) -> tuple[int, int, int, int]:
    """Sentences ``ends`` grown, one sentence at a time on either end of either side, by a
    neighbouring sentence whose features are ``min_containment`` in the other side's passage
    (with the sentence beyond each of its ends): a copied sentence too changed to seed, or
    whose words a rewording moved into its neighbours (PAN's random obfuscation shuffles words
    across sentence ends), still keeps its words in the copy; the author's own sentence next
    to a copy does not."""
    qa, qb, sa, sb = ends
    for _ in range(_MAX_GROWTH):
        q_near = _bag(query, qa - 1, qb + 1)[0]
        s_near = _bag(source, sa - 1, sb + 1)[0]
        moved = False
        for side, near, at, step in (
            (query, s_near, "qa", -1), (query, s_near, "qb", 1),
            (source, q_near, "sa", -1), (source, q_near, "sb", 1),
        ):  # fmt: skip
            here = {"qa": qa, "qb": qb, "sa": sa, "sb": sb}[at] + step
            if here < 0 or here >= side.sentences:
                continue
            words = _words(side, here)
            if words.size < 2:
                continue
            if members(words, near).sum() >= min_containment * words.size:
                if at == "qa":
                    qa = here
                elif at == "qb":
                    qb = here
                elif at == "sa":
                    sa = here
                else:
                    sb = here
                moved = True
        if not moved:
            break
    return qa, qb, sa, sb


def _validated(
    query: Side, source: Side, spans: Spans, ends: tuple[int, int, int, int],
    rule: SentenceRule, how: str,
) -> _Passage | None:  # fmt: skip
    """Sentences ``ends`` as a passage when both sides are long enough and their bags alike
    as wholes: the smaller one's features mostly in the other (containment), and, unless it
    is a summary, the two bags alike (cosine). A summary's bag is a fraction of its source
    stretch's, which says more than the summary keeps: their cosine falls with the stretch's
    length, whatever the summary's quality."""
    if how == "reworded":  # a summary's ends are its chain's (``_nearest_ends``)
        ends = _grown(query, source, ends, rule.grow_min_containment)
    qa, qb, sa, sb = ends
    first, last, source_first, source_last = spans.tokens(qa, qb, sa, sb)
    if not spans.long_enough(first, last, source_first, source_last, rule.min_words):
        return None
    q_bag, s_bag = _bag(query, qa, qb), _bag(source, sa, sb)
    common = int(members(q_bag[0], s_bag[0]).sum())
    contained = common / max(1, min(q_bag[0].size, s_bag[0].size))
    if how != "summarised" and _cosine(q_bag, s_bag) < rule.min_passage_cosine:
        return None
    if contained < rule.min_passage_containment:
        return None
    first, last = _on_shared_words(query, first, last, s_bag[0], rule.max_end_stretch)
    source_first, source_last = _on_shared_words(
        source, source_first, source_last, q_bag[0], rule.max_end_stretch
    )
    shared = members(query.feature[first : last + 1], s_bag[0])
    match = Match(first, last, source_first, source_last, int(shared.sum()), how)
    return _Passage(qa, qb, sa, sb, match)


def _on_shared_words(
    side: Side, first: int, last: int, other: np.ndarray, stretch: float
) -> tuple[int, int]:
    """Tokens ``first..last`` of a side without the words at either end before the first
    (after the last) word that the other side's passage has (``other``: its features), when
    they weigh ``stretch`` words or more: a passage's ends are on copied words, not at the
    start of a sentence whose end alone was copied (a sentence is cut at its marks, and a
    page of lines without them is one). A few unshared words at an end are a rewording's."""
    words = np.flatnonzero(side.feature[first : last + 1] != 0) + first
    shared = np.flatnonzero(members(side.feature[words], other))
    if not shared.size:
        return first, last
    start, end = int(words[shared[0]]), int(words[shared[-1]])
    if float(side.weights[first:start].sum()) < stretch:
        start = first
    if float(side.weights[end + 1 : last + 1].sum()) < stretch:
        end = last
    return start, end


def _evidenced(
    cluster: np.ndarray, query: Side, source: Side, min_containment: float, min_one: float
) -> list[np.ndarray]:
    """``cluster`` cut, in query order, at each stretch of query sentences between two seeds
    that holds no evidence of copying: less than ``min_containment`` of its features in the
    source sentences between those two seeds' (in theirs when there are none). A passage
    joins evidence on both sides and never runs over text with none: the author's own
    sentence between two copies (a comment, a byline, a paragraph on the same subject) stays
    out, however near; a reworded sentence too changed to seed keeps more of its words. A
    single sentence is cut out at ``min_one`` (a sentence reworded beyond seeding often keeps
    a few words only: PAN's random obfuscation)."""
    ordered = cluster[np.lexsort((cluster[:, 1], cluster[:, 0]))]
    rows = np.flatnonzero(np.diff(ordered[:, 0]) > 1)  # a seed followed by a gap
    cuts = []
    for row in rows.tolist():
        before, after = int(ordered[row, 0]), int(ordered[row + 1, 0])
        gap = _bag(query, before + 1, after - 1)[0]
        if not gap.size:
            continue  # nothing there to claim (a line of numbers or stopwords)
        near = ordered[(ordered[:, 0] == before) | (ordered[:, 0] == after), 1]
        lo, hi = int(near.min()), int(near.max())
        if hi - lo > 1:  # the source sentences between the seeds, else the seeds' own
            lo, hi = lo + 1, hi - 1
        stretch = _bag(source, lo, hi)[0]
        bound = min_containment if after - before > 2 else min_one
        if members(gap, stretch).sum() < bound * gap.size:
            cuts.append(row + 1)
    return np.split(ordered, cuts) if cuts else [ordered]


def dense_ends(
    cluster: np.ndarray, min_seeds: int, min_density: float
) -> tuple[int, int, int, int] | None:
    """The first and last sentences of a cluster of seeds on both sides, when it has
    ``min_seeds`` seed sentences on each and they are ``min_density`` of its sentences there."""
    if not len(cluster):
        return None
    qa, qb = int(cluster[:, 0].min()), int(cluster[:, 0].max())
    sa, sb = int(cluster[:, 1].min()), int(cluster[:, 1].max())
    seeded_q, seeded_s = unique_sorted(cluster[:, 0]).size, unique_sorted(cluster[:, 1]).size
    if min(seeded_q, seeded_s) < min_seeds:
        return None
    if seeded_q < min_density * (qb - qa + 1) or seeded_s < min_density * (sb - sa + 1):
        return None
    return qa, qb, sa, sb


def _strong_ends(
    cluster: np.ndarray, strength: dict[tuple[int, int], bool], rule: SentenceRule
) -> np.ndarray:
    """``cluster`` without its weak seeds at either end (in query order): a passage ends on
    sentences that are clearly copies, not on one that merely says the like next to it (a
    cluster of weak seeds alone is none)."""
    ordered = cluster[np.lexsort((cluster[:, 1], cluster[:, 0]))]
    weak = [not strength[(int(q), int(s))] for q, s in ordered.tolist()]
    first, last = 0, len(weak)
    while last - first > rule.min_seeds and weak[first]:
        first += 1
    while last - first > rule.min_seeds and weak[last - 1]:
        last -= 1
    return ordered[first:last]


class Spans:
    """Token ranges of sentences on both sides."""

    def __init__(self, query: Side, source: Side) -> None:
        self.query, self.source = query, source
        q, s = np.arange(query.sentences), np.arange(source.sentences)
        self.q_first = np.searchsorted(query.sentence, q, "left")
        self.q_last = np.searchsorted(query.sentence, q, "right") - 1
        self.s_first = np.searchsorted(source.sentence, s, "left")
        self.s_last = np.searchsorted(source.sentence, s, "right") - 1

    def tokens(self, qa: int, qb: int, sa: int, sb: int) -> tuple[int, int, int, int]:
        return (int(self.q_first[qa]), int(self.q_last[qb]),
                int(self.s_first[sa]), int(self.s_last[sb]))  # fmt: skip

    def long_enough(self, first: int, last: int, s_first: int, s_last: int, words: float) -> bool:
        """Both sides weigh at least ``words``."""
        if float(self.query.weights[first : last + 1].sum()) < words:
            return False
        return float(self.source.weights[s_first : s_last + 1].sum()) >= words


def sentence_texts(text: str, side: Side, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The text of each sentence of ``side`` (from its first token's start to its last
    token's end; ``starts``/``ends``: the tokens' character offsets)."""
    numbers = np.arange(side.sentences)
    first = np.searchsorted(side.sentence, numbers, "left")
    last = np.searchsorted(side.sentence, numbers, "right") - 1
    return [text[int(starts[a]) : int(ends[b])] for a, b in zip(first, last, strict=True)]
