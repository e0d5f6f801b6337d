"""The OpenDocument text reader (``.odt``): the text as a word processor shows it, paragraph by
paragraph, changes accepted.

Read from ``content.xml``: headings (as Markdown headings, by outline level), paragraphs, list
items, table rows (a paragraph each, cells separated by `` | ``), sections and text boxes in
document order; spaces (``text:s``), tabs and line breaks as such; footnotes and endnotes after
the body. Tracked changes: the deleted text
an OpenDocument file keeps in ``text:tracked-changes`` is left out, inserted text is in place
already. Comments (annotations) are left out. Each paragraph is located by its number.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..records import DecodedDocument, SkippedFile
from .markup import Archive, FormatError, Paragraphs, parse_xml

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_SKIP = frozenset({f"{TEXT}tracked-changes", f"{OFFICE}annotation", f"{TEXT}note",
                   f"{TEXT}sequence-decls", f"{OFFICE}annotation-end"})  # fmt: skip
_PARAGRAPHS = frozenset({f"{TEXT}p", f"{TEXT}h"})
MIMETYPE = b"application/vnd.oasis.opendocument.text"


class _Body:
    def __init__(self, out: Paragraphs) -> None:
        self.out = out
        self.count = 0
        self.notes: list[Any] = []

    def paragraph(self, element: Any) -> None:
        pieces: list[str] = []
        self._inline(element, pieces)
        self.count += 1
        text = "".join(pieces)
        if element.tag == f"{TEXT}h" and text.strip():
            level = int(element.get(f"{TEXT}outline-level") or 1)
            text = "#" * max(1, min(level, 6)) + " " + text.strip()
        self.out.add(text, str(self.count))

    def _inline(self, element: Any, pieces: list[str]) -> None:
        if element.text:
            pieces.append(element.text)
        for child in element:
            tag = child.tag
            if tag == f"{TEXT}s":
                pieces.append(" " * int(child.get(f"{TEXT}c") or 1))
            elif tag == f"{TEXT}tab":
                pieces.append("\t")
            elif tag == f"{TEXT}line-break":
                pieces.append("\n")
            elif tag == f"{TEXT}note":
                self.notes.append(child)  # its body follows the document's
            elif tag in _SKIP or not isinstance(tag, str):
                pass
            elif tag in _PARAGRAPHS or child.find(f".//{TEXT}p") is not None:
                self.walk(child)  # a text box inside a paragraph
            else:
                self._inline(child, pieces)
            if child.tail:
                pieces.append(child.tail)

    def row(self, element: Any) -> None:
        """A table row as one paragraph, its cells' texts separated by " | " (as the Word
        reader reads a row: across, as it is shown)."""
        cells = []
        for cell in element:
            if cell.tag not in (f"{TABLE}table-cell", f"{TABLE}covered-table-cell"):
                continue
            found = Paragraphs("paragraph")
            inner = _Body(found)
            inner.walk(cell)
            self.notes.extend(inner.notes)
            cells.append(" ".join(" ".join(part.split()) for part in found.parts if part.strip()))
        self.count += 1
        if any(cells):
            self.out.add(" | ".join(cells), str(self.count))

    def walk(self, element: Any) -> None:
        for child in element:
            tag = child.tag
            if tag in _PARAGRAPHS:
                self.paragraph(child)
            elif tag == f"{TABLE}table-row":
                self.row(child)
            elif tag in _SKIP or not isinstance(tag, str):
                continue
            else:  # lists, tables, sections, frames
                self.walk(child)


class OdtReader:
    """OpenDocument text (``.odt``, ``.ott``)."""

    name = "odt"
    version = "2"  # 2: a table row is one paragraph, its cells separated by " | "
    extensions: tuple[str, ...] = (".odt", ".ott", ".fodt")
    marks: tuple[bytes, ...] = (b"PK\x03\x04",)
    contained = True
    libraries: tuple[str, ...] = ("lxml",)

    def sniff(self, head: bytes) -> bool:
        # The first member of an OpenDocument file is "mimetype", stored, naming its type.
        return head.startswith(b"PK\x03\x04") and MIMETYPE in head[:200]

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        archive = Archive(data)
        if "content.xml" not in archive.names:
            raise FormatError("a ZIP container without content.xml (not an OpenDocument file)")
        root = parse_xml(archive.read("content.xml"))
        out = Paragraphs("paragraph")
        body = _Body(out)
        text = root.find(f"{OFFICE}body/{OFFICE}text")
        if text is not None:
            body.walk(text)
        for note in body.notes:
            found = note.find(f"{TEXT}note-body")
            if found is not None:
                body.walk(found)
        if not out.parts:
            yield SkippedFile(path, "decode", "no text in the document")
            return
        yield DecodedDocument(path, out.text(), "odt", "odt", 1.0, len(data), out.locations())
