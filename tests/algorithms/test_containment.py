"""simdup.algorithms.containment: the index of evaluation items that decontamination looks rows
up in."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.algorithms.containment import ContainmentRule, ItemIndex, best_window
from simdup.text.tokens import tokenize


def test_a_crowded_template_gives_no_hits() -> None:
    template = tokenize("which of the following statements best describes the").hashes
    items = [np.concatenate([template, tokenize(f"option {n} alpha beta gamma").hashes])
             for n in range(100)]  # fmt: skip
    index = ItemIndex(items, ContainmentRule(max_items=10))
    assert index.common > 0
    assert index.contained(template) == []


def _brute_distance(item: list[int], row: list[int]) -> int:
    """The edit distance of ``item`` to its closest stretch of ``row``, every stretch tried."""
    from rapidfuzz.distance import Levenshtein

    return min(Levenshtein.distance(item, row[i:j]) for i in range(len(row) + 1)
               for j in range(i, len(row) + 1))  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=7),
       st.lists(st.integers(0, 3), min_size=1, max_size=12))  # fmt: skip
def test_best_window_is_the_closest_stretch(item: list[int], row: list[int]) -> None:
    best = best_window(np.array(item, np.uint64), np.array(row, np.uint64), len(item))
    assert best is not None
    distance, first, last = best
    assert distance == _brute_distance(item, row)
    if distance < len(item):  # the stretch named is that close
        from rapidfuzz.distance import Levenshtein

        assert Levenshtein.distance(item, row[first : last + 1]) == distance
    if distance > 0:
        assert best_window(np.array(item, np.uint64), np.array(row, np.uint64),
                           distance - 1) is None  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=5, max_size=20), min_size=1, max_size=4),
       st.lists(st.integers(0, 9), min_size=1, max_size=40))  # fmt: skip
def test_the_edit_rule_misses_no_row_within_it(items: list[list[int]], row: list[int]) -> None:
    """Every item within the rule's edits of some stretch of the row is found (the q-gram
    candidates lose none), and none farther is found by the edit rule alone."""
    rule = ContainmentRule(k=30, min_coverage=1.0, min_tokens=5, max_items=1000)
    index = ItemIndex([np.array(it, np.uint64) for it in items], rule)
    found = {c.item for c in index.contained(np.array(row, np.uint64))}
    for n, it in enumerate(items):
        within = _brute_distance(it, row) <= rule.max_edits(len(it))
        whole = any(row[i : i + len(it)] == it for i in range(len(row)))
        assert (n in found) == (within or whole), (it, row)


def test_a_lightly_edited_short_item_is_within_the_edit_rule() -> None:
    item = tokenize("The expressions are evaluated from left to right.").hashes
    rule = ContainmentRule()
    index = ItemIndex([item], rule)
    edited = tokenize("Note. The expresions are evaluated from left to right, always").hashes
    (found,) = index.contained(edited)
    assert (found.item, found.covered, found.tokens) == (0, 7, 8)
    other = tokenize("The arguments of a call are evaluated from left to right.").hashes
    assert index.contained(other) == []
    assert ItemIndex([item], ContainmentRule(max_edit_tokens=0)).contained(edited) == []
