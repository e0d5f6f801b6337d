"""The HTML reader: the text a browser shows, block by block, located by source line.

Scripts, styles, templates, ``<noscript>``, the ``<head>``, comments and elements hidden
(``hidden``, ``aria-hidden="true"``, an inline ``display: none`` or ``visibility: hidden``)
are left out; every block element (paragraph, heading, list item, ...) is a paragraph of its
own, and a table row one paragraph, its cells separated by `` | ``; ``<br>`` breaks a line;
``<pre>`` keeps its lines. Headings come out as Markdown headings (``## Title``), so that
passages and sections start there. Each paragraph is
located by the source line of its element. The bytes are decoded as any text file is
(``readers.decoding``: BOM, UTF-8, the encoding detected), a ``<meta charset>`` being one more
clue for the detection. The EPUB reader uses the same extraction for its chapters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..records import DecodedDocument, FileText, SkippedFile
from .decoding import decode_again
from .markup import FormatError, Paragraphs, lxml_etree

_SKIP = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math",
                   "iframe", "object", "canvas", "button", "select", "option"})  # fmt: skip
_BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "aside", "header", "footer", "nav", "blockquote",
    "li", "dt", "dd", "tr", "td", "th", "caption", "figcaption", "address", "details",
    "summary", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul", "ol", "dl", "table", "form",
    "fieldset", "legend", "hr", "body", "html",
})  # fmt: skip
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\r\n\f\u00a0]+")
_SNIFF = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)[\s>]", re.I | re.S)


def _hidden(element: Any) -> bool:
    get = element.get
    return (
        get("hidden") is not None
        or (get("aria-hidden") or "").lower() == "true"
        or bool(_HIDDEN_STYLE.search(get("style") or ""))
    )


def _tag(element: Any) -> str:
    tag = element.tag
    if not isinstance(tag, str):  # a comment or processing instruction
        return ""
    return tag.rpartition("}")[2].lower()  # XHTML: {namespace}p


class _Blocks:
    """Walks an element tree and gathers the text of each block with its source line."""

    def __init__(self, paragraphs: Paragraphs) -> None:
        self.out = paragraphs
        self.line: list[str] = []
        self.where = "1"

    def flush(self) -> None:
        text = "".join(self.line)
        self.line = []
        if text.strip():
            self.out.add("\n".join(_SPACES.sub(" ", part).strip() for part in text.split("\0")),
                         self.where)  # fmt: skip

    def row(self, element: Any) -> None:
        """A table row as one paragraph, its cells' texts separated by " | " (as the Word and
        OpenDocument readers read a row: across, as it is shown)."""
        self.flush()
        if element.sourceline:
            self.where = str(element.sourceline)
        cells = []
        for cell in element:
            if _tag(cell) not in ("td", "th") or _hidden(cell):
                continue
            found = html_paragraphs([cell], Paragraphs("line"))
            cells.append(" ".join(" ".join(part.split()) for part in found.parts if part.strip()))
        if any(cells):
            self.out.add(" | ".join(cells), self.where)

    def walk(self, element: Any, pre: bool = False) -> None:
        tag = _tag(element)
        if tag in _SKIP or (tag and _hidden(element)):
            self._tail(element, pre)
            return
        if tag == "tr" and not pre:
            self.row(element)
            self._tail(element, pre)
            return
        block = tag in _BLOCKS
        if block:
            self.flush()
            if element.sourceline:
                self.where = str(element.sourceline)
            level = _HEADINGS.get(tag)
            # A heading of class "title" (pandoc's, most site generators') names the page, not
            # a part of it: a paragraph, as a Word file's Title style is.
            if level and "title" not in (element.get("class") or "").split():
                self.line.append("#" * level + " ")
        if tag == "br":
            self.line.append("\0")
        inside_pre = pre or tag == "pre"
        if element.text and tag:
            self._text(element.text, inside_pre)
        for child in element:
            self.walk(child, inside_pre)
        if block:
            self.flush()
        self._tail(element, pre)

    def _tail(self, element: Any, pre: bool) -> None:
        if element.tail:
            self._text(element.tail, pre)

    def _text(self, text: str, pre: bool) -> None:
        # A line break of <pre> (or <br>) is "\0" until the block is flushed: the rest of the
        # whitespace is collapsed as a browser does.
        self.line.append(text.replace("\n", "\0") if pre else text)


def html_paragraphs(roots: Iterable[Any], paragraphs: Paragraphs) -> Paragraphs:
    """The visible text of element trees, a paragraph per block, into ``paragraphs``."""
    blocks = _Blocks(paragraphs)
    for root in roots:
        blocks.walk(root)
    blocks.flush()
    return paragraphs


def parse_html(text: str) -> Any:
    """The element tree of an HTML page (lxml's HTML parser: no entities, DTD or network)."""
    etree = lxml_etree()
    from lxml import html as lxml_html

    try:
        return lxml_html.document_fromstring(text)
    except (etree.ParserError, ValueError) as exc:
        raise FormatError(f"not readable as HTML ({exc})") from exc


class HtmlReader:
    """Web pages (``.html``, ``.htm``, ``.xhtml``, or what starts like one)."""

    name = "html"
    version = "4"  # 2: a heading of class "title" is a paragraph; 3: a table row one paragraph;
    # 4: a file with stray NUL bytes is read without them
    extensions: tuple[str, ...] = (".html", ".htm", ".xhtml", ".shtml")
    marks: tuple[bytes, ...] = (b"<",)
    contained = True
    libraries: tuple[str, ...] = ("lxml",)

    def sniff(self, head: bytes) -> bool:
        return bool(_SNIFF.match(head.lstrip(b"\xef\xbb\xbf")))

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        decoded = decode_again(path, data, hint)
        if isinstance(decoded, SkippedFile):
            yield decoded
            return
        root = parse_html(decoded.text)
        found = html_paragraphs([root], Paragraphs("line"))
        if not found.parts:
            yield SkippedFile(path, "decode", "no visible text in the page")
            return
        yield DecodedDocument(
            path, found.text(), decoded.encoding, decoded.encoding_source, decoded.confidence,
            decoded.size, found.locations(), FileText(decoded.text, "html"),
        )  # fmt: skip
