"""Summaries: a block of the query that condenses a longer stretch of a source, found whole
as one passage, "summarised", in two ways (``summaries``).

- **Seeds in order** (Sanchez-Perez, Sidorov and Gelbukh's summary mode): a summary's
  sentences seed (``sentences.seeds``) with sentences of the passages they condense, which lie
  further apart in the source than the ordinary gap of a reworded passage; the block is one
  passage when it seeds in the source's order over a stretch of it at least
  ``summary_min_compression`` times as long.
- **Document-level evidence** (``_of_documents``): a summary written anew shares few words
  with any one source sentence and follows no order, but draws nearly all its words from the
  source, from all over it, where the rest of the document does not: the one block of the
  document whose sentences do, alike to the source as a whole, spread over it as no copy is,
  is a summary of the stretch its words come from (of the whole source, for most of it).

Either way a summary is condensed from its source, not merely on its subject: it brings the
source's words into the document, and at most ``summary_max_own_words`` of its words that the
source has are words the document uses elsewhere too (``_own_words``).

Built on ``sentences``' passages: ``reworded.align_sentences`` calls ``summaries`` after
finding them."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

import numpy as np

from .sentences import (
    SentenceRule,
    Side,
    Spans,
    _bag,
    _cosine,
    _Passage,
    _strong_ends,
    _validated,
    passages,
    seeds,
)


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
    its place. Then the summaries found by document-level evidence (``_of_documents``): a
    chain inside one is part of it. Neither is a summary when more than
    ``summary_max_own_words`` of its words that the source has are in the rest of the
    document (the author's own words on the subject)."""
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
        if _own_words(query, source, qa, qb) > rule.summary_max_own_words:
            continue
        passage = _validated(query, source, spans, (qa, qb, sa, sb), rule, "summarised")
        if passage is not None:
            summaries.append(passage)
    summaries = _of_documents(query, source, spans, found, copies, summaries, rule)
    pieces = [
        p for p in kept
        if not any(s.qa <= p.qb and s.qb >= p.qa for s in summaries)
    ]  # fmt: skip
    return sorted(pieces + summaries, key=lambda p: (p.qa, p.sa))


def sentence_containment(query: Side, source: Side) -> np.ndarray:
    """Per sentence of ``query``, the share of its distinct features that ``source`` has
    anywhere (0 for a sentence without features)."""
    sentence, feature, _ = query.bags  # its distinct (sentence, feature) entries
    inside = np.isin(feature, source.distinct_features, assume_unique=False)
    count = np.bincount(sentence, minlength=query.sentences)
    shared = np.bincount(sentence, inside, minlength=query.sentences)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, shared / np.maximum(count, 1), 0.0)


def _blocks(contained: np.ndarray, rule: SentenceRule) -> list[tuple[int, int]]:
    """Runs of sentences whose words a source has (``summary_min_containment``), joined
    across one sentence that has fewer but still some (``min_gap_containment``): a summary
    sentence condenses, and may say a thing in words of its own."""
    drawn = contained >= rule.summary_min_containment
    some = contained >= rule.min_gap_containment
    found: list[tuple[int, int]] = []
    k, n = 0, contained.size
    while k < n:
        if not drawn[k]:
            k += 1
            continue
        a = b = k
        while True:
            if b + 1 < n and drawn[b + 1]:
                b += 1
            elif b + 2 < n and drawn[b + 2] and some[b + 1]:
                b += 2
            else:
                break
        found.append((a, b))
        k = b + 1
    return found


def _of_documents(
    query: Side, source: Side, spans: Spans, found: np.ndarray, copies: list[_Passage],
    chains: list[_Passage], rule: SentenceRule,
) -> list[_Passage]:  # fmt: skip
    """Summaries of ``source`` as a whole (document-level evidence). A block of the query
    (``_blocks``) of ``summary_min_sentences`` or more whose sentences draw their words from
    the source far more than the rest of the query does (``summary_min_lift``) is a summary
    when it is the only such block (a document that draws on a source in several places is on
    its subject, or copies from it here and there), alike to the whole source as a bag
    (``summary_min_document_cosine``), outweighed by it ``summary_min_document_compression``
    times, and spread over it: no stretch of the source ``summary_min_compression`` times as
    long as the block holds more than ``summary_max_passage_share`` of the block's words that
    the source has (``_in_one_passage``), and the source sentences nearest its sentences
    (``_nearest``), three or more, are at most ``summary_max_match_density`` of the source
    between the first and the last of them, which weighs ``summary_min_compression`` times
    the block between its first and last matched sentences (a reworded copy's words are in
    the passage it copies, its sentences nearest to sentences in a row, about as long). The
    block is at most half of its document (else nothing sets it apart). Its source side is that
    of the summaries found by seeds in order inside it (``chains``, which it takes in: they say
    where it starts and ends), else the stretch its words are drawn from (``_condensed``), the
    whole source when that is ``summary_whole_share`` of it or more: a summary of a document
    condenses it all, its opening and its close included, however few of its sentences seed.

    A block with a copy of ``summary_max_copy_sentences`` sentences or more, or one holding
    more than half of it, is no summary (a copy: a passage about as long on both sides, or
    seeds of sentences in a row on both sides, ``_copied``; the author's own sentences on the
    subject around a copied passage); shorter copies are its pieces (a summary may copy a
    sentence or two here and there)."""
    if not rule.summary_of_documents:
        return chains
    contained = sentence_containment(query, source)
    whole = _bag(source, 0, source.sentences - 1)
    drawn = []
    for a, b in _blocks(contained, rule):
        if b - a + 1 < rule.summary_min_sentences:
            continue  # (before the median of the rest: most blocks are a sentence or two)
        rest = np.r_[contained[:a], contained[b + 1 :]]
        usual = float(np.median(rest)) if rest.size else 0.0
        if float(contained[a : b + 1].mean()) - usual < rule.summary_min_lift:
            continue
        if _cosine(_bag(query, a, b), whole) >= rule.summary_min_document_cosine:
            drawn.append((a, b))
    if len(drawn) != 1:
        return chains
    a, b = drawn[0]
    if 2 * (b - a + 1) > query.sentences:
        return chains  # most of the document: no rest for it to stand out from
    copied = [(p.qa, p.qb) for p in copies] + _copied(found)
    held = [min(b, qb) - max(a, qa) + 1 for qa, qb in copied if qa <= b and qb >= a]
    longest = max(held, default=0)
    if longest >= rule.summary_max_copy_sentences or 2 * longest > b - a + 1:
        return chains
    first, last, _, _ = spans.tokens(a, b, 0, 0)
    words = float(query.weights[first : last + 1].sum())
    if float(source.weights.sum()) < rule.summary_min_document_compression * words:
        return chains
    if _in_one_passage(query, source, a, b, rule.summary_min_compression) > (
        rule.summary_max_passage_share
    ):
        return chains
    near = _nearest(query, source, a, b, rule)
    matched_q, matched_s = np.unique(near[:, 0]), np.unique(near[:, 1])
    if min(matched_q.size, matched_s.size) < rule.summary_min_matches:
        return chains
    qa, qb = int(matched_q[0]), int(matched_q[-1])
    sa, sb = int(matched_s[0]), int(matched_s[-1])
    if matched_s.size > rule.summary_max_match_density * (sb - sa + 1):
        return chains
    if not _compressed(spans, qa, qb, sa, sb, rule):
        return chains
    inside = [p for p in chains if p.qa <= b and p.qb >= a]
    if inside:  # seeds in the source's order say where it starts and ends there
        a, b = min(a, *(p.qa for p in inside)), max(b, *(p.qb for p in inside))
        sa, sb = min(p.sa for p in inside), max(p.sb for p in inside)
    else:
        sa, sb = _condensed(query, source, a, b, rule.summary_stretch_share)
        if sb - sa + 1 >= rule.summary_whole_share * source.sentences:
            sa, sb = 0, source.sentences - 1  # most of the source: the document, end to end
    if _own_words(query, source, a, b) > rule.summary_max_own_words:
        return chains
    passage = _validated(query, source, spans, (a, b, sa, sb), rule, "summarised")
    if passage is None:
        return chains
    return [p for p in chains if p not in inside] + [passage]


def _own_words(query: Side, source: Side, a: int, b: int) -> float:
    """Of the distinct features of query sentences ``a..b`` that the source has, the share
    that the query also has outside them: the author's own words on the subject, not words
    drawn from the source (``SentenceRule.summary_max_own_words``)."""
    block = (query.sentence >= a) & (query.sentence <= b)
    features = np.unique(query.feature[block & (query.feature != 0)])
    drawn = features[np.isin(features, source.feature)]
    if not drawn.size:
        return 0.0
    return float(np.isin(drawn, query.feature[~block]).mean())


def _in_one_passage(query: Side, source: Side, a: int, b: int, factor: float) -> float:
    """Of the distinct features of query sentences ``a..b`` that the source has, the largest
    share that one stretch of source sentences ``factor`` times as long as them has (a
    reworded copy's words are in the passage it copies; a summary's are spread over what it
    condenses)."""
    inside = (query.sentence >= a) & (query.sentence <= b)
    features = np.unique(query.feature[inside & (query.feature != 0)])
    wanted = np.isin(source.feature, features)
    anywhere = np.unique(source.feature[wanted]).size
    if not anywhere:
        return 0.0
    length = factor * float(query.weights[inside].sum())
    reach = np.r_[0.0, np.cumsum(source.weights)]
    best = 0
    for start in np.searchsorted(source.sentence, np.arange(source.sentences)).tolist():
        end = int(np.searchsorted(reach, reach[start] + length))
        stretch = source.feature[start:end]
        best = max(best, np.unique(stretch[wanted[start:end]]).size)
        if end >= source.feature.size:
            break
    return best / anywhere


def _condensed(query: Side, source: Side, a: int, b: int, share: float) -> tuple[int, int]:
    """The shortest stretch of source sentences that holds ``share`` of the distinct features
    of query sentences ``a..b`` found anywhere in the source: what a summary condenses (its
    words are drawn from all of it), the whole source for a summary of a document."""
    inside = (query.sentence >= a) & (query.sentence <= b)
    features = np.unique(query.feature[inside & (query.feature != 0)])
    wanted = np.isin(source.feature, features)
    sentence, feature = source.sentence[wanted], source.feature[wanted]
    if not feature.size:
        return 0, source.sentences - 1
    kinds, code = np.unique(feature, return_inverse=True)
    need = int(np.ceil(share * kinds.size))
    starts = np.searchsorted(sentence, np.arange(source.sentences + 1))
    count = np.zeros(kinds.size, dtype=np.int64)
    held, best, lo = 0, (0, source.sentences - 1), 0
    for hi in range(source.sentences):
        for k in code[starts[hi] : starts[hi + 1]].tolist():
            held += count[k] == 0
            count[k] += 1
        while held >= need:
            if hi - lo < best[1] - best[0]:
                best = (lo, hi)
            for k in code[starts[lo] : starts[lo + 1]].tolist():
                count[k] -= 1
                held -= count[k] == 0
            lo += 1
    return best


def _nearest(query: Side, source: Side, a: int, b: int, rule: SentenceRule) -> np.ndarray:
    """The source sentences nearest each sentence ``a..b`` of the query (``seeds`` at the
    summary's lower thresholds: a summary sentence condenses several, and shares fewer words
    with any one of them than a reworded sentence does with its own), as ``(q, s)`` rows."""
    lenient = replace(
        rule, min_cosine=rule.summary_match_min_cosine, min_dice=rule.summary_match_min_dice
    )
    near, _, _ = seeds(query, source, lenient)
    return near[(near[:, 0] >= a) & (near[:, 0] <= b)]


def _copied(found: np.ndarray) -> list[tuple[int, int]]:
    """Runs of two seeds or more whose query sentences follow each other and whose source
    sentences follow each other or are one (``q, s``, ``q + 1, s`` or ``q + 1, s + 1``, ...),
    as the first and last query sentences: sentences copied in a row (a long source sentence
    may be two of the query)."""
    pairs = {(int(q), int(s)) for q, s in found.tolist()}
    runs = []
    for q, s in sorted(pairs):
        if (q - 1, s - 1) in pairs or (q - 1, s) in pairs:
            continue  # not the first of its run
        last, at = q, s
        while (last + 1, at + 1) in pairs or (last + 1, at) in pairs:
            at = at + 1 if (last + 1, at + 1) in pairs else at
            last += 1
        if last > q:
            runs.append((q, last))
    return runs


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
