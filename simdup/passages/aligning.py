"""Aligning candidate pairs of documents (``matching`` step 2): each pair is aligned token by
token around its shared fingerprints (``fragments.align_near``: exact runs, chained across at
most ``gap`` differing tokens), in worker processes when there are many; each fragment the rule
keeps is a copy, unless most of its fingerprints are boilerplate, with its ends moved
(``edges``) and its twins (``twins``). ``aligned_pairs`` runs the candidates (``candidates``)
and this for a list of documents; ``matching`` runs it for the text as read and for Markdown
files as written."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..algorithms.fragments import (
    FragmentRule,
    Match,
    align,
    align_near,
    longest_first,
)
from ..algorithms.merging import merged
from ..algorithms.reworded import align_sentences
from ..algorithms.sentences import SentenceRule
from ..algorithms.winnowing import kgram_hashes, winnow
from ..engines.workerpool import WorkerState, chunks_in_order
from ..text.tokens import CJK_WEIGHT
from .candidates import (
    Candidates,
    KgramPlaces,
    anchored,
    at_every_place,
    candidates,
    kept,
    with_short,
)
from .documents import DocumentPassages
from .edges import extended
from .options import SHORT_LINES, PassageOptions
from .twins import with_twins

# Fewer candidate pairs than this: one process (workers would cost more to start than they
# save); else tasks of this many pairs. Pairs aligned only around fingerprints for short
# copies (``options.SHORT_WINDOW``) are not counted: most share a line or two and cost a
# third of another (0.15 ms against 0.4 ms a pair on the collection set of issue 48, whose
# 454 pairs became 775 with them, and two workers made its matching slower, 0.8 s to 1 s).
_PARALLEL_PAIRS = 512
_TASK_PAIRS = 256


def reach_of(rule: FragmentRule) -> int:
    """Tokens aligned around each shared fingerprint: two fragments of the longest kind (all
    CJK characters) and a gap, as winnowing leaves no longer stretch of a fragment without a
    shared fingerprint."""
    return 2 * (math.ceil(rule.min_match / CJK_WEIGHT) + rule.gap) + rule.kgram


# A fragment as the workers send it back: the two documents, tokens first..last of the first
# and source_first..source_last of the second, the Jaccard similarity of their token sets, and
# how it was copied.
_Found = tuple[int, int, int, int, int, int, float, str]
# ``PassageOptions.line_share``, ``embedded_words`` and ``whole_lines_words``.
_Lines = tuple[float, float, float]
# What the workers aligning pairs hold (from the parent, through fork): see ``_init_align``.
_ALIGN: WorkerState[
    tuple[Sequence[DocumentPassages], np.ndarray, FragmentRule, SentenceRule | None, _Lines]
] = WorkerState("aligning passages")


def _init_align(
    docs: Sequence[DocumentPassages],
    common: np.ndarray,
    rule: FragmentRule,
    sentences: SentenceRule | None,
    lines: _Lines,
) -> None:
    _ALIGN.set((docs, common, rule, sentences, lines))


ALIKE_LINES = 0.7


def lines_alike(doc_a: DocumentPassages, doc_b: DocumentPassages, m: Match, share: float) -> bool:
    """Whether the lines a copy ``m`` (tokens of ``doc_a``, ``source`` ones of ``doc_b``) is
    reported on are alike: their tokens in common, in order, are at least ``share`` of each
    side's (``options.LINE_SHARE``: why). The copy's own matched tokens are in common; where
    they are too few, the lines are compared whole (an edited revision of a paragraph keeps
    more of it in common than its exact runs)."""
    from rapidfuzz.distance import Indel

    lo_a, hi_a = doc_a.line_range(m.first, m.last)
    lo_b, hi_b = doc_b.line_range(m.source_first, m.source_last)
    need = share * max(hi_a - lo_a, hi_b - lo_b)
    if m.matched >= need:
        return True
    x, y = doc_a.tokens.hashes[lo_a:hi_a].tolist(), doc_b.tokens.hashes[lo_b:hi_b].tolist()
    return bool(Indel.normalized_similarity(x, y) >= ALIKE_LINES)


# How alike the tokens of the lines of a short copy must be (``whole_lines``): a word or two
# edited in three lines of a dozen words.
SHORT_ALIKE = 0.9


def whole_lines(doc_a: DocumentPassages, doc_b: DocumentPassages, m: Match) -> bool:
    """Whether a copy ``m`` shorter than ``min_words`` is whole lines alike
    (``options.WHOLE_LINES_SHARE``): on at least ``SHORT_LINES`` lines with words on each
    side, whose tokens, all of them, are alike in order (normalised Indel similarity at least
    ``SHORT_ALIKE``)."""
    from rapidfuzz.distance import Indel

    lines = min(doc_a.word_lines(m.first, m.last), doc_b.word_lines(m.source_first, m.source_last))
    if lines < SHORT_LINES:
        return False
    lo_a, hi_a = doc_a.line_range(m.first, m.last)
    lo_b, hi_b = doc_b.line_range(m.source_first, m.source_last)
    x, y = doc_a.tokens.hashes[lo_a:hi_a].tolist(), doc_b.tokens.hashes[lo_b:hi_b].tolist()
    return bool(Indel.normalized_similarity(x, y) >= SHORT_ALIKE)


def matched_words(doc: DocumentPassages, m: Match) -> float:
    """What the matched tokens of copy ``m`` (tokens of ``doc``) weigh at most: the words of
    its span, or its matched tokens where fewer (a token weighs a word at most). Exact for
    words; a copy is judged short (``whole_lines``) on it, as ``FragmentRule.judge`` judges
    its size on what is matched, not on the edited tokens between."""
    return min(doc.words(m.first, m.last), float(m.matched))


def _similarity(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity of two token sequences' sets."""
    x, y = np.unique(a), np.unique(b)
    union = np.union1d(x, y).size
    return round(np.intersect1d(x, y, assume_unique=True).size / union, 4) if union else 0.0


class _Boilerplate:
    """Whether a fragment of a document is mostly boilerplate: winnowing picks a boilerplate
    k-gram in only some documents where it borders other text, so a fragment whose winnowed
    fingerprints (the document's, inside it) are mostly boilerplate ones is boilerplate,
    whichever anchors found it. Each document's are worked out once, on first need."""

    def __init__(
        self,
        docs: Sequence[DocumentPassages],
        common: np.ndarray,
        rule: FragmentRule,
        kgrams: Callable[[int], np.ndarray],
    ) -> None:
        self.docs, self.common, self.rule, self.kgrams = docs, common, rule, kgrams
        self.known: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, doc: int, first: int, last: int) -> bool:
        if not self.common.size:
            return False
        if doc not in self.known:
            kgrams = self.kgrams(doc)
            at = winnow(kgrams, self.rule.window)
            counted = np.r_[0, np.cumsum(among(kgrams[at], self.common))]
            self.known[doc] = at, counted
        at, counted = self.known[doc]
        lo = int(np.searchsorted(at, first, "left"))
        hi = int(np.searchsorted(at, last - self.rule.kgram + 1, "right"))
        return hi > lo and int(counted[hi] - counted[lo]) > 0.5 * (hi - lo)


def among(values: np.ndarray, ascending: np.ndarray) -> np.ndarray:
    """Which of ``values`` are in the sorted array ``ascending`` (not empty): a binary search
    each (``np.isin`` hashes both arrays on every call)."""
    at = np.minimum(np.searchsorted(ascending, values), ascending.size - 1)
    found: np.ndarray = ascending[at] == values
    return found


_Task = tuple[int, int, np.ndarray, np.ndarray]


def _align_pairs(tasks: Sequence[_Task]) -> list[_Found]:
    """The fragments of pairs of documents ``(i, j, anchors in i, anchors in j)``; ``i == j``:
    the passages repeated inside document i."""
    docs, common, rule, sentences, (line_share, embedded_words, whole_words) = _ALIGN.get()
    # Two documents are aligned again down to copies of whole lines alike (``whole_lines``),
    # for the copies under the rule's min_match where it found none.
    aligning = replace(rule, min_match=whole_words) if whole_words else rule
    whole_below = rule.min_match if whole_words else 0.0
    reach = reach_of(rule)
    held: dict[int, np.ndarray] = {}

    def kgrams(doc: int) -> np.ndarray:
        """A document's k-gram hashes, made once per task."""
        if doc not in held:
            held[doc] = kgram_hashes(docs[doc].tokens.hashes, rule.kgram)
        return held[doc]

    boilerplate = _Boilerplate(docs, common, rule, kgrams)
    out: list[_Found] = []
    for i, j, at_i, at_j in tasks:
        di, dj = docs[i], docs[j]
        a, b = di.tokens.hashes, dj.tokens.hashes
        weights = di.tokens.weights
        if i == j:
            matches = _within(a, weights, rule, reach)
        else:
            both = (kgrams(i), kgrams(j))
            matches = align_near(a, weights, b, (at_i, at_j), rule, reach, both)
            if np.unique(at_i).size < at_i.size or np.unique(at_j).size < at_j.size:
                # Anchors at every place of a repeated k-gram (``at_every_place``).
                matches = _longest_on_both(matches)
            free = _outside(matches, at_i, at_j) if whole_words else None
            if free is not None and free.any():
                anchors = (at_i[free], at_j[free])
                shorter = align_near(a, weights, b, anchors, aligning, reach, both)
                matches = _with_short(matches, shorter, di, rule.min_match)
            if sentences is not None and di.sentences is not None and dj.sentences is not None:
                reworded = [
                    m
                    for m in align_sentences(di.sentences, dj.sentences, sentences)
                    if di.words(m.first, m.last) >= rule.min_match - 1e-9
                    and dj.words(m.source_first, m.source_last) >= rule.min_match - 1e-9
                ]
                matches = merged(matches, reworded)
        # Boilerplate is judged on what the shared fingerprints found, before its edges move.
        kept = [m for m in matches if not boilerplate(i, m.first, m.last)]
        if i != j:
            kept = longest_first(
                [
                    extended(m, di, dj, rule.kgram, rule.gap, line_share)
                    if m.how == "verbatim"
                    else m
                    for m in kept
                ]
            )
        if i != j:
            kept = with_twins(kept, di, kgrams(i), dj, kgrams(j), rule.max_occurrences)
        for m in kept:
            short = m.how == "verbatim" and matched_words(di, m) < whole_below - 1e-9
            if short and (not whole_lines(di, dj, m) or _inside_longer(m, kept, whole_below, di)):
                continue
            if (
                m.how == "verbatim"
                and line_share
                and di.words(m.first, m.last) < embedded_words - 1e-9
                and not lines_alike(di, dj, m, line_share)
            ):
                continue
            similarity = _similarity(a[m.first : m.last + 1], b[m.source_first : m.source_last + 1])
            out.append((i, j, m.first, m.last, m.source_first, m.source_last, similarity, m.how))
    return out


def _longest_on_both(found: list[Match]) -> list[Match]:
    """Of copies overlapping on either side, the one with more matched tokens: aligned
    around each place of a repeated k-gram, the other places of a repeated template match a
    copy of one in part."""
    kept: list[Match] = []
    for m in sorted(found, key=lambda m: (-m.matched, m.first)):
        if any(
            2 * (min(m.last, o.last) - max(m.first, o.first) + 1) > m.last - m.first + 1
            or 2 * (min(m.source_last, o.source_last) - max(m.source_first, o.source_first) + 1)
            > m.source_last - m.source_first + 1
            for o in kept
        ):
            continue
        kept.append(m)
    return sorted(kept, key=lambda m: (m.first, m.source_first))


def _outside(found: list[Match], at_a: np.ndarray, at_b: np.ndarray) -> np.ndarray:
    """Which of the shared fingerprints at ``at_a`` and ``at_b`` lie in none of the copies
    ``found``, on either side: only around those can a shorter copy be (``_with_short``)."""
    free = np.ones(at_a.size, dtype=bool)
    for m in found:
        free &= ~((at_a >= m.first) & (at_a <= m.last))
        free &= ~((at_b >= m.source_first) & (at_b <= m.source_last))
    return free


def _with_short(
    found: list[Match], shorter: list[Match], doc: DocumentPassages, words: float
) -> list[Match]:
    """``found`` (copies of at least ``words`` words) with those of ``shorter`` (found by a
    rule asking for fewer) whose matched tokens weigh less (``matched_words``, as the rule
    judges them: a copy of 25 words with one edited is 24 matched, which a rule asking for 25
    turns down) and overlap none of them on either side: aligned down to fewer words, the runs
    around a long copy chain otherwise (its template lines joined to it), and it is judged
    so."""
    if not shorter:
        return found
    added = [
        m
        for m in shorter
        if matched_words(doc, m) < words - 1e-9
        and not any(
            (m.first <= o.last and o.first <= m.last)
            or (m.source_first <= o.source_last and o.source_first <= m.source_last)
            for o in found
        )
    ]
    return sorted([*found, *added], key=lambda m: (m.first, m.source_first)) if added else found


def _inside_longer(m: Match, kept: list[Match], words: float, doc: DocumentPassages) -> bool:
    """Whether most of short copy ``m`` lies, on either side, in a copy of the same two
    documents of at least ``words`` words: one text's lines are a copy of one place (a code
    block's tail, repeated in its source, is the copy's own lines twice over)."""
    for other in kept:
        if other is m or doc.words(other.first, other.last) < words - 1e-9:
            continue
        on_a = min(m.last, other.last) - max(m.first, other.first) + 1
        on_b = min(m.source_last, other.source_last) - max(m.source_first, other.source_first) + 1
        if 2 * on_a > m.last - m.first + 1 or 2 * on_b > m.source_last - m.source_first + 1:
            return True
    return False


def _within(hashes: np.ndarray, weights: np.ndarray, rule: FragmentRule, reach: int) -> list[Match]:
    """The fragments of a token sequence repeated inside it (the earlier place first): around
    each pair of places of one winnowed fingerprint, the stretch before the later place
    aligned with the stretch from it on, so that no token is aligned with itself."""
    kgrams = kgram_hashes(hashes, rule.kgram)
    chosen = winnow(kgrams, rule.window)
    prints = kgrams[chosen]
    order = np.lexsort((chosen, prints))
    prints, at = prints[order], chosen[order]
    # A fingerprint held more than max_occurrences times seeds nothing in ``align``: its
    # places are not paired (a text of one line repeated costs as much as any other).
    starts = np.flatnonzero(np.r_[True, prints[1:] != prints[:-1]])
    held = np.diff(np.r_[starts, prints.size])
    rare = np.repeat(held <= rule.max_occurrences, held)
    same = np.flatnonzero((prints[1:] == prints[:-1]) & rare[1:])
    found: list[Match] = []
    seen: set[tuple[int, int, int, int]] = set()
    n = hashes.size
    for k in same.tolist():
        p1, p2 = int(at[k]), int(at[k + 1])
        q_lo, q_hi = max(0, p1 - reach), min(n, p1 + reach, p2)
        s_lo, s_hi = max(p2 - reach, q_hi), min(n, p2 + reach)
        if (q_lo, q_hi, s_lo, s_hi) in seen or q_hi <= q_lo or s_hi <= s_lo:
            continue
        seen.add((q_lo, q_hi, s_lo, s_hi))
        for m in align(hashes[q_lo:q_hi], weights[q_lo:q_hi], hashes[s_lo:s_hi], rule):
            found.append(
                Match(m.first + q_lo, m.last + q_lo, m.source_first + s_lo,
                      m.source_last + s_lo, m.matched)
            )  # fmt: skip
    # One copy found from several pairs of places: the longest of those overlapping.
    return longest_first(found)


def _tasks(pairs: list[_Task], size: int) -> Iterator[list[_Task]]:
    for start in range(0, len(pairs), size):
        yield pairs[start : start + size]


def pairs_of(
    docs: Sequence[DocumentPassages], paths: Iterable[tuple[str, str]]
) -> set[tuple[int, int]]:
    """The pairs of documents (``i < j``) of the pairs of ``paths`` among ``docs``."""
    index = {d.path: n for n, d in enumerate(docs)}
    return {
        (min(index[x], index[y]), max(index[x], index[y]))
        for x, y in paths
        if x in index and y in index
    }


def _pair(i: int, j: int) -> Candidates:
    """Documents ``i`` and ``j`` as candidates without an anchor."""
    none = np.array([-1], dtype=np.int64)
    return Candidates(np.array([i]), np.array([j]), none, none, np.empty(0, np.uint64))


def aligned_pairs(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    skip: set[tuple[int, int]],
    jobs: int,
    every_pair: bool = False,
    keep: Callable[[Candidates, bool], np.ndarray] | None = None,
) -> tuple[list[_Found], np.ndarray, dict[str, Any]]:
    """The copies among ``docs`` (steps 1 and 2) around the anchors ``keep`` keeps (None:
    all; given the candidates, and whether they are those of short copies; ``every_pair``'s
    pairs as candidates without anchors, places -1: ``_pair``) but for the pairs
    ``skip``; the fingerprints held by more than ``max_repeats`` documents; statistics."""
    rule = options.fragment_rule()
    found = candidates(docs, options.max_repeats)
    if keep is not None:
        found = kept(found, keep(found, False))
    common = found.common
    stats: dict[str, Any] = {"documents": len(docs), "tokens": sum(len(d) for d in docs)}
    shared = sum(1 for _ in found.pairs())
    places = KgramPlaces(docs, rule.kgram)
    sure = anchored(at_every_place(found, places), docs)
    weighed = {(a, b) for a, b, *_ in sure.pairs()}
    if options.whole_lines_words:
        # Copies of whole lines shorter than a passage, around their own fingerprints.
        short = candidates(docs, options.max_repeats, short=True)
        if keep is not None:
            short = kept(short, keep(short, True))
        sure = with_short(sure, at_every_place(short, places), docs)
    pairs: list[_Task] = [t for t in sure.pairs() if (t[0], t[1]) not in skip]
    if every_pair:
        none = np.empty(0, dtype=np.int64)
        have = {(t[0], t[1]) for t in pairs}
        pairs += [
            (i, j, none, none)
            for i in range(len(docs))
            for j in range(i + 1, len(docs))
            if (i, j) not in have
            and (i, j) not in skip
            and (keep is None or bool(keep(_pair(i, j), False)[0]))
        ]
        pairs.sort(key=lambda t: (t[0], t[1]))
    if options.within:
        none = np.empty(0, dtype=np.int64)
        pairs += [(i, i, none, none) for i in range(len(docs))]
    stats["sharing_a_fingerprint"] = shared
    stats["candidates"] = len(pairs)
    heavy = sum(1 for t in pairs if t[0] == t[1] or (t[0], t[1]) in weighed or not t[2].size)
    parallel = jobs > 1 and heavy >= _PARALLEL_PAIRS
    size = max(1, min(_TASK_PAIRS, -(-len(pairs) // (4 * jobs)))) if parallel else len(pairs) or 1
    fragments: list[_Found] = []
    for part in chunks_in_order(
        _align_pairs,
        _tasks(pairs, size),
        jobs if parallel else 1,
        initializer=_init_align,
        initargs=(
            docs,
            common,
            rule,
            SentenceRule() if options.reworded else None,
            (options.line_share, options.embedded_words, options.whole_lines_words),
        ),
        describe=lambda t: f"aligning {len(t)} pairs of documents for passages",
    ):
        fragments.extend(part)
    _ALIGN.clear()
    return fragments, common, stats
