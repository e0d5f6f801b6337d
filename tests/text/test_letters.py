"""simdup.text.letters: a text as the letters of its tokens, what decon's letter rule compares."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.text.letters import SEPARATOR, letters
from simdup.text.tokens import text_tokens


def _spelled(text: str, markup: str = "none") -> str:
    return "".join("·" if c == SEPARATOR else chr(c) for c in letters(text, markup).codes.tolist())


def test_letters_are_folded_words_with_one_separator_between_two() -> None:
    assert _spelled("Hello,  World!") == "hello·world"
    assert _spelled("使用 Python 的 API。") == "使用python的api"
    # Width, case, look-alikes, invisible characters and traditional characters fold as tokens.
    assert _spelled("ＡＢ\u200bС 中國") == _spelled("abc 中国") == "abc中国"
    assert _spelled(" \n\t ,.;") == ""


def test_each_letter_keeps_its_offset_and_token() -> None:
    text = "Hi, 世界 ok"
    found = letters(text)
    tokens = text_tokens(text)
    assert found.offsets.tolist() == [0, 1, 4, 5, 7, 8]
    assert found.tokens.tolist() == [0, 0, 1, 2, 3, 3]
    may_start, may_end = found.cuts()
    assert np.flatnonzero(may_start).tolist() == [0, 2, 3, 4]
    assert np.flatnonzero(may_end).tolist() == [2, 3, 4, 6]
    assert len(tokens) == 4


def test_markup_is_left_out_as_tokens_leave_it_out() -> None:
    text = "see [the docs](https://example.com/x) now"
    assert _spelled(text, "markdown") == "see·the·docs·now"
    assert _spelled(text) == "see·the·docs·https·example·com·x·now"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 中,\u200bＸ\n"), max_size=40) | st.text(max_size=40))
def test_letters_follow_the_tokens(text: str) -> None:
    """The letters' token numbers are those of ``text_tokens``: each letter sits in its token,
    a separator only between two words, none first or last."""
    found = letters(text)
    tokens = text_tokens(text)
    codes = found.codes.tolist()
    assert (len(tokens) == 0) == (len(codes) == 0)
    if not codes:
        return
    assert codes[0] != SEPARATOR and codes[-1] != SEPARATOR
    assert found.tokens.min() == 0 and found.tokens.max() == len(tokens) - 1
    for at, code in enumerate(codes):
        token = int(found.tokens[at])
        if code == SEPARATOR:
            assert not tokens.cjk[token] and not tokens.cjk[token - 1]
            assert found.offsets[at] == tokens.starts[token]
        else:
            assert tokens.starts[token] <= found.offsets[at] < tokens.ends[token]
