"""simdup.report: the formats a scan is rendered in."""

from __future__ import annotations

from simdup.report import FORMATS


def test_formats() -> None:
    """The scan formats are text, json, jsonl, csv, html and sarif."""
    assert set(FORMATS) == {"text", "json", "jsonl", "csv", "html", "sarif"}
