"""A copy's other places: text one document holds twice or more (a table shown again further
down a page, a code block repeated), copied once into another. The copy is as much a copy of
each place, and which one it was taken from cannot be told from the text, so each is reported:
``twins``. Matching finds a copy at one of them only, the one its shared fingerprints point to
(a fingerprint's first place in each document)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..algorithms.fragments import Match
from .documents import DocumentPassages


def with_twins(
    found: list[Match],
    a: DocumentPassages,
    kgrams_a: np.ndarray,
    b: DocumentPassages,
    kgrams_b: np.ndarray,
    most: int,
) -> list[Match]:
    """``found`` (copies between ``a`` and ``b``) with their ``twins`` that overlap none of
    them, or each other, on both sides."""
    out = list(found)
    for m in found:
        for t in twins(m, a, kgrams_a, b, kgrams_b, most):
            if not any(_overlap(t, o) for o in out):
                out.append(t)
    return out


def _overlap(x: Match, y: Match) -> bool:
    return (
        x.first <= y.last
        and y.first <= x.last
        and x.source_first <= y.source_last
        and y.source_first <= x.source_last
    )


def twins(
    m: Match,
    a: DocumentPassages,
    kgrams_a: np.ndarray,
    b: DocumentPassages,
    kgrams_b: np.ndarray,
    most: int,
) -> list[Match]:
    """Copy ``m`` at the other places where one side holds its lines again: each place of
    ``a`` (its k-grams' hashes ``kgrams_a``) paired with ``m``'s region of ``b``, and each of
    ``b`` with its region of ``a``. A text held more than ``most`` times in a document is its
    own boilerplate there: none of its places."""
    out = [
        replace(m, first=p, last=p + m.last - m.first)
        for p in _places(a, kgrams_a, m.first, m.last, most)
    ]
    out += [
        replace(m, source_first=p, source_last=p + m.source_last - m.source_first)
        for p in _places(b, kgrams_b, m.source_first, m.source_last, most)
    ]
    return out


def _places(
    doc: DocumentPassages, kgrams: np.ndarray, first: int, last: int, most: int
) -> list[int]:
    """Where else ``doc`` holds tokens ``first..last`` on lines of the same tokens as theirs
    (the same lines again, not the words inside other lines), not overlapping them or each
    other (none when more than ``most`` places)."""
    tokens = doc.tokens.hashes
    size = last - first + 1
    if first >= kgrams.size or size < tokens.size - kgrams.size + 1:
        return []
    starts = np.flatnonzero(kgrams == kgrams[first])
    if starts.size > most + 1:
        return []
    lo, hi = doc.line_range(first, last)
    lines = tokens[lo:hi]
    found: list[int] = []
    end = -1
    for p in starts.tolist():
        if first - size < p <= last or p <= end or p + size > tokens.size:
            continue
        at, to = doc.line_range(p, p + size - 1)
        if at - p == lo - first and np.array_equal(tokens[at:to], lines):
            found.append(p)
            end = p + size - 1
    return found
