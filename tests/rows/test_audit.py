"""``dedup --audit N`` and the per-file and per-source summary (issue 50)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from simdup.cli import cli
from tests.conftest import pseudo_words


def _article(seed: int, n: int = 80) -> str:
    return " ".join(pseudo_words(seed, n).split())


def _edited(text: str, at: int) -> str:
    words = text.split()
    words[at] = "changed"
    return " ".join(words)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _dataset(tmp_path: Path) -> tuple[Path, Path]:
    """``a.jsonl`` loses 5 of its 7 rows (every rule), ``b.jsonl`` none of its 3."""
    long = _article(1)
    short = "Remove the specified handler from this logger <script>alert(1)</script>"
    a = _write(tmp_path / "a.jsonl", [
        {"id": "a0", "text": long, "meta": {"src": "web"}},
        {"id": "a1", "text": _edited(long, 9), "meta": {"src": "web"}},  # near, by words
        {"id": "a2", "text": long, "meta": {"src": "web"}},  # exact copy
        {"id": "a3", "text": long.upper(), "meta": {"src": "books"}},  # normalised copy
        {"id": "a4", "text": short, "meta": {"src": "web"}},
        {"id": "a5", "text": short.replace("logger", "loger"), "meta": {"src": "web"}},  # edit
        {"id": "a6", "text": short + "!", "meta": {"src": "web"}},  # normalised copy
    ])  # fmt: skip
    b = _write(tmp_path / "b.jsonl", [
        {"id": f"b{k}", "text": _article(10 + k), "meta": {"src": "books"}} for k in range(3)
    ])  # fmt: skip
    return a, b


def _dedup(tmp_path: Path, *extra: str) -> Any:
    a, b = _dataset(tmp_path)
    args = ["dedup", str(a), str(b), "-o", str(tmp_path / "clean.jsonl"), "--id-field", "id"]
    return CliRunner().invoke(cli, [*args, *extra])


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "clean.audit.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_audit_samples_n_removals_beside_the_rows_kept_for_them(tmp_path: Path) -> None:
    result = _dedup(tmp_path, "--audit", "3")
    assert result.exit_code == 0, result.output
    sample = _audit(tmp_path)
    assert len(sample) == 3
    kept = {json.loads(line)["id"] for line in (tmp_path / "clean.jsonl").open()}
    for record in sample:
        assert record["removed"]["key"] not in kept
        assert record["kept"]["key"] in kept  # a kept row that exists, with its text
        assert record["kept"]["text"] and record["removed"]["text"]
        assert record["rule"] in {"same", "edit", "similarity"} and record["rule_name"]
        assert record["simhash_distance"] is not None and record["similarity"] > 0.8
    # The same seed, the same sample; a larger one adds to it.
    assert _dedup(tmp_path, "--audit", "3", "--audit-seed", "0").exit_code == 0
    assert _audit(tmp_path) == sample
    assert _dedup(tmp_path, "--audit", "4").exit_code == 0
    larger = [r["removed"]["key"] for r in _audit(tmp_path)]
    assert {r["removed"]["key"] for r in sample} < set(larger)
    seeds = set()
    for seed in range(8):
        assert _dedup(tmp_path, "--audit", "2", "--audit-seed", str(seed)).exit_code == 0
        seeds.add(tuple(r["removed"]["key"] for r in _audit(tmp_path)))
    assert len(seeds) > 1  # the seed chooses


def test_audit_names_the_rule_that_decided_each_removal(tmp_path: Path) -> None:
    assert _dedup(tmp_path, "--audit", "100").exit_code == 0
    found = {r["removed"]["key"]: r for r in _audit(tmp_path)}
    assert sorted(found) == ["a1", "a2", "a3", "a5", "a6"]  # every removal, in row order
    assert found["a2"]["rule_name"].startswith("exact copy")
    assert found["a3"]["rule_name"].startswith("normalised copy")
    assert (found["a1"]["rule"], found["a1"]["measure"]) == ("similarity", "word-set Jaccard")
    assert (found["a5"]["rule"], found["a5"]["measure"]) == ("edit", "edit similarity")
    assert found["a5"]["kept"]["key"] == "a4" and 0.9 <= found["a5"]["similarity"] < 1


def test_audit_page_escapes_the_texts_and_marks_the_differences(tmp_path: Path) -> None:
    assert _dedup(tmp_path, "--audit", "100").exit_code == 0
    page = (tmp_path / "clean.audit.html").read_text("utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<ins>loger</ins>" in page and "<del>logger</del>" in page
    assert page.count("<table class=diff>") == 5


def test_summary_counts_rows_per_file_and_source_and_warns(tmp_path: Path) -> None:
    result = _dedup(tmp_path, "--source-field", "meta.src")
    assert result.exit_code == 0, result.output
    err = result.stderr
    assert "10 rows read: 5 kept, 5 removed, 0 skipped" in err
    assert "a.jsonl: 7 read, 2 kept, 5 removed" in err
    assert "b.jsonl: 3 read, 3 kept, 0 removed" in err
    assert "meta.src=web: 6 read, 2 kept, 4 removed" in err
    assert "meta.src=books: 4 read, 3 kept, 1 removed" in err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 2  # a.jsonl and web lost more than half; b.jsonl and books did not
    assert "a.jsonl lost 5 of its 7 rows (71%)" in warnings[0]
    assert "meta.src=web lost 4 of its 6 rows" in warnings[1]
    assert not (tmp_path / "clean.audit.jsonl").exists()  # no audit asked for
    quiet = _dedup(tmp_path, "--source-field", "meta.src", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_audit_options_are_checked_before_the_work(tmp_path: Path) -> None:
    result = _dedup(tmp_path, "--audit-seed", "3")
    assert result.exit_code == 2 and "--audit-seed needs --audit" in result.stderr
    a = tmp_path / "a.jsonl"
    result = _dedup(tmp_path, "--audit", "1", "--audit-to", str(a.with_suffix("")))
    assert result.exit_code == 2 and "--audit-to" in result.stderr  # it would write a.jsonl
    assert a.read_text("utf-8").count("\n") == 7 and not (tmp_path / "clean.jsonl").exists()
    result = _dedup(tmp_path, "--spans", "paragraph", "--audit", "1")
    assert result.exit_code == 2 and "not --spans" in result.stderr


def test_audit_names_a_stored_document_a_row_was_removed_for(tmp_path: Path) -> None:
    a, b = _dataset(tmp_path)
    db = tmp_path / "seen.simdup"
    args = ["index", "add", str(b), "--records", "auto", "--id-field", "id", "--db", str(db)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    again = _write(tmp_path / "again.jsonl", [{"id": "new", "text": _article(11)}])
    args = ["dedup", str(again), "-o", str(tmp_path / "clean.jsonl"), "--against", str(db),
            "--id-field", "id", "--audit", "5"]  # fmt: skip
    assert CliRunner().invoke(cli, args).exit_code == 0
    (record,) = _audit(tmp_path)
    kept = record["kept"]
    assert (record["rule"], kept["key"], kept["stored"]) == ("stored", "b1", True)
    assert record["removed"]["text"] == _article(11) and record["reason"]


def test_audit_names_moved_paragraphs_as_the_rule(tmp_path: Path) -> None:
    """A short row whose paragraphs were swapped and one character changed is removed by its
    block-move similarity, and the audit says so."""
    first = "The kettle boils fast and the lid closes properly."
    second = "It arrived two days late, but I am happy with it overall."
    rows = _write(tmp_path / "r.jsonl", [
        {"id": "r0", "text": f"{first}\n\n{second}"},
        {"id": "r1", "text": f"{second.replace('happy', 'hapy')}\n\n{first}"},
        {"id": "r2", "text": "A different review about a toaster that burns the bread."},
    ])  # fmt: skip
    args = ["dedup", str(rows), "-o", str(tmp_path / "clean.jsonl"), "--id-field", "id"]
    result = CliRunner().invoke(cli, [*args, "--audit", "5"])
    assert result.exit_code == 0, result.output
    (record,) = _audit(tmp_path)
    assert (record["removed"]["key"], record["kept"]["key"]) == ("r1", "r0")
    assert (record["rule"], record["measure"]) == ("moves", "block-move similarity")
    assert record["rule_name"].startswith("short texts: block-move similarity")
    assert record["reason"] == (
        f"short texts: edit similarity < 0.9; with moved blocks {record['similarity']:.2f} >= 0.9"
    )
    assert record["similarity"] == round(1 - 1 / (len(first) + len(second) - 3), 4)
