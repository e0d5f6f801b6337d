"""A fragment's text as the reports show it: the words a reader of the rendered document sees,
never cut inside a word or a citation marker (issue 47)."""

from __future__ import annotations

from simdup.checking.excerpts import FRAGMENT_TEXT_CHARS, emphasis_marks, excerpt, plain
from tests.conftest import pseudo_words


def test_markdown_marks_are_left_out() -> None:
    """Heading, block-quote and bullet marks at a line's start, table pipes and emphasis marks
    go; a ``*`` or ``_`` inside a word or between digits stays."""
    text = "上文。\n## 第二章 相关工作\n> 引文 **强调** 与 *斜体*\n- 一项 __粗__ 和 _em_\n| a | b |"
    shown = "上文。 第二章 相关工作 引文 强调 与 斜体 一项 粗 和 em a b"
    assert excerpt(text, 0, len(text)) == shown
    assert plain("snake_case and 2*3*4 and a_b_c") == "snake_case and 2*3*4 and a_b_c"
    # Only at a line's start: a "#" inside a line is text.
    assert excerpt("see issue #12 here", 0, 18) == "see issue #12 here"
    # The first line's marks go only when the excerpt starts at the line's start.
    text = "前文\n# 标题\n正文"
    assert excerpt(text, text.index("#"), len(text)) == "标题 正文"
    assert excerpt(text, text.index("标题"), len(text)) == "标题 正文"


def test_emphasis_marks_are_found_where_plain_drops_them() -> None:
    text = "a **bold** and *em* word"
    marks = emphasis_marks(text)
    assert [text[a:b] for a, b in marks] == ["**", "**", "*", "*"]
    kept = "".join(c for n, c in enumerate(text) if not any(a <= n < b for a, b in marks))
    assert kept == plain(text)


def test_a_citation_marker_is_never_cut() -> None:
    """A fragment ending on the number of a marker (its source goes on otherwise after it)
    shows the whole marker; one starting inside a marker shows it from its bracket."""
    text = "冲动是魔鬼的说法由来已久[2]。后文[3, 5]继续"
    end = text.index("2") + 1
    assert excerpt(text, 0, end) == "冲动是魔鬼的说法由来已久[2]"
    assert excerpt(text, text.index("5"), len(text)) == "[3, 5]继续"


def test_english_is_never_cut_inside_a_word() -> None:
    """Ends inside a word move out to the word's edges; a long excerpt's middle cut falls
    between words (a translated fragment's source side: ``the … t is lost`` no more)."""
    text = "The translation of this sentence is lost"
    assert excerpt(text, 6, text.index("lost") + 2) == "translation of this sentence is lost"
    long = " ".join(pseudo_words(5, 200).split())
    shown = excerpt(long, 0, len(long))
    head, _, tail = shown.partition(" … ")
    assert len(shown) <= FRAGMENT_TEXT_CHARS + 3
    words = set(long.split())
    assert head.split()[-1] in words and tail.split()[0] in words
    assert long.startswith(head) and long.endswith(tail)


def test_cjk_is_cut_between_any_characters() -> None:
    text = "深度学习" * 200
    shown = excerpt(text, 0, len(text))
    head, _, tail = shown.partition(" … ")
    assert len(head) == len(tail) == FRAGMENT_TEXT_CHARS // 2
