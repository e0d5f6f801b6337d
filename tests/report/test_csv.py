"""simdup.report.csv: cells a spreadsheet would evaluate are written as text."""

from __future__ import annotations

import pytest

from simdup.report.csv import safe_cell


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_formula_cells_get_a_leading_quote(start: str) -> None:
    """Cells a spreadsheet would evaluate are prefixed with "'"."""
    assert safe_cell(start + "cmd") == "'" + start + "cmd"


def test_ordinary_cells_are_unchanged() -> None:
    """Other cells are written as they are."""
    for value in ("docs/a.txt", "中文.txt", "a=b", ""):
        assert safe_cell(value) == value
