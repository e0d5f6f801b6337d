"""The Word reader (``.docx``, Office Open XML): the text of the document as Word shows it with
its changes accepted, paragraph by paragraph.

Read from ``word/document.xml`` in body order: paragraphs, table rows (below),
text boxes (their first rendering only: Word writes a box twice, for new and old readers),
content controls and fields' shown results (not their codes); tracked insertions are in,
tracked deletions and moved-from text are out; tabs and line breaks are kept as such; a table
row is one paragraph, its cells separated by " | " (a row reads across, as it is shown). A
paragraph of a heading style (``Heading 1``..``Heading 9``) comes out as a Markdown
heading; the ``Title`` and ``Subtitle`` styles name the document, not a part of it, and come
out as paragraphs (as ODT's, RTF's and a PDF's title do). Footnotes and endnotes follow the
body. Each paragraph is located by its number (``draft.docx ¶ 41``), counted in that order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..records import DecodedDocument, SkippedFile
from .markup import Archive, FormatError, Paragraphs, parse_xml

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_SKIP = frozenset({
    f"{W}del", f"{W}delText", f"{W}moveFrom", f"{W}instrText", f"{W}delInstrText",
    f"{W}rPr", f"{W}pPr", f"{W}sectPr", f"{W}tblPr", f"{W}trPr", f"{W}tcPr",
    f"{W}footnoteReference", f"{W}endnoteReference", f"{W}commentReference",
    f"{MC}Fallback",
})  # fmt: skip
_HEADING = re.compile(r"^(?:heading|berschrift|titre|titolo|encabezado)\s*([1-9])$", re.I)


def _style(paragraph: Any) -> str:
    style = paragraph.find(f"{W}pPr/{W}pStyle")
    return "" if style is None else str(style.get(f"{W}val") or "")


class _Body:
    """Gathers the paragraphs of a part (the body, the notes) in document order."""

    def __init__(self, out: Paragraphs) -> None:
        self.out = out
        self.count = 0

    def paragraph(self, element: Any) -> None:
        pieces: list[str] = []
        boxes: list[Any] = []
        self._text(element, pieces, boxes)
        self.count += 1
        text = "".join(pieces)
        level = _HEADING.match(_style(element).replace("-", " "))
        if level and text.strip():
            text = "#" * int(level.group(1)) + " " + text.strip()
        self.out.add(text, str(self.count))
        for box in boxes:  # a text box's paragraphs after the paragraph that anchors it
            self.walk(box)

    def _text(self, element: Any, pieces: list[str], boxes: list[Any]) -> None:
        for child in element:
            tag = child.tag
            if tag in _SKIP or not isinstance(tag, str):
                continue
            if tag == f"{W}t":
                pieces.append(child.text or "")
            elif tag == f"{W}tab":
                pieces.append("\t")
            elif tag in (f"{W}br", f"{W}cr"):
                pieces.append("\n")
            elif tag == f"{W}noBreakHyphen":
                pieces.append("-")
            elif tag == f"{W}txbxContent":
                boxes.append(child)
            else:
                self._text(child, pieces, boxes)

    def row(self, element: Any) -> None:
        """A table row as one paragraph, its cells' texts separated by " | " (a row reads
        across, as the table shows it; each cell a paragraph of its own read down the page)."""
        cells: list[str] = []
        boxes: list[Any] = []
        for cell in element.iter(f"{W}tc"):
            if cell.getparent() is not element:
                continue  # a nested table's cell: its text is in its own cell's
            pieces: list[str] = []
            for paragraph in cell.iter(f"{W}p"):
                part: list[str] = []
                self._text(paragraph, part, boxes)
                if "".join(part).strip():
                    pieces.append("".join(part).strip())
            cells.append(" ".join(pieces))
        self.count += 1
        if any(cells):
            self.out.add(" | ".join(cells), str(self.count))
        for box in boxes:
            self.walk(box)

    def walk(self, element: Any) -> None:
        for child in element:
            tag = child.tag
            if tag == f"{W}p":
                self.paragraph(child)
            elif tag == f"{W}tr":
                self.row(child)
            elif tag in _SKIP or not isinstance(tag, str):
                continue
            else:  # tables, content controls, custom XML
                self.walk(child)


def docx_paragraphs(archive: Archive) -> Paragraphs:
    names = archive.names
    if "word/document.xml" not in names:
        raise FormatError("a ZIP container without word/document.xml (not a Word document)")
    out = Paragraphs("paragraph")
    body = _Body(out)
    root = parse_xml(archive.read("word/document.xml"))
    found = root.find(f"{W}body")
    if found is not None:
        body.walk(found)
    for part, tag in (("word/footnotes.xml", "footnote"), ("word/endnotes.xml", "endnote")):
        if part not in names:
            continue
        for note in parse_xml(archive.read(part)).iter(f"{W}{tag}"):
            # The separators (types separator, continuationSeparator) are not notes.
            if note.get(f"{W}type") in (None, "normal"):
                body.walk(note)
    return out


class DocxReader:
    """Word documents (``.docx``, ``.docm``, ``.dotx``)."""

    name = "docx"
    version = "2"  # 2: the Title style is a paragraph, not a heading; a table row one paragraph
    extensions: tuple[str, ...] = (".docx", ".docm", ".dotx", ".dotm")
    marks: tuple[bytes, ...] = (b"PK\x03\x04",)
    contained = True
    libraries: tuple[str, ...] = ("lxml",)

    def sniff(self, head: bytes) -> bool:
        # A ZIP container whose first members are Word's: their names are in the first bytes
        # (else the extension decides, and reading checks for word/document.xml).
        return head.startswith(b"PK\x03\x04") and b"word/" in head

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        found = docx_paragraphs(Archive(data))
        if not found.parts:
            yield SkippedFile(path, "decode", "no text in the document")
            return
        yield DecodedDocument(path, found.text(), "docx", "docx", 1.0, len(data),
                              found.locations())  # fmt: skip
