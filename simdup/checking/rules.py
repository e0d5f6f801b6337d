"""What a duplicate check counts, from the checked document's own text: its quotations, its
reference list, its citation markers, and its sections.

Every rule here is a pattern on the text, stated so that a ratio can be reproduced by hand:

- **Quoted**: text between “ and ”, 「 and 」, 『 and 』, or a pair of straight double quotes
  in one paragraph, and Markdown block quotes (lines starting with ``>``). 《…》 marks a title
  in Chinese, not a quotation, and is not quoted text.
- **Reference list**: from a heading line that names one (参考文献, 引用文献, References,
  Bibliography, Works Cited, Literature Cited, Sources) to the next Markdown heading or the next
  line naming back matter (附录, 致谢, Appendix, Acknowledgements, ...), or the end.
- **Citation markers**: ``[1]``, ``[2, 5]``, ``[3-7]``, ``[1]–[4]``.
- **Sections**: Markdown headings (``#``: what the DOCX, ODT, EPUB and HTML readers write for
  heading styles), and lines that look like headings: short, not ending a sentence, and
  numbered as chapters are (第一章, 第2节, 一、, 1, 1.2, Chapter 3) or naming a part every thesis
  has (摘要, Abstract, 引言, Introduction, 结论, Conclusion, 参考文献, References, 致谢, ...);
  a table's row (its cells parted by `` | ``, as every reader writes them) is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTED = re.compile(
    r"“[^“”]{1,4000}”"
    r"|「[^「」]{1,4000}」"
    r"|『[^『』]{1,4000}』"
    r'|"[^"\n]{1,4000}(?:\n(?![ \t]*\n)[^"\n]{0,4000}){0,20}"'
)
_BLOCK_QUOTE = re.compile(r"^[ \t]{0,3}>.*(?:\n[ \t]{0,3}>.*)*", re.M)
_MARKER = re.compile(r"\[\d{1,4}(?:\s*[-–—,，、]\s*\d{1,4})*\](?:\s*[-–—]\s*\[\d{1,4}\])?")

_MD_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
_REFERENCES = re.compile(
    r"^(?:参\s*考\s*文\s*献|引\s*用\s*文\s*献|主要参考文献|references?|bibliography|"
    r"works\s+cited|literature\s+cited|sources(?:\s+cited)?|reference\s+list)$",
    re.I,
)
_BACK_MATTER = re.compile(
    r"^(?:附\s*录.*|致\s*谢|谢\s*辞|后\s*记|作者简介.*|攻读.*期间.*|appendi(?:x|ces)\b.*|"
    r"acknowledge?ments?|about the author.*)$",
    re.I,
)
_NAMED_PART = re.compile(
    r"^(?:摘\s*要|abstract|引\s*言|绪\s*论|前\s*言|导\s*论|结\s*论|结\s*语|总\s*结|"
    r"introduction|conclusions?|summary|discussion|methods?|results|"
    r"background|literature review|related work)$",
    re.I,
)
_NUMBERED = [
    (re.compile(r"^第[一二三四五六七八九十百零〇\d]+[章篇部]"), 1),
    (re.compile(r"^第[一二三四五六七八九十百零〇\d]+节"), 2),
    (re.compile(r"^(?:chapter|part)\s+[\dIVXLC]+\b", re.I), 1),
    (re.compile(r"^[一二三四五六七八九十]+[、.．]\s*\S"), 1),
    (re.compile(r"^\d{1,2}[.．]?\s+\S"), 1),
    (re.compile(r"^\d{1,2}[.．]\d{1,2}[.．]?\s*\S"), 2),
    (re.compile(r"^\d{1,2}[.．]\d{1,2}[.．]\d{1,2}[.．]?\s*\S"), 3),
]
_SENTENCE_END = re.compile(r"[。！？；：，、.!?;:,]$")
# How the readers part the cells of a table's row (a DOCX, ODT, HTML or PDF table).
_TABLE_CELLS = " | "
_LEADING_NUMBER = re.compile(r"^(?:\d+(?:[.．]\d+)*[.．]?|[一二三四五六七八九十]+[、.．])\s*")


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading line: its character offsets, its level (1: a chapter) and its title."""

    start: int
    end: int
    level: int
    title: str


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a document from one heading (of the level sections are reported at) to the
    next: ``title`` (empty for the text before the first heading) and its offsets."""

    title: str
    start: int
    end: int


def quoted_ranges(text: str) -> list[tuple[int, int]]:
    """The quoted text of ``text`` (with its quote marks) as sorted, disjoint ranges."""
    found = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]
    found += [(m.start(), m.end()) for m in _BLOCK_QUOTE.finditer(text)]
    return merge_ranges(found)


def marker_ranges(text: str) -> list[tuple[int, int]]:
    """Citation markers such as ``[1]`` and ``[2-4]``."""
    return [(m.start(), m.end()) for m in _MARKER.finditer(text)]


def _lines(text: str) -> list[tuple[int, int, str]]:
    found = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        found.append((offset, offset + len(body), body))
        offset += len(line)
    return found


def _heading_text(line: str) -> str:
    return line.strip().strip("*_").strip()


def headings(text: str) -> list[Heading]:
    """The headings of ``text``: Markdown ones when it has any, else the detected ones."""
    marked = markdown_headings(text)
    return marked if marked else detected_headings(text)


def markdown_headings(text: str) -> list[Heading]:
    return [
        Heading(m.start(), m.end(), len(m.group(1)), _heading_text(m.group(2)))
        for m in _MD_HEADING.finditer(text)
    ]


def detected_headings(text: str) -> list[Heading]:
    """Lines that look like headings (see the module's rules)."""
    found = []
    for start, end, line in _lines(text):
        title = _heading_text(line)
        if not title or len(title) > 60 or len(title.split()) > 12 or _SENTENCE_END.search(title):
            continue
        if _TABLE_CELLS in title:  # a table's row, numbered in its first column (1 | SimHash | …)
            continue
        bare = _LEADING_NUMBER.sub("", title)
        level = 0
        for pattern, depth in _NUMBERED:
            if pattern.match(title):
                level = depth
        if not level and (
            _NAMED_PART.match(bare) or _REFERENCES.match(bare) or _BACK_MATTER.match(bare)
        ):
            level = 1
        if level:
            found.append(Heading(start, end, level, title))
    return found


def reference_ranges(text: str) -> list[tuple[int, int]]:
    """The reference lists of ``text``: from the heading naming one to the next Markdown
    heading or back-matter heading, or the end."""
    found = []
    # A reference list is often a plain line even in a document with Markdown headings.
    heads = sorted(
        {(h.start, h.level): h for h in markdown_headings(text) + detected_headings(text)}.values(),
        key=lambda h: h.start,
    )
    for n, head in enumerate(heads):
        if not _REFERENCES.match(_LEADING_NUMBER.sub("", head.title)):
            continue
        end = len(text)
        for later in heads[n + 1 :]:
            bare = _LEADING_NUMBER.sub("", later.title)
            if later.level <= head.level or _BACK_MATTER.match(bare):
                end = later.start
                break
        found.append((head.start, end))
    return merge_ranges(found)


def _is_title(heads: list[Heading]) -> bool:
    """Whether the first heading is the document's title: the next heading is deeper, and no
    other heading of its level but back matter (参考文献, 致谢, References...) follows. A
    title is no section: the parts below it are (a thesis as `# title` then `## 第一章`, a
    Word file whose Title style is above its chapters)."""
    if len(heads) < 2 or heads[1].level <= heads[0].level:
        return False
    first = heads[0].level
    return all(
        _REFERENCES.match(_LEADING_NUMBER.sub("", h.title))
        or _BACK_MATTER.match(_LEADING_NUMBER.sub("", h.title))
        for h in heads[1:]
        if h.level <= first
    )


def sections(text: str) -> list[Section]:
    """The document cut at its top-level headings (the smallest level it uses, below a title);
    the text before the first section (a title and what follows it included) is a section with
    an empty title when it holds any words, as in a PDF, whose title is no detected heading."""
    heads = headings(text)
    if _is_title(heads):
        top = heads[1].level
        tops = [h for h in heads[1:] if h.level <= top]
    elif heads:
        top = min(h.level for h in heads)
        tops = [h for h in heads if h.level == top]
    else:
        return [Section("", 0, len(text))]
    found = []
    if text[: tops[0].start].strip():
        found.append(Section("", 0, tops[0].start))
    for n, head in enumerate(tops):
        end = tops[n + 1].start if n + 1 < len(tops) else len(text)
        found.append(Section(head.title, head.start, end))
    return found


def merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges sorted, overlapping and touching ones merged."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]
