"""The short-text benchmark (``short.py``): what a row is. Its lengths, length bands, kinds of
planted copy and languages; the normalised form and the edit similarity the issue measures on;
a row's language by script; and the rows cut from the set's Markdown (blocks, inline markup
stripped), one per normalised form, near-duplicates of one another left out. Run short.py, not
this."""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from common import decode_anchor, list_docs

MIN_CHARS, MAX_CHARS = 20, 300
# A row's normalised form must have at least this many characters (edits need room; rows of
# punctuation and markup leftovers are not text).
MIN_NORMALISED = 10
BANDS = ((20, 39), (40, 79), (80, 149), (150, 300))
KINDS = ("exact", "normalised", "edited", "negative")
LANGS = ("zh", "mixed", "en")
NEAR = 0.90


def band_name(band: tuple[int, int]) -> str:
    return f"{band[0]}–{band[1]}"


def band_of(length: int) -> str:
    for band in BANDS:
        if band[0] <= length <= band[1]:
            return band_name(band)
    raise ValueError(length)


BAND_NAMES = [band_name(b) for b in BANDS]

# ---------------------------------------------------------------- the normalised form

CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
CJK = re.compile(f"[{CJK_CLASS}]")
_SEPARATORS = re.compile(r"[\W_]+")
_CJK_SPACE = re.compile(f"(?<=[{CJK_CLASS}]) (?=[{CJK_CLASS}])")
LATIN = re.compile(r"[A-Za-z]")


def normalised(text: str) -> str:
    """NFKC, casefold, each run of non-letters/digits one space, stripped, no space between
    two CJK ideographs: the form on which the issue measures edit similarity."""
    form = _SEPARATORS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return _CJK_SPACE.sub("", form)


def similarity(form_a: str, form_b: str) -> float:
    """Edit similarity of two normalised forms: 1 - Levenshtein distance / longer length."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(form_a, form_b))


def language(text: str) -> str:
    cjk, latin = len(CJK.findall(text)), len(LATIN.findall(text))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= latin else "mixed"


# ---------------------------------------------------------------- rows cut from Markdown

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+|$)")
_RULE = re.compile(r"^ {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,}|=+\s*)$")
_QUOTE = re.compile(r"^ {0,3}>\s?")
_TABLE = re.compile(r"^\s*\|")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# A backslash escape (\\*) or a hard line break (a backslash at the end of a line).
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~]|$)", re.M)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")


_HIDDEN = 0xF0000  # escaped characters are hidden from the markup patterns up here


def inline_text(text: str) -> str:
    """Markdown inline markup stripped, whitespace collapsed."""
    text = _ESCAPE.sub(lambda m: chr(_HIDDEN + ord(m.group(1))) if m.group(1) else " ", text)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = html.unescape(text.replace("`", ""))
    text = re.sub("[\U000f0000-\U000f007f]", lambda m: chr(ord(m.group(0)) - _HIDDEN), text)
    return " ".join(text.split())


def markdown_blocks(text: str) -> Iterator[str]:
    """The paragraphs, list items and headings of a Markdown text, as plain text."""
    block: list[str] = []
    fence = ""

    def flush() -> Iterator[str]:
        if block:
            yield inline_text("\n".join(block))
            block.clear()

    for raw in text.splitlines():
        if fence:
            if raw.strip().startswith(fence):
                fence = ""
            continue
        match = _FENCE.match(raw)
        if match:
            yield from flush()
            fence = match.group(1)[0] * 3
            continue
        line = raw
        while _QUOTE.match(line):
            line = _QUOTE.sub("", line, count=1)
        if not line.strip() or _RULE.match(line) or _TABLE.match(line):
            yield from flush()
            continue
        if _LINK_DEFINITION.match(line):
            continue
        if _HEADING.match(line):
            yield from flush()
            block.append(_HEADING.sub("", line).rstrip("# "))
            yield from flush()
            continue
        if _LIST_ITEM.match(line):
            yield from flush()
            block.append(_LIST_ITEM.sub("", line, count=1))
            continue
        if not block and (line.startswith("    ") or line.startswith("\t")):
            continue  # an indented code block
        block.append(line)
    yield from flush()


def row_pool(docs: Path) -> tuple[list[str], dict[str, int]]:
    """Distinct rows (one per normalised form, first seen in file order) of 20-300 characters
    of the set's Markdown files, sorted; and counts of what was read."""
    by_form: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for path in list_docs(docs):
        if path.suffix.lower() not in (".md", ".markdown"):
            continue
        counts["files"] += 1
        text, _ = decode_anchor(path.read_bytes())
        for block in markdown_blocks(text.replace("\r\n", "\n")):
            counts["blocks"] += 1
            if not MIN_CHARS <= len(block) <= MAX_CHARS:
                continue
            counts["blocks_in_range"] += 1
            form = normalised(block)
            if len(form) >= MIN_NORMALISED:
                by_form.setdefault(form, block)
    counts["distinct"] = len(by_form)
    return sorted(by_form.values()), dict(counts)


def without_near_duplicates(texts: list[str]) -> tuple[list[str], int]:
    """``texts`` less each row that is a near-duplicate (edit similarity >= 0.9 of the
    normalised forms) of another: of each connected group, the first in order stays."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    forms = [normalised(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (len(forms[i]), i))
    lengths = [len(forms[i]) for i in order]
    parent = list(range(len(texts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    chunk = 1000
    low = 0
    for start in range(0, len(order), chunk):
        stop = min(start + chunk, len(order))
        # similarity >= 0.9 needs the shorter form >= 0.9 x the longer one.
        while lengths[low] < math.floor(NEAR * lengths[start]):
            low += 1
        queries = [forms[i] for i in order[start:stop]]
        choices = [forms[i] for i in order[low:stop]]
        scores = process.cdist(
            queries,
            choices,
            scorer=Levenshtein.normalized_similarity,
            score_cutoff=NEAR,
            workers=-1,
        )
        for q, c in zip(*scores.nonzero(), strict=True):
            a, b = order[start + int(q)], order[low + int(c)]
            if a != b:
                ra, rb = root(a), root(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    kept = [t for i, t in enumerate(texts) if root(i) == i]
    return kept, len(texts) - len(kept)

