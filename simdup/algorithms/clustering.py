"""Group verified pairs into clusters.

``centers`` (default): greedy centre clustering. Documents are visited by how many verified
pairs their cluster would hold if they were its centre (their own pairs and the pairs among
their neighbours: most first), then by number of neighbours, then by the caller's order key
(longest text, then path); an unassigned document becomes a centre and takes every unassigned
neighbour. Every member is then a verified near-duplicate of its representative, and a long
revision history A~B~...~Z does not chain into one cluster whose ends share little.

A cluster claims that every two of its members are near-duplicates, so the centre whose
neighbours are near-duplicates of each other makes the better cluster: a document that bridges
two sub-families has more neighbours than any document of either, but fewer pairs among them
(visiting by neighbours alone took the bridge and left part of the larger family out).

``components``: connected components of the pair graph (transitive; may chain).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

METHODS = ("centers", "components")


class OrderKey(Protocol):
    """The sort key of document ``i`` (asked for the documents in a pair only)."""

    def __getitem__(self, i: int, /) -> Any: ...


def _neighbours(pairs: Sequence[tuple[int, int]]) -> dict[int, list[int]]:
    """The neighbours of each document in a pair (a list per document of a million, most
    of them empty, cost 64 MB at the scan's peak)."""
    adjacency: dict[int, list[int]] = {}
    for a, b in pairs:
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)
    return adjacency


# Set-intersection steps allowed for counting the pairs among the neighbours in one connected
# component (the sum over its pairs of the smaller degree): a component past it (thousands of
# mutual near-duplicates) is visited by number of neighbours alone, as it was before. Decided
# per component, so a component clusters the same whatever else the scan holds (Dask clusters
# one component at a time).
NEIGHBOUR_PAIRS_WORK = 20_000_000


def _components(adjacency: dict[int, list[int]]) -> list[list[int]]:
    seen: set[int] = set()
    components = []
    for start in adjacency:
        if start in seen:
            continue
        seen.add(start)
        stack, component = [start], [start]
        while stack:
            for x in adjacency[stack.pop()]:
                if x not in seen:
                    seen.add(x)
                    stack.append(x)
                    component.append(x)
        components.append(component)
    return components


def pairs_among_neighbours(adjacency: dict[int, list[int]]) -> dict[int, int]:
    """The number of verified pairs between two neighbours of each document (its triangles),
    for the documents of components within ``NEIGHBOUR_PAIRS_WORK``; others are left out."""
    counts: dict[int, int] = {}
    for component in _components(adjacency):
        size, ends = len(component), sum(len(adjacency[a]) for a in component)
        if ends == size * (size - 1):
            # Every two documents paired (a pair, mutual copies): the same count for each,
            # which adds nothing to the order by number of neighbours.
            continue
        work = sum(
            min(len(adjacency[a]), len(adjacency[b])) for a in component for b in adjacency[a]
        )
        if work > 2 * NEIGHBOUR_PAIRS_WORK:  # each pair seen from both ends
            continue
        # Sets for this component only: a set per document of a million is memory at the peak.
        near = {a: set(adjacency[a]) for a in component}
        twice = dict.fromkeys(component, 0)
        for a in component:
            near_a = near[a]
            for b in near_a:
                if a < b:
                    shared = len(near_a & near[b])
                    twice[a] += shared
                    twice[b] += shared
        counts.update((a, t // 2) for a, t in twice.items())
    return counts


def greedy_centers(
    n: int, pairs: Sequence[tuple[int, int]], order_key: OrderKey
) -> list[tuple[int, list[int]]]:
    """``[(centre, members)]`` where members (centre included) are its verified neighbours."""
    adjacency = _neighbours(pairs)
    among = pairs_among_neighbours(adjacency)
    assigned: set[int] = set()
    clusters: list[tuple[int, list[int]]] = []

    def visit_key(i: int) -> tuple[int, int, Any, int]:
        degree = len(adjacency[i])
        return -(degree + among.get(i, 0)), -degree, order_key[i], i

    visit = sorted(adjacency, key=visit_key)
    for centre in visit:
        if centre in assigned:
            continue
        members = [centre] + [m for m in adjacency[centre] if m not in assigned]
        if len(members) < 2:
            continue
        assigned.update(members)
        clusters.append((centre, members))
    return clusters


def connected_components(
    n: int, pairs: Sequence[tuple[int, int]], order_key: OrderKey
) -> list[tuple[int, list[int]]]:
    """``[(representative, members)]``; the representative has the most neighbours."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for a, b in pairs:
        for x in (a, b):
            groups.setdefault(find(x), [])
    for x in range(n):
        root = find(x)
        if root in groups:
            groups[root].append(x)
    adjacency = _neighbours(pairs)
    degree = {i: len(v) for i, v in adjacency.items()}
    out = []
    for members in groups.values():
        rep = min(members, key=lambda i: (-degree[i], order_key[i]))
        out.append((rep, members))
    return out


def cluster(
    n: int, pairs: Sequence[tuple[int, int]], order_key: OrderKey, method: str = "centers"
) -> list[tuple[int, list[int]]]:
    if method == "centers":
        return greedy_centers(n, pairs, order_key)
    if method == "components":
        return connected_components(n, pairs, order_key)
    raise ValueError(f"unknown cluster method {method!r}")


def max_pairwise_distance(fingerprints: Sequence[int]) -> int:
    """Largest Hamming distance between any two of the fingerprints (distinct ones compared)."""
    unique = np.unique(np.array(fingerprints, dtype=np.uint64))
    best = 0
    for start in range(0, unique.size, 2048):
        block = unique[start : start + 2048]
        d = np.bitwise_count(block[:, None] ^ unique[None, :])
        best = max(best, int(d.max()))
    return best
