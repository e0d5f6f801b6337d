"""simdup.algorithms.sketch: bottom-k sketches and their Jaccard estimate."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.algorithms.sketch import bottom_k, estimate_jaccard
from tests.strategies import fingerprints

# Sketches hold the top 32 bits of term hashes: sets of 32-bit term ids.
term_sets = st.sets(st.integers(0, (1 << 32) - 1), max_size=40)


def jaccard(a: set[int], b: set[int]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def sketch(ids: set[int], k: int) -> np.ndarray:
    """The sketch of a document whose term hashes have these top-32-bit ids."""
    return bottom_k(np.array([(i << 32) | 0xABCD for i in sorted(ids)], dtype=np.uint64), k)


def arr(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.uint32)


@given(values=st.lists(fingerprints, max_size=60), k=st.integers(1, 50))
def test_bottom_k_is_the_k_smallest_distinct_top_halves_ascending(
    values: list[int], k: int
) -> None:
    """bottom_k keeps the k smallest distinct top-32-bit values of the hashes, ascending."""
    got = bottom_k(np.array(values, dtype=np.uint64), k)
    assert got.dtype == np.uint32
    assert got.tolist() == sorted({v >> 32 for v in values})[:k]


@given(a=term_sets, b=term_sets, k=st.integers(1, 64))
def test_estimate_is_exact_when_the_union_fits_in_the_sketch(
    a: set[int], b: set[int], k: int
) -> None:
    """When the union has at most k terms, the estimate is the exact Jaccard similarity."""
    if len(a | b) > k:
        k = len(a | b)
    assert estimate_jaccard(sketch(a, k), sketch(b, k), k) == pytest.approx(jaccard(a, b))


def test_estimate_is_exact_when_both_sets_are_smaller_than_k() -> None:
    """Sketches holding every term of their document (fewer than k) give the exact Jaccard."""
    assert estimate_jaccard(arr(1, 2, 3), arr(1, 5, 6), 4) == pytest.approx(0.2)


@given(a=term_sets, b=term_sets, k=st.integers(1, 64))
def test_estimate_is_symmetric_and_a_fraction(a: set[int], b: set[int], k: int) -> None:
    """estimate_jaccard(a, b) == estimate_jaccard(b, a), and it lies in [0, 1]."""
    sa, sb = sketch(a, k), sketch(b, k)
    value = estimate_jaccard(sa, sb, k)
    assert value == estimate_jaccard(sb, sa, k)
    assert 0.0 <= value <= 1.0


@given(a=term_sets, k=st.integers(1, 64))
def test_identical_sets_estimate_one(a: set[int], k: int) -> None:
    """A sketch compared with itself estimates 1."""
    assert estimate_jaccard(sketch(a, k), sketch(a, k), k) == 1.0


def test_disjoint_and_empty_sets() -> None:
    """Disjoint sets estimate 0; two empty sketches 1; one empty sketch 0."""
    assert estimate_jaccard(arr(1, 2, 3), arr(4, 5, 6), 8) == 0.0
    assert estimate_jaccard(arr(), arr(), 8) == 1.0
    assert estimate_jaccard(arr(1, 2), arr(), 8) == 0.0


@pytest.mark.parametrize("seed", range(12))
def test_estimate_is_within_0_1_of_exact_jaccard_for_large_sets(seed: int) -> None:
    """With k=256, sketches of sets of thousands of terms estimate Jaccard within 0.1."""
    rng = random.Random(seed)
    shared = {rng.getrandbits(32) for _ in range(rng.randint(200, 3000))}
    a = shared | {rng.getrandbits(32) for _ in range(rng.randint(0, 2000))}
    b = shared | {rng.getrandbits(32) for _ in range(rng.randint(0, 2000))}
    estimate = estimate_jaccard(sketch(a, 256), sketch(b, 256), 256)
    assert abs(estimate - jaccard(a, b)) < 0.1
