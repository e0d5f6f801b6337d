"""The texts of the documents with passages, read again a few at a time: for the previews, and
to give a Markdown or HTML file's passages in the file's characters (``text.file_offsets``):
matching works in the text its reader made, a report locates in the file."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from ..records import DecodedDocument, PassageSpan, Place
from ..text.file_offsets import FileOffsets, file_offsets
from .edges import FileLines, file_lines

# Texts held at once (read again in the order their passages come, mostly grouped by path).
_HELD = 512

# A document's text by path, None when it can no longer be read: the decoded document (a
# Markdown or HTML file's carries the file's characters too), or the text alone.
TextsByPath = Callable[[str], DecodedDocument | str | None]


class ReadAgain:
    """Texts read again by path, a few held at once (for the previews), and the regions of
    rendered files located in the files' characters, each file read and aligned once."""

    def __init__(self, texts: TextsByPath | None) -> None:
        self.texts = texts
        self.held: dict[str, DecodedDocument | str | None] = {}
        self.lines: dict[str, FileLines | None] = {}

    def _get(self, path: str) -> DecodedDocument | str | None:
        if path not in self.held:
            if len(self.held) >= _HELD:
                self.held.pop(next(iter(self.held)))
            self.held[path] = self.texts(path) if self.texts is not None else None
        return self.held[path]

    def preview(self, span: PassageSpan, limit: int) -> str:
        """The passage's first line, at most ``limit`` characters ("" when it has no text)."""
        if self.texts is None or not limit:
            return ""
        read = self._get(span.path)
        text = read.text if isinstance(read, DecodedDocument) else read
        if text is None:
            return ""
        start, end = span.as_read()
        return text[start:end].split("\n", 1)[0].strip()[:limit]

    def file_lines(self, path: str, rendered: bool) -> FileLines | None:
        """The lines of the file at ``path`` (``edges.file_lines``) when its passages' lines
        are that file's lines of text (a plain text, a Markdown file: ``rendered``), else
        None: a PDF's extracted text, a file no longer readable, and an HTML page, whose
        every paragraph has lines of tags around it the same in any two pages."""
        if path not in self.lines:
            if len(self.lines) >= _HELD:
                self.lines.pop(next(iter(self.lines)))
            text = self._file_text(path, rendered)
            self.lines[path] = file_lines(text) if text is not None else None
        return self.lines[path]

    def _file_text(self, path: str, rendered: bool) -> str | None:
        if self.texts is None:
            return None
        read = self._get(path)
        if isinstance(read, DecodedDocument):
            if read.origin is not None:
                return read.origin.text if read.origin.markup == "markdown" else None
            return read.text if read.locations is None and not rendered else None
        return read if not rendered else None

    def in_files(self, spans: Iterable[PassageSpan]) -> dict[PassageSpan, PassageSpan]:
        """Each of ``spans`` in its file's characters and lines when its text renders the
        file (Markdown, HTML); the others, and those of files no longer readable, as they
        are. Each file is read and aligned once, however many regions it holds."""
        by_path: dict[str, list[PassageSpan]] = {}
        for span in spans:
            by_path.setdefault(span.path, []).append(span)
        out: dict[PassageSpan, PassageSpan] = {}
        for path, found in by_path.items():
            read = self.held[path] if path in self.held else (
                self.texts(path) if self.texts is not None else None
            )  # fmt: skip
            if not isinstance(read, DecodedDocument) or read.origin is None:
                out.update((span, span) for span in found)
                continue
            offsets = file_offsets(read.text, read.origin, read.locations)
            out.update((span, _located(span, offsets)) for span in found)
        return out


def _located(span: PassageSpan, offsets: FileOffsets) -> PassageSpan:
    start, end = span.as_read()
    file_start, file_end = offsets.span(start, end)
    first, last = offsets.lines(file_start, file_end)
    # Its place: the file's lines it spans (an HTML paragraph's label is the line of its
    # element's tag, not of the copied words).
    place = Place("line", str(first), str(last))
    return replace(span, start_line=first, end_line=last, start_char=file_start,
                   end_char=file_end, read_start=start, read_end=end, place=place)  # fmt: skip
