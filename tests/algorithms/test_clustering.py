"""simdup.algorithms.clustering: greedy centres (no chaining), connected components, spread."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.algorithms import clustering
from simdup.algorithms.clustering import (
    cluster,
    connected_components,
    greedy_centers,
    max_pairwise_distance,
    pairs_among_neighbours,
)
from tests.strategies import fingerprints

PATH_GRAPH = [(0, 1), (1, 2), (2, 3), (3, 4)]  # A-B-C-D-E
NAMES = ["A", "B", "C", "D", "E"]


def as_sets(clusters: list[tuple[int, list[int]]]) -> set[tuple[int, frozenset[int]]]:
    return {(rep, frozenset(members)) for rep, members in clusters}


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], list[str]]:
    n = draw(st.integers(0, 14))
    edges = list(combinations(range(n), 2))
    pairs = draw(st.lists(st.sampled_from(edges), unique=True, max_size=30)) if edges else []
    keys = draw(st.lists(st.text(min_size=1, max_size=3), min_size=n, max_size=n, unique=True))
    return n, pairs, keys


def test_path_graph_does_not_chain_with_centres() -> None:
    """On A-B-C-D-E, centres give {B: A, C} and {D: E}; A and E never share a cluster."""
    got = greedy_centers(5, PATH_GRAPH, NAMES)
    assert as_sets(got) == {(1, frozenset({0, 1, 2})), (3, frozenset({3, 4}))}
    assert got[0][0] == 1  # the centre comes first in its member list
    assert got[0][1][0] == 1


def test_path_graph_chains_with_components() -> None:
    """Connected components put the whole path in one cluster."""
    got = connected_components(5, PATH_GRAPH, NAMES)
    assert len(got) == 1
    rep, members = got[0]
    assert sorted(members) == [0, 1, 2, 3, 4]
    assert rep == 1  # most neighbours (B, C, D have 2), then smallest key


def test_cluster_dispatches_by_method() -> None:
    """cluster(method=...) picks the algorithm; unknown methods are a ValueError."""
    assert as_sets(cluster(5, PATH_GRAPH, NAMES, "centers")) == as_sets(
        greedy_centers(5, PATH_GRAPH, NAMES)
    )
    assert as_sets(cluster(5, PATH_GRAPH, NAMES, "components")) == as_sets(
        connected_components(5, PATH_GRAPH, NAMES)
    )
    with pytest.raises(ValueError):
        cluster(5, PATH_GRAPH, NAMES, "kmeans")


def test_order_key_breaks_ties_between_equally_connected_centres() -> None:
    """A pair: the document with the smaller order key is the centre."""
    assert greedy_centers(2, [(0, 1)], ["b", "a"]) == [(1, [1, 0])]
    assert greedy_centers(2, [(0, 1)], [(-10, "b"), (-5, "a")])[0][0] == 0


def test_star_centre_takes_all_its_neighbours() -> None:
    """The most connected document becomes the centre of its neighbours."""
    got = greedy_centers(4, [(0, 3), (1, 3), (2, 3)], ["a", "b", "c", "d"])
    assert as_sets(got) == {(3, frozenset({0, 1, 2, 3}))}


def bridged_family(offset: int = 0) -> list[tuple[int, int]]:
    """A revision history's shape: a family 0-3 of mutual near-duplicates; 4 is paired with
    all of it and with a small family 5-7 it bridges to; 8 and 9 are paired with each other
    and with all of 0-3 but not with 4. 4 has the most neighbours (7 against 6)."""
    core, sub, late = [0, 1, 2, 3], [5, 6, 7], [8, 9]
    edges = list(combinations(core, 2)) + list(combinations(sub, 2)) + [(8, 9)]
    edges += [(4, c) for c in core + sub] + [(c, x) for c in core for x in late]
    return [(a + offset, b + offset) for a, b in edges]


def test_centre_is_the_document_whose_neighbours_are_paired_with_each_other() -> None:
    """The bridge (4) has the most neighbours, but fewer pairs among them (6 + 3) than a
    member of the family (13): the family's member is the centre, so 8 and 9 join the family
    and the small family is a cluster of its own, instead of 8 and 9 left alone."""
    keys = [str(i) for i in range(10)]
    got = as_sets(greedy_centers(10, bridged_family(), keys))
    assert got == {(0, frozenset({0, 1, 2, 3, 4, 8, 9})), (5, frozenset({5, 6, 7}))}


def test_pairs_among_neighbours_of_the_bridged_family() -> None:
    """Each document's count of pairs between two of its neighbours (its triangles)."""
    counts = pairs_among_neighbours(clustering._neighbours(bridged_family()))
    assert counts[4] == 6 + 3
    assert counts[0] == 3 + 3 + 3 + 3 + 1
    assert counts[5] == 1 + 2
    assert counts[8] == 6 + 4


@given(graph=graphs())
def test_pairs_among_neighbours_equals_brute_force(
    graph: tuple[int, list[tuple[int, int]], list[str]],
) -> None:
    """The count, where given, is the number of pairs among the neighbours; a document is left
    out only when every two documents of its component are paired (a count that orders
    nothing)."""
    n, pairs, _ = graph
    edges = {frozenset(p) for p in pairs}
    adjacency = clustering._neighbours(pairs)
    counts = pairs_among_neighbours(adjacency)
    for i, near in adjacency.items():
        expected = sum(frozenset(p) in edges for p in combinations(near, 2))
        if i in counts:
            assert counts[i] == expected
        else:
            assert expected == len(near) * (len(near) - 1) // 2


def test_a_component_past_the_work_bound_is_ordered_by_neighbours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past ``NEIGHBOUR_PAIRS_WORK`` a component is visited by number of neighbours (the
    bridge is the centre), and that does not change how another component clusters."""
    keys = [str(i).zfill(3) for i in range(200)]
    alone = as_sets(greedy_centers(10, bridged_family(), keys))
    dense = list(combinations(range(100, 140), 2))[1:]  # 40 documents, one pair missing
    monkeypatch.setattr(clustering, "NEIGHBOUR_PAIRS_WORK", 1000)
    both = as_sets(greedy_centers(200, bridged_family() + dense, keys))
    assert {c for c in both if c[0] < 100} == alone
    monkeypatch.setattr(clustering, "NEIGHBOUR_PAIRS_WORK", 0)
    got = as_sets(greedy_centers(10, bridged_family(), keys))
    assert (4, frozenset({0, 1, 2, 3, 4, 5, 6, 7})) in got


@given(graph=graphs())
def test_every_member_is_a_neighbour_of_its_centre(
    graph: tuple[int, list[tuple[int, int]], list[str]],
) -> None:
    """Centres: clusters are disjoint, have at least 2 members, and every member is directly
    paired with the centre."""
    n, pairs, keys = graph
    edges = {frozenset(p) for p in pairs}
    seen: set[int] = set()
    for centre, members in greedy_centers(n, pairs, keys):
        assert len(members) >= 2
        assert members[0] == centre
        assert len(set(members)) == len(members)
        assert not seen & set(members)
        seen |= set(members)
        for m in members[1:]:
            assert frozenset((centre, m)) in edges


@given(graph=graphs(), data=st.data())
def test_clusters_do_not_depend_on_pair_order(
    graph: tuple[int, list[tuple[int, int]], list[str]], data: st.DataObject
) -> None:
    """Shuffling the pairs or swapping their ends gives the same clusters (deterministic)."""
    n, pairs, keys = graph
    shuffled = [
        (b, a) if data.draw(st.booleans()) else (a, b) for a, b in data.draw(st.permutations(pairs))
    ]
    for method in ("centers", "components"):
        assert as_sets(cluster(n, pairs, keys, method)) == as_sets(
            cluster(n, shuffled, keys, method)
        )


@given(graph=graphs())
def test_components_are_the_connected_components(
    graph: tuple[int, list[tuple[int, int]], list[str]],
) -> None:
    """components: exactly the connected components with an edge, found by a plain search."""
    n, pairs, keys = graph
    adjacency: dict[int, set[int]] = {i: set() for i in range(n)}
    for a, b in pairs:
        adjacency[a].add(b)
        adjacency[b].add(a)
    expected, seen = set(), set()
    for start in range(n):
        if start in seen or not adjacency[start]:
            continue
        stack, component = [start], set()
        while stack:
            x = stack.pop()
            if x not in component:
                component.add(x)
                stack.extend(adjacency[x])
        seen |= component
        expected.add(frozenset(component))
    got = connected_components(n, pairs, keys)
    assert {frozenset(m) for _, m in got} == expected
    for rep, members in got:
        assert rep in members
        best = max(len(adjacency[m]) for m in members)
        assert len(adjacency[rep]) == best


def test_no_pairs_no_clusters() -> None:
    """Without pairs there are no clusters."""
    assert greedy_centers(3, [], ["a", "b", "c"]) == []
    assert connected_components(3, [], ["a", "b", "c"]) == []


@given(st.lists(fingerprints, min_size=1, max_size=40))
def test_max_pairwise_distance_equals_brute_force(fps: list[int]) -> None:
    """The largest Hamming distance between any two fingerprints (0 for one or equal ones)."""
    expected = max(((a ^ b).bit_count() for a, b in combinations(fps, 2)), default=0)
    assert max_pairwise_distance(fps) == expected


def test_max_pairwise_distance_examples() -> None:
    """Complements are 64 apart; copies 0."""
    assert max_pairwise_distance([0, (1 << 64) - 1, 5]) == 64
    assert max_pairwise_distance([7, 7, 7]) == 0
    assert max_pairwise_distance([0b1, 0b10, 0b111]) == 2
