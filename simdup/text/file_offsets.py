"""Where the characters a reader made of a markup file are in the file: ``file_offsets``.

The Markdown and HTML readers turn a file's decoded characters into the text a reader of the
rendered document sees (``readers.markdown``, ``readers.html``); passages and ``check`` work
in that text, and a report gives its offsets back in the file's characters, where an editor,
a highlighter or a quotation finds them. The reader's text is, part by part, the file's
characters with markup left out: each character is found in the file by one forward pass
over the part's stretch of the file (a Markdown line: the same line of the file; an HTML
paragraph: from the line of its element on), as written, as a character reference standing
for it (``&amp;``) or backslash-escaped (``\\*``). Tags, comments, the contents of
``<script>`` and ``<style>``, link destinations and template directives are passed over
whole, so that no word is found in them; what the reader added (the ``#`` of a setext or an
HTML heading, the `` | `` between cells, blank lines) is found nowhere and sits, empty, where
the pass stands. Punctuation is only looked for across markup, never across words: an added
``#`` does not jump over a line to the next ``#``.

Not changing the renderer (its output is only read), this holds whatever it renders: a
character it made that the file does not hold is an empty range, never a wrong one.
"""

from __future__ import annotations

import re
from html import unescape
from html.entities import html5

import numpy as np

from ..records import FileOffsets, FileText, Locations
from .lines import line_breaks

# A tag, a comment, a declaration or a processing instruction, which nothing of the text is
# read from; and the elements whose contents are not text at all.
_TAG = re.compile(
    r"<!--.*?(?:-->|\Z)|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>|<[!?][^<>]*>", re.S
)
_RAW = re.compile(r"<(script|style|template|title|noscript|textarea)\b", re.I)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{0,31};?)")
_DIRECTIVE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
# How far ahead one character is looked for (a long link destination, a tag with its
# attributes; a character farther than this is taken as one the reader added).
_REACH = 4096


def _entity(file: str, at: int) -> tuple[str, int] | None:
    """The text a character reference at ``at`` stands for, and its length."""
    m = _ENTITY.match(file, at)
    if m is None:
        return None
    ref = m.group()
    if ref[1] == "#":
        text = unescape(ref if ref.endswith(";") else ref + ";")
    else:
        text = html5.get(ref[1:], "") if ref.endswith(";") else ""
    return (text, len(ref)) if text else None


def _markup_end(file: str, at: int, end: int, markdown: bool) -> int:
    """Where the markup starting at ``at`` ends (``at``: there is none)."""
    c = file[at]
    if c == "<":
        m = _TAG.match(file, at, end)
        if m is None:
            return at
        raw = _RAW.match(file, at, end)
        if raw is not None:  # <script>...</script>: the contents too
            close = file.lower().find(f"</{raw.group(1).lower()}", m.end(), end)
            closing = _TAG.match(file, close, end) if close >= 0 else None
            if closing is not None:
                return closing.end()
        return m.end()
    if markdown and c == "[" and (file.startswith("[^", at) or (at and file[at - 1] == "]")):
        close = file.find("]", at, end)  # a footnote's or a reference's label
        return close + 1 if close > 0 else at
    if markdown and c == "(" and at > 0 and file[at - 1] == "]":
        depth, i = 0, at
        while i < end:  # a link destination and title, to the parenthesis closing them
            ch = file[i]
            if ch == "\\":
                i += 2
                continue
            depth += (ch == "(") - (ch == ")")
            i += 1
            if depth == 0:
                return i
        return at
    if c == "{" and file.startswith(("{{", "{%"), at):
        m = _DIRECTIVE.match(file, at, end)
        return m.end() if m is not None else at
    return at


def _align(
    read: str, lo: int, hi: int, file: str, pos: int, end: int, markdown: bool,
    begins: np.ndarray, lengths: np.ndarray,
) -> int:  # fmt: skip
    """Aligns ``read[lo:hi]`` with the file from ``pos`` (before ``end``), filling
    ``begins`` and ``lengths``; returns where the pass stands after it."""
    if read[lo:hi] == file[pos : pos + hi - lo] and pos + hi - lo <= end:  # the usual line
        begins[lo:hi] = np.arange(pos, pos + hi - lo)
        lengths[lo:hi] = 1
        return pos + hi - lo
    for i in range(lo, hi):
        c = read[i]
        if c.isspace():
            if pos < end and file[pos].isspace():
                begins[i], lengths[i] = pos, 1
                pos += 1
            else:
                begins[i], lengths[i] = pos, 0
            continue
        word = c.isalnum()
        j, limit = pos, min(end, pos + _REACH)
        found = -1
        while j < limit:
            f = file[j]
            if (
                markdown
                and (f in "([" and j > 0 and file[j - 1] == "]" or file.startswith("[^", j))
                and read[i : i + 4] != file[j : j + 4]  # as written: in a code span
            ):
                skip = _markup_end(file, j, end, markdown)
                if skip > j:  # a link's destination or label, whose "(" is not the text's
                    j = skip
                    continue
            if f == c:
                found, size = j, 1
                break
            if f == "&":
                ref = _entity(file, j)
                if ref is not None and ref[0][0] == c:
                    found, size = j, ref[1]
                    break
            elif f == "\\" and j + 1 < end and file[j + 1] == c:
                found, size = j, 2
                break
            skip = _markup_end(file, j, end, markdown)
            if skip > j:
                j = skip
                continue
            if not word and f.isalnum():
                break  # punctuation is not looked for across a word: it was added
            j += 1
        if found < 0:
            begins[i], lengths[i] = pos, 0
        else:
            begins[i], lengths[i] = found, size
            pos = found + size
    return pos


def _line_starts(text: str) -> list[int]:
    return [0, *line_breaks(text).tolist()]


def file_offsets(read: str, origin: FileText, locations: Locations | None) -> FileOffsets:
    """Where each character of ``read`` (a reader's text of the file ``origin`` holds) is in
    the file's characters. ``locations``: the reader's parts, labelled by the file line each
    starts on ("line" parts; without them the text is one part from the file's start)."""
    file = origin.text
    markdown = origin.markup == "markdown"
    size = len(read)
    begins = np.zeros(size, dtype=np.int32)
    lengths = np.zeros(size, dtype=np.uint8)
    starts = _line_starts(file)
    parts: list[tuple[int, int]] = []  # (read offset, file line) where each part starts
    if locations is not None and locations.kind == "line":
        parts = [(s, int(label)) for s, label in zip(locations.starts, locations.labels,
                                                      strict=True) if label.isdigit()]  # fmt: skip
    if not parts or parts[0][0] != 0:
        parts.insert(0, (0, 1))
    pos = 0
    for k, (lo, line) in enumerate(parts):
        hi = parts[k + 1][0] if k + 1 < len(parts) else size
        first = starts[min(line, len(starts)) - 1]
        if markdown:  # line k of the text is line k of the file: that line only
            pos = first
            end = starts[line] if line < len(starts) else len(file)
        else:  # an HTML paragraph: from its element's line to the next one's end
            pos = max(pos, first)
            after = parts[k + 1][1] if k + 1 < len(parts) else len(starts)
            end = starts[after] if after < len(starts) else len(file)
        pos = _align(read, lo, hi, file, pos, max(end, pos), markdown, begins, lengths)
    return FileOffsets(begins, lengths, len(file), np.asarray(starts[1:], dtype=np.int64))

