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
from bisect import bisect_right
from collections.abc import Sequence
from html import unescape
from html.entities import html5

import numpy as np

from ..records import FileText, Locations
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
            closing = re.compile(rf"</{raw.group(1)}\s*>", re.I).search(file, m.end(), end)
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


def _run(read: str, i: int, hi: int, file: str, pos: int, end: int) -> int:
    """How many characters from ``read[i]`` on are those of the file from ``pos`` on (at
    least 1: the first are known equal), found by halving (slices compare in C)."""
    n = min(hi - i, end - pos)
    if read[i : i + n] == file[pos : pos + n]:
        return n
    same, differ = 1, n  # read[i:i + same] is the file's; read[i:i + differ] is not
    while differ - same > 1:
        mid = (same + differ) // 2
        if read[i : i + mid] == file[pos : pos + mid]:
            same = mid
        else:
            differ = mid
    return same


def _align(
    read: str, lo: int, hi: int, file: str, pos: int, end: int, markdown: bool,
    begins: np.ndarray, lengths: np.ndarray,
) -> int:  # fmt: skip
    """Aligns ``read[lo:hi]`` with the file from ``pos`` (before ``end``), filling
    ``begins`` and ``lengths``; returns where the pass stands after it."""
    starts: list[int] = []
    sizes: list[int] = []
    i = lo
    while i < hi:
        c = read[i]
        if pos < end and file[pos] == c and not (
            markdown and c in "([" and read[i : i + 4] != file[pos : pos + 4]
        ):  # as written, as far as it goes (most of a line; all of most lines)
            run = _run(read, i, hi, file, pos, end)
            starts.extend(range(pos, pos + run))
            sizes.extend([1] * run)
            i, pos = i + run, pos + run
            continue
        if c.isspace():
            if pos < end and file[pos].isspace():
                starts.append(pos)
                sizes.append(1)
                pos += 1
            else:
                starts.append(pos)
                sizes.append(0)
            i += 1
            continue
        word = c.isalnum()
        j, limit = pos, min(end, pos + _REACH)
        found = size = -1
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
            starts.append(pos)
            sizes.append(0)
        else:
            starts.append(found)
            sizes.append(size)
            pos = found + size
        i += 1
    begins[lo:hi] = starts
    lengths[lo:hi] = sizes
    return pos


class FileOffsets:
    """Where each character of a reader's text is in the file's decoded characters: character
    ``i`` is the file's ``begins[i]:begins[i] + lengths[i]`` (a length of 0: a character the
    reader added, such as a heading's ``#``; more than 1: ``&amp;`` or ``\\*``). Worked out
    on demand, part by part: a Markdown line alone (line k of the text is line k of the file),
    HTML paragraphs in order up to the one asked about (each starts where the last ended), so
    that locating a few fragments of a long document aligns a few of its lines."""

    def __init__(self, read: str, origin: FileText, locations: Locations | None) -> None:
        self.read = read
        self.file = origin.text
        self.markdown = origin.markup == "markdown"
        self.size = len(self.file)
        self.line_starts: list[int] = [0, *line_breaks(self.file).tolist()]
        self.breaks = np.asarray(self.line_starts[1:], dtype=np.int64)
        # Where each part starts in the text (ascending, the first 0), and the file line it
        # starts on: the Markdown reader's line k is the file's line k (its locations' labels
        # are "1", "2", ...), the HTML reader's paragraph is labelled by its element's line.
        self.part_starts: Sequence[int] = (0,)
        self.part_lines: Sequence[int] = (1,)
        if locations is not None and locations.kind == "line" and locations.starts[:1] == (0,):
            if self.markdown:
                self.part_starts = locations.starts
                self.part_lines = range(1, len(locations.starts) + 1)
            else:
                labelled = zip(locations.starts, locations.labels, strict=True)
                parts = [(s, int(label)) for s, label in labelled if label.isdigit()]
                if parts and parts[0][0] == 0:
                    self.part_starts = [s for s, _ in parts]
                    self.part_lines = [line for _, line in parts]
        self.begins = np.zeros(len(read), dtype=np.int32)
        self.lengths = np.zeros(len(read), dtype=np.uint8)
        self._aligned = np.zeros(len(self.part_starts), dtype=bool)
        self._next = 0  # HTML: the first part not aligned yet
        self._pos = 0  # HTML: where the pass stands after it

    def _line_start(self, line: int) -> int:
        return self.line_starts[min(max(line, 1), len(self.line_starts)) - 1]

    def _line_end(self, line: int) -> int:
        return self.line_starts[line] if line < len(self.line_starts) else self.size

    def _part(self, k: int) -> None:
        """Aligns part ``k`` (and, for HTML, every part before it)."""
        if self._aligned[k]:
            return
        last = len(self.part_starts) - 1
        if self.markdown:
            line = self.part_lines[k]
            hi = self.part_starts[k + 1] if k < last else len(self.read)
            _align(self.read, self.part_starts[k], hi, self.file, self._line_start(line),
                   self._line_end(line), True, self.begins, self.lengths)  # fmt: skip
            self._aligned[k] = True
            return
        for n in range(self._next, k + 1):
            # An HTML paragraph: from its element's line (or where the last one ended) to the
            # end of the next one's line.
            hi = self.part_starts[n + 1] if n < last else len(self.read)
            pos = max(self._pos, self._line_start(self.part_lines[n]))
            end = self._line_end(self.part_lines[n + 1]) if n < last else self.size
            self._pos = _align(self.read, self.part_starts[n], hi, self.file, pos,
                               max(end, pos), False, self.begins, self.lengths)  # fmt: skip
            self._aligned[n] = True
        self._next = k + 1

    def _char(self, offset: int) -> tuple[int, int]:
        """Where character ``offset`` of the text is in the file: its start and end."""
        self._part(bisect_right(self.part_starts, offset) - 1)
        begin = int(self.begins[offset])
        return begin, begin + int(self.lengths[offset])

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Text offsets ``start:end`` as file offsets: from the first character's start to the
        last one's end (an empty range: where the pass stood there)."""
        count = len(self.read)
        start = min(max(start, 0), count)
        if end <= start:
            at = self._char(start)[0] if start < count else self.size
            return at, at
        first = self._char(start)[0]
        return first, max(first, self._char(min(end, count) - 1)[1])

    def lines(self, start: int, end: int) -> tuple[int, int]:
        """The file's first and last line (1-based) of file offsets ``start:end``."""
        first = int(np.searchsorted(self.breaks, start, "right")) + 1
        last = int(np.searchsorted(self.breaks, max(start, end - 1), "right")) + 1
        return first, last


def file_offsets(read: str, origin: FileText, locations: Locations | None) -> FileOffsets:
    """Where each character of ``read`` (a reader's text of the file ``origin`` holds) is in
    the file's characters, worked out as it is asked (``FileOffsets``). ``locations``: the
    reader's parts, labelled by the file line each starts on ("line" parts; without them the
    text is one part from the file's start)."""
    return FileOffsets(read, origin, locations)
