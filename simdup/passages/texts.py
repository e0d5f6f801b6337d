"""The texts of the documents with passages, read again a few at a time: for the previews, and
to give a Markdown or HTML file's passages in the file's characters (``text.file_offsets``):
matching works in the text its reader made, a report locates in the file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..records import DecodedDocument, PassageSpan, Place
from ..text.file_offsets import FileOffsets, file_offsets

# Texts held at once (read again in the order their passages come, mostly grouped by path).
_HELD = 512

# A document's text by path, None when it can no longer be read: the decoded document (a
# Markdown or HTML file's carries the file's characters too), or the text alone.
TextsByPath = Callable[[str], DecodedDocument | str | None]


class ReadAgain:
    """Texts read again by path, a few held at once, with the map of each rendered one."""

    def __init__(self, texts: TextsByPath | None) -> None:
        self.texts = texts
        self.held: dict[str, tuple[DecodedDocument | str | None, list[FileOffsets | None]]] = {}

    def _get(self, path: str) -> tuple[DecodedDocument | str | None, list[FileOffsets | None]]:
        found = self.held.get(path)
        if found is None:
            if len(self.held) >= _HELD:
                self.held.pop(next(iter(self.held)))
            read = self.texts(path) if self.texts is not None else None
            found = self.held[path] = (read, [None])
        return found

    def preview(self, span: PassageSpan, limit: int) -> str:
        """The passage's first line, at most ``limit`` characters ("" when it has no text)."""
        if self.texts is None or not limit:
            return ""
        read = self._get(span.path)[0]
        text = read.text if isinstance(read, DecodedDocument) else read
        if text is None:
            return ""
        start, end = span.as_read()
        return text[start:end].split("\n", 1)[0].strip()[:limit]

    def in_file(self, span: PassageSpan) -> PassageSpan:
        """``span`` in its file's characters and lines, when its text renders the file."""
        read, cached = self._get(span.path)
        if not isinstance(read, DecodedDocument) or read.origin is None:
            return span  # plain text, an extracted text, or no longer readable
        offsets = cached[0]
        if offsets is None:
            offsets = cached[0] = file_offsets(read.text, read.origin, read.locations)
        start, end = span.as_read()
        file_start, file_end = offsets.span(start, end)
        first, last = offsets.lines(file_start, file_end)
        # Its place: the file's lines it spans (an HTML paragraph's label is the line of its
        # element's tag, not of the copied words).
        place = Place("line", str(first), str(last))
        return replace(span, start_line=first, end_line=last, start_char=file_start,
                       end_char=file_end, read_start=start, read_end=end,
                       place=place)  # fmt: skip

