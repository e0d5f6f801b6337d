"""Short texts (issue 32): a sentence is judged as reliably as a page.

Exact and normalised copies are found at every length, in ``scan``, ``dedup``, ``index``/
``query`` and ``--against``; edited copies of short texts by the edit similarity of their
comparison forms; only a text with nothing in it is left unjudged, and then counted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.join.verify import Verifier
from simdup.options import ScanOptions
from simdup.params import SHORT_TEXT_CHARS
from simdup.records import DecodedDocument, FingerprintedDocument
from simdup.text.normalize import comparison_form
from simdup.text.processor import processor_for

REVIEW = (
    "Arrived two days late, but the kettle boils fast and the lid closes properly; "
    "happy with it overall."
)  # 104 characters: the three identical reviews


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def record(text: str, path: str = "t") -> FingerprintedDocument:
    doc = DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode()))
    made = processor_for(ScanOptions().features).document(doc)
    assert isinstance(made, FingerprintedDocument), made
    return made


def test_the_comparison_form_folds_case_width_punctuation_and_spacing() -> None:
    assert comparison_form("Hello,  WORLD!!") == comparison_form("hello world")
    assert comparison_form("ＡＢＣ１２３") == "abc123"
    assert comparison_form("这个产品很好，我很喜欢。") == comparison_form("这个 产品 很好 我很喜欢")
    assert comparison_form("...") == ""


def test_short_texts_are_judged_by_edit_similarity() -> None:
    verifier = Verifier(ScanOptions())
    a, b = record(REVIEW), record(REVIEW.replace("fast", "quickly"))
    assert a.chars < SHORT_TEXT_CHARS
    verdict = verifier.judge(a, b, 0)
    assert verdict.near and not verdict.exact
    assert "edit similarity" in verdict.reason
    far = record("The kettle is fine.")
    assert not verifier.judge(a, far, 0).near


def test_a_short_text_and_a_long_one_are_not_compared_by_different_features() -> None:
    verifier = Verifier(ScanOptions())
    short = record(REVIEW)
    long = record(" ".join([REVIEW] * 5))
    verdict = verifier.judge(short, long, 0)
    assert not verdict.near
    assert "short" in verdict.reason


def test_same_form_is_exact_whatever_the_case_and_punctuation() -> None:
    verdict = Verifier(ScanOptions()).judge(record("Great product!"), record("great   PRODUCT"), 40)
    assert verdict.near and verdict.exact


def test_dedup_removes_identical_short_reviews_and_counts_empty_rows(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": REVIEW},
        {"id": "b", "text": REVIEW},
        {"id": "c", "text": REVIEW},
        {"id": "d", "text": "ok"},
        {"id": "e", "text": "OK!"},  # the same form as "ok"
        {"id": "f", "text": REVIEW.replace("happy", "hapy")},  # one edit
        {"id": "g", "text": "   "},  # nothing to judge
        {"id": "h", "text": "完全不同的一句话，讲的是别的事情。"},
    ]
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, removed = tmp_path / "out" / "clean.jsonl", tmp_path / "out" / "removed.jsonl"
    out.parent.mkdir()
    code, _, err = run("dedup", str(source), "-o", str(out), "--removed", str(removed),
                       "--id-field", "id")  # fmt: skip
    assert code == 0, err
    kept = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert kept == ["a", "d", "g", "h"]
    listed = [json.loads(line) for line in removed.read_text().splitlines()]
    gone = {r["key"]: r["duplicate_of"] for r in listed if "duplicate_of" in r}
    assert gone == {"b": "a", "c": "a", "e": "d", "f": "a"}
    [blank] = [r for r in listed if "duplicate_of" not in r]
    assert blank["key"] == "g" and blank["judged"] is False and blank["row"] == 6
    assert "too short to judge" in blank["reason"]
    assert "1 too short to judge" in err
    annotated = tmp_path / "out" / "annotated.jsonl"
    code, _, err = run("dedup", str(source), "-o", str(annotated), "--annotate", "--id-field", "id")
    assert code == 0, err
    lines = annotated.read_text().splitlines()
    marks = {r["id"]: r.get("judged", True) for r in map(json.loads, lines)}
    assert marks == {k: k != "g" for k in "abcdefgh"}


def test_scan_finds_a_one_line_file_and_its_copies(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Hello world\n", encoding="utf-8")
    (docs / "b.txt").write_text("hello, WORLD!\n", encoding="utf-8")
    (docs / "c.txt").write_text("你好\n", encoding="utf-8")
    (docs / "d.txt").write_text("你好。\n", encoding="utf-8")
    (docs / "e.txt").write_text("Something else entirely here\n", encoding="utf-8")
    code, out, err = run("scan", str(docs), "-f", "json", "--no-cache")
    assert code == 0, err
    report = json.loads(out)
    pairs = {(os.path.basename(p["a"]), os.path.basename(p["b"]), p["exact"])
             for p in report["pairs"]}  # fmt: skip
    assert pairs == {("a.txt", "b.txt", True), ("c.txt", "d.txt", True)}
    assert report["skipped"] == []


def test_index_query_finds_short_stored_texts(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "review.txt").write_text(REVIEW + "\n", encoding="utf-8")
    (docs / "other.txt").write_text("A different sentence about tea.\n", encoding="utf-8")
    db = str(tmp_path / "i.simdup")
    code, _, err = run("index", "add", str(docs), "--db", db)
    assert code == 0, err
    probe = tmp_path / "probe.txt"
    probe.write_text(REVIEW.upper().replace("FAST", "QUICKLY") + "\n", encoding="utf-8")
    code, out, err = run("query", str(probe), "--db", db, "-f", "json")
    assert code == 0, err
    found = json.loads(out)
    text = json.dumps(found)
    assert "review.txt" in text and "other.txt" not in text


@pytest.mark.parametrize("copy", [REVIEW, REVIEW.lower(), REVIEW.replace("fast", "quick")])
def test_dedup_against_an_index_removes_short_stored_copies(tmp_path: Path, copy: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "review.txt").write_text(REVIEW + "\n", encoding="utf-8")
    db = str(tmp_path / "i.simdup")
    assert run("index", "add", str(docs), "--db", db)[0] == 0
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"text": copy}) + "\n" + json.dumps({"text": "new"}) + "\n")
    out = tmp_path / "out" / "clean.jsonl"
    out.parent.mkdir()
    code, _, err = run("dedup", str(source), "-o", str(out), "--against", db)
    assert code == 0, err
    assert [json.loads(line)["text"] for line in out.read_text().splitlines()] == ["new"]
