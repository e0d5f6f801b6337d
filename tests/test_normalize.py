"""simdup.normalize: NFKC, case folding, markup clean-up, CJK re-wrapping."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.normalize import collapse_whitespace, normalize_text, strip_markup
from simdup.segmentation import get_segmenter

ESSAY = (
    "雨是从傍晚开始下的。起初只是零星的几点，落在窗台上，发出轻微的声响。"
    "后来雨渐渐密了，整条街都笼罩在一片灰蒙蒙的水汽里。我坐在书桌前，听着雨声，"
    "想起小时候在外婆家度过的那些夏天。那时候的雨总是来得很急，去得也很快。"
)


def test_full_width_forms_become_half_width() -> None:
    """NFKC maps full-width letters, digits, punctuation and spaces to their ASCII forms."""
    assert normalize_text("ＡＢＣ１２３") == "abc123"
    assert normalize_text("Ｈｅｌｌｏ，Ｗｏｒｌｄ！") == "hello,world!"
    assert normalize_text("a\u3000b") == "a b"


def test_compatibility_characters_are_normalised() -> None:
    """Ligatures and circled digits become their plain forms."""
    assert normalize_text("\ufb01le") == "file"
    assert normalize_text("\u2460") == "1"


def test_text_is_casefolded() -> None:
    """Case folding is Unicode-aware: 'Straße' and 'STRASSE' agree."""
    assert normalize_text("Straße") == normalize_text("STRASSE") == "strasse"
    assert normalize_text("ΣΊΣΥΦΟΣ") == normalize_text("σίσυφος".upper())


def test_bare_urls_are_removed() -> None:
    """http(s), ftp and www URLs vanish; the words around them stay."""
    out = normalize_text(
        "see https://github.com/user/repo/blob/main/x.py?a=1 and www.example.org now"
    )
    assert "github" not in out and "example" not in out and "blob" not in out
    assert out.split() == ["see", "and", "now"]
    assert "ftp" not in normalize_text("get ftp://files.example.net/pub/a.tar.gz")


def test_markdown_link_targets_are_removed_but_link_text_kept() -> None:
    """[text](target "title") keeps 'text', drops the target (and image targets)."""
    out = normalize_text('Read [the manual](docs/manual.html "Manual") and ![logo](img/logo.png).')
    assert "the manual" in out and "logo" in out
    assert "docs" not in out and "html" not in out and "img" not in out and "png" not in out


def test_markdown_reference_definitions_are_removed() -> None:
    """Lines like '[1]: http://example.com' disappear."""
    out = normalize_text('Body text [see][1].\n\n[1]: http://example.com/ref "Title"\n')
    assert "example" not in out and "title" not in out
    assert "body text" in out


def test_html_tags_and_comments_are_removed() -> None:
    """Tags (with attributes) and comments vanish; the text between them stays."""
    out = normalize_text('<p class="lead">Hello <b>bold</b> world</p><!-- hidden note --><br/>')
    assert out.split() == ["hello", "bold", "world"]


def test_front_matter_is_removed() -> None:
    """YAML front matter at the very start is removed; the body stays."""
    text = "---\ntitle: Secret Title\ntags: [alpha, beta]\n---\nBody paragraph here.\n"
    out = normalize_text(text)
    assert "secret" not in out and "alpha" not in out
    assert "body paragraph here" in out
    crlf = text.replace("\n", "\r\n")
    assert "secret" not in normalize_text(crlf)


def test_front_matter_only_at_the_start() -> None:
    """A '---' block later in the text is a rule, not front matter: its text stays."""
    out = normalize_text("Intro.\n---\ntitle: kept\n---\n")
    assert "kept" in out


def test_code_in_fences_is_kept() -> None:
    """Code inside Markdown fences is content and is kept."""
    out = normalize_text("Example:\n```python\nprint('hello')\nresult = compute(x)\n```\n")
    assert "print" in out and "compute" in out and "result" in out


def test_markup_false_keeps_everything() -> None:
    """With markup=False, URLs and tags are left (only NFKC and casefold apply)."""
    out = normalize_text("<b>Hi</b> https://Example.com", markup=False)
    assert out == "<b>hi</b> https://example.com"


def test_strip_markup_does_not_casefold() -> None:
    """strip_markup only removes markup."""
    assert strip_markup("<i>Hello</i> World").split() == ["Hello", "World"]


def test_whitespace_between_cjk_characters_is_removed() -> None:
    """A line break or spaces between two ideographs is layout and is removed."""
    assert normalize_text("中文\n文本") == "中文文本"
    assert normalize_text("中文 \n\u3000 文本") == "中文文本"
    # Between Latin words the space stays.
    assert normalize_text("hello\nworld") == "hello\nworld"
    # Between an ideograph and a Latin word it stays too.
    assert normalize_text("中文 text") == "中文 text"


@given(width=st.integers(1, 40), indent=st.sampled_from(["", "  ", "\u3000\u3000", "\t"]))
def test_rewrapped_chinese_gives_the_same_tokens(width: int, indent: str) -> None:
    """Hard-wrapping Chinese text at any width (with indentation) changes no token."""
    wrapped = "\n".join(indent + ESSAY[i : i + width] for i in range(0, len(ESSAY), width))
    segmenter = get_segmenter()
    assert segmenter.tokens(normalize_text(wrapped)) == segmenter.tokens(normalize_text(ESSAY))


def test_blank_lines_between_chinese_paragraphs_do_not_change_tokens() -> None:
    """Extra blank lines and indentation between paragraphs change nothing."""
    one = "第一段文字。\n第二段文字。"
    two = "\u3000\u3000第一段文字。\n\n\n\u3000\u3000第二段文字。\n"
    segmenter = get_segmenter()
    assert segmenter.tokens(normalize_text(one)) == segmenter.tokens(normalize_text(two))


@given(st.text(max_size=200))
def test_normalize_never_fails_and_collapse_whitespace_is_canonical(text: str) -> None:
    """Any text normalises; collapse_whitespace leaves single spaces and no ends."""
    out = collapse_whitespace(normalize_text(text))
    assert out == out.strip()
    assert not re.search(r"\s\s", out)
    assert collapse_whitespace(out) == out


@pytest.mark.parametrize(
    ("text", "expected"),
    [("  a \t\n b  ", "a b"), ("", ""), ("\n\n", ""), ("一\u3000二", "一 二")],
)
def test_collapse_whitespace(text: str, expected: str) -> None:
    """Every run of whitespace becomes one space; ends are stripped."""
    assert collapse_whitespace(text) == expected
