"""A dataset row is text as written (rows/fingerprints.py, ``rows_scan_options``): nothing in it
is dropped as markup unless ``--markup markdown|html`` says the rows hold some (issue 50)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.options import ScanOptions
from simdup.params import FeatureParams
from simdup.rows.dedup import dedup_records

# The two rows removed as copies while they were read as Markdown: a generic taken for
# an HTML tag, and two links that differ only in where they go.
GENERIC = ["const child = ref(null)", "const child = ref<ComponentPublicInstance | null>(null)"]
LINKS = [
    "[文档](https://github.com/vuejs/core/blob/main/packages/runtime-core/README.md)",
    "[文档](https://vue-loader.vuejs.org/zh/)",
]


def _dataset(tmp_path: Path, texts: list[str], name: str = "rows.jsonl", key: str = "r") -> Path:
    path = tmp_path / name
    path.write_text(
        "".join(json.dumps({"id": f"{key}{n}", "text": t}, ensure_ascii=False) + "\n"
                for n, t in enumerate(texts)),
        "utf-8",
    )  # fmt: skip
    return path


def _dedup(tmp_path: Path, texts: list[str], *extra: str) -> list[tuple[str, str]]:
    """The (removed, kept for it) pairs of ``simdup dedup`` of ``texts``."""
    data = _dataset(tmp_path, texts)
    out, removed = tmp_path / "out.jsonl", tmp_path / "removed.jsonl"
    done = CliRunner().invoke(
        cli, ["dedup", str(data), "-o", str(out), "--removed", str(removed), "-j", "1", *extra]
    )
    assert done.exit_code == 0, done.output
    listed = [json.loads(line) for line in removed.read_text("utf-8").splitlines()]
    return [(r["key"], r["duplicate_of"]) for r in listed if "duplicate_of" in r]


def test_rows_that_differ_only_in_what_looks_like_markup_are_kept() -> None:
    """By default a generic in angle brackets and a link target are the row's text."""
    result = dedup_records([*GENERIC, *LINKS], jobs=1)
    assert result.removed == 0
    as_markdown = ScanOptions(features=FeatureParams(markup="markdown"), jobs=1)
    joined = dedup_records([*GENERIC, *LINKS], options=as_markdown)
    assert sorted(joined.removals()) == [(1, 0, 1.0), (3, 2, 1.0)]


@pytest.mark.parametrize(
    ("markup", "removed"),
    [
        (None, []),
        ("none", []),
        ("markdown", [("r1", "r0"), ("r3", "r2")]),
        ("html", [("r1", "r0")]),  # a tag is markup, a link target is not
    ],
)
def test_dedup_markup_option(tmp_path: Path, markup: str | None, removed: list[object]) -> None:
    """``dedup`` keeps both rows of each example unless told they hold Markdown or HTML."""
    extra = ["--markup", markup] if markup else []
    assert _dedup(tmp_path, [*GENERIC, *LINKS], *extra) == removed


def test_copies_are_still_found_whatever_their_case_width_punctuation_and_spacing(
    tmp_path: Path,
) -> None:
    """As written is not byte for byte: the comparison form folds what it always did."""
    texts = [
        "Hello, World! This row is copied.",
        "hello world   this ROW is copied",
        "ｈｅｌｌｏ，ｗｏｒｌｄ！ｔｈｉｓ ｒｏｗ ｉｓ ｃｏｐｉｅｄ。",
        "<b>Hello</b> world, this row is copied.",  # a tag is text: not a copy by default
    ]
    assert _dedup(tmp_path, texts) == [("r1", "r0"), ("r2", "r0")]
    assert ("r3", "r0") in _dedup(tmp_path, texts, "--markup", "html")


def test_settings_say_which_markup_was_removed(tmp_path: Path) -> None:
    """A scan's JSON report names the markup setting: none for rows, markdown for files."""
    data = _dataset(tmp_path, LINKS)
    rows = CliRunner().invoke(cli, ["scan", str(data), "--records", "auto", "-f", "json"])
    assert rows.exit_code == 0, rows.output
    assert json.loads(rows.stdout)["settings"]["features"]["markup"] == "none"
    (tmp_path / "a.md").write_text("# A\n\nsome text [here](https://a.example)\n", "utf-8")
    files = CliRunner().invoke(cli, ["scan", str(tmp_path / "a.md"), "-f", "json", "--no-cache"])
    assert json.loads(files.stdout)["settings"]["features"]["markup"] == "markdown"
    both = CliRunner().invoke(cli, ["scan", str(data), "--keep-markup", "--markup", "html"])
    assert both.exit_code == 2 and "--keep-markup is --markup none" in both.stderr


def test_an_index_of_rows_sets_their_markup_unless_another_is_named(tmp_path: Path) -> None:
    """An index whose rows were read as Markdown (as every row was before) is never mixed with
    rows read as written: without ``--markup`` the rows are read as the index's were; naming
    another setting is refused with the option that uses the index."""
    seen = _dataset(tmp_path, [LINKS[0]], "seen.jsonl")
    db = tmp_path / "seen.simdup"
    add = ["index", "add", str(seen), "--records", "auto", "--db", str(db), "--markup", "markdown"]
    made = CliRunner().invoke(cli, add)
    assert made.exit_code == 0, made.output
    # As an index made before wrote it: the setting was a flag.
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'params_description'").fetchone()
        described = json.loads(text)
        assert described["markup"] == "markdown"
        described["markup"] = True
        conn.execute("UPDATE meta SET value = ? WHERE key = 'params_description'",
                     (json.dumps(described, sort_keys=True),))  # fmt: skip
    new = _dataset(tmp_path, [LINKS[1]], "new.jsonl", key="new")
    out = tmp_path / "out.jsonl"
    refused = CliRunner().invoke(cli, ["dedup", str(new), "-o", str(out), "--against", str(db),
                                       "--markup", "none"])  # fmt: skip
    assert refused.exit_code == 4, refused.output
    assert "markup='markdown' (here 'none')" in refused.stderr
    assert "use --markup markdown" in refused.stderr
    for named in (["--markup", "markdown"], []):
        used = CliRunner().invoke(cli, ["dedup", str(new), "-o", str(out), "--against", str(db),
                                        *named, "-j", "1"])  # fmt: skip
        assert used.exit_code == 0, used.output
        assert "0 kept, 1 removed" in used.stderr


def test_stored_fingerprints_of_rows_are_scanned_with_their_setting(tmp_path: Path) -> None:
    """``scan --fingerprints`` of rows stored as written needs no option to name it."""
    pytest.importorskip("pyarrow")
    data = _dataset(tmp_path, [*GENERIC, GENERIC[0]])
    store = tmp_path / "fingerprints"
    made = CliRunner().invoke(cli, ["scan", str(data), "--records", "auto",
                                    "--write-fingerprints", str(store), "-q"])  # fmt: skip
    assert made.exit_code == 0, made.output
    again = CliRunner().invoke(cli, ["scan", "--fingerprints", str(store), "-f", "json"])
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["settings"]["features"]["markup"] == "none"
    assert [sorted(m["path"] for m in c["members"]) for c in report["clusters"]] == [["r0", "r2"]]


def test_packed_ids_extended_a_chunk_at_a_time_read_back_as_appended() -> None:
    """The ids of a chunk packed at once (one join, one run of ends) read back as the same ids
    packed one by one: None stays None, an empty id stays empty, lone surrogates survive."""
    from simdup.rows.fingerprints import PackedStrings

    ids = ["r1", None, "héllo", "", None, "\udc80z", "文档"]
    one_by_one, by_chunk = PackedStrings(), PackedStrings()
    for value in ids:
        one_by_one.append(value)
    by_chunk.extend(iter(ids[:2]))
    by_chunk.extend(value for value in ids[2:])
    by_chunk.extend([])
    assert list(by_chunk) == list(one_by_one) == ids
