"""Normalisation: default-ignorable characters and markup removed from a text, NFKC and case
folding of its words.

Default-ignorable code points (zero-width space and joiners, word joiner, BOM, soft hyphen,
bidi controls, variation selectors, ...) are invisible: a copy with U+200B after every
character reads exactly like the original, but would be split into one-letter words. They are
removed first (``strip_ignorables``), before anything else looks at the text, so they change no
word, content hash or fingerprint.

NFKC maps full-width letters and digits to their half-width forms and compatibility
ideographs to the unified ones; ``casefold`` is Unicode-aware lowercasing. Both are applied to
each distinct word (``normalize_term``), not to whole texts: a word's normalised form is
memoised per process, so each is computed once however often the word occurs (NFKC over whole
texts cost a quarter of the time of a scan). Punctuation needs no normalising: it separates
words in either width.
Markup clean-up removes what a near-duplicate reader does not see as text: YAML front
matter, HTML tags and comments, link targets and bare URLs. Code inside Markdown fences is
kept: it is content. A URL is removed because its path fragments ("https", "github", "com",
"blob", ...) would otherwise be shared by unrelated documents.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from array import array
from collections.abc import Callable

from ..algorithms.move_join import BLOCK_MARK
from ..native import speedups

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# Markdown link or image target: ](target "title")
_MD_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
_MD_REFERENCE = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.M)
# (?:https?|ftp)://... or www.... in any case. Spelled with a plain first character and
# lookbehinds so that the regex engine can skip to candidate letters: 4x faster than the
# case-insensitive alternation, same matches (tests/text/test_normalize.py).
_URL = re.compile(
    r"[hHfFwW](?:(?<=[hH])(?i:ttps?)://|(?<=[fF])(?i:tp)://|(?<=[wW])(?i:ww)\.)"
    r"[^\s<>\"'()\[\]]+"
)


# Unicode's derived property Default_Ignorable_Code_Point (DerivedCoreProperties.txt), inclusive
# ranges, as of Unicode 15.1; the same set since 14.0 (which made U+180F a variation
# selector), so also that of Python 3.11's unicodedata (14.0). It is Other_Default_Ignorable +
# Cf + Variation_Selector - White_Space - U+FFF9..FFFB - Egyptian format controls -
# Prepended_Concatenation_Mark (tests/text/test_normalize.py recomputes it that way). Unassigned
# code points in these ranges are included: the property reserves them as ignorable.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero width space, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated formats
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors 1-16
    (0xFEFF, 0xFEFF),  # zero width no-break space (BOM)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors 17-256, reserved
)
_IGNORABLE = re.compile(
    "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in DEFAULT_IGNORABLE) + "]"
)


def strip_ignorables_python(text: str) -> str:
    """``text`` without its default-ignorable code points (the reference implementation)."""
    if text.isascii():  # O(1): none of them is ASCII
        return text
    return _IGNORABLE.sub("", text)


# Every text is checked, and few are ASCII. On the benchmark set (13,400 characters a text,
# mostly Chinese) the regex costs ~180 us a text: 16% of a document's processing with the C
# extension, 5% without. The native table scan costs ~6 us (0.6%).
strip_ignorables: Callable[[str], str] = (
    speedups.strip_ignorables if speedups else strip_ignorables_python
)


# What ``markup_marks`` says a text holds: the cheap substring tests of ``strip_markup``.
MARK_FRONT_MATTER = 1  # starts with "---"
MARK_TAG = 2  # "<"
MARK_LINK = 4  # "]("
MARK_REFERENCE = 8  # "]:"
MARK_URL = 16  # "://", "www." or "WWW."


def markup_marks_python(text: str) -> int:
    """The ``MARK_*`` bits of the markup ``strip_markup`` may find in ``text`` (the
    reference implementation)."""
    return (
        (MARK_FRONT_MATTER if text.startswith("---") else 0)
        | (MARK_TAG if "<" in text else 0)
        | (MARK_LINK if "](" in text else 0)
        | (MARK_REFERENCE if "]:" in text else 0)
        | (MARK_URL if "://" in text or "www." in text or "WWW." in text else 0)
    )


# One pass over the text instead of seven substring searches (~3 us a short document).
markup_marks: Callable[[str], int] = speedups.markup_marks if speedups else markup_marks_python


def _sub(
    pattern: re.Pattern[str], replacement: str, text: str, removed: list[str] | None,
    count: int = 0,
) -> str:  # fmt: skip
    """``pattern.sub(replacement, text)``, appending each match to ``removed`` if given."""
    if removed is None:
        return pattern.sub(replacement, text, count=count)

    def taken(match: re.Match[str]) -> str:
        removed.append(match.group())
        return replacement

    return pattern.sub(taken, text, count=count)


def strip_link_targets_python(text: str, removed: list[str] | None = None) -> str:
    """Every Markdown link or image target made "] " (each match appended to ``removed``
    when given; the reference implementation)."""
    return _sub(_MD_LINK_TARGET, "] ", text, removed)


# Nearly every Markdown document has links: the regex cost ~4 us a short document.
strip_link_targets: Callable[[str, list[str] | None], str] = (
    speedups.strip_link_targets if speedups else strip_link_targets_python
)


def strip_markup(
    text: str, removed: list[str] | None = None, urls: bool = True, marks: int | None = None
) -> str:
    """Remove front matter, HTML tags/comments, link targets and (unless ``urls`` is False)
    bare URLs; keep link text. Each piece removed is appended to ``removed`` when given.

    Each pattern runs only when the text holds what it starts with (``markup_marks``, of the
    text as given, or ``marks`` when the caller has them: a removal never makes one of those
    marks, so the patterns it skips would find nothing).
    """
    if marks is None:
        marks = markup_marks(text)
    if marks & MARK_FRONT_MATTER:
        text = _sub(_FRONT_MATTER, "", text, removed, count=1)
    if marks & MARK_TAG:
        text = _sub(_HTML_COMMENT, " ", text, removed)
        text = _sub(_HTML_TAG, " ", text, removed)
    if marks & MARK_LINK:
        text = strip_link_targets(text, removed)
    if marks & MARK_REFERENCE:
        text = _sub(_MD_REFERENCE, " ", text, removed)
    if urls and marks & MARK_URL:
        text = strip_urls(text, removed)
    return text


# The marks of the markup each setting removes (``params.MARKUPS``; ``auto`` is a document's).
MARKUP_MASKS = {
    "none": 0,
    "html": MARK_TAG,
    "markdown": MARK_FRONT_MATTER | MARK_TAG | MARK_LINK | MARK_REFERENCE | MARK_URL,
    "auto": MARK_FRONT_MATTER | MARK_TAG | MARK_LINK | MARK_REFERENCE | MARK_URL,
}


def visible_text(text: str, markup: str) -> str:
    """``text`` without the markup the setting ``markup`` names (``params.MARKUPS``): for
    ``markdown`` what ``strip_markup`` removes but bare URLs (a reader sees them), for ``html``
    tags and comments, for ``none`` nothing."""
    marks = markup_marks(text) & MARKUP_MASKS[markup] if markup != "none" else 0
    return strip_markup(text, urls=False, marks=marks) if marks else text


def markup_spans(text: str, markup: str = "markdown") -> list[tuple[int, int]]:
    """Where ``visible_text(text, markup)`` removes something from ``text``, as offsets in
    it, sorted (they may overlap): each pattern looked for in the text as given."""
    marks = markup_marks(text) & MARKUP_MASKS[markup] & ~MARK_URL if markup != "none" else 0
    if not marks:
        return []
    patterns = []
    if marks & MARK_FRONT_MATTER:
        patterns.append(_FRONT_MATTER)
    if marks & MARK_TAG:
        patterns += [_HTML_COMMENT, _HTML_TAG]
    if marks & MARK_LINK:
        patterns.append(_MD_LINK_TARGET)
    if marks & MARK_REFERENCE:
        patterns.append(_MD_REFERENCE)
    found: list[tuple[int, int]] = []
    for pattern in patterns:
        found.extend(m.span() for m in pattern.finditer(text) if m.end() > m.start())
    return sorted(found)


def strip_urls_python(text: str, removed: list[str] | None = None) -> str:
    """Every URL (``_URL``) replaced by a space (each appended to ``removed`` when given; the
    reference implementation)."""
    return _sub(_URL, " ", text, removed)


strip_urls: Callable[[str, list[str] | None], str] = (
    speedups.strip_urls if speedups else strip_urls_python
)


# Spaces between two ideographs (or kana) carry nothing: "中 文" is "中文" (a PDF's spacing, a
# re-wrapped Chinese line).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_GAP = re.compile(f" (?<=[{_CJK}] )(?=[{_CJK}])")
_WORD_RUN = re.compile(r"[^\W_]+")


def word_runs_python(text: str) -> str:
    """The maximal runs of letters and digits (``str.isalnum``) of ``text``, joined by one
    space, with no space between two ideographs or kana (the reference implementation)."""
    return _CJK_GAP.sub("", " ".join(_WORD_RUN.findall(text)))


# One pass in C where the accelerator is built (~5x the regular expressions).
word_runs: Callable[[str], str] = speedups.word_runs if speedups else word_runs_python


# Letters that case folding and NFKC leave as they are (tests/text/test_normalize.py checks each
# against unicodedata): the unified ideographs and Extension A, the kana letters but U+309F
# and U+30FF (NFKC spells them out), the Hangul syllables.
INERT_LETTERS: tuple[tuple[int, int], ...] = (
    (0x3041, 0x3096), (0x309D, 0x309E), (0x30A1, 0x30FA), (0x30FC, 0x30FE),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
)  # fmt: skip
_INERT = re.compile(
    "[0-9A-Za-z" + "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in INERT_LETTERS) + "]+"
)


def folded_word_runs_python(text: str, table: bytes | None = None) -> str | None:
    """``word_runs(text.casefold())`` when every letter or digit of ``text`` is ASCII or one of
    ``INERT_LETTERS`` and ``text`` holds no U+0345 (no letter, but it folds to one): then that
    is already the comparison form. With ``table`` (``letter_table``), a letter it folds is
    taken as folded. None otherwise (the reference implementation)."""
    if "\u0345" in text:
        return None
    others = {ch for ch in _INERT.sub("", text) if ch.isalnum()}
    if others:
        if table is None:
            return None
        folds = array("H", table)
        mapping = {ord(ch): folds[ord(ch)] if ord(ch) < 0x10000 else 0 for ch in others}
        if not all(mapping.values()):
            return None
        text = text.translate(mapping)
    return word_runs_python(text.casefold())


def _folds_to_one_letter(ch: str) -> str | None:
    """The one letter case folding and NFKC make of the letter ``ch``, when that letter is
    left alone by both, is no combining mark and no Hangul jamo (NFKC would join it with its
    neighbours), and the fold of ``ch`` is a letter already; None otherwise."""
    folded = ch.casefold()
    if len(folded) != 1 or not folded.isalnum():
        return None
    if not unicodedata.is_normalized("NFKC", folded):
        folded = unicodedata.normalize("NFKC", folded).casefold()
    code = ord(folded) if len(folded) == 1 else 0x110000
    if code > 0xFFFF or not folded.isalnum() or folded.casefold() != folded:
        return None
    if not unicodedata.is_normalized("NFKC", folded) or unicodedata.combining(folded):
        return None
    if any(lo <= code <= hi for lo, hi in _JAMO):
        return None
    return folded


# Hangul jamo, compatibility jamo and their extensions: NFKC composes them into syllables.
_JAMO = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))


@functools.cache
def letter_table() -> bytes:
    """For every BMP letter or digit outside ASCII and ``INERT_LETTERS``: the one letter case
    folding and NFKC make of it (``_folds_to_one_letter``), else 0; 65536 native uint16.
    Built from this Python's ``unicodedata`` when a text first needs it (~40 ms), so it always
    agrees with the long way."""
    table = array("H", bytes(2 * 0x10000))
    for code in range(0x80, 0x10000):
        ch = chr(code)
        if ch.isalnum() and (folded := _folds_to_one_letter(ch)) is not None:
            table[code] = ord(folded)
    return table.tobytes()


# The comparison form of most texts in one native pass (ASCII, Chinese, Japanese, Korean: no
# separate case folding or NFKC check, ~4x faster); with the letter table, of texts in other
# alphabets too (Latin with accents, Greek, Cyrillic); None sends the rest the long way.
folded_word_runs: Callable[..., str | None] | None = (
    speedups.folded_word_runs if speedups else None
)


def comparison_form(text: str) -> str:
    """The text as duplicates are compared: NFKC, case folded, every run of what is not a
    letter or digit (punctuation in either width, whitespace, symbols) one space, none at the
    ends, none between two ideographs. Two texts with the same form are the same text (an
    exact duplicate); short texts are compared by the edit similarity of their forms. The
    caller strips markup first (``strip_markup``) and default-ignorables (``strip_ignorables``).
    """
    # Case folded, then split into runs: what is left is mostly NFKC already (full-width
    # punctuation is gone), so the whole-text NFKC (~90 us a 1 KB text) is rarely needed. NFKC
    # can make capitals ("Ａ" is "A") and separators ("½" is "1⁄2"): folded and split again.
    if folded_word_runs is not None:
        form = folded_word_runs(text)
        if form is None:
            form = folded_word_runs(text, letter_table())
        if form is not None:
            return form
    form = word_runs(text.casefold())
    if not form.isascii() and not unicodedata.is_normalized("NFKC", form):
        form = word_runs(unicodedata.normalize("NFKC", form).casefold())
        if not unicodedata.is_normalized("NFKC", form):  # folding can leave NFKC ("ǰ")
            form = word_runs(unicodedata.normalize("NFKC", form))
    return form


# Where one block of a text ends and the next begins, for the block-move similarity of short
# texts (``algorithms.move_join``): a blank line (a paragraph) and a line break before a list
# item or quotation end one; a heading line is a block (the group: kept as a piece). A line
# break alone is no boundary (a re-wrapped copy keeps its blocks), and neither is the end of
# a sentence: a full stop typed or lost is a one-character edit, and as a boundary it would
# merge two blocks and cost a whole sentence (issue 50's moved-paragraph set: 1,977 of 2,000
# planted copies found with sentences as blocks, 1,999 with paragraphs).
# Each alternative starts at a line break (the text is given one before it): the engine looks
# for line breaks only (half the time of a pattern tried at every character).
_BLOCK_BREAK = re.compile(
    r"\n(?:[ \t]*\n\s*|(?=[ \t]*(?:[-*+>]|\d+[.)])\s)|[ \t]*(#{1,6}[ \t][^\n]*)(?=\n|$))"
)
# The ideographs and kana of ``_CJK``, as code ranges.
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    # The ranges of _CJK_RANGES written out: ~0.1 us a call, ~1.5 us through any() over them.
    return (
        0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
    )  # fmt: skip


def block_form(text: str, form: str) -> str:
    """``form`` (the ``comparison_form`` of ``text``) with ``BLOCK_MARK`` between the forms of
    the text's blocks (its paragraphs, list items, quotations and headings, ``_BLOCK_BREAK``):
    where a space stood
    between two blocks, and between two ideographs that no space separated. ``form`` itself
    when the text has one block, or when the blocks' forms do not make ``form`` again (NFKC
    across a boundary; never seen): ``unmarked_form`` always gives ``form`` back."""
    parts = [f for f in map(comparison_form, filter(None, _BLOCK_BREAK.split("\n" + text))) if f]
    if len(parts) < 2:
        return form
    marked = BLOCK_MARK.join(parts)
    return marked if unmarked_form(marked) == form else form


# A block mark between two ideographs or kana (``unmarked_form`` drops it).
_CJK_MARK = re.compile(f"(?<=[{_CJK}]){re.escape(BLOCK_MARK)}(?=[{_CJK}])")


def unmarked_form(marked: str) -> str:
    """The comparison form of a text from its ``block_form``: each mark a space, none between
    two ideographs (as ``word_runs`` joins runs)."""
    if BLOCK_MARK not in marked:
        return marked
    # A scan's short-text join unmarks every short text (10^5 of them: ~4 us each this way,
    # ~0.5 s block by block in Python); ASCII holds no ideograph.
    if not marked.isascii():
        marked = _CJK_MARK.sub("", marked)
    return marked.replace(BLOCK_MARK, " ")


def unmarked_form_by_blocks(marked: str) -> str:
    """``unmarked_form`` block by block: its reference (``tests/text``)."""
    if BLOCK_MARK not in marked:
        return marked
    parts = marked.split(BLOCK_MARK)
    out = [parts[0]]
    for before, part in zip(parts, parts[1:], strict=False):
        joined = before and part and _is_cjk(before[-1]) and _is_cjk(part[0])
        out.append(part if joined else " " + part)
    return "".join(out)


def normalize_term(word: str) -> str:
    """NFKC, then case folding: "ＷＯＲＤ", "Word" and "word" are one term."""
    # The quick check is much cheaper than normalising a word that already is NFKC.
    if not unicodedata.is_normalized("NFKC", word):
        word = unicodedata.normalize("NFKC", word)
    return word.casefold()
