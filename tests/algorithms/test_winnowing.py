"""simdup.algorithms.winnowing: the k-grams kept never miss a shared run of the guaranteed
length."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.algorithms.winnowing import guaranteed_run, kgram_hashes, kgram_hashes_at, winnow
from simdup.checking import FragmentRule


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.integers(4, 30),
    st.integers(0, 60),
    st.integers(0, 60),
)
def test_winnowing_never_misses_a_shared_run_of_the_guaranteed_length(seed, extra, before, after):
    """Against brute force: a run of at least ``guaranteed_run`` tokens shared by two random
    token sequences makes the source a candidate, wherever it lies."""
    rule = FragmentRule()
    rng = np.random.default_rng(seed)
    run = guaranteed_run(rule.kgram, rule.window) + extra % 5
    shared = rng.integers(0, 2**63, run, dtype=np.uint64)
    a = np.concatenate(
        [
            rng.integers(0, 2**63, before, dtype=np.uint64),
            shared,
            rng.integers(0, 2**63, 10, dtype=np.uint64),
        ]
    )
    b = np.concatenate([rng.integers(0, 2**63, after, dtype=np.uint64), shared])
    kept = winnow(kgram_hashes(b, rule.kgram), rule.window)
    assert set(kgram_hashes(b, rule.kgram)[kept].tolist()) & set(
        kgram_hashes(a, rule.kgram).tolist()
    )
    # Winnowing keeps about 2 / (w + 1) of the k-grams of a long random sequence.
    long = kgram_hashes(rng.integers(0, 2**63, 5000, dtype=np.uint64), rule.kgram)
    assert winnow(long, rule.window).size / long.size < 2.5 / (rule.window + 1)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 60), st.integers(1, 6))
def test_kgram_hashes_at_places_are_those_of_the_whole(seed: int, n: int, k: int) -> None:
    """The hashes of the k-grams at chosen places are the whole sequence's at those places."""
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    whole = kgram_hashes(tokens, k)
    places = rng.integers(0, max(1, whole.size), size=7) if whole.size else np.empty(0, int)
    assert np.array_equal(kgram_hashes_at(tokens, places, k), whole[places])
