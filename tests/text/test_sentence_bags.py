"""simdup.text.sentence_bags: where sentences end, and a short sentence read with its neighbour."""

from __future__ import annotations

from simdup.text.sentence_bags import sentence_ends, sentence_side
from simdup.text.tokens import tokenize


def test_sentence_ends() -> None:
    """. ! ? ; before a space, a closing mark or the end; 。！？； anywhere; blank lines."""
    text = "One is 3.14 long. Two!Three? (Four.) x\n\n  \nNew 中文。再来；end"
    ends = sentence_ends(text)
    assert [text[e - 1] for e in ends] == [".", "?", ".", "\n", "\n", "。", "；"]
    assert text[: ends[2]].endswith("(Four.") and text[: ends[4]].endswith("x\n\n  \n")


def test_short_sentences_are_read_with_the_next_of_their_paragraph() -> None:
    """A sentence of fewer than 3 features joins the next one of its paragraph, a short last
    one the one before; a paragraph of one short heading stays alone: never across
    paragraphs."""
    text = (
        "Intro. The first item speaks of rivers mountains lakes.\n\nHeading\n\n"
        "Another sentence here with many words. Yes."
    )
    tokens = tokenize(text)
    side = sentence_side(text, tokens)
    assert side.sentence.tolist() == [0] * 9 + [1] + [2] * 7


def test_a_side_holds_words_by_their_stems_and_as_written() -> None:
    """A side's words by their stems and as written: "keys" and "key" are one feature (a
    stem) and two words as written (``forms``, what seeds compare); a stopword is neither; a
    CJK pair is the same in both."""
    text = "The keys of a key. 二叉搜索树。"
    side = sentence_side(text, tokenize(text))
    assert side.forms is not None
    tokens = tokenize(text)
    keys, key = [k for k in range(len(tokens)) if text[tokens.starts[k] : tokens.ends[k]] in
                 ("keys", "key")]  # fmt: skip
    assert side.feature[keys] == side.feature[key] != 0
    assert side.forms[keys] != side.forms[key] and 0 not in (side.forms[keys], side.forms[key])
    the = 0
    assert side.feature[the] == side.forms[the] == 0
    cjk = tokens.cjk.astype(bool)
    assert (side.feature[cjk] == side.forms[cjk]).all() and side.forms[cjk].any()
