"""simdup.text.lines: the lines of a text and where they start, held to a plain definition
(a line ends at ``\\r\\n``, ``\\r`` or ``\\n``, and nowhere else)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from simdup.text.lines import line_breaks, split_lines

_NEWLINE = re.compile(r"\r\n|\r|\n")

# Pieces of text: every newline sequence, characters Unicode or str.splitlines count as line
# ends but a file's line numbers do not (VT, FF, NEL, U+2028), astral characters (one code
# point, two UTF-16 units) and lone surrogates (what "surrogateescape" decoding leaves).
_PIECES = ["\n", "\r\n", "\r", "a", "two words", " ", "中", "😀", "𝄞", "\ud800", "\udfff",
           "\x0b", "\x0c", "\x85", "\u2028"]  # fmt: skip
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)
# The same without "\r": line_breaks takes another way for such texts.
_lf_texts = st.lists(st.sampled_from([p for p in _PIECES if "\r" not in p]), max_size=40).map(
    "".join
)


def test_a_crlf_or_cr_text_has_the_lines_of_its_lf_copy() -> None:
    text = "one\ntwo\n\n\n# Title\nbody\n"
    crlf = text.replace("\n", "\r\n")
    assert [line for line, _ in split_lines(text)] == ["one", "two", "", "", "# Title", "body"]
    assert [line for line, _ in split_lines(crlf)] == [line for line, _ in split_lines(text)]
    assert len(split_lines(text)) == len(split_lines(crlf)) == 6
    assert split_lines("a\rb") == [("a", 0), ("b", 2)]
    assert split_lines("") == []
    assert split_lines("\n") == [("", 0)]
    assert line_breaks(crlf).tolist() == [5, 10, 12, 14, 23, 29]


@given(text=_texts | _lf_texts | st.text(max_size=60))
def test_lines_follow_the_plain_definition(text: str) -> None:
    """line_breaks gives the ends of the newline sequences; split_lines gives a line starting
    at 0 and after each break (none after a final break: no line follows it, and an empty
    text has none), each line the text up to the next newline sequence."""
    newlines = list(_NEWLINE.finditer(text))
    breaks = [m.end() for m in newlines]
    found = line_breaks(text)
    assert found.dtype == "int64"
    assert found.tolist() == breaks

    starts = [0, *breaks]
    if starts[-1] == len(text):
        starts.pop()
    ends = [m.start() for m in newlines] + [len(text)]
    assert split_lines(text) == [(text[s:e], s) for s, e in zip(starts, ends, strict=False)]
