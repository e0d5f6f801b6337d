"""Passage matching, ``match_passages``: the copied fragments of pairs of documents, found as
``check`` finds them (``algorithms.fragments``), at the scale of a collection.

1. **Candidates** (``candidates``): two documents sharing a run of at least
   ``guaranteed_run`` tokens share a winnowed k-gram fingerprint
   (``DocumentPassages.shingles``); pairs sharing one held by at most ``max_repeats``
   documents, with ``MIN_ANCHOR_RUN`` tokens in a row equal on both sides around it, are
   candidates (a fingerprint held by more is boilerplate and pairs none); so are pairs
   sharing a denser fingerprint for short copies (``options.SHORT_WINDOW``). Pairs the
   scan reports as near-duplicate documents are left out unless ``all_pairs``.
2. **Fragments**: each candidate pair is aligned token by token around its shared fingerprints
   (``align_near``: exact runs, chained across at most ``gap`` differing tokens), in worker
   processes when there are many; each fragment the rule keeps is a passage, unless most of
   its fingerprints are boilerplate. With ``reworded``, sentences compared as bags of words
   too (``sentences.align_sentences``), as ``check`` does.
3. **Repeated passages** (``repeated``): the boilerplate, reported once with its places.

Only the texts of documents with a passage are read again: for the previews (none when
``max_previews`` is 0), and those of Markdown and HTML files to give their passages in the
file's characters (``texts.ReadAgain``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
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
from ..algorithms.sentences import SentenceRule, align_sentences
from ..algorithms.winnowing import kgram_hashes, winnow
from ..engines.workerpool import WorkerState, chunks_in_order
from ..options import ScanOptions
from ..records import PassagePair, PassageSpan, Place, RepeatedPassage
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
from .edges import extended, joined, reached_in_files, widened, with_written
from .options import SHORT_LINES, PassageOptions
from .repeated import repeated_passages
from .texts import ReadAgain, TextsByPath
from .twins import with_twins


@dataclass(frozen=True, slots=True)
class Passages:
    """The result of passage matching: pairs of regions and repeated passages."""

    pairs: tuple[PassagePair, ...]
    repeated: tuple[RepeatedPassage, ...]
    stats: dict[str, int]


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


def _pairs_of(
    docs: Sequence[DocumentPassages], paths: Iterable[tuple[str, str]]
) -> set[tuple[int, int]]:
    """The pairs of documents (``i < j``) of the pairs of ``paths`` among ``docs``."""
    index = {d.path: n for n, d in enumerate(docs)}
    return {
        (min(index[x], index[y]), max(index[x], index[y]))
        for x, y in paths
        if x in index and y in index
    }


def _fragments(
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


def match_passages(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    *,
    scan_options: ScanOptions | None = None,
    near_duplicates: Iterable[tuple[str, str]] = (),
    texts: TextsByPath | None = None,
    jobs: int = 1,
    every_pair: bool = False,
) -> Passages:
    """Pairs of copied passages and repeated passages among ``docs``.

    ``near_duplicates``: path pairs the scan reports as near-duplicate documents; their
    passages are left out unless ``options.all_pairs``. ``texts``: the decoded text of a
    document by path (None: no longer readable), for the previews (without it, passages have
    none). ``jobs``: processes aligning candidate pairs (the same results as one).
    ``every_pair``: every two documents are aligned, whether or not they share a run of
    tokens (``compare``: its two documents may share reworded passages only).
    ``scan_options`` is accepted for the callers' sake: passages depend on the tokens only.
    """
    del scan_options
    skip: set[tuple[int, int]] = set()
    if not options.all_pairs:
        skip = _pairs_of(docs, near_duplicates)
    # Previews need the texts read again (without them, max_previews 0, only those of
    # rendered files are, for their file offsets).
    read = ReadAgain(texts)
    limit = options.max_previews
    # Two Markdown files, or one and a plain text, are matched as written first
    # (``_as_written``), and as read where that finds no copy: a copy of a page as a browser
    # shows it, pasted into another page's Markdown, lacks the link targets its source's
    # lines hold between its words.
    written = np.array([d.as_written is not None or _plain(d) for d in docs], dtype=bool)
    markdown = np.array([d.as_written is not None for d in docs], dtype=bool)
    found_written: list[PassagePair] = []
    keep = None
    if markdown.any():
        found_written = _as_written(docs, options, skip, jobs, every_pair, read)
        index = {d.path: n for n, d in enumerate(docs)}
        size = len(docs)
        copied = np.array(
            sorted({index[p.a.path] * size + index[p.b.path] for p in found_written}),
            dtype=np.int64,
        )
        read_only = _ReadOnly(docs)

        def keep(found: Candidates, short: bool) -> np.ndarray:
            """Anchors of pairs matched as read: of a Markdown file and a file of another
            format, or, for two matched as written with no copy found so, at a fingerprint
            one of them does not hold as written."""
            i, j = found.a, found.b
            both = written[i] & written[j] & (markdown[i] | markdown[j])
            again = ~np.isin(i * size + j, copied)
            if found.at_a.size and found.at_a[0] >= 0:
                again &= read_only(i, found.at_a, short) | read_only(j, found.at_b, short)
            kept_: np.ndarray = ~both | again
            return kept_

    fragments, common, stats = _fragments(docs, options, skip, jobs, every_pair, keep)
    rule = options.fragment_rule()
    out: list[PassagePair] = []
    for i, j, first, last, s_first, s_last, similarity, how in fragments:
        span_a = docs[i].span(first, last)
        span_b = docs[j].span(s_first, s_last)
        if i != j:
            span_a, span_b = widened(docs[i], span_a, docs[j], span_b)
        span_a = replace(span_a, preview=read.preview(span_a, limit))
        span_b = replace(span_b, preview=read.preview(span_b, limit))
        out.append(PassagePair(span_a, span_b, similarity, how))
    out.sort(key=lambda p: (p.a.path, p.b.path, p.a.start_char, p.b.start_char))
    is_common = [
        among(d.shingles, common) if common.size else np.zeros(d.shingles.size, dtype=bool)
        for d in docs
    ]
    repeated = repeated_passages(
        docs, common, is_common, rule, options.max_repeats, read.preview, limit
    )
    stats.update(pairs=len(out), repeated=len(repeated), common_fingerprints=int(common.size))
    located = in_files(placed(Passages(tuple(out), repeated, stats), docs), docs, read)
    pairs = list(map(_reached(docs, read), located.pairs))
    if markdown.any():
        stats["as_written"] = len(found_written)
        pairs = with_written(pairs, found_written)
    return replace(located, pairs=tuple(joined(pairs)))


def _pair(i: int, j: int) -> Candidates:
    """Documents ``i`` and ``j`` as candidates without an anchor."""
    none = np.array([-1], dtype=np.int64)
    return Candidates(np.array([i]), np.array([j]), none, none, np.empty(0, np.uint64))


class _ReadOnly:
    """Whether places of documents are those of fingerprints their files as written do not
    hold (``DocumentPassages.read_only_at``), for many places at once."""

    def __init__(self, docs: Sequence[DocumentPassages]) -> None:
        self.size = np.int64(max((len(d) for d in docs), default=0) + 1)
        self.codes = {
            short: np.sort(
                np.concatenate(
                    [np.empty(0, np.int64)]
                    + [
                        n * self.size + (d.short_read_only_at if short else d.read_only_at)
                        for n, d in enumerate(docs)
                    ]
                )
            )
            for short in (False, True)
        }

    def __call__(self, doc: np.ndarray, at: np.ndarray, short: bool) -> np.ndarray:
        found: np.ndarray = np.isin(doc * self.size + at, self.codes[short])
        return found


def _as_written(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    skip: set[tuple[int, int]],
    jobs: int,
    every_pair: bool,
    read: ReadAgain,
) -> list[PassagePair]:
    """The copies of Markdown files' lines as written (``DocumentPassages.as_written``),
    with each other and with plain texts, in the files' lines: a copy cut inside a code block
    and pasted as Markdown (its tags then hidden), or pasted into a code block (its link
    targets then shown), renders differently in its two places, yet its lines are the same.
    Found as in plain texts, boilerplate judged among these files (two plain texts are
    matched as read, their text being their file's)."""
    keep = [n for n, d in enumerate(docs) if d.as_written is not None or _plain(d)]
    written = [docs[n].as_written or docs[n] for n in keep]
    renumbered = {old: new for new, old in enumerate(keep)}
    within = {
        (renumbered[i], renumbered[j]) for i, j in skip if i in renumbered and j in renumbered
    }
    markdown = np.array([docs[n].as_written is not None for n in keep], dtype=bool)

    def either(found: Candidates, short: bool) -> np.ndarray:
        kept_: np.ndarray = markdown[found.a] | markdown[found.b]
        return kept_

    plain_options = replace(options, within=False)
    fragments, _, _ = _fragments(written, plain_options, within, jobs, every_pair, either)
    reach = _reached(docs, read)
    out: list[PassagePair] = []
    for i, j, first, last, s_first, s_last, similarity, how in fragments:
        span_a = written[i].span(first, last)
        span_b = written[j].span(s_first, s_last)
        span_a, span_b = widened(written[i], span_a, written[j], span_b)
        span_a = as_rendered(span_a, docs[keep[i]])
        span_b = as_rendered(span_b, docs[keep[j]])
        span_a = replace(span_a, preview=read.preview(span_a, options.max_previews))
        span_b = replace(span_b, preview=read.preview(span_b, options.max_previews))
        out.append(reach(PassagePair(span_a, span_b, similarity, how)))
    return out


def _plain(doc: DocumentPassages) -> bool:
    """Whether a document's text is its file's characters (a plain text)."""
    return not doc.rendered and doc.locations is None


def as_rendered(span: PassageSpan, doc: DocumentPassages) -> PassageSpan:
    """A region of a Markdown file's lines as written (``span``), with the same lines of
    the text its reader made (``doc``: line k of it is the file's line k) as its
    ``read_start``/``read_end``, and its place; a plain text's as it is."""
    if not doc.rendered:
        return span
    lines = doc.token_lines
    lo = int(np.searchsorted(lines, span.start_line - 1, "left"))
    hi = int(np.searchsorted(lines, span.end_line - 1, "right"))
    if hi > lo:
        read_start, read_end = doc.tokens.span(lo, hi - 1)
    else:  # no word of it is shown: where its lines start
        read_start = read_end = 0 if span.start_line == 1 else int(doc.breaks[span.start_line - 2])
    place = Place("line", str(span.start_line), str(span.end_line))
    return replace(span, read_start=read_start, read_end=read_end, place=place)


def _reached(
    docs: Sequence[DocumentPassages], read: ReadAgain
) -> Callable[[PassagePair], PassagePair]:
    """A pair of regions in their files' lines with the lines next to them that are the
    same in both files (``edges.reached_in_files``), where both files' characters are at
    hand (not for the text extracted from a PDF or a Word file)."""
    kind = {d.path: (d.rendered, d.locations is None) for d in docs}

    def reach(pair: PassagePair) -> PassagePair:
        if pair.a.path == pair.b.path:
            return pair
        lines = []
        for span in (pair.a, pair.b):
            rendered, own_lines = kind.get(span.path, (False, False))
            found = read.file_lines(span.path, rendered) if rendered or own_lines else None
            if found is None:
                return pair
            lines.append(found)
        whole = kind.get(pair.a.path, (False,))[0] or kind.get(pair.b.path, (False,))[0]
        a, b = reached_in_files(pair.a, lines[0], pair.b, lines[1], whole)
        return replace(pair, a=a, b=b)

    return reach


def placed(found: Passages, docs: Sequence[DocumentPassages]) -> Passages:
    """``found`` with each region's place in the parts its reader found (the pages of a PDF,
    the paragraphs of a Word file: ``PassageSpan.place``), from its characters."""
    where = {d.path: d.locations for d in docs if d.locations is not None}
    if not where:
        return found

    def place(span: PassageSpan) -> PassageSpan:
        locations = where.get(span.path)
        if locations is None:
            return span
        return replace(span, place=locations.place(*span.as_read()))

    pairs = tuple(replace(p, a=place(p.a), b=place(p.b)) for p in found.pairs)
    repeated = tuple(
        RepeatedPassage(r.count, tuple(map(place, r.occurrences))) for r in found.repeated
    )
    return Passages(pairs, repeated, found.stats)


def in_files(found: Passages, docs: Sequence[DocumentPassages], read: ReadAgain) -> Passages:
    """``found`` with the regions of Markdown and HTML files in the files' characters and
    lines (``ReadAgain.in_file``; placed first: places are found in the text as read)."""
    rendered = {d.path for d in docs if d.rendered}
    if not rendered:
        return found
    spans = [s for p in found.pairs for s in (p.a, p.b)]
    spans += [s for r in found.repeated for s in r.occurrences]
    located = read.in_files(s for s in spans if s.path in rendered)

    def locate(span: PassageSpan) -> PassageSpan:
        return located.get(span, span)

    pairs = tuple(replace(p, a=locate(p.a), b=locate(p.b)) for p in found.pairs)
    repeated = tuple(
        RepeatedPassage(r.count, tuple(map(locate, r.occurrences))) for r in found.repeated
    )
    return Passages(pairs, repeated, found.stats)
