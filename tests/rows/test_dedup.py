"""Deduplicating a dataset of rows: ``dedup_records`` (rows/dedup.py) and the ``simdup dedup``
command, which writes the kept rows back in their format (rows/dedup_files.py)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simdup.readers.rows import read_records

zstandard = pytest.importorskip("zstandard")


def _jsonl(rows: list[object]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows)


# -- dedup_records ------------------------------------------------------------------------------


def _article(seed: int, n: int = 80) -> str:
    from tests.conftest import pseudo_words

    return " ".join(pseudo_words(seed, n).split())


def _edited(text: str, at: int) -> str:
    words = text.split()
    words[at] = "changed"
    return " ".join(words)


def test_dedup_keeps_one_row_per_cluster_and_names_it() -> None:
    from simdup.rows.dedup import dedup_records

    a, b = _article(1), _article(2)
    rows = [a, b, _edited(a, 10), a + " extra words at the end", _edited(b, 40), _article(3)]
    found = dedup_records(rows)
    assert found.keep.tolist() == [True, True, False, False, False, True]
    assert found.duplicate_of.tolist() == [-1, -1, 0, 0, 1, -1]
    assert found.cluster[2] == found.cluster[3] == found.cluster[0] != found.cluster[1]
    assert found.cluster[5] == -1 and np.isnan(found.similarity[0])
    assert all(0.8 <= s <= 1.0 for _, _, s in found.removals())
    # Longest keeps the longer revision; every removed row names the kept one.
    longest = dedup_records(rows, keep="longest")
    assert longest.keep[[0, 2, 3, 5]].tolist() == [False, False, True, True]
    assert longest.duplicate_of[0] == longest.duplicate_of[2] == 3
    assert longest.keep[1] != longest.keep[4]  # one of b and its edit, the longer
    assert all(longest.keep[kept] for _, kept, _ in longest.removals())


def test_dedup_never_chains() -> None:
    """A ~ B and B ~ C but not A ~ C: B goes with A, and C stays (it repeats no kept row)."""
    from simdup.rows.dedup import dedup_records

    base = _article(5, 120).split()
    a = " ".join(base)
    b = " ".join(base[:100] + _article(6, 20).split())
    c = " ".join(base[:80] + _article(6, 20).split() + _article(7, 20).split())
    found = dedup_records([a, b, c], min_similarity=0.7)
    kept_for = [kept for _, kept, _ in found.removals()]
    assert all(found.keep[kept] for kept in kept_for)  # a kept row, never a removed one
    assert found.keep[0]


def test_dedup_takes_rows_and_arrow(tmp_path: Path) -> None:
    from simdup.rows.dedup import dedup_records

    a = _article(9)
    path = tmp_path / "d.jsonl"
    path.write_bytes(_jsonl([{"id": "x", "text": a}, {"text": None}, {"id": "y", "text": a}]))
    found = dedup_records(read_records(path, id_field="id"))
    assert found.keys == ("x", "y") and found.keep.tolist() == [True, False]
    assert [s.reason for s in found.skipped] == ["text field 'text' is null"]
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"text": [a, "short", _edited(a, 3)]})
    from_arrow = dedup_records(table)
    # "short" is judged too (a short text, no near-duplicate here): nothing is left unjudged.
    assert from_arrow.keep.tolist() == [True, True, False] and from_arrow.too_short == 0


def _records_of_a_dataset() -> tuple[list[dict], list[bool]]:
    """Rows as a Python user holds them: id, text, score; which are kept under keep=max:score."""
    a, b = _article(120), _article(121)
    records = [
        {"id": "r1", "text": a, "score": 1.0},
        {"id": "r2", "text": _edited(a, 5), "score": 3.0},
        {"id": "r3", "text": b, "score": 0.5},
        {"id": "r4", "text": None, "score": 9.0},
        {"id": "r5", "text": _edited(b, 9), "score": 0.1},
    ]
    return records, [False, True, True, True]


def _check_records_result(found: Any) -> None:
    assert found.keys == ("r1", "r2", "r3", "r5")
    assert found.keep.tolist() == [False, True, True, False]
    assert found.keys[found.duplicate_of[0]] == "r2" and found.keys[found.duplicate_of[3]] == "r3"
    assert [s.reason for s in found.skipped] == ["text field 'text' is null"]


def test_dedup_records_takes_what_python_users_hold(tmp_path: Path) -> None:
    """A list of dicts, an Arrow table, a generator of record batches from a Parquet file,
    a pandas frame (through __arrow_c_stream__): keyed by id_field, kept by max:score
    (issue 33: they were refused, and id_field was a TypeError)."""
    from simdup.rows.dedup import dedup_records

    records, _ = _records_of_a_dataset()
    _check_records_result(dedup_records(records, id_field="id", keep="max:score"))
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.Table.from_pylist(records)
    _check_records_result(dedup_records(table, id_field="id", keep="max:score"))
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, row_group_size=2)
    batches = pq.ParquetFile(path).iter_batches(batch_size=2)
    _check_records_result(dedup_records(batches, id_field="id", keep="max:score"))
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(records)
    assert hasattr(frame, "__arrow_c_stream__")
    _check_records_result(dedup_records(frame, id_field="id", keep="max:score"))
    # Without id_field, a row's "id" is its key; without one, rows are numbered (a null text
    # keeps its number).
    assert dedup_records(records).keys == ("r1", "r2", "r3", "r5")
    assert dedup_records([{"text": r["text"]} for r in records]).keys == ("0", "1", "2", "4")
    # Nested fields by dotted path.
    nested = [{"meta": {"id": r["id"]}, "body": {"text": r["text"]}} for r in records]
    assert dedup_records(nested, text_field="body.text", id_field="meta.id").keys == (
        "r1", "r2", "r3", "r5",
    )  # fmt: skip


def test_dedup_records_takes_polars_and_datasets_without_importing_them() -> None:
    from simdup.rows.dedup import dedup_records

    records, _ = _records_of_a_dataset()
    polars = pytest.importorskip("polars")
    _check_records_result(dedup_records(polars.DataFrame(records), id_field="id",
                                        keep="max:score"))  # fmt: skip
    datasets = pytest.importorskip("datasets")
    dataset = datasets.Dataset.from_list(records)
    _check_records_result(dedup_records(dataset, id_field="id", keep="max:score"))
    # A selection is what is deduplicated, not the table under it.
    picked = dedup_records(dataset.select([0, 1]), id_field="id")
    assert picked.keys == ("r1", "r2") and picked.keep.tolist() == [True, False]


def _texts_with_a_null() -> list[str | None]:
    a = _article(140)
    return [a, _article(141), _edited(a, 6), None]


def _check_texts_result(found: Any) -> None:
    """Texts given one a row: numbered, the edit of row 0 removed, the null a skip record."""
    assert found.keys == ("0", "1", "2") and found.keep.tolist() == [True, True, False]
    assert [(s.path, s.row, s.line, s.reason) for s in found.skipped] == [
        ("#3", 3, None, "null, not a text")
    ]


def test_dedup_records_takes_a_series_and_a_lazy_frame() -> None:
    """Issue 47: a pandas or polars Series (``df["text"]``: large_string, string_view) is its
    texts, one a row; a polars LazyFrame is read through its columns; an Arrow array or chunked
    array of strings is its texts; and no polars warning is raised on the way."""
    import warnings

    from simdup.rows.dedup import dedup_records

    pa = pytest.importorskip("pyarrow")
    texts = _texts_with_a_null()
    for kind in (pa.string(), pa.large_string(), pa.string_view()):
        _check_texts_result(dedup_records(pa.array(texts, kind)))
        _check_texts_result(dedup_records(pa.chunked_array([texts[:2], texts[2:]], kind)))
    pandas = pytest.importorskip("pandas")
    _check_texts_result(dedup_records(pandas.DataFrame({"text": texts})["text"]))
    records, _ = _records_of_a_dataset()
    polars = pytest.importorskip("polars")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a polars PerformanceWarning fails the test
        _check_texts_result(dedup_records(polars.Series("text", texts)))
        frame = polars.DataFrame(records).with_columns(other=polars.lit(1))
        _check_records_result(dedup_records(frame.lazy(), id_field="id", keep="max:score"))
        # Only the columns read are computed: the text column is found by its name.
        renamed = frame.lazy().rename({"text": "body"})
        got = dedup_records(renamed, text_field="body", id_field="id", keep="max:score")
        assert got.keys == ("r1", "r2", "r3", "r5")
        assert got.keep.tolist() == [False, True, True, False]


def test_rows_that_are_no_document_are_keyed_by_their_id() -> None:
    """Issue 47: a row whose text cannot be read but whose id can is keyed by its id (as a
    document is), in memory as from a file; without a readable id, by its number."""
    from simdup.rows.dedup import dedup_records

    a = _article(150)
    records = [{"id": "a", "text": a}, {"id": "b", "text": None}, {"id": "c", "text": 5},
               {"text": None}, {"id": None, "text": None}, {"id": "f", "text": _edited(a, 2)}]
    found = dedup_records(records, id_field="id")
    assert [(s.path, s.id, s.row) for s in found.skipped] == [
        ("b", "b", 1), ("c", "c", 2), ("#3", None, 3), ("#4", None, 4)
    ]  # fmt: skip
    assert found.keys == ("a", "f") and found.keep.tolist() == [True, False]


def _written_removed(tmp_path: Path, data: Path, *args: str) -> list[dict[str, Any]]:
    from click.testing import CliRunner

    from simdup.cli import cli

    out = tmp_path / f"out{''.join(data.suffixes)}"
    removed = tmp_path / f"removed-{data.name}.jsonl"
    result = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(out), "--removed",
                                      str(removed), *args])  # fmt: skip
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in removed.read_text("utf-8").splitlines()]


def test_removed_lists_an_unreadable_row_by_its_id_and_line(tmp_path: Path) -> None:
    """Issue 47: in --removed, an unreadable row is keyed by the id --id-field gives it and
    has the line its reason names (JSON Lines, CSV); in Parquet its line is null, as every
    row's there (the API's ``place()`` gives None too)."""
    a = _article(160)
    lines = [json.dumps({"id": "r1", "text": a}), "", json.dumps({"id": "r2", "text": None}),
             '{"id": "r3", "text": "cut', json.dumps({"id": "r4", "text": _edited(a, 5)})]
    data = tmp_path / "nulls.jsonl"
    data.write_text("\n".join(lines) + "\n", "utf-8")
    listed = _written_removed(tmp_path, data, "--id-field", "id")
    removed = [(r["key"], r["row"], r["line"]) for r in listed if not r.get("unreadable")]
    assert removed == [("r4", 3, 5)]
    unreadable = [(r["key"], r["row"], r["line"]) for r in listed if r.get("unreadable")]
    # The blank line 2 is no row; the line that is not JSON has no readable id.
    assert unreadable == [("r2", 1, 3), (f"{data}#2", 2, 4)]
    assert "line 4 is not JSON" in listed[-1]["reason"]
    csv_data = tmp_path / "nulls.csv"
    csv_data.write_text(f'id,text\nc1,{a}\nc2\n"c3","{_edited(a, 5)}"\n', "utf-8")
    listed = _written_removed(tmp_path, csv_data, "--id-field", "id")
    assert [(r["key"], r["row"], r["line"]) for r in listed] == [("c3", 2, 4), ("c2", 1, 3)]
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    parquet = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"id": ["p1", "p2", "p3"], "text": [a, None, _edited(a, 5)]}),
                   parquet)  # fmt: skip
    listed = _written_removed(tmp_path, parquet, "--id-field", "id")
    assert [(r["key"], r["row"], r["line"]) for r in listed] == [("p3", 2, None),
                                                                ("p2", 1, None)]  # fmt: skip
    from simdup.readers.rows import RowOptions
    from simdup.rows.dedup import dedup_rows

    decided = dedup_rows([str(parquet)], RowOptions(id_field="id"), jobs=1)
    assert decided.place(1).line is None and decided.skipped[0].line is None


# -- simdup dedup -------------------------------------------------------------------------------


def test_dedup_command_writes_kept_lines_byte_for_byte(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simdup.cli import cli

    a, b = _article(20), _article(21)
    lines = [
        b'{"id": 1, "text": ' + json.dumps(a).encode() + b', "extra": "keep me  exactly"}\n',
        b'{"id": 2,   "text": ' + json.dumps(_edited(a, 7)).encode() + b"}\n",
        b"{broken\n",
        b'{"id": 3, "text": ' + json.dumps(b).encode() + b"}\n",
        b'{"id": 4, "text": ' + json.dumps(_edited(b, 9)).encode() + b"}",  # no final newline
    ]
    data = tmp_path / "data.jsonl.zst"
    data.write_bytes(zstandard.ZstdCompressor().compress(b"".join(lines)))
    out, removed = tmp_path / "clean.jsonl.zst", tmp_path / "removed.jsonl"
    args = ["dedup", str(data), "-o", str(out), "--removed", str(removed), "--id-field", "id"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    kept = zstandard.ZstdDecompressor().stream_reader(out.read_bytes()).read()
    assert kept == lines[0] + lines[3]  # byte for byte, the bad row dropped
    listed = [json.loads(line) for line in removed.read_text("utf-8").splitlines()]
    pairs = [(r["key"], r["duplicate_of"], r["line"]) for r in listed if "duplicate_of" in r]
    assert pairs == [("2", "1", 2), ("4", "3", 5)]
    # The bad row is listed too, with why (issue 33: it no longer vanishes).
    (bad,) = [r for r in listed if r.get("unreadable")]
    assert (bad["file"], bad["row"], bad["judged"]) == (str(data), 2, False)
    assert "line 3 is not JSON" in bad["reason"]
    assert "5 rows read: 2 kept, 2 removed, 1 skipped" in result.stderr
    strict = CliRunner().invoke(cli, [*args, "--strict", "-q"])
    assert strict.exit_code == 3 and "not JSON" in strict.stderr


def test_dedup_leaves_no_partial_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input changed between the two reads: exit 4, and no output file appears."""
    from click.testing import CliRunner

    import simdup.rows.dedup_files as datasets
    from simdup.cli import cli

    data = tmp_path / "d.jsonl"
    data.write_bytes(_jsonl([{"text": _article(30)}, {"text": _article(31)}]))
    real = datasets.dedup_rows

    def touching(*args, **kwargs):
        found = real(*args, **kwargs)
        data.write_bytes(data.read_bytes() + b'{"text": "appended"}\n')
        return found

    monkeypatch.setattr(datasets, "dedup_rows", touching)
    result = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 4 and "changed" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]


def test_dedup_command_keeps_a_parquet_schema_and_metadata(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simdup.cli import cli

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    a, b = _article(40), _article(41)
    texts = [a, b, _edited(a, 5), None, _edited(b, 6), _article(42)]
    schema = pa.schema(
        [("id", pa.int64()), ("text", pa.string()), ("score", pa.float32())],
        metadata={"huggingface": '{"info": {"features": {}}}'},
    )
    table = pa.table({"id": list(range(6)), "text": texts, "score": [0.5] * 6}, schema=schema)
    data = tmp_path / "data.parquet"
    pq.write_table(table, data, row_group_size=2, compression="zstd")
    out = tmp_path / "clean.parquet"
    result = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(out), "--id-field", "id"])
    assert result.exit_code == 0, result.output
    clean = pq.ParquetFile(out)
    assert clean.schema_arrow.equals(schema, check_metadata=True)
    assert clean.metadata.row_group(0).column(0).compression.lower() == "zstd"
    assert clean.read().column("id").to_pylist() == [0, 1, 5]  # the null text row is skipped
    assert "6 rows read: 3 kept, 2 removed, 1 skipped" in result.stderr


def test_dedup_command_writes_csv_records_as_stored(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simdup.cli import cli

    a, b = _article(50), _article(51)
    raw = [
        "id;text;note\r\n",
        f'1;"{a}";"multi\r\nline note"\r\n',
        f"2;{_edited(a, 4)};x\r\n",
        f"3;{b};y\r\n",
        f'4;"{_edited(b, 8)}";z\r\n',
    ]
    data = tmp_path / "data.csv.gz"
    data.write_bytes(gzip.compress("".join(raw).encode()))
    out = tmp_path / "clean.csv.gz"
    result = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(out), "--id-field", "id"])
    assert result.exit_code == 0, result.output
    assert gzip.decompress(out.read_bytes()).decode() == raw[0] + raw[1] + raw[3]
    other = tmp_path / "x.jsonl"
    other.write_bytes(_jsonl([{"text": a}]))
    mixed = CliRunner().invoke(cli, ["dedup", str(data), str(other), "-o", str(tmp_path / "o")])
    assert mixed.exit_code == 2 and "one format" in mixed.stderr


def test_dedup_annotate_keeps_every_row(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simdup.cli import cli

    a = _article(60)
    data = tmp_path / "d.jsonl"
    data.write_bytes(
        _jsonl(
            [
                {"id": "p", "text": a},
                {"id": "q", "text": _edited(a, 2)},
                {"id": "r", "text": _article(61)},
            ]
        )
    )
    out = tmp_path / "annotated.jsonl"
    args = ["dedup", str(data), "-o", str(out), "--annotate", "--id-field", "id"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [(r["id"], r["cluster_id"], r["duplicate_of"]) for r in records] == [
        ("p", 0, None),
        ("q", 0, "p"),
        ("r", None, None),
    ]
    assert "3 rows read: 2 kept, 1 removed, 0 skipped (3 written, annotated)" in result.stderr


@pytest.mark.parametrize("command", ["dedup", "decon", "spans"])
def test_a_truncated_compressed_input_is_an_error_unless_accepted(
    tmp_path: Path, command: str
) -> None:
    """A .jsonl.zst cut inside a frame (a partial download): exit 3 and nothing written, not a
    clean file that silently lacks the rest; --accept-damaged keeps the rows read before. The
    same for dedup, decon and dedup --spans."""
    from click.testing import CliRunner

    from simdup.cli import cli

    texts = [_article(300 + k) for k in range(400)]  # > one zstd block (128 KB): some decode
    whole = zstandard.ZstdCompressor().compress(_jsonl([{"text": t} for t in texts]))
    data = tmp_path / "cut.jsonl.zst"
    data.write_bytes(whole[: len(whole) * 2 // 3])
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "item.txt").write_text("an evaluation item that no training row holds " * 3)
    out, removed = tmp_path / "clean.jsonl", tmp_path / "removed.jsonl"
    args = {
        "dedup": ["dedup", str(data), "-o", str(out), "--removed", str(removed)],
        "decon": ["decon", str(data), "--evals", str(evals), "-o", str(out)],
        "spans": ["dedup", str(data), "-o", str(out), "--spans", "paragraph"],
    }[command]
    result = CliRunner().invoke(cli, [*args, "-q"])
    assert result.exit_code == 3, result.output
    assert "truncated or damaged" in result.stderr and "--accept-damaged" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.jsonl.zst", "evals"]
    accepted = CliRunner().invoke(cli, [*args, "--accept-damaged"])
    assert accepted.exit_code == 0, accepted.output
    kept = [json.loads(line)["text"] for line in out.read_text("utf-8").splitlines()]
    assert 0 < len(kept) < len(texts) and kept == texts[: len(kept)]
    if command == "dedup":
        listed = [json.loads(line) for line in removed.read_text("utf-8").splitlines()]
        assert any("truncated or damaged" in r["reason"] for r in listed)


def test_annotate_keeps_rows_that_are_no_document(tmp_path: Path) -> None:
    """--annotate keeps every row: a line that is not JSON as stored, a JSON object without
    a text with "skipped" (why); the documents annotated as before."""
    from click.testing import CliRunner

    from simdup.cli import cli

    a = _article(70)
    lines = [
        json.dumps({"id": "p", "text": a}).encode() + b"\n",
        b"{not json\n",
        json.dumps({"id": "q", "body": "no text field"}).encode() + b"\n",
        json.dumps({"id": "r", "text": _edited(a, 3)}).encode() + b"\n",
    ]
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"".join(lines))
    out = tmp_path / "annotated.jsonl"
    args = ["dedup", str(data), "-o", str(out), "--annotate", "--id-field", "id"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    written = out.read_bytes().splitlines(keepends=True)
    assert len(written) == 4 and written[1] == lines[1]
    p, q, r = (json.loads(written[k]) for k in (0, 2, 3))
    assert (p["cluster_id"], p["duplicate_of"]) == (0, None)
    assert (r["cluster_id"], r["duplicate_of"]) == (0, "p")
    assert q["id"] == "q" and q["duplicate_of"] is None and "no text field" in q["skipped"]


def test_annotate_keeps_csv_and_parquet_rows_that_are_no_document(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simdup.cli import cli

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    a = _article(80)
    table = pa.table({"id": [0, 1, 2], "text": [a, None, _edited(a, 4)]})
    data = tmp_path / "d.parquet"
    pq.write_table(table, data)
    out = tmp_path / "annotated.parquet"
    result = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(out), "--annotate"])
    assert result.exit_code == 0, result.output
    got = pq.read_table(out).to_pylist()
    assert [(g["id"], g["cluster_id"], g["duplicate_of"] is None) for g in got] == [
        (0, 0, True), (1, None, True), (2, 0, False)
    ]  # fmt: skip
    csv_data = tmp_path / "d.csv"
    csv_data.write_text(f"id,text\n0,{a}\n1\n2,{_edited(a, 4)}\n", encoding="utf-8")
    csv_out = tmp_path / "annotated.csv"
    result = CliRunner().invoke(cli, ["dedup", str(csv_data), "-o", str(csv_out), "--annotate"])
    assert result.exit_code == 0, result.output
    rows = csv_out.read_text("utf-8").splitlines()
    assert rows[0] == "id,text,cluster_id,duplicate_of" and len(rows) == 4
    assert rows[2] == "1,," and rows[1].endswith(",0,") and rows[3].split(",")[-2] == "0"


def test_dedup_outputs_follow_the_umask(tmp_path: Path) -> None:
    """-o and --removed are ordinary files another user's job can read (were 0600); a file
    replaced keeps its mode."""
    from click.testing import CliRunner

    from simdup.cli import cli

    data = tmp_path / "d.jsonl"
    data.write_bytes(_jsonl([{"text": _article(90)}, {"text": _article(91)}]))
    out, removed = tmp_path / "clean.jsonl.gz", tmp_path / "removed.jsonl"
    args = ["dedup", str(data), "-o", str(out), "--removed", str(removed), "-q"]
    old = os.umask(0o027)
    try:
        assert CliRunner().invoke(cli, args).exit_code == 0
        assert (out.stat().st_mode & 0o777, removed.stat().st_mode & 0o777) == (0o640, 0o640)
        out.chmod(0o604)
        assert CliRunner().invoke(cli, args).exit_code == 0
        assert out.stat().st_mode & 0o777 == 0o604  # replaced: its mode kept
    finally:
        os.umask(old)


def test_dedup_refuses_an_output_named_for_another_format(tmp_path: Path) -> None:
    """-o clean.parquet for JSON Lines (and the reverse) wrote the input's format under the
    other's name: now exit 2, saying what to name it, and nothing written."""
    from click.testing import CliRunner

    from simdup.cli import cli

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    jsonl = tmp_path / "d.jsonl.zst"
    jsonl.write_bytes(zstandard.ZstdCompressor().compress(_jsonl([{"text": _article(95)}])))
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": [_article(96)]}), parquet)
    for source, output, said in (
        (jsonl, "clean.parquet", "JSON Lines"),
        (parquet, "y.jsonl", "Parquet"),
        (jsonl, "y.csv.gz", "JSON Lines"),
        (parquet, "y.parquet.zst", "not compressed by its name"),
    ):
        result = CliRunner().invoke(cli, ["dedup", str(source), "-o", str(tmp_path / output)])
        assert result.exit_code == 2, (output, result.output)
        assert said in result.stderr and not (tmp_path / output).exists()
    # A name that says the inputs' format, or no format at all, is written in it.
    for output in ("clean.jsonl.gz", "clean.ndjson", "clean.out"):
        args = ["dedup", str(jsonl), "-o", str(tmp_path / output)]
        assert CliRunner().invoke(cli, args).exit_code == 0


def test_dedup_threshold_has_the_range_of_scan(tmp_path: Path) -> None:
    """-k accepts what scan accepts (0..31), no more (issue 33: dedup took up to 64)."""
    from click.testing import CliRunner

    from simdup.algorithms.index import MAX_THRESHOLD
    from simdup.cli import cli

    data = tmp_path / "d.jsonl"
    data.write_bytes(_jsonl([{"text": _article(130)}]))
    out = str(tmp_path / "o.jsonl")
    over = CliRunner().invoke(cli, ["dedup", str(data), "-o", out, "-k", str(MAX_THRESHOLD + 1)])
    assert over.exit_code == 2
    at_most = CliRunner().invoke(cli, ["dedup", str(data), "-o", out, "-k", str(MAX_THRESHOLD)])
    assert at_most.exit_code == 0


def test_dedup_rows_tells_each_stage_and_its_progress(tmp_path: Path) -> None:
    """Issue 47: after fingerprinting, each step is named (``stage``) and counted as it goes
    (``progress``): the edit join of the short rows, then the pairs verified, never a stage
    left silent."""
    from simdup.readers.rows import RowOptions
    from simdup.rows.dedup import dedup_rows

    questions = [f"How do I resize an image in {w}?" for w in ("Android", "android", "pandas")]
    data = tmp_path / "q.jsonl"
    data.write_bytes(_jsonl([{"text": q} for q in questions * 2]))
    told: list[tuple[str, int, int]] = []
    stages: list[str] = []

    def progress(done: int, total: int) -> None:
        told.append((stages[-1] if stages else "reading", done, total))

    found = dedup_rows([str(data)], RowOptions(), jobs=1, progress=progress, stage=stages.append)
    assert stages == ["finding candidates", "verifying"]
    joined = [(d, t) for s, d, t in told if s == "finding candidates"]
    verified = [(d, t) for s, d, t in told if s == "verifying"]
    assert joined[0] == (0, 1000) and joined[-1] == (1000, 1000)
    assert verified and verified[-1][0] == verified[-1][1] > 0
    assert found.removed == 4  # the two copies, and "android" as "Android" (one form)


QUESTIONS = [
    "How do I resize an image in Android without losing quality or changing its aspect ratio?",
    "How do I resize an image in pandas without losing quality or changing its aspect ratio?",
    "How do I resize an image in Android without losing quality or changing it's aspect ratio?",
    "how do i resize an image in android, without losing quality or changing its aspect ratio",
]


def test_the_recipe_for_questions_that_differ_in_one_word(tmp_path: Path) -> None:
    """Issue 47, item 10 (docs/datasets.md): two short rows that differ in one content word
    (Android / pandas) are near-duplicates by the 0.9 edit similarity; --min-edit-similarity
    0.95 keeps both and still removes the typo and the re-cased, re-punctuated copy."""
    data = tmp_path / "questions.jsonl"
    data.write_bytes(_jsonl([{"id": f"q{n + 1}", "text": q} for n, q in enumerate(QUESTIONS)]))
    default = _written_removed(tmp_path, data)
    assert [(r["key"], r["duplicate_of"], r["similarity"]) for r in default] == [
        ("q2", "q1", 0.9425), ("q3", "q1", 0.9886), ("q4", "q1", 1.0)
    ]  # fmt: skip
    strict = _written_removed(tmp_path, data, "--min-edit-similarity", "0.95")
    assert [(r["key"], r["duplicate_of"]) for r in strict] == [("q3", "q1"), ("q4", "q1")]
    from simdup.rows.dedup import dedup_records

    assert dedup_records(QUESTIONS, min_edit_similarity=0.95).keep.tolist() == [
        True, True, False, False
    ]  # fmt: skip
