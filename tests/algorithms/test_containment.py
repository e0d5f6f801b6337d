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


def _osa(a: list[int], b: list[int]) -> int:
    """Optimal string alignment distance (a swap of two neighbours is one edit)."""
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))  # fmt: skip
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return table[len(a)][len(b)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=6),
       st.lists(st.integers(0, 2), min_size=1, max_size=10),
       st.lists(st.booleans(), min_size=11, max_size=11),
       st.lists(st.booleans(), min_size=11, max_size=11), st.booleans())  # fmt: skip
def test_best_window_with_swaps_and_cuts_is_the_closest_allowed_stretch(
    item: list[int], row: list[int], starts: list[bool], ends: list[bool], cut: bool
) -> None:
    """With swaps, the distance is the optimal string alignment's; with cuts, only stretches
    starting and ending where they allow are tried: every such stretch against the answer."""
    may_start = np.array(starts[: len(row) + 1]) if cut else np.ones(len(row) + 1, bool)
    may_end = np.array(ends[: len(row) + 1]) if cut else np.ones(len(row) + 1, bool)
    stretches = [(i, j) for i in range(len(row) + 1) for j in range(i, len(row) + 1)
                 if may_start[i] and may_end[j]]  # fmt: skip
    want = min((_osa(item, row[i:j]) for i, j in stretches), default=None)
    for edits in range(len(item) + 2):
        got = best_window(np.array(item, np.uint64), np.array(row, np.uint64), edits,
                          (may_start, may_end) if cut else None, swaps=True)  # fmt: skip
        if want is None or want > edits:
            assert got is None
            continue
        assert got is not None and got[0] == want
        first, last = got[1], got[2]
        if want < len(item):  # the stretch named is allowed and that close
            assert may_start[first] and may_end[last + 1]
            assert _osa(item, row[first : last + 1]) == want


def _words(codes: list[int]) -> str:
    """A text of words over a small alphabet (0 a space, 1-3 letters a, b, c)."""
    return "".join(" " if c == 0 else "abc"[c - 1] for c in codes)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=8, max_size=24), min_size=1, max_size=3),
       st.lists(st.integers(0, 3), min_size=1, max_size=60))  # fmt: skip
def test_the_letter_rule_misses_no_row_within_it(items: list[list[int]], row: list[int]) -> None:
    """Every item with a stretch of the row's whole words within its letter edits (swaps one
    edit) is found by the letter rule, and none farther: every stretch tried (three letters
    and spaces make many near stretches and repeated pieces)."""
    from simdup.rows.decon.worker import items_in, items_in_rows
    from simdup.text.letters import letters
    from simdup.text.tokens import text_tokens

    rule = ContainmentRule(k=30, min_coverage=1.0, min_tokens=1, max_items=1000,
                           max_edit_tokens=0 + 48, min_edit_similarity=1.0,
                           min_letter_similarity=0.75, max_letter_edits=4)  # fmt: skip
    texts = [_words(it) for it in items]
    item_letters = [letters(t) for t in texts]
    index = ItemIndex([text_tokens(t).hashes for t in texts], rule,
                      [x.hashes for x in item_letters])  # fmt: skip
    text = _words(row)
    mine = letters(text)
    may_start, may_end = mine.cuts()
    codes = mine.codes.tolist()
    stretches = [(i, j) for i in range(len(codes) + 1) for j in range(i, len(codes) + 1)
                 if may_start[i] and may_end[j]]  # fmt: skip
    by_letters = {c.item for c in index.letter_similar(mine.hashes, (may_start, may_end), set())}
    for n, it in enumerate(item_letters):
        edits = rule.letter_edits(int(index.lengths[n]), len(it))
        if edits < 0:
            assert n not in by_letters
            continue
        closest = min((_osa(it.codes.tolist(), codes[i:j]) for i, j in stretches), default=99)
        assert (n in by_letters) == (closest <= edits), (texts[n], text)
    # The chunk's one probe finds what each row alone finds.
    alone = items_in(text, index)
    assert {c.item for c in alone} >= by_letters
    assert items_in_rows([text, "", text], index) == [alone, (), alone]


def test_a_sentence_with_typos_is_within_the_letter_rule() -> None:
    from simdup.rows.decon.worker import items_in
    from simdup.text.letters import letters

    text = "The expressions are evaluated from left to right."
    rule = ContainmentRule()
    index = ItemIndex([tokenize(text).hashes], rule, [letters(text).hashes])
    row = "Note. Teh expresions are evaluated form left to right, always"
    (found,) = items_in(row, index)
    assert row[found.spans[0].row_start : found.spans[0].row_end] == (
        "Teh expresions are evaluated form left to right")
    assert found.covered < found.tokens == 8
    # Three words of the item changed: by tokens 5/8, under the edit rule's 0.8.
    assert index.contained(tokenize(row).hashes) == []
    # Another sentence is not near.
    assert items_in("The arguments of a call are evaluated from left to right.", index) == ()
    off = ItemIndex([tokenize(text).hashes], ContainmentRule(max_letter_edits=0),
                    [letters(text).hashes])  # fmt: skip
    assert items_in(row, off) == ()
