"""Own work by content (issue 47): a source that is the author's earlier paper in another format
(its PDF among the sources, its Word file under ``--self``) is own work, in the ratios, the JSON,
the text report and the HTML report; a document sharing only part of it is not."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.checking import Corpus, FragmentRule, check
from simdup.cli import cli
from simdup.readers import read_named
from simdup.text.tokens import tokenize
from tests.conftest import DATA, pseudo_words

FORMATS = DATA / "formats"
SOURCE = (FORMATS / "source.md").read_text(encoding="utf-8")
# The paragraphs of the fixtures' text: the thesis.* files are this text in several formats.
PARAGRAPHS = [p for p in SOURCE.split("\n\n") if len(p) > 200 and not p.startswith(("#", "|"))]


def words(seed: int, n: int) -> str:
    return " ".join(pseudo_words(seed, n).split())


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def setup(tmp_path: Path, source: str, own: str) -> tuple[Path, Path, Path]:
    """A student's new paper (new text, three paragraphs of the earlier paper, one of someone
    else's); the sources (the earlier paper as ``source``, someone else's paper); the student's
    own work (the earlier paper as ``own``)."""
    pytest.importorskip("lxml")  # the Word reader
    pytest.importorskip("pypdfium2")  # the PDF reader
    refs, mine = tmp_path / "refs", tmp_path / "mine"
    refs.mkdir()
    mine.mkdir()
    shutil.copy(FORMATS / source, refs / f"paper{Path(source).suffix}")
    shutil.copy(FORMATS / own, mine / f"earlier{Path(own).suffix}")
    someone = f"{words(470, 150)}\n\n{words(471, 60)}\n\n{words(472, 150)}\n"
    (refs / "someone.md").write_text(someone, encoding="utf-8")
    student = tmp_path / "new-paper.md"
    body = "\n\n".join([words(473, 120), *PARAGRAPHS[1:4], words(471, 60), words(474, 120)])
    student.write_text(f"# A new paper\n\n{body}\n", encoding="utf-8")
    return student, refs, mine


def shares_of(report: dict) -> dict[str, dict]:
    (checked,) = report["documents"]
    return {Path(s["source"]).name: s for s in checked["sources"]}


@pytest.mark.parametrize(
    ("source", "own"),
    [("thesis.pdf", "thesis.docx"), ("thesis.docx", "thesis.pdf"),
     ("thesis-lo.pdf", "thesis.docx")],
)  # fmt: skip
def test_the_earlier_paper_in_another_format_is_own_work(tmp_path: Path, source: str, own: str):
    """The PDF among the sources and the Word file under --self (or the reverse) are one
    paper: both own work; only someone else's paragraph is left in the ratio without own."""
    student, refs, mine = setup(tmp_path, source, own)
    paper = f"paper{Path(source).suffix}"
    out = invoke("check", str(student), "--against", str(refs), "--self", str(mine), "-f", "json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    shares = shares_of(report)
    assert set(shares) == {paper, f"earlier{Path(own).suffix}", "someone.md"}
    assert shares[paper]["own"] and not shares["someone.md"]["own"]
    (checked,) = report["documents"]
    assert checked["ratio_without_own"] == pytest.approx(shares["someone.md"]["ratio"])
    assert checked["ratio_without_own"] < checked["copy_ratio"] - 0.3
    from_paper = [f for f in checked["fragments"] if Path(f["source"]).name == paper]
    assert from_paper and {f["kind"] for f in from_paper} == {"own"}
    assert report["settings"]["own_work"]["min_similarity"] == 0.8
    # The text report marks the paper's line as own work.
    text = invoke("check", str(student), "--against", str(refs), "--self", str(mine), "--lang",
                  "en").stdout  # fmt: skip
    (line,) = [line for line in text.splitlines() if line.strip().endswith("fragments  (own work)")
               and paper in line]  # fmt: skip
    assert "someone.md" not in line
    # --ratio no-own is what --max-ratio compares: the own paper no longer fails the check.
    limit = ["--max-ratio", "30%", "-q"]
    assert invoke("check", str(student), "--against", str(refs), "--self", str(mine), *limit,
                  "--ratio", "no-own").exit_code == 0  # fmt: skip
    assert invoke("check", str(student), "--against", str(refs), *limit).exit_code == 1


class _SourceRows(HTMLParser):
    """The text of each row of the HTML report's table of sources."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []
        self._in_sources = self._in_row = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._in_sources = "sources" in (dict(attrs).get("class") or "")
        elif tag == "tr" and self._in_sources:
            self._in_row = True
            self.rows.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self._in_row = False
        elif tag == "table":
            self._in_sources = False

    def handle_data(self, data: str) -> None:
        if self._in_row:
            self.rows[-1] += data + " "


def test_the_html_report_shows_the_earlier_paper_as_own_work(tmp_path: Path):
    student, refs, mine = setup(tmp_path, "thesis.pdf", "thesis.docx")
    page = tmp_path / "report.html"
    args = ["--self", str(mine), "-f", "html", "--lang", "en", "-o", str(page)]
    assert invoke("check", str(student), "--against", str(refs), *args).exit_code == 0
    rows = _SourceRows()
    rows.feed(page.read_text(encoding="utf-8"))
    by_source = {name: row for row in rows.rows for name in ("paper.pdf", "someone.md")
                 if name in row}  # fmt: skip
    assert "own work" in by_source["paper.pdf"]
    assert "own work" not in by_source["someone.md"]


def test_a_stored_index_holding_the_paper_in_another_format(tmp_path: Path):
    """--db built by ``simdup index add`` from the sources: read after --self, the stored PDF
    is own work all the same."""
    student, refs, mine = setup(tmp_path, "thesis.pdf", "thesis.docx")
    db = tmp_path / "refs.simdup"
    assert invoke("index", "add", str(refs), "--db", str(db), "-q").exit_code == 0
    out = invoke("check", str(student), "--db", str(db), "--self", str(mine), "-f", "json")
    shares = shares_of(json.loads(out.stdout))
    assert shares["paper.pdf"]["own"] and not shares["someone.md"]["own"]
    # Without --self nothing is own work: an index is sources, whatever folder it was made of.
    mine_db = tmp_path / "mine.simdup"
    assert invoke("index", "add", str(mine), "--db", str(mine_db), "-q").exit_code == 0
    out = invoke("check", str(student), "--db", str(mine_db), "--against", str(refs), "-f", "json")
    assert not any(s["own"] for s in shares_of(json.loads(out.stdout)).values())


@pytest.mark.parametrize("own_first", [True, False])
def test_own_work_is_settled_whichever_was_added_first(own_first: bool):
    """The library's Corpus: the Word file added as own work before or after the PDF."""
    pytest.importorskip("lxml")
    pytest.importorskip("pypdfium2")
    pdf, docx = (read_named(str(FORMATS / name), 1 << 26) for name in ("thesis.pdf", "thesis.docx"))
    corpus = Corpus(FragmentRule())
    for document, own in ((docx, True), (pdf, False))[:: 1 if own_first else -1]:
        corpus.add(document, own=own)
    found = corpus.matches(tokenize(PARAGRAPHS[2]))
    assert {Path(source.key).name: source.own for source, _ in found} == {
        "thesis.pdf": True, "thesis.docx": True,
    }  # fmt: skip


def test_a_document_sharing_part_of_the_paper_is_not_own_work(tmp_path: Path):
    """Not the same work: a paper with half the earlier paper's paragraphs (as long, half
    shared), a volume holding the whole paper beside as much of others' text, and the paper
    when --self names a longer draft that holds it (docs/check.md: name the paper itself)."""
    student, refs, mine = setup(tmp_path, "thesis.pdf", "thesis.docx")
    half = "\n\n".join([*PARAGRAPHS[::2], words(480, 250)])
    (refs / "overlap.md").write_text(half, encoding="utf-8")
    (refs / "volume.md").write_text(f"{SOURCE}\n\n{words(481, 600)}\n", encoding="utf-8")
    out = invoke("check", str(student), "--against", str(refs), "--self", str(mine), "-f", "json")
    shares = shares_of(json.loads(out.stdout))
    assert shares["paper.pdf"]["own"]
    assert not shares["overlap.md"]["own"] and not shares["volume.md"]["own"]
    # A longer own draft holding the paper does not make the paper own work.
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "draft.md").write_text(f"{SOURCE}\n\n{words(482, 600)}\n", encoding="utf-8")
    result = check([str(student)], against=[str(refs)], own=[str(draft)])
    by_name = {Path(s.source).name: s for s in result.documents[0].sources}
    assert by_name["draft.md"].own and not by_name["paper.pdf"].own
