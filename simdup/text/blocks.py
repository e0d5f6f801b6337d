"""A decoded text cut into blocks: paragraphs with the line numbers they have in the file.

Passages (``simdup.passages``) are made of blocks, so a reported passage always starts and ends
on a line of the file as stored. A line ends at ``\\r\\n``, ``\\r`` or ``\\n`` (the newline
sequences of SARIF and of every editor), so a CRLF file or a UTF-16 file has the same line
numbers as its UTF-8 LF copy. Decoding (``simdup.readers.decoding``) never adds or removes a line
break: line numbers of the decoded text are those of the file in its own encoding.

A block is a run of non-blank lines; a Markdown heading (``#`` to ``######``) starts a new
one, since a section that is copied starts at its heading. A block also ends after
``max_lines`` lines or once it holds ``max_chars`` characters (a code listing or a list
without blank lines; a text that writes each paragraph on one line and no blank lines
between them), so that a passage copied out of the middle of such a run can still be located
to within a line or two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..native import speedups

# One line: its text without the newline sequence; a final line without one counts too.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
DEFAULT_MAX_LINES = 8
DEFAULT_MAX_CHARS = 200


@dataclass(frozen=True, slots=True)
class Block:
    """Lines ``start_line..end_line`` (1-based, inclusive) of a text, which are
    ``text[start_char:end_char]`` (code points of the decoded text, the last newline excluded)."""

    start_line: int
    end_line: int
    start_char: int
    end_char: int


def split_lines(text: str) -> list[tuple[str, int]]:
    """Each line of ``text`` without its newline sequence, with the offset where it starts."""
    out: list[tuple[str, int]] = []
    if "\r" not in text:  # the usual case: one split, no regex
        offset = 0
        for line in text.split("\n"):
            out.append((line, offset))
            offset += len(line) + 1
        if out and not out[-1][0]:
            out.pop()  # the text ends with a newline: no line after it
        return out
    for match in _LINE.finditer(text):
        out.append((match.group().rstrip("\r\n"), match.start()))
    return out


def cut_blocks(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_chars: int = DEFAULT_MAX_CHARS
) -> list[Block]:
    """The blocks of ``text`` in order (see the module docstring)."""
    bounds, _ = cut_text(text, max_lines, max_chars)
    return [Block(*row) for row in bounds.tolist()]


def cut_text(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[np.ndarray, int]:
    """The blocks of ``text`` as rows ``(start_line, end_line, start_char, end_char)`` of an
    ``int64`` array (``Block``'s fields; no object per block: a corpus has millions), and the
    text's number of lines (natively when the extension is there; ``cut_text_python`` is the
    definition)."""
    if speedups is None:
        return cut_text_python(text, max_lines, max_chars)
    rows, lines = speedups.cut_blocks(text, max_lines, max_chars)
    return np.frombuffer(rows, dtype=np.int64).reshape(-1, 4), lines


def cut_text_python(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[np.ndarray, int]:
    """``cut_text`` line by line in Python (the definition ``speedups.cut_blocks`` follows)."""
    if max_lines < 1:
        raise ValueError("max_lines must be at least 1")
    if "\r" in text:
        pairs = split_lines(text)
        lines = [line for line, _ in pairs]
        offsets: list[int] | None = [offset for _, offset in pairs]
    else:  # the usual case: offsets follow from the lengths
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()  # the text ends with a newline: no line after it
        offsets = None
    out: list[int] = []
    first = -1  # line number where the open block starts (-1: none open)
    start = end = count = offset = 0
    for number, line in enumerate(lines, 1):
        if offsets is not None:
            offset = offsets[number - 1]
        size = len(line)
        if not size or line.isspace():
            if first >= 0:
                out += (first, first + count - 1, start, end)
                first = -1
        else:
            if first >= 0 and (
                count == max_lines
                or offset - start >= max_chars
                or (line[0] in " #" and _HEADING.match(line) is not None)
            ):
                out += (first, first + count - 1, start, end)
                first = -1
            if first < 0:
                first, start, count = number, offset, 0
            count += 1
            end = offset + size
        offset += size + 1
    if first >= 0:
        out += (first, first + count - 1, start, end)
    return np.array(out, dtype=np.int64).reshape(-1, 4), len(lines)


def line_count(text: str) -> int:
    """How many lines ``text`` has (a final line without a newline counts)."""
    return len(split_lines(text))
