"""The Markdown reader: the text a reader of the rendered document sees, line for line.

What is kept (CommonMark, with GitHub's tables and footnotes): headings, paragraphs, list
items, block quotes, table cells, code block contents, link and image texts, the text inside
HTML elements, footnote texts, bare URLs, the titles of custom containers (``::: tip Title``).
What is left out: front matter (from a first line ``---`` to a ``---`` or ``...``, every line
between shaped as YAML: a block with a line of prose in it is no metadata, but a thematic
break and text), link destinations and titles, link reference definitions and the labels of
references the document defines, fence lines with their info strings, HTML
tags, attributes and comments, the contents of ``<script>`` and ``<style>``, table delimiter
rows, thematic breaks, the closing hashes of headings and their attribute blocks
(``{#anchor}``), footnote labels, custom container fences and types and template directives
(``{{ ... }}``, ``{% ... %}``), which renderers (mdBook, VitePress, Hugo, Jekyll, Pandoc)
replace or hide. Character references (``&amp;``) and backslash escapes are read as the
characters they stand for; code spans and code blocks are kept as written.

Code is text, wherever it stands: a fence opens a code block at any indentation, after block
quote and list item markers (a fence in a nested list or an HTML block is code, its
``<script setup>`` included). What hides text hides only up to its end: a comment, script or
style never closed hides nothing, and a script or style ends at a code fence at the latest. A
bare fence that no fence closes, or whose next possible closer carries an info string (and so
opens a block), is the closing fence of a code block cut above it, as in a copied half of one:
it opens nothing. Where a document is well formed these read as a renderer does; where it is
not (a copy cut in a code block), they keep the damage to the lines of the cut.

Line k of the text is line k of the file (a line that shows nothing is empty), so passages and
``check`` say where by the file's own lines. Headings keep their ``#`` marks, a setext heading
gets them (as the HTML and Word readers write headings), so that passages and sections start
there; emphasis marks, list bullets and table pipes are punctuation, which makes no word and
no letter of a comparison form, and stay as written. The rules are those of one pass over the
characters (``markdown_lines``, native, with its twin in ``markdown_lines.py``), held in
tests/readers/test_markdown.py to the words of GitHub's renderer, cmark-gfm. The bytes are
decoded as any text file is (``readers.decoding``).
"""

from __future__ import annotations

import html
import re
import sys
from array import array
from collections.abc import Callable, Iterator
from html.entities import html5

from ..native import speedups
from ..records import DecodedDocument, FileText, Locations, SkippedFile
from .decoding import decode_again
from .markdown_lines import markdown_lines_python

# A link reference definition: the labels a document defines ("[label]: destination").
_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[((?:[^\]\\\n]|\\.){1,999})\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$",
    re.M,
)

markdown_lines: Callable[[str, Callable[[str], str], Callable[[str], bool]], tuple[str, bytes]] = (
    speedups.markdown_lines
    if speedups is not None and sys.byteorder == "little"
    else markdown_lines_python
)


def label_key(label: str) -> str:
    """A link label as CommonMark matches it: case folded, inner whitespace one space."""
    return " ".join(label.split()).casefold()


def decode_reference(reference: str) -> str:
    """The character a reference such as ``&amp;`` or ``&#x4e2d;`` stands for; the reference
    itself when it names none."""
    if reference[1] == "#":
        return html.unescape(reference)
    return html5.get(reference[1:], reference)


def markdown_lines_of(source: str) -> tuple[str, tuple[int, ...]]:
    """Markdown ``source`` as its rendering shows it, line for line (see the module), and
    where each of its lines starts."""
    labels = (
        {label_key(m.group(1)) for m in _DEFINITION.finditer(source)} if "]:" in source else set()
    )
    text, starts = markdown_lines(
        source, decode_reference, lambda label: label_key(label) in labels
    )
    return text, tuple(array("q", starts))


def markdown_text(source: str) -> str:
    """Markdown ``source`` as its rendering shows it, line for line (see the module)."""
    return markdown_lines_of(source)[0]


# "1", "2", ...: the labels of a text's lines, shared by every document (made on first need,
# grown as longer documents come: not at start-up).
_LINE_LABELS: tuple[str, ...] = ()


def line_labels(count: int) -> tuple[str, ...]:
    """The labels of ``count`` lines: "1" to str(count)."""
    global _LINE_LABELS
    if count > len(_LINE_LABELS):
        _LINE_LABELS = tuple(map(str, range(1, max(count, 2 * len(_LINE_LABELS), 1024) + 1)))
    return _LINE_LABELS[:count]


class MarkdownReader:
    """Markdown files (``.md``, ``.markdown``, ...), read as their rendering shows them."""

    name = "markdown"
    # 2: a file with stray NUL bytes is read without them; 3: fences in lists, hiding up to
    # an end only, stray closing fences, container titles, heading anchors (issue 48); 4: front
    # matter only when all of its lines are YAML-shaped (a passage pasted into it shows)
    version = "4"
    extensions: tuple[str, ...] = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn")
    marks: tuple[bytes, ...] = ()  # no first bytes say Markdown: the extension does
    contained = False  # one linear pass, no library: read in the worker itself
    libraries: tuple[str, ...] = ()

    def sniff(self, head: bytes) -> bool:
        return False

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        decoded = decode_again(path, data, hint)
        if isinstance(decoded, SkippedFile):
            yield decoded
            return
        text, starts = markdown_lines_of(decoded.text)
        # Line k of the text is line k of the file: located so, it is no plain text (whose
        # characters would be the file's).
        yield DecodedDocument(
            path, text, decoded.encoding, decoded.encoding_source, decoded.confidence,
            decoded.size, Locations("line", starts, line_labels(len(starts))),
            FileText(decoded.text, "markdown"),
        )  # fmt: skip
