"""simdup.text.blocks: a text cut into blocks of lines with the line numbers of its file; the native
cutter, the Python one and the plain rule agree."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from simdup.text.blocks import Block, cut_blocks, cut_text, cut_text_python, line_count, split_lines


def test_blocks_have_the_line_numbers_of_the_file() -> None:
    """Blocks are runs of non-blank lines, a heading starts one; CRLF, CR and LF all end a
    line, so a CRLF file has the line numbers of its LF copy."""
    text = "one\ntwo\n\n\n# Title\nbody\n"
    expected = [Block(1, 2, 0, 7), Block(5, 6, 10, 22)]
    assert cut_blocks(text) == expected
    crlf = text.replace("\n", "\r\n")
    assert [(b.start_line, b.end_line) for b in cut_blocks(crlf)] == [(1, 2), (5, 6)]
    assert line_count(text) == line_count(crlf) == 6
    assert line_count("a\rb") == 2


def test_long_runs_are_cut() -> None:
    """A run without blank lines is cut every max_lines lines and after max_chars characters."""
    text = "\n".join(f"line {n}" for n in range(1, 21))
    assert [(b.start_line, b.end_line) for b in cut_blocks(text, max_lines=8)] == [
        (1, 8),
        (9, 16),
        (17, 20),
    ]
    long = "\n".join("x" * 250 for _ in range(3))
    assert [(b.start_line, b.end_line) for b in cut_blocks(long)] == [(1, 1), (2, 2), (3, 3)]


def _reference_blocks(text: str, max_lines: int, max_chars: int) -> list[Block]:
    """The block rule of simdup.text.blocks written plainly, line by line, for the property
    below."""
    blocks: list[Block] = []
    open_block: list[int] | None = None  # [first line, count, start char, end char]
    for number, (line, offset) in enumerate(split_lines(text), 1):
        if not line.strip():
            if open_block:
                blocks.append(Block(open_block[0], open_block[0] + open_block[1] - 1,
                                    open_block[2], open_block[3]))  # fmt: skip
            open_block = None
            continue
        heading = re.match(r"[ ]{0,3}#{1,6}(?:[ \t]|$)", line) is not None
        if open_block and (
            open_block[1] == max_lines or offset - open_block[2] >= max_chars or heading
        ):
            blocks.append(Block(open_block[0], open_block[0] + open_block[1] - 1,
                                open_block[2], open_block[3]))  # fmt: skip
            open_block = None
        if open_block is None:
            open_block = [number, 0, offset, offset]
        open_block[1] += 1
        open_block[3] = offset + len(line)
    if open_block:
        blocks.append(Block(open_block[0], open_block[0] + open_block[1] - 1,
                            open_block[2], open_block[3]))  # fmt: skip
    return blocks


@given(
    lines=st.lists(
        st.sampled_from(["", " ", "\t", "word", "two words", "# Title", "   ## Sub", "#tag",
                         "    # code", "长的中文句子。", "x" * 90]),  # fmt: skip
        max_size=40,
    ),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    final=st.booleans(),
    max_lines=st.integers(1, 5),
    max_chars=st.integers(1, 200),
)
def test_blocks_follow_the_rule_in_every_line_ending(
    lines: list[str], ending: str, final: bool, max_lines: int, max_chars: int
) -> None:
    """The fast block cutter gives the plain rule's blocks, for LF, CRLF and CR texts, with or
    without a final newline."""
    text = ending.join(lines) + (ending if final and lines else "")
    expected = _reference_blocks(text, max_lines, max_chars)
    assert cut_blocks(text, max_lines, max_chars) == expected
    rows, count = cut_text_python(text, max_lines, max_chars)
    assert [Block(*r) for r in rows.tolist()] == expected
    assert count == line_count(text)
    native, native_count = cut_text(text, max_lines, max_chars)
    assert native.tolist() == rows.tolist() and native_count == count


@given(
    text=st.text(alphabet=st.sampled_from(list(" \t\r\n#x中\x0c\x85\u2028\u3000")), max_size=60),
    max_lines=st.integers(1, 4),
    max_chars=st.integers(0, 12),
)
def test_blocks_of_any_text_follow_the_rule(text: str, max_lines: int, max_chars: int) -> None:
    """Any mix of line ends, whitespace (incl. form feed, NEL, U+2028, which end no line here)
    and '#': the native cutter, the Python one and the plain rule agree."""
    expected = _reference_blocks(text, max_lines, max_chars)
    rows, count = cut_text_python(text, max_lines, max_chars)
    assert [Block(*r) for r in rows.tolist()] == expected
    native, native_count = cut_text(text, max_lines, max_chars)
    assert native.tolist() == rows.tolist()
    assert native_count == count == line_count(text)
