"""Renderers: one function per format over one ``ScanResult``, so formats cannot disagree."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TextIO

from ..records import DecodedDocument, ScanResult, SkippedFile

SCHEMA_VERSION = "simdup-scan/1"

# Each format's renderer, imported when a report in that format is written (the HTML report
# alone costs more to import than a rescan answered from the cache takes).
RENDERERS = {
    "text": "text:render_text",
    "json": "json:render_json",
    "jsonl": "json:render_jsonl",
    "csv": "csv:render_csv",
    "html": "html:render_html",
    "sarif": "sarif:render_sarif",
}
FORMATS = tuple(RENDERERS)
# The formats that show the documents' texts (the HTML report's diffs): their renderer takes a
# ``read`` function from the caller, since a renderer reads no file itself.
SHOWS_TEXTS = frozenset({"html"})
Read = Callable[[str], DecodedDocument | SkippedFile]


def renderer(fmt: str) -> Callable[[ScanResult, TextIO], None]:
    """The renderer of format ``fmt``."""
    module, _, name = RENDERERS[fmt].partition(":")
    found: Callable[[ScanResult, TextIO], None] = getattr(
        importlib.import_module(f"{__name__}.{module}"), name
    )
    return found


def render(result: ScanResult, fmt: str, stream: TextIO, *, read: Read | None = None) -> None:
    """``result`` in format ``fmt`` to ``stream``; ``read`` gives a path's decoded document
    again, for the formats that show texts (``SHOWS_TEXTS``)."""
    if fmt in SHOWS_TEXTS:
        shows: Callable[..., None] = renderer(fmt)
        shows(result, stream, read)
    else:
        renderer(fmt)(result, stream)
