"""Where a passage begins and ends (``simdup.passages.edges``): past an edit near a copy's
edge, and over the lines without words copied with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def _scan_json(folder: Path, *more: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["scan", str(folder), "--passages", "--no-cache", "-f", "json", "-j", "1", *more]
    )
    assert result.exit_code == 0, result.output
    passages: list[dict[str, Any]] = json.loads(result.stdout)["passages"]
    return passages


def _region(text: str, side: dict[str, Any]) -> str:
    return text[side["start_char"] : side["end_char"]]


def _hosts(
    tmp_path: Path, copied: str, pasted: str, seed: int, suffix: str, gap: str
) -> tuple[str, str]:
    """Documents A and B (``a``/``b`` + ``suffix``) holding ``copied`` and ``pasted`` between
    pseudo-words of seeds ``seed`` to ``seed + 3``, after ``gap``; written, and returned."""
    title = "# " if suffix == ".md" else ""
    a = f"{title}A\n\n{pseudo_words(seed, 100)}{gap}{copied}\n\n{pseudo_words(seed + 1, 100)}"
    b = f"{title}B\n\n{pseudo_words(seed + 2, 100)}{gap}{pasted}\n\n{pseudo_words(seed + 3, 100)}"
    (tmp_path / f"a{suffix}").write_text(a, "utf-8")
    (tmp_path / f"b{suffix}").write_text(b, "utf-8")
    return a, b


def _whole_copy_found(tmp_path: Path, copied: str, pasted: str, seed: int) -> None:
    """The passage of ``copied`` pasted as ``pasted`` (plain text) is its lines on both sides."""
    a, b = _hosts(tmp_path, copied, pasted, seed, ".txt", "\n")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    first, count = copied.split("\n")[0], copied.count("\n") + 1
    assert (p.a.start_line, p.a.end_line) == _lines(a, first, count)
    assert (p.b.start_line, p.b.end_line) == _lines(b, first, count)


# A Markdown copy that begins with a comment and ends with a code block: the comment and the
# fence lines show nothing when rendered, yet were copied with the words between them.
MARKDOWN_COPY = """<!-- taken from the setup guide -->
{words}
```js
const value = compute(alpha, beta)
```
<!-- end of the guide's part -->"""


def _markdown_pair(tmp_path: Path, before_b: str = "") -> tuple[str, str, str]:
    copied = MARKDOWN_COPY.format(words=pseudo_words(950, 40).strip())
    a = f"# A\n\n{pseudo_words(951, 100)}\n{copied}\n\n{pseudo_words(952, 100)}"
    b = f"# B\n\n{pseudo_words(953, 100)}\n{before_b}{copied}\n\n{pseudo_words(954, 100)}"
    (tmp_path / "a.md").write_text(a, "utf-8")
    (tmp_path / "b.md").write_text(b, "utf-8")
    return a, b, copied


def test_a_markdown_copy_is_reported_with_its_hidden_first_and_last_lines(tmp_path: Path) -> None:
    """Its first line is a comment, its last a comment after a fence with an info line: the
    passage is the copy's file lines on both sides, those lines included, in JSON's lines and
    characters as in the text report."""
    a, b, copied = _markdown_pair(tmp_path)
    (p,) = _scan_json(tmp_path)
    first, count = copied.split("\n")[0], copied.count("\n") + 1
    sides = {Path(p[s]["path"]).name: p[s] for s in ("a", "b")}
    for name, text in (("a.md", a), ("b.md", b)):
        side = sides[name]
        assert (side["start_line"], side["end_line"]) == _lines(text, first, count)
        assert _region(text, side) == copied
    report = CliRunner().invoke(cli, ["scan", str(tmp_path), "--passages", "--no-cache"])
    start, end = _lines(a, first, count)
    assert f"a.md lines {start}-{end} " in report.stdout


def test_hidden_lines_that_differ_are_left_out(tmp_path: Path) -> None:
    """In b the copy's first comment is another one: the passage starts after it there and
    in a (a hidden line is taken in only when both files have it)."""
    a, b, copied = _markdown_pair(tmp_path)
    other = b.replace("<!-- taken from the setup guide -->", "<!-- a note of b's own -->")
    (tmp_path / "b.md").write_text(other, "utf-8")
    (p,) = _scan_json(tmp_path)
    second = copied.split("\n")[1]
    for side, text in ((p["a"], a), (p["b"], other)):
        assert _region(text, side).startswith(second)
        assert _region(text, side).endswith("<!-- end of the guide's part -->")


def test_a_copy_cut_inside_a_code_block_keeps_its_code_lines(tmp_path: Path) -> None:
    """a's code block holds a Vue component; b pasted it from its ``<script setup>`` line on,
    with the prose after the block: in b that script is an HTML block (hidden), in a it is
    code. The passage still begins at the script line on both sides."""
    script = (
        "<script setup>\n"
        "const message = ref('Hello')\n"
        "onMounted(() => {\n"
        "  message.value = 'Good morning'\n"
        "})\n"
        "</script>\n"
        "```\n"
    )
    prose = pseudo_words(960, 48)
    a = (
        f"# A\n\n{pseudo_words(961, 100)}\n```vue\n<template>\n  <p>{{{{ message }}}}</p>\n"
        f"</template>\n\n{script}\n{prose}\n{pseudo_words(962, 100)}"
    )
    b = f"# B\n\n{pseudo_words(963, 100)}\n{script}\n{prose}\n{pseudo_words(964, 100)}"
    (tmp_path / "a.md").write_text(a, "utf-8")
    (tmp_path / "b.md").write_text(b, "utf-8")
    (p,) = _scan_json(tmp_path)
    for side, text in ((p["a"], a), (p["b"], b)):
        assert _region(text, side).startswith("<script setup>")
        assert _region(text, side).rstrip().endswith(prose.strip().split("\n")[-1])


def test_a_hidden_line_with_a_word_edited_is_taken_in(tmp_path: Path) -> None:
    """b's copy has its fence's info string edited (``vue-html`` to ``vue-raw``: a line too
    short for its characters to stay alike, one word changed; or to ``ts``): the passage
    starts at the ``<div>`` above it on both sides. As written, the info string is one
    edited word among the copy's lines (``vue-raw`` too: the copy of the text as read starts
    at the code, and the copy of the lines as written at the ``<div>``)."""
    code = '<div class="note">\n\n```vue-html\n<p>{{ count }}</p>\n```\n\n'
    copied = f"{code}{pseudo_words(970, 40).strip()}\n\n</div>"
    a = f"# A\n\n{pseudo_words(971, 100)}\n{copied}\n\n{pseudo_words(972, 100)}"
    for info in ("vue-raw", "ts"):
        pasted = copied.replace("vue-html", info)
        b = f"# B\n\n{pseudo_words(973, 100)}\n{pasted}\n\n{pseudo_words(974, 100)}"
        (tmp_path / "a.md").write_text(a, "utf-8")
        (tmp_path / "b.md").write_text(b, "utf-8")
        (p,) = _scan_json(tmp_path)
        for side, text in ((p["a"], a), (p["b"], b)):
            first = text.split("\n").index('<div class="note">') + 1
            assert side["start_line"] == first, info
            assert _region(text, side).endswith("</div>"), info


def test_two_edited_hidden_lines_in_a_row_are_taken_in(tmp_path: Path) -> None:
    """After the copy's words, b's first two comments are edited (a word; a word and a full
    stop), the others the same: the passage ends at the last on both sides; with the three
    comments b's own (no word of a's), it ends at the words."""
    words = pseudo_words(980, 40).strip()
    tail = "<!-- part one of the guide -->\n<!-- from the setup page. -->\n<!-- the end -->"
    copied = f"{words}\n{tail}\n<!-- bye -->"
    a = f"# A\n\n{pseudo_words(981, 100)}\n{copied}\n\n{pseudo_words(982, 100)}"
    edited = copied.replace("one", "two").replace("setup page.", "install page;")
    own = f"{words}\n<!-- xalo -->\n<!-- zemu quri -->\n<!-- wobe -->\n<!-- bye -->"
    for pasted, ends in ((edited, "<!-- bye -->"), (own, words[-6:])):
        b = f"# B\n\n{pseudo_words(983, 100)}\n{pasted}\n\n{pseudo_words(984, 100)}"
        (tmp_path / "a.md").write_text(a, "utf-8")
        (tmp_path / "b.md").write_text(b, "utf-8")
        (p,) = _scan_json(tmp_path)
        for side, text in ((p["a"], a), (p["b"], b)):
            assert _region(text, side).startswith(words[:12])
            assert _region(text, side).endswith(ends), ends


def test_a_code_block_copied_with_a_word_and_a_comma_edited_keeps_its_last_lines(
    tmp_path: Path,
) -> None:
    """b's copy of a paragraph and a code block has, near the block's end, a line whose one
    word is edited (``alpha,`` to ``gamma,``: nothing else in common but its comma) and a
    comma made full-width (``},`` to ``}，``: the same words, none): the lines after them are
    the same, so the passage runs to the closing fence on both sides."""
    code = "```js\nexport default {\n  setup() {\n    return {\n      alpha,\n      beta,\n"
    code += "    }\n  },\n}\n```"
    copied = f"{pseudo_words(990, 40).strip()}\n\n{code}"
    pasted = copied.replace("alpha,", "gamma,").replace("  },", "  }，")
    _whole_copy_found(tmp_path, copied, pasted, 991)


def test_a_copied_section_keeps_its_renamed_heading(tmp_path: Path) -> None:
    """b holds a's section with its one-word heading renamed (``## Overview`` to ``## Notes``)
    and the next section's heading renamed after it: the passage takes in both headings (a
    section copied with its title changed), and no other line around them."""
    section = f"## Overview\n\n{pseudo_words(995, 60).strip()}\n\n## Details"
    pasted = section.replace("## Overview", "## Notes").replace("## Details", "## Usage")
    a, b = _hosts(tmp_path, section, pasted, 996, ".md", "\n\n")
    (p,) = _scan_json(tmp_path)
    sides = {Path(p[s]["path"]).name: p[s] for s in ("a", "b")}
    assert _region(a, sides["a.md"]) == section
    assert _region(b, sides["b.md"]) == pasted


def test_a_heading_of_another_level_is_left_out(tmp_path: Path) -> None:
    """b's copy stands under a heading of another level: no renamed heading, not taken in."""
    section = f"## Overview\n\n{pseudo_words(995, 60).strip()}"
    pasted = section.replace("## Overview", "### Notes")
    a, b = _hosts(tmp_path, section, pasted, 996, ".md", "\n\n")
    (p,) = _scan_json(tmp_path)
    sides = {Path(p[s]["path"]).name: p[s] for s in ("a", "b")}
    body = section.split("\n", 2)[2]
    assert _region(a, sides["a.md"]) == body
    assert _region(b, sides["b.md"]) == body


def test_a_bracket_line_with_its_comma_dropped_keeps_the_block_whole(tmp_path: Path) -> None:
    """b's copy of a code block has ``],`` as ``]`` (lines of no word, punctuation edited):
    the lines after it are the same, so the passage runs to the closing fence."""
    code = "```js\nexport default {\n  chunks: {\n    group: [\n      './src/UserDetails',\n"
    code += "      './src/UserProfile',\n    ],\n  },\n}\n```"
    copied = f"{pseudo_words(980, 40).strip()}\n\n{code}"
    _whole_copy_found(tmp_path, copied, copied.replace("    ],", "    ]"), 981)
