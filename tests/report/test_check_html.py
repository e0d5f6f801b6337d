"""The HTML report of a duplicate check: ratios, section bars, sources, and the document's full
text with copied, quoted, own and excluded text marked by non-overlapping ``mark`` elements.

The pure-Python tests parse the page with ``html.parser``; the last test renders it in headless
Chromium (the ``chromium`` fixture of ``test_html_report``: installed when missing and possible,
else the test is skipped saying why) and reads back the DOM Chromium built.
"""

from __future__ import annotations

import html as html_lib
import io
import json
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

import pytest

from simdup.checking.results import (
    CheckResult,
    CheckWarning,
    CopiedFragment,
    DocumentCheck,
    ExcludedRange,
    SectionRatio,
    SourceShare,
)
from simdup.records import Place, SkippedFile
from simdup.report.check_html import render_check_html
from tests.report import test_html as html_tests

chromium = html_tests.chromium  # the session fixture, shared
run_chromium = html_tests.run_chromium

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip
HOSTILE_PATH = "theses/<script>alert(1)</script>论文.txt"
PAPER = "sources/paper & <b>review</b>.txt"
OWN = "own/earlier.txt"

COPIED = "深度学习在自然语言处理中取得了显著进展。This sentence was copied from a paper."
QUOTE = "“知识就是力量，学习使人进步。”"
OWN_TEXT = "Our own earlier words are reused here again."
REFERENCES = "参考文献\n[1] 张三. 深度学习综述. 2020.\n"
TEXT = (
    f"研究表明，{COPIED}\n正如前人所说：{QUOTE}我们同意 <b>not bold</b> & more.\n\n"
    f"# 结论\n{OWN_TEXT} 本文的结论是可靠的。\n{REFERENCES}"
)


@dataclass
class Dom:
    """What a parsed page holds: its tags, ids, links, text, its marks (classes, text, title,
    the link inside) in order, the text of every ``div.doctext``, and whether its tags
    balanced (each end tag closing the innermost open element, all closed at the end)."""

    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    text: str = ""
    marks: list[tuple[set[str], str, str, str | None]] = field(default_factory=list)
    doctexts: list[str] = field(default_factory=list)
    balanced: bool = True

    def tag_count(self, name: str) -> int:
        return sum(1 for tag, _ in self.tags if tag == name)

    def classed(self, tag: str, cls: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and cls in (a.get("class") or "").split()]


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.dom = Dom()
        self._text: list[str] = []
        self._open: list[str] = []
        self._mark: tuple[set[str], list[str], str, list[str | None]] | None = None
        self._doctext: list[str] | None = None
        self._doctext_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.dom.tags.append((tag, a))
        if a.get("id"):
            self.dom.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.dom.links.append(str(a["href"]))
            if self._mark is not None:
                self._mark[3].append(a["href"])
        if tag in VOID:
            return
        self._open.append(tag)
        classes = set((a.get("class") or "").split())
        if tag == "mark" and self._doctext is not None:
            if self._mark is not None:
                self.dom.balanced = False  # marks never nest
            self._mark = (classes, [], str(a.get("title") or ""), [])
        if tag == "div" and "doctext" in classes:
            self._doctext = []
            self._doctext_depth = len(self._open)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.dom.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self._open or self._open[-1] != tag:
            self.dom.balanced = False
            return
        if self._doctext is not None and len(self._open) == self._doctext_depth:
            self.dom.doctexts.append("".join(self._doctext))
            self._doctext = None
        self._open.pop()
        if tag == "mark" and self._mark is not None:
            classes, text, title, links = self._mark
            self.dom.marks.append((classes, "".join(text), title, links[0] if links else None))
            self._mark = None

    def handle_data(self, data: str) -> None:
        self._text.append(data)
        if self._doctext is not None:
            self._doctext.append(data)
        if self._mark is not None:
            self._mark[1].append(data)

    def result(self) -> Dom:
        self.dom.text = "".join(self._text)
        if self._open:
            self.dom.balanced = False
        return self.dom


def parse(page: str) -> Dom:
    parser = _Parser()
    parser.feed(page)
    parser.close()
    return parser.result()


def page_of(result: CheckResult, lang: str = "en") -> str:
    out = io.StringIO()
    render_check_html(result, out, lang)
    return out.getvalue()


def fragment(text: str, part: str, source: str, kind: str, source_start: int = 0) -> CopiedFragment:
    start = text.index(part)
    return CopiedFragment(
        source=source, start=start, end=start + len(part), source_start=source_start,
        source_end=source_start + len(part), kind=kind, units=len(part), similarity=1.0,
        place=Place("line", "1", "2"), source_place=Place("page", "4", "4"), text=part,
        source_text=f"source side of {part}",
    )  # fmt: skip


def span(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def sample_result() -> CheckResult:
    """A Chinese and English document: one copied, one quoted and one own fragment, a
    reference list left out, two sources (one the author's own), two sections (the first
    before any heading), one warning, a path holding a ``<script>`` tag."""
    conclusion = TEXT.index("# 结论")
    quote = span(TEXT, QUOTE)
    refs = span(TEXT, REFERENCES)
    doc = DocumentCheck(
        path=HOSTILE_PATH, text=TEXT, units=120, copied_units=55, copy_ratio=0.4583,
        ratio_without_quotes=0.35, ratio_without_own=0.3012, largest_source_ratio=0.2891,
        largest_source=PAPER,
        sources=(SourceShare(PAPER, False, 35, 0.2891, 2), SourceShare(OWN, True, 20, 0.1667, 1)),
        sections=(
            SectionRatio("", 0, conclusion, 80, 45, 0.5625),
            SectionRatio("结论", conclusion, len(TEXT), 40, 10, 0.25),
        ),
        fragments=(
            fragment(TEXT, COPIED, PAPER, "copied"),
            fragment(TEXT, QUOTE, PAPER, "quoted", 300),
            fragment(TEXT, OWN_TEXT, OWN, "own"),
        ),
        quoted=(quote,),
        excluded=(ExcludedRange(*refs, "references"),),
        warnings=(CheckWarning("long-quotation", "a quotation of about 120 words <i>", *quote),),
    )  # fmt: skip
    settings = {
        "algorithm": "simdup-check/1", "simdup": "9.9", "min_match_words": 8,
        "min_match_cjk_chars": 13, "gap": 4, "exclude_references": True,
        "readers": {"text": "1", "pdf": "1 (pypdfium2 5.0)"},
    }  # fmt: skip
    skipped = (SkippedFile("bad/<img src=x onerror=alert(1)>.pdf", "read", "not a PDF"),)
    return CheckResult((doc,), 2, skipped, settings)


def test_overlapping_fragments_nest_well() -> None:
    """Fragments of two sources overlapping each other, a quotation and an excluded range
    become flat, balanced marks, one per piece between boundaries, with the classes of all
    that covers the piece; the text reads as it was, in order."""
    text = "0123456789abcdefghijklmnopqrstuvwxyz<&>"
    one = fragment(text, text[2:10], "one.txt", "copied")
    two = fragment(text, text[5:15], "two.txt", "own")
    doc = DocumentCheck(
        path="d.txt", text=text, units=36, copied_units=13, copy_ratio=0.36,
        ratio_without_quotes=0.3, ratio_without_own=0.22, largest_source_ratio=0.28,
        largest_source="two.txt",
        sources=(SourceShare("two.txt", True, 10, 0.28, 1),
                 SourceShare("one.txt", False, 8, 0.22, 1)),
        sections=(SectionRatio("", 0, len(text), 36, 13, 0.36),),
        fragments=(one, two), quoted=((8, 20),), excluded=(ExcludedRange(18, 39, "template"),),
        warnings=(),
    )  # fmt: skip
    page = page_of(CheckResult((doc,), 2, ()))
    dom = parse(page)
    assert dom.balanced
    assert dom.doctexts == [text]
    pieces = [(text[a:b], classes) for a, b, classes in [
        (2, 5, {"copied"}), (5, 8, {"copied", "own"}), (8, 10, {"copied", "own", "quoted"}),
        (10, 15, {"own", "quoted"}), (15, 18, {"quoted"}), (18, 20, {"quoted", "excluded"}),
        (20, 39, {"excluded"}),
    ]]  # fmt: skip
    assert [(body, classes) for classes, body, _, _ in dom.marks] == pieces
    # Pieces covered by both sources name both; the link goes to the copied fragment.
    _, _, title, link = dom.marks[1]
    assert "one.txt" in title and "two.txt" in title and link == "#d0-f0"
    assert dom.marks[3][3] == "#d0-f1"
    assert "template" in dom.marks[-1][2] and dom.marks[-1][3] is None
    assert all(link[1:] in dom.ids for link in dom.links if link.startswith("#"))


def test_page_is_offline_and_escaped() -> None:
    """The page loads nothing and runs nothing; hostile paths and texts stay text; the
    settings and the skipped files are shown."""
    result = sample_result()
    page = page_of(result)
    dom = parse(page)
    assert page.startswith("<!DOCTYPE html>") and dom.balanced
    assert dom.tag_count("script") == dom.tag_count("img") == dom.tag_count("b") == 0
    assert dom.tag_count("i") == 1  # "(before the first heading)"; the warning's <i> is text
    assert not [a for _, a in dom.tags if any(k.startswith("on") for k in a)]
    assert "http" not in page and "src=" not in page.replace("src=x", "")
    assert HOSTILE_PATH in dom.text and PAPER in dom.text and "<b>not bold</b>" in dom.text
    assert "a quotation of about 120 words <i>" in dom.text
    assert "simdup-check/1" in dom.text and "pypdfium2 5.0" in dom.text
    assert "bad/<img src=x onerror=alert(1)>.pdf" in dom.text and "not a PDF" in dom.text
    assert dom.doctexts == [TEXT]


def test_no_documents() -> None:
    dom = parse(page_of(CheckResult((), 0, ())))
    assert dom.balanced and "No document was checked." in dom.text


def test_check_page_in_headless_chromium(
    chromium: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Chromium builds the page's DOM: the marks with their classes and text, the ratios as
    percentages, the section bars, the sources table, links to existing anchors, no element
    from a hostile path, and the whole document text in order."""
    result = sample_result()
    out = tmp_path_factory.mktemp("check-html") / "check.html"
    out.write_text(page_of(result), "utf-8")
    profile = tmp_path_factory.mktemp("chromium-profile")
    dumped = run_chromium(chromium, profile, "--dump-dom", out.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    assert "Uncaught" not in dumped.stderr, dumped.stderr[-2000:]
    dom = parse(dumped.stdout)
    assert dom.balanced

    # The text, whole and in order, and its marks.
    assert dom.doctexts == [TEXT]
    marks = {body: (classes, title, link) for classes, body, title, link in dom.marks}
    assert marks[COPIED][0] == {"copied"}
    assert marks[QUOTE][0] == {"quoted"}
    assert marks[OWN_TEXT][0] == {"own"}
    assert marks[REFERENCES][0] == {"excluded"} and "reference list" in marks[REFERENCES][1]
    assert f"source side of {COPIED}" in marks[COPIED][1] and "p. 4" in marks[COPIED][1]
    assert PAPER in marks[COPIED][1] and OWN in marks[OWN_TEXT][1]
    link = marks[COPIED][2]
    assert link is not None and link.startswith("#") and link[1:] in dom.ids
    assert all(href[1:] in dom.ids for href in dom.links if href.startswith("#"))
    footnote = dom.text[dom.text.index("Fragments") :]
    assert f"source side of {COPIED}" in footnote

    # Ratios, sections, sources.
    for pct in ("45.8%", "35.0%", "30.1%", "28.9%", "56.2%", "25.0%"):
        assert pct in dom.text, pct
    assert "copy ratio" in dom.text and "largest single source" in dom.text
    assert len(dom.classed("div", "track")) == 2
    widths = [a.get("style") for t, a in dom.tags if t == "span" and a.get("style")]
    assert widths == ["width:56.2%", "width:25.0%"]
    assert "(before the first heading)" in dom.text and "结论" in dom.text
    assert len(dom.classed("table", "sources")) == 1
    rows = [a["id"] for t, a in dom.tags if t == "tr" and str(a.get("id")).startswith("d0-src")]
    assert rows == ["d0-src-1", "d0-src-2"]
    assert len(dom.classed("span", "own")) == 1 and "own work" in dom.text
    assert "#d0-src-1" in dom.links  # the largest source and the fragments link to it

    # Warnings, and nothing from the hostile path became an element.
    assert "long quotation" in dom.text and "a quotation of about 120 words <i>" in dom.text
    assert dom.tag_count("script") == 0 and dom.tag_count("img") == 0 and dom.tag_count("b") == 0
    assert HOSTILE_PATH in dom.text


def test_a_teacher_reads_the_page_in_chinese_and_the_result_comes_first() -> None:
    """--lang zh: every heading and label in Chinese, lang and title name the document; the
    ratios lead, the settings come after the text; headings shown as headings, their "#"
    hidden; places as pages and paragraphs, not character numbers; a fragment's words that
    differ from its source marked (issue 33)."""
    result = sample_result()
    zh = page_of(result, "zh")
    dom = parse(zh)
    assert dom.balanced and ("html", {"lang": "zh-CN"}) in dom.tags
    assert "<title>查重报告：script&gt;论文.txt</title>" in zh
    for words in ("总文字复制比", "去除引用文献复制比", "去除本人文献复制比", "单篇最大文字复制比",
                  "各章节复制比", "相似来源", "全文标注", "复制片段", "检测方法", "无法读取的文件",
                  "本人文献", "（第一个标题之前）", "长引用"):  # fmt: skip
        assert words in dom.text, words
    for english in ("Sources", "Fragments", "How this was measured", "copy ratio", "chars "):
        assert english not in dom.text, english
    # The result first: ratios before the text, the method after it.
    assert zh.index("总文字复制比") < zh.index("<div class=doctext") < zh.index("id=measured")
    # "# 结论" is a heading: its mark hidden, its title a heading span.
    assert "<span class=hm># </span>" in zh and "<span class='h h1'>结论</span>" in zh
    # Places of the reader's parts ("p. 4" became 第 4 页).
    assert "第 4 页" in dom.text
    en = page_of(result, "en")
    assert "<html lang='en'>" in en and "<title>Duplicate check: script&gt;论文.txt</title>" in en
    assert en.index("copy ratio<") < en.index("<div class=doctext") < en.index("id=measured")


def test_fragments_show_the_words_that_differ_from_their_source() -> None:
    from simdup.report.page import inline_diff

    mine, theirs = inline_diff("近似重复检测的方法很快", "近似重复检测的算法很快")
    assert "<del>方</del>" in mine and "<ins>算</ins>" in theirs
    page = page_of(sample_result())
    assert "<div class=pair>" in page


# -- issue 47: colours as the ratios count, bars, categories, a class -------------------------

QUOTED_IN = "“引号里的话说得很好”"
RUN = f"复制的文字开始{QUOTED_IN}复制的文字结束\n## 第二章 相关工作\n继续复制的文字。"
LAYERED = f"# 题目\n\n{RUN}\n\n# 第三章\n原创的内容。\n\n# 第四章\n本人旧文的句子。\n"


def layered_result() -> CheckResult:
    """A fragment of a file source running through a heading with a quotation inside it, a
    section with nothing copied, one whose copied text is the author's own work alone; the
    own source first, then the file."""
    third, fourth = LAYERED.index("# 第三章"), LAYERED.index("# 第四章")
    own_part = "本人旧文的句子。"
    doc = DocumentCheck(
        path="thesis.md", text=LAYERED, units=50, copied_units=35, copy_ratio=0.7,
        ratio_without_quotes=0.5, ratio_without_own=0.6, largest_source_ratio=0.6,
        largest_source=PAPER,
        sources=(SourceShare(PAPER, False, 30, 0.6, 1, "file"),
                 SourceShare(OWN, True, 5, 0.1, 1, "own"),
                 SourceShare("class/b.md", False, 4, 0.08, 1, "checked")),
        sections=(
            SectionRatio("题目", 0, third, 30, 30, 1.0, own_units=0, quoted_units=8),
            SectionRatio("第三章", third, fourth, 5, 0, 0.0),
            SectionRatio("第四章", fourth, len(LAYERED), 7, 7, 1.0, own_units=7),
        ),
        fragments=(fragment(LAYERED, RUN, PAPER, "copied"),
                   fragment(LAYERED, own_part, OWN, "own")),
        quoted=(span(LAYERED, QUOTED_IN),), excluded=(), warnings=(),
    )  # fmt: skip
    return CheckResult((doc,), 3, ())


def test_colours_follow_the_counting() -> None:
    """A quotation inside a copied fragment is quoted (its class, and the rule for quoted
    comes after the rule for copied in the style sheet, so it is yellow); a heading inside a
    fragment is not marked (headings are not counted); the text is whole and in order."""
    page = page_of(layered_result())
    dom = parse(page)
    assert dom.balanced and dom.doctexts == [LAYERED]
    marks = {body: classes for classes, body, _, _ in dom.marks}
    assert marks[QUOTED_IN] == {"copied", "quoted"}
    assert page.index("mark.copied{") < page.index("mark.quoted{")
    assert page.index("mark.own{") < page.index("mark.copied{")
    assert page.index("mark.quoted{") < page.index("mark.excluded{")
    assert not [body for _, body, _, _ in dom.marks if "第二章" in body or "#" in body]
    assert "<span class='h h2'>第二章 相关工作</span>" in page
    assert marks["\n继续复制的文字。"] == {"copied"} and marks["本人旧文的句子。"] == {"own"}


def test_bars_show_copied_own_and_quoted_parts_and_nothing_for_none() -> None:
    """A section's bar: copied, quoted and own parts as long as their shares, each in its
    colour; a 0% section has no bar at all (not a red stub). The sources table names every
    source's category."""
    page = page_of(layered_result())
    bars = re.findall(r"<div class=track>(.*?)</div>", page)
    assert bars == [
        "<span style='width:73.3%'></span><span class=quoted style='width:26.7%'></span>",
        "",
        "<span class=own style='width:100.0%'></span>",
    ]
    dom = parse(page)
    assert "own earlier work" in dom.text  # the bars' legend
    rows = re.findall(r"<tr id=d0-src-\d+>(.*?)</tr>", page)
    kinds = [re.findall(r"<span class='badge ([^']*)'>([^<]*)</span>", row) for row in rows]
    assert kinds == [[("cat-file", "file")], [("cat-own own", "own work")],
                     [("cat-checked", "checked in this run")]]  # fmt: skip
    zh = parse(page_of(layered_result(), "zh")).text
    for category in ("比对文件", "本人文献", "同批检测文档"):
        assert category in zh


def test_a_class_opens_with_a_table_highest_ratio_first() -> None:
    """Several documents: a table, one line per document, the highest copy ratio first (ties
    by path), its largest source with share and category; the reports in that order."""
    one = sample_result().documents[0]
    low = replace(one, path="a.txt", copy_ratio=0.1)
    high = replace(one, path="b.txt", copy_ratio=0.9)
    mid = replace(one, path="c.txt", copy_ratio=0.5)
    tie = replace(one, path="d.txt", copy_ratio=0.5)
    page = page_of(CheckResult((low, high, tie, mid), 2, ()))
    table = page[page.index("<table class=ranking>") : page.index("</table>")]
    assert re.findall(r"<a href='#doc-(\d)'><code>([^<]*)</code>", table) == [
        ("0", "b.txt"), ("1", "c.txt"), ("2", "d.txt"), ("3", "a.txt")]  # fmt: skip
    assert table.count(PAPER.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")) == 4
    assert "28.9%" in table and "<td>file</td>" in table
    assert re.findall(r"<section id=doc-(\d)>\n<h2><code>([^<]*)</code>", page) == [
        ("0", "b.txt"), ("1", "c.txt"), ("2", "d.txt"), ("3", "a.txt")]  # fmt: skip
    single = page_of(sample_result())
    assert "class=ranking" not in single


PROBE = """<script>
addEventListener('load', () => {
  const seen = {marks: {}, bars: []};
  for (const m of document.querySelectorAll('.doctext mark'))
    seen.marks[m.textContent] = getComputedStyle(m).backgroundColor;
  for (const track of document.querySelectorAll('.track'))
    seen.bars.push([...track.children].map(s =>
      [Math.round(s.getBoundingClientRect().width), getComputedStyle(s).backgroundColor]));
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(seen);
  document.body.append(out);
});
</script>"""


def test_colours_and_bars_as_chromium_draws_them(
    chromium: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Chromium lays the page out (with a probe script added by the test: the page itself has
    none): a quotation inside a copied fragment is yellow, copied text red, own work blue; a
    heading inside the fragment has no background; a 0% bar is 0 pixels wide; own work in a
    bar is blue, not red."""
    page = page_of(layered_result()).replace("</body>", PROBE + "</body>")
    out = tmp_path_factory.mktemp("check-colours") / "check.html"
    out.write_text(page, "utf-8")
    profile = tmp_path_factory.mktemp("chromium-profile")
    dumped = run_chromium(chromium, profile, "--dump-dom", out.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    probe = re.search(r"<pre id=\"probe\">(.*?)</pre>", dumped.stdout)
    assert probe is not None, dumped.stdout[-2000:]
    seen = json.loads(html_lib.unescape(probe.group(1)))
    yellow, red, blue = "rgb(255, 240, 160)", "rgb(255, 196, 192)", "rgb(207, 226, 255)"
    assert seen["marks"][QUOTED_IN] == yellow
    assert seen["marks"]["\n继续复制的文字。"] == red
    assert seen["marks"]["本人旧文的句子。"] == blue
    assert not [body for body in seen["marks"] if "第二章" in body]
    first, zero, own = seen["bars"]
    assert [colour for _, colour in first] == ["rgb(217, 83, 79)", "rgb(224, 176, 0)"]
    assert zero == []
    assert own[0][1] == "rgb(74, 134, 232)" and own[0][0] > 100


def test_emphasis_marks_are_hidden_like_heading_marks() -> None:
    """``**`` around words is hidden in the document's text, as a heading's ``#`` is: the
    page shows what the rendered document shows; the text stays whole underneath."""
    text = "# 第一章 **重点**\n正文里有**加粗**的字和 *em* word, snake_case 与 2*3*4。\n"
    doc = replace(layered_result().documents[0], text=text, fragments=(), quoted=(),
                  sections=(SectionRatio("第一章 重点", 0, len(text), 20, 0, 0.0),))  # fmt: skip
    page = page_of(CheckResult((doc,), 0, ()))
    assert parse(page).doctexts == [text]
    assert page.count("<span class=hm>**</span>") == 4
    assert page.count("<span class=hm>*</span>") == 2
    assert "snake_case 与 2*3*4" in page
