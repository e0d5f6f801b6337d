"""The store commands through the command line: ``index add|remove|stats|list``, ``query``,
``scan --against`` (the library itself: tests/store/test_index.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import run


def test_index_add_stats_list_remove(corpus: Path) -> None:
    """add stores every fingerprintable file under its path; stats and list show them; remove
    takes one out (and exits 3 for a key that is not there)."""
    added = run("index", "add", "docs/en", "--db", "c.simdup")
    assert added.exit_code == 0, added.stderr
    keys = run("index", "list", "--db", "c.simdup").stdout.split()
    assert keys == sorted(keys) and "docs/en/fable-crow.txt" in keys
    stats = json.loads(run("index", "stats", "--db", "c.simdup", "-f", "json").stdout)
    assert stats["documents"] == len(keys) == stats["verifiable"]
    assert stats["algorithm_version"].startswith("simdup-simhash64/")
    removed = run("index", "remove", "docs/en/fable-crow.txt", "nope.txt", "--db", "c.simdup")
    assert removed.exit_code == 3 and "nope.txt: not in the index" in removed.stderr
    assert "docs/en/fable-crow.txt" not in run("index", "list", "--db", "c.simdup").stdout


def test_query_lists_stored_near_duplicates_nearest_first(corpus: Path) -> None:
    """query answers per file with the stored near-duplicates (never the file's own entry);
    --fail-on-duplicates exits 1 when one is found; JSON for pipelines."""
    run("index", "add", "docs/en", "--db", "c.simdup")
    probe = corpus.parent / "probe.txt"
    shutil.copy(corpus / "en" / "fable-crow.txt", probe)
    text = run("query", "probe.txt", "docs/en/fable-crow.txt", "--db", "c.simdup")
    assert text.exit_code == 0, text.stderr
    assert "probe.txt: 2 near-duplicates in" in text.stdout
    report = json.loads(
        run("query", "probe.txt", "docs/en/fable-crow.txt", "--db", "c.simdup", "-f", "json").stdout
    )
    assert report["schema"] == "simdup-query/1"
    probe_matches, own = (r["matches"] for r in report["results"])
    assert [m["key"] for m in probe_matches][0] == "docs/en/fable-crow.txt"  # exact: nearest
    assert probe_matches[0]["exact"] and probe_matches[0]["distance"] == 0
    assert "docs/en/fable-crow.txt" not in [m["key"] for m in own]
    assert [m["distance"] for m in probe_matches] == sorted(m["distance"] for m in probe_matches)
    failing = run("query", "probe.txt", "--db", "c.simdup", "--fail-on-duplicates")
    assert failing.exit_code == 1


def test_query_of_an_unusable_file_exits_3(corpus: Path) -> None:
    """A file that cannot be fingerprinted is reported in the answer, not a crash."""
    run("index", "add", "docs/en", "--db", "c.simdup")
    result = run("query", "docs/misc/image.bin", "--db", "c.simdup")
    assert result.exit_code == 3
    assert "not queried: binary file (PNG image)" in result.stdout


@pytest.mark.parametrize("method", ["simhash", "minhash"])
def test_scan_against_works_with_either_method(corpus: Path, method: str) -> None:
    """A MinHash scan keeps the bottom-k sketches when it is checked against an index, whose
    verification needs them: the stored copy is found with either method."""
    run("index", "add", "docs/en", "--db", "c.simdup")
    new = corpus.parent / "new"
    new.mkdir()
    shutil.copy(corpus / "en" / "fable-crow.txt", new / "crow-copy.txt")
    result = run("scan", "new", "--against", "c.simdup", "-f", "json", "--method", method)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert ("docs/en/fable-crow.txt", "new/crow-copy.txt") in {
        (p["a"], p["b"]) for p in report["pairs"]
    }


def test_scan_against_reports_only_new_and_cross_pairs(corpus: Path) -> None:
    """scan NEW --against DB: pairs among the new files and between a new file and a stored
    one; never a pair of two stored documents."""
    run("index", "add", "docs/en", "--db", "c.simdup")
    new = corpus.parent / "new"
    new.mkdir()
    shutil.copy(corpus / "en" / "fable-crow.txt", new / "crow-copy.txt")
    shutil.copy(corpus / "zh" / "essay-rain.txt", new / "rain.txt")
    shutil.copy(corpus / "zh" / "essay-rain.txt", new / "rain-again.txt")
    result = run("scan", "new", "--against", "c.simdup", "-f", "json", "-j", "1")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    pairs = {(p["a"], p["b"]) for p in report["pairs"]}
    assert ("new/rain-again.txt", "new/rain.txt") in pairs
    assert any(a == "docs/en/fable-crow.txt" and b == "new/crow-copy.txt" for a, b in pairs)
    for a, b in pairs:
        assert a.startswith("new/") or b.startswith("new/"), (a, b)
    assert report["summary"]["against"] == "c.simdup"
    assert report["summary"]["stored_matched"] >= 1
    assert {f["path"] for f in report["files"]} == {
        "new/crow-copy.txt",
        "new/rain.txt",
        "new/rain-again.txt",
    }


def test_store_paths_inside_a_scanned_folder_are_refused(corpus: Path) -> None:
    """An index (and its journal) is never written inside what is scanned."""
    refused = run("index", "add", "docs", "--db", "docs/c.simdup")
    assert refused.exit_code == 2 and "never writes into the folders it scans" in refused.stderr
    assert not (corpus / "c.simdup").exists()


def test_missing_and_damaged_indexes(corpus: Path) -> None:
    """A missing index is a usage error (2); a file that is not an index exits 4 naming it;
    --rebuild recreates it."""
    assert run("query", "docs/en/fable-crow.txt", "--db", "missing.simdup").exit_code == 2
    Path("bad.simdup").write_bytes(b"not a database at all" * 100)
    damaged = run("query", "docs/en/fable-crow.txt", "--db", "bad.simdup")
    assert damaged.exit_code == 4 and "bad.simdup" in damaged.stderr
    rebuilt = run("index", "add", "docs/en", "--db", "bad.simdup", "--rebuild")
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert run("query", "docs/en/fable-crow.txt", "--db", "bad.simdup").exit_code == 0


def test_counts_in_index_and_query_messages_agree_with_their_number(corpus: Path) -> None:
    """"1 document added ..., 0 files skipped", "1 near-duplicate in": never "1 documents" nor
    "near-duplicate(s)"."""
    one = run("index", "add", "docs/en/fable-crow.txt", "--db", "c.simdup")
    assert one.exit_code == 0, one.stderr
    assert "simdup: 1 document added to c.simdup (1 in all), 0 files skipped" in one.stderr
    shutil.copy(corpus / "en" / "fable-crow.txt", corpus.parent / "probe.txt")
    answer = run("query", "probe.txt", "--db", "c.simdup")
    assert "probe.txt: 1 near-duplicate in c.simdup\n" in answer.stdout
    assert "(s)" not in answer.stdout + one.stderr
