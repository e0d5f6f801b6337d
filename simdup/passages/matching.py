"""Passage matching, ``match_passages``: candidate windows from the exact index, judged by the
one near-duplicate rule in one call, windows matched in more than ``max_repeats`` documents
gathered into repeated passages, and the other matches made into regions (``regions``) whose
ends are set line by line (``edges``); on large inputs, in worker processes (``parallel``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..algorithms.index import collapse
from ..options import ScanOptions
from ..records import PassagePair, PassageSpan, RepeatedPassage
from .documents import DocumentPassages, PassageProcessor
from .edges import EdgeTexts, refine_all
from .options import PassageOptions
from .parallel import finish_parallel, near_pairs
from .regions import finish_all, merged_regions, repeated_passages, sorted_once
from .short import short_passages
from .windows import Windows, components, cross, within


@dataclass(frozen=True, slots=True)
class Passages:
    """The result of passage matching: pairs of regions and repeated passages."""

    pairs: tuple[PassagePair, ...]
    repeated: tuple[RepeatedPassage, ...]
    stats: dict[str, int]


# Largest table of skipped pairs of documents (bytes: one per pair of documents).
_SKIP_TABLE = 1 << 23
# Fewer regions (pairs to refine) than this: one process (the workers of ``parallel`` would
# cost more to start than they save).
_PARALLEL_REFINE = 256


def match_passages(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    *,
    scan_options: ScanOptions | None = None,
    near_duplicates: Iterable[tuple[str, str]] = (),
    texts: Callable[[str], str | None] | None = None,
    jobs: int = 1,
) -> Passages:
    """Pairs of duplicated regions and repeated passages among ``docs``.

    ``near_duplicates``: path pairs the scan reports as near-duplicate documents; their
    passages are left out unless ``options.all_pairs``. ``texts``: the decoded text of a
    document by path (None: no longer readable), to set the regions' ends line by line;
    without it they stay on block boundaries (``texts`` is called in worker processes when
    ``jobs`` > 1). ``jobs``: processes for the index join and the line-level edges of large
    inputs (the same results as one).
    """
    windows = Windows(docs)
    verifier = options.verifier(scan_options)
    n_docs = len(docs)
    stats = {"blocks": sum(len(d) for d in docs), "windows": len(windows)}
    empty = Passages((), (), {**stats, "candidates": 0, "matches": 0, "pairs": 0, "repeated": 0})
    if len(windows) < 2:
        return empty
    unique, members, bounds = collapse(windows.fps)
    starts, sizes = bounds[:-1], np.diff(bounds)
    ua, ub, ud = near_pairs(unique, options.radius, jobs)
    skip = np.empty(0, dtype=np.int64)
    if not options.all_pairs:
        index = {d.path: n for n, d in enumerate(docs)}
        keys = [
            min(index[a], index[b]) * n_docs + max(index[a], index[b])
            for a, b in near_duplicates
            if a in index and b in index
        ]
        skip = np.unique(np.array(keys, dtype=np.int64))

    member_doc = windows.doc[members]
    # The skipped pairs of documents as a table where it is small, else sorted.
    skipped: np.ndarray | None = None
    if skip.size and n_docs * n_docs <= _SKIP_TABLE:
        skipped = np.zeros(n_docs * n_docs, dtype=bool)
        skipped[skip] = True

    def wanted(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Which window pairs (positions in ``members``) may be reported."""
        dx, dy = member_doc[x], member_doc[y]
        ok: np.ndarray = dx != dy
        if options.within:
            wx, wy = members[x], members[y]
            apart = (windows.last[wx] < windows.first[wy]) | (windows.last[wy] < windows.first[wx])
            ok |= (dx == dy) & apart
        if skip.size:  # not a pair of near-duplicate documents
            key = np.minimum(dx, dy) * n_docs + np.maximum(dx, dy)
            if skipped is not None:
                ok &= ~skipped[key]
            else:
                place = np.minimum(np.searchsorted(skip, key), skip.size - 1)
                ok &= skip[place] != key
        return ok

    # Candidates: distinct fingerprints within the radius, one judgement per pair of them
    # (by their first windows), and only where some pair of their windows may be reported.
    cx, cy = cross(starts, sizes, ua, ub)
    keep = wanted(cx, cy)
    edge_of = np.repeat(np.arange(ua.size), sizes[ua] * sizes[ub])
    useful = np.unique(edge_of[keep])
    stats["candidates"] = int(useful.size)
    good = np.zeros(ua.size, dtype=bool)
    head = members[starts]  # the first window of each fingerprint
    useful = useful[windows.long_enough(head[ua[useful]], head[ub[useful]], verifier)]
    # Windows sharing a fingerprint go through the same verifier, each against its group's
    # first window at distance 0 (``sound``, by position in ``members``); the verifier's first
    # rule (the same text) is checked here on the windows' text keys, and its length rule on
    # their words, so only windows whose text differs and whose length passes are judged,
    # one per distinct text of a group. A window that fails is left out of its group's pairs.
    group = np.repeat(np.arange(sizes.size), sizes)
    leader = head[group]
    same = (windows.key[members] == windows.key[leader]) & (
        windows.words[members] == windows.words[leader]
    )
    sound = same | windows.long_enough(members, leader, verifier)
    ask = np.flatnonzero(~same & sound)
    order = np.lexsort((ask, windows.words[members[ask]], windows.key[members[ask]], group[ask]))
    ask = ask[order]
    distinct = np.ones(ask.size, dtype=bool)
    if ask.size > 1:
        g, w = group[ask], members[ask]
        distinct[1:] = (
            (g[1:] != g[:-1])
            | (windows.key[w[1:]] != windows.key[w[:-1]])
            | (windows.words[w[1:]] != windows.words[w[:-1]])
        )
    text_of = np.cumsum(distinct) - 1  # which distinct text of its group each asked one is
    judged = ask[distinct]
    stats["same_fingerprint_judged"] = int(judged.size)
    # One verifier call for all: the candidates' first windows, then each group's first
    # window with one window of each of its other texts.
    left = np.concatenate((head[ua[useful]], leader[judged]))
    right = np.concatenate((head[ub[useful]], members[judged]))
    distance = np.concatenate((ud[useful].astype(np.int64), np.zeros(judged.size, np.int64)))
    chosen = np.unique(np.concatenate((left, right)))
    # The texts of two windows are the same when their keys and words are (never so here:
    # a same-text pair shares its fingerprint and its group's key; checked all the same).
    near = np.zeros(left.size, dtype=bool)
    at, _ = verifier.near(
        windows.words[chosen],
        windows.sketches(chosen),
        np.searchsorted(chosen, left),
        np.searchsorted(chosen, right),
        distance,
        (windows.key[left] == windows.key[right]) & (windows.words[left] == windows.words[right]),
        short_texts=False,  # windows: word sets whatever their size
    )
    near[at] = True
    good = np.zeros(ua.size, dtype=bool)
    good[useful] = near[: useful.size]
    va, vb = ua[good], ub[good]
    sound[ask] = near[useful.size :][text_of]
    group_sound = (
        np.add.reduceat(sound.astype(np.int64), starts) if starts.size else np.zeros(0, np.int64)
    )
    # A component spanning more than max_repeats documents is boilerplate.
    component = components(unique.size, va, vb)
    window_component = np.empty(len(windows), dtype=np.int64)
    window_component[members] = np.repeat(component, sizes)
    matched = np.zeros(unique.size, dtype=bool)
    matched[(sizes > 1) & (group_sound > 1)] = True
    matched[va] = True
    matched[vb] = True
    matched_windows = members[np.repeat(matched, sizes) & sound]
    comp_doc = np.unique(window_component[matched_windows] * n_docs + windows.doc[matched_windows])
    doc_count = np.bincount(comp_doc // n_docs, minlength=unique.size)
    repeated_component = (
        doc_count > options.max_repeats if options.max_repeats else np.zeros(unique.size, bool)
    )
    stats["matches"] = int(good.sum()) + int((sizes > 1).sum())
    repeated, boiler = repeated_passages(
        windows, window_component, matched_windows, repeated_component
    )

    sx, sy = within(starts, sizes)
    px = np.concatenate((cx[keep & good[edge_of]], sx))
    py = np.concatenate((cy[keep & good[edge_of]], sy))
    ok = wanted(px, py) & sound[px] & sound[py] if px.size else np.zeros(0, dtype=bool)
    wx, wy = members[px[ok]], members[py[ok]]
    not_boiler = ~repeated_component[window_component[wx]]
    wx, wy = wx[not_boiler], wy[not_boiler]
    regions = merged_regions(windows, wx, wy)
    params = (scan_options or ScanOptions()).features
    if texts is not None and jobs > 1 and len(regions) >= _PARALLEL_REFINE:
        pairs = finish_parallel(docs, regions, boiler, texts, params, options, jobs)
    else:
        pairs = sorted_once(finish_all(docs, regions, options, boiler))
        if texts is not None and pairs:
            held = EdgeTexts(texts, PassageProcessor(params, options))
            pairs = refine_all(pairs, held, options)
    rule = options.fragment_rule()
    if rule is not None and texts is not None:
        skip_set = set(skip.tolist())

        def skipped_pair(i: int, j: int) -> bool:
            return bool(skip_set) and min(i, j) * n_docs + max(i, j) in skip_set

        short = short_passages(
            docs,
            pairs,
            rule,
            texts,
            max_repeats=options.max_repeats,
            skipped=skipped_pair,
            max_previews=options.max_previews,
        )
        stats["short_pairs"] = len(short)
        pairs = sorted_once([*pairs, *short])
    stats["pairs"] = len(pairs)
    stats["repeated"] = len(repeated)
    return placed(Passages(tuple(pairs), repeated, stats), docs)


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
        return replace(span, place=locations.place(span.start_char, span.end_char))

    pairs = tuple(PassagePair(place(p.a), place(p.b), p.similarity) for p in found.pairs)
    repeated = tuple(
        RepeatedPassage(r.count, tuple(map(place, r.occurrences))) for r in found.repeated
    )
    return Passages(pairs, repeated, found.stats)
