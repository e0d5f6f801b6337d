"""simdup.readers.pdf: a PDF's printed lines put back into its blocks: headings, paragraphs and
table rows (issue 47), each line read as printed, words broken at a line's end whole again
(issue 48). The fixtures are in ``data/formats`` (``make.sh`` remakes them): ``structure-lo.pdf``
is LibreOffice's PDF of ``structure.md``; ``essay-lo.pdf`` and ``essay-chromium.pdf`` are
LibreOffice's and Chromium's of ``essay.md``, hyphenated in a narrow column."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.readers import read_document
from simdup.records import DecodedDocument
from simdup.text.textscan import CJK_RANGE
from tests.conftest import DATA

pytest.importorskip("pypdfium2", reason='the docs extra: pip install "simdup[docs]"')

FORMATS = DATA / "formats"
STRUCTURE = FORMATS / "structure-lo.pdf"
ESSAYS = ("essay-lo.pdf", "essay-chromium.pdf")
BODY = "在论文写作和资料整理的过程中，我们经常需要判断两篇文档是否在本质上是同一份文字，"


def paragraphs(path: str) -> list[str]:
    found = read_document(path, 1 << 26)
    assert isinstance(found, DecodedDocument), found
    return found.text.split("\n\n")


def test_a_heading_after_a_citation_marker_is_a_paragraph_of_its_own() -> None:
    """A paragraph ending in a citation marker (``冲动。[2]``) and a numbered heading under it
    at the body's size (a bold ``1.2 研究意义``) are two paragraphs: the heading was glued to
    the paragraph's end (``冲动。[2] 1.2 研究意义``)."""
    read = paragraphs(str(STRUCTURE))
    assert "1.2 研究意义" in read
    assert any(p.startswith("网络上的文字") and p.endswith("也带来了抄袭的冲动。[2]") for p in read)
    assert read.index("1.2 研究意义") == read.index("1.1 研究背景") + 2
    assert any(p.endswith("可以复核的比例和位置。[3,4]") for p in read)
    assert "1.3 论文结构" in read


def test_a_table_is_a_block_of_its_own() -> None:
    """A table's rows are paragraphs, cells parted by " | " as the Word, OpenDocument, HTML and
    EPUB readers write them; the paragraph under the table is one of its own (it was joined to
    the table's last row, and the rows to each other)."""
    read = paragraphs(str(STRUCTURE))
    rows = ["方法 | 指纹长度 | 召回率", "SimHash | 64 位 | 0.97", "MinHash | 128 个 | 0.98"]
    start = read.index(rows[0])
    assert read[start : start + 3] == rows
    after = read[start + 3]  # the paragraph under the table
    assert after.startswith("表中的数字来自同一个数据集") and "0.98" not in after
    assert read[start - 1].endswith("各章的实验数据见下表。")


def test_a_numbered_heading_after_a_full_line_ending_a_sentence_starts_a_paragraph() -> None:
    """A paragraph whose last line runs to the right edge (so it is no short line) and ends a
    sentence, citation markers after it included, is followed by a heading at the body's size
    and spacing: the heading is a paragraph. A line opening with a number inside a sentence
    (the previous line ends mid-sentence) still continues its paragraph."""
    from simdup.readers.pdf import _Line, _paragraphs

    for marker in ("[2]", "[2-4]", "[3, 5]", ""):
        lines = [
            _Line(BODY, 72, 700, 520, 712, 12),
            _Line(BODY[:-1] + "。" + marker, 72, 684, 520, 696, 12),
            _Line("1.2 研究意义", 72, 668, 150, 680, 12),
            _Line(BODY, 72, 652, 520, 664, 12),
        ]
        assert _paragraphs(lines) == [BODY + BODY[:-1] + "。" + marker, "1.2 研究意义", BODY]
    continued = [
        _Line(BODY, 72, 700, 520, 712, 12),
        _Line("12 个样本中有九个。", 72, 684, 200, 696, 12),
    ]
    assert _paragraphs(continued) == [BODY + " 12 个样本中有九个。"]


def test_a_justified_paragraph_stretched_by_an_address_reads_whole() -> None:
    """Chromium's justified paragraph whose first line a long web address stretches (spaces of
    two ems, all alike, and the address running past the right edge) is one paragraph, with no
    cell marks."""
    read = paragraphs(str(DATA / "formats" / "justified.pdf"))
    assert read == [
        "The reference is available at "
        "https://example.org/a/very/long/path/that/cannot/break/anywhere/at/all "
        "and more words follow here to fill the line with running text."
    ]


def test_a_justified_line_is_no_table_row() -> None:
    """Wide gaps make a row only where they differ: a justified line stretches all its spaces
    alike and stays in its paragraph, as text; a line with one wide space is a row only when it
    stops short of the right edge. Cells part at gaps over an em, words of a cell at a space."""
    from simdup.readers.pdf import _cells, _Line, _paragraphs

    def placed(*runs: tuple[float, str]) -> list[tuple[float, float, float, float, str]]:
        out = []
        for left, word in runs:
            for k, char in enumerate(word):
                out.append((left + 6 * k, 700.0, left + 6 * k + 5, 710.0, char))
            out.append((left + 6 * len(word), 700.0, left + 6 * len(word), 700.0, " "))
        return out[:-1]

    row = placed((72, "SimHash"), (200, "64"), (218, "bits"), (400, "0.97"))
    assert _cells(row, em=10) == (("SimHash", "64 bits", "0.97"), False)
    justified = placed((72, "Available"), (300, "at"), (486, "the"))  # gaps 175 and 175
    cells, spread = _cells(justified, em=10)
    assert cells == ("Available", "at", "the") and spread
    assert _cells(placed((72, "a"), (80, "plain"), (112, "line")), em=10)[0] == ()  # spaces only

    lines = [
        _Line("The reference is", 72, 716, 546, 728, 10),
        _Line("Available at the", 72, 700, 546, 710, 10, cells, spread),
        _Line("end of the paragraph.", 72, 684, 200, 694, 10),
    ]
    assert _paragraphs(lines) == ["The reference is Available at the end of the paragraph."]
    lines[1].spread = False  # the same gaps, unalike: a row
    assert _paragraphs(lines) == [
        "The reference is",
        "Available | at | the",
        "end of the paragraph.",
    ]
    two, spread = _cells(placed((72, "Available"), (500, "at")), em=10)
    assert two == ("Available", "at") and not spread  # one space: alike tells nothing
    lines[1] = _Line("Available at", 72, 700, 546, 710, 10, two, spread)
    assert _paragraphs(lines) == ["The reference is Available at end of the paragraph."]
    lines[1].right = 300  # short of the edge: two cells
    assert _paragraphs(lines)[1] == "Available | at"


def test_a_page_ending_in_a_citation_marker_ends_its_paragraph(tmp_path: Path) -> None:
    """A page whose last line ends a sentence and a citation marker after it (``end.[2]``) ends
    its paragraph: the next page's first line, lower case, opens another one. A page ending
    mid-sentence still goes on over the page break."""
    from tests.pdfs import text_content, write_pdf

    def read(first_page_end: str) -> list[str]:
        path = tmp_path / "cited.pdf"
        pages = [["The first page of the text", first_page_end], ["another paragraph starts."]]
        path.write_bytes(write_pdf([text_content(lines) for lines in pages]))
        return paragraphs(str(path))

    assert read("ends a sentence.[2]") == [
        "The first page of the text ends a sentence.[2]",
        "another paragraph starts.",
    ]
    assert read("and so on") == ["The first page of the text and so on another paragraph starts."]


# A letter of the text: a Latin letter, a digit, a CJK character (spaces, punctuation, hyphens and
# cell marks are the reader's to place).
_LETTER = re.compile(f"[A-Za-z0-9{CJK_RANGE}]")


def _whole_lines(run: str, lines: list[str]) -> bool:
    """Whether ``run`` is the letters of whole lines, one after another."""
    return not run or any(
        line and run.startswith(line) and _whole_lines(run[len(line) :], lines) for line in lines
    )


@pytest.mark.parametrize("name", sorted(p.name for p in FORMATS.glob("*.pdf")))
def test_every_page_reads_as_pdfium_prints_it(name: str) -> None:
    """On every PDF fixture (LibreOffice's and Chromium's; English hyphenated, Chinese, both
    mixed), each page's text reads, letter by letter, as PDFium's own text of the page
    (pypdfium2's ``get_text_range()``), less whole lines it drops (running headers and
    footers, page numbers): no letter moved, none added. The lines of a line ending in a
    hyphen were read as one and sorted left to right: ``pcoosotr,l yte`` (issue 48)."""
    import pypdfium2 as pdfium

    found = read_document(str(FORMATS / name), 1 << 26)
    assert isinstance(found, DecodedDocument) and found.locations is not None
    starts = [*found.locations.starts, len(found.text)]
    document = pdfium.PdfDocument(str(FORMATS / name))
    try:
        for k, label in enumerate(found.locations.labels):
            textpage = document[int(label.split()[0]) - 1].get_textpage()
            printed = textpage.get_text_range()
            theirs = _LETTER.findall(printed)
            ours = _LETTER.findall(found.text[starts[k] : starts[k + 1]])
            lines = ["".join(_LETTER.findall(line)) for line in printed.split("\r\n")]
            match = difflib.SequenceMatcher(None, theirs, ours, autojunk=False)
            for op, i1, i2, j1, j2 in match.get_opcodes():
                assert op in ("equal", "delete"), (label, theirs[i1:i2], ours[j1:j2])
                if op == "delete":
                    assert _whole_lines("".join(theirs[i1:i2]), lines), (label, theirs[i1:i2])
            assert len(ours) >= 0.9 * len(theirs), label
    finally:
        document.close()


_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("essay-lo.pdf", "essay.md"),
        ("essay-chromium.pdf", "essay.md"),
        ("table-lo.pdf", "table.md"),
    ],
)
def test_an_english_pdf_hyphenated_at_line_ends_reads_as_its_source(name: str, source: str) -> None:
    """An English essay printed in a narrow column, long words hyphenated and compounds broken
    after their own hyphen, reads word for word as its Markdown source: ``pro-`` + ``gram``
    is ``program``, ``well-`` + ``designed`` is ``well-designed``; so does a table whose cells
    wrap after a compound's hyphen. PDFium marks a hyphen ending a line U+FFFE and gives no
    line break after it: 157 of 924 words came out as letter salad (issue 48)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(FORMATS / name))
    try:  # the fixture has lines ending in the text's own hyphen, which PDFium marks
        marks = sum(page.get_textpage().get_text_range().count("\ufffe") for page in document)
    finally:
        document.close()
    assert marks >= 2
    read = "\n\n".join(paragraphs(str(FORMATS / name)))
    written = (FORMATS / source).read_text(encoding="utf-8")
    assert _WORD.findall(read) == _WORD.findall(written)
    assert "\ufffe" not in read and "\u00ad" not in read and "\u2010" not in read


def test_a_table_cell_wrapped_after_a_hyphen_reads_whole() -> None:
    """A LibreOffice table whose cell wraps after the hyphen of ``well-known`` and of
    ``near-duplicate``: the cell's lines read in order, the compounds whole, and the row's
    cells parted by " | " as before. The cell's lines were read as one, letters sorted by x:
    ``bkdnuetopwwliecnea`` (issue 48)."""
    read = paragraphs(str(FORMATS / "table-lo.pdf"))
    assert "Check | What it does | Result" in read
    assert "compare | compares two documents and" in read
    assert (
        "reports the shared passages between them, including the well-known and long-standing"
        " near-duplicate cases that earlier versions missed"
    ) in read
    assert read[-1].endswith("a state-of-the-art, well-designed reader does.")


def test_an_essay_reads_its_compounds_and_hyphenated_words_whole() -> None:
    """Both kinds of line-end hyphen in one sentence of LibreOffice's essay: ``pro-`` +
    ``gram`` (hyphenation's, printed apart from the word) and ``well-organ-`` + ``ised``
    after ``well-designed`` (the text's own, in the word's run)."""
    for name in ESSAYS:
        read = "\n\n".join(paragraphs(str(FORMATS / name)))
        assert "A well-designed program reads like a well-organised essay" in read, name
        assert "its structure is self-evident, its names are easy-to-remember" in read, name


@pytest.mark.parametrize("name", ESSAYS)
def test_a_hyphenated_pdf_is_found_a_copy_of_its_source(name: str) -> None:
    """``compare`` calls the PDF and its Markdown source near-duplicates, and ``check
    --exact-only`` finds all of it copied (they were "not near-duplicates", Jaccard 0.18, and
    16% copied; issue 48)."""
    pdf, source = str(FORMATS / name), str(FORMATS / "essay.md")
    runner = CliRunner()
    compared = runner.invoke(cli, ["compare", pdf, source, "-f", "json"])
    assert compared.exit_code == 0, compared.output
    assert json.loads(compared.stdout)["near_duplicate"] is True
    checked = runner.invoke(cli, ["check", pdf, "--against", source, "--exact-only", "-f", "json"])
    assert checked.exit_code in (0, 1), checked.output
    (document,) = json.loads(checked.stdout)["documents"]
    assert document["copy_ratio"] >= 0.99
    assert document["largest_source"] == source


def test_a_line_end_hyphen_is_dropped_or_kept_as_printed() -> None:
    """A soft hyphen (one the writer's hyphenation printed apart from the word) joins the word
    without it; a hyphen in the word's run is the text's and stays; the document's words
    overrule either when they print the word whole (a TeX-like writer's hyphenation in the
    word's run; a compound broken after an italic piece)."""
    from simdup.readers.pdf import _join, _Line, _spans, _vocabulary

    assert _join("a pro\u00ad", "gram reads") == "a program reads"
    assert _join("a well-", "designed one") == "a well-designed one"
    assert _join("Anglo-", "Saxon law") == "Anglo-Saxon law"
    assert _join("a pro-", "gram reads", frozenset({"program"})) == "a program reads"
    assert _join("a well\u00ad", "designed", frozenset({"well-designed"})) == "a well-designed"
    # Not between two letters: no hyphenation, the hyphen (a minus) printed, and no space.
    assert _join("pages 12-", "15 of") == "pages 12-15 of"
    assert _join("等于\u00ad", "128；-129") == "等于-128；-129"  # apart: another font's run
    assert _join("a list -", "and more") == "a list - and more"  # a dash, not a hyphen
    lines = [_Line("a well-designed program and a pro- gram", 0, 0, 0, 0)]
    words = {"well-designed", "well", "designed", "program", "and", "a", "pro"}
    assert _vocabulary([lines]) == words
    # PDFium runs a line ending in a hyphen on into the next: it is a printed line all the same.
    text = " A well\ufffedesigned pro\ufffegram\r\nreads. \r\n\r\n"
    printed = ["A well\ufffe", "designed pro\ufffe", "gram", "reads."]
    assert [text[a : b + 1] for a, b in _spans(text)] == printed


def test_a_hyphen_printed_in_the_words_run_is_decided_by_the_documents_words(
    tmp_path: Path,
) -> None:
    """A writer that prints every hyphen in the word's run (as TeX prints its hyphenation)
    gives no sign which hyphen is the text's: ``pro-`` + ``gram`` is joined, since the
    document prints ``program`` whole; ``well-`` + ``designed`` keeps its hyphen."""
    from tests.pdfs import text_content, write_pdf

    path = tmp_path / "runs.pdf"
    lines = [
        "A program is read more often than written; a well-",
        "designed program reads well, and a pro-",
        "gram written in haste is not read at all.",
    ]
    path.write_bytes(write_pdf([text_content(lines)]))
    assert paragraphs(str(path)) == [
        "A program is read more often than written; a well-designed program reads well, and"
        " a program written in haste is not read at all."
    ]


@pytest.mark.parametrize("name", sorted(p.name for p in FORMATS.glob("*.pdf")))
def test_each_character_read_is_the_one_pdfium_places(name: str) -> None:
    """The reader pairs character k of a page's text with PDFium's box k: PDFium counts a
    character beyond the BMP (𠮷, ``astral-lo.pdf``) as two, the decoded text as one, and
    every box after it was the next character's (a page of code read as ``tring.fSrom``)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    from simdup.readers.pdf import _page_text

    document = pdfium.PdfDocument(str(FORMATS / name))
    try:
        for page in document:
            textpage = page.get_textpage()
            count = textpage.count_chars()
            text = _page_text(textpage, count)
            assert len(text) == count
            for k, char in enumerate(text):
                if _LETTER.match(char):
                    assert chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, k)) == char, (k, char)
    finally:
        document.close()
