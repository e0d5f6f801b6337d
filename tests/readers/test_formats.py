"""Documents as people hold them: PDF, Word (.docx and .doc), OpenDocument, EPUB, RTF, HTML.

The fixtures in ``data/formats`` were made from ``source.md`` by the writers people use
(``make.sh``: pandoc, LibreOffice, Chromium): they must read as the same text, fall into one
cluster, and name their pages and paragraphs in every report. Hostile files (bombs, loops,
encrypted and scanned PDFs) are in the bad-input catalogue
(``tests/contract/test_bad_inputs.py``); the files built here by hand are the cases no
writer makes on purpose.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import re
import shutil
import signal
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simdup
import simdup.readers
from simdup.cli import cli
from simdup.readers import read_document, read_named, set_limits
from simdup.readers.base import ReadLimits
from simdup.readers.contained import ReadFailed, ReadingProcess, read_contained
from simdup.readers.plain import PlainTextReader
from simdup.records import DecodedDocument, Locations, Place, SkippedFile
from tests.conftest import DATA
from tests.pdfs import text_content, write_pdf

pytest.importorskip("pypdfium2", reason='the docs extra: pip install "simdup[docs]"')
pytest.importorskip("lxml", reason='the docs extra: pip install "simdup[docs]"')

FIXTURES = DATA / "formats"
FAMILY = ("thesis.pdf", "thesis-lo.pdf", "thesis.docx", "thesis.doc", "thesis.odt",
          "thesis.epub", "thesis.html", "thesis.rtf")  # fmt: skip
# Sentences of source.md that every reader must give whole (in a PDF and a .doc, Chinese lines
# re-wrapped at the margin are joined again).
SENTENCES = (
    "我们经常需要判断两篇文档是否在本质上是同一份文字",
    "Exact comparison of bytes fails as soon as a single character changes",
    "第三，我们对候选对进行二次校验，用长度比例和词集合的相似度排除误报。",
    "Weighting by inverse document frequency lowers the influence of words",
)
KINDS = {".pdf": "page", ".docx": "paragraph", ".doc": "paragraph", ".odt": "paragraph",
         ".epub": "chapter", ".html": "line", ".rtf": "paragraph"}  # fmt: skip
SKIP_DOC = shutil.which("antiword") is None


def family(tmp_path: Path, names: tuple[str, ...] = FAMILY) -> Path:
    """The fixtures ``names`` copied into a folder of their own."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in names:
        if name == "thesis.doc" and SKIP_DOC:
            continue
        shutil.copy(FIXTURES / name, folder / name)
    return folder


def read(name: str) -> DecodedDocument:
    found = read_document(str(FIXTURES / name), 1 << 26)
    assert isinstance(found, DecodedDocument), found
    return found


def collapsed(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", FAMILY)
def test_every_writer_s_file_reads_as_its_text(name: str) -> None:
    if name == "thesis.doc" and SKIP_DOC:
        pytest.skip("antiword is not installed (apt-get install antiword)")
    doc = read(name)
    text = collapsed(doc.text)
    if name == "thesis-lo.pdf":
        # LibreOffice breaks the Latin words of a zh-CN document anywhere, as it breaks Chinese
        # ("e" at a line's end, "ven" on the next): a word printed whole nowhere else in the
        # document cannot be told from two words.
        text = text.replace(" ", "")
    for sentence in SENTENCES:
        assert (sentence.replace(" ", "") if name == "thesis-lo.pdf" else sentence) in text
    assert doc.locations is not None and doc.locations.kind == KINDS[Path(name).suffix]
    assert doc.locations.starts[0] == 0
    assert doc.encoding == Path(name).suffix.lstrip(".") or name.endswith((".html", ".rtf"))


def test_a_pdf_reads_as_a_reader_sees_it() -> None:
    """Chromium's PDF: lines re-joined into paragraphs, the running header and footer gone,
    the printed page labels (front matter i, then 1, 2) kept beside the page numbers."""
    doc = read("thesis.pdf")
    assert "学位论文草稿" not in doc.text and "Draft for review" not in doc.text
    assert doc.locations is not None
    assert doc.locations.labels == ("1 (i)", "2 (1)", "3 (2)")
    paragraphs = doc.text.split("\n\n")
    assert any(p.startswith("在论文写作") and p.endswith("混合文本上的表现。") for p in paragraphs)
    # The page a sentence is printed on.
    at = doc.text.index("第二章 方法")
    assert doc.locations.at(at) in ("2 (1)", "3 (2)")
    assert doc.locations.at(0) == "1 (i)"


def test_a_word_file_numbers_its_paragraphs_and_keeps_its_headings() -> None:
    doc = read("thesis.docx")
    assert "# 第一章 引言" in doc.text and "## 1.1 研究背景" in doc.text
    assert doc.locations is not None
    first = doc.text.index("# 第一章 引言")
    assert doc.locations.at(first) == "2"  # after the title
    # The footnote follows the body.
    assert doc.text.index("Manku, Jain and Das Sarma") > doc.text.index("第四章 结论")


def test_an_epub_names_its_chapters() -> None:
    doc = read("thesis.epub")
    assert doc.locations is not None
    assert doc.locations.at(doc.text.index("第二章 方法")) == '3 ("第二章 方法")'


def _docx_with(body: str) -> bytes:
    """The pandoc fixture with ``body`` as the paragraphs of its document."""
    source = zipfile.ZipFile(FIXTURES / "thesis.docx")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "word/document.xml":
                text = data.decode()
                start = text.index("<w:body>") + len("<w:body>")
                end = text.index("<w:sectPr")
                data = (text[:start] + body + text[end:]).encode()
            target.writestr(item, data)
    return out.getvalue()


def test_tracked_insertions_are_in_and_deletions_out(tmp_path: Path) -> None:
    body = (
        "<w:p><w:r><w:t>The draft says </w:t></w:r>"
        '<w:ins w:id="1" w:author="A"><w:r><w:t>what was added </w:t></w:r></w:ins>'
        '<w:del w:id="2" w:author="A"><w:r><w:delText>what was removed </w:delText></w:r></w:del>'
        "<w:r><w:t>and the rest.</w:t></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell one</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>cell two</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    )
    path = tmp_path / "changes.docx"
    path.write_bytes(_docx_with(body))
    doc = read_document(str(path), 1 << 26)
    assert isinstance(doc, DecodedDocument)
    assert "The draft says what was added and the rest." in doc.text
    assert "removed" not in doc.text
    assert "cell one" in doc.text and "cell two" in doc.text


def test_html_gives_the_visible_text_only(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style>"
        "<script>var hidden = 'script text';</script></head><body>\n"
        "<h2>Visible heading</h2>\n<p>Seen paragraph with <b>bold</b> words.</p>\n"
        '<p hidden>hidden paragraph</p><div style="display: none">invisible div</div>\n'
        "<noscript>noscript text</noscript></body></html>\n",
        encoding="utf-8",
    )
    doc = read_document(str(page), 1 << 26)
    assert isinstance(doc, DecodedDocument)
    assert "## Visible heading" in doc.text
    assert "Seen paragraph with bold words." in doc.text
    for gone in ("script text", "color: red", "hidden paragraph", "invisible div"):
        assert gone not in doc.text
    assert doc.locations is not None and doc.locations.kind == "line"
    assert doc.locations.at(doc.text.index("Seen")) == "3"  # the source line of the <p>


def test_a_folder_of_every_format_is_one_cluster(tmp_path: Path) -> None:
    folder = family(tmp_path)
    (folder / "other.txt").write_text(
        "An unrelated note about gardening: tomatoes need sun, water and patience.\n"
        "Basil grows well beside them, and marigolds keep some insects away.\n"
        "Plant beans after the last frost; they climb any fence or string you offer.\n"
        "Compost from kitchen scraps feeds the soil through winter and spring.\n",
        encoding="utf-8",
    )
    result = simdup.scan([folder])
    names = {Path(f.path).name for f in result.files}
    expected = {n for n in FAMILY if not (n == "thesis.doc" and SKIP_DOC)}
    assert names == expected | {"other.txt"}, result.skipped
    assert len(result.clusters) == 1
    members = {Path(m.path).name for m in result.clusters[0].members}
    assert members == expected
    described = result.settings["readers"]
    assert described["pdf"].startswith("4 (pypdfium2 ")


@pytest.mark.parametrize(("a", "b"), [("thesis.docx", "thesis.pdf"), ("thesis.epub", "thesis.odt")])
def test_compare_across_formats_names_the_places(tmp_path: Path, a: str, b: str) -> None:
    runner = CliRunner()
    args = ["compare", str(FIXTURES / a), str(FIXTURES / b), "--passages"]
    text = runner.invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "near-duplicate" in text.stdout
    labels = {"thesis.docx": "¶ ", "thesis.pdf": "pp. 1 (i)-3 (2)", "thesis.epub": "ch. ",
              "thesis.odt": "¶ "}  # fmt: skip
    assert f"{a} {labels[a]}" in text.stdout and f"{b} {labels[b]}" in text.stdout
    machine = runner.invoke(cli, [*args, "--format", "json"])
    assert machine.exit_code == 0, machine.output
    passages = json.loads(machine.stdout)["passages"]
    assert passages
    for side, name in (("a", a), ("b", b)):
        place = passages[0][side]["place"]
        assert place["kind"] == KINDS[Path(name).suffix]
        assert {"first", "last"} <= set(place)


def test_scan_passages_carry_places_in_every_format(tmp_path: Path) -> None:
    """A chapter copied from the Word file into a plain text: the passage names the Word
    paragraphs in text, JSON, SARIF and HTML."""
    folder = family(tmp_path, ("thesis.docx",))
    source = (FIXTURES / "source.md").read_text(encoding="utf-8")
    chapter = source[source.index("# 第二章") : source.index("# 第三章")]
    (folder / "notes.md").write_text(
        "# Reading notes\n\n"
        + "\n\n".join(f"Note {n}: a remark on gardening, weather and trains." for n in range(30))
        + "\n\n"
        + chapter,
        encoding="utf-8",
    )
    runner = CliRunner()
    out = tmp_path / "out"
    out.mkdir()
    for fmt in ("text", "json", "sarif", "html"):
        target = out / f"report.{fmt}"
        result = runner.invoke(
            cli,
            ["scan", str(folder), "--passages", "--no-cache", "-f", fmt, "-o", str(target)],
        )
        assert result.exit_code in (0, 1), result.output
        written = target.read_text(encoding="utf-8")
        if fmt == "json":
            spans = [
                s for p in json.loads(written)["passages"] for s in (p["a"], p["b"])
            ]
            placed = [s for s in spans if s["path"].endswith("thesis.docx")]
            assert placed and all(s["place"]["kind"] == "paragraph" for s in placed)
            # Markdown is read as rendered: its lines are placed by the file's lines.
            notes = [s for s in spans if s["path"].endswith("notes.md")]
            assert notes and all(s["place"]["kind"] == "line" for s in notes)
        else:
            assert "thesis.docx ¶ " in written or "(¶ " in written, (fmt, written[:2000])


def test_compare_explain_places_the_changed_lines(tmp_path: Path) -> None:
    edited = tmp_path / "edited.md"
    source = (FIXTURES / "source.md").read_text(encoding="utf-8")
    edited.write_text(source.replace("# 第四章 结论", "# 第四章 总结与展望"), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["compare", str(FIXTURES / "thesis.pdf"), str(edited), "--explain", "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    hunks = json.loads(result.stdout)["diff"]
    assert hunks and all(h["a_place"]["kind"] == "page" for h in hunks if "a_place" in h)
    assert any(h.get("a_place", {}).get("first") == "3 (2)" for h in hunks)
    text = CliRunner().invoke(
        cli, ["compare", str(FIXTURES / "thesis.pdf"), str(edited), "--explain"]
    )
    assert "(p. 3 (2))" in text.stdout


def test_places_are_labelled_for_reports() -> None:
    assert Place("page", "12 (iv)", "12 (iv)").label() == "p. 12 (iv)"
    assert Place("page", "3", "4").label() == "pp. 3-4"
    assert Place("paragraph", "41", "43").label() == "¶ 41-43"
    assert Place("line", "7", "7").label() == "line 7"
    where = Locations("page", (0, 100, 250), ("1", "2", "3"))
    assert where.place(10, 120) == Place("page", "1", "2")
    assert where.place(100, 250) == Place("page", "2", "2")  # the end is exclusive


def test_without_the_extra_a_file_is_a_skip_naming_the_install_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No pypdfium2 or lxml: each such file is a skip record, and the summary says in one line
    what to install; text files are scanned as ever."""
    real_import = builtins.__import__

    def without_docs(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in ("pypdfium2", "lxml"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_docs)
    folder = family(tmp_path, ("thesis.pdf", "thesis.docx", "thesis.epub", "source.md"))
    result = CliRunner().invoke(cli, ["scan", str(folder), "--no-cache", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count('pip install "simdup[docs]"') == 1, result.stderr
    assert '3 files (DOCX, EPUB, PDF) need an optional dependency: pip install "simdup[docs]"' in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    scanned = simdup.scan([folder], jobs=1)
    assert [Path(f.path).name for f in scanned.files] == ["source.md"]
    assert all('pip install "simdup[docs]"' in s.reason for s in scanned.skipped)


def test_a_reader_that_hangs_or_crashes_costs_a_skip_not_the_run() -> None:
    limits = ReadLimits(seconds=0.5, memory=1 << 30)
    started = time.monotonic()
    with pytest.raises(ReadFailed, match="longer than the read time limit"):
        read_contained(lambda: time.sleep(30), limits)
    assert time.monotonic() - started < 5
    with pytest.raises(ReadFailed, match="crashed"):
        read_contained(lambda: os.kill(os.getpid(), signal.SIGSEGV), limits)
    with pytest.raises(ReadFailed, match="read memory limit"):
        read_contained(lambda: bytearray(2 << 30), limits)
    assert read_contained(lambda: "fine", limits) == "fine"


def test_a_slow_pdf_is_skipped_at_the_read_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import simdup.readers.pdf as pdf_module

    real = pdf_module.pdf_text

    def slow(data: bytes) -> Any:
        time.sleep(30)
        return real(data)

    monkeypatch.setattr(pdf_module, "pdf_text", slow)
    path = tmp_path / "slow.pdf"
    path.write_bytes(write_pdf([text_content(["a page of text"] * 3)]))
    set_limits(ReadLimits(seconds=0.5))
    try:
        started = time.monotonic()
        found = read_document(str(path), 1 << 26)
    finally:
        set_limits(ReadLimits())
    assert isinstance(found, SkippedFile)
    assert found.reason == "PDF: took longer than the read time limit (0.5 s)"
    assert time.monotonic() - started < 5


def test_ten_thousand_pages_are_read_within_the_limits(tmp_path: Path) -> None:
    pages = [
        text_content([f"Page {n} tells of item{n} and thing{n * 7 % 101} among others."])
        for n in range(10_000)
    ]
    path = tmp_path / "long.pdf"
    path.write_bytes(write_pdf(pages, compress=True))
    doc = read_named(str(path), 1 << 26)
    assert doc.locations is not None and len(doc.locations.starts) == 10_000
    assert doc.locations.at(doc.text.index("Page 9999 ")) == "10000"


def test_reading_never_writes_the_files_read(tmp_path: Path) -> None:
    folder = family(tmp_path)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    simdup.scan([folder])
    CliRunner().invoke(cli, ["compare", str(folder / "thesis.pdf"), str(folder / "thesis.docx")])
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    assert after == before


def test_the_readers_and_their_libraries_are_in_every_report(tmp_path: Path) -> None:
    folder = family(tmp_path, ("thesis.docx", "source.md"))
    result = CliRunner().invoke(cli, ["scan", str(folder), "--no-cache", "-f", "json"])
    settings = json.loads(result.stdout)["settings"]
    assert settings["readers"]["docx"].startswith("2 (lxml ")
    assert settings["readers"]["text"].startswith(f"{PlainTextReader.version} (chardet ")
    assert settings["read_timeout"] == 60.0 and settings["read_memory"] == 2 << 30


def test_an_epub_chapter_that_is_not_xml_is_read_as_html(tmp_path: Path) -> None:
    """pandoc passes raw HTML (an unclosed ``<br>``) into a chapter: an e-reader shows it, and
    so does simdup, rather than skipping the book."""
    source = zipfile.ZipFile(FIXTURES / "thesis.epub")
    chapters = [n for n in source.namelist() if n.endswith(".xhtml") and "ch003" in n]
    assert chapters, source.namelist()
    out = tmp_path / "loose.epub"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == chapters[0]:
                data = data.replace(b"<p>", b"<p>An unclosed break<br>here. ", 1)
            target.writestr(item, data)
    doc = read_document(str(out), 1 << 26)
    assert isinstance(doc, DecodedDocument), doc
    assert "An unclosed break" in doc.text and "第二章 方法" in doc.text


def _serve_for_test(request: str) -> Any:
    """What a reading child does in the test below, by request."""
    if request == "pid":
        return os.getpid()
    if request == "sleep":
        time.sleep(30)
    if request == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if request == "memory":
        return len(bytearray(2 << 30))
    if request == "error":
        raise ValueError("a reader's own error")
    return request


def test_a_reading_child_reads_file_after_file_and_is_replaced_after_a_failure() -> None:
    """A scan's reading child (``ReadingProcess``) serves one file after another; one that
    runs out of time, crashes or runs out of memory is replaced for the next file, and a
    reader's own error keeps it."""
    limits = ReadLimits(seconds=1.0, memory=1 << 30)
    child = ReadingProcess(_serve_for_test)
    try:
        first = child.call("pid", limits)
        assert first != os.getpid() and child.call("pid", limits) == first
        with pytest.raises(ReadFailed, match="a reader's own error"):
            child.call("error", limits)
        assert child.call("pid", limits) == first
        started = time.monotonic()
        with pytest.raises(ReadFailed, match="longer than the read time limit"):
            child.call("sleep", limits)
        assert time.monotonic() - started < 5
        second = child.call("pid", limits)
        assert second != first
        with pytest.raises(ReadFailed, match="crashed"):
            child.call("crash", limits)
        third = child.call("pid", limits)
        assert third not in (first, second)
        with pytest.raises(ReadFailed, match="read memory limit"):
            child.call("memory", limits)
        assert child.call("pid", limits) != third
        assert child.call({"a": b"bytes" * 100_000}, limits) == {"a": b"bytes" * 100_000}
    finally:
        child.close()
    assert child.pid == 0


def test_a_scan_reads_its_documents_in_one_reading_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import simdup.readers.contained as contained

    forks = []
    real = contained.ReadingProcess._start

    def counted(self: Any, limits: ReadLimits) -> None:
        forks.append(limits)
        real(self, limits)

    monkeypatch.setattr(contained.ReadingProcess, "_start", counted)
    folder = family(tmp_path)
    result = simdup.scan([folder], jobs=1)
    assert len(result.files) == len(list(folder.iterdir()))
    assert len(forks) == 1
    assert simdup.readers._SESSION is None  # closed with the run


def test_one_thesis_has_the_same_sections_in_every_format() -> None:
    """The title above the chapters is no section in any reader (Word's Title style, pandoc's
    HTML title, a PDF's first line): a check of the DOCX and of the PDF gives the same
    chapter ratios (issue 33)."""
    from simdup.checking.rules import sections

    expected = ["", "第一章 引言", "第二章 方法", "第三章 实验", "第四章 结论"]
    for ext in ("docx", "odt", "epub", "html", "rtf", "pdf", "doc"):
        if ext == "doc" and SKIP_DOC:
            continue
        doc = read(f"thesis.{ext}")
        assert [s.title for s in sections(doc.text)] == expected, ext


def test_a_word_hyphenated_at_a_line_end_is_one_word_again() -> None:
    """A PDF printed with hyphenation (Chromium's U+2010 at line ends) reads as the words
    written; PDFium's own mark of such a hyphen (U+FFFE, shown as a box) never reaches the
    text (issue 33; a line ending in U+FFFE is a printed line's end: issue 48, in
    ``test_pdf.py``)."""
    doc = read("hyphenated.pdf")
    assert "spatiotemporal" in doc.text and "investigations." in doc.text
    assert "\u2010" not in doc.text and "\ufffe" not in doc.text


@pytest.mark.parametrize(
    "name",
    ["thesis.docx", "thesis.odt", "thesis.html", "thesis.epub", "thesis.pdf", "thesis-lo.pdf"],
)
def test_a_table_reads_across_a_row_at_a_time(name: str) -> None:
    """A table row is one paragraph, its cells separated by " | ", in Word, OpenDocument,
    HTML and EPUB alike (it came out one cell per line; issue 33), and in Chromium's and
    LibreOffice's PDFs (the rows were one paragraph; issue 47)."""
    doc = read(name)
    lines = doc.text.split("\n\n")
    assert "方法 | 指纹长度 | 召回率 | 精确率" in lines
    assert "SimHash | 64 位 | 0.97 | 0.99" in lines
    assert "指纹长度" not in lines  # no cell alone


def test_a_line_held_out_of_order_reads_in_printed_order() -> None:
    """LibreOffice writes a line's runs a font at a time: its PDF holds the quotation marks of
    例如“的”“了”“和” before the ideographs, which read as 例如“ ”“ ”“ ” 的 了 和. The
    line is read in the order it is printed, as Chromium's PDF of the same text reads
    (issue 33)."""
    for name in ("thesis-lo.pdf", "thesis.pdf"):
        doc = read(name)
        assert "例如“的”“了”“和”等出现频率很高" in doc.text, name


def test_a_heading_at_the_body_size_is_not_glued_to_its_paragraph() -> None:
    """A numbered heading printed at the body's size and spacing (a bold 第二章, a 2.1) starts a
    paragraph of its own: it was glued to the text under it (issue 33)."""
    from simdup.readers.pdf import _Line, _paragraphs

    body = "在论文写作和资料整理的过程中，我们经常需要判断两篇文档是否在本质上是同一份文字，"
    lines = [
        _Line("第二章 方法", 72, 700, 160, 712, 12),
        _Line(body, 72, 684, 520, 696, 12),
        _Line("因此需要一种既快速又可靠的方法。", 72, 668, 300, 680, 12),
        _Line("2.1 文本规范化", 72, 652, 170, 664, 12),
        _Line(body, 72, 636, 520, 648, 12),
    ]
    assert _paragraphs(lines) == [
        "第二章 方法",
        body + "因此需要一种既快速又可靠的方法。",
        "2.1 文本规范化",
        body,
    ]
