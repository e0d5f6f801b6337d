"""simdup.text.normalize: NFKC and case folding of words, markup clean-up of texts."""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

import simdup
from simdup.text.features import extract_features
from simdup.text.normalize import (
    _FRONT_MATTER,
    _HTML_COMMENT,
    _HTML_TAG,
    _MD_LINK_TARGET,
    _MD_REFERENCE,
    _URL,
    DEFAULT_IGNORABLE,
    INERT_LETTERS,
    block_form,
    comparison_form,
    normalize_term,
    strip_ignorables,
    strip_ignorables_python,
    strip_markup,
    unmarked_form,
    visible_text,
)
from simdup.text.segmentation import get_segmenter
from simdup.text.tokens import text_tokens, tokenize

ESSAY = (
    "雨是从傍晚开始下的。起初只是零星的几点，落在窗台上，发出轻微的声响。"
    "后来雨渐渐密了，整条街都笼罩在一片灰蒙蒙的水汽里。我坐在书桌前，听着雨声，"
    "想起小时候在外婆家度过的那些夏天。那时候的雨总是来得很急，去得也很快。"
)


def terms(text: str, *, markup: str = "markdown") -> dict[str, float]:
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


def _strip_markup_stepwise(text: str) -> tuple[str, list[str]]:
    """The definition: each pattern applied in turn where the text it has become so far
    holds what the pattern starts with; and the pieces removed, in that order."""
    removed: list[str] = []

    def step(pattern: re.Pattern[str], replacement: str, text: str, count: int = 0) -> str:
        removed.extend(m.group() for m in list(pattern.finditer(text))[: count or None])
        return pattern.sub(replacement, text, count=count)

    if text.startswith("---"):
        text = step(_FRONT_MATTER, "", text, count=1)
    if "<" in text:
        text = step(_HTML_TAG, " ", step(_HTML_COMMENT, " ", text))
    if "](" in text:
        text = step(_MD_LINK_TARGET, "] ", text)
    if "]:" in text:
        text = step(_MD_REFERENCE, " ", text)
    if "://" in text or "www." in text or "WWW." in text:
        text = step(_URL, " ", text)
    return text, removed


@given(
    st.lists(
        st.sampled_from(
            ["---", "\n", " ", "<!--", "-->", "<b>", "</a>", "<", "](", ")", "(", "]:", "[1]",
             '"t"', "://", "http", "www.", "WWW.", "x", "中文", ":", "/", "]", "-"]
        ),
        max_size=24,
    ).map("".join)
)  # fmt: skip
def test_markup_is_stripped_as_defined(text: str) -> None:
    """Marks found in the text as given decide which patterns run (native or not): the same
    text as applying each pattern where the text so far holds its mark, and the same pieces
    removed."""
    removed: list[str] = []
    assert (strip_markup(text, removed), removed) == _strip_markup_stepwise(text)
    assert strip_markup(text) == _strip_markup_stepwise(text)[0]


def test_the_markup_removed_is_handed_back() -> None:
    """Each piece taken out, in the order the patterns run: tags, link targets, URLs."""
    removed: list[str] = []
    out = strip_markup('<b>See</b> [the docs](https://a.io/x "X") or www.b.org/y.', removed)
    assert out.split() == ["See", "[the", "docs]", "or"]
    assert removed == ["<b>", "</b>", '](https://a.io/x "X")', "www.b.org/y."]


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
    """With markup "none", URLs and tags are words like any other."""
    assert terms("<b>Hi</b> https://Example.com", markup="none") == {
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


# ---------------------------------------------------------------- default-ignorable characters

ENGLISH = (
    "Four score and seven years ago our fathers brought forth on this continent a new nation, "
    "conceived in liberty, and dedicated to the proposition that all men are created equal."
)
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def after_every_character(text: str, marks: str) -> str:
    """``text`` with one of ``marks`` (in turn) after each of its characters."""
    return "".join(ch + marks[i % len(marks)] for i, ch in enumerate(text))


def ignorable_code_points() -> set[int]:
    """Every code point of ``DEFAULT_IGNORABLE``."""
    return {cp for lo, hi in DEFAULT_IGNORABLE for cp in range(lo, hi + 1)}


def test_zero_width_characters_do_not_split_words() -> None:
    """A copy with U+200B (or ZWNJ, ZWJ, word joiner, BOM mixed) after every character has the
    terms of the original, in English and in Chinese."""
    for text in (ENGLISH, ESSAY):
        want = terms(text)
        assert terms(after_every_character(text, "\u200b")) == want
        assert terms(after_every_character(text, ZERO_WIDTH)) == want
    assert terms("zero\u200bwidth") == {"zerowidth": 1}


def test_ignorables_change_no_content_hash_or_fingerprint() -> None:
    """Features, content hash, length, token count and fingerprint are those of the text
    without the ignorables (it is an exact duplicate of the original)."""
    for text in (ENGLISH, ESSAY, ENGLISH + "\n" + ESSAY):
        copy = after_every_character(text, ZERO_WIDTH + "\u00ad\u034f\ufe0f\U000e0001")
        a = extract_features(text, get_segmenter(), frozenset())
        b = extract_features(copy, get_segmenter(), frozenset())
        assert b.as_dict() == a.as_dict()
        assert (b.content_hash, b.chars, b.token_count) == (a.content_hash, a.chars, a.token_count)
        assert simdup.fingerprint(copy) == simdup.fingerprint(text)


def test_soft_hyphens_and_variation_selectors_join_what_they_sit_in() -> None:
    """A soft hyphen inside a word and a variation selector after an ideograph split
    nothing."""
    assert terms("co\u00adoper\u00adation") == {"cooperation": 1}
    assert terms("图书\ufe00馆读者") == terms("图书馆读者")
    assert terms("图书\U000e0100馆读者") == terms("图书馆读者")


def test_ignorables_are_removed_before_markup_and_stopwords() -> None:
    """A URL with a zero-width space in it is still a URL; a stopword given with one is still
    that stopword."""
    assert terms("see ht\u200btps://exam\u200bple.com/pa\u200bth now") == {"see": 1, "now": 1}
    fv = extract_features("the cat\u200b and the dog", get_segmenter(), frozenset({"th\u200be"}),
                          weighting="tf")  # fmt: skip
    assert fv.as_dict() == {"cat": 1, "and": 1, "dog": 1}


def test_common_invisible_characters_are_in_the_table() -> None:
    """Zero width space, ZWNJ, ZWJ, word joiner, BOM and soft hyphen are removed."""
    table = ignorable_code_points()
    for ch in "\u200b\u200c\u200d\u2060\ufeff\u00ad":
        assert ord(ch) in table
        assert strip_ignorables(f"a{ch}b") == strip_ignorables_python(f"a{ch}b") == "ab"


# Unicode 15.1, PropList.txt: the hand-listed inputs of Default_Ignorable_Code_Point.
OTHER_DEFAULT_IGNORABLE = [
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065), (0x3164, 0x3164),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0000), (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF), (0xE01F0, 0xE0FFF),
]  # fmt: skip
VARIATION_SELECTOR = [(0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF)]
PREPENDED_CONCATENATION_MARK = [
    (0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD),
]  # fmt: skip
# Format characters that must stay visible: interlinear annotation, Egyptian hieroglyph format.
VISIBLE_FORMAT = [(0xFFF9, 0xFFFB), (0x13430, 0x1343F)]


def expand(ranges: list[tuple[int, int]]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def test_table_is_the_derived_default_ignorable_property() -> None:
    """The table is exactly Unicode's derivation (DerivedCoreProperties.txt): Other_DI + Cf +
    Variation_Selector - White_Space - FFF9..FFFB - Egyptian format controls -
    Prepended_Concatenation_Mark, with categories from this Python's unicodedata."""
    format_chars = {cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) == "Cf"}
    white_space = {cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()}
    derived = (
        (expand(OTHER_DEFAULT_IGNORABLE) | format_chars | expand(VARIATION_SELECTOR))
        - white_space
        - expand(VISIBLE_FORMAT)
        - expand(PREPENDED_CONCATENATION_MARK)
    )
    table = ignorable_code_points()
    assert not table - derived, sorted(map(hex, table - derived))
    assert not derived - table, (unicodedata.unidata_version, sorted(map(hex, derived - table)))


def test_exactly_the_table_is_removed() -> None:
    """Over every code point, strip_ignorables (native or not) and its Python definition
    remove exactly the table's."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    table = ignorable_code_points()
    kept = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if cp not in table)
    assert strip_ignorables(every) == strip_ignorables_python(every) == kept


def test_ordinary_characters_are_kept() -> None:
    """Letters, digits, ideographs, whitespace, punctuation, visible format characters
    (U+FFF9..FFFB, U+0600..0605) and emoji are not removed; an ASCII text is returned as is."""
    text = (
        "Hello, Wörld 123 ½ ＡＢ 中文图书馆 𠮷 한국어 ᄀ ا" + "".join(map(chr, range(0x600, 0x606)))
        + "\ufff9\ufffa\ufffb \t\n\r\x0b\x0c\x1c\x85\u00a0\u1680\u2000\u2028\u3000 ❤ 😀 ‐–—"
    )  # fmt: skip
    assert strip_ignorables(text) == strip_ignorables_python(text) == text
    ascii_text = "plain ASCII text"
    assert strip_ignorables_python(ascii_text) is ascii_text


def test_inert_letters_are_left_alone_by_case_folding_and_nfkc() -> None:
    """The letters of the one-pass comparison form (``INERT_LETTERS``): each is a letter or
    digit that case folding and NFKC leave as it is, in this Python's Unicode."""
    for lo, hi in INERT_LETTERS:
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            assert ch.isalnum(), hex(cp)
            assert ch.casefold() == ch and unicodedata.normalize("NFKC", ch) == ch, hex(cp)


def test_only_u0345_is_a_non_letter_that_folds_to_a_letter() -> None:
    """The one-pass form drops every character that is no letter or digit, except U+0345,
    which case folding turns into one (it sends the text the long way)."""
    folding_into_letters = [
        cp for cp in range(0x110000)
        if not chr(cp).isalnum() and any(c.isalnum() for c in chr(cp).casefold())
    ]  # fmt: skip
    assert folding_into_letters == [0x0345]


_MARKUP_PIECES = st.sampled_from([
    "<b>", "</p>", "<!-- note -->", "](https://a.example/x y)", "[t]", "](u)",
    "ref<T | null>(null)", "---\na: b\n---\n", "\n[r]: https://x.org/p\n", "word", "字", " ",
    "\n", "<", ">", "https://q.example/zz", "x",
])  # fmt: skip


@given(st.lists(_MARKUP_PIECES, max_size=12), st.sampled_from(["markdown", "html"]))
def test_tokens_outside_the_markup_are_those_of_the_visible_text(
    pieces: list[str], markup: str
) -> None:
    """What decon compares (the tokens outside ``markup_spans``, offsets in the row as read)
    is what dedup compares (the text without the markup, ``visible_text``)."""
    text = "".join(pieces)
    visible = tokenize(visible_text(text, markup)).hashes.tolist()
    assert text_tokens(text, markup).hashes.tolist() == visible


def test_rows_keep_what_only_looks_like_markup() -> None:
    """``none`` keeps everything; ``html`` only tags and comments go; ``markdown`` also link
    targets and front matter (a bare URL is kept: a reader sees it)."""
    text = "ref<T | null>(null) [docs](https://a.example) www.b.example"
    assert visible_text(text, "none") == text
    assert visible_text(text, "html").split() == ["ref", "(null)", "[docs](https://a.example)",
                                                  "www.b.example"]  # fmt: skip
    assert visible_text(text, "markdown").split() == ["ref", "(null)", "[docs]", "www.b.example"]


def test_a_short_texts_blocks_are_its_paragraphs_items_and_headings() -> None:
    """``block_form`` marks the form between paragraphs, list items, quotations and headings
    (not at a sentence's end, not at a line break inside a paragraph), and ``unmarked_form``
    gives the form back."""
    text = (
        "# A heading\nFirst sentence, here. Second one\nstill the second!\n\n"
        "A new paragraph? Yes.\n- an item\n- another item\n> quoted\n\n\n"
        "中文句子。另一句！\n\n好的"
    )
    form = comparison_form(text)
    marked = block_form(text, form)
    assert marked.split("\n") == [
        "a heading", "first sentence here second one still the second", "a new paragraph yes",
        "an item", "another item", "quoted", "中文句子另一句", "好的",
    ]  # fmt: skip
    assert unmarked_form(marked) == form
    assert block_form("one paragraph. two sentences", form="") == ""  # one block: the form


_BLOCKY = st.text(
    st.sampled_from(list("ab中文 .!?。！\n\t-#>1)") + ["\u0301", "Ａ", "ß", "½"]), max_size=40
)


@given(_BLOCKY)
def test_the_marked_form_always_gives_the_form_back(text: str) -> None:
    """Whatever the text, its marked form unmarked is its comparison form (a short text's
    record keeps the marked one: its edit similarity and its exact copies are unchanged)."""
    form = comparison_form(text)
    marked = block_form(text, form)
    assert unmarked_form(marked) == form
    assert "" not in marked.split("\n") or marked == ""


def test_the_ideograph_test_of_block_marks_is_its_ranges() -> None:
    """Whether two blocks join without a space (``unmarked_form``) is decided by the ranges of
    ``_CJK_RANGES``, at each of their edges and everywhere between."""
    from simdup.text.normalize import _CJK_RANGES, _is_cjk

    edges = {c for lo, hi in _CJK_RANGES for c in (lo - 1, lo, hi, hi + 1)}
    for code in sorted(edges | set(range(0, 0x10000, 7))):
        if 0xD800 <= code <= 0xDFFF:
            continue
        assert _is_cjk(chr(code)) == any(lo <= code <= hi for lo, hi in _CJK_RANGES), hex(code)


# Letters, ideographs, kana and hangul, the edges of the ideograph ranges and what lies past them.
_MARKED = "\nab 中文アー가é.\u3040\u30ff\u4e00\u9fff\uf900\ufaff\u303f\ufb00"


@given(st.text(alphabet=_MARKED, max_size=40))
def test_unmarked_form_is_its_block_by_block_reference(marked: str) -> None:
    """The regular expression ``unmarked_form`` uses drops a mark between two ideographs or
    kana and spaces the others, as the reference does block by block (range edges, marks in
    a row, marks at either end)."""
    from simdup.text.normalize import unmarked_form_by_blocks

    assert unmarked_form(marked) == unmarked_form_by_blocks(marked)
    for code in (0x3040 - 1, 0x30FF + 1, 0x3400, 0x4DBF, 0x4DC0, 0xF900, 0xFAFF):
        text = f"{chr(code)}\n中\n{chr(code)}"
        assert unmarked_form(text) == unmarked_form_by_blocks(text)
