"""The edit-similarity join of short texts (``algorithms.edit_join``) against every pair."""

from __future__ import annotations

import itertools
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from simdup.algorithms import edit_join

EXAMPLES = int(os.environ.get("SIMDUP_FUZZ_EXAMPLES", "150"))


def brute_force(texts: list[str], threshold: float) -> set[tuple[int, int]]:
    return {
        (a, b)
        for a, b in itertools.combinations(range(len(texts)), 2)
        if Levenshtein.normalized_similarity(texts[a], texts[b]) >= threshold
    }


@st.composite
def texts_with_copies(draw: st.DrawFn) -> list[str]:
    """Texts of a small alphabet (many shared q-grams: the hard case for a filter), each with
    an edited copy."""
    alphabet = draw(st.sampled_from(["ab", "abc", "abcdefg", "的是了在", "a的b"]))
    base = draw(st.lists(st.text(alphabet, max_size=40), min_size=1, max_size=12))
    texts = list(base)
    for text in base:
        chars = list(text)
        for op, at, new in draw(
            st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60), st.sampled_from(alphabet)),
                     max_size=4)
        ):  # fmt: skip
            at = at % (len(chars) + 1)
            if op == 0:
                chars.insert(at, new)
            elif at < len(chars):
                if op == 1:
                    del chars[at]
                else:
                    chars[at] = new
        texts.append("".join(chars))
    return texts


@settings(max_examples=EXAMPLES, deadline=None)
@given(texts_with_copies(), st.sampled_from([0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]))
def test_the_join_misses_no_pair_at_or_above_the_threshold(texts: list[str], threshold: float):
    i, j, sims = edit_join.join(texts, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(texts, threshold)
    for a, b, s in zip(i.tolist(), j.tolist(), sims.tolist(), strict=True):
        assert s == pytest.approx(Levenshtein.normalized_similarity(texts[a], texts[b]))


def test_candidates_are_each_pair_once_in_order() -> None:
    texts = ["abcdefghij", "abcdefghik", "abcdefghij", "zzzzzzzzzz"]
    i, j = edit_join.candidate_pairs(texts, 0.9)
    pairs = list(zip(i.tolist(), j.tolist(), strict=True))
    assert pairs == sorted(set(pairs))
    assert all(a < b for a, b in pairs)
    assert {(0, 1), (0, 2), (1, 2)} <= set(pairs)


def test_a_q_gram_every_text_holds_still_pairs_its_texts() -> None:
    """Issue 50: a q-gram in the prefixes of more than max(128, n/512) texts was no key, so
    pairs that shared only such q-grams were missed (80% of the typo copies of 50,000 English
    lines found). Now every q-gram is a key: 600 texts of one template, each one edit from
    its neighbours, are all paired as brute force pairs them."""
    texts = [f"order number {n:03d} was shipped today" for n in range(600)]
    texts.append("order number 007 was shipped today!")
    i, j, _ = edit_join.join(texts, 0.9)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(texts, 0.9)
    assert (7, 600) in set(zip(i.tolist(), j.tolist(), strict=True))


@settings(max_examples=max(EXAMPLES // 5, 10), deadline=None)
@given(
    st.sampled_from(["ab", "abc", "的是"]),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.7, 0.8, 0.9]),
)
def test_many_texts_of_two_or_three_letters_miss_no_pair(
    alphabet: str, seed: int, threshold: float
) -> None:
    """Two hundred texts of a two- or three-letter alphabet: every q-gram is held by most
    texts (the case a crowd limit gave up on), and the join still finds every pair."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(8, 30))) for _ in range(200)]
    i, j, _ = edit_join.join(texts, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(texts, threshold)


@pytest.mark.parametrize(
    ("threshold", "longest", "q"), [(0.9, 400, 5), (0.8, 400, 4), (0.75, 400, 3), (0.7, 400, 2)]
)
def test_the_q_grams_are_as_long_as_every_prefix_allows(
    threshold: float, longest: int, q: int
) -> None:
    """The longest q (up to 5) for which each text, ``k`` edits at most from a partner, has
    the ``q * k + 1`` q-grams its prefix needs: ``n + q - 1`` of them for ``n`` characters."""
    assert edit_join.gram_length(threshold, longest) == q
    length = np.arange(longest + 1)
    assert np.all(q * edit_join.max_edits(length, threshold) + 1 <= length + q - 1)


def test_texts_below_the_lowest_threshold_are_refused() -> None:
    with pytest.raises(ValueError, match="below"):
        edit_join.join(["a", "b"], 0.5)


def test_bigram_features_are_stable_and_distinct() -> None:
    hashes, counts = edit_join.bigram_features("abab")
    assert hashes.size == counts.size == 4  # ^a, ab, ba, b$
    assert counts.sum() == 5
    again, _ = edit_join.bigram_features("abab")
    assert hashes.tolist() == again.tolist()


def test_the_join_tells_its_progress_and_finds_the_same_pairs(monkeypatch: pytest.MonkeyPatch):
    """Issue 47: the edit join of 52,000 short rows took most of a run with nothing drawn
    ("verifying 00:00" frozen). ``progress`` is told how far it is, in thousandths, never
    backwards, up to the end; its pairs are the same as without it."""
    monkeypatch.setattr(edit_join, "_PROGRESS_PAIRS", 7)  # several ticks on a small join
    texts = [f"how do I resize an image in {w}?" for w in ("android", "androids", "pandas")]
    texts += [f"what is the capital of {c}" for c in ("france", "frances", "spain", "spainn")]
    texts += [f"what is the capital of spain{n}" for n in range(10)]  # 45 pairs and more
    told: list[tuple[int, int]] = []
    with_progress = edit_join.join(texts, 0.9, progress=lambda d, t: told.append((d, t)))
    without = edit_join.join(texts, 0.9)
    assert [a.tolist() for a in with_progress] == [a.tolist() for a in without]
    assert with_progress[0].size >= 3
    done = [d for d, _ in told]
    assert {t for _, t in told} == {1000} and done[0] == 0 and done[-1] == 1000
    assert done == sorted(done) and len(set(done)) > edit_join._SETUP_STEPS + 2
