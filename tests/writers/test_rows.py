"""The rows writers (``simdup.writers``), format by format, with what ``dedup``, ``decon`` and
``dedup --spans`` give them: a kept-row mask per input, a note per row, a new text for some
rows. The exact bytes are pinned: a kept row is its stored bytes, a noted or rewritten row is
written as the format's library writes it."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from simdup.readers.rows import RowOptions
from simdup.writers.base import Kept, skipped_note
from simdup.writers.rows import write_rows

COLUMNS = (("cluster_id", "int"), ("duplicate_of", "string"))


def test_a_kept_mask_says_which_rows_and_the_rest() -> None:
    kept = Kept(np.array([True, False, True]))
    assert [n in kept for n in range(5)] == [True, False, True, False, False]
    assert kept.of(np.arange(5)).tolist() == [True, False, True, False, False]
    others = Kept.all_but({1, 3})
    assert [n in others for n in range(6)] == [True, False, True, False, True, True]
    assert others.of(np.array([0, 3, 9])).tolist() == [True, False, True]
    assert [n in Kept.all_but([]) for n in range(3)] == [True, True, True]


# Rows 0..5: a CRLF line, non-ASCII as stored, an escaped one, not JSON, a list, a last line
# without its end; two blank lines are no rows.
JSONL = (
    b'{"text": "a", "id": 1}\r\n'
    b'\n'
    b'{"text":"\xc3\xa9t\xc3\xa9"}\n'
    b'{"text": "\\u00e9", "n": {"m": 1}}\n'
    b'   \n'
    b'not json\n'
    b'["a", "list"]\n'
    b'{"text": "last"}'
)  # fmt: skip


def test_jsonl_kept_rows_are_copied_as_stored(tmp_path: Path) -> None:
    source = tmp_path / "d.jsonl"
    source.write_bytes(JSONL)
    out = tmp_path / "o.jsonl"
    kept = [Kept(np.array([True, False, True, False, False, True]))]
    assert write_rows("jsonl", [str(source)], str(out), RowOptions(), kept=kept) == 3
    assert out.read_bytes() == (
        b'{"text": "a", "id": 1}\r\n{"text": "\\u00e9", "n": {"m": 1}}\n{"text": "last"}\n'
    )
    # Compressed as its name says: the same bytes inside.
    packed = tmp_path / "o.jsonl.gz"
    write_rows("jsonl", [str(source)], str(packed), RowOptions(), kept=kept)
    assert gzip.decompress(packed.read_bytes()) == out.read_bytes()
    # Without a mask, every row the reader holds.
    every = tmp_path / "every.jsonl"
    assert write_rows("jsonl", [str(source)], str(every), RowOptions()) == 6


def test_jsonl_notes_set_keys_and_leave_other_lines_as_stored(tmp_path: Path) -> None:
    source = tmp_path / "d.jsonl"
    source.write_bytes(JSONL)
    out = tmp_path / "o.jsonl"

    def notes(f: int, row: int) -> dict[str, object]:
        if row in (3, 4):
            return skipped_note(COLUMNS, "not an object")
        note: dict[str, object] = {"cluster_id": row if row else None, "duplicate_of": "k"}
        if row == 1:
            note["judged"] = False  # a key beyond the columns: JSON objects only
        return note

    written = write_rows("jsonl", [str(source)], str(out), RowOptions(), columns=COLUMNS,
                         notes=notes)  # fmt: skip
    assert written == 6
    assert out.read_bytes() == (
        b'{"text": "a", "id": 1, "cluster_id": null, "duplicate_of": "k"}\n'
        b'{"text": "\xc3\xa9t\xc3\xa9", "cluster_id": 1, "duplicate_of": "k", "judged": false}\n'
        b'{"text": "\xc3\xa9", "n": {"m": 1}, "cluster_id": 2, "duplicate_of": "k"}\n'
        b'not json\n'
        b'["a", "list"]\n'
        b'{"text": "last", "cluster_id": 5, "duplicate_of": "k"}\n'
    )  # fmt: skip


def test_jsonl_rewritten_rows_are_written_anew_or_dropped(tmp_path: Path) -> None:
    source = tmp_path / "d.jsonl"
    source.write_bytes(b'{"t": {"x": "one two"}}\n{"t": {"x": "gone"}}\n{"t": {"x": "same"}}\n')
    out = tmp_path / "o.jsonl"
    changes = {0: lambda text: text.upper(), 1: lambda text: None}
    written = write_rows("jsonl", [str(source)], str(out), RowOptions(text_field="t.x"),
                         rewrite=lambda f, row: changes.get(row))  # fmt: skip
    assert written == 2
    assert out.read_bytes() == b'{"t": {"x": "ONE TWO"}}\n{"t": {"x": "same"}}\n'


CSV = (
    'id,text\r\n'
    '1,"a, b"\r\n'
    '\r\n'
    '2,"two\r\nlines"\r\n'
    '3,plain\r\n'
)  # fmt: skip


def test_csv_records_keep_their_dialect_and_notes_follow_it(tmp_path: Path) -> None:
    source = tmp_path / "d.csv"
    source.write_bytes(CSV.encode())
    out = tmp_path / "o.csv"
    kept = [Kept(np.array([False, True, True]))]
    assert write_rows("csv", [str(source)], str(out), RowOptions(), kept=kept) == 2
    assert out.read_bytes() == b'id,text\r\n2,"two\r\nlines"\r\n3,plain\r\n'

    def notes(f: int, row: int) -> dict[str, object]:
        if row == 2:
            return skipped_note(COLUMNS, "why")
        return {"cluster_id": 7, "duplicate_of": "x,y", "judged": False}

    noted = tmp_path / "n.csv"
    assert write_rows("csv", [str(source)], str(noted), RowOptions(), columns=COLUMNS,
                      notes=notes) == 3  # fmt: skip
    assert noted.read_bytes() == (
        b'id,text,cluster_id,duplicate_of\r\n1,"a, b",7,"x,y"\r\n'
        b'2,"two\r\nlines",7,"x,y"\r\n3,plain,,\r\n'
    )
    lists = tmp_path / "l.tsv"
    tsv = tmp_path / "d.tsv"
    tsv.write_bytes(b"id\ttext\n1\tone\n2\ttwo\n")
    write_rows("tsv", [str(tsv)], str(lists), RowOptions(),
               columns=(("bad", "bool"), ("contains", "strings")),
               notes=lambda f, row: {"bad": row == 0, "contains": ["e1", "e2"][: row + 1]},
               )  # fmt: skip
    assert lists.read_bytes() == (
        b"id\ttext\tbad\tcontains\n1\tone\ttrue\te1\n2\ttwo\tfalse\te1 e2\n"
    )


def test_csv_rewritten_text_in_the_dialect_with_its_line_end(tmp_path: Path) -> None:
    source = tmp_path / "d.csv"
    source.write_bytes(CSV.encode())
    out = tmp_path / "o.csv"
    changes = {0: lambda text: text + ",c", 1: lambda text: None}
    write_rows("csv", [str(source)], str(out), RowOptions(),
               rewrite=lambda f, row: changes.get(row))  # fmt: skip
    assert out.read_bytes() == b'id,text\r\n1,"a, b,c"\r\n3,plain\r\n'


def test_parquet_rows_keep_schema_metadata_and_compression(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"id": ["a", "b", "c", "d"], "text": ["x", None, "y", "z"]})
    source = tmp_path / "d.parquet"
    pq.write_table(table.replace_schema_metadata({"huggingface": "{}"}), source,
                   row_group_size=3, compression="gzip")  # fmt: skip
    out = tmp_path / "o.parquet"
    kept = [Kept.all_but({1, 3})]
    assert write_rows("parquet", [str(source)], str(out), RowOptions(), kept=kept) == 2
    written = pq.ParquetFile(out)
    assert written.read().to_pydict() == {"id": ["a", "c"], "text": ["x", "y"]}
    assert written.schema_arrow.metadata == {b"huggingface": b"{}"}
    assert written.metadata.row_group(0).column(0).compression == "GZIP"

    noted = tmp_path / "n.parquet"
    columns = (*COLUMNS, ("bad", "bool"), ("contains", "strings"))

    def notes(f: int, row: int) -> dict[str, object]:
        if row == 1:
            return skipped_note(columns, "null text")
        return {"cluster_id": row, "duplicate_of": None, "bad": True, "contains": ["e"]}

    assert write_rows("parquet", [str(source)], str(noted), RowOptions(), columns=columns,
                      notes=notes) == 4  # fmt: skip
    found = pq.read_table(noted)
    types = found.schema.types
    assert types[:5] == [pa.string(), pa.string(), pa.int64(), pa.string(), pa.bool_()]
    assert pa.types.is_list(types[5]) and types[5].value_type == pa.string()
    assert found.column("cluster_id").to_pylist() == [0, None, 2, 3]
    assert found.column("contains").to_pylist() == [["e"], None, ["e"], ["e"]]

    rewritten = tmp_path / "r.parquet"
    changes = {0: lambda text: text * 2, 2: lambda text: None}
    write_rows("parquet", [str(source)], str(rewritten), RowOptions(),
               rewrite=lambda f, row: changes.get(row))  # fmt: skip
    assert pq.read_table(rewritten).to_pydict() == {
        "id": ["a", "b", "d"], "text": ["xx", None, "z"]
    }
