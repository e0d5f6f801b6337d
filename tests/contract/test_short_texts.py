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


@pytest.mark.parametrize("clique", [3, 256])
def test_same_form_pairs_are_every_pair_of_a_group_or_a_star_above_the_clique(
    clique: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import itertools
    import random

    from simdup.document_table import DocumentTable
    from simdup.join import verify

    monkeypatch.setattr(verify, "SAME_FORM_CLIQUE", clique)
    rng = random.Random(clique)
    for _ in range(40):
        n = rng.randint(0, 60)
        values = [rng.randrange(rng.choice([2, 5, 50])) + 1 for _ in range(n)]
        hashes = [format(v * 0x9E3779B97F4A7C15F39CC0605CEDC834 % 2**128, "032x") for v in values]
        docs = [FingerprintedDocument(f"p{k}", 0, "", "", 0, 0, 0, h, 10)
                for k, h in enumerate(hashes)]  # fmt: skip
        i, j = verify.same_form_pairs(DocumentTable.of(docs))
        got = {(min(a, b), max(a, b)) for a, b in zip(i.tolist(), j.tolist(), strict=True)}
        assert len(got) == i.size  # each pair once
        groups: dict[str, list[int]] = {}
        for k, h in enumerate(hashes):
            groups.setdefault(h, []).append(k)
        want: set[tuple[int, int]] = set()
        for members in groups.values():
            if len(members) <= clique:
                want |= set(itertools.combinations(members, 2))
            else:
                want |= {(members[0], m) for m in members[1:]}
        assert got == want


@pytest.mark.parametrize("keep", ["first", "longest", "shortest"])
def test_a_large_group_of_one_form_keeps_one_row_whatever_the_policy(
    keep: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over SAME_FORM_CLIQUE rows of one form are joined as a star, not every pair: one row is
    kept all the same, and every other names it (the same text)."""
    from simdup.join import verify
    from simdup.rows.dedup import dedup_records

    monkeypatch.setattr(verify, "SAME_FORM_CLIQUE", 4)
    rows = ["Thanks!", "thanks", "THANKS!!!", "Thanks.", "thanks !", "Thanks!!", "other text"]
    decided = dedup_records(rows, keep=keep, jobs=1)
    kept = [rows[k] for k in range(len(rows)) if decided.keep[k]]
    assert len(kept) == 2 and "other text" in kept
    centre = next(k for k in range(6) if decided.keep[k])
    assert {int(decided.duplicate_of[k]) for k in range(6) if k != centre} == {centre}
    if keep == "longest":
        assert rows[centre] == "THANKS!!!"


NOTES = (
    "The library opened its new reading room on Monday. It has forty seats, long tables and "
    "quiet lamps for evening study.",
    "Visitors can borrow up to ten books for four weeks. Renewals are free online, and late "
    "returns cost ten cents a day.",
)


def _notes(first: str, second: str) -> str:
    return f"# Weekly notes\n\n{first}\n\n{second}\n"


def test_moved_paragraphs_of_a_short_text_are_a_move_not_a_rewrite(tmp_path: Path) -> None:
    """Issue 50: a short document with its two paragraphs swapped and two characters changed
    is a near-duplicate in ``compare`` (which says the moved blocks decided) and ``scan``; one
    of its paragraphs with another is not."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(_notes(*NOTES), encoding="utf-8")
    moved = _notes(NOTES[1].replace("a day", "a dey"), NOTES[0].replace("lamps", "lampz"))
    (docs / "b.md").write_text(moved, encoding="utf-8")
    other = "Visitors can borrow up to ten books for four weeks. Opening hours change in May."
    (docs / "c.md").write_text(_notes(NOTES[0], other), encoding="utf-8")
    assert record(moved).chars < SHORT_TEXT_CHARS
    code, out, err = run("compare", str(docs / "a.md"), str(docs / "b.md"))
    assert code == 0, err
    verdict = next(line for line in out.splitlines() if line.startswith("verdict"))
    assert "near-duplicates (short texts: edit similarity 0.2" in verdict
    assert "; with moved blocks 0.99 >= 0.9)" in verdict and "not near" not in verdict
    code, out, err = run("compare", str(docs / "a.md"), str(docs / "c.md"))
    verdict = next(line for line in out.splitlines() if line.startswith("verdict"))
    assert "not near-duplicates" in verdict and "with moved blocks 0.81 < 0.9)" in verdict
    code, out, err = run("scan", str(docs), "-f", "json", "--no-cache")
    assert code == 0, err
    pairs = {(os.path.basename(p["a"]), os.path.basename(p["b"]), p["similarity"])
             for p in json.loads(out)["pairs"]}  # fmt: skip
    form = comparison_form(_notes(*NOTES))
    blocks = len(form) - 2  # its 3 blocks (a heading, 2 paragraphs): the spaces between not counted
    assert pairs == {("a.md", "b.md", round(1 - 2 / blocks, 4))}  # two characters changed
