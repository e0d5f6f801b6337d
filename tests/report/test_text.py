"""simdup.report.text: the text report's columns."""

from __future__ import annotations

import io
from pathlib import Path

import simdup
from simdup.report import render


def test_cjk_file_names_keep_the_text_columns_aligned(tmp_path: Path) -> None:
    """Padding counts terminal columns, not code points: an ideograph takes two (issue 33)."""
    from simdup.names import display_width

    text = " ".join(f"term{i}" for i in range(80))
    (tmp_path / "论文甲.txt").write_text(text, encoding="utf-8")
    (tmp_path / "ab.txt").write_text(text + " extra", encoding="utf-8")
    out = io.StringIO()
    render(simdup.scan([str(tmp_path)], jobs=1), "text", out)
    members = [line for line in out.getvalue().splitlines() if line.startswith("  ")]
    assert len(members) == 2
    # What follows the name starts in the same terminal column on both lines.
    after = [line.index("representative") if "representative" in line else line.index("distance")
             for line in members]  # fmt: skip
    starts = [display_width(line[:at]) for line, at in zip(members, after, strict=True)]
    assert starts[0] == starts[1]
