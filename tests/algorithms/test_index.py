"""simdup.algorithms.index: the Hamming join must equal brute force, for every threshold and
layout."""

from __future__ import annotations

from itertools import combinations
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdup
from simdup.algorithms import index
from simdup.algorithms.index import MAX_THRESHOLD, BlockIndex, Layout, choose_layout, collapse
from simdup.native import speedups
from tests.strategies import MAX64, fingerprint_lists, fingerprint_sets, fingerprints, near_copy

THRESHOLDS = range(0, 9)
needs_native = pytest.mark.skipif(speedups is None, reason="the C extension is not in use")


def brute_force(fps: list[int], k: int) -> list[tuple[int, int, int]]:
    """Every ``(i, j, distance)`` with ``i < j`` and distance at most ``k``, sorted."""
    out = []
    for i, j in combinations(range(len(fps)), 2):
        d = (fps[i] ^ fps[j]).bit_count()
        if d <= k:
            out.append((i, j, d))
    return out


def as_triples(result: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[tuple[int, int, int]]:
    i, j, d = result
    assert i.shape == j.shape == d.shape
    return list(zip(i.tolist(), j.tolist(), d.tolist(), strict=True))


def layouts(k: int) -> list[Layout | None]:
    """The default layout (None) and the three explicit layouts that can guarantee ``k``."""
    return [None, Layout(k + 1, 1), Layout(k + 2, 2), Layout(k + 3, 3)]


# ---------------------------------------------------------------- near_pairs vs brute force


@pytest.mark.parametrize("k", THRESHOLDS)
@given(fps=fingerprint_sets)
def test_near_pairs_equals_brute_force_for_every_layout(k: int, fps: list[int]) -> None:
    """near_pairs returns exactly the brute-force pairs (i < j, distance), for every layout."""
    expected = brute_force(fps, k)
    for layout in layouts(k):
        got = as_triples(simdup.near_pairs(fps, k, layout))
        assert got == expected, f"layout {layout}"


@given(fps=fingerprint_lists(max_flips=10), k=st.integers(0, 8))
def test_numpy_array_and_python_list_give_the_same_pairs(fps: list[int], k: int) -> None:
    """A uint64 numpy array and the same values as a list of Python ints give identical output."""
    from_list = simdup.near_pairs(fps, k)
    from_array = simdup.near_pairs(np.array(fps, dtype=np.uint64), k)
    for a, b in zip(from_list, from_array, strict=True):
        assert a.tolist() == b.tolist()


def test_non_negative_signed_numpy_array_is_accepted() -> None:
    """An int64 array of non-negative values is read as the same fingerprints."""
    fps = [5, 4, 1 << 40, 7]
    expected = as_triples(simdup.near_pairs(fps, 2))
    assert as_triples(simdup.near_pairs(np.array(fps, dtype=np.int64), 2)) == expected
    assert expected == brute_force(fps, 2)


@pytest.mark.parametrize("copies", [2, 3, 50, 300])
def test_identical_fingerprints_give_every_pair_at_distance_zero(copies: int) -> None:
    """n copies of one fingerprint give all n*(n-1)/2 pairs, each at distance 0."""
    got = as_triples(simdup.near_pairs([0xDEADBEEF] * copies, 0))
    assert got == [(i, j, 0) for i, j in combinations(range(copies), 2)]


def test_groups_of_identical_fingerprints_expand_to_every_cross_pair() -> None:
    """Near pairs between two groups of copies expand to the product of the groups."""
    a, b = 0x0123456789ABCDEF, 0x0123456789ABCDEF ^ 0b101
    fps = [a, b, a, b, a, 12345]
    assert as_triples(simdup.near_pairs(fps, 2)) == brute_force(fps, 2)
    assert len(brute_force(fps, 2)) == 10  # 3 + 1 identical pairs, 3 * 2 cross pairs


def test_empty_and_single_inputs_give_no_pairs() -> None:
    """Fewer than two fingerprints: three empty arrays."""
    for fps in ([], [42]):
        i, j, d = simdup.near_pairs(fps, 3)
        assert i.size == j.size == d.size == 0


def test_pairs_at_exactly_the_threshold_are_included_and_beyond_excluded() -> None:
    """Distance k is a near pair at threshold k; distance k+1 is not."""
    base = 0xF0F0F0F00F0F0F0F
    for k in THRESHOLDS:
        at = base ^ ((1 << k) - 1)
        beyond = base ^ ((1 << (k + 1)) - 1)
        assert as_triples(simdup.near_pairs([base, at], k)) == [(0, 1, k)]
        assert as_triples(simdup.near_pairs([base, beyond], k)) == []


@given(fps=fingerprint_lists(max_base=12, max_planted=12), k=st.integers(0, 6))
def test_small_candidate_chunks_give_the_same_pairs(fps: list[int], k: int) -> None:
    """Candidate pairs materialised a few at a time (tiny chunk size) change nothing."""
    expected = brute_force(fps, k)
    with mock.patch("simdup.algorithms.index._CHUNK", 1):
        assert as_triples(simdup.near_pairs(fps, k, Layout(k + 1, 1))) == expected
    with mock.patch("simdup.algorithms.index._CHUNK", 3):
        assert as_triples(simdup.near_pairs(fps, k, Layout(k + 2, 2))) == expected


@needs_native
@given(fps=fingerprint_lists(max_flips=12), k=st.integers(0, 12), key_blocks=st.integers(1, 3))
def test_native_table_pairs_are_the_numpy_definition_in_order(
    fps: list[int], k: int, key_blocks: int
) -> None:
    """Each table's pairs from ``speedups.table_pairs`` are those of the numpy definition, in the
    same order (the key and position packed alike; a stable sort on the key bits alone)."""
    unique = np.unique(np.array(fps, dtype=np.uint64))
    layout = Layout(k + key_blocks, key_blocks)
    positions = np.arange(unique.size, dtype=np.uint64)
    for table in combinations(range(layout.blocks), layout.key_blocks):
        native = [as_triples(p) for p in index._table_pairs(unique, layout, table, k, positions)]
        python = [
            as_triples(p) for p in index._table_pairs_numpy(unique, layout, table, k, positions)
        ]
        assert [t for part in native for t in part] == [t for part in python for t in part]


@needs_native
def test_native_table_pairs_leave_keys_too_wide_to_pack_to_python() -> None:
    """A 64-bit key leaves no room for the position: the native call says so (None) and the
    numpy definition answers, with the brute-force pairs."""
    assert speedups is not None
    fps = np.array([0, 0xFFFF, 0xFFFF0000, (1 << 64) - 1], dtype=np.uint64)
    whole = np.array([(1 << 64) - 1], dtype=np.uint64)
    assert speedups.table_pairs(fps, whole, np.empty(0, np.uint64), 0) is None
    assert as_triples(simdup.near_pairs(fps, 0, Layout(1, 1))) == []
    assert as_triples(simdup.near_pairs([5, 5, 7], 0, Layout(1, 1))) == [(0, 1, 0)]


@needs_native
def test_native_table_pairs_refuse_bad_arguments() -> None:
    assert speedups is not None
    fps = np.arange(4, dtype=np.uint64)
    none = np.empty(0, dtype=np.uint64)
    with pytest.raises(ValueError, match="contiguous"):
        speedups.table_pairs(fps, np.array([0b101], dtype=np.uint64), none, 3)
    with pytest.raises(ValueError, match="contiguous"):
        speedups.table_pairs(fps, np.array([0], dtype=np.uint64), none, 3)
    with pytest.raises(ValueError, match="threshold"):
        speedups.table_pairs(fps, np.array([0xFF], dtype=np.uint64), none, 65)
    with pytest.raises(ValueError, match="uint64"):
        speedups.table_pairs(b"abc", np.array([0xFF], dtype=np.uint64), none, 3)
    with pytest.raises(TypeError):
        speedups.table_pairs(fps, none, none)  # type: ignore[call-arg]


def test_high_thresholds_equal_brute_force() -> None:
    """Thresholds up to the maximum (31) are still exact on a small random set."""
    rng = np.random.default_rng(7)
    base = [int(x) for x in rng.integers(0, 1 << 63, size=30, dtype=np.int64)]
    fps = base + [v ^ (1 << 5) ^ (1 << 60) for v in base[:10]]
    for k in (12, 20, 31):
        assert as_triples(simdup.near_pairs(fps, k)) == brute_force(fps, k)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize("threshold", [-1, 32, 3.5, True, False, "3", None])
def test_threshold_out_of_range_or_not_an_int_is_a_config_error(threshold: object) -> None:
    """A threshold that is not an int in 0..31 raises ConfigError (also a ValueError)."""
    with pytest.raises(simdup.ConfigError):
        simdup.near_pairs([1, 2], threshold)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        simdup.near_pairs([1, 2], threshold)  # type: ignore[arg-type]
    with pytest.raises(simdup.ConfigError):
        BlockIndex(threshold)  # type: ignore[arg-type]


def test_maximum_threshold_is_31() -> None:
    """31 is accepted (the largest threshold), 32 is not."""
    assert MAX_THRESHOLD == 31
    assert as_triples(simdup.near_pairs([0, (1 << 31) - 1], 31)) == [(0, 1, 31)]


def test_numpy_integer_threshold_is_accepted() -> None:
    """A numpy integer threshold (accepted by validation) works like the Python int."""
    assert as_triples(simdup.near_pairs([0, 1, 3], np.int64(1))) == [(0, 1, 1), (1, 2, 1)]
    index = BlockIndex(np.int64(1))  # type: ignore[arg-type]
    index.add("a", 0)
    index.add("b", 1)
    assert index.pairs() == [("a", "b", 1)]


@pytest.mark.parametrize("bad", [1 << 64, (1 << 64) + 5, -1, -(1 << 70)])
def test_fingerprints_outside_64_bits_are_a_config_error(bad: int) -> None:
    """Negative fingerprints and fingerprints >= 2**64 raise ConfigError."""
    with pytest.raises(simdup.ConfigError):
        simdup.near_pairs([1, bad], 3)
    with pytest.raises(simdup.ConfigError):
        BlockIndex(3).add("x", bad)


def test_negative_values_in_a_signed_numpy_array_are_a_config_error() -> None:
    """An int64 array holding a negative value is rejected, not wrapped around."""
    with pytest.raises(simdup.ConfigError):
        simdup.near_pairs(np.array([1, -1], dtype=np.int64), 3)


@pytest.mark.parametrize("bad", [1 << 64, -1])
def test_block_index_query_with_a_fingerprint_outside_64_bits_is_a_config_error(bad: int) -> None:
    """query() rejects a fingerprint that is not 64-bit unsigned like add() does."""
    index = BlockIndex(3)
    index.add("a", 5)
    with pytest.raises(simdup.ConfigError):
        index.query(bad)


def test_layout_that_cannot_guarantee_the_threshold_is_rejected() -> None:
    """A layout with blocks - key_blocks > threshold would miss pairs: ConfigError."""
    with pytest.raises(simdup.ConfigError, match="cannot guarantee"):
        simdup.near_pairs([1, 2, 3], 3, Layout(5, 1))
    with pytest.raises(simdup.ConfigError):
        simdup.near_pairs([1, 2, 3], 2, Layout(5, 2))


# ---------------------------------------------------------------- layouts


@pytest.mark.parametrize("blocks", range(1, 33))
def test_block_masks_cover_all_64_bits_disjointly(blocks: int) -> None:
    """The masks are contiguous, disjoint, cover bits 0..63, and differ in width by at most 1
    (the remainder is spread over the first blocks)."""
    masks = Layout(blocks, 1).block_masks()
    assert len(masks) == blocks
    union = 0
    for mask in masks:
        assert mask > 0
        assert union & mask == 0
        union |= mask
        low = mask & -mask
        assert (mask // low) & ((mask // low) + 1) == 0, "mask is not one contiguous run"
    assert union == MAX64
    widths = [m.bit_count() for m in masks]
    assert max(widths) - min(widths) <= 1
    assert widths == sorted(widths, reverse=True)
    # Blocks are in bit order: block 0 holds bit 0.
    assert masks[0] & 1
    assert all(masks[i] < masks[i + 1] for i in range(blocks - 1))


@given(n=st.integers(0, 10**7), k=st.integers(0, MAX_THRESHOLD))
def test_choose_layout_always_guarantees_the_threshold(n: int, k: int) -> None:
    """The chosen layout has exactly threshold + key_blocks blocks (so it is exact)."""
    layout = choose_layout(n, k)
    assert 1 <= layout.key_blocks <= 4
    assert layout.blocks - layout.key_blocks == k
    assert layout.tables >= 1


def test_layout_tables_is_the_number_of_key_block_subsets() -> None:
    """tables = C(blocks, key_blocks): e.g. 10 tables for 5 blocks keyed on 2."""
    assert Layout(4, 1).tables == 4
    assert Layout(5, 2).tables == 10
    assert Layout(11, 3).tables == 165


@given(fps=fingerprint_sets)
def test_collapse_groups_indices_by_fingerprint(fps: list[int]) -> None:
    """collapse gives the sorted distinct values and, per value, the ascending input indices."""
    arr = np.array(fps, dtype=np.uint64)
    unique, order, starts = collapse(arr)
    assert unique.tolist() == sorted(set(fps))
    for u, value in enumerate(unique.tolist()):
        group = order[starts[u] : starts[u + 1]].tolist()
        assert group == [i for i, v in enumerate(fps) if v == value]


# ---------------------------------------------------------------- BlockIndex


@st.composite
def index_and_queries(draw: st.DrawFn) -> tuple[int, list[int], list[int]]:
    k = draw(st.integers(0, 8))
    stored = draw(fingerprint_sets)
    queries = draw(st.lists(fingerprints, max_size=5))
    for value in draw(st.lists(st.sampled_from(stored), max_size=5)) if stored else []:
        queries.append(draw(near_copy(value, k + 2)))
    return k, stored, queries


@given(case=index_and_queries())
def test_block_index_query_equals_brute_force(case: tuple[int, list[int], list[int]]) -> None:
    """query(fp) lists every stored (key, distance) within the threshold, in insertion order."""
    k, stored, queries = case
    index = BlockIndex(k)
    for n, fp in enumerate(stored):
        index.add(f"doc{n}", fp)
    assert len(index) == len(stored)
    for q in queries:
        expected = [
            (f"doc{n}", (fp ^ q).bit_count())
            for n, fp in enumerate(stored)
            if (fp ^ q).bit_count() <= k
        ]
        assert index.query(q) == expected


@given(k=st.integers(0, 8), fps=fingerprint_sets)
def test_block_index_pairs_equals_brute_force(k: int, fps: list[int]) -> None:
    """pairs() gives every stored pair within the threshold as (key_a, key_b, distance)."""
    index = BlockIndex(k)
    for n, fp in enumerate(fps):
        index.add(("key", n), fp)
    expected = [(("key", i), ("key", j), d) for i, j, d in brute_force(fps, k)]
    assert index.pairs() == expected


def test_block_index_sees_entries_added_after_a_query() -> None:
    """Adding after a query rebuilds the tables: the new entry is found."""
    index = BlockIndex(2)
    index.add("a", 0b1111)
    assert index.query(0b1111) == [("a", 0)]
    index.add("b", 0b0111)
    assert index.query(0b1111) == [("a", 0), ("b", 1)]
    assert index.pairs() == [("a", "b", 1)]


def test_empty_block_index_answers_nothing() -> None:
    """An empty index has no neighbours and no pairs."""
    index = BlockIndex()
    assert index.threshold == 3
    assert len(index) == 0
    assert index.query(123) == []
    assert index.pairs() == []
