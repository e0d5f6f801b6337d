"""The lines of a decoded text, with the line numbers they have in the file.

A line ends at ``\\r\\n``, ``\\r`` or ``\\n`` (the newline sequences of SARIF and of every
editor), so a CRLF file or a UTF-16 file has the same line numbers as its UTF-8 LF copy.
Decoding (``simdup.readers.decoding``) never adds or removes a line break: line numbers of the
decoded text are those of the file as stored, in any encoding.
"""

from __future__ import annotations

import re

import numpy as np

# One line: its text without the newline sequence; a final line without one counts too.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


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


def line_breaks(text: str) -> np.ndarray:
    """Where the lines of ``text`` after the first start (after ``\\r\\n``, ``\\r`` or
    ``\\n``), as ``int64`` character offsets."""
    if "\r" in text:
        return np.fromiter((m.end() for m in _LINE_BREAK.finditer(text)), dtype=np.int64)
    # One uint32 per code point, as str offsets count; "surrogatepass": a lone surrogate is one
    # too, instead of an error.
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    found: np.ndarray = np.flatnonzero(codes == 10) + 1
    return found.astype(np.int64)
