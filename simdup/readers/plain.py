"""The plain-text reader: any encoding simdup knows (BOM, strict UTF-8, chardet), one document a
file, located by its lines. It reads every file no other reader claims; what is not text
(binary formats, NUL bytes, control characters) becomes a skip record saying what it is."""

from __future__ import annotations

from ..records import DecodedDocument, SkippedFile
from .decoding import decode_again


class PlainTextReader:
    """A file as one text document (``readers.decoding``)."""

    name = "text"
    version = "3"  # 2: UTF-8 with stray NUL bytes is no longer read as UTF-16; 3: it is read,
    # its NUL bytes dropped (encoding source "fallback")
    extensions: tuple[str, ...] = ()  # any file no other reader takes
    marks: tuple[bytes, ...] = ()  # sniff never claims a file
    contained = False
    libraries: tuple[str, ...] = ("chardet",)

    def sniff(self, head: bytes) -> bool:
        return False

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> tuple[DecodedDocument | SkippedFile]:
        return (decode_again(path, data, hint),)
