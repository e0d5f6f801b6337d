"""YAML front matter, as the Markdown reader tells it from a page's first lines (the twin of
``is_yaml_line`` and ``front_matter_end`` in simdup/native/markdown.c): a block is front
matter only when every line of it is YAML-shaped, so a passage pasted into it, or a page that
opens with a thematic break, is read as a renderer reads it."""

from __future__ import annotations

_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_BLANK = frozenset(" \t")


def is_yaml_line(line: str) -> bool:
    """Whether ``line`` is shaped as a line of a YAML front matter block: blank, a comment, a
    ``key:`` or ``"quoted key":`` followed by a blank or the end, a ``- `` list item, or
    indented (a nested value, a block scalar's text). A key is one word: a plain key starts
    with a letter, digit, ``_`` or a character beyond ASCII and runs to the colon."""
    n = len(line)
    if n == 0 or line[0] in _BLANK or line[0] == "#":
        return True
    if line[0] == "-":
        return n == 1 or line[1] in _BLANK
    if line[0] in "\"'":
        j = line.find(line[0], 1)
        if j < 0:
            return False
        j += 1
    elif line[0] in _LETTERS or line[0] in _DIGITS or line[0] == "_" or ord(line[0]) > 127:
        j = 1
        while j < n and line[j] != ":" and line[j] not in _BLANK:
            j += 1
    else:
        return False
    return j < n and line[j] == ":" and (j + 1 == n or line[j + 1] in _BLANK)


def front_matter_end(lines: list[str]) -> int:
    """The row of the line closing a YAML front matter block that ``lines`` open with, or 0
    when they open none: a first line ``---``, then lines that are all YAML-shaped
    (``is_yaml_line``) up to a ``---`` or ``...``. A block holding a line of prose or a fence
    is no metadata any site generator reads (a passage pasted into front matter, a page that
    opens with a thematic break): it is read as Markdown, as a renderer reads it."""
    if not lines or lines[0].rstrip(" \t") != "---":
        return 0
    for k in range(1, len(lines)):
        line = lines[k].rstrip(" \t")
        if line in ("---", "..."):
            return k
        if not is_yaml_line(line):
            return 0
    return 0
