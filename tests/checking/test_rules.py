"""simdup.checking.rules: quotations, reference lists and sections, the parts of a document the
check's ratios are counted by."""

from __future__ import annotations

from simdup.checking.rules import headings, quoted_ranges, reference_ranges, sections


def test_quotations_and_what_is_not_one():
    text = (
        '他说“这是引用的话”。《红楼梦》是书名。She said "quoted here" and 「日本語」『二重』.'
        "\n> a block quote\n> goes on\nplain"
    )
    quoted = [text[a:b] for a, b in quoted_ranges(text)]
    assert quoted == [
        "“这是引用的话”",
        '"quoted here"',
        "「日本語」『二重』",  # touching: one range
        "> a block quote\n> goes on",
    ]


def test_reference_lists_end_at_the_back_matter():
    text = (
        "# 第一章 引言\n正文。\n\n参考文献\n[1] 王伟. 论文.\n"
        "[2] Smith. Paper.\n\n致谢\n感谢老师。\n"
    )
    (start, end) = reference_ranges(text)[0]
    assert text[start:end].startswith("参考文献") and "致谢" not in text[start:end]
    assert "[2] Smith" in text[start:end]


def test_sections_from_markdown_headings_and_from_numbered_lines():
    md = "Cover\n\n# 第一章 引言\nA.\n## 1.1 背景\nB.\n# 第二章 方法\nC.\n"
    assert [s.title for s in sections(md)] == ["", "第一章 引言", "第二章 方法"]
    detected = (
        "摘要\n本文研究。\n第一章 绪论\n正文。\n1.1 研究背景\n内容。\n"
        "第二章 方法\n方法。\n参考文献\n[1] x.\n"
    )
    assert [(h.level, h.title) for h in headings(detected)] == [
        (1, "摘要"), (1, "第一章 绪论"), (2, "1.1 研究背景"), (1, "第二章 方法"), (1, "参考文献"),
    ]  # fmt: skip
    # A sentence is not a heading, however it starts.
    assert headings("1. We tested the method on three sets, and it worked.\n") == []


def test_a_table_row_is_no_heading():
    """A table's row numbered in its first column (``1 | SimHash | 0.97``, as every reader
    writes a row) is no heading: it cut a chapter in two at each row."""
    text = "第一章 引言\n正文。\n\n序号 | 方法 | 召回率\n\n1 | SimHash | 0.97\n\n2 | MinHash\n"
    assert [s.title for s in sections(text)] == ["第一章 引言"]


def test_a_title_above_the_chapters_is_no_section():
    """`# title` then `## 第一章` (Markdown, or Word's Title style above Heading 2): the
    chapters are the sections, the title and front matter one untitled section, as a PDF of
    the same thesis gives (issue 33); back matter of the title's level stays a section."""
    md = (
        "# 基于深度学习的文本查重研究\n\n作者：张三\n\n## 摘要\n本文。\n\n"
        "## 第一章 引言\nA.\n### 1.1 背景\nB.\n## 第二章 方法\nC.\n# 参考文献\n[1] x.\n"
    )
    assert [s.title for s in sections(md)] == ["", "摘要", "第一章 引言", "第二章 方法", "参考文献"]
    # Two top-level chapters: the first is no title.
    chapters = "# 第一章 引言\nA.\n## 1.1 背景\nB.\n# 第二章 方法\nC.\n"
    assert [s.title for s in sections(chapters)] == ["第一章 引言", "第二章 方法"]
    # A lone heading over nothing deeper is still the one section.
    assert [s.title for s in sections("# 题目\n正文。\n")] == ["题目"]
