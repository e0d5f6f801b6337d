"""simdup.report: path escaping and formula-safe CSV cells."""

from __future__ import annotations

import functools
import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdup
from simdup.names import display_path, escape_path
from simdup.readers import read_document
from simdup.report import FORMATS
from simdup.report.csv import safe_cell


def test_formats() -> None:
    """The scan formats are text, json, jsonl, csv, html and sarif."""
    assert set(FORMATS) == {"text", "json", "jsonl", "csv", "html", "sarif"}


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_formula_cells_get_a_leading_quote(start: str) -> None:
    """Cells a spreadsheet would evaluate are prefixed with "'"."""
    assert safe_cell(start + "cmd") == "'" + start + "cmd"


def test_ordinary_cells_are_unchanged() -> None:
    """Other cells are written as they are."""
    for value in ("docs/a.txt", "中文.txt", "a=b", ""):
        assert safe_cell(value) == value


def test_undecodable_bytes_are_escaped() -> None:
    """Lone surrogates from surrogateescape become \\xNN; valid text is untouched."""
    assert escape_path("bad\udcff.txt") == "bad\\xff.txt"
    assert escape_path("中文/ok.txt") == "中文/ok.txt"


def test_display_path_escapes_control_characters() -> None:
    """Newlines, tabs and escape characters cannot reach the terminal raw."""
    assert display_path("a\nb\tc\x1b[31m.txt") == "a\\nb\\tc\\x1b[31m.txt"
    assert display_path("plain/中文.txt") == "plain/中文.txt"


# File names as Python sees them on POSIX: bytes decoded with surrogateescape.
os_paths = st.one_of(st.text(), st.binary().map(lambda b: b.decode("utf-8", "surrogateescape")))


@given(os_paths)
def test_escaped_paths_are_valid_utf8_and_printable(path: str) -> None:
    """Any file name (undecodable bytes included) renders as valid UTF-8 without control
    characters."""
    shown = display_path(path)
    shown.encode("utf-8")  # no lone surrogates left
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    escape_path(path).encode("utf-8")


def test_different_file_names_are_written_differently() -> None:
    """Two different file names never render as the same string."""
    assert escape_path("bad\\xff.txt") != escape_path("bad\udcff.txt")


def test_html_report_lists_every_cluster_member_and_escapes_names(tmp_path: Path) -> None:
    """The HTML page names every member of every cluster and every skipped file, with markup in
    file names escaped (a name cannot inject tags)."""
    from simdup.report import render

    docs = tmp_path / "docs"
    docs.mkdir()
    text = " ".join(f"word{i}" for i in range(60))
    (docs / "<b>x.txt").write_text(text)
    (docs / "copy.txt").write_text(text)
    (docs / "empty.txt").write_text("")
    result = simdup.scan([docs], jobs=1)
    out = io.StringIO()
    render(result, "html", out, read=functools.partial(read_document, max_size=1 << 26))
    page = out.getvalue()
    assert page.startswith("<!DOCTYPE html>")
    assert "&lt;b&gt;x.txt" in page and "<b>x.txt" not in page
    assert "copy.txt" in page and "empty.txt" in page
    assert page.count("<h2>Cluster ") == len(result.clusters) == 1


@given(
    st.one_of(  # names as POSIX gives them: any bytes, undecodable ones as surrogates
        st.text(min_size=1),
        st.binary(min_size=1).map(lambda b: b.decode("utf-8", "surrogateescape")),
    ),
    st.integers(0, 2**64 - 1),
    st.text(max_size=12),
    st.text(max_size=12),
    st.integers(0, 2**62),
    st.text(max_size=40),
)
def test_file_lines_are_the_encoded_file_records(
    path: str, fp: int, encoding: str, source: str, number: int, content_hash: str
) -> None:
    """The file records a JSON report writes directly are ``json.dumps`` of ``file_record``
    (quotes, backslashes, controls and non-ASCII included)."""
    import dataclasses
    import json

    from simdup.document_table import DocumentTable
    from simdup.records import FingerprintedDocument
    from simdup.report.json import file_lines, file_record

    doc = FingerprintedDocument(
        path, fp, encoding, source, number, number + 1, number + 2, content_hash, number + 3
    )
    [line] = file_lines([doc])
    assert line == json.dumps(file_record(doc), ensure_ascii=False)
    assert json.loads(line) == file_record(doc)
    # A scan's table is written from its columns: the same text (canonical hashes as bytes).
    canonical = dataclasses.replace(doc, content_hash=f"{fp:032x}"[-32:])
    lines = list(file_lines([doc, canonical]))
    assert list(file_lines(DocumentTable.of([doc, canonical]))) == lines


# ------------------------------------------------------------- renderers carved out of the cli


def _baseline_outcome(new: int, stale: int, code: int) -> tuple[object, object]:
    from simdup.baseline import Entry, Side
    from simdup.exitcodes import ExitCode
    from simdup.outcome import ScanOutcome
    from simdup.records import DuplicatePair, ScanResult

    pairs = tuple(DuplicatePair(f"d/a{n}.txt", f"d/b{n}.txt", n % 4, 0.9, False) for n in range(30))
    entries = tuple(
        Entry(Side(f"/x/o{n}", f"old/o{n}.txt"), Side(f"/x/p{n}", f"old/p{n}.txt"))
        for n in range(stale)
    )
    result = ScanResult({}, (), (), pairs, (), {})
    outcome = ScanOutcome(ExitCode(code), pairs[:new], 0, True, entries)
    return outcome, result


def test_baseline_diff_lists_new_pairs_and_stale_entries_up_to_twenty() -> None:
    """The lines ``scan --baseline`` writes to stderr (golden): at most 20 of each, the rest
    counted; the new pairs even when quiet if they make the run fail, stale entries never."""
    from simdup.report.baseline import render_baseline_diff

    outcome, result = _baseline_outcome(new=22, stale=1, code=1)
    out = io.StringIO()
    render_baseline_diff(outcome, result, "base.json", False, out)  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert lines[0] == "simdup: 22 of 30 near-duplicate pairs are not in the baseline base.json"
    assert lines[1] == "  d/a0.txt  d/b0.txt  distance 0"
    assert lines[20] == "  d/a19.txt  d/b19.txt  distance 3"
    assert lines[21:] == [
        "  ... and 2 more",
        "simdup: 1 entry of the baseline base.json matches no pair now (stale: rewrite it "
        "with --write-baseline)",
        "  old/o0.txt  old/p0.txt",
    ]
    quiet = io.StringIO()
    render_baseline_diff(outcome, result, "base.json", True, quiet)  # type: ignore[arg-type]
    assert quiet.getvalue().splitlines() == lines[:22]
    passing, _ = _baseline_outcome(new=0, stale=0, code=0)
    silent = io.StringIO()
    render_baseline_diff(passing, result, "base.json", True, silent)  # type: ignore[arg-type]
    assert silent.getvalue() == ""


def test_config_listing_aligns_values_and_names_their_sources() -> None:
    """``simdup config`` as text (golden) and as JSON."""
    import json

    from simdup.config import COMMAND_LINE, DEFAULT, Setting, Settings
    from simdup.report.config import render_settings

    settings = Settings(
        "proj/pyproject.toml",
        (
            Setting("threshold", "threshold", 4, COMMAND_LINE),
            Setting("exclude", "exclude", ("build/*",), "proj/pyproject.toml"),
            Setting("output", "output", None, DEFAULT),
        ),
    )
    out = io.StringIO()
    render_settings(settings, "text", out)
    assert out.getvalue() == (
        "configuration file: proj/pyproject.toml\n"
        "threshold  4            (command line)\n"
        'exclude    ["build/*"]  (proj/pyproject.toml)\n'
        "output     -            (default)\n"
    )
    as_json = io.StringIO()
    render_settings(settings, "json", as_json)
    assert json.loads(as_json.getvalue()) == settings.describe()


def test_cache_info_says_where_the_cache_is_and_what_it_holds() -> None:
    """``simdup cache info`` (golden), for a cache folder and for none."""
    import json

    from simdup.report.store import render_cache_info
    from simdup.store.cache import CacheInfo

    info = CacheInfo("c", 3, 1234, 5_000_000, 1 << 31)
    out = io.StringIO()
    render_cache_info("c", info, 1 << 31, "text", out)
    assert out.getvalue() == (
        "cache        c\n"
        "scans        3 (1,234 files)\n"
        "size         5,000,000 bytes\n"
        "bound        2,147,483,648 bytes (least recently used scans dropped past it)\n"
    )
    none = io.StringIO()
    render_cache_info("c", None, 1 << 30, "json", none)
    assert json.loads(none.getvalue()) == {
        "path": "c", "scans": 0, "files": 0, "bytes": 0, "max_bytes": 1 << 30
    }


def test_cjk_file_names_keep_the_text_columns_aligned(tmp_path: Path) -> None:
    """Padding counts terminal columns, not code points: an ideograph takes two (issue 33)."""
    from simdup.names import display_width

    text = " ".join(f"term{i}" for i in range(80))
    (tmp_path / "论文甲.txt").write_text(text, encoding="utf-8")
    (tmp_path / "ab.txt").write_text(text + " extra", encoding="utf-8")
    out = io.StringIO()
    simdup.report.render(simdup.scan([str(tmp_path)], jobs=1), "text", out)
    members = [line for line in out.getvalue().splitlines() if line.startswith("  ")]
    assert len(members) == 2
    # What follows the name starts in the same terminal column on both lines.
    after = [line.index("representative") if "representative" in line else line.index("distance")
             for line in members]  # fmt: skip
    starts = [display_width(line[:at]) for line, at in zip(members, after, strict=True)]
    assert starts[0] == starts[1]
