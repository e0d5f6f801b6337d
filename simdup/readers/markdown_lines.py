"""Markdown as rendered, line for line, in one pass over the characters: the definition of the
native ``markdown_lines`` (simdup/native/markdown.c), which does the same work in C.

Line k of the result holds what line k of the text shows; a line that shows nothing is empty.
Only ASCII characters take part in markup (spaces and tabs are the only blanks), so the rules
read the same in C. Two callbacks give what needs Python's tables: ``decode(reference)`` the
character a reference such as ``&amp;`` or ``&#x4e2d;`` stands for (the reference itself when it
names none), and ``defined(label)`` whether the document defines a link label.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from itertools import accumulate

from .front_matter import front_matter_end

Decode = Callable[[str], str]
Defined = Callable[[str], bool]

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_BLANK = frozenset(" \t")
_TAG_NAME = _LETTERS | _DIGITS | {"-"}
_ATTRIBUTE_START = _LETTERS | {"_", ":"}
_ATTRIBUTE_NAME = _LETTERS | _DIGITS | {"_", ".", ":", "-"}
_UNQUOTED_STOP = frozenset(" \t\"'=<>`")
_SCHEME = _LETTERS | _DIGITS | {"+", ".", "-"}
_TABLE_DELIMITER = frozenset(" \t|:-")

# The characters that may begin inline markup (every other shows as it is).
_SPECIAL = re.compile(r"[\\`<&\[\]{]")
# How far ahead the end of an inline construct is looked for (a link label is at most 999
# characters in CommonMark): a line of unclosed openers costs linear time, not quadratic.
LOOKAHEAD = 1000
# Where a link destination may end or nest.
_DESTINATION_STOP = re.compile(r"[ \t()]")
# What a line that is not plain prose starts with (after up to three spaces).
_BLOCK_START = frozenset(" \t>`~=-*_[|:{#+0123456789")
# States carried from one line to the next.
NORMAL, FENCE, COMMENT, SCRIPT, STYLE = range(5)


def _indent(line: str) -> int:
    """Where a line's content starts after up to three spaces."""
    k = 0
    while k < 3 and k < len(line) and line[k] == " ":
        k += 1
    return k


def _fence_at(line: str) -> tuple[str, int, int] | None:
    """``(character, length, where)`` of a code fence opening ``line`` (after any indentation,
    block quote markers and a list item's marker: a fence nested in a list or indented inside
    an HTML block is code all the same), or None."""
    n = len(line)
    k = 0
    while True:
        while k < n and line[k] in _BLANK:
            k += 1
        if k < n and line[k] == ">":
            k += 1
            continue
        j = k
        while j < n and j - k < 9 and line[j] in _DIGITS:
            j += 1
        if j < n and (
            (j == k and line[j] in "-*+") or (j > k and line[j] in ".)")
        ) and j + 1 < n and line[j + 1] in _BLANK:
            k = j + 1
            continue
        break
    if k >= n or line[k] not in "`~":
        return None
    mark = line[k]
    run = k
    while run < n and line[run] == mark:
        run += 1
    if run - k < 3:
        return None
    return mark, run - k, run


def _closes(line: str, mark: str, length: int) -> bool:
    """Whether ``line`` closes a fence of ``length`` ``mark`` characters."""
    found = _fence_at(line)
    if found is None or found[0] != mark or found[1] < length:
        return False
    return all(ch in _BLANK for ch in line[found[2] :])


def _stray_closing(lines: list[str], row: int, mark: str, length: int, where: int) -> bool:
    """Whether the bare fence ``lines[row]`` closes a code block cut above it (a copied second
    half of one) rather than opening one: no fence closes it, or the next that could is one
    with an info string, which opens a block and closes none."""
    if lines[row][where:].strip(" \t"):
        return False
    for line in lines[row + 1 :]:
        if mark in line:
            found = _fence_at(line)
            if found is not None and found[0] == mark and found[1] >= length:
                return bool(line[found[2] :].strip(" \t"))
    return True


def _rule_kind(line: str) -> str:
    """"=" or "-" for a setext underline, "break" for a thematic break, "" for neither."""
    k = _indent(line)
    body = line[k:].rstrip(" \t")
    if not body:
        return ""
    if all(ch == "=" for ch in body):
        return "="
    if all(ch == "-" for ch in body):
        return "-"
    marks = [ch for ch in body if ch not in _BLANK]
    if len(marks) >= 3 and marks[0] in "*_" and all(ch == marks[0] for ch in marks):
        return "break"
    if len(marks) >= 3 and marks[0] == "-" and all(ch == "-" for ch in marks):
        return "break"
    return ""


def _is_table_delimiter(line: str) -> bool:
    return "|" in line and "-" in line and all(ch in _TABLE_DELIMITER for ch in line)


def _is_directive_line(line: str) -> bool:
    body = line.strip(" \t")
    return len(body) >= 4 and (
        (body.startswith("{{") and body.endswith("}}"))
        or (body.startswith("{%") and body.endswith("%}"))
    )


def _is_reference_definition(line: str) -> bool:
    """``[label]: destination``: a link reference definition (a footnote's is not one)."""
    k = _indent(line)
    if k >= len(line) or line[k] != "[" or line[k + 1 : k + 2] == "^":
        return False
    end = line.find("]", k + 1)
    if end <= k + 1 or "[" in line[k + 1 : end] or line[end + 1 : end + 2] != ":":
        return False
    return bool(line[end + 2 :].strip(" \t"))


def _tag_end(line: str, k: int) -> int:
    """The index after an HTML tag starting at ``line[k] == "<"``, or -1."""
    n = len(line)
    j = k + 1
    closing = j < n and line[j] == "/"
    if closing:
        j += 1
    if j >= n or line[j] not in _LETTERS:
        return -1
    while j < n and line[j] in _TAG_NAME:
        j += 1
    if closing:
        while j < n and line[j] in _BLANK:
            j += 1
        return j + 1 if j < n and line[j] == ">" else -1
    while True:
        blank = j
        while j < n and line[j] in _BLANK:
            j += 1
        if j < n and line[j] == ">":
            return j + 1
        if j + 1 < n and line[j] == "/" and line[j + 1] == ">":
            return j + 2
        if j == blank or j >= n or line[j] not in _ATTRIBUTE_START:
            return -1
        while j < n and line[j] in _ATTRIBUTE_NAME:
            j += 1
        after_name = j
        while j < n and line[j] in _BLANK:
            j += 1
        if j < n and line[j] == "=":
            j += 1
            while j < n and line[j] in _BLANK:
                j += 1
            if j < n and line[j] in "\"'":
                quote = line.find(line[j], j + 1, j + 1 + LOOKAHEAD)
                if quote < 0:
                    return -1
                j = quote + 1
            else:
                start = j
                while j < n and line[j] not in _UNQUOTED_STOP:
                    j += 1
                if j == start:
                    return -1
        else:
            j = after_name


def _autolink_end(line: str, k: int) -> int:
    """The index of the ">" closing an autolink ``<scheme:...>`` at ``k``, or -1."""
    n = len(line)
    j = k + 1
    if j >= n or line[j] not in _LETTERS:
        return -1
    start = j
    while j < n and line[j] in _SCHEME:
        j += 1
    if not 2 <= j - start <= 32 or j >= n or line[j] != ":":
        return -1
    while j < n and line[j] not in " \t<>":
        j += 1
    return j if j < n and line[j] == ">" else -1


def _destination_end(line: str, k: int) -> int:
    """The index after ``(destination "title")`` opening at ``line[k] == "("``, or -1."""
    n = len(line)
    j = k + 1
    while j < n and line[j] in _BLANK:
        j += 1
    if j < n and line[j] == "<":
        close = line.find(">", j + 1, j + 1 + LOOKAHEAD)
        if close < 0:
            return -1
        j = close + 1
    else:
        depth = 0
        while (stop := _DESTINATION_STOP.search(line, j)) is not None:
            j = stop.start()  # the characters before are the destination's
            ch = line[j]
            if ch in _BLANK:
                break
            if ch == "(":
                if depth:
                    return -1
                depth = 1
            elif not depth:  # ")"
                break
            else:
                depth = 0
            j += 1
        else:
            j = n
    blank = j
    while j < n and line[j] in _BLANK:
        j += 1
    if j < n and j > blank and line[j] in "\"'(":
        close = line.find(")" if line[j] == "(" else line[j], j + 1, j + 1 + LOOKAHEAD)
        if close < 0:
            return -1
        j = close + 1
        while j < n and line[j] in _BLANK:
            j += 1
    return j + 1 if j < n and line[j] == ")" else -1


def _entity_end(line: str, k: int) -> int:
    """The index after a character reference starting at ``line[k] == "&"``, or -1."""
    n = len(line)
    j = k + 1
    if j < n and line[j] == "#":
        j += 1
        digits = _DIGITS
        most = 7
        if j < n and line[j] in "xX":
            j += 1
            digits = _HEX
            most = 6
        start = j
        while j < n and line[j] in digits and j - start < most:
            j += 1
        return j + 1 if start < j < n and line[j] == ";" else -1
    start = j
    if j >= n or line[j] not in _LETTERS:
        return -1
    while j < n and (line[j] in _LETTERS or line[j] in _DIGITS) and j - start < 32:
        j += 1
    return j + 1 if j < n and line[j] == ";" else -1


def _starts_folded(line: str, k: int, word: str) -> bool:
    """Whether ``line[k:]`` starts with ``word`` (lower case ASCII), ASCII capitals folded."""
    if k + len(word) > len(line):
        return False
    for offset, want in enumerate(word):
        ch = line[k + offset]
        if "A" <= ch <= "Z":
            ch = chr(ord(ch) + 32)
        if ch != want:
            return False
    return True


def _find_folded(line: str, word: str, k: int) -> int:
    """The first index at or after ``k`` where ``word`` starts, ASCII capitals folded (-1)."""
    while True:
        k = line.find(word[0], k)
        if k < 0 or _starts_folded(line, k, word):
            return k
        k += 1


def _ticks(line: str, k: int) -> int:
    """The length of the run of backticks at ``k``."""
    j = k
    while j < len(line) and line[j] == "`":
        j += 1
    return j - k


# What closes each hidden state, and how the last closing in a text is found (ASCII capitals
# folded, as _find_folded folds them).
_CLOSING = {COMMENT: "-->", SCRIPT: "</script", STYLE: "</style"}
_LAST_CLOSING = {
    state: re.compile(".*" + re.escape(closing), re.S | re.I | re.A)
    for state, closing in _CLOSING.items()
}


def last_closings(text: str) -> dict[int, int]:
    """For each hidden state, the last line of ``text`` that holds what closes it (-1 for
    none)."""
    found = {}
    for state, pattern in _LAST_CLOSING.items():
        match = pattern.match(text)
        found[state] = -1 if match is None else text.count("\n", 0, match.end())
    return found


class _Inline:
    """What a line of prose shows, with the state a comment or script leaves to the next.

    A comment, script or style whose end never comes hides nothing: the rest of the file is
    the writer's text, not a hidden block (``last`` says where the last of each end lies;
    ``row`` is the line being read)."""

    def __init__(self, decode: Decode, defined: Defined, last: dict[int, int]) -> None:
        self.decode = decode
        self.defined = defined
        self.state = NORMAL
        self.last = last
        self.row = 0

    def line(self, line: str, k: int = 0) -> str:
        out: list[str] = []
        n = len(line)
        special = _SPECIAL.search
        while k < n:
            if self.state != NORMAL:
                closing = _CLOSING[self.state]
                found = _find_folded(line, closing, k)
                if found < 0:
                    return "".join(out)
                k = found + len(closing)
                if self.state != COMMENT:
                    end = line.find(">", k)
                    if end < 0:
                        return "".join(out)
                    k = end + 1
                self.state = NORMAL
                continue
            # The characters up to the next that may begin markup show as they are.
            markup = special(line, k)
            if markup is None:
                out.append(line[k:])
                return "".join(out)
            if markup.start() > k:
                out.append(line[k : markup.start()])
                k = markup.start()
            ch = line[k]
            if ch == "\\":
                if k + 1 == n:
                    k += 1
                    continue
                if line[k + 1] in _PUNCTUATION:
                    out.append(line[k + 1])
                    k += 2
                    continue
            elif ch == "`":
                run = _ticks(line, k)
                j = k + run
                limit = j + LOOKAHEAD
                while True:
                    j = line.find("`", j, limit)
                    if j < 0:
                        break
                    other = _ticks(line, j)
                    if other == run:
                        break
                    j += other
                if j < 0:
                    out.append("`" * run)
                    k += run
                    continue
                code = line[k + run : j]
                if len(code) >= 2 and code[0] == " " and code[-1] == " " and code.strip(" "):
                    code = code[1:-1]
                out.append(code)
                k = j + run
                continue
            elif ch == "<":
                if line.startswith("<!--", k):
                    end = line.find("-->", k + 4)
                    if end >= 0:
                        k = end + 3
                        continue
                    if self.last[COMMENT] > self.row:
                        self.state = COMMENT
                        return "".join(out)
                end = _autolink_end(line, k)
                if end > 0:
                    out.append(line[k + 1 : end])
                    k = end + 1
                    continue
                end = _tag_end(line, k)
                if end > 0:
                    for word, hidden in (("script", SCRIPT), ("style", STYLE)):
                        after = k + 1 + len(word)
                        if (
                            _starts_folded(line, k + 1, word) and line[after] in " \t>/"
                            and (
                                self.last[hidden] > self.row
                                or _find_folded(line, _CLOSING[hidden], end) >= 0
                            )
                        ):  # fmt: skip
                            self.state = hidden
                    out.append(" ")
                    k = end
                    continue
            elif ch == "&":
                end = _entity_end(line, k)
                if end > 0:
                    out.append(self.decode(line[k:end]))
                    k = end
                    continue
            elif ch == "]" and k + 1 < n:
                if line[k + 1] == "(":
                    end = _destination_end(line, k + 1)
                    if end > 0:
                        out.append("]")
                        k = end
                        continue
                elif line[k + 1] == "[":
                    close = line.find("]", k + 2, k + 2 + LOOKAHEAD)
                    if close > 0 and "[" not in line[k + 2 : close]:
                        label = line[k + 2 : close]
                        if not label or self.defined(label):
                            out.append("]")
                            k = close + 1
                            continue
            elif ch == "[" and k + 1 < n and line[k + 1] == "^":
                close = line.find("]", k + 2, k + 2 + LOOKAHEAD)
                if close > k + 2 and not any(c in _BLANK for c in line[k + 2 : close]):
                    k = close + 1
                    continue
            elif ch == "{" and k + 1 < n and line[k + 1] in "{%":
                closing = "}}" if line[k + 1] == "{" else "%}"
                end = line.find(closing, k + 2, k + 2 + LOOKAHEAD)
                if end > 0:
                    k = end + 2
                    continue
            out.append(ch)
            k += 1
        return "".join(out)


def markdown_lines_python(text: str, decode: Decode, defined: Defined) -> tuple[str, bytes]:
    """The reference implementation of ``markdown_lines`` (see the module): the text, and
    where each of its lines starts (native-order int64)."""
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    out: list[str] = []
    inline = _Inline(decode, defined, last_closings(text))
    state = NORMAL
    fence: tuple[str, int] = ("`", 3)
    prose = False  # the line before was prose that showed something (a setext heading's)
    start = 0
    closing = front_matter_end(lines)
    if closing:
        out.extend([""] * (closing + 1))
        start = closing + 1
    for row in range(start, len(lines)):
        line = lines[row]
        inline.row = row
        if state == FENCE:
            if fence[0] in line and _closes(line, *fence):
                out.append("")
                state = NORMAL
            else:
                out.append(line)
            prose = False
            continue
        if inline.state != NORMAL:
            # A script or style ends at a code fence at the latest: no page puts a fence in
            # one, and a script tag in code read as prose (a copy of a code block's second
            # half) would otherwise hide every block after it.
            if inline.state == COMMENT or _fence_at(line) is None:
                out.append(inline.line(line))
                prose = False
                continue
            inline.state = NORMAL
        k = _indent(line)
        if not line.strip(" \t"):  # a blank line: shows its blanks, ends a paragraph
            out.append(line)
            prose = False
            continue
        if line[k] not in _BLOCK_START:
            # No block can start with this character: a line of prose (most lines).
            shown = inline.line(line)
            out.append(shown)
            prose = bool(shown.strip(" \t"))
            continue
        opened = _fence_at(line)
        if opened is not None and (opened[0] == "~" or "`" not in line[opened[2] :]):
            out.append("")
            prose = False
            if not _stray_closing(lines, row, *opened):
                state, fence = FENCE, (opened[0], opened[1])
            continue
        kind = _rule_kind(line) if k < len(line) and line[k] in "=-*_" else ""
        if kind in ("=", "-") and prose and not _is_table_delimiter(line):
            out[-1] = ("# " if kind == "=" else "## ") + out[-1].lstrip(" \t")
            out.append("")
            prose = False
            continue
        if kind == "break" or (kind == "-" and len(line[k:].rstrip(" \t")) >= 3):
            out.append("")
            prose = False
            continue
        if (
            _is_reference_definition(line) or _is_table_delimiter(line)
            or _is_directive_line(line)
        ):  # fmt: skip
            out.append("")
            prose = False
            continue
        begin = 0
        if line.startswith("[^", k):  # a footnote's definition: its text shows, not its label
            close = line.find("]:", k + 2)
            if close > 0 and not any(c in _BLANK for c in line[k + 2 : close]):
                begin = close + 2
        elif k < len(line) and line[k] == "#":  # a heading: without its closing hashes
            j = k
            while j < len(line) and line[j] == "#":
                j += 1
            if j - k <= 6 and (j == len(line) or line[j] in _BLANK):
                body = line.rstrip(" \t")
                end = len(body)
                while end > j and body[end - 1] == "#":
                    end -= 1
                stripped = None
                if end < len(body) and (end == j or body[end - 1] in _BLANK):
                    stripped = body = body[:end].rstrip(" \t")
                # An attribute block ("{#id .class}": VitePress, Pandoc, kramdown, Hugo) names
                # the heading's anchor, which no reader sees.
                if body.endswith("}"):
                    brace = body.rfind("{", j)
                    if (
                        brace > j and body[brace - 1] in _BLANK
                        and body[brace + 1 : brace + 2] in ("#", ".")
                        and "}" not in body[brace:-1]
                    ):  # fmt: skip
                        stripped = body[:brace].rstrip(" \t")
                if stripped is not None:
                    line = stripped
        elif line.startswith(":::", k):  # a container ("::: tip Title"): its title shows
            j = k
            while j < len(line) and line[j] == ":":
                j += 1
            while j < len(line) and line[j] in _BLANK:
                j += 1
            while j < len(line) and line[j] not in _BLANK:
                j += 1
            begin = j
        shown = inline.line(line, begin)
        out.append(shown)
        prose = bool(shown.strip(" \t"))
    starts = array("q", accumulate((len(line) + 1 for line in out[:-1]), initial=0))
    return "\n".join(out), starts.tobytes()
