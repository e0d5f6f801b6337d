"""Renderers: one function per format over one ``ScanResult``, so formats cannot disagree."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from ..records import ScanResult
from .csv import render_csv
from .html import render_html
from .json import render_json, render_jsonl
from .sarif import render_sarif
from .text import render_text

SCHEMA_VERSION = "simdup-scan/1"

RENDERERS: dict[str, Callable[[ScanResult, TextIO], None]] = {
    "text": render_text,
    "json": render_json,
    "jsonl": render_jsonl,
    "csv": render_csv,
    "html": render_html,
    "sarif": render_sarif,
}
FORMATS = tuple(RENDERERS)


def render(result: ScanResult, fmt: str, stream: TextIO) -> None:
    RENDERERS[fmt](result, stream)
