"""``simdup check``: copied fragments down to a sentence, the ratios and their rules, and the
command end to end (text, JSON, SARIF; the HTML report has tests of its own)."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.algorithms.fragments import SourceIndex, align
from simdup.checking import CheckOptions, Corpus, FragmentRule, check, check_document
from simdup.checking.check import CHECK_VERSION
from simdup.cli import cli
from simdup.records import DecodedDocument, SkippedFile
from simdup.text.tokens import disguises, tokenize
from tests.conftest import DATA, pseudo_words

FORMATS = DATA / "formats"


def words(seed: int, n: int) -> str:
    return " ".join(pseudo_words(seed, n).split())


def hanzi(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n))


def doc(text: str, path: str = "doc.md") -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode()))


def units(text: str) -> int:
    """Counted characters as the README states them: CJK characters, letters and digits."""
    return sum(len(w) for w in re.findall(r"[^\W_]+", text))


def corpus_of(*texts: str, own: tuple[int, ...] = (), rule: FragmentRule | None = None) -> Corpus:
    corpus = Corpus(rule or FragmentRule())
    for n, text in enumerate(texts):
        corpus.add(doc(text, f"source{n}.md"), own=n in own)
    return corpus


# -- fragments -------------------------------------------------------------------------------


def test_one_copied_sentence_is_found_and_a_shorter_run_is_not():
    sentence = words(1, 8)
    mine = f"{words(2, 40)} {sentence} {words(3, 40)}"
    found = check_document(
        doc(mine), corpus_of(f"{words(4, 60)} {sentence} {words(5, 30)}"), CheckOptions()
    )
    assert [f.text for f in found.fragments] == [sentence]
    seven = " ".join(sentence.split()[:7])
    short = check_document(
        doc(f"{words(2, 40)} {seven} {words(3, 40)}"),
        corpus_of(f"{words(4, 60)} {seven} {words(5, 30)}"),
        CheckOptions(),
    )
    assert short.fragments == ()


def test_thirteen_cjk_characters_are_a_fragment_and_twelve_are_not():
    copied = hanzi(1, 13)
    found = check_document(
        doc(hanzi(2, 80) + copied + hanzi(3, 80)), corpus_of(hanzi(4, 50) + copied), CheckOptions()
    )
    assert [f.text for f in found.fragments] == [copied]
    twelve = copied[:12]
    none = check_document(
        doc(hanzi(2, 80) + twelve + hanzi(3, 80)), corpus_of(hanzi(4, 50) + twelve), CheckOptions()
    )
    assert none.fragments == ()


def test_light_edits_are_bridged_into_one_fragment():
    source = words(10, 60).split()
    edited = list(source)
    for at in (12, 25, 38):
        edited[at] = "CHANGED"
    found = check_document(doc(" ".join(edited)), corpus_of(" ".join(source)), CheckOptions())
    assert len(found.fragments) == 1
    assert found.copy_ratio == 1.0
    # With no gap allowed, the edits cut it in pieces.
    strict = FragmentRule(gap=0)
    pieces = check_document(
        doc(" ".join(edited)), corpus_of(" ".join(source), rule=strict), CheckOptions(rule=strict)
    )
    assert len(pieces.fragments) == 4


def test_line_breaks_play_no_part():
    """Both sides re-wrapped at other places: the same fragments, at the same words."""
    source = f"{words(20, 50)} {words(21, 30)}"
    mine = f"{words(22, 40)} {words(21, 30)} {words(23, 40)}"
    plain = check_document(doc(mine), corpus_of(source), CheckOptions())
    rng = random.Random(7)

    def rewrap(text: str) -> str:  # same length: a space becomes a line break here and there
        return "".join("\n" if ch == " " and rng.random() < 0.3 else ch for ch in text)

    wrapped = check_document(doc(rewrap(mine)), corpus_of(rewrap(source)), CheckOptions())
    assert plain.fragments and [
        (f.start, f.end, f.source_start, f.source_end) for f in plain.fragments
    ] == [(f.start, f.end, f.source_start, f.source_end) for f in wrapped.fragments]
    # One long line on one side, short lines on the other.
    one_line = check_document(
        doc(" ".join(mine.split())), corpus_of(source.replace(" ", "\n")), CheckOptions()
    )
    assert one_line.copy_ratio == plain.copy_ratio


def test_offsets_are_characters_of_the_text_as_read():
    source = "前言。\n" + hanzi(30, 20) + "\nSome words here."
    mine = "Intro line\n\n" + hanzi(30, 20)
    found = check_document(doc(mine), corpus_of(source), CheckOptions())
    (fragment,) = found.fragments
    assert mine[fragment.start : fragment.end] == hanzi(30, 20)
    assert source[fragment.source_start : fragment.source_end] == hanzi(30, 20)
    assert fragment.place is not None and fragment.place.label() == "line 3"


def test_disguised_copies_are_found_and_warned_about():
    sentence = "the quick brown fox jumps over the lazy dog near the river bank"
    disguised = sentence.replace("quick", "qu\u200bick").replace("over", "оvеr")  # Cyrillic о, е
    found = check_document(
        doc(f"{words(40, 30)} {disguised} {words(41, 30)}"), corpus_of(sentence), CheckOptions()
    )
    assert len(found.fragments) == 1
    assert {w.kind for w in found.warnings} == {"invisible", "look-alike"}
    assert [d.kind for d in disguises(disguised)] == ["invisible", "look-alike"]
    # Full-width letters are their ASCII ones.
    wide = "ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ ｊｕｍｐｓ ｏｖｅｒ ｔｈｅ ｌａｚｙ ｄｏｇ"
    assert check_document(doc(wide), corpus_of(sentence), CheckOptions()).copy_ratio == 1.0


SIMPLIFIED = (
    "台湾位于东亚，首都是台北。这里的夜市文化非常丰富，小吃种类繁多，例如卤肉饭、牛肉面和珍珠奶茶。"
    "中央山脉纵贯南北，玉山是东北亚最高的山峰。"
)
TRADITIONAL = (
    "臺灣位於東亞，首都是臺北。這裡的夜市文化非常豐富，小吃種類繁多，例如滷肉飯、牛肉麵和珍珠奶茶。"
    "中央山脈縱貫南北，玉山是東北亞最高的山峰。"
)


def test_a_copy_in_traditional_characters_is_found_in_simplified_ones():
    """A simplified text copied from a traditional source (and the reverse) is found whole,
    reported in the characters each text has; the settings say what folds them."""
    mine = hanzi(60, 60) + SIMPLIFIED + hanzi(61, 60)
    found = check_document(doc(mine), corpus_of(hanzi(62, 40) + TRADITIONAL), CheckOptions())
    assert [f.text for f in found.fragments] == [SIMPLIFIED.rstrip("。")]
    back = check_document(doc(TRADITIONAL), corpus_of(SIMPLIFIED), CheckOptions())
    assert back.copy_ratio == 1.0 and [f.text for f in back.fragments] == [TRADITIONAL[:-1]]
    assert CheckOptions().describe()["chinese_variants"].startswith("opencc ")


def test_traditional_and_variant_characters_fold_to_one_simplified_form():
    """Every character of the table folds to a simplified character that folds to itself
    (folding twice is folding once), and a text's tokens do not depend on which it uses."""
    from simdup.text.variants import simplified_forms

    table = simplified_forms()
    assert len(table) > 5000 and not set(table.values()) & set(table)
    assert (tokenize(TRADITIONAL).hashes == tokenize(SIMPLIFIED).hashes).all()
    # Variant forms of Taiwan and Hong Kong and an ideograph outside the basic plane.
    assert tokenize("裏").hashes[0] == tokenize("里").hashes[0] == tokenize("裡").hashes[0]
    astral = next(t for t in table if t > 0xFFFF)
    assert tokenize(chr(astral)).hashes[0] == tokenize(chr(table[astral])).hashes[0]


def test_a_short_document_copied_whole_into_a_longer_one_is_found():
    short = "Use the cache flag when scanning twice in a row."
    found = check_document(
        doc(f"{words(50, 200)}\n\n{short}\n\n{words(51, 200)}"), corpus_of(short), CheckOptions()
    )
    assert [f.text for f in found.fragments] == [short.rstrip(".")]


def test_code_blocks_are_content():
    code = (
        "def scan(paths):\n    for path in paths:\n        yield read_file(path, max_size=limit)\n"
    )
    mine = f"{words(60, 50)}\n\n```python\n{code}```\n\n{words(61, 50)}"
    found = check_document(doc(mine), corpus_of(f"Example:\n\n```\n{code}```\n"), CheckOptions())
    assert len(found.fragments) == 1 and "yield read_file" in found.fragments[0].text


def test_source_index_finds_every_source_sharing_a_sentence():
    sentence = words(70, 9)
    texts = [words(100 + n, 80) for n in range(30)]
    for n in (3, 17, 29):
        texts[n] = f"{texts[n]} {sentence}"
    index = SourceIndex(FragmentRule())
    for text in texts:
        index.add(tokenize(text).hashes)
    assert index.candidates(tokenize(f"{words(71, 50)} {sentence}").hashes) == [3, 17, 29]


def test_align_reports_the_longest_of_repeated_matches():
    sentence = words(80, 12)
    query = tokenize(f"{sentence} {words(81, 20)}")
    found = align(
        query.hashes, query.weights, tokenize(f"{sentence} x {sentence}").hashes, FragmentRule()
    )
    assert len(found) == 1


# -- the ratios on a thesis whose truth is known ----------------------------------------------


def test_ratios_on_a_synthetic_thesis_are_within_two_points_of_the_truth():
    copied_en = words(200, 60)  # from source A
    copied_zh = hanzi(201, 300)  # from source B
    quoted_en = words(202, 40)  # from source B, inside quotation marks
    own_en = words(203, 50)  # from the author's earlier paper
    refs_copy = words(204, 50)  # source A's text, inside the reference list
    original = [words(300 + n, 150) for n in range(4)] + [hanzi(400, 300)]
    intro = f"# Introduction\n\n{original[0]} {copied_en}.\n\n{original[1]}\n"
    method = (
        f"# Method\n\n{original[2]} As one author puts it, “{quoted_en}” [3].\n\n"
        f"{copied_zh}{original[4]}\n\n{own_en}. {original[3]}\n"
    )
    references = f"# References\n\n[1] {refs_copy}.\n[2] {words(205, 30)}.\n"
    thesis = intro + method + references
    source_a = f"{words(500, 100)} {copied_en} {words(501, 50)} {refs_copy}"
    source_b = f"{hanzi(502, 100)}{copied_zh}{hanzi(503, 40)} {quoted_en} {words(504, 40)}"
    mine = f"{words(505, 80)} {own_en} {words(506, 30)}"
    corpus = corpus_of(source_a, source_b, mine, own=(2,))
    result = check_document(doc(thesis, "thesis.md"), corpus, CheckOptions())

    # Headings and citation markers count nothing.
    counted = units(intro + method) - units("[3]") - units("Introduction Method")
    truth = {
        "total": (units(copied_en) + units(copied_zh) + units(quoted_en) + units(own_en)) / counted,
        "no-quotes": (units(copied_en) + units(copied_zh) + units(own_en)) / counted,
        "no-own": (units(copied_en) + units(copied_zh) + units(quoted_en)) / counted,
    }
    for which, value in truth.items():
        assert abs(result.ratio(which) - value) <= 0.02, (which, result.ratio(which), value)
    assert result.units == counted
    largest = max(units(copied_en), units(copied_zh) + units(quoted_en)) / counted
    assert abs(result.largest_source_ratio - largest) <= 0.02
    assert result.largest_source == "source1.md"
    shares = {s.source: s for s in result.sources}
    assert shares["source2.md"].own and not shares["source0.md"].own
    assert {f.kind for f in result.fragments} == {"copied", "quoted", "own"}
    by_title = {s.title: s for s in result.sections}
    intro_truth = units(copied_en) / units(intro)
    assert abs(by_title["Introduction"].ratio - intro_truth) <= 0.02
    assert by_title["References"].units == 0
    assert [e.reason for e in result.excluded] == ["marker", "references", "marker", "marker"]
    # Counting the reference list too changes what is counted, not what is found.
    kept = check_document(
        doc(thesis), corpus, CheckOptions(exclude_references=False, exclude_markers=False)
    )
    assert kept.units > result.units and kept.copied_units > result.copied_units


def test_an_ignored_template_is_left_out_of_the_count():
    declaration = words(600, 40)
    thesis = f"{declaration}\n\n{words(601, 100)} {words(602, 20)}"
    templates = corpus_of(declaration)
    corpus = corpus_of(f"{declaration} {words(602, 20)}")
    result = check_document(doc(thesis), corpus, CheckOptions(), templates)
    assert [e.reason for e in result.excluded] == ["template"]
    assert result.units == units(thesis) - units(declaration)
    assert abs(result.copy_ratio - units(words(602, 20)) / result.units) <= 0.02


def test_long_quotations_are_warned_about():
    long = words(610, 130)
    result = check_document(doc(f"“{long}”"), corpus_of(long), CheckOptions())
    assert [w.kind for w in result.warnings] == ["long-quotation"]
    assert result.ratio_without_quotes == 0.0 and result.copy_ratio == 1.0


# -- the command --------------------------------------------------------------------------------


@pytest.fixture
def refs(tmp_path: Path) -> Path:
    """Sources holding two paragraphs of the formats fixture's text, and one unrelated."""
    source = (FORMATS / "source.md").read_text(encoding="utf-8")
    paragraphs = [p for p in source.split("\n\n") if len(p) > 200 and not p.startswith("#")]
    folder = tmp_path / "refs"
    folder.mkdir()
    (folder / "web.md").write_text(f"{words(700, 100)}\n\n{paragraphs[0]}\n", encoding="utf-8")
    (folder / "book.txt").write_text(f"{paragraphs[3]}\n\n{words(701, 80)}\n", encoding="utf-8")
    (folder / "other.txt").write_text(words(702, 200), encoding="utf-8")
    return folder


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_check_a_word_file_against_a_folder(refs: Path, tmp_path: Path):
    pytest.importorskip("lxml")
    thesis = tmp_path / "thesis.docx"
    shutil.copy(FORMATS / "thesis.docx", thesis)
    report = tmp_path / "report.json"
    result = invoke("check", str(thesis), "--against", str(refs), "-f", "json", "-o", str(report))
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    (checked,) = data["documents"]
    sources = {Path(s["source"]).name for s in checked["sources"]}
    assert sources == {"web.md", "book.txt"}
    assert 0 < checked["copy_ratio"] < 0.5
    fragment = checked["fragments"][0]
    assert fragment["place"].startswith("¶") and fragment["end_char"] > fragment["start_char"]
    # A Word file's offsets count its extracted text; a Markdown source's, the source file's.
    assert checked["offsets"] == "extracted"
    assert {f["source_offsets"] for f in checked["fragments"]} == {"file"}
    assert data["settings"]["algorithm"] == CHECK_VERSION
    assert "docx" in json.dumps(data["settings"]["readers"]).lower()
    assert len(checked["sections"]) >= 2
    # Above --max-ratio: exit 1, and the reason on stderr even with --quiet.
    over = CliRunner().invoke(
        cli, ["check", str(thesis), "--against", str(refs), "--max-ratio", "1%", "-q"]
    )
    assert over.exit_code == 1 and "above 1.0%" in over.stderr
    under = invoke("check", str(thesis), "--against", str(refs), "--max-ratio", "90%", "-q")
    assert under.exit_code == 0
    assert (
        invoke("check", str(thesis), "--against", str(refs), "--fail-on-duplicates").exit_code == 1
    )


def test_check_of_a_pdf_sees_a_heading_after_a_citation_marker(tmp_path: Path):
    """A PDF's numbered heading at the body's size under a paragraph ending ``冲动。[2]`` is a
    section of the check: the text copied under it counts in its own section, not in the one
    before (they were one section, ``…冲动。[2] 1.2 研究意义`` a line of it; issue 47)."""
    pytest.importorskip("pypdfium2")
    copied = "查重工具帮助作者在提交之前发现无意的重复，也帮助编辑判断稿件的原创程度。"
    refs = tmp_path / "refs"
    refs.mkdir()
    (refs / "web.md").write_text(f"{copied}一个好的工具应当给出可以复核的比例和位置。\n", "utf-8")
    pdf = FORMATS / "structure-lo.pdf"
    result = invoke("check", str(pdf), "--against", str(refs), "-f", "json")
    assert result.exit_code == 0, result.output
    (checked,) = json.loads(result.output)["documents"]
    sections = {s["title"]: s for s in checked["sections"]}
    assert list(sections) == ["1.1 研究背景", "1.2 研究意义", "1.3 论文结构"]
    assert sections["1.1 研究背景"]["copied_units"] == 0
    assert sections["1.2 研究意义"]["ratio"] > 0.8
    assert sections["1.3 论文结构"]["copied_units"] == 0


def test_check_against_a_stored_index(refs: Path, tmp_path: Path):
    db = tmp_path / "corpus.simdup"
    assert invoke("index", "add", str(refs), "--db", str(db)).exit_code == 0
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    (refs / "other.txt").unlink()  # stored, then gone: a skip record, not a failure
    result = invoke("check", str(thesis), "--db", str(db), "-f", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {Path(s["source"]).name for s in data["documents"][0]["sources"]} == {
        "web.md",
        "book.txt",
    }
    assert [Path(s["path"]).name for s in data["skipped"]] == ["other.txt"]
    assert {s["category"] for s in data["documents"][0]["sources"]} == {"index"}
    assert invoke("check", str(thesis), "--db", str(db), "--strict", "-q").exit_code == 3


def test_unreadable_sources_are_counted_in_plain_english(refs: Path, tmp_path: Path):
    """"1 source file could not be read", "2 source files could not be read" (not "file(s)")."""
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    (refs / "empty.txt").write_bytes(b"")
    one = CliRunner().invoke(cli, ["check", str(thesis), "--against", str(refs)])
    assert one.exit_code == 0, one.output
    assert "simdup: 1 source file could not be read\n" in one.stderr
    (refs / "pixel.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    two = CliRunner().invoke(cli, ["check", str(thesis), "--against", str(refs)])
    assert "simdup: 2 source files could not be read\n" in two.stderr
    assert "(s)" not in one.stderr + two.stderr


def on_terminal(args: list[str], report: Path) -> tuple[int, str]:
    """Run ``simdup ARGS`` with stderr on a pseudo-terminal of 200 columns (a new one is
    0 x 0, and tqdm draws nothing on a line of no columns) and stdout into ``report``: the
    exit code and what the terminal was sent."""
    import fcntl
    import os
    import struct
    import subprocess
    import sys
    import termios

    pty = pytest.importorskip("pty")
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(report, "wb") as stdout:
        process = subprocess.Popen(
            [sys.executable, "-m", "simdup", *args],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=terminal, env=env,
        )  # fmt: skip
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal's other side closed (Linux)
            break
        if not chunk:
            break
        seen += chunk
    os.close(controller)
    return process.wait(timeout=60), seen.decode("utf-8", "replace")


def test_the_progress_line_on_a_terminal_says_what_is_done(refs: Path, tmp_path: Path):
    """On a terminal, check's progress line says "reading sources", then "checking PATH"
    (not "checking reading sources"), each with the time spent; the report on stdout is
    whole."""
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    report = tmp_path / "report.txt"
    code, shown = on_terminal(["check", str(thesis), "--against", str(refs)], report)
    assert code == 0, shown
    assert "\rreading sources 00:00" in shown
    assert f"\rchecking {thesis} 00:00" in shown
    assert "checking reading sources" not in shown
    assert "embedding" not in shown  # not --semantic
    assert "thesis.md" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_text_and_sarif_reports(refs: Path, tmp_path: Path, suffix: str):
    """SARIF regions are exact, lines and characters of the file, for a plain-text thesis
    and for a Markdown one read as rendered: the region's characters are the fragment's, on
    the region's lines."""
    thesis = tmp_path / f"thesis{suffix}"
    shutil.copy(FORMATS / "source.md", thesis)
    text = invoke("check", str(thesis), "--against", str(refs))
    assert text.exit_code == 0
    assert "copy ratio" in text.stdout and "largest single source" in text.stdout
    assert "web.md" in text.stdout and "第一章 引言" in text.stdout
    sarif = json.loads(invoke("check", str(thesis), "--against", str(refs), "-f", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert results and all(r["ruleId"] == "simdup/copied-fragment" for r in results)
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    body = thesis.read_text(encoding="utf-8")
    said = results[0]["message"]["text"].split(": ", 1)[1]
    piece = body[region["charOffset"] : region["charOffset"] + region["charLength"]]
    assert " ".join(piece.split())[:30] == said[:30]
    lines = body.split("\n")[region["startLine"] - 1 : region["endLine"]]
    assert piece in "\n".join(lines)


def test_usage_and_unreadable_documents(refs: Path, tmp_path: Path):
    assert invoke("check", str(refs / "web.md")).exit_code == 2  # no sources
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(b"%PDF-1.4\nnot really a pdf")
    result = CliRunner().invoke(cli, ["check", str(bad), "--against", str(refs)])
    assert result.exit_code == 3 and "could not be read" in result.stderr
    assert (
        invoke(
            "check", str(refs / "web.md"), "--against", str(refs), "--max-ratio", "150%"
        ).exit_code
        == 2
    )


def test_the_library_call_checks_against_folders(refs: Path, tmp_path: Path):
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    result = check([str(thesis)], against=[str(refs)])
    assert result.source_count == 3 and len(result.documents) == 1
    # A document is never its own source, even inside a folder checked against.
    shutil.copy(thesis, refs / "copy-of-nothing.md")
    inside = check([str(refs / "web.md")], against=[str(refs)])
    assert all(s.source != str(refs / "web.md") for s in inside.documents[0].sources)


def test_html_report_from_the_command_line(refs: Path, tmp_path: Path):
    pytest.importorskip("lxml")
    thesis = tmp_path / "thesis.docx"
    shutil.copy(FORMATS / "thesis.docx", thesis)
    out = tmp_path / "report.html"
    result = invoke("check", str(thesis), "--against", str(refs), "-f", "html", "-o", str(out))
    assert result.exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'class="copied' in page
    assert "web.md" in page and CHECK_VERSION in page


# -- a class, own work (issue 33) ------------------------------------------------------------


def write_class(folder: Path) -> dict[str, str]:
    """Three theses: b copies a paragraph of a, c is original; a's text is its own."""
    folder.mkdir()
    a_par, b_own, c_own, a_rest = hanzi(801, 300), hanzi(802, 400), hanzi(803, 600), hanzi(804, 300)
    theses = {
        "a.md": f"# 论文甲\n\n{a_par}\n\n{a_rest}\n",
        "b.md": f"# 论文乙\n\n{b_own}\n\n{a_par}\n",
        "c.md": f"# 论文丙\n\n{c_own}\n",
    }
    for name, text in theses.items():
        (folder / name).write_text(text, encoding="utf-8")
    return theses


def test_a_class_checked_against_its_own_folder_is_checked_each_against_the_others(
    tmp_path: Path,
):
    """Cross-checking a class (互查): every thesis against the others, never against itself."""
    folder = tmp_path / "class"
    write_class(folder)
    result = check([str(folder)], against=[str(folder)])
    by_name = {Path(d.path).name: d for d in result.documents}
    assert set(by_name) == {"a.md", "b.md", "c.md"}
    # a and b share a's paragraph: each is the other's source; c shares nothing.
    assert [Path(s.source).name for s in by_name["a.md"].sources] == ["b.md"]
    assert [Path(s.source).name for s in by_name["b.md"].sources] == ["a.md"]
    assert 0.3 < by_name["b.md"].copy_ratio < 0.6
    assert by_name["c.md"].copy_ratio == 0.0 and not by_name["c.md"].sources
    assert result.source_count == 3
    # One thesis checked alone against the folder it is in: the others are its sources.
    alone = check([str(folder / "b.md")], against=[str(folder)]).documents[0]
    assert alone.copy_ratio == by_name["b.md"].copy_ratio
    # The same through the command line, in JSON: the classmate named.
    out = invoke("check", str(folder), "--against", str(folder), "-f", "json")
    data = json.loads(out.stdout)
    named = {Path(d["path"]).name: [Path(s["source"]).name for s in d["sources"]]
             for d in data["documents"]}  # fmt: skip
    assert named == {"a.md": ["b.md"], "b.md": ["a.md"], "c.md": []}


def test_two_students_handing_in_one_file_are_each_the_others_source(tmp_path: Path):
    folder = tmp_path / "class"
    theses = write_class(folder)
    (folder / "d.md").write_text(theses["c.md"], encoding="utf-8")  # c's file, handed in twice
    result = check([str(folder)], against=[str(folder)])
    by_name = {Path(d.path).name: d for d in result.documents}
    assert by_name["c.md"].copy_ratio == 1.0 and by_name["d.md"].copy_ratio == 1.0
    assert [Path(s.source).name for s in by_name["c.md"].sources] == ["d.md"]


def test_own_work_among_the_sources_is_one_source_counted_as_own(tmp_path: Path):
    """The author's paper in the reference library and named with --self: one source, own
    work (去除本人文献复制比), whether the library holds that file or a copy of it."""
    library = tmp_path / "library"
    library.mkdir()
    paper, other = hanzi(811, 400), hanzi(812, 400)
    (library / "my-paper.md").write_text(paper, encoding="utf-8")
    (library / "someone.md").write_text(other, encoding="utf-8")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "my-paper-copy.md").write_text(paper, encoding="utf-8")
    thesis = tmp_path / "thesis.md"
    thesis.write_text(f"{hanzi(813, 800)}\n\n{paper}\n\n{other}\n", encoding="utf-8")
    for own in (library / "my-paper.md", mine):
        checked = check([str(thesis)], against=[str(library)], own=[str(own)]).documents[0]
        shares = {Path(s.source).name: s for s in checked.sources}
        assert len(shares) == 2, shares
        (own_share,) = [s for s in shares.values() if s.own]
        assert own_share.source.endswith("my-paper.md")
        assert not shares["someone.md"].own
        assert checked.ratio_without_own == pytest.approx(shares["someone.md"].ratio)
        assert checked.ratio_without_own < checked.copy_ratio - 0.2
        assert {f.kind for f in checked.fragments} == {"own", "copied"}


def test_a_bare_percentage_gets_a_suggestion(refs: Path):
    """--max-ratio 40 is a percentage without its sign: the error suggests 40% (issue 33)."""
    result = CliRunner().invoke(
        cli, ["check", str(refs / "web.md"), "--against", str(refs), "--max-ratio", "40"]
    )
    assert result.exit_code == 2 and "did you mean 40%?" in result.stderr
    over = CliRunner().invoke(
        cli, ["check", str(refs / "web.md"), "--against", str(refs), "--max-ratio", "150%"]
    )
    assert over.exit_code == 2 and "did you mean" not in over.stderr


def test_the_text_report_counts_in_words(refs: Path, tmp_path: Path):
    """'1 document checked against 2 sources', not '1 document(s)' (issue 33)."""
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    out = invoke("check", str(thesis), "--against", str(refs)).stdout  # type: ignore[attr-defined]
    assert "1 document checked against" in out and "(s)" not in out


def test_the_text_report_speaks_chinese_with_lang_zh_or_a_chinese_locale(
    refs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """--lang zh, or LANG=zh_CN.UTF-8 without --lang: the terms teachers know (总文字复制比...),
    places as pages, paragraphs and lines, never character numbers (issue 33)."""
    thesis = tmp_path / "thesis.md"
    shutil.copy(FORMATS / "source.md", thesis)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    english = invoke("check", str(thesis), "--against", str(refs)).stdout  # type: ignore[attr-defined]
    assert "copy ratio" in english and "总文字复制比" not in english
    chinese = invoke("check", str(thesis), "--against", str(refs), "--lang", "zh").stdout  # type: ignore[attr-defined]
    for words in ("总文字复制比", "去除引用文献复制比", "去除本人文献复制比", "单篇最大文字复制比",
                  "相似来源", "复制片段", "共检测 1 篇文档"):  # fmt: skip
        assert words in chinese, words
    assert "chars" not in chinese and "第 " in chinese and " 行" in chinese
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    by_locale = invoke("check", str(thesis), "--against", str(refs)).stdout  # type: ignore[attr-defined]
    assert by_locale == chinese
    assert invoke("check", str(thesis), "--against", str(refs), "--lang", "fr").exit_code == 2  # type: ignore[attr-defined]


def test_a_document_aligned_by_worker_processes_gets_the_report_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With many candidate sources a document is aligned with them by worker processes
    (forked: they share the corpus), chunks of them in order: the report is the one a
    single process makes, fragments, ratios and sources alike, with copies verbatim,
    reworded and from several sources."""
    from simdup.checking import corpus as corpus_module

    rng = random.Random(7)
    own = [pseudo_words(1000 + k, 60) for k in range(40)]
    sources = tmp_path / "sources"
    sources.mkdir()
    paragraphs = list(own)
    for k in range(90):
        text = pseudo_words(k, 240)
        (sources / f"s{k:03d}.txt").write_text(text, encoding="utf-8")
        if k % 9 == 0:  # a stretch of it pasted, or with some of its words swapped
            words = text.split()[40:100]
            if k % 2:
                for at in rng.sample(range(len(words)), 8):
                    words[at] = words[rng.randrange(len(words))]
            paragraphs.insert(rng.randrange(len(paragraphs)), " ".join(words))
        else:  # a stock phrase shared: a candidate with nothing to report
            paragraphs[k % len(paragraphs)] += " " + " ".join(text.split()[:10])
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("\n\n".join(paragraphs), encoding="utf-8")
    calls: list[tuple[str, int]] = []
    real = corpus_module.chunks_on_cores

    def counted(*args: object, **kw: object) -> object:
        calls.append((args[0].__name__, int(args[2])))  # type: ignore[attr-defined, call-overload]
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(corpus_module, "chunks_on_cores", counted)
    one = check([str(thesis)], against=[str(sources)], jobs=1)
    two = check([str(thesis)], against=[str(sources)], jobs=2)
    # The second really read its sources and aligned them on two workers; the first, and the
    # second's own work (none), in this process, with no process-wide state.
    assert calls == [("_read_chunk", 2), ("_align_chunk", 2)]
    (a,), (b,) = one.documents, two.documents
    assert len(a.fragments) >= 10 and a.fragments == b.fragments
    assert a.copy_ratio == b.copy_ratio and a.sources == b.sources


def test_sources_read_by_worker_processes_give_the_report_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sources in a format read in a contained child (HTML), read by two forked workers while
    the check's reading session is open: each worker reads through a child of its own (one
    pipe is never written by two processes), and the report is the one a single process
    makes."""
    from simdup.checking import corpus as corpus_module
    from simdup.readers import read_document, reading_session

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_SOURCES", 4)
    sources = tmp_path / "sources"
    sources.mkdir()
    texts = [pseudo_words(k, 120) for k in range(12)]
    for k, text in enumerate(texts):
        (sources / f"s{k:02d}.html").write_text(
            f"<html><body><h1>Page {k}</h1><p>{text}</p></body></html>", encoding="utf-8"
        )
    thesis = tmp_path / "thesis.txt"
    pasted = [" ".join(texts[k].split()[20:80]) for k in (1, 6, 11)]
    thesis.write_text("\n\n".join([pseudo_words(500, 80), *pasted, pseudo_words(501, 80)]),
                      encoding="utf-8")  # fmt: skip
    one = check([str(thesis)], against=[str(sources)], jobs=1)
    with reading_session():  # its child started here before the workers fork
        assert not isinstance(read_document(str(sources / "s00.html"), 1 << 20), SkippedFile)
        two = check([str(thesis)], against=[str(sources)], jobs=2)
    (a,), (b,) = one.documents, two.documents
    assert {s.source for s in a.sources} == {str(sources / f"s{k:02d}.html") for k in (1, 6, 11)}
    assert a.fragments == b.fragments and a.sources == b.sources and not two.skipped
    assert one.source_count == two.source_count == 12
