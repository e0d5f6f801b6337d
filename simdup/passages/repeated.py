"""Repeated passages: text found in more than ``max_repeats`` documents (a licence footer, a
newsletter's standing lines), reported once with its places rather than as pairs.

Each document's boilerplate fingerprints (winnowed k-grams held by more than ``max_repeats``
documents) are grouped into runs: consecutive ones no further apart than a winnowing window
and a k-gram (inside a shared stretch, winnowing leaves no longer stretch without one). A run
that weighs at least a passage's words is an occurrence; occurrences sharing a fingerprint are
one repeated passage, reported when it is in more than ``max_repeats`` documents. Its ends are
those of its first and last fingerprints: within a window of the text's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..algorithms.fragments import FragmentRule
from ..records import PassageSpan, RepeatedPassage
from .documents import DocumentPassages


def repeated_passages(
    docs: Sequence[DocumentPassages],
    common: np.ndarray,
    is_common: Sequence[np.ndarray],
    rule: FragmentRule,
    max_repeats: int,
    preview: Callable[[PassageSpan, int], str],
    limit: int,
) -> tuple[RepeatedPassage, ...]:
    """The repeated passages of ``docs`` (``common``: the boilerplate fingerprints,
    ``is_common[d]``: which of document d's fingerprints they are), most frequent first."""
    if not common.size or not max_repeats:
        return ()
    apart = rule.window + rule.kgram
    run_doc: list[int] = []
    run_first: list[int] = []
    run_last: list[int] = []
    member_run: list[np.ndarray] = []
    member_print: list[np.ndarray] = []
    for n, doc in enumerate(docs):
        mask = is_common[n]
        if not mask.any():
            continue
        at, prints = doc.shingle_at[mask], doc.shingles[mask]
        order = np.argsort(at, kind="stable")
        at, prints = at[order], prints[order]
        new = np.r_[True, np.diff(at) > apart]
        run = np.cumsum(new) - 1
        starts = at[new]
        ends = np.maximum.reduceat(at, np.flatnonzero(new)) + rule.kgram - 1
        weights = doc.tokens.weights
        cumulative = np.r_[0.0, np.cumsum(weights)]
        heavy = cumulative[ends + 1] - cumulative[starts] >= rule.min_match - 1e-9
        base = len(run_doc)
        numbers = np.full(heavy.size, -1, dtype=np.int64)
        numbers[heavy] = base + np.arange(int(heavy.sum()))
        for s, e in zip(starts[heavy].tolist(), ends[heavy].tolist(), strict=True):
            run_doc.append(n)
            run_first.append(s)
            run_last.append(e)
        kept = numbers[run] >= 0
        member_run.append(numbers[run][kept])
        member_print.append(prints[kept])
    if not run_doc:
        return ()
    runs = np.concatenate(member_run)
    prints = np.concatenate(member_print)
    # Runs sharing a fingerprint are one passage: each joined to the first run of its print.
    order = np.lexsort((runs, prints))
    runs, prints = runs[order], prints[order]
    head = np.r_[True, prints[1:] != prints[:-1]]
    leader = runs[np.flatnonzero(head)[np.cumsum(head) - 1]]
    parent = list(range(len(run_doc)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(runs.tolist(), leader.tolist(), strict=True):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for r in range(len(run_doc)):
        groups.setdefault(root(r), []).append(r)
    out: list[RepeatedPassage] = []
    for members in groups.values():
        count = len({run_doc[r] for r in members})
        if count <= max_repeats:
            continue
        spans = [docs[run_doc[r]].span(run_first[r], run_last[r]) for r in members]
        spans.sort(key=lambda s: (s.path, s.start_char))
        occurrences = tuple(replace(s, preview=preview(s, limit)) for s in spans)
        out.append(RepeatedPassage(count, occurrences))
    out.sort(key=lambda r: (-r.count, r.occurrences[0].path, r.occurrences[0].start_line))
    return tuple(out)
