"""The block-move join of short texts (``algorithms.move_join``) against every pair, and its
distance against every matching of blocks."""

from __future__ import annotations

import itertools
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from simdup.algorithms import edit_join, move_join

EXAMPLES = int(os.environ.get("SIMDUP_FUZZ_EXAMPLES", "150"))


def every_matching(a: str, b: str) -> int:
    """``D(a, b)`` by its definition: every one-to-one matching of the blocks, the shorter
    list padded with empty blocks."""
    x, y = move_join.blocks_of(a), move_join.blocks_of(b)
    if len(x) < len(y):
        x, y = y, x
    y = y + [""] * (len(x) - len(y))
    return min(
        (sum(Levenshtein.distance(p, q) for p, q in zip(x, order, strict=True))
         for order in itertools.permutations(y)),
        default=0,
    )  # fmt: skip


def similarity_by_definition(a: str, b: str) -> float:
    longer = max(move_join.block_length(a), move_join.block_length(b))
    return 1.0 if longer == 0 else 1.0 - every_matching(a, b) / longer


def brute_force(texts: list[str], threshold: float) -> set[tuple[int, int]]:
    """Every pair at or above the threshold (pairs whose lengths differ by more than the
    threshold allows skipped: ``D`` is at least that difference)."""
    length = [move_join.block_length(t) for t in texts]
    return {
        (a, b)
        for a, b in itertools.combinations(range(len(texts)), 2)
        if abs(length[a] - length[b]) <= (1 - threshold) * max(length[a], length[b]) + 1e-9
        and similarity_by_definition(texts[a], texts[b]) >= threshold - 1e-12
    }


def _edited(rng: random.Random, text: str, alphabet: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        at = rng.randrange(len(chars) + 1)
        op = rng.randrange(3)
        if op == 0:
            chars.insert(at, rng.choice(alphabet))
        elif at < len(chars) and chars[at] != move_join.BLOCK_MARK:
            if op == 1:
                del chars[at]
            else:
                chars[at] = rng.choice(alphabet)
    return "".join(chars)


@st.composite
def texts_with_moved_copies(draw: st.DrawFn) -> list[str]:
    """Texts of 1-4 blocks of a small alphabet (every q-gram is common: the hard case for a
    filter), each with a copy whose blocks are shuffled and 0-3 characters edited."""
    alphabet = draw(st.sampled_from(["ab", "abc", "abcdefg", "的是了在", "a的b"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    texts = []
    for _ in range(draw(st.integers(1, 8))):
        blocks = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
                  for _ in range(rng.randint(1, 4))]  # fmt: skip
        texts.append(move_join.BLOCK_MARK.join(blocks))
        rng.shuffle(blocks)
        copy = move_join.BLOCK_MARK.join(blocks)
        texts.append(_edited(rng, copy, alphabet, rng.randint(0, 3)))
    return texts


@settings(max_examples=EXAMPLES, deadline=None)
@given(texts_with_moved_copies(), st.sampled_from([0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]))
def test_the_join_misses_no_pair_at_or_above_the_threshold(
    texts: list[str], threshold: float
) -> None:
    """Every pair whose block-move similarity reaches the threshold, and no other, with its
    similarity as defined (every matching of blocks tried)."""
    i, j, sims = move_join.join(texts, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(texts, threshold)
    for a, b, s in zip(i.tolist(), j.tolist(), sims.tolist(), strict=True):
        assert s == pytest.approx(similarity_by_definition(texts[a], texts[b]))


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None)
@given(texts_with_moved_copies(), st.sampled_from([0.7, 0.8, 0.9]))
def test_the_pure_python_signatures_find_the_same_candidates(
    texts: list[str], threshold: float
) -> None:
    """Without the extension (``edit_join.prefixes_python``, ``window_pairs_python``) the
    candidates are the same."""
    native = move_join.candidate_pairs(texts, threshold)
    saved = (move_join.speedups, edit_join.speedups)
    try:
        move_join.speedups = edit_join.speedups = None
        pure = move_join.candidate_pairs(texts, threshold)
    finally:
        move_join.speedups, edit_join.speedups = saved
    assert np.array_equal(native[0], pure[0]) and np.array_equal(native[1], pure[1])


@settings(max_examples=max(EXAMPLES // 10, 8), deadline=None)
@given(st.sampled_from(["ab", "abc", "的是"]), st.integers(0, 2**32 - 1),
       st.sampled_from([0.7, 0.8, 0.9]))  # fmt: skip
def test_many_texts_of_two_or_three_letters_miss_no_pair(
    alphabet: str, seed: int, threshold: float
) -> None:
    """A hundred texts of two- or three-letter blocks, half of them shuffled copies: every
    q-gram is held by most texts, and the join still finds every pair."""
    rng = random.Random(seed)
    texts = []
    for _ in range(50):
        blocks = ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 9)))
                  for _ in range(rng.randint(1, 4))]  # fmt: skip
        texts.append(move_join.BLOCK_MARK.join(blocks))
        rng.shuffle(blocks)
        texts.append(_edited(rng, move_join.BLOCK_MARK.join(blocks), alphabet, rng.randint(0, 2)))
    i, j, _ = move_join.join(texts, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(texts, threshold)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.text("abc", max_size=6), max_size=5),
       st.lists(st.text("abc", max_size=6), max_size=5), st.integers(0, 8))  # fmt: skip
def test_block_distance_is_the_best_matching_of_blocks(
    a: list[str], b: list[str], cutoff: int
) -> None:
    """``block_distance`` is the least summed distance over every matching (the shorter list
    padded with empty blocks); with a cutoff, the same up to it and ``cutoff + 1`` above."""
    x, y = move_join.BLOCK_MARK.join(a), move_join.BLOCK_MARK.join(b)
    want = every_matching(x, y)
    blocks_x, blocks_y = move_join.blocks_of(x), move_join.blocks_of(y)
    assert move_join.block_distance(blocks_x, blocks_y) == want
    assert move_join.block_distance(blocks_x, blocks_y, cutoff) == min(want, cutoff + 1)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_the_assignment_is_the_least_of_every_permutation(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cost = rng.integers(0, 20, size=(n, n))
    orders = itertools.permutations(range(n))
    best = min(sum(int(cost[r, c]) for r, c in enumerate(p)) for p in orders)
    assert move_join.min_assignment(cost) == best


def test_swapped_paragraphs_are_a_move_not_a_rewrite() -> None:
    """Two paragraphs swapped and two characters changed: the edit similarity of the whole
    texts is low, the block-move similarity counts only the two characters."""
    first = "the library opened its new reading room on monday"
    second = "visitors can borrow up to ten books for four weeks"
    a = move_join.BLOCK_MARK.join([first, second])
    b = move_join.BLOCK_MARK.join([second.replace("ten", "tan"), first.replace("new", "nev")])
    plain_a, plain_b = a.replace("\n", " "), b.replace("\n", " ")
    assert edit_join.edit_similarity(plain_a, plain_b) < 0.6
    assert move_join.move_similarity(a, b) == pytest.approx(1 - 2 / (len(first) + len(second)))
    i, j, _ = move_join.join([a, b, "something else entirely, of another length"], 0.9)
    assert (i.tolist(), j.tolist()) == ([0], [1])


def test_empty_and_single_texts() -> None:
    assert move_join.move_similarity("", "") == 1.0
    assert move_join.move_similarity("ab", "") == 0.0
    assert move_join.join(["only"], 0.9)[0].size == 0
    assert move_join.join([], 0.9)[0].size == 0
