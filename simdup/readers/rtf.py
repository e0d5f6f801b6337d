"""The RTF reader: the text of a Rich Text Format document (``striprtf``), in its code page.

RTF is 7-bit text whose other characters are escapes (``\\'hh`` in the document's ANSI code
page, ``\\u`` for Unicode): the code page is read from ``\\ansicpg`` (Windows-1252 without
one), so that ``\\'c4\\'e3`` is 你 in a GBK document. Paragraphs become blank-line-separated
blocks, each located by its number.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from ..errors import MissingExtraError
from ..records import DecodedDocument, SkippedFile
from .markup import text_paragraphs

_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_BLANK = re.compile(r"\n\s*\n|\n")


def _codec(data: bytes) -> str:
    found = _CODEPAGE.search(data[:4096])
    name = f"cp{int(found.group(1))}" if found else "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "cp1252"


class RtfReader:
    """Rich Text Format (``.rtf``)."""

    name = "rtf"
    version = "1"
    extensions: tuple[str, ...] = (".rtf",)
    marks: tuple[bytes, ...] = (b"{\\rtf",)
    contained = True
    libraries: tuple[str, ...] = ("striprtf",)

    def sniff(self, head: bytes) -> bool:
        return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{\\rtf")

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        try:
            from striprtf.striprtf import rtf_to_text
        except ImportError as exc:
            raise MissingExtraError("reading RTF", "docs") from exc
        codec = _codec(data)
        text: str = rtf_to_text(  # type: ignore[no-untyped-call]
            data.decode("latin-1"), encoding=codec, errors="replace"
        )
        out = text_paragraphs(text, _BLANK)
        if not out.parts:
            yield SkippedFile(path, "decode", "no text in the document")
            return
        yield DecodedDocument(path, out.text(), codec, "rtf", 1.0, len(data), out.locations())
