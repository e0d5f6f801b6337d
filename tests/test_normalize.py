"""simdup.normalize: NFKC and case folding of words, markup clean-up of texts."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from simdup.features import extract_features
from simdup.normalize import _URL, normalize_term, strip_markup
from simdup.segmentation import get_segmenter

ESSAY = (
    "雨是从傍晚开始下的。起初只是零星的几点，落在窗台上，发出轻微的声响。"
    "后来雨渐渐密了，整条街都笼罩在一片灰蒙蒙的水汽里。我坐在书桌前，听着雨声，"
    "想起小时候在外婆家度过的那些夏天。那时候的雨总是来得很急，去得也很快。"
)


def terms(text: str, *, markup: bool = True) -> dict[str, float]:
    """The document's terms and their counts (no stopwords dropped)."""
    fv = extract_features(text, get_segmenter(), frozenset(), markup=markup, weighting="tf")
    return fv.as_dict()


def test_full_width_forms_become_half_width() -> None:
    """NFKC maps full-width letters and digits to their ASCII forms."""
    assert normalize_term("ＡＢＣ１２３") == "abc123"
    assert terms("Ｈｅｌｌｏ，Ｗｏｒｌｄ！") == terms("hello, world!") == {"hello": 1, "world": 1}
    assert terms("a\u3000b") == {"a": 1, "b": 1}


def test_compatibility_characters_are_normalised() -> None:
    """Ligatures and circled digits become their plain forms; a word NFKC splits is split."""
    assert normalize_term("\ufb01le") == "file"
    assert normalize_term("\u2460") == "1"
    assert terms("\ufb01le \u2460") == {"file": 1, "1": 1}
    assert terms("x \u00bd") == {"x": 1, "1": 1, "2": 1}  # "½" -> "1⁄2"


def test_compatibility_ideographs_are_segmented_as_ideographs() -> None:
    """A CJK compatibility ideograph (outside jieba's range) becomes the unified one."""
    assert normalize_term("\uf90a") == "\u91d1"
    assert terms("\uf90a") == terms("\u91d1")


def test_words_are_casefolded() -> None:
    """Case folding is Unicode-aware: 'Straße' and 'STRASSE' are one term."""
    assert normalize_term("Straße") == normalize_term("STRASSE") == "strasse"
    assert normalize_term("ΣΊΣΥΦΟΣ") == normalize_term("σίσυφος".upper())
    assert terms("Word word WORD ＷＯＲＤ") == {"word": 4}


def test_bare_urls_are_removed() -> None:
    """http(s), ftp and www URLs vanish; the words around them stay."""
    out = strip_markup(
        "see https://github.com/user/repo/blob/main/x.py?a=1 and www.example.org now"
    )
    assert out.split() == ["see", "and", "now"]
    assert "ftp" not in strip_markup("get ftp://files.example.net/pub/a.tar.gz")
    assert strip_markup("HTTPS://A.B/c Www.Example.com x").split() == ["x"]


_OLD_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"'()\[\]]+|www\.[^\s<>\"'()\[\]]+", re.I)


@given(st.text(alphabet=st.sampled_from(list("hHtTpPsSfFwW:/.ſKk x\n<(\"")), max_size=60))
def test_url_pattern_matches_like_the_case_insensitive_alternation(text: str) -> None:
    """The fast URL pattern finds exactly what the plain case-insensitive one finds."""
    assert _URL.sub(" ", text) == _OLD_URL.sub(" ", text)


def test_markdown_link_targets_are_removed_but_link_text_kept() -> None:
    """[text](target "title") keeps 'text', drops the target (and image targets)."""
    out = strip_markup('Read [the manual](docs/manual.html "Manual") and ![logo](img/logo.png).')
    assert "the manual" in out and "logo" in out
    assert "docs" not in out and "html" not in out and "img" not in out and "png" not in out


def test_markdown_reference_definitions_are_removed() -> None:
    """Lines like '[1]: http://example.com' disappear."""
    out = strip_markup('Body text [see][1].\n\n[1]: http://example.com/ref "Title"\n')
    assert "example" not in out and "Title" not in out
    assert "Body text" in out


def test_html_tags_and_comments_are_removed() -> None:
    """Tags (with attributes) and comments vanish; the text between them stays."""
    out = strip_markup('<p class="lead">Hello <b>bold</b> world</p><!-- hidden note --><br/>')
    assert out.split() == ["Hello", "bold", "world"]


def test_front_matter_is_removed() -> None:
    """YAML front matter at the very start is removed; the body stays."""
    text = "---\ntitle: Secret Title\ntags: [alpha, beta]\n---\nBody paragraph here.\n"
    out = strip_markup(text)
    assert "Secret" not in out and "alpha" not in out
    assert "Body paragraph here" in out
    assert "Secret" not in strip_markup(text.replace("\n", "\r\n"))


def test_front_matter_only_at_the_start() -> None:
    """A '---' block later in the text is a rule, not front matter: its text stays."""
    assert "kept" in strip_markup("Intro.\n---\ntitle: kept\n---\n")


def test_code_in_fences_is_kept() -> None:
    """Code inside Markdown fences is content and is kept."""
    out = strip_markup("Example:\n```python\nprint('hello')\nresult = compute(x)\n```\n")
    assert "print" in out and "compute" in out and "result" in out


def test_markup_false_keeps_everything() -> None:
    """With markup=False, URLs and tags are words like any other."""
    assert terms("<b>Hi</b> https://Example.com", markup=False) == {
        "b": 2, "hi": 1, "https": 1, "example": 1, "com": 1,
    }  # fmt: skip


def test_strip_markup_does_not_casefold() -> None:
    """strip_markup only removes markup."""
    assert strip_markup("<i>Hello</i> World").split() == ["Hello", "World"]


def test_whitespace_between_cjk_characters_does_not_split_words() -> None:
    """A line break or spaces between two ideographs is layout: the word stays whole."""
    assert terms("中文\n文本") == terms("中文文本")
    assert terms("中文 \n\u3000 文本") == terms("中文文本")
    # Between Latin words, or an ideograph and a Latin word, a space separates.
    assert terms("hello\nworld") == {"hello": 1, "world": 1}
    assert terms("中文 text") == {"中文": 1, "text": 1}


@given(width=st.integers(1, 40), indent=st.sampled_from(["", "  ", "\u3000\u3000", "\t"]))
def test_rewrapped_chinese_gives_the_same_terms(width: int, indent: str) -> None:
    """Hard-wrapping Chinese text at any width (with indentation) changes no term."""
    wrapped = "\n".join(indent + ESSAY[i : i + width] for i in range(0, len(ESSAY), width))
    assert terms(wrapped) == terms(ESSAY)
    segmenter = get_segmenter()
    assert segmenter.tokens(wrapped) == segmenter.tokens(ESSAY)


def test_blank_lines_between_chinese_paragraphs_do_not_change_terms() -> None:
    """Extra blank lines and indentation between paragraphs change nothing."""
    one = "第一段文字。\n第二段文字。"
    two = "\u3000\u3000第一段文字。\n\n\n\u3000\u3000第二段文字。\n"
    assert terms(one) == terms(two)
