"""Datasets of rows (``simdup.read_records``): JSON Lines, CSV, TSV and Parquet, compressed or
not, streamed; every bad row a skip record with its file, row and reason."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.readers.rows import Row, RowOptions, jsonl_lines, read_records
from simdup.readers.rows import compression as rows_module
from simdup.records import SkippedFile

zstandard = pytest.importorskip("zstandard")

LINES = [
    {"id": 123456789012345678901234567890, "text": "first row", "meta": {"lang": "en"}},
    {"id": "b-2", "text": "第二行的文字"},
    {"id": 3, "text": "third row"},
]


def _jsonl(rows: list[object]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows)


def _rows(found: list[Row | SkippedFile]) -> list[Row]:
    return [r for r in found if isinstance(r, Row)]


def _skips(found: list[Row | SkippedFile]) -> list[SkippedFile]:
    return [r for r in found if isinstance(r, SkippedFile)]


@pytest.mark.parametrize(
    ("name", "pack"),
    [
        ("data.jsonl", lambda b: b),
        ("data.jsonl.gz", gzip.compress),
        ("data.jsonl.zst", lambda b: zstandard.ZstdCompressor().compress(b)),
        ("data.jsonl.bz2", bz2.compress),
        ("data.jsonl.xz", lzma.compress),
        ("data.bin", gzip.compress),  # known by its first bytes, not its name
    ],
)
def test_jsonl_in_every_compression(tmp_path: Path, name: str, pack) -> None:
    path = tmp_path / name
    path.write_bytes(pack(_jsonl(LINES)))
    found = list(read_records(path, id_field="id"))
    assert [(r.key, r.text, r.row, r.line) for r in _rows(found)] == [
        ("123456789012345678901234567890", "first row", 0, 1),  # 30 digits, not a float
        ("b-2", "第二行的文字", 1, 2),
        ("3", "third row", 2, 3),
    ]
    assert _skips(found) == []


def test_keys_are_the_id_when_a_row_has_one_else_file_and_row(tmp_path: Path) -> None:
    """Without --id-field a row's "id" is its key when it has one (issue 33: they were keyed
    file#row unless --id-field id was given); a row without one is file#row."""
    path = tmp_path / "d.jsonl"
    path.write_bytes(_jsonl(LINES))
    assert [r.key for r in _rows(list(read_records(path)))] == [
        "123456789012345678901234567890", "b-2", "3"
    ]  # fmt: skip
    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(_jsonl([{"text": "one"}, {"id": None, "text": "two"}, {"id": 7, "text": "3"}]))
    assert [r.key for r in _rows(list(read_records(bare)))] == [f"{bare}#0", f"{bare}#1", "7"]
    nested = list(read_records(path, text_field="meta.lang"))
    assert [r.text for r in _rows(nested)] == ["en"]
    assert len(_skips(nested)) == 2


def test_every_bad_row_is_a_skip_record_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"text": "good"}).encode()
    path.write_bytes(
        b"\n".join(
            [
                good,  # row 0
                b"{not json",  # 1
                b'{"other": 1}',  # 2: no text field
                b'{"text": null}',  # 3
                b'{"text": 42}',  # 4
                b'{"text": "bad \xff byte"}',  # 5: invalid UTF-8
                b'{"text": "lone \\ud800 surrogate"}',  # 6
                b"[1, 2]",  # 7: not an object
                b'{"text": "' + b"x" * 3000 + b'"}',  # 8: longer than max_line
                b"",  # a blank line is no row
                good,  # 9
            ]
        )
        + b"\n"
    )
    found = list(read_records(path, max_line=1000))
    assert [r.row for r in _rows(found)] == [0, 9]
    reasons = {s.path.rsplit("#", 1)[1]: s.reason for s in _skips(found)}
    assert sorted(reasons, key=int) == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert "not JSON" in reasons["1"] and "no text field" in reasons["2"]
    assert "null" in reasons["3"] and "int, not a string" in reasons["4"]
    assert "not UTF-8" in reasons["5"] and "surrogate" in reasons["6"]
    assert "not an object" in reasons["7"] and "longer than 1000 bytes" in reasons["8"]
    assert all(s.stage == "row" for s in _skips(found))


@pytest.mark.parametrize("pack", [gzip.compress, lambda b: zstandard.ZstdCompressor().compress(b)])
def test_a_truncated_stream_is_a_skip_where_it_stops(tmp_path: Path, pack) -> None:
    data = pack(_jsonl([{"text": f"row number {n} " * 20} for n in range(2000)]))
    path = tmp_path / "cut.jsonl.z"
    path.write_bytes(data[: len(data) * 2 // 3])
    found = list(read_records(path, records="jsonl"))
    assert 0 < len(_rows(found)) < 2000
    (skip,) = _skips(found)
    assert "truncated" in skip.reason
    assert skip.path == f"{path}#{len(_rows(found))}"


def test_zstd_of_several_frames(tmp_path: Path) -> None:
    frames = b"".join(zstandard.ZstdCompressor().compress(_jsonl([r])) for r in LINES)
    path = tmp_path / "frames.jsonl.zst"
    path.write_bytes(frames)
    assert len(_rows(list(read_records(path)))) == 3


def test_csv_and_tsv_with_their_dialects(tmp_path: Path) -> None:
    csv_path = tmp_path / "d.csv"
    csv_path.write_text(
        'id;text;n\n7;"a text; with a semicolon\nand a line break";1\n8;plain;2\n', "utf-8"
    )
    rows = _rows(list(read_records(csv_path, id_field="id")))
    assert [(r.key, r.text, r.line) for r in rows] == [
        ("7", "a text; with a semicolon\nand a line break", 2),
        ("8", "plain", 4),
    ]
    tsv = tmp_path / "d.tsv.gz"
    tsv.write_bytes(gzip.compress(b"text\tid\nhello there\t1\n"))
    assert [r.text for r in _rows(list(read_records(tsv)))] == ["hello there"]


def test_a_csv_field_over_the_limit_is_one_skip(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_text("text\nsmall\n" + "y" * 5000 + "\nafter\n", "utf-8")
    found = list(read_records(path, max_line=1000))
    assert [r.text for r in _rows(found)] == ["small", "after"]
    assert len(_skips(found)) == 1 and "cannot be parsed" in _skips(found)[0].reason


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"id": [10, 11, 12], "text": ["one", None, "three"]})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path)
    found = list(read_records(path, id_field="id"))
    assert [(r.key, r.text, r.row, r.line) for r in _rows(found)] == [
        ("10", "one", 0, None),
        ("12", "three", 2, None),
    ]
    # A row that is no document is keyed by its id, as a document is (issue 47); where it is
    # rides with it: file, row and no line (Parquet has none).
    (skip,) = _skips(found)
    assert (skip.path, skip.file, skip.row, skip.line, skip.id) == ("11", str(path), 1, None, "11")
    assert [s.path for s in _skips(read_records(path))] == ["11"]  # its "id", as for documents
    missing = list(read_records(path, text_field="body"))
    assert len(missing) == 1 and "no column 'body'" in missing[0].reason
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(path.read_bytes()[:40])
    (skip,) = list(read_records(broken))
    assert "not a readable Parquet file" in skip.reason


def test_options_are_checked() -> None:
    with pytest.raises(Exception, match="unknown records format"):
        RowOptions(records="xml")


# -- reading lines a block at a time -----------------------------------------------------------


def _reference_lines(data: bytes, limit: int) -> list[tuple[int, bytes | str]]:
    """What ``jsonl_lines`` must give, from the whole file at once."""
    out: list[tuple[int, bytes | str]] = []
    pieces = data.split(b"\n")
    for number, piece in enumerate(pieces, 1):
        last = number == len(pieces)
        if last and not piece:
            break
        if len(piece) > limit:
            out.append((number, f"line {number} is longer than {limit} bytes"))
        elif piece.strip():
            out.append((number, piece if last else piece + b"\n"))
    return out


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"{}", b" ", b"\n", b"xyz", b"\r"]), max_size=60).map(
        b"".join
    ),
    block=st.integers(1, 9),
    limit=st.integers(1, 8),
)
def test_lines_read_a_block_at_a_time_are_the_files_lines(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, block: int, limit: int
) -> None:
    """Lines cut across blocks, lines too long (read past, never held), blank lines and a
    last line without its end: the same as splitting the whole file."""
    path = tmp_path_factory.mktemp("lines") / "d.jsonl"
    path.write_bytes(data)
    chunk = rows_module._CHUNK
    rows_module._CHUNK = block
    try:
        found = list(jsonl_lines(str(path), RowOptions(max_line=limit)))
    finally:
        rows_module._CHUNK = chunk
    assert found == _reference_lines(data, limit)


def test_the_rows_reader_names_the_installed_versions_of_its_libraries() -> None:
    """What a report says made the texts of rows: the reader's version and the versions of
    pyarrow and zstandard, the ones the distributions' metadata gives (read from the folders
    on the path, without importing importlib.metadata), or "missing"."""
    import importlib.metadata

    from simdup.readers.rows import rows_description

    expected = []
    for library in ("pyarrow", "zstandard"):
        try:
            expected.append(f"{library} {importlib.metadata.version(library)}")
        except importlib.metadata.PackageNotFoundError:
            expected.append(f"{library} missing")
    described = rows_description(RowOptions(id_field="id"))
    assert described["reader"] == f"2 ({', '.join(expected)})"
    assert described["id_field"] == "id"
