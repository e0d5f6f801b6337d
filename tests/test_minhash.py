"""simdup.minhash: signatures estimate Jaccard; LSH bands find the pairs sharing a band."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.minhash import band_candidates, choose_bands, estimate, signature


def u64(values: set[int]) -> np.ndarray:
    return np.array(sorted(values), dtype=np.uint64)


def test_signature_is_deterministic_and_set_based() -> None:
    """A signature depends only on the set of hashes (order and repeats do not matter)."""
    a = signature(np.array([5, 1, 9, 1], dtype=np.uint64), 64)
    b = signature(np.array([9, 5, 1], dtype=np.uint64), 64)
    assert a.dtype == np.uint64 and a.shape == (64,)
    assert np.array_equal(a, b)
    assert estimate(a, b) == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_estimate_is_close_to_jaccard(seed: int) -> None:
    """With 256 permutations the estimate is within 0.12 of the true Jaccard similarity."""
    rng = random.Random(seed)
    shared = {rng.getrandbits(64) for _ in range(rng.randint(50, 500))}
    a = shared | {rng.getrandbits(64) for _ in range(rng.randint(0, 300))}
    b = shared | {rng.getrandbits(64) for _ in range(rng.randint(0, 300))}
    exact = len(a & b) / len(a | b)
    assert abs(estimate(signature(u64(a), 256), signature(u64(b), 256)) - exact) < 0.12


@given(threshold=st.floats(0.3, 0.95), perms=st.sampled_from([16, 64, 128]))
def test_choose_bands_fits_in_the_signature(threshold: float, perms: int) -> None:
    """bands * rows never exceeds the signature length."""
    bands, rows = choose_bands(threshold, perms)
    assert bands >= 1 and rows >= 1
    assert bands * rows <= perms


def test_band_candidates_are_the_pairs_sharing_a_whole_band() -> None:
    """Candidates are exactly the pairs (i < j) equal on all rows of at least one band."""
    rng = np.random.default_rng(3)
    sigs = rng.integers(0, 4, size=(12, 8), dtype=np.uint64)  # small alphabet: many collisions
    bands, rows = 4, 2
    expected = {
        (i, j)
        for i, j in combinations(range(12), 2)
        if any(
            np.array_equal(sigs[i, b * rows : (b + 1) * rows], sigs[j, b * rows : (b + 1) * rows])
            for b in range(bands)
        )
    }
    got = band_candidates(sigs, bands, rows)
    assert {tuple(p) for p in got.tolist()} == expected
    assert got.tolist() == sorted(got.tolist())
