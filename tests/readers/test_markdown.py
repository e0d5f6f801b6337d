"""The Markdown reader (simdup/readers/markdown.py): the text a reader of the rendered document
sees, each line located by its line in the file; its words held to cmark-gfm's rendering."""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from simdup.cli import cli
from simdup.readers import read_document, reader_for
from simdup.readers.markdown import MarkdownReader, markdown_text
from simdup.records import DecodedDocument
from tests.conftest import BENCH_DOCS

PAGES = Path(__file__).parent.parent / "data" / "markdown"

DOCUMENT = """---
title: front matter
---
# Head *em* [link](http://a.b "t")

Para with <span class="x">inline html</span> and [ref][r1] and ![alt text](img.png).
Second line `code` and [“Message
Passing”][r1] then [undefined][nope].

<Listing number="17-30" caption="Using `Box<T>` here">

```rust,ignore,does_not_compile
fn main() { let x = "<b>"; }
```

</Listing>

| a | b `x|y` |
|---|---|
| 1 | 2 \\| 3 |

::: tip
Inside tip.
:::

{{#rustdoc_include ../listings/x.rs}}

[r1]: http://example.com
Footnote[^1]. &amp; &copy; <http://x.y/z> {{ page.title }}

- item one
- item [two](x)

> quoted **bold**

Setext
------

<!-- a comment -->
<script>var hidden = 1;</script>

[^1]: The note.
"""


def test_the_text_a_reader_sees_line_by_line() -> None:
    """Line k of the text is what line k of the file shows."""
    lines = markdown_text(DOCUMENT).split("\n")
    assert len(lines) == DOCUMENT.count("\n") + 1
    shown = {k: line for k, line in enumerate(lines, 1) if line.strip()}
    assert shown == {
        4: "# Head *em* [link]",
        6: "Para with  inline html  and [ref] and ![alt text].",
        7: "Second line code and [“Message",
        8: "Passing”] then [undefined][nope].",
        13: 'fn main() { let x = "<b>"; }',
        18: "| a | b x|y |",
        20: "| 1 | 2 | 3 |",
        23: "Inside tip.",
        29: "Footnote. & © http://x.y/z ",
        31: "- item one",
        32: "- item [two]",
        34: "> quoted **bold**",
        36: "## Setext",
        42: " The note.",
    }


def test_what_is_left_out() -> None:
    """Destinations, definitions, fence info strings, tags and attributes, comments, scripts,
    front matter, container fences and template directives are no text."""
    text = markdown_text(DOCUMENT)
    for gone in ("http://a.b", "example.com", "rust,ignore", "Listing", "caption", "span",
                 "front matter", ":::", "rustdoc_include", "page.title", "comment",
                 "hidden", "[r1]", "img.png", "[^1]"):  # fmt: skip
        assert gone not in text, gone


def test_a_reference_link_needs_its_definition() -> None:
    """A reference to a label the document defines shows its text (labels match without
    regard to case and spacing); one it does not define stays as written, as a renderer shows
    it; the definitions show nothing."""
    source = "[One][Big  Label] and [two][] and [three] and [four][none].\n\n[big label]: /a\n"
    source += "[two]: /b\n[three]: /c 'title'\n"
    assert markdown_text(source) == "[One] and [two] and [three] and [four][none].\n\n\n\n\n"


def test_code_is_kept_as_written() -> None:
    """Inside code spans and fenced code, nothing is markup; the fences show nothing."""
    source = (
        "Use `[a](b)` and `` `<i>` ``.\n\n~~~html\n<div>[x](y) &amp;</div>\n~~~\n\n"
        "> ```\n> quoted code\n> ```\n"
    )
    assert markdown_text(source).split("\n") == [
        "Use [a](b) and `<i>`.", "", "", "<div>[x](y) &amp;</div>", "", "", "", "> quoted code",
        "", "",
    ]  # fmt: skip


def test_tables_lose_their_delimiter_row() -> None:
    source = "Name | Note\n:--- | ---:\n`a|b` | [x](y)\nc | d\n\nafter\n"
    assert markdown_text(source) == "Name | Note\n\na|b | [x]\nc | d\n\nafter\n"


def test_html_shows_its_text_only() -> None:
    source = (
        '<div class="box" data-x="a>b">\nShown <b>bold</b> &mdash; yes\n</div>\n\n<style>\n'
        "p { color: red }\n</style>\n\n<pre>\nkept\n</pre>\n\n<!-- a\nlong comment -->tail\n"
    )
    assert markdown_text(source).split() == ["Shown", "bold", "—", "yes", "kept", "tail"]


def test_code_in_list_items_and_html_blocks_is_code() -> None:
    """A fence indented in a list item (by any depth) or opened after a list marker is code,
    as in an HTML block: its ``<script setup>`` and ``<style>`` are text a reader sees."""
    source = (
        "1. Create the file:\n\n    ```vue\n    <script setup>\n    const a = 1\n    </script>\n"
        "    <style scoped>\n    h1 { color: red }\n    </style>\n    ```\n\n"
        "- ```sh\n  npm install\n  ```\n\n<div class=\"composition-api\">\n\n"
        "```vue\n<script setup>\nconst b = 2\n</script>\n```\n\n</div>\n"
    )
    assert markdown_text(source).split() == [
        "1.", "Create", "the", "file:", "<script", "setup>", "const", "a", "=", "1", "</script>",
        "<style", "scoped>", "h1", "{", "color:", "red", "}", "</style>", "npm", "install",
        "<script", "setup>", "const", "b", "=", "2", "</script>",
    ]  # fmt: skip


def test_a_script_or_comment_hides_only_up_to_its_end() -> None:
    """A script or style ends at a code fence at the latest, and one whose end never comes
    hides nothing, nor does a comment that is never closed (the rest is the writer's text)."""
    cut = "<style scoped>\n.a { color: red }\n```\n\nShown after.\n\n```css\n</style>\n```\n"
    assert markdown_text(cut).split() == ["Shown", "after.", "</style>"]
    assert markdown_text("<script>\nvar shown = 1\n").split() == ["var", "shown", "=", "1"]
    assert markdown_text("Intro\n\n<!-- draft\n\nStill shown\n").split() == [
        "Intro", "<!--", "draft", "Still", "shown",
    ]  # fmt: skip
    closed = "<!-- hidden\n```js\nnot = shown\n```\n-->\n<script>\nhidden()\n</script>\nyes\n"
    assert markdown_text(closed).split() == ["yes"]


def test_a_stray_closing_fence_opens_nothing() -> None:
    """The second half of a code block copied into a page ends in a bare fence: it closes the
    code above (read as prose) and opens nothing, so what follows reads as the writer meant."""
    source = "const a = 1\n```\n\nSee [the docs](http://x/y).\n\n```js\ncode()\n```\n"
    assert markdown_text(source).split("\n") == [
        "const a = 1", "", "", "See [the docs].", "", "", "code()", "", "",
    ]  # fmt: skip
    unclosed = "Prose [a](http://b).\n\n```\n\nMore [c](http://d).\n"
    assert "http" not in markdown_text(unclosed)


def test_container_titles_show_and_heading_anchors_do_not() -> None:
    """``::: tip Title`` shows its title (its fence and type no text), ``:::`` nothing; a
    heading's attribute block (``{#id .class}``) names an anchor no reader sees."""
    source = "::: tip Composition API\nBody.\n:::\n\n## Refs {#template-refs .x}\n\n# Set {a}\n"
    assert markdown_text(source).split("\n") == [
        " Composition API", "Body.", "", "", "## Refs", "", "# Set {a}", "",
    ]  # fmt: skip


def test_yaml_front_matter_shows_nothing() -> None:
    """Front matter whose every line is shaped as YAML (keys, quoted keys, lists, a block
    scalar's indented text, comments, blank lines; closed by ``---`` or ``...``) is no text."""
    source = (
        "---\ntitle: Getting started\n\"og:title\": 'Start'\ntags:\n  - guide\n- loose\n"
        "# a comment\ndescription: |\n  Block text no reader sees.\n\nlayout:\n标题: 中文\n"
        "---\n# Start\n\nBody.\n"
    )
    assert markdown_text(source).split("\n") == [""] * 13 + ["# Start", "", "Body.", ""]
    assert markdown_text("---\ntitle: x\nsidebar: auto\n...\nBody.\n").split() == ["Body."]


def test_a_block_with_prose_is_no_front_matter() -> None:
    """A passage pasted into front matter, or a page that opens with a thematic break: a
    block between ``---`` lines holding a line that is no YAML (prose, a fence, a URL) is
    read as Markdown, as cmark-gfm renders it: the first ``---`` a thematic break, the other
    the underline of a heading where prose stands above it."""
    pasted = (
        "---\ntitle: Plugins\nYou can also use a dynamic key based on the route:\n\n"
        "```js\nkey: route => route.fullPath\n```\nsidebar: auto\n---\n\nBody.\n"
    )
    assert markdown_text(pasted).split("\n") == [
        "", "title: Plugins", "You can also use a dynamic key based on the route:", "", "",
        "key: route => route.fullPath", "", "## sidebar: auto", "", "", "Body.", "",
    ]  # fmt: skip
    assert _rendered_words(pasted, front_matter=False) == Counter(
        w.lower() for w in _WORD.findall(markdown_text(pasted))
    )
    for line in ("See https://example.com", "```", "<div>", "Two words: here", "a:b"):
        assert "title: x" in markdown_text(f"---\ntitle: x\n{line}\n---\n"), line


def test_the_closing_delimiter_alone_opens_nothing() -> None:
    """Front matter opens on the first line only, with ``---``: a ``---`` or ``...`` later
    (the closing line of front matter cut above it, a thematic break) hides nothing, nor
    does a first ``---`` that nothing closes."""
    assert markdown_text("Intro.\n---\ntitle: x\n---\nBody.\n").split("\n") == [
        "## Intro.", "", "## title: x", "", "Body.", "",
    ]  # fmt: skip
    assert markdown_text("...\ntitle: x\n---\nBody.\n").split("\n") == [
        "...", "## title: x", "", "Body.", "",
    ]  # fmt: skip
    assert markdown_text("---\n\nA page that opens with a rule.\n").split() == [
        "A", "page", "that", "opens", "with", "a", "rule.",
    ]  # fmt: skip


def test_a_passage_pasted_into_front_matter_is_found(tmp_path: Path) -> None:
    """``compare --passages`` of a page with another whose front matter a part of it was
    pasted into: the copy is found where it stands (hidden as front matter, it was not)."""
    copy = [
        "Provides legacy browsers support for the production build through",
        "a plugin that compiles modern syntax down and adds the",
        "polyfills the target browsers lack, so old browsers run it.",
    ]
    source = ["# Plugins", "", "Official plugins come first.", "", *copy, "", "## Community"]
    host = ["---", "sidebar: auto", *copy, "sidebarDepth: 3", "---", "", "# Store", "",
            "A store holds state."]  # fmt: skip
    (tmp_path / "plugins.md").write_text("\n".join(source), encoding="utf-8")
    (tmp_path / "store.md").write_text("\n".join(host), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["compare", str(tmp_path / "plugins.md"), str(tmp_path / "store.md"), "--passages",
              "-f", "json"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    spans = [(p["a"], p["b"]) for p in json.loads(result.stdout)["passages"]]
    source_lines, host_lines = (5, 4 + len(copy)), (3, 2 + len(copy))
    assert any(
        _covered(a, source_lines) == len(copy) and _covered(b, host_lines) == len(copy)
        for a, b in spans
    ), spans


def test_a_real_shaped_page_reads_as_cmark_gfm_renders_it() -> None:
    """A page in the Vue guide's shapes (HTML blocks around fences, fences in lists,
    containers): its words are cmark-gfm's, but for the anchors and container types that the
    sites using them (VitePress, Pandoc, Hugo) do not show."""
    source = (PAGES / "vue-like-guide.md").read_text(encoding="utf-8")
    ours = Counter(w.lower() for w in _WORD.findall(markdown_text(source)))
    theirs = _rendered_words(source)
    site_only = {
        w.lower()
        for m in re.finditer(r"\{#[^}]*\}|^:::.*$", source, re.M)
        for w in _WORD.findall(m.group())
    }
    assert set(theirs - ours) <= site_only, theirs - ours
    assert set(ours - theirs) <= {"2"}, ours - theirs  # cmark numbers the list itself
    assert _jaccard(ours, theirs) >= 0.97


def test_a_copied_example_from_a_list_is_found_whole(tmp_path: Path) -> None:
    """``compare --passages`` of the page with another that holds a copy of its section of
    list-indented examples: the passage covers the copy (hidden, the examples' scripts and
    styles left it 11 of 19 lines, too few to count as found)."""
    page = (PAGES / "vue-like-guide.md").read_text(encoding="utf-8")
    lines = page.split("\n")
    first = lines.index("## Setting up a project")
    copy = lines[first : lines.index("    </style>") + 1]
    host = [
        "# Notes on build tools", "",
        "Bundlers take many modules and join them into a few files for the browser.", "",
        "```js", "import { build } from 'vite'", "", "await build({ root: './app' })", "```", "",
        *copy, "", "## Caching", "",
        "A cache keeps the results of earlier builds, so only changed files are built again.",
    ]  # fmt: skip
    (tmp_path / "guide.md").write_text(page, encoding="utf-8")
    (tmp_path / "notes.md").write_text("\n".join(host), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["compare", str(tmp_path / "guide.md"), str(tmp_path / "notes.md"), "--passages",
              "-f", "json"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    spans = [(p["a"], p["b"]) for p in json.loads(result.stdout)["passages"]]
    source_lines = (first + 1, first + len(copy))
    host_lines = (11, 10 + len(copy))
    assert any(
        _covered(a, source_lines) >= 0.8 * len(copy) and _covered(b, host_lines) >= 0.8 * len(copy)
        for a, b in spans
    ), spans


def _covered(span: dict[str, int], lines: tuple[int, int]) -> int:
    return max(0, min(span["end_line"], lines[1]) - max(span["start_line"], lines[0]) + 1)


@given(st.text(alphabet=st.sampled_from(list("ab [](){}<>!`~#*-_|:=>\\&;\n 中文\t\"'/^%")),
               max_size=300))  # fmt: skip
def test_every_line_stays_in_place(source: str) -> None:
    """Whatever the input, the text has the file's lines, and a line break of its own in
    none of them."""
    assert markdown_text(source).count("\n") == source.count("\n")


@pytest.mark.parametrize("opener", ["<a ", "[^", "{{", "{%", '<a b="', "](<", "`", "``` ` "])
def test_a_line_of_unclosed_openers_costs_linear_time(opener: str) -> None:
    """A hostile line (a megabyte of openers whose end never comes) is read in linear time:
    the end of a construct is looked for at most LOOKAHEAD characters ahead. Read one
    quadratically, 200,000 of them took 30 s and more."""
    import time

    line = opener * (1_000_000 // len(opener))
    started = time.perf_counter()
    markdown_text(line)
    assert time.perf_counter() - started < 5.0


def test_the_reader_is_chosen_by_the_extension_and_locates_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(("# 标题\r\n\r\n正文[链接](http://x)。\r\n").encode("gb18030"))
    assert isinstance(reader_for(str(path), path.read_bytes()), MarkdownReader)
    document = read_document(str(path), 1 << 20)
    assert isinstance(document, DecodedDocument)
    assert document.text == "# 标题\n\n正文[链接]。\n"
    assert document.locations is not None
    place = document.locations.place(6, 8)  # "正文"
    assert place is not None and place.label() == "line 3"
    assert reader_for("notes.txt", b"# x") is not reader_for("notes.md", b"# x")


# --------------------------------------------------------------- against cmark-gfm

_WORD = re.compile(r"[\u4e00-\u9fff]|[^\W_\u4e00-\u9fff]+")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


class _Text(HTMLParser):
    """The text of cmark-gfm's HTML: what a browser shows (image descriptions included)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in ("script", "style")
        alt = dict(attrs).get("alt") if tag == "img" else None
        self.parts.append(f" {alt} " if alt else " ")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in ("script", "style")
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def _rendered_words(source: str, front_matter: bool = True) -> Counter[str]:
    """cmark-gfm's words of ``source`` (``front_matter``: its front matter dropped first)."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    # cmark-gfm knows no front matter: as every renderer that does, drop it first.
    if front_matter:
        source = _FRONT_MATTER.sub(lambda m: "\n" * m.group().count("\n"), source, count=1)
    html = cmarkgfm.markdown_to_html_with_extensions(
        source, Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES,
        ["table", "strikethrough", "autolink", "tasklist"],
    )  # fmt: skip
    parser = _Text()
    parser.feed(html)
    parser.close()
    return Counter(w.lower() for w in _WORD.findall("".join(parser.parts)))


def _jaccard(a: Counter[str], b: Counter[str]) -> float:
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


@pytest.mark.skipif(not BENCH_DOCS.is_dir(), reason=f"benchmark docs not found at {BENCH_DOCS}")
def test_the_words_are_those_of_cmark_gfm_on_real_documents() -> None:
    """Every fourth Markdown document of the labelled set: the reader's words are cmark-gfm's
    (GitHub's renderer), counted with repeats: Jaccard >= 0.97 each, >= 0.999 at the median
    (on all 1,170: the lowest 0.977, 16 below 0.99; markup stripping as before this reader:
    378 below 0.99, the lowest 0.52)."""
    found = []
    for path in sorted(BENCH_DOCS.rglob("*.md"))[::4]:
        document = read_document(str(path), 1 << 24)
        if not isinstance(document, DecodedDocument):
            continue
        source = read_document_plain(path)
        ours = Counter(w.lower() for w in _WORD.findall(document.text))
        found.append((_jaccard(ours, _rendered_words(source)), path.name))
    found.sort()
    assert len(found) > 200
    assert found[0][0] >= 0.97, found[:3]
    assert found[len(found) // 2][0] >= 0.999


def read_document_plain(path: Path) -> str:
    """The decoded text of a file, as the plain-text reader reads it."""
    from simdup.readers.decoding import decode_data

    decoded = decode_data(str(path), path.read_bytes())
    assert isinstance(decoded, DecodedDocument)
    return decoded.text
