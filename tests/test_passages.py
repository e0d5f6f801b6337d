"""Duplicated passages (``scan --passages``, ``compare --passages``): line ranges of copied
paragraphs, in every encoding and line ending, in text, JSON and JSON Lines."""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO
from hypothesis import given
from hypothesis import strategies as st

from simdup.blocks import Block, cut_blocks, line_count, split_lines
from simdup.cli import cli
from simdup.discovery import find_files
from simdup.options import resolve_options
from simdup.outcome import scan_outcome
from simdup.passages import (
    PassageOptions,
    TextLines,
    compare_passages,
    find_passages,
    matching_runs,
    scan_passages,
)
from simdup.scanning import scan

SEEDS = REPO.parent / "shared" / "seeds"
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared seed articles not present")


def _seed(name: str) -> list[str]:
    path = next(SEEDS.glob(f"{name}_*.txt"))
    return path.read_text("utf-8").split("\n")


def _copy_tree(tmp_path: Path) -> tuple[Path, Path]:
    """Seed 000 as a.txt; seed 002 with lines 5-10 of seed 000 pasted after its line 20 (so
    at lines 22-27 of b.txt, between blank lines). Line 4 of seed 000, just before the copy,
    is a heading whose words the copy repeats ("Simhash Introduction")."""
    a, b = _seed("000"), _seed("002")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("\n".join(a), "utf-8")
    (tree / "b.txt").write_text("\n".join([*b[:20], "", *a[4:10], "", *b[20:]]), "utf-8")
    return tree / "a.txt", tree / "b.txt"


def test_blocks_have_the_line_numbers_of_the_file() -> None:
    """Blocks are runs of non-blank lines, a heading starts one; CRLF, CR and LF all end a
    line, so a CRLF file has the line numbers of its LF copy."""
    text = "one\ntwo\n\n\n# Title\nbody\n"
    expected = [Block(1, 2, 0, 7), Block(5, 6, 10, 22)]
    assert cut_blocks(text) == expected
    crlf = text.replace("\n", "\r\n")
    assert [(b.start_line, b.end_line) for b in cut_blocks(crlf)] == [(1, 2), (5, 6)]
    assert line_count(text) == line_count(crlf) == 6
    assert line_count("a\rb") == 2


def test_long_runs_are_cut() -> None:
    """A run without blank lines is cut every max_lines lines and after max_chars characters."""
    text = "\n".join(f"line {n}" for n in range(1, 21))
    assert [(b.start_line, b.end_line) for b in cut_blocks(text, max_lines=8)] == [
        (1, 8),
        (9, 16),
        (17, 20),
    ]
    long = "\n".join("x" * 250 for _ in range(3))
    assert [(b.start_line, b.end_line) for b in cut_blocks(long)] == [(1, 1), (2, 2), (3, 3)]


@needs_seeds
def test_a_copied_passage_is_found_with_its_lines(tmp_path: Path) -> None:
    """A paragraph run copied from one seed article into another is reported once, with
    the exact 1-based inclusive line ranges on both sides."""
    a, b = _copy_tree(tmp_path)
    result = scan_passages([str(a.parent)], jobs=1)
    assert result.pairs == ()  # the documents are not near-duplicates as a whole
    assert len(result.passages) == 1
    p = result.passages[0]
    assert (p.a.path, p.b.path) == (str(a), str(b))
    assert (p.a.start_line, p.a.end_line) == (5, 10)
    assert (p.b.start_line, p.b.end_line) == (22, 27)
    assert p.similarity >= 0.9


@needs_seeds
def test_line_numbers_hold_in_utf16_with_crlf(tmp_path: Path) -> None:
    """The same copy in a UTF-16 file with CRLF line endings has the same line numbers."""
    a, b = _copy_tree(tmp_path)
    b.write_bytes(b"\xff\xfe" + b.read_text("utf-8").replace("\n", "\r\n").encode("utf-16-le"))
    pairs = compare_passages(a, b, passages=PassageOptions())
    assert len(pairs) == 1
    assert (pairs[0].a.start_line, pairs[0].a.end_line) == (5, 10)
    assert (pairs[0].b.start_line, pairs[0].b.end_line) == (22, 27)


@needs_seeds
def test_unrelated_documents_share_no_passage(tmp_path: Path) -> None:
    """Two different articles: no passage."""
    (tmp_path / "a.txt").write_text("\n".join(_seed("000")), "utf-8")
    (tmp_path / "b.txt").write_text("\n".join(_seed("002")), "utf-8")
    assert compare_passages(tmp_path / "a.txt", tmp_path / "b.txt") == ()


@needs_seeds
def test_cli_text_json_and_jsonl(tmp_path: Path) -> None:
    """scan --passages: a passages section in text, a top-level list in JSON, records of type
    'passage' in JSON Lines; no text of the documents in JSON."""
    a, b = _copy_tree(tmp_path)
    runner = CliRunner()
    base = ["scan", str(a.parent), "--passages", "--no-cache", "-j", "1"]
    text = runner.invoke(cli, base)
    assert text.exit_code == 0, text.output
    assert f"{a}:" in text.output and "≈" in text.output and f"{b}:" in text.output
    js = runner.invoke(cli, [*base, "-f", "json"])
    doc = json.loads(js.output)
    (item,) = doc["passages"]
    assert item["b"]["path"] == str(b) and (item["b"]["start_line"], item["b"]["end_line"]) == (
        22,
        27,
    )
    assert set(item["a"]) == {"path", "start_line", "end_line", "start_char", "end_char", "words"}
    assert doc["settings"]["passages"]["min_words"] == PassageOptions().min_words
    jl = runner.invoke(cli, [*base, "-f", "jsonl"])
    records = [json.loads(line) for line in jl.output.splitlines()]
    assert [r["b"]["end_line"] for r in records if r["type"] == "passage"] == [27]


@needs_seeds
def test_passages_fail_the_scan_only_when_asked(tmp_path: Path) -> None:
    """--fail-on-duplicates counts passages when --passages is given (exit 1)."""
    a, _ = _copy_tree(tmp_path)
    runner = CliRunner()
    base = ["scan", str(a.parent), "--no-cache", "-j", "1", "-q", "--fail-on-duplicates"]
    assert runner.invoke(cli, base).exit_code == 0
    assert runner.invoke(cli, [*base, "--passages"]).exit_code == 1
    result = scan_passages([str(a.parent)], jobs=1)
    assert scan_outcome(result, fail_on_duplicates=True).code == 1
    assert scan_outcome(result).code == 0


@needs_seeds
def test_a_baseline_accepts_the_passages_of_its_pairs(tmp_path: Path) -> None:
    """--write-baseline with --passages accepts the pair of documents; --baseline then passes."""
    a, _ = _copy_tree(tmp_path)
    runner = CliRunner()
    baseline = tmp_path / "baseline.json"
    base = ["scan", str(a.parent), "--no-cache", "-j", "1", "-q", "--passages"]
    assert runner.invoke(cli, [*base, "--write-baseline", str(baseline)]).exit_code == 0
    code = runner.invoke(cli, [*base, "--baseline", str(baseline), "--fail-on-duplicates"])
    assert code.exit_code == 0, code.output


@needs_seeds
def test_new_passages_are_listed_against_a_baseline(tmp_path: Path) -> None:
    """A passage whose pair of documents the baseline does not accept fails the scan with
    --fail-on-duplicates, and is listed with its line ranges on stderr."""
    a, b = _copy_tree(tmp_path)
    runner = CliRunner()
    baseline = tmp_path / "baseline.json"
    base = ["scan", str(a.parent), "--no-cache", "-j", "1", "-q"]
    assert runner.invoke(cli, [*base, "--write-baseline", str(baseline)]).exit_code == 0
    out = runner.invoke(
        cli, [*base, "--passages", "--baseline", str(baseline), "--fail-on-duplicates"]
    )
    assert out.exit_code == 1
    assert "1 of 1 duplicated passages are not in the baseline" in out.stderr
    assert f"  {a}:5-10  {b}:22-27\n" in out.stderr


@needs_seeds
def test_compare_passages(tmp_path: Path) -> None:
    """compare A B --passages prints the matching regions (text) or a passages list (JSON)."""
    a, b = _copy_tree(tmp_path)
    runner = CliRunner()
    out = runner.invoke(cli, ["compare", str(a), str(b), "--passages"])
    assert out.exit_code == 0 and "Duplicated passages: 1 passage" in out.output
    js = runner.invoke(cli, ["compare", str(a), str(b), "--passages", "-f", "json"])
    assert json.loads(js.output)["passages"][0]["a"]["start_line"] == 5


def test_within_one_document(tmp_path: Path) -> None:
    """--within: a paragraph repeated inside one file is reported against itself."""
    words = " ".join(f"word{n} alpha{n} beta{n}" for n in range(30))
    other = " ".join(f"other{n} gamma{n}" for n in range(40))
    text = f"{words}\n\n{other}\n\n{words}\n"
    (tmp_path / "one.txt").write_text(text, "utf-8")
    plain = scan_passages([str(tmp_path)], jobs=1)
    assert plain.passages == ()
    within = scan_passages([str(tmp_path)], passages=PassageOptions(within=True), jobs=1)
    assert [(p.a.start_line, p.b.start_line) for p in within.passages] == [(1, 5)]


def test_boilerplate_is_one_repeated_passage(tmp_path: Path) -> None:
    """A footer in more documents than max_repeats is one repeated passage with its count."""
    footer = " ".join(f"licence{n} terms{n}" for n in range(30))
    for k in range(5):
        body = " ".join(f"doc{k}word{n}" for n in range(60))
        (tmp_path / f"d{k}.txt").write_text(f"{body}\n\n{footer}\n", "utf-8")
    result = scan_passages([str(tmp_path)], passages=PassageOptions(max_repeats=3), jobs=1)
    assert result.passages == ()
    (rp,) = result.repeated_passages
    assert rp.count == 5 and {s.start_line for s in rp.occurrences} == {3}
    as_pairs = scan_passages([str(tmp_path)], passages=PassageOptions(max_repeats=0), jobs=1)
    assert len(as_pairs.passages) == 10


@needs_seeds
def test_sarif_regions_validate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SARIF: one result per passage, its region the copied lines of one side and its related
    location those of the other; the log validates against the SARIF 2.1.0 schema."""
    jsonschema = pytest.importorskip("jsonschema")
    a, b = _copy_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(
        cli, ["scan", "tree", "--passages", "--no-cache", "-j", "1", "-f", "sarif"]
    )
    assert out.exit_code == 0, out.output
    log = json.loads(out.output)
    schema = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "simdup/duplicated-passage"]
    where = result["locations"][0]["physicalLocation"]
    related = result["relatedLocations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "tree/a.txt"
    assert where["region"] == {"startLine": 5, "endLine": 10}
    assert related["artifactLocation"]["uri"] == "tree/b.txt"
    assert related["region"] == {"startLine": 22, "endLine": 27}


@needs_seeds
def test_html_highlights_both_sides(tmp_path: Path) -> None:
    """HTML: the passage's two regions side by side, exactly their lines highlighted."""
    import re

    a, b = _copy_tree(tmp_path)
    out = CliRunner().invoke(
        cli, ["scan", str(a.parent), "--passages", "--no-cache", "-j", "1", "-f", "html"]
    )
    assert out.exit_code == 0, out.output
    page = out.output
    assert "Duplicated passages" in page and "id=passage-0" in page
    marked = re.findall(r"<td class='ln psg'>(\d+)</td>", page)
    assert marked == [
        str(n) for pair in zip(range(5, 11), range(22, 28), strict=True) for n in pair
    ]


@given(
    st.lists(st.sampled_from("abcd"), max_size=40),
    st.lists(st.sampled_from("abcd"), max_size=40),
)
def test_matching_runs_are_difflibs(a: list[str], b: list[str]) -> None:
    """The line-level edges align tokens as difflib does: the same matching blocks of at least
    three tokens as SequenceMatcher(autojunk=False), found without its quadratic cost."""
    expected = [
        tuple(m)
        for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        if m.size >= 3
    ]
    assert matching_runs(a, b, 3) == expected


@pytest.mark.parametrize(
    "text", ["", "a", "a\n", "a\n\n", "\n", "one\r\ntwo\rthree\n", "x\n y \n\nz", "é\U0001f600\nb"]
)
def test_text_lines_are_split_lines(text: str) -> None:
    """The edges' line offsets are those of split_lines (LF, CRLF and CR texts alike)."""
    lines = TextLines(text)
    assert [(lines.line(k), int(lines.starts[k])) for k in range(len(lines))] == split_lines(text)


@needs_seeds
def test_passages_found_while_fingerprinting_equal_those_read_again(tmp_path: Path) -> None:
    """scan --passages cuts each text into windows as the local engine fingerprints it (one
    read); the passages, and the whole-document result, are those of reading every file again
    for its passages afterwards, with one process or several."""
    a, _ = _copy_tree(tmp_path)
    tree = a.parent
    for n, name in enumerate(("001", "003", "004")):
        (tree / f"c{n}.txt").write_text("\n".join(_seed(name)), "utf-8")
    options = resolve_options(None, {"jobs": 1})
    sources = find_files([str(tree)], options.discovery).files
    again = find_passages(sources, options, PassageOptions())
    for jobs in (1, 2):
        once = scan_passages([str(tree)], jobs=jobs)
        assert once.passages == again.pairs
        assert once.repeated_passages == again.repeated
        assert once.pairs == scan([str(tree)], jobs=jobs).pairs
