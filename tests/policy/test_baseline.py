"""Baselines keyed by content: ``scan --write-baseline`` and ``scan --baseline`` (issue 11).

Most tests run in a temporary git repository holding ``docs/`` with one accepted pair
(``a.txt``, ``b.txt``: the same 80 words, ``b`` with one more) and an unrelated ``c.txt``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup.cli import cli
from simdup.errors import ConfigError
from simdup.options import ScanOptions
from simdup.policy.baseline import SCHEMA, Baseline, baseline_record
from simdup.policy.outcome import scan_outcome
from simdup.scanning import scan

WORDS = " ".join(f"term{i}" for i in range(80))
OTHER = " ".join(f"other{i}" for i in range(80))


def run(*args: str) -> Result:
    """Invoke the CLI (one worker process); exceptions other than SystemExit propagate."""
    return CliRunner().invoke(cli, [*args, "-j", "1"], catch_exceptions=False)


def explain(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with committed docs/ (a.txt ~ b.txt, c.txt alone) as the working
    directory, and its baseline written to base.json."""
    root = tmp_path / "repo"
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "a.txt").write_text(WORDS)
    (docs / "b.txt").write_text(WORDS + " extra")
    (docs / "c.txt").write_text(OTHER)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "docs")
    monkeypatch.chdir(root)
    written = run("scan", "docs", "-q", "--write-baseline", "base.json")
    assert written.exit_code == 0, explain(written)
    return root


def gate(*args: str) -> Result:
    return run("scan", *args, "--baseline", "base.json", "--fail-on-duplicates")


@pytest.mark.parametrize("spelling", ["docs", "./docs", "absolute", "docs/"])
def test_a_written_baseline_accepts_every_spelling_of_the_folder(repo: Path, spelling: str) -> None:
    """The baseline written by a scan of ``docs`` accepts the same pair when the next run
    names the folder ``./docs``, ``docs/`` or by its absolute path (exit 0, nothing new)."""
    path = str(repo / "docs") if spelling == "absolute" else spelling
    result = gate(path)
    assert result.exit_code == 0, explain(result)
    assert "the 1 near-duplicate pair is in the baseline" in result.stderr


def test_a_written_baseline_survives_git_mv(repo: Path) -> None:
    """After ``git mv`` of an accepted file (and of the whole folder) the pair still matches,
    by content hash."""
    git(repo, "mv", "docs/b.txt", "docs/renamed.txt")
    git(repo, "commit", "-qm", "rename")
    assert gate("docs").exit_code == 0
    git(repo, "mv", "docs", "pages")
    result = gate("pages", "-q")
    assert result.exit_code == 0, explain(result)
    assert result.stderr == ""


@pytest.mark.parametrize("quiet", [False, True], ids=["plain", "quiet"])
def test_a_near_copy_fails_and_is_named_also_with_quiet(repo: Path, quiet: bool) -> None:
    """A new near-copy (of the unaccepted c.txt, and of the accepted a.txt) exits 1 and each
    new pair is named on stderr, with -q too; the accepted pair is not listed."""
    (repo / "docs" / "c-copy.txt").write_text(OTHER + " more")
    (repo / "docs" / "a-copy.txt").write_text(WORDS + " another")
    result = gate("docs", *(["-q"] if quiet else []))
    assert result.exit_code == 1, explain(result)
    assert "c-copy.txt" in result.stderr
    assert "a-copy.txt" in result.stderr
    new_lines = [line for line in result.stderr.splitlines() if line.startswith("  ")]
    assert all("copy" in line for line in new_lines), explain(result)


def test_an_edited_and_moved_file_matches_by_fingerprint(repo: Path) -> None:
    """An accepted file that was lightly edited (new content hash) and moved (new path) still
    matches its side by fingerprint, within the scan's threshold; with -k 0 it does not."""
    b = repo / "docs" / "b.txt"
    b.rename(repo / "docs" / "moved.txt")
    (repo / "docs" / "moved.txt").write_text(WORDS + " extra more words")  # distance 2
    options = ScanOptions(jobs=1)
    result = scan([str(repo / "docs")], options)
    assert len(result.pairs) == 1
    baseline = Baseline.load("base.json")
    side_b = baseline.entries[0].b
    moved = next(d for d in result.files if d.path.endswith("moved.txt"))
    assert moved.content_hash != side_b.content_hash
    assert side_b.fingerprint is not None
    assert 0 < bin(moved.fingerprint ^ side_b.fingerprint).count("1") <= options.threshold
    accepted = gate("docs")
    assert accepted.exit_code == 0, explain(accepted)
    strict = gate("docs", "-k", "0")
    assert strict.exit_code == 1, explain(strict)
    assert "moved.txt" in strict.stderr


def test_fingerprints_are_not_compared_across_algorithm_versions(repo: Path) -> None:
    """A baseline written by another algorithm version matches by path only: a renamed
    accepted file is then a new pair."""
    data = json.loads((repo / "base.json").read_text("utf-8"))
    data["algorithm_version"] = "simdup-simhash64/0"
    (repo / "base.json").write_text(json.dumps(data))
    assert gate("docs").exit_code == 0
    (repo / "docs" / "b.txt").rename(repo / "docs" / "renamed.txt")
    assert gate("docs").exit_code == 1


def test_a_json_report_works_as_a_baseline_and_survives_git_mv(repo: Path) -> None:
    """A ``--format json`` (or ``jsonl``) report is a baseline too, its paths relative to the
    current folder (written for ``docs``, it accepts ``./docs``), and its file records carry
    the content hashes: an accepted file renamed since (``git mv``) still matches."""
    for fmt in ("json", "jsonl"):
        made = run("scan", "docs", "-q", "-f", fmt, "-o", "base.json")
        assert made.exit_code == 0, explain(made)
        for spelling in ("docs", "./docs", str(repo / "docs")):
            result = gate(spelling)
            assert result.exit_code == 0, explain(result)
        git(repo, "mv", "docs/b.txt", "docs/renamed.txt")
        moved = gate("docs")
        assert moved.exit_code == 0, explain(moved)
        git(repo, "mv", "docs/renamed.txt", "docs/b.txt")


def test_a_report_without_file_records_matches_by_path_only(repo: Path) -> None:
    """A report whose settings or file records are missing (an older or hand-made one) is
    matched by path only: a renamed accepted file is then a new pair. So is a report written
    under another algorithm version."""
    made = run("scan", "docs", "-q", "-f", "json", "-o", "base.json")
    assert made.exit_code == 0, explain(made)
    report = json.loads((repo / "base.json").read_text("utf-8"))
    for variant in ("no files", "other version"):
        data = dict(report)
        if variant == "no files":
            del data["files"]
        else:
            data["algorithm_version"] = "simdup-simhash64/0"
        (repo / "base.json").write_text(json.dumps(data))
        assert gate("docs").exit_code == 0
        (repo / "docs" / "b.txt").rename(repo / "docs" / "renamed.txt")
        assert gate("docs").exit_code == 1, variant
        (repo / "docs" / "renamed.txt").rename(repo / "docs" / "b.txt")


def test_stale_entries_are_reported_not_an_error(repo: Path) -> None:
    """An entry that matches no pair of the run (its duplicate was removed) is listed on
    stderr as stale, without changing the exit status; -q leaves the notice out."""
    (repo / "docs" / "b.txt").unlink()
    result = gate("docs")
    assert result.exit_code == 0, explain(result)
    assert "1 entry of the baseline base.json matches no pair now" in result.stderr
    assert "  docs/a.txt  docs/b.txt" in result.stderr
    quiet = gate("docs", "-q")
    assert (quiet.exit_code, quiet.stderr) == (0, "")
    outcome = scan_outcome(
        scan(["docs"], ScanOptions(jobs=1)),
        fail_on_duplicates=True,
        baseline=Baseline.load("base.json"),
        options=ScanOptions(jobs=1),
    )
    assert (outcome.code, outcome.new_pairs) == (0, ())
    assert [(e.a.shown, e.b.shown) for e in outcome.stale] == [("docs/a.txt", "docs/b.txt")]


def test_the_baseline_format_round_trips(repo: Path) -> None:
    """A written baseline holds, per pair side, the path relative to the baseline's folder
    (POSIX separators), the content hash and the hex fingerprint; loading it gives back the
    same facts, and it accepts exactly the pairs of the scan it was written from."""
    options = ScanOptions(jobs=1)
    result = scan(["docs"], options)
    (repo / "ci").mkdir()
    record = baseline_record(result, "ci/base.json", options.features)
    assert record["schema"] == SCHEMA
    (pair,) = record["pairs"]
    docs = {d.path: d for d in result.files}
    assert pair["a"] == {
        "path": "../docs/a.txt",
        "content_hash": docs[os.path.join("docs", "a.txt")].content_hash,
        "fingerprint": f"{docs[os.path.join('docs', 'a.txt')].fingerprint:016x}",
    }
    (repo / "ci" / "base.json").write_text(json.dumps(record))
    loaded = Baseline.load("ci/base.json")
    (entry,) = loaded.entries
    assert entry.a.path == str(repo / "docs" / "a.txt")
    assert (entry.a.shown, entry.b.shown) == ("../docs/a.txt", "../docs/b.txt")
    assert entry.b.content_hash == docs[os.path.join("docs", "b.txt")].content_hash
    assert entry.b.fingerprint == docs[os.path.join("docs", "b.txt")].fingerprint
    assert all(loaded.accepts(p, docs, options) for p in result.pairs)
    assert loaded.stale(result.pairs, docs, options) == ()
    written = run("scan", "docs", "-q", "--write-baseline", "ci/base2.json")
    assert written.exit_code == 0, explain(written)
    assert json.loads((repo / "ci" / "base2.json").read_text("utf-8")) == record


def test_write_baseline_is_refused_inside_a_scanned_folder(repo: Path) -> None:
    """simdup never writes into what it scans: --write-baseline docs/base.json is a usage
    error and no file appears."""
    result = run("scan", "docs", "--write-baseline", "docs/base.json")
    assert result.exit_code == 2, explain(result)
    assert "--write-baseline" in result.stderr
    assert not (repo / "docs" / "base.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"schema": "simdup-baseline/9", "pairs": []}, "is not 'simdup-baseline/1'"),
        ({"schema": SCHEMA, "pairs": {}}, "'pairs' must be a list, not an object"),
        ({"schema": SCHEMA, "pairs": [{"a": {"path": "x"}}]}, "a pair without 'a' and 'b'"),
        ({"schema": SCHEMA, "pairs": [{"a": {}, "b": {}}]}, "a side without a 'path'"),
        (
            {"schema": SCHEMA, "pairs": [{"a": {"path": "x", "fingerprint": "zz"}, "b": {}}]},
            "a 'fingerprint' that is not hexadecimal",
        ),
    ],
    ids=["newer-schema", "pairs-object", "no-b", "no-path", "bad-fingerprint"],
)
def test_a_malformed_baseline_is_a_config_error(
    tmp_path: Path, content: object, message: str
) -> None:
    """Baseline.load names the file and the fault; the command line makes it exit 2."""
    path = tmp_path / "base.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ConfigError, match=message):
        Baseline.load(str(path))
    (tmp_path / "d").mkdir()
    result = run("scan", str(tmp_path / "d"), "--baseline", str(path))
    assert result.exit_code == 2, explain(result)
    assert message in result.stderr


def test_writing_a_baseline_says_so(repo: Path) -> None:
    """--write-baseline names the file and how many pairs it accepts (it wrote silently);
    -q keeps it quiet (issue 33)."""
    said = run("scan", "docs", "--write-baseline", "again.json")
    assert said.exit_code == 0, explain(said)
    assert "baseline written to again.json: 1 pair accepted" in said.stderr
    quiet = run("scan", "docs", "-q", "--write-baseline", "again.json")
    assert "baseline written" not in quiet.stderr
