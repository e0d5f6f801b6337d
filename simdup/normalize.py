"""Text normalisation: markup clean-up, NFKC, case folding.

NFKC maps full-width letters, digits and punctuation to their half-width forms and
compatibility ideographs to the unified ones; ``casefold`` is Unicode-aware lowercasing.
Markup clean-up removes what a near-duplicate reader does not see as text: YAML front
matter, HTML tags and comments, link targets and bare URLs. Code inside Markdown fences is
kept: it is content. A URL is removed because its path fragments ("https", "github", "com",
"blob", ...) would otherwise be shared by unrelated documents.
"""

from __future__ import annotations

import re
import unicodedata

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# Markdown link or image target: ](target "title")
_MD_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
_MD_REFERENCE = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.M)
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"'()\[\]]+|www\.[^\s<>\"'()\[\]]+", re.I)
# Chinese puts no spaces between words: a line break or space between two ideographs is
# layout (re-wrapping), and left in place it would split a word in two for the segmenter.
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff])\s+(?=[\u3400-\u9fff\uf900-\ufaff])")


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
        text = _URL.sub(" ", text)
    return text


def normalize_text(text: str, *, markup: bool = True) -> str:
    """The text every later stage sees: cleaned (optionally), NFKC, case-folded."""
    if markup:
        text = strip_markup(text)
    # The quick check is much cheaper than normalising text that already is NFKC.
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return _CJK_GAP.sub("", text).casefold()


def collapse_whitespace(text: str) -> str:
    """One space for every whitespace run: the form exact duplicates are compared in."""
    return " ".join(text.split())
