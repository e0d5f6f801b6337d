"""The reports of ``simdup check`` as a teacher meets them (issue 47): a class listed highest
ratio first, then each report in that order (text, HTML, JSON); each source's category; the
fragments' texts as a reader sees them, never cut inside a citation marker or a word."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.cli import cli


def hanzi(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n))


P1, P2, P3 = hanzi(1, 150), hanzi(2, 150), hanzi(3, 100)
# A copied paragraph with emphasis, run on through a heading into the next one.
EMPHASIS = f"{P2[:20]}**{P2[20:30]}**{P2[30:]}"


@pytest.fixture
def class_folder(tmp_path: Path) -> Path:
    """A class of three Markdown theses, their names in another order than their ratios:
    a.md original, b.md copying most of a review (and reusing its author's own paper),
    c.md copying half a paragraph (of the review, and so of b.md). Sources: the review
    (refs/), the author's paper (own/), and the class itself."""
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "review.md").write_text(
        f"# 综述\n\n## 一、背景\n\n{P1}[2]。\n\n## 第二章 相关工作\n\n{EMPHASIS}\n\n"
        f"{hanzi(10, 200)}\n",
        encoding="utf-8",
    )
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "paper.md").write_text(f"{P3}[3]{hanzi(11, 120)}\n", encoding="utf-8")
    folder = tmp_path / "class"
    folder.mkdir()
    theses = {
        "a.md": f"# 论文甲\n\n## 第一章 绪论\n\n{hanzi(20, 300)}\n",
        "b.md": f"# 论文乙\n\n## 第一章 绪论\n\n{P1}[2]。\n\n## 第二章 **相关**工作\n\n"
        f"{EMPHASIS}\n\n{P3}[3]。{hanzi(21, 60)}\n",
        "c.md": f"# 论文丙\n\n## 第一章 绪论\n\n{hanzi(22, 300)}\n\n{P1[:80]}。\n",
    }
    for name, text in theses.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def check(folder: Path, *args: str) -> Result:
    root = folder.parent
    result = CliRunner().invoke(
        cli,
        ["check", str(folder), "--against", str(folder), "--against", str(root / "refs"),
         "--self", str(root / "own"), *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output + result.stderr
    return result


def names(paths: list[str]) -> list[str]:
    return [Path(p).name for p in paths]


def test_a_class_is_listed_highest_ratio_first_then_reported_in_that_order(
    class_folder: Path,
) -> None:
    """``check class/ --against class/``: the text report opens with one line per student,
    the highest copy ratio first, with the largest source and its share; the reports follow
    in that order. The JSON lists its documents in the same order, and a ``ranking``."""
    data = json.loads(check(class_folder, "-f", "json").stdout)
    ratios = {Path(d["path"]).name: d["copy_ratio"] for d in data["documents"]}
    assert ratios["b.md"] > ratios["c.md"] > ratios["a.md"] == 0.0
    assert names([d["path"] for d in data["documents"]]) == ["b.md", "c.md", "a.md"]
    ranking = data["ranking"]
    assert [r["rank"] for r in ranking] == [1, 2, 3]
    assert names([r["path"] for r in ranking]) == ["b.md", "c.md", "a.md"]
    assert [r["copy_ratio"] for r in ranking] == [ratios["b.md"], ratios["c.md"], 0.0]
    assert names([ranking[0]["largest_source"]]) == ["review.md"]
    assert ranking[0]["largest_source_category"] == "file"
    assert ranking[2]["largest_source"] is None and ranking[2]["largest_source_ratio"] == 0.0

    text = check(class_folder).stdout
    table, _, reports = text.partition("\n\n")
    lines = table.splitlines()
    assert lines[0] == "Documents, highest copy ratio first:"
    assert [Path(line.split()[2]).name for line in lines[1:]] == ["b.md", "c.md", "a.md"]
    first = lines[1].split()
    assert first[:2] == ["1", f"{100 * ratios['b.md']:.1f}%"]
    assert "largest single source" in lines[1] and "review.md (file)" in lines[1]
    headers = [Path(line).name for line in reports.splitlines() if line.startswith("/")]
    assert headers == ["b.md", "c.md", "a.md"]

    zh = check(class_folder, "--lang", "zh").stdout
    assert zh.startswith("各文档复制比（从高到低）：\n")

    page = check(class_folder, "-f", "html").stdout
    table_html = page[page.index("<table class=ranking>") : page.index("</table>")]
    listed = names(re.findall(r"<code>([^<]*)</code></a>", table_html))
    assert listed == ["b.md", "c.md", "a.md"]
    sections = names(re.findall(r"<section id=doc-\d+>\n<h2><code>([^<]*)</code>", page))
    assert sections == ["b.md", "c.md", "a.md"]


def test_every_source_has_a_category(class_folder: Path) -> None:
    """The sources table's kind (类别) is filled for every source: a file of --against, a
    classmate checked in the same run, the author's own work."""
    data = json.loads(check(class_folder, "-f", "json").stdout)
    by_name = {Path(d["path"]).name: d for d in data["documents"]}
    categories = {Path(s["source"]).name: s["category"] for s in by_name["b.md"]["sources"]}
    assert categories == {"review.md": "file", "paper.md": "own", "c.md": "checked"}
    assert all(s["category"] for d in data["documents"] for s in d["sources"])
    zh = check(class_folder, "-f", "html", "--lang", "zh").stdout
    first = zh[zh.index("<table class=sources>") :]
    first = first[: first.index("</table>")]
    rows = re.findall(r"<tr id=d0-src-\d+>(.*?)</tr>", first)
    assert len(rows) == 3
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    kinds = [html.unescape(re.sub("<[^>]+>", "", row[2])) for row in cells]
    assert sorted(kinds) == sorted(["比对文件", "本人文献", "同批检测文档"])
    text = check(class_folder).stdout
    assert "(own work)" in text and "(checked in this run)" in text and "(file)" in text


def pane_texts(page: str) -> list[str]:
    """The text of every pane beside a fragment (this document's side, then the source's)."""
    panes = re.findall(r"<div class=pair><div>(.*?)</div><div>(.*?)</div></div>", page)
    return [html.unescape(re.sub("<[^>]+>", "", side)) for pair in panes for side in pair]


def test_fragments_read_as_the_document_does_and_keep_their_markers_whole(
    class_folder: Path,
) -> None:
    """From Markdown theses: no ``## `` heading mark and no ``**`` in a fragment's panes, the
    text report or the JSON; a fragment ending in a citation marker keeps it whole (``[3]``,
    not ``[3``); a heading the fragment runs into is no part of it."""
    data = json.loads(check(class_folder, "-f", "json").stdout)
    b = next(d for d in data["documents"] if d["path"].endswith("b.md"))
    texts = [t for f in b["fragments"] for t in (f["text"], f["source_text"])]
    assert texts
    for text in texts:
        assert "#" not in text and "**" not in text, text
        assert not re.search(r"\[\d+(?!\d|\])", text), text  # a marker cut open
    own = next(f for f in b["fragments"] if f["kind"] == "own")
    assert own["text"].endswith(f"{P3[-5:]}[3]") and own["source_text"].endswith("[3]")
    assert any(f"{P2[20:30]}" in t and P1[-5:] in t for t in texts)  # through the heading
    assert not any(f["text"].startswith(("论文", "第一章")) for f in b["fragments"])

    page = check(class_folder, "-f", "html").stdout
    panes = pane_texts(page)
    assert panes and all("## " not in p and "**" not in p for p in panes)
    assert any(p.endswith("[3]") for p in panes)
    text = check(class_folder).stdout
    shown = [line for line in text.splitlines() if line.startswith(" " * 6)]
    assert shown and all("## " not in line and "**" not in line for line in shown)
    assert "  第二章 相关工作\n" in text  # a section's title as it reads


def test_headings_count_nothing_and_section_bars_split_own_work(class_folder: Path) -> None:
    """A fragment running through a heading copies no heading: no section's ratio comes
    from its title alone; own work in a section is counted apart (``own_units``)."""
    data = json.loads(check(class_folder, "-f", "json").stdout)
    b = next(d for d in data["documents"] if d["path"].endswith("b.md"))
    sections = {s["title"]: s for s in b["sections"]}
    chapter_two = sections["第二章 相关工作"]
    assert chapter_two["own_units"] == 100  # P3, found in own work alone
    assert chapter_two["copied_units"] == 150 + 100
    assert chapter_two["units"] == 150 + 100 + 60
    a = next(d for d in data["documents"] if d["path"].endswith("a.md"))
    assert a["units"] == 300 and a["copied_units"] == 0  # "论文甲", "第一章 绪论" uncounted


# -- offsets in the files' characters (issue 48) ----------------------------------------------

_FORMS = ["{w}", "*{w}*", "**{w}**", "`{w}`", "[{w}](http://example.com/{w}/x)", "{w}&amp;",
          "\\*{w}", "<span class=\"{w}\">{w}</span>"]  # fmt: skip
_MARKS = re.compile(r"[*`\\]")


def _visible(file_text: str) -> list[str]:
    """The words a reader sees in a stretch of a Markdown file (markup, link destinations,
    tags and references left out)."""
    text = re.sub(r"\]\([^)\s]*\)?|<[^>]*>|&amp;", " ", file_text)
    return re.findall(r"[^\W_]+", _MARKS.sub("", text))


@settings(max_examples=8)
@given(st.data())
def test_check_offsets_hold_the_copied_words_in_the_markdown_files(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """check JSON on Markdown files with headings, emphasis, links, code spans, entities,
    escapes and inline HTML: the host's characters between start_char and end_char hold the
    copied words in order and nothing else, and so do the source's between its offsets; the
    same files as .txt give fragments over the same stretch of each file (read as text, the
    markup around the copied words is copied text too: the same words, a few characters
    more)."""
    folder = tmp_path_factory.mktemp("offsets")
    words = [f"w{n}x" for n in range(40)]
    copied = [
        data.draw(st.sampled_from(_FORMS)).format(w=w) for w in words[10:34]
    ]  # 24 words: one fragment
    host = ("# Heading *one*\n\nTitle line\n===\n\n" + " ".join(words[:10]) + "\n\n- item "
            + " ".join(copied[:12]) + "\n" + " ".join(copied[12:]) + "\n\n| a | b |\n|---|---|\n"
            "| c | d |\n\nOther words end here.\n")  # fmt: skip
    source = ("Intro &lt;text&gt; here.\n\n> " + " ".join(copied) + "\n\n"
              + " ".join(words[34:]) + "\n")  # fmt: skip
    spans = {}
    for suffix in (".md", ".txt"):
        (folder / f"host{suffix}").write_text(host, encoding="utf-8")
        refs = folder / f"refs{suffix[1:]}"
        refs.mkdir(exist_ok=True)
        (refs / f"source{suffix}").write_text(source, encoding="utf-8")
        out = CliRunner().invoke(
            cli, ["check", str(folder / f"host{suffix}"), "--against", str(refs), "-f", "json"]
        )
        assert out.exit_code == 0, out.output
        (document,) = json.loads(out.stdout)["documents"]
        assert document["offsets"] == "file"
        (fragment,) = document["fragments"]
        assert fragment["source_offsets"] == "file"
        here = host[fragment["start_char"] : fragment["end_char"]]
        there = source[fragment["source_start_char"] : fragment["source_end_char"]]
        spans[suffix] = (fragment["start_char"], fragment["end_char"])
        if suffix == ".md":
            assert _visible(here) == words[10:34] and _visible(there) == words[10:34]
            assert fragment["read_start"] < fragment["start_char"]
    (md_start, md_end), (txt_start, txt_end) = spans[".md"], spans[".txt"]
    assert txt_start <= md_start < md_end <= txt_end
    assert md_start - txt_start < 30 and txt_end - md_end < 30


def test_check_offsets_of_an_html_page_are_the_page_characters(tmp_path: Path) -> None:
    """An HTML page checked against a Markdown source: the fragment's offsets name the page's
    characters of the copied words (past its head, script and tags); its place is the page's
    line of those words, not of the tag that opens their paragraph."""
    pytest.importorskip("lxml")
    copied = " ".join(f"w{n}y" for n in range(24))
    page = ("<html><head><title>w1y w2y</title><script>var w3y = 1;</script></head>\n<body>\n"
            f"<p class=\"w4y\">\nIntro &amp; more.\n</p>\n<p>\n<b>{copied[:20]}</b>{copied[20:]}"
            "\n</p>\n</body></html>\n")  # fmt: skip
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "source.md").write_text(f"# T\n\n{copied}\n", encoding="utf-8")
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    out = CliRunner().invoke(
        cli, ["check", str(tmp_path / "page.html"), "--against", str(tmp_path / "refs"),
              "-f", "json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    (fragment,) = json.loads(out.stdout)["documents"][0]["fragments"]
    here = page[fragment["start_char"] : fragment["end_char"]]
    assert re.sub(r"<[^>]*>", "", here) == copied
    assert fragment["place"] == "line 7"
