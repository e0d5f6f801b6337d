"""Where a passage begins and ends (``simdup.passages.edges``): past an edit near a copy's
edge, and over the lines without words copied with it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from simdup.cli import cli
from simdup.passages import scan_passages
from tests.conftest import pseudo_words

CODE = """```js
const value = compute(alpha, beta)
if (value) {
  report(gamma)
  finish(delta, epsilon)
}
```"""


def _copy(tmp_path: Path) -> tuple[str, str, str]:
    """a.txt with a paragraph and a code block; b.txt with both pasted between other text,
    ``gamma`` changed: the block's last line of words holds three equal words after the
    edit (fewer than a fingerprint's four), then two lines of no word."""
    intro = pseudo_words(940, 30).strip()
    copied = f"{intro}\n\n{CODE}"
    a = f"A\n\n{pseudo_words(941, 120)}\n{copied}\n\n{pseudo_words(942, 100)}"
    pasted = copied.replace("gamma", "changed")
    b = f"B\n\n{pseudo_words(943, 100)}\n{pasted}\n\n{pseudo_words(944, 100)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    return a, b, copied


def _lines(text: str, first_line: str, count: int) -> tuple[int, int]:
    start = text.split("\n").index(first_line) + 1
    return start, start + count - 1


def test_a_copy_ends_with_its_code_block(tmp_path: Path) -> None:
    """The passage is the copy's lines on both sides, to the closing fence: the words after
    the edit and the closing brace and fence (no words, the same on both sides) are in it."""
    a, b, copied = _copy(tmp_path)
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    first, count = copied.split("\n")[0], copied.count("\n") + 1
    assert (p.a.start_line, p.a.end_line) == _lines(a, first, count)
    assert (p.b.start_line, p.b.end_line) == _lines(b, first, count)
    assert a[p.a.start_char : p.a.end_char] == copied
    assert b[p.b.start_char : p.b.end_char] == copied.replace("gamma", "changed")


def test_lines_of_no_word_that_differ_are_left_out(tmp_path: Path) -> None:
    """After the copy, each document goes on with a different line of no word (a rule, a
    brace): the passage ends at the fence, in JSON too."""
    a, b, copied = _copy(tmp_path)
    (tmp_path / "a.txt").write_text(a.replace(f"{CODE}\n", f"{CODE}\n---\n"), "utf-8")
    (tmp_path / "b.txt").write_text(b.replace("```\n", "```\n***\n"), "utf-8")
    result = CliRunner().invoke(cli, ["scan", str(tmp_path), "--passages", "-f", "json"])
    (p,) = json.loads(result.stdout)["passages"]
    count = copied.count("\n") + 1
    assert p["a"]["end_line"] - p["a"]["start_line"] + 1 == count
    assert p["b"]["end_line"] - p["b"]["start_line"] + 1 == count
