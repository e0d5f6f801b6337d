"""Normalisation: markup clean-up of a text, NFKC and case folding of its words.

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

import re
import unicodedata
from collections.abc import Callable

from .native import speedups

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# Markdown link or image target: ](target "title")
_MD_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
_MD_REFERENCE = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.M)
# (?:https?|ftp)://... or www.... in any case. Spelled with a plain first character and
# lookbehinds so that the regex engine can skip to candidate letters: 4x faster than the
# case-insensitive alternation, same matches (tests/test_normalize.py).
_URL = re.compile(
    r"[hHfFwW](?:(?<=[hH])(?i:ttps?)://|(?<=[fF])(?i:tp)://|(?<=[wW])(?i:ww)\.)"
    r"[^\s<>\"'()\[\]]+"
)


def strip_markup(text: str) -> str:
    """Remove front matter, HTML tags/comments, link targets and URLs (keep link text).

    Each pattern runs only when a cheap substring test says it can match.
    """
    if text.startswith("---"):
        text = _FRONT_MATTER.sub("", text, count=1)
    if "<" in text:
        text = _HTML_COMMENT.sub(" ", text)
        text = _HTML_TAG.sub(" ", text)
    if "](" in text:
        text = _MD_LINK_TARGET.sub("] ", text)
    if "]:" in text:
        text = _MD_REFERENCE.sub(" ", text)
    if "://" in text or "www." in text or "WWW." in text:
        text = strip_urls(text)
    return text


def strip_urls_python(text: str) -> str:
    """Every URL (``_URL``) replaced by a space (the reference implementation)."""
    return _URL.sub(" ", text)


strip_urls: Callable[[str], str] = speedups.strip_urls if speedups else strip_urls_python


def normalize_term(word: str) -> str:
    """NFKC, then case folding: "ＷＯＲＤ", "Word" and "word" are one term."""
    # The quick check is much cheaper than normalising a word that already is NFKC.
    if not unicodedata.is_normalized("NFKC", word):
        word = unicodedata.normalize("NFKC", word)
    return word.casefold()
