"""The EPUB reader: an e-book's chapters in reading order (the spine), as a browser shows them.

``META-INF/container.xml`` names the package document, whose spine lists the chapters (XHTML)
in reading order; each chapter's visible text is read as a web page is (``readers.html``),
blocks as paragraphs. Each paragraph is located by its chapter: its number in the spine and,
where the chapter starts with a heading, that heading (``book.epub ch. 3 ("Methods")``).
Navigation documents that are not in the spine (the table of contents) are left out. A
chapter that is not well-formed XML (raw HTML such as an unclosed ``<br>``, which pandoc and
other converters pass through) is read as HTML, as browser-based e-readers show it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from ..records import DecodedDocument, SkippedFile
from .html import html_paragraphs, parse_html
from .markup import Archive, FormatError, Paragraphs, parse_xml

CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
OPF = "{http://www.idpf.org/2007/opf}"
MIMETYPE = b"application/epub+zip"
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def _chapter(data: bytes) -> Any:
    """A chapter's element tree: its XHTML, or the same text parsed as HTML where it is not
    well-formed XML."""
    try:
        return parse_xml(data)
    except FormatError:
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        text = data.decode("utf-16" if utf16 else "utf-8-sig", "replace")
        return parse_html(_XML_DECLARATION.sub("", text, count=1))


def _chapters(archive: Archive) -> list[str]:
    """The members of the spine, in reading order."""
    container = parse_xml(archive.read("META-INF/container.xml"))
    rootfile = container.find(f".//{CONTAINER}rootfile")
    if rootfile is None or not rootfile.get("full-path"):
        raise FormatError("no package document named in META-INF/container.xml")
    opf_path = rootfile.get("full-path")
    package = parse_xml(archive.read(opf_path))
    folder = posixpath.dirname(opf_path)
    manifest = {
        item.get("id"): posixpath.normpath(posixpath.join(folder, item.get("href") or ""))
        for item in package.iter(f"{OPF}item")
    }
    spine = [manifest.get(ref.get("idref")) for ref in package.iter(f"{OPF}itemref")]
    return [name for name in spine if name and name in archive.names]


class EpubReader:
    """E-books (``.epub``)."""

    name = "epub"
    version = "4"  # 3: a heading of class "title" is a paragraph; 4: a table row one paragraph
    extensions: tuple[str, ...] = (".epub",)
    marks: tuple[bytes, ...] = (b"PK\x03\x04",)
    contained = True
    libraries: tuple[str, ...] = ("lxml",)

    def sniff(self, head: bytes) -> bool:
        return head.startswith(b"PK\x03\x04") and MIMETYPE in head[:200]

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        archive = Archive(data)
        chapters = _chapters(archive)
        if not chapters:
            raise FormatError("an empty spine (no chapter to read)")
        out = Paragraphs("chapter")
        for number, name in enumerate(chapters, 1):
            chapter = Paragraphs("chapter")
            root: Any = _chapter(archive.read(name))
            body = root.find(".//{http://www.w3.org/1999/xhtml}body")
            html_paragraphs([body if body is not None else root], chapter)
            if not chapter.parts:
                continue
            first = chapter.parts[0]
            title = first.lstrip("#").strip() if first.startswith("#") else ""
            label = f'{number} ("{title[:60]}")' if title else str(number)
            out.add(chapter.text(), label)
        if not out.parts:
            yield SkippedFile(path, "decode", "no text in the book")
            return
        yield DecodedDocument(path, out.text(), "epub", "epub", 1.0, len(data), out.locations())
