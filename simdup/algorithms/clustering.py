"""Group verified pairs into clusters.

``centers`` (default): greedy centre clustering. Documents are visited by number of verified
neighbours (most first), then by the caller's order key (longest text, then path); an
unassigned document becomes a centre and takes every unassigned neighbour. Every member is
then a verified near-duplicate of its representative, and a long revision history A~B~...~Z
does not chain into one cluster whose ends share little.

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


def greedy_centers(
    n: int, pairs: Sequence[tuple[int, int]], order_key: OrderKey
) -> list[tuple[int, list[int]]]:
    """``[(centre, members)]`` where members (centre included) are its verified neighbours."""
    adjacency = _neighbours(pairs)
    assigned: set[int] = set()
    clusters: list[tuple[int, list[int]]] = []
    visit = sorted(adjacency, key=lambda i: (-len(adjacency[i]), order_key[i], i))
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
