"""simdup.algorithms.minhash: signatures estimate Jaccard; LSH bands find the pairs sharing a
band."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.algorithms.minhash import (
    BAND_RECALL,
    band_candidates,
    band_keys,
    choose_bands,
    collision,
    estimate,
    keyed_candidates,
    length_lanes,
    signature,
)


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


@given(threshold=st.floats(0.5, 0.95), perms=st.sampled_from([64, 128, 256]))
def test_choose_bands_keeps_pairs_at_the_threshold_with_the_fewest_chance_candidates(
    threshold: float, perms: int
) -> None:
    """A pair at exactly the threshold becomes a candidate with probability >= BAND_RECALL,
    and one more row per band (fewer chance candidates) would fall below it."""
    bands, rows = choose_bands(threshold, perms)
    assert bands == perms // rows
    assert collision(threshold, bands, rows) >= BAND_RECALL
    if rows + 1 <= perms:
        assert collision(threshold, perms // (rows + 1), rows + 1) < BAND_RECALL


def test_pairs_at_the_threshold_are_candidates_as_often_as_promised() -> None:
    """Measured, not computed: 400 pairs of random word sets at Jaccard 0.8 with 128-value
    signatures; the bands chosen for 0.8 make at least 97% of them candidates (the promise is
    99%; the margin is the sampling error of 400 pairs)."""
    rng = random.Random(11)
    bands, rows = choose_bands(0.8, 128)
    signatures = []
    for _ in range(400):
        shared = {rng.getrandbits(64) for _ in range(160)}
        own_a = {rng.getrandbits(64) for _ in range(20)}
        own_b = {rng.getrandbits(64) for _ in range(20)}
        assert len(shared) / len(shared | own_a | own_b) == 0.8
        signatures += [signature(u64(shared | own_a), 128), signature(u64(shared | own_b), 128)]
    found = {tuple(p) for p in band_candidates(np.stack(signatures), bands, rows).tolist()}
    kept = sum((2 * k, 2 * k + 1) in found for k in range(400))
    assert kept >= 0.97 * 400


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


@given(
    a=st.integers(1, 10**7),
    ratio=st.floats(0.05, 0.999),
    scale=st.floats(0.0, 1.0),
)
def test_lengths_that_can_pass_the_ratio_are_in_neighbouring_lanes(
    a: int, ratio: float, scale: float
) -> None:
    """Any two lengths whose ratio is at least ``ratio`` (the boundary included) have lanes
    at most one apart, so lane keys never lose a pair the length check would accept."""
    b = a + int(scale * (a / ratio - a))  # from a up to the longest b with a / b >= ratio
    if a < ratio * b:
        b -= 1
    lanes = length_lanes(np.array([a, b]), ratio)
    assert lanes is not None
    assert abs(int(lanes[1]) - int(lanes[0])) <= 1


def test_lanes_at_the_boundary_and_without_a_ratio() -> None:
    """9 and 10 characters at ratio 0.9 are neighbours; 8 and 10 may not be; no ratio, no
    lanes; ratio 1 keeps only equal lengths apart from their neighbours."""
    lanes = length_lanes(np.array([9, 10, 1000, 1111]), 0.9)
    assert lanes is not None
    assert abs(int(lanes[1]) - int(lanes[0])) <= 1 and abs(int(lanes[3]) - int(lanes[2])) <= 1
    assert length_lanes(np.array([1, 100]), 0.0) is None
    assert list(length_lanes(np.array([7, 7, 8]), 1.0)) == [7, 7, 8]  # type: ignore[arg-type]


@pytest.mark.parametrize("merge_at", [1 << 22, 1])
def test_keyed_candidates_with_lanes_are_the_band_pairs_whose_lanes_are_close(
    merge_at: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With lanes, the candidates are exactly the pairs sharing a band key whose lanes differ
    by at most one (brute force over random keys with many collisions); the same when the
    codes found are merged after every band."""
    import simdup.algorithms.minhash

    monkeypatch.setattr(simdup.algorithms.minhash, "_MERGE_AT", merge_at)
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 4, size=(60, 3)).astype(np.uint64)
    lanes = rng.integers(0, 5, size=60).astype(np.int64)
    got = set(zip(*(a.tolist() for a in keyed_candidates(keys, lanes)), strict=True))
    want = {
        (i, j)
        for i, j in combinations(range(60), 2)
        if abs(int(lanes[i]) - int(lanes[j])) <= 1 and bool((keys[i] == keys[j]).any())
    }
    assert got == want
    unlaned = set(zip(*(a.tolist() for a in keyed_candidates(keys)), strict=True))
    assert unlaned == {(i, j) for i, j in combinations(range(60), 2) if (keys[i] == keys[j]).any()}


def _mix_int(x: int) -> int:
    """splitmix64's finaliser on Python ints (the definition, spelled out)."""
    mask = (1 << 64) - 1
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & mask
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & mask
    return x ^ (x >> 31)


@given(
    st.integers(1, 5),
    st.sampled_from([(21, 6), (16, 8), (4, 3), (1, 1)]),
    st.integers(0, 2**32 - 1),
)
def test_band_keys_follow_their_definition(n: int, layout: tuple[int, int], seed: int) -> None:
    """Band ``b``'s key: ``k = 0``, then ``k = mix(k * golden + value)`` over the band's rows
    in order (every band at once in numpy; columns past ``bands * rows`` unused)."""
    bands, rows = layout
    rng = np.random.default_rng(seed)
    signatures = rng.integers(0, 2**64 - 1, size=(n, bands * rows + 2), dtype=np.uint64)
    keys = band_keys(signatures, bands, rows)
    assert keys.shape == (n, bands) and keys.dtype == np.uint64
    mask = (1 << 64) - 1
    for i in range(n):
        for b in range(bands):
            k = 0
            for value in signatures[i, b * rows : (b + 1) * rows].tolist():
                k = _mix_int((k * 0x9E3779B97F4A7C15 + value) & mask)
            assert int(keys[i, b]) == k


def test_bands_keyed_on_threads_give_the_same_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large inputs key their bands on a thread per core: the same pairs, in the same order,
    with and without lanes."""
    from simdup.algorithms import minhash

    rng = np.random.default_rng(5)
    keys = rng.integers(0, 50, size=(3000, 7)).astype(np.uint64)  # many shared band keys
    lanes = rng.integers(0, 4, size=3000).astype(np.int64)
    alone = [minhash.keyed_candidates(keys), minhash.keyed_candidates(keys, lanes)]
    monkeypatch.setattr(minhash, "_THREADED_FROM", 10)
    monkeypatch.setattr(minhash, "_MERGE_AT", 1000)  # merges between bands, as at scale
    threaded = [minhash.keyed_candidates(keys), minhash.keyed_candidates(keys, lanes)]
    for (a_i, a_j), (b_i, b_j) in zip(alone, threaded, strict=True):
        assert a_i.size > 1000 and a_i.tolist() == b_i.tolist() and a_j.tolist() == b_j.tolist()


def test_jaccard_of_many_pairs_on_threads_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native loop shared by threads (without the GIL) gives every pair's estimate."""
    from simdup.algorithms import sketch

    rng = np.random.default_rng(6)
    sketches = [
        np.unique(rng.integers(0, 1 << 12, size=int(rng.integers(1, 400)))).astype("<u4").tobytes()
        for _ in range(500)
    ]
    i = rng.integers(0, 500, size=20_000)
    j = rng.integers(0, 500, size=20_000)
    one = sketch.sketch_jaccard_pairs(sketches, i, j, 256)
    monkeypatch.setattr(sketch, "_PAIRS_PER_THREAD", 100)
    assert sketch.sketch_jaccard_pairs(sketches, i, j, 256).tolist() == one.tolist()
    pairs = zip(i[:500].tolist(), j[:500].tolist(), strict=True)
    expected = [sketch.sketch_jaccard(sketches[a], sketches[b], 256) for a, b in pairs]
    assert one[:500].tolist() == pytest.approx(expected)
