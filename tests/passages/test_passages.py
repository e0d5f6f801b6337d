"""Duplicated passages (``scan --passages``, ``compare --passages``): line ranges of copied
paragraphs, in every encoding and line ending, in text, JSON and JSON Lines."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.options import resolve_options
from simdup.params import FeatureParams
from simdup.passages import (
    PassageOptions,
    PassageProcessor,
    compare_passages,
    find_passages,
    scan_passages,
)
from simdup.policy.outcome import scan_outcome
from simdup.readers import read_document
from simdup.readers.discovery import find_files
from simdup.records import DecodedDocument
from simdup.scanning import scan
from tests.conftest import REPO

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
    assert set(item["a"]) == {
        "path", "start_line", "end_line", "start_char", "end_char", "offsets", "words"
    }  # fmt: skip
    assert item["a"]["offsets"] == "file"
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
    assert "the 1 duplicated passage is not in the baseline" in out.stderr
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
    # One line repeated thousands of times: its fingerprints are too common to pair places
    # (as they are too common to seed a fragment), so it costs what any text costs.
    from simdup.passages import aligning

    calls: list[int] = []
    align = aligning.align

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return align(*args, **kwargs)

    (tmp_path / "one.txt").write_text("the same words on every line of it\n" * 20000, "utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(aligning, "align", counted)
        repeated = scan_passages([str(tmp_path)], passages=PassageOptions(within=True), jobs=1)
    assert repeated.passages == () and len(calls) < 10


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
    assert (where["region"]["startLine"], where["region"]["endLine"]) == (5, 10)
    assert related["artifactLocation"]["uri"] == "tree/b.txt"
    assert (related["region"]["startLine"], related["region"]["endLine"]) == (22, 27)
    # The characters too: the same copied text on both sides.
    piece_a = a.read_text("utf-8")[where["region"]["charOffset"]:][
        : where["region"]["charLength"]
    ]
    piece_b = b.read_text("utf-8")[related["region"]["charOffset"]:][
        : related["region"]["charLength"]
    ]
    assert piece_a.split() == piece_b.split() and len(piece_a.split()) > 20


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
    # Short copies too (min_match): the code snippets the seed articles share.
    short = PassageOptions(min_match=20)
    again = find_passages(sources, options, short)
    assert any(p.a.words < PassageOptions().min_words for p in again.pairs)
    for jobs in (1, 2):
        once = scan_passages([str(tree)], passages=short, jobs=jobs)
        assert once.passages == again.pairs
        assert once.repeated_passages == again.repeated
        assert once.pairs == scan([str(tree)], jobs=jobs).pairs


@needs_seeds
def test_worker_processes_and_skip_lookups_give_the_one_process_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Candidate pairs aligned in worker processes (forced here on a small tree) give the
    passages of one process."""
    from simdup.passages import aligning

    a, b = _copy_tree(tmp_path)
    tree = a.parent
    for n, name in enumerate(("001", "003", "004")):
        text = "\n".join(_seed(name))
        (tree / f"c{n}.txt").write_text(text, "utf-8")
        # A near-duplicate of each: its passages with c{n} are those of the whole document.
        (tree / f"c{n}-copy.txt").write_text(text.replace("的", "之", 3), "utf-8")
    expected = scan_passages([str(tree)], jobs=1)
    assert expected.passages and expected.pairs
    near = {(p.a, p.b) for p in expected.pairs}
    assert not any((p.a.path, p.b.path) in near for p in expected.passages)
    monkeypatch.setattr(aligning, "_PARALLEL_PAIRS", 1)
    monkeypatch.setattr(aligning, "_TASK_PAIRS", 1)
    for jobs in (1, 2):
        found = scan_passages([str(tree)], jobs=jobs)
        assert found.passages == expected.passages
        assert found.repeated_passages == expected.repeated_passages


def test_a_copy_inside_one_long_line_is_found_to_the_character(tmp_path: Path) -> None:
    """A passage of a wrapped paragraph pasted into the middle of a paragraph written as one
    long line (and edited: a word changed) is one passage, its ends on the copy's characters
    on both sides, not on the long line's."""
    copied = " ".join(_prose(910, 60).split())
    words = copied.split()
    wrapped = "\n".join(" ".join(words[n : n + 9]) for n in range(0, len(words), 9))
    a = f"{_prose(911, 120)}\n\n{wrapped}\n\n{_prose(912, 120)}\n"
    edited = copied.replace(words[30], "changed", 1)
    before, after = (" ".join(_prose(seed, 150).split()) for seed in (913, 914))
    long_line = f"{before} {edited} {after}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(f"title\n\n{long_line}\n", "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    b = long_line
    assert (p.b.start_line, p.b.end_line) == (3, 3)
    start = b.index(edited) + len("title\n\n")
    assert (p.b.start_char, p.b.end_char) == (start, start + len(edited))
    assert a[p.a.start_char : p.a.end_char] == wrapped


def _inside_long_line(sentence: str, seed: int) -> str:
    """``sentence`` inside a paragraph written as one long line of other words."""
    before, after = (" ".join(_prose(s, 150).split()) for s in (seed, seed + 1))
    return f"{before} {sentence} {after}"


def test_a_stock_sentence_inside_different_paragraphs_is_no_passage(tmp_path: Path) -> None:
    """Two pages sharing a stock sentence of 32 words (over a passage's 25) inside paragraphs
    written as long lines that otherwise differ: the lines reported would not be alike, so
    ``scan`` reports no passage (a copy must fill half of its lines, or weigh twice
    min_words); without that rule it did. ``compare`` (two documents a user chose) still
    shows the shared sentence."""
    stock = " ".join(_prose(920, 32).split())
    (tmp_path / "a.txt").write_text(f"A\n\n{_inside_long_line(stock, 921)}\n", "utf-8")
    (tmp_path / "b.txt").write_text(f"B\n\n{_inside_long_line(stock, 923)}\n", "utf-8")
    assert scan_passages([str(tmp_path)], jobs=1).passages == ()
    scanned = CliRunner().invoke(cli, ["scan", str(tmp_path), "--passages", "-f", "json"])
    assert json.loads(scanned.stdout)["passages"] == []
    (before,) = scan_passages(
        [str(tmp_path)], passages=PassageOptions(line_share=0.0), jobs=1
    ).passages
    assert (before.a.start_line, before.b.start_line) == (3, 3)
    (shown,) = compare_passages(tmp_path / "a.txt", tmp_path / "b.txt")
    assert shown.a.words == 32


def test_a_sentence_kept_in_a_revised_paragraph_is_a_passage(tmp_path: Path) -> None:
    """A paragraph written as one long line, revised (every third word changed) but for a
    sentence of 30 words kept as it was: the copy is under half of the line, but the two lines
    are alike as wholes, so the passage is reported."""
    kept = " ".join(_prose(950, 30).split())
    words = _prose(951, 60).split()
    revised = [w if n % 3 else "changed" for n, w in enumerate(words)]
    a = f"A\n\n{kept} {' '.join(words)}\n\n{_prose(952, 60)}"
    b = f"B\n\n{_prose(953, 60)}\n{kept} {' '.join(revised)}\n"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    assert (p.a.start_line, p.a.end_line) == (3, 3)
    assert p.a.words < 50


def test_a_copy_among_a_stock_sentence_is_still_found(tmp_path: Path) -> None:
    """The same stock sentence inside both pages' long lines, and a paragraph of 40 words
    copied from one into the other (re-wrapped, a word changed): one passage, the copy's
    lines on both sides."""
    stock = " ".join(_prose(930, 32).split())
    words = _prose(931, 40).split()
    source = "\n".join(" ".join(words[n : n + 10]) for n in range(0, 40, 10))
    edited = words.copy()
    edited[20] = "changed"
    copy = "\n".join(" ".join(edited[n : n + 8]) for n in range(0, 40, 8))
    a = f"A\n\n{_inside_long_line(stock, 932)}\n\n{source}\n\n{_prose(934, 100)}"
    b = f"B\n\n{_prose(935, 100)}\n{copy}\n\n{_inside_long_line(stock, 936)}\n"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    assert (p.a.start_line, p.a.end_line) == (5, 8)
    b_first = b.split("\n").index(copy.split("\n")[0]) + 1
    assert (p.b.start_line, p.b.end_line) == (b_first, b_first + 4)


# -- short passages: copies shorter than a passage ---------------------------------------------


def _prose(seed: int, n: int) -> str:
    from tests.conftest import pseudo_words

    return pseudo_words(seed, n)


def test_a_sentence_shorter_than_a_passage_is_found_when_asked(tmp_path: Path) -> None:
    """A 21-word sentence (under the 25 words of a passage) copied into a different document
    is found with its lines and characters; re-wrapped on the other side, too."""
    sentence = " ".join(_prose(900, 21).split())
    a = f"{_prose(901, 200)}\n{sentence}\n{_prose(902, 100)}"
    wrapped = sentence.replace(" ", "\n", 3)
    b = f"{_prose(903, 150)}\n\n{wrapped}\n\n{_prose(904, 150)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], passages=PassageOptions(min_match=20), jobs=1).passages
    assert a[p.a.start_char : p.a.end_char] == sentence
    assert " ".join(b[p.b.start_char : p.b.end_char].split()) == sentence
    assert p.b.end_line - p.b.start_line == 3
    # Off (a scan's default: --passage-min-match 0): too short for a passage.
    assert scan_passages([str(tmp_path)], jobs=1).passages == ()
    # From the command line: off in a scan unless asked, on in compare.
    scanned = CliRunner().invoke(cli, ["scan", str(tmp_path), "--passages", "-f", "json"])
    assert json.loads(scanned.stdout)["passages"] == []
    asked = ["scan", str(tmp_path), "--passages", "--passage-min-match", "20", "-f", "json"]
    assert len(json.loads(CliRunner().invoke(cli, asked).stdout)["passages"]) == 1
    compared = ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    found = CliRunner().invoke(cli, [*compared, "--passages", "-f", "json"])
    assert len(json.loads(found.stdout)["passages"]) == 1


def test_a_few_whole_lines_copied_are_a_passage_under_min_words(tmp_path: Path) -> None:
    """Five list lines of 20 words in all, copied whole (a word of the last edited): a
    passage, though under the 25 words of one, as its lines are alike whole; the same words
    inside one line of each document are not, nor are the lines under half of a larger
    min_words."""
    listed = [" ".join(_prose(930 + n, 4).split()) for n in range(5)]
    lines = "\n".join(f"- {item}" for item in listed)
    edited = lines.replace(listed[4].split()[1], "changed")
    a = f"{_prose(911, 150)}\n{lines}\n\n{_prose(912, 100)}"
    b = f"{_prose(913, 150)}\n\n{edited}\n{_prose(914, 100)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    assert a[p.a.start_char : p.a.end_char] == lines[2:]  # from its first word
    assert b[p.b.start_char : p.b.end_char] == edited[2:]
    assert p.a.end_line - p.a.start_line == 4
    larger = PassageOptions(min_words=42)  # whole lines from 21 words
    assert scan_passages([str(tmp_path)], passages=larger, jobs=1).passages == ()
    off = PassageOptions(whole_lines_share=0)
    assert scan_passages([str(tmp_path)], passages=off, jobs=1).passages == ()
    # The same words inside a line of each: a sentence two texts share, no passage.
    inline = " ".join(listed)
    (tmp_path / "a.txt").write_text(f"{_prose(911, 150)}{inline} {_prose(912, 100)}", "utf-8")
    (tmp_path / "b.txt").write_text(f"{_prose(913, 150)}{inline} {_prose(914, 100)}", "utf-8")
    assert scan_passages([str(tmp_path)], jobs=1).passages == ()


def test_whole_lines_of_min_words_with_a_word_edited_are_a_passage(tmp_path: Path) -> None:
    """Five lines of 25 words in all, a word inside edited: 24 words matched, too few for the
    rule of 25, yet a copy of whole lines alike, judged on what it matched as any shorter copy
    is (judged on its 25 words, it fell between the two rules and was no passage)."""
    listed = [" ".join(_prose(940 + n, 5).split()) for n in range(5)]
    lines = "\n".join(listed)
    middle = listed[2].split()
    edited = lines.replace(listed[2], " ".join([*middle[:2], "changed", *middle[3:]]))
    a = f"{_prose(941, 150)}\n\n{lines}\n\n{_prose(942, 100)}"
    b = f"{_prose(943, 150)}\n\n{edited}\n\n{_prose(944, 100)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    assert a[p.a.start_char : p.a.end_char] == lines
    assert b[p.b.start_char : p.b.end_char] == edited


# Seven lines of code, 13 words: shorter than a passage, and shorter than the 25 tokens in a
# row that a passage's fingerprints are sure to be shared from.
STORES = """  return {
    name: ref('I am X'),
  }
})

const useY = defineStore('y', () => {
  const x = useX()"""


def test_a_short_copy_of_whole_lines_is_found_around_its_own_fingerprints(
    tmp_path: Path,
) -> None:
    """Seven lines of code (13 words) pasted into an unrelated document, re-wrapped into five
    there, the only text the two share: a passage, its lines on both sides to the closing
    fence; two lines of them alone are none."""
    edited = STORES.replace("  }\n})", "} })").replace("{\n  const x", "{ const x")
    a = f"{_prose(938, 150)}\n```js\n{STORES}\n```\n\n{_prose(939, 100)}"
    b = f"{_prose(1038, 120)}\n```ts\n{edited}\n```\n\n{_prose(1039, 100)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    # The prose around is such that the two share no fingerprint of a passage's.
    made = PassageProcessor(FeatureParams(), PassageOptions())
    shingles = [made.document(name, text).shingles for name, text in (("a", a), ("b", b))]
    assert not np.intersect1d(*shingles).size
    (p,) = _json_passages(tmp_path)
    sides = {Path(p[s]["path"]).name: p[s] for s in ("a", "b")}
    for name, text, copy in (("a.txt", a, STORES), ("b.txt", b, edited)):
        first = text.split("\n").index(copy.split("\n")[0]) + 1
        last = first + copy.count("\n") + 1  # the fence
        assert (sides[name]["start_line"], sides[name]["end_line"]) == (first, last)
    two = "\n".join(STORES.split("\n")[5:])
    (tmp_path / "a.txt").write_text(f"{_prose(938, 150)}\n{two}\n{_prose(939, 100)}", "utf-8")
    (tmp_path / "b.txt").write_text(f"{_prose(1038, 120)}\n{two}\n{_prose(1039, 100)}", "utf-8")
    assert _json_passages(tmp_path) == []


def _json_passages(folder: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["scan", str(folder), "--passages", "--no-cache", "-f", "json", "-j", "1"]
    )
    assert result.exit_code == 0, result.output
    passages: list[dict[str, Any]] = json.loads(result.stdout)["passages"]
    return passages


def test_a_copy_of_text_its_source_holds_twice_is_reported_at_both(tmp_path: Path) -> None:
    """a shows one table twice, b pasted it once: b's lines are a copy of each of a's two
    places (which one it came from cannot be told), two passages; a table a holds once is one."""
    table = "\n".join(f"| `{w}` | {_prose(940 + n, 6).strip()} |" for n, w in enumerate("xyz"))
    a = f"{_prose(941, 100)}\n{table}\n\n{_prose(942, 100)}\n{table}\n\n{_prose(943, 100)}"
    b = f"{_prose(944, 100)}\n\n{table}\n\n{_prose(945, 100)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    found = _json_passages(tmp_path)
    lines = a.split("\n")
    places = [n + 1 for n, line in enumerate(lines) if line == table.split("\n")[0]]
    b_first = b.split("\n").index(table.split("\n")[0]) + 1
    reported = sorted(
        ((p["a"]["start_line"], p["a"]["end_line"]), (p["b"]["start_line"], p["b"]["end_line"]))
        if p["a"]["path"].endswith("a.txt")
        else (
            (p["b"]["start_line"], p["b"]["end_line"]),
            (p["a"]["start_line"], p["a"]["end_line"]),
        )
        for p in found
    )
    assert reported == [((at, at + 2), (b_first, b_first + 2)) for at in places]
    once = a.replace(table, _prose(946, 18).strip(), 1)
    (tmp_path / "a.txt").write_text(once, "utf-8")
    assert len(_json_passages(tmp_path)) == 1


def test_code_blocks_are_content_for_passages(tmp_path: Path) -> None:
    """A fenced code block, HTML inside it included, copied between two Markdown documents."""
    code = (
        '<div class="note">\n<a href="https://example.org/x">link</a>\n</div>\n'
        "def scan(paths, limit):\n    for path in paths:\n"
        "        text = read_file(path, max_size=limit, encoding=detect(path))\n"
        "        yield fingerprint(text, weights=idf_table, bits=64)\n"
    )
    (tmp_path / "a.md").write_text(f"# A\n\n{_prose(910, 150)}\n```html\n{code}```\n", "utf-8")
    (tmp_path / "b.md").write_text(f"# B\n\n```\n{code}```\n\n{_prose(911, 150)}\n", "utf-8")
    (p,) = scan_passages([str(tmp_path)], passages=PassageOptions(min_match=20), jobs=1).passages
    # Offsets are in the document's text: the Markdown as rendered, code kept as written.
    document = read_document(str(tmp_path / "a.md"), 1 << 20)
    assert isinstance(document, DecodedDocument)
    text_a = document.text
    # The passage starts at the first word of the copy (the tags of line 1 are no words) and
    # keeps the HTML after it as written.
    assert "</a>\n</div>" in text_a[p.a.start_char : p.a.end_char]
    assert "yield fingerprint" in text_a[p.a.start_char : p.a.end_char]


def test_a_short_document_copied_whole_is_a_passage_of_the_longer(tmp_path: Path) -> None:
    """A note short enough to be judged as a short text (by its characters), pasted whole
    into a longer one: a passage between the two (not a near-duplicate document pair)."""
    note = (
        "the cache is kept for each root and the rescan of it then costs only what has "
        "changed since the last scan of the same root was made"
    )
    (tmp_path / "note.txt").write_text(note + "\n", "utf-8")
    long = f"{_prose(920, 200)}\n\n{note}\n\n{_prose(921, 200)}"
    (tmp_path / "long.txt").write_text(long, "utf-8")
    result = scan_passages([str(tmp_path)], passages=PassageOptions(min_match=20), jobs=1)
    assert result.skipped == ()
    assert result.pairs == ()  # a short text and a long one: not near-duplicate documents
    (p,) = result.passages
    sides = {p.a.path: p.a, p.b.path: p.b}
    inside = sides[str(tmp_path / "long.txt")]
    assert long[inside.start_char : inside.end_char] == note


def test_reworded_passages_are_found_when_asked(tmp_path: Path) -> None:
    """--passage-reworded: a copy with every sentence reworded (exact runs find pieces at
    most) is one passage marked reworded, in compare as in check; without it, none whole."""
    from tests.algorithms.test_sentences import planted_case

    for seed in range(3):
        thesis, planted, source = planted_case(seed)
        (tmp_path / "thesis.txt").write_text(thesis, "utf-8")
        (tmp_path / "source.txt").write_text(source, "utf-8")
        a, b = str(tmp_path / "thesis.txt"), str(tmp_path / "source.txt")
        (p,) = compare_passages(a, b, passages=PassageOptions(min_match=20, reworded=True))
        assert p.how == "reworded"
        start = thesis.index(planted)
        assert start <= p.a.start_char < start + 20
        assert start + len(planted) - 20 < p.a.end_char <= start + len(planted)
        plain = compare_passages(a, b, passages=PassageOptions(min_match=20))
        assert sum(q.a.end_char - q.a.start_char for q in plain) < 0.5 * len(planted)
    shown = CliRunner().invoke(cli, ["compare", a, b, "--passages", "--passage-reworded"])
    assert "(reworded)" in shown.stdout
    record = CliRunner().invoke(
        cli, ["compare", a, b, "--passages", "--passage-reworded", "-f", "json"]
    )
    assert [p["how"] for p in json.loads(record.stdout)["passages"]] == ["reworded"]


def _markup_pair(folder: Path) -> tuple[str, str, list[str]]:
    """a.md and b.html around one copied paragraph of 40 distinct words, written with
    emphasis, a code span, a link and an entity in a.md, tags in b.html."""
    import random

    rnd = random.Random(48)
    words = [f"v{n}q" for n in range(400)]
    rnd.shuffle(words)
    copied = words[:40]
    md_copy = " ".join(
        {3: f"**{w}**", 9: f"`{w}`", 15: f"[{w}](http://example.com/{words[100]})",
         21: f"{w} &amp;", 30: f"_{w}_"}.get(n, w)
        for n, w in enumerate(copied)
    )  # fmt: skip
    html_copy = " ".join(f"<b>{w}</b>" if n % 7 == 0 else w for n, w in enumerate(copied))
    markdown = (f"# Title *here*\n\n{' '.join(words[50:90])}\n\n- {md_copy}\n\n"
                f"{' '.join(words[90:130])}\n")  # fmt: skip
    page = ("<html><head><title>v1q v2q</title><script>var x = 'v3q';</script></head>\n"
            f"<body>\n<h1>Other</h1>\n<p>{' '.join(words[200:240])}</p>\n<p class=\"{words[0]}\">"
            f"\n{html_copy}\n</p>\n<p>{' '.join(words[300:340])}</p>\n</body></html>\n"
            )  # fmt: skip
    folder.mkdir()
    (folder / "a.md").write_text(markdown, "utf-8")
    (folder / "b.html").write_text(page, "utf-8")
    return markdown, page, copied


@pytest.mark.parametrize("engine", ["scan", "compare"])
def test_markup_passages_are_located_in_the_files_characters(tmp_path: Path, engine: str):
    """scan --passages and compare --passages on a Markdown file and an HTML page: each
    region's start_char:end_char are the file's characters of the copied words (its markup
    inside, nothing around), its lines those of the file; read_start/read_end locate it in
    the rendered text; the SARIF region is the same stretch, and the HTML report highlights
    the files' own lines of it."""
    pytest.importorskip("lxml")
    markdown, page, copied = _markup_pair(tmp_path / "docs")
    files = {"a.md": markdown, "b.html": page}
    if engine == "scan":
        args = ["scan", str(tmp_path / "docs"), "--passages", "--no-cache", "-j", "1"]
    else:
        args = ["compare", str(tmp_path / "docs" / "a.md"), str(tmp_path / "docs" / "b.html"),
                "--passages"]  # fmt: skip
    out = CliRunner().invoke(cli, [*args, "-f", "json"])
    assert out.exit_code in (0, 1), out.output
    record = json.loads(out.stdout)
    (pair,) = record["passages"]
    for side in (pair["a"], pair["b"]):
        text = files[Path(side["path"]).name]
        here = text[side["start_char"] : side["end_char"]]
        visible = re.sub(r"\]\([^)]*\)|<[^>]*>|&amp;|[*`_\[]", " ", here).split()
        assert visible == copied
        assert side["offsets"] == "file" and "read_start" in side
        first = text.count("\n", 0, side["start_char"]) + 1
        assert (side["start_line"], side["end_line"]) == (first, first + here.count("\n"))
    if engine == "scan":
        sarif = json.loads(CliRunner().invoke(cli, [*args, "-f", "sarif"]).stdout)
        (result,) = sarif["runs"][0]["results"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["charOffset"], region["charLength"]) == (
            pair["a"]["start_char"], pair["a"]["end_char"] - pair["a"]["start_char"]
        )  # fmt: skip
        report = CliRunner().invoke(cli, [*args, "-f", "html"]).stdout
        marked = re.findall(r"<td class='ln psg'>(\d+)</td><td class='psg'>([^<]*)", report)
        sides = [(files[Path(side["path"]).name].split("\n"), side) for side in pair.values()
                 if isinstance(side, dict)]  # fmt: skip
        expected = sorted((n, text[n - 1]) for text, side in sides
                          for n in range(side["start_line"], side["end_line"] + 1))  # fmt: skip
        assert sorted((int(n), html.unescape(t)) for n, t in marked) == expected
