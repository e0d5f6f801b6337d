"""A fragment's text as a report shows it (``CopiedFragment.text`` and ``source_text``): the
words a reader of the rendered document sees, on one line, at most ``FRAGMENT_TEXT_CHARS``
characters, never cut inside a word or a citation marker.

The texts the readers give keep some Markdown: a heading's ``#`` marks (so that sections start
there), emphasis marks, list bullets, block-quote marks and table pipes (punctuation, which
no comparison counts). An excerpt leaves them out, as the rendered page does. Its ends move out
to whole words (a fragment's tokens end where its words do, but a translated passage's source
side or a cut in the middle need not) and whole citation markers (``[2]``, not ``[2``); CJK
text may be cut between any two characters. Only the text shown changes: a fragment's offsets
stay those of its tokens.
"""

from __future__ import annotations

import re
import unicodedata

from .rules import marker_ranges

# Characters of a fragment's text kept in a report: the first and the last half, "…" between.
FRAGMENT_TEXT_CHARS = 400
# How far an end moves to reach the edge of a word or a marker (a longer "word" is cut).
_REACH = 40

_LINE_MARKS = re.compile(r"^[ \t]{0,3}(?:(?:>[ \t]?)+|#{1,6}(?:[ \t]+|$)|[-*+][ \t]+)")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![A-Za-z0-9*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![A-Za-z0-9*])"
    r"|(?<![A-Za-z0-9_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![A-Za-z0-9_])"
)


def _in_word(c: str) -> bool:
    """A letter or digit of a word (not CJK: a CJK text is cut between any two characters)."""
    return c.isalnum() and unicodedata.east_asian_width(c) not in "WF"


def _splits_word(text: str, at: int) -> bool:
    return 0 < at < len(text) and _in_word(text[at - 1]) and _in_word(text[at])


def boundary(text: str, at: int, step: int) -> int:
    """``at`` moved by ``step`` (-1: left, +1: right) until it splits neither a word nor a
    citation marker (at most ``_REACH`` characters: then ``at`` as it was)."""
    lo, hi = max(0, at - _REACH), min(len(text), at + _REACH)
    for start, end in marker_ranges(text[lo:hi]):
        if lo + start < at < lo + end:
            return lo + start if step < 0 else lo + end
    moved = at
    while _splits_word(text, moved) and abs(moved - at) < _REACH:
        moved += step
    return moved if not _splits_word(text, moved) else at


def plain(text: str, at_line_start: bool = True) -> str:
    """``text`` without the Markdown marks the readers keep: each line's heading, block-quote
    and bullet marks (the first line's only when ``at_line_start``), table pipes, and
    emphasis marks around words."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if n or at_line_start:
            if _TABLE_ROW.match(line):
                line = line.replace("|", " ")
            line = _LINE_MARKS.sub("", line, count=1)
        lines[n] = line
    shown = "\n".join(lines)
    shown = _STRONG.sub(r"\2", shown)
    return _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), shown)


def excerpt(text: str, start: int, end: int) -> str:
    """Characters ``start:end`` of ``text`` as a report shows them: ends moved out to whole
    words and markers, Markdown marks left out, whitespace one space; longer than
    ``FRAGMENT_TEXT_CHARS``, its first and last half joined by " … ", cut between words."""
    start, end = boundary(text, start, -1), boundary(text, end, +1)
    line_start = text.rfind("\n", 0, start) + 1
    body = " ".join(plain(text[start:end], not text[line_start:start].strip()).split())
    if len(body) <= FRAGMENT_TEXT_CHARS:
        return body
    half = FRAGMENT_TEXT_CHARS // 2
    head, tail = boundary(body, half, -1), boundary(body, len(body) - half, +1)
    return f"{body[:head].rstrip()} … {body[tail:].lstrip()}"


def emphasis_marks(text: str) -> list[tuple[int, int]]:
    """Where the emphasis marks around words are in ``text`` (``**``, ``__``, ``*``, ``_``),
    as ``plain`` finds them: what a page showing the text hides."""
    found = []
    for pattern in (_STRONG, _EMPHASIS):
        for m in pattern.finditer(text):
            inner = m.group(2) if pattern is _STRONG else (m.group(1) or m.group(2))
            first = m.start() + m.group(0).index(inner)
            found += [(m.start(), first), (first + len(inner), m.end())]
    return sorted(found)
