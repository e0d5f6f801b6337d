"""Short passages: copies shorter than a window (a sentence, a short document copied whole
into a longer one), found as the duplicate check finds copied fragments.

Each document keeps its tokens (hashes and character offsets, no text) and their winnowed
k-gram fingerprints with their places (``DocumentPassages.shingles``, made when its windows
are, ``simdup.algorithms.fragments``): two documents sharing a run of at least
``guaranteed_run`` tokens share one of them. Such pairs of documents (not a pair the scan
reports as near-duplicates, unless ``all_pairs``; a fingerprint held by more than
``max_repeats`` documents is boilerplate and pairs none) are aligned token by token around
their shared fingerprints (``align_near``), and each fragment the fragment rule keeps becomes
a passage unless the windows already found it (it overlaps a region of the same two documents
on both sides); only the texts of passages found are read again, for their lines. Tokens are
taken from the text as read, so code blocks and the markup inside them are content.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..algorithms.fragments import FragmentRule, Match, align_near, fingerprints
from ..records import PassagePair, PassageSpan
from ..text.tokens import CJK_WEIGHT, Tokens
from .documents import DocumentPassages

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Texts held at once at most, for the lines of the passages found.
_HELD = 512


def candidate_pairs(
    docs: Sequence[DocumentPassages], max_repeats: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, ``i < j``, of documents sharing a fingerprint held by at most
    ``max_repeats`` documents (0: any number), as rows of an array, each once; and the
    fingerprints held by more (boilerplate, ascending)."""
    sizes = [d.shingles.size for d in docs]
    none = np.empty((0, 2), dtype=np.int64)
    if sum(sizes) == 0:
        return none, np.empty(0, dtype=np.uint64)
    prints = np.concatenate([d.shingles for d in docs])
    owner = np.repeat(np.arange(len(docs), dtype=np.int64), sizes)
    order = np.lexsort((owner, prints))
    prints, owner = prints[order], owner[order]
    cuts = np.flatnonzero(np.r_[True, prints[1:] != prints[:-1], True])
    group = np.diff(cuts)
    limit = max_repeats if max_repeats else len(docs)
    common = prints[cuts[:-1][group > limit]]
    keys: list[np.ndarray] = []
    n = len(docs)
    # Pairs of groups of two in one step (most shared fingerprints are shared by two).
    two = cuts[:-1][group == 2]
    if two.size:
        keys.append(owner[two] * n + owner[two + 1])
    for size in np.unique(group[(group > 2) & (group <= limit)]).tolist():
        starts = cuts[:-1][group == size]
        members = owner[starts[:, None] + np.arange(size)]
        i, j = np.triu_indices(size, 1)
        keys.append((members[:, i] * n + members[:, j]).ravel())
    if not keys:
        return none, common
    found = np.unique(np.concatenate(keys))
    found = found[found // n != found % n]  # the same document twice in a group
    return np.stack([found // n, found % n], axis=1), common


class _Lines:
    """Where a text's lines start (1-based line numbers of character offsets)."""

    def __init__(self, text: str) -> None:
        self.breaks = np.array([m.end() for m in _LINE_BREAK.finditer(text)], dtype=np.int64)

    def line(self, offset: int) -> int:
        return int(np.searchsorted(self.breaks, offset, "right")) + 1


class _Texts:
    """Texts read again for the passages found (their lines and previews), a few at a time."""

    def __init__(self, texts: Callable[[str], str | None]) -> None:
        self.texts = texts
        self.held: dict[str, tuple[str, _Lines] | None] = {}

    def get(self, path: str) -> tuple[str, _Lines] | None:
        if path not in self.held:
            if len(self.held) >= _HELD:
                self.held.pop(next(iter(self.held)))
            text = self.texts(path)
            self.held[path] = None if text is None else (text, _Lines(text))
        return self.held[path]


def _span(
    doc: DocumentPassages,
    read: tuple[str, _Lines],
    tokens: Tokens,
    first: int,
    last: int,
    limit: int,
) -> PassageSpan:
    text, lines = read
    start, end = tokens.span(first, last)
    return PassageSpan(
        path=doc.path,
        start_line=lines.line(start),
        end_line=lines.line(end - 1),
        start_char=start,
        end_char=end,
        words=last - first + 1,
        preview=text[start:end].split("\n", 1)[0].strip()[:limit],
    )


def _similarity(a: Tokens, b: Tokens, match: Match) -> float:
    """The Jaccard similarity of the two sides' token sets."""
    x = set(a.hashes[match.first : match.last + 1].tolist())
    y = set(b.hashes[match.source_first : match.source_last + 1].tolist())
    return round(len(x & y) / len(x | y), 4) if x or y else 0.0


def _overlaps(span: PassageSpan, start: int, end: int) -> bool:
    return span.start_char < end and start < span.end_char


def short_passages(
    docs: Sequence[DocumentPassages],
    found: Iterable[PassagePair],
    rule: FragmentRule,
    texts: Callable[[str], str | None],
    *,
    max_repeats: int,
    skipped: Callable[[int, int], bool],
    max_previews: int,
) -> list[PassagePair]:
    """The passages of ``docs`` shorter than a window: fragments of pairs of documents that
    share a winnowed fingerprint (``skipped(i, j)``: a pair not to report), not already in a
    region of ``found``."""
    pairs, common = candidate_pairs(docs, max_repeats)
    known: dict[tuple[str, str], list[PassagePair]] = defaultdict(list)
    for pair in found:
        known[pair.a.path, pair.b.path].append(pair)
        known[pair.b.path, pair.a.path].append(PassagePair(pair.b, pair.a, pair.similarity))
    read = _Texts(texts)
    # Around each shared fingerprint, tokens as far as two fragments of the longest kind (all
    # CJK characters) and a gap reach: winnowing leaves no longer stretch of a fragment without
    # a shared fingerprint.
    reach = 2 * (math.ceil(rule.min_match / CJK_WEIGHT) + rule.gap) + rule.kgram
    out: list[PassagePair] = []
    for i, j in pairs.tolist():
        if skipped(i, j):
            continue
        di, dj = docs[i], docs[j]
        if di.tokens is None or dj.tokens is None:
            continue
        shared, at_i, at_j = np.intersect1d(
            di.shingles, dj.shingles, assume_unique=True, return_indices=True
        )
        plain = ~np.isin(shared, common) if common.size else np.ones(shared.size, dtype=bool)
        anchors = (di.shingle_at[at_i[plain]], dj.shingle_at[at_j[plain]])
        a, b = di.tokens, dj.tokens
        for match in align_near(a.hashes, a.weights, b.hashes, anchors, rule, reach):
            # Winnowing picks a boilerplate k-gram in only some documents where it borders
            # other text: a fragment mostly made of boilerplate fingerprints is boilerplate.
            inside = fingerprints(a.hashes[match.first : match.last + 1], rule)
            if common.size and inside.size and np.isin(inside, common).mean() > 0.5:
                continue
            a_start, a_end = a.span(match.first, match.last)
            b_start, b_end = b.span(match.source_first, match.source_last)
            if any(
                _overlaps(p.a, a_start, a_end) and _overlaps(p.b, b_start, b_end)
                for p in known[di.path, dj.path]
            ):
                continue
            text_a, text_b = read.get(di.path), read.get(dj.path)
            if text_a is None or text_b is None:
                continue
            out.append(
                PassagePair(
                    _span(di, text_a, a, match.first, match.last, max_previews),
                    _span(dj, text_b, b, match.source_first, match.source_last, max_previews),
                    _similarity(a, b, match),
                )
            )
    return out
