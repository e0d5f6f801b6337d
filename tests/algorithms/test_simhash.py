"""simdup.algorithms.simhash: Hamming distance, weighted SimHash."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.algorithms.simhash import (
    hamming,
    simhash,
    simhash_of_weights_python,
    similarity,
)
from simdup.native import speedups
from tests.strategies import MAX64, fingerprints


def fp_of(hashes: list[int], weights: list[float]) -> int:
    return simhash(np.array(hashes, dtype=np.uint64), np.array(weights, dtype=np.float64))


# ---------------------------------------------------------------- hamming


@given(a=fingerprints, b=fingerprints)
def test_hamming_is_symmetric_and_counts_differing_bits(a: int, b: int) -> None:
    """hamming(a, b) == hamming(b, a) == number of set bits of a XOR b, in 0..64."""
    assert hamming(a, b) == hamming(b, a) == bin(a ^ b).count("1")
    assert 0 <= hamming(a, b) <= 64


@given(a=fingerprints)
def test_hamming_of_a_fingerprint_with_itself_is_zero(a: int) -> None:
    """A fingerprint is at distance 0 from itself and 64 from its complement."""
    assert hamming(a, a) == 0
    assert hamming(a, a ^ MAX64) == 64


def test_hamming_extremes() -> None:
    """hamming(0, 2**64 - 1) == 64; one flipped bit is distance 1."""
    assert hamming(0, MAX64) == 64
    assert hamming(0, 1 << 63) == 1
    assert hamming(0b1010, 0b0101) == 4


@given(a=fingerprints, b=fingerprints, c=fingerprints)
def test_hamming_obeys_the_triangle_inequality(a: int, b: int, c: int) -> None:
    """Hamming distance is a metric: d(a, c) <= d(a, b) + d(b, c)."""
    assert hamming(a, c) <= hamming(a, b) + hamming(b, c)


def test_similarity_is_one_minus_distance_over_64() -> None:
    """similarity(d) = 1 - d/64."""
    assert similarity(0) == 1.0
    assert similarity(64) == 0.0
    assert similarity(16) == 0.75


# ---------------------------------------------------------------- simhash


def test_simhash_of_no_features_is_zero() -> None:
    """An empty feature set has fingerprint 0."""
    assert simhash(np.array([], dtype=np.uint64), np.array([], dtype=np.float64)) == 0


@given(h=fingerprints, w=st.floats(min_value=1e-6, max_value=1e6))
def test_simhash_of_one_feature_is_its_hash(h: int, w: float) -> None:
    """With a single feature of positive weight, every counter has the sign of its bit."""
    assert fp_of([h], [w]) == h


@given(
    heavy=fingerprints,
    others=st.lists(fingerprints, min_size=1, max_size=8),
    weights=st.lists(st.integers(1, 1000), min_size=8, max_size=8),
    margin=st.integers(1, 1000),
)
def test_a_feature_heavier_than_all_others_together_dominates(
    heavy: int, others: list[int], weights: list[int], margin: int
) -> None:
    """A feature whose weight exceeds the sum of all the others decides every bit."""
    light = [float(w) for w in weights[: len(others)]]
    heavy_weight = sum(light) + margin
    assert fp_of(others + [heavy], light + [heavy_weight]) == heavy
    assert fp_of([heavy] + others, [heavy_weight] + light) == heavy


@given(h1=fingerprints, h2=fingerprints, w1=st.integers(1, 10**6), extra=st.integers(1, 10**6))
def test_heavier_of_two_features_wins_every_disputed_bit(
    h1: int, h2: int, w1: int, extra: int
) -> None:
    """Of two features, the heavier one's bits win wherever they disagree."""
    assert fp_of([h1, h2], [float(w1 + extra), float(w1)]) == h1
    assert fp_of([h1, h2], [float(w1), float(w1 + extra)]) == h2


@given(h1=fingerprints, h2=fingerprints, w=st.floats(min_value=1e-3, max_value=1e3))
def test_tie_bits_are_zero(h1: int, h2: int, w: float) -> None:
    """Two features of equal weight: where they disagree the counter is 0, and ties give 0,
    so the fingerprint is h1 AND h2."""
    assert fp_of([h1, h2], [w, w]) == h1 & h2


@given(h=fingerprints, w=st.integers(1, 100))
def test_a_feature_and_its_complement_cancel(h: int, w: int) -> None:
    """A feature and its bitwise complement of equal weight cancel: fingerprint 0."""
    assert fp_of([h, h ^ MAX64], [float(w), float(w)]) == 0


def test_exactly_cancelling_features_with_non_integer_weights_give_zero() -> None:
    """Every counter is mathematically 0 when each feature is paired with its complement."""
    h, g = 0x0123456789ABCDEF, 0xF0F0F0F0F0F0F0F0
    assert fp_of([h, h ^ MAX64, g, g ^ MAX64], [1.0, 1.0, 0.3, 0.3]) == 0


def test_simhash_does_not_depend_on_feature_order() -> None:
    """The same weighted features in another order give the same fingerprint."""
    h, g = 0x0123456789ABCDEF, 0xF0F0F0F0F0F0F0F0
    hashes = [h, h ^ MAX64, g, g ^ MAX64]
    weights = [1.0, 1.0, 0.3, 0.3]
    order = [2, 0, 3, 1]
    assert fp_of(hashes, weights) == fp_of([hashes[i] for i in order], [weights[i] for i in order])


@given(
    features=st.lists(st.tuples(fingerprints, st.integers(1, 50)), min_size=1, max_size=30),
    data=st.data(),
)
def test_simhash_with_integer_weights_does_not_depend_on_order(
    features: list[tuple[int, int]], data: st.DataObject
) -> None:
    """With integer weights (exact float arithmetic) feature order does not matter."""
    shuffled = data.draw(st.permutations(features))
    a = fp_of([h for h, _ in features], [float(w) for _, w in features])
    b = fp_of([h for h, _ in shuffled], [float(w) for _, w in shuffled])
    assert a == b


@given(
    features=st.lists(st.tuples(fingerprints, st.integers(1, 50)), min_size=1, max_size=30),
)
def test_simhash_matches_a_bit_by_bit_reference(features: list[tuple[int, int]]) -> None:
    """Bit i is 1 exactly when the weights of features with bit i set outweigh the others."""
    expected = 0
    for bit in range(64):
        counter = sum(w if (h >> bit) & 1 else -w for h, w in features)
        if counter > 0:
            expected |= 1 << bit
    assert fp_of([h for h, _ in features], [float(w) for _, w in features]) == expected


needs_native = pytest.mark.skipif(speedups is None, reason="the C extension is not in use")
_weights = st.floats(allow_nan=False, allow_infinity=False, width=64) | st.sampled_from(
    [0.0, -0.0, 5e-324, 1e308, -1e308, 0.5, 1.5, 2.5]
)


@needs_native
@given(items=st.lists(st.tuples(st.integers(0, MAX64), _weights), max_size=40))
def test_simhash_of_weights_is_simhash_of_scaled_weights(items: list[tuple[int, float]]) -> None:
    """The native one-call fingerprint scales the weights as scaled_weights does (exact powers
    of two, half to even, denormal and huge magnitudes included) and sums them alike."""
    hashes = np.array([h for h, _ in items], dtype=np.uint64)
    weights = np.array([w for _, w in items], dtype=np.float64)
    assert speedups is not None
    assert speedups.simhash_of_weights(hashes, weights) == simhash_of_weights_python(
        hashes, weights
    )


def test_simhash_refuses_weights_that_are_not_finite() -> None:
    hashes = np.array([1, 2], dtype=np.uint64)
    for bad in (np.nan, np.inf, -np.inf):
        weights = np.array([1.0, bad])
        with pytest.raises(ValueError, match="finite"):
            simhash(hashes, weights)
        with pytest.raises(ValueError, match="finite"):
            simhash_of_weights_python(hashes, weights)
