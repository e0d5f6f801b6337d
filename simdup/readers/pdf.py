"""The PDF reader: the text of a PDF as a reader sees it, paragraph by paragraph, page by page.

Text comes from PDFium (``pypdfium2``: Apache-2.0/BSD-3; ~1 ms a page), which gives a page's
text with a line break at the end of every printed line (but one ending in a hyphen, see
``_page_lines``), and the box of every character. Every PDF extractor breaks paragraphs at
each line end (``对中\\n文文本``), which splits Chinese words and joins nothing, so the lines
are put back together the way they were printed:

* a line starts a new paragraph when the gap above it is well over the page's usual line gap,
  when it is indented against the line before, or when the line before stopped well short of
  the text's right edge after a sentence's end; otherwise it continues the paragraph: with no
  space between two CJK characters, with a word the writer's hyphenation broke rejoined
  without its hyphen (``pro-`` + ``gram``) and a compound broken after its own hyphen kept
  whole (``well-`` + ``designed``; see ``_hyphen`` for how they are told apart), with a Latin
  word cut without a hyphen rejoined when the document prints the whole word elsewhere
  (writers that break Latin text as they break Chinese print ``e`` + ``ven``), and with a
  space elsewhere; a change of font size starts a paragraph (a heading and the text under it),
  and so does a short numbered line (``1.2 研究意义``) after a sentence's end (citation
  markers after it count: ``冲动。[2]``);
* a line printed in columns (a table's row: a gap of over two ems between two characters,
  where running text has at most a space, under an em) is a paragraph of its own, its cells
  parted by `` | `` at the gaps of over an em, as the other readers write a row; a justified line
  running to the right edge, whose spaces are stretched alike, is no row;
* running headers and footers (lines at the top or the bottom of a page whose text, digits
  ignored, is there on most pages) and page numbers standing alone there are dropped;
* letter-spaced text (``T h e  T i t l e``) is closed up;
* a paragraph cut by a page break is joined to its continuation on the next page.

Paragraphs are separated by blank lines, so passages see their blocks. Each page is located by
its number and, where it differs, its printed label (``thesis.pdf p. 12 (iv)``). A PDF with no
text layer (a scan) is a skip record saying so; so is an encrypted one.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import MissingExtraError
from ..records import DecodedDocument, Locations, SkippedFile
from .markup import FormatError


def _median(values: Iterable[float]) -> float:
    from statistics import median  # ~4 ms to import: when a PDF is read

    return float(median(values))


@functools.cache
def _cjk() -> re.Pattern[str]:
    """A CJK character or CJK punctuation (compiled when a PDF is read: a scan of text files
    imports this module, and a rescan's start-up counts)."""
    from ..text.textscan import CJK_RANGE

    return re.compile(f"[{CJK_RANGE}\u3000-\u303f\uff00-\uffef]")


# A sentence's end, and the citation markers after it (``冲动。[2]``, ``[3,4]``, ``[2-4]``): the
# paragraph ends there all the same.
_SENTENCE_END = re.compile(
    r"[.!?。！？：:;；…)”’」』）](?:\s*\[\d{1,4}(?:\s*[-–—,，、]\s*\d{1,4})*\])*\s*$"
)
# A short line that reads as a heading (a numbered chapter or section, a part every thesis has):
# the text under it is another paragraph even when it follows at the body's size and spacing.
_HEADING_LINE = re.compile(
    r"^(?:第[一二三四五六七八九十百零〇\d]+[章节篇部]|[一二三四五六七八九十]+、|"
    r"\d{1,2}(?:\.\d{1,2}){0,3}\s|(?:chapter|section|part)\s+[\dIVX]+\b|"
    r"(?:摘\s*要|abstract|引\s*言|绪\s*论|结\s*论|参考文献|references|致\s*谢|附\s*录)\s*$)",
    re.I,
)
_PAGE_NUMBER = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:page\s+|p\.\s*|第\s*)?(?:\d+|[ivxlcdm]+)(?:\s*页)?"
    r"(?:\s*(?:/|of)\s*\d+)?(?:\s*[-–—])?\s*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_SPACED = re.compile(r"^(?:\S ){3,}\S(?:\s{2,}(?:\S ){1,}\S)*$")


@dataclass
class _Line:
    text: str
    left: float
    bottom: float
    right: float
    top: float
    size: float = 0.0  # the font size of its first character
    # The cells of a line printed in columns (a table's row, see ``_cells``); empty for any
    # other line.
    cells: tuple[str, ...] = ()
    spread: bool = False  # its spaces, two or more, are all alike: a justified line's

    @property
    def height(self) -> float:
        return self.top - self.bottom


def _page_lines(textpage: Any) -> list[_Line]:
    """The printed lines of a page with their boxes. PDFium ends each with CR LF, except a line
    ending in a hyphen (U+002D), which it runs on into the next one with the hyphen marked
    U+FFFE: a character after U+FFFE starts a printed line too (read as one, the two lines'
    characters went back to the left, and were read in printed order: sorted by x, letters of
    the two lines interleaved)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    count = textpage.count_chars()
    if count <= 0:
        return []
    text = _page_text(textpage, count)
    matrix = pdfium_c.FS_MATRIX()
    at_matrix = ctypes.byref(matrix)
    lines = []
    for first, last in _spans(text):
        placed, widest, in_order = _placed(textpage, first, last, text)
        if placed:
            left, bottom, _, top = placed[0][:4]
            _, low, right, high = placed[-1][:4]
        else:
            try:
                left, bottom, _, top = textpage.get_charbox(first)
                _, low, right, high = textpage.get_charbox(last)
            except Exception:  # a character without a box: keep the line, place it last
                left = bottom = right = top = low = high = 0.0
        size = float(pdfium_c.FPDFText_GetFontSize(textpage.raw, first))
        # The em of the line's font in page units: its size scaled by its text matrix
        # (Chromium prints 16 px text as 16-unit glyphs scaled by 0.75).
        em = size
        if pdfium_c.FPDFText_GetMatrix(textpage.raw, first, at_matrix):
            em = size * math.sqrt(abs(matrix.a * matrix.d - matrix.b * matrix.c))
        if em <= 0:
            em = max(top, high) - min(bottom, low)
        visual = None if in_order or not placed else _in_visual_order(placed)
        shown = visual or text[first : last + 1]
        if text[last] in "\ufffe\u2010\u00ad" and shown.endswith(text[last]):
            shown = shown[:-1] + _hyphen(textpage, last, text[last])
        shown = shown.replace("\ufffe", "-").replace(_SECOND_UNIT, "")
        # Cells are looked for where a wide gap shows in the file's order (or the order is
        # another): a line of running text costs no second walk.
        cells, spread = (
            _cells(placed, em) if placed and (widest > 2 * em or visual) else ((), False)
        )
        lines.append(_Line(_unspaced(shown), left, min(bottom, low), right,
                           max(top, high), size, cells, spread))  # fmt: skip
    return lines


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SECOND_UNIT = "\x00"  # in place of a character's second UTF-16 unit


def _page_text(textpage: Any, count: int) -> str:
    """A page's text, its character k PDFium's character k (whose box ``get_charbox(k)``
    gives). PDFium counts a character beyond the BMP (𠮷) as its two UTF-16 units, the decoded
    text as one: every box after it was another character's, and the lines read out of order.
    The second unit is held by a mark, dropped from what is read."""
    text: str = textpage.get_text_range(0, count)
    if len(text) < count:
        text = _ASTRAL.sub(lambda m: m.group() + _SECOND_UNIT, text)
    return text


def _spans(text: str) -> Iterator[tuple[int, int]]:
    """The first and last character of each printed line of a page's text, spaces around it
    left out: lines end at CR LF and after PDFium's line-end hyphen, U+FFFE."""
    for match in re.finditer(r"[^\r\n\ufffe]*\ufffe?", text):
        segment = match.group()
        if segment.strip():
            first = match.start() + len(segment) - len(segment.lstrip())
            yield first, match.start() + len(segment.rstrip()) - 1


def _hyphen(textpage: Any, index: int, char: str) -> str:
    """A line's last character, a hyphen: a soft hyphen (U+00AD) where the writer's
    hyphenation added it (a word broken at the line's end: ``pro-`` + ``gram`` is ``program``),
    the hyphen itself where the text has it (``well-`` + ``designed`` is ``well-designed``).

    PDFium marks any U+002D ending a line U+FFFE, the hyphen of ``pro-gram`` and of
    ``well-designed`` alike, so the mark tells neither. The print does: LibreOffice and
    Chromium write the hyphen their hyphenation adds as a text object of its own, the text's
    own hyphen inside the word's run (checked on their PDFs of ``essay.md``). Chromium's is
    U+2010, which texts do not type: at a line's end it is a hyphenation's, as a soft hyphen
    is. A U+002D in the word's run is the text's, or one of a writer that prints its
    hyphenation in the run (TeX): kept, and ``_join`` asks the document's words."""
    if char != "\ufffe":
        return "\u00ad"
    import ctypes

    import pypdfium2.raw as pdfium_c

    of = getattr(pdfium_c, "FPDFText_GetTextObject", None)  # not in older PDFium builds
    if of is not None and index > 0:
        run = ctypes.cast(of(textpage.raw, index), ctypes.c_void_p).value
        before = ctypes.cast(of(textpage.raw, index - 1), ctypes.c_void_p).value
        if run is not None and run != before:
            return "\u00ad"
    return "-"


_Placed = list[tuple[float, float, float, float, str]]  # (left, bottom, right, top, character)


def _placed(textpage: Any, first: int, last: int, text: str) -> tuple[_Placed | None, float, bool]:
    """The characters ``first..last`` of a page with their boxes, in the order the PDF holds
    them (None when one has no box: the line is then left as PDFium gave it); the widest gap,
    in that order, that holds a space; and whether that order is the printed one (see
    ``_in_visual_order``). One walk: PDFium's boxes are most of a PDF's reading time."""
    charbox = textpage.get_charbox
    placed = []
    right = float("inf")  # of the last printed character
    previous = float("-inf")  # the left of the last character with a width
    space = False
    widest = 0.0
    in_order = True
    for k in range(first, last + 1):
        char = text[k]
        if char == _SECOND_UNIT:
            continue  # the second half of the character before
        try:
            box = charbox(k)
        except Exception:  # no box
            return None, 0.0, True
        placed.append((*box, char))
        if char.isspace():
            space = True
            if box[2] <= box[0]:
                continue  # a space PDFium generated between runs: it has no width
        else:
            if space and box[0] - right > widest:
                widest = box[0] - right
            right = box[2]
            space = False
        if box[0] < previous - 1.0:  # more than kerning moves a glyph back
            in_order = False
        previous = box[0]
    return placed, widest, in_order


def _in_visual_order(placed: _Placed) -> str | None:
    """A line's characters in the order they are printed, left to right, when the PDF holds
    them in another (LibreOffice writes a line's runs a font at a time: the quotation marks of
    ``例如“的”“了”`` before the ideographs, which PDFium then reads as ``例如“ ”“ ” 的 了``);
    None when they are in order already. PDFium's generated spaces are dropped and a space put
    back where a gap between two Latin characters shows one."""
    shown: list[tuple[float, float, str]] = []  # (left, right, character)
    previous = float("-inf")
    in_order = True
    for left, _, right, _, char in placed:
        if right <= left and char.isspace():
            continue  # a space PDFium generated between runs: it has no width
        if left < previous - 1.0:  # more than kerning moves a glyph back
            in_order = False
        previous = left
        shown.append((left, right, char))
    if in_order or len(shown) < 2:
        return None
    shown.sort(key=lambda p: p[0])
    widths = sorted(right - left for left, right, _ in shown if right > left)
    gap = 0.3 * (widths[len(widths) // 2] if widths else 1.0)
    cjk = _cjk()
    out = [shown[0][2]]
    for (_, right, a), (left, _, b) in zip(shown, shown[1:], strict=False):
        if left - right > gap and not (cjk.match(a) or cjk.match(b)) and a != " ":
            out.append(" ")
        out.append(b)
    return "".join(out).strip()


def _cells(placed: _Placed, em: float) -> tuple[tuple[str, ...], bool]:
    """A line's cells when it is printed in columns, and whether its spaces (two or more) are
    all alike.

    Geometry, not the text, says so, in ems of the line's font (``em``, in page units). PDFium
    puts a space wherever glyphs stand apart; a space is a third to two thirds of an em wide
    (monospace ones included), so a spaced gap over an em is no space but the gap between two
    cells, and a line with one over two ems is printed in columns (a table's row). A justified
    line's spaces can be as wide (a word too long for the next line stretches them), but they
    are stretched alike."""
    if em <= 0:
        return (), False
    spaced: list[float] = []  # the gaps PDFium holds a space in
    cells = [""]
    right: float | None = None  # of the last printed character
    space = False
    for left, _, end, _, char in sorted(placed, key=lambda p: p[0]):
        if char.isspace():
            space = True
            continue
        if right is not None and space:
            gap = left - right
            spaced.append(gap)
            if gap > em:
                cells.append("")
            elif cells[-1]:
                cells[-1] += " "
        cells[-1] += "-" if char == "\ufffe" else char
        right = end
        space = False
    # Ink boxes, not advances: side bearings make alike spaces differ by a few hundredths of an em.
    spread = len(spaced) > 1 and max(spaced) - min(spaced) < 0.25 * em
    if not spaced or max(spaced) <= 2 * em:
        return (), spread
    return tuple(cells), spread


def _unspaced(line: str) -> str:
    """Letter-spaced text closed up: ``T h e  T i t l e`` is ``The Title``."""
    if not _SPACED.match(line):
        return line
    return " ".join(word.replace(" ", "") for word in re.split(r"\s{2,}", line))


_LATIN_WORD = re.compile(r"[A-Za-z]+")
_LAST_WORD = re.compile(r"[A-Za-z]+$")
_FIRST_WORD = re.compile(r"^[a-z]+")
_COMPOUND = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_SOFT_END = re.compile("\u00ad(?=\n|$)")


def _vocabulary(pages: list[list[_Line]]) -> frozenset[str]:
    """The Latin words printed whole in a document, lower case: those inside its lines (a
    line's first and last words may be pieces of a word cut at the margin), and its hyphenated
    compounds printed inside a line (``well-designed``)."""
    words: set[str] = set()
    for lines in pages:
        for line in lines:
            words.update(w.lower() for w in _LATIN_WORD.findall(line.text)[1:-1])
            for match in _COMPOUND.finditer(line.text):
                if match.start() > 0 and match.end() < len(line.text):
                    words.add(match.group().lower())
    return frozenset(words)


# A hyphen ending a line that the text may have (``well-`` + ``designed``): ASCII and U+2010.
_HYPHENS = "-\u2010"


def _letter(char: str) -> bool:
    """A letter of a script whose words a writer hyphenates (CJK text breaks anywhere)."""
    return char.isalpha() and not _cjk().match(char)


def _join(paragraph: str, line: str, words: frozenset[str] = frozenset()) -> str:
    """A paragraph and its next line, one paragraph. A line ending in a hyphen goes on with no
    space: a word or a number broken there (``12-`` + ``15``, ``等于-`` + ``128``). Between two
    letters (not CJK) a soft hyphen (one the writer's hyphenation added, see ``_hyphen``) is
    dropped, joining the word; a hyphen is kept (``well-designed``). The document's words
    overrule either: the word is written as the document prints it whole elsewhere, joined or
    hyphenated (a writer that prints its hyphenation in the word's run, as TeX does; a
    compound broken after an italic piece)."""
    if not paragraph:
        return line
    hyphen = paragraph[-1]
    if hyphen in _HYPHENS + "\u00ad" and len(paragraph) > 1 and not paragraph[-2].isspace():
        soft = hyphen == "\u00ad"
        if _letter(paragraph[-2]) and _letter(line[:1]):
            tail, head = _LAST_WORD.search(paragraph[:-1]), _FIRST_WORD.match(line)
            a, b = (tail.group().lower(), head.group()) if tail and head else ("", "")
            if f"{a}-{b}" not in words and (soft or a + b in words):
                return paragraph[:-1] + line  # a word hyphenated at the line's end
        # A compound or a number broken after its hyphen (printed as one when it was soft).
        return paragraph[:-1] + ("-" if soft else hyphen) + line
    if _cjk().match(paragraph[-1]) and _cjk().match(line[0]):
        return paragraph + line  # Chinese text re-wrapped: no space between the two lines
    tail, head = _LAST_WORD.search(paragraph), _FIRST_WORD.match(line)
    if tail and head:
        # A word cut at the margin without a hyphen (a writer breaking Latin text as it
        # breaks Chinese: "e" + "ven"): joined when the document prints the whole word
        # elsewhere and not both pieces.
        a, b = tail.group().lower(), head.group()
        if a + b in words and not (a in words and b in words):
            return paragraph + line
    return paragraph + " " + line


def _paragraphs(lines: list[_Line], words: frozenset[str] = frozenset()) -> list[str]:
    """A page's lines put back into paragraphs (see the module docstring)."""
    if not lines:
        return []
    heights = [ln.height for ln in lines if ln.height > 0]
    height = _median(heights) if heights else 10.0
    gaps = [
        a.bottom - b.top for a, b in zip(lines, lines[1:], strict=False)
        if 0 < a.bottom - b.top < 3 * height
    ]  # fmt: skip
    gap = _median(gaps) if gaps else height * 0.5
    margin_left = min(ln.left for ln in lines)
    margin_right = max(ln.right for ln in lines)

    def short(line: _Line) -> bool:  # it stops well short of the text's right edge
        return line.right < margin_right - 4 * height

    def heading(line: _Line) -> bool:  # a short numbered line (1.2 研究意义, 第二章 方法)
        return (
            short(line)
            and len(line.text) <= 40
            and bool(_HEADING_LINE.match(line.text))
            and not _SENTENCE_END.search(line.text)
        )

    def row(line: _Line) -> bool:  # a table's row, not a justified line
        # A justified line's spaces are alike (a word or an address too long for the next line
        # stretches them); one space, or none, tells nothing: its line runs to the right edge.
        edge = line.right >= margin_right - height
        return bool(line.cells) and not (line.spread or (len(line.cells) == 2 and edge))

    out: list[str] = []
    current = ""
    previous: _Line | None = None
    for line in lines:
        new = previous is None
        if previous is not None:
            space = previous.bottom - line.top
            indented = line.left > previous.left + 1.5 * height and line.left > margin_left + height
            resized = abs(line.size - previous.size) > 0.1 * max(line.size, previous.size)
            ended = bool(_SENTENCE_END.search(previous.text))
            new = (
                resized  # a heading and the text under it
                or heading(previous)  # the same, at the body's size and spacing
                or (ended and heading(line))  # a heading after a paragraph run to the edge
                or row(line)  # a table's row is a paragraph, and the table a block of its own
                or row(previous)
                or space > gap + 0.6 * height
                or space < -2 * height  # a new column, or a line above the last one
                or indented
                or (short(previous) and ended)
            )
        if new and current:
            out.append(current)
            current = ""
        current = _join(current, " | ".join(line.cells) if row(line) else line.text, words)
        previous = line
    if current:
        out.append(current)
    return out


def _edges(lines: list[_Line]) -> tuple[set[int], set[int]]:
    """The lines printed at the top and at the bottom of a page (within three line heights of
    the highest and the lowest), by position: PDF writers often draw headers and footers after
    the body, so they are not the first and last lines of the text."""
    boxed = [ln for ln in lines if ln.height > 0]
    if len(boxed) < 2:  # a page of one line has no header: the line is its text
        return set(), set()
    height = _median(ln.height for ln in boxed)
    highest = max(ln.top for ln in boxed)
    lowest = min(ln.bottom for ln in boxed)
    top = {k for k, ln in enumerate(lines) if ln.height > 0 and ln.top >= highest - 3 * height}
    bottom = {k for k, ln in enumerate(lines) if ln.height > 0 and ln.bottom <= lowest + 3 * height}
    return top, bottom


def _trimmed(pages: list[list[_Line]]) -> list[list[_Line]]:
    """Pages without running headers and footers (a line at the top or the bottom of a page
    whose text, digits aside, is there on most pages) and page numbers standing alone there."""
    edges = [_edges(lines) for lines in pages]
    seen: Counter[str] = Counter()
    for lines, (top, bottom) in zip(pages, edges, strict=True):
        seen.update({_DIGITS.sub("#", lines[k].text) for k in top | bottom})
    running = (
        {text for text, n in seen.items() if n >= max(3, 0.6 * len(pages))}
        if len(pages) >= 3
        else set()
    )
    out = []
    for lines, (top, bottom) in zip(pages, edges, strict=True):
        dropped = {
            k
            for k in top | bottom
            if _DIGITS.sub("#", lines[k].text) in running or _PAGE_NUMBER.match(lines[k].text)
        }
        out.append([ln for k, ln in enumerate(lines) if k not in dropped])
    return out


def pdf_text(data: bytes) -> tuple[str, Locations | None, int]:
    """The text of a PDF, the place of each page in it, and its number of pages."""
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:
        raise MissingExtraError("reading PDF", "docs") from exc
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise FormatError("encrypted (password-protected)") from exc
        raise FormatError(f"not a readable PDF ({exc})") from exc
    try:
        count = len(document)
        pages: list[list[_Line]] = []
        labels: list[str] = []
        for number in range(count):
            try:
                page = document[number]
            except pdfium.PdfiumError as exc:  # a page tree that loops, a damaged page
                raise FormatError(f"page {number + 1} cannot be read ({exc})") from exc
            textpage = page.get_textpage()
            try:
                pages.append(_page_lines(textpage))
            finally:
                textpage.close()
                page.close()
            label = document.get_page_label(number) or ""
            labels.append(f"{number + 1} ({label})" if label and label != str(number + 1)
                          else str(number + 1))  # fmt: skip
    finally:
        document.close()
    parts: list[str] = []
    starts: list[int] = []
    size = 0
    page_labels: list[str] = []
    pages = _trimmed(pages)
    words = _vocabulary(pages)
    for lines, label in zip(pages, labels, strict=True):
        paragraphs = _paragraphs(lines, words)
        if not paragraphs:
            continue
        if (
            parts
            and not _SENTENCE_END.search(parts[-1])
            and (paragraphs[0][:1].islower() or _cjk().match(paragraphs[0][:1] or " "))
        ):
            # The last paragraph of the page before goes on here: one paragraph, and the page
            # starts where its continuation does.
            first = paragraphs[0]
            joined = _join(parts[-1], first, words)
            starts.append(size - len(parts[-1]) + len(joined) - len(first))
            page_labels.append(label)
            size += len(joined) - len(parts[-1])
            parts[-1] = joined
            if len(paragraphs) > 1:
                parts.append("\n\n" + "\n\n".join(paragraphs[1:]))
                size += len(parts[-1])
            continue
        prefix = "\n\n" if parts else ""
        starts.append(size + len(prefix))
        page_labels.append(label)
        parts.append(prefix + "\n\n".join(paragraphs))
        size += len(parts[-1])
    # A soft hyphen left at a paragraph's end (the next line was none of its) is printed.
    text = _SOFT_END.sub("-", "".join(parts))
    locations = Locations("page", tuple(starts), tuple(page_labels)) if starts else None
    return text, locations, count


class PdfReader:
    """PDF documents."""

    name = "pdf"
    # 2: PDFium's line-end hyphen mark (U+FFFE) is the hyphen it stands for; a line whose
    # characters the file holds out of order is read in the order they are printed.
    # 3: a table's row is a paragraph, its cells parted by " | "; a numbered heading after a
    # sentence's end (citation markers after it included) starts a paragraph (issue 47).
    # 4: a line ending in a hyphen is a printed line (PDFium runs it on into the next one: the
    # two were read as one, letters interleaved); a hyphen the writer's hyphenation added is
    # dropped when the word is joined, the text's own kept (issue 48).
    version = "4"
    extensions: tuple[str, ...] = (".pdf",)
    marks: tuple[bytes, ...] = (b"%PDF-",)
    contained = True
    libraries: tuple[str, ...] = ("pypdfium2",)

    def sniff(self, head: bytes) -> bool:
        # The header may follow a little junk (the specification allows 1,024 bytes).
        return b"%PDF-" in head[:1024]

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        text, locations, pages = pdf_text(data)
        if not text.strip():
            why = "no text layer (a scanned PDF? simdup reads text, not images)"
            yield SkippedFile(path, "decode", why if pages else "a PDF without pages")
            return
        yield DecodedDocument(path, text, "pdf", "pdfium", 1.0, len(data), locations)
