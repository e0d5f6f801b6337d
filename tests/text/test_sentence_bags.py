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
