"""The index join and the finishing of regions in worker processes (large inputs only).

``near_pairs`` shares the tables of the exact index among processes; ``finish_parallel`` trims
regions and refines their edges in tasks that share as few texts as may be. The workers hold
what they need from the parent (``_JOIN``, ``_FINISH``, set by their initializers), and send
back plain values; the results are those of one process.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

from ..algorithms.index import Layout, choose_layout, table_pairs, unique_near_pairs
from ..engines.workerpool import WorkerPool, WorkerState
from ..params import FeatureParams
from ..records import PassagePair, PassageSpan
from .documents import DocumentPassages, PassageProcessor
from .edges import EdgeTexts, refine_pairs
from .options import PassageOptions
from .regions import Region, finish_region, sorted_once

# Fewer distinct window fingerprints than this: one process (the workers would cost more to
# start than they save). Fewer regions to finish: ``matching._PARALLEL_REFINE``.
_PARALLEL_JOIN = 1 << 14

_JOIN: WorkerState[tuple[np.ndarray, Layout, int]] = WorkerState("the passage index join")
# What the workers finishing regions hold (from the parent, through fork): see _init_finish.
_FINISH: WorkerState[tuple[EdgeTexts, PassageOptions, Sequence[DocumentPassages], list[Region],
                           dict[int, set[int]]]] = WorkerState("finishing passages")  # fmt: skip


def _init_join(unique: np.ndarray, layout: Layout, radius: int) -> None:
    _JOIN.set((unique, layout, radius))


def _join_tables(tables: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    unique, layout, radius = _JOIN.get()
    parts = [table_pairs(unique, layout, table, radius) for table in tables]
    a, b, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    return a, b, d


def near_pairs(unique: np.ndarray, radius: int, jobs: int) -> tuple[np.ndarray, ...]:
    """``unique_near_pairs(unique, radius)``, its tables shared among ``jobs`` processes."""
    layout = choose_layout(unique.size, radius)
    tables = list(combinations(range(layout.blocks), layout.key_blocks))
    if jobs < 2 or unique.size < _PARALLEL_JOIN or len(tables) < 4 * jobs:
        return unique_near_pairs(unique, radius, layout)
    # Every table emits its own pairs (each pair exactly one table's), so tables split freely;
    # interleaved, so that each task holds tables of every kind.
    tasks = [tables[k :: 4 * jobs] for k in range(4 * jobs)]
    with WorkerPool(
        _join_tables,
        jobs,
        initializer=_init_join,
        initargs=(unique, layout, radius),
        describe=lambda t: f"the passage index join ({len(t)} tables)",
    ) as pool:
        parts = [found for _, found in pool.results(tasks)]
    a, b, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    order = np.lexsort((b, a))
    return a[order], b[order], d[order]


def _init_finish(
    texts: Callable[[str], str | None],
    params: FeatureParams,
    options: PassageOptions,
    docs: Sequence[DocumentPassages],
    regions: list[Region],
    boiler: dict[int, set[int]],
) -> None:
    edges = EdgeTexts(texts, PassageProcessor(params, options))
    _FINISH.set((edges, options, docs, regions, boiler))


# A region a worker has finished and refined, as it sends it back: its index, each side's
# values after the path (``_span_values``), and the similarity. Plain values: a pickled
# dataclass costs ~10 times as much to send and to read back.
_SpanValues = tuple[int, int, int, int, int, str]
_Finished = tuple[int, _SpanValues, _SpanValues, float]


def _span_values(span: PassageSpan) -> _SpanValues:
    return span.start_line, span.end_line, span.start_char, span.end_char, span.words, span.preview


def _finish_batch(chosen: Sequence[int]) -> list[_Finished]:
    """The regions (by index; the workers have them from the parent) trimmed (``_finish``) and
    their edges refined (``refine_edges``), as ``_Finished``; those trimmed away are left out."""
    texts, options, docs, regions, boiler = _FINISH.get()  # held from batch to batch
    found = [(k, finish_region(docs, regions[k], options, boiler)) for k in chosen]
    kept = [(k, pair) for k, pair in found if pair is not None]
    refined = refine_pairs([pair for _, pair in kept], texts, options)
    return [
        (k, _span_values(p.a), _span_values(p.b), p.similarity)
        for (k, _), p in zip(kept, refined, strict=True)
    ]


# Tasks per worker process refining edges: the fewer, the fewer texts two processes both read
# (a large group of connected texts is cut in as many runs); the more, the more evenly the
# processes share the work when the costs are misjudged. One was fastest on the benchmark set
# (tasks of about one cost, below, share the work evenly enough).
_REFINE_TASKS = 1
# What reading a text again (decoding it, tokenizing its regions) costs, in pairs refined
# (measured on the benchmark set: ~0.5 ms against ~0.05 ms).
_TEXT_COST = 10


def _refine_tasks(pairs: list[tuple[str, str]], count: int) -> list[list[int]]:
    """``pairs`` of documents (paths; their indexes) as ``count`` tasks (fewer if there are few
    pairs) of about one cost, sharing as few texts as may be, most costly first. Reading a
    text (and tokenizing it) costs more than aligning a pair, so the pairs of texts that pairs
    connect (a component) stay in one task, where a whole text's pairs are refined after one
    read; a component costlier than a task is cut into runs (in order, so that each text of
    side A is still read about once). The pieces then go, costliest first, each to the task
    that costs least so far."""
    parent: dict[str, str] = {}

    def root(path: str) -> str:
        while (up := parent.setdefault(path, path)) != path:
            parent[path] = parent.setdefault(up, up)  # halve the path as it is walked
            path = up
        return path

    for a, b in pairs:
        parent[root(a)] = root(b)
    components: dict[str, list[int]] = defaultdict(list)
    for k, (a, _) in enumerate(pairs):
        components[root(a)].append(k)

    def cost(run: list[int]) -> int:
        paths = {pairs[k][0] for k in run} | {pairs[k][1] for k in run}
        return len(run) + _TEXT_COST * len(paths)

    costs = [(cost(c), c) for c in components.values()]
    limit = -(-sum(c for c, _ in costs) // count)
    pieces: list[tuple[int, list[int]]] = []
    for whole, component in costs:
        size = -(-len(component) // -(-whole // limit))
        pieces.extend(
            (cost(run), run)
            for run in (component[at : at + size] for at in range(0, len(component), size))
        )
    pieces.sort(key=lambda piece: piece[0], reverse=True)
    tasks: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for spent, run in pieces:
        least = loads.index(min(loads))
        tasks[least].extend(run)
        loads[least] += spent
    order = sorted(range(count), key=loads.__getitem__, reverse=True)
    return [tasks[k] for k in order if tasks[k]]


def finish_parallel(
    docs: Sequence[DocumentPassages],
    regions: list[Region],
    boiler: dict[int, set[int]],
    texts: Callable[[str], str | None],
    params: FeatureParams,
    options: PassageOptions,
    jobs: int,
) -> list[PassagePair]:
    """``finish_all`` then ``refine_all``, in ``jobs`` processes: the regions in tasks of
    ``_refine_tasks`` (a region is refined where it is trimmed). The same pairs: refining is a
    function of the pair, so regions that trim to the same pair refine to the same pair, and
    are reported once."""
    ends = [(docs[r[0]].path, docs[r[1]].path) for r in regions]
    tasks = _refine_tasks(ends, _REFINE_TASKS * jobs)
    # Dictionaries loaded once, before fork; the workers have the documents and regions from
    # the fork too (tasks are indexes).
    _init_finish(texts, params, options, docs, regions, boiler)
    out: list[PassagePair] = []
    try:
        with WorkerPool(
            _finish_batch,
            jobs,
            initializer=_init_finish,
            initargs=(texts, params, options, docs, regions, boiler),
            describe=lambda t: f"the edges of {len(t)} passages from {ends[t[0]][0]!r}",
        ) as pool:
            for _, found in pool.results(tasks):
                for k, a, b, similarity in found:
                    path_a, path_b = ends[k]
                    out.append(
                        PassagePair(PassageSpan(path_a, *a), PassageSpan(path_b, *b), similarity)
                    )
    finally:
        _FINISH.clear()  # the documents and texts are not the parent's to keep
    return sorted_once(out)
