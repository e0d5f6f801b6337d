"""Datasets of rows beyond reading: the row engine (worker processes, the same result as one
process), keep policies by value, ``--against`` a stored index, ``index add`` / ``query`` /
``scan`` with ``--records``, and ``--annotate`` for CSV and Parquet."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.readers import chunking as chunks_module
from simdup.readers.rows import RowOptions

zstandard = pytest.importorskip("zstandard")


def _article(seed: int, n: int = 80) -> str:
    from tests.conftest import pseudo_words

    return " ".join(pseudo_words(seed, n).split())


def _edited(text: str, at: int) -> str:
    words = text.split()
    words[at] = "changed"
    return " ".join(words)


def _jsonl(rows: list[object]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows)


# -- the row engine ----------------------------------------------------------------------------


def test_worker_processes_decide_as_one_process_does(tmp_path: Path) -> None:
    """Rows in many chunks fingerprinted by two workers: the same decisions, keys and places
    as in this process (and bad rows skipped at their row)."""
    from simdup.rows.dedup import dedup_rows

    texts = []
    for k in range(150):
        base = _article(1000 + k, 40)
        texts += [base, _edited(base, 3)] if k % 3 == 0 else [base]
    records: list[object] = [{"id": f"r{n}", "text": t} for n, t in enumerate(texts)]
    records.insert(7, "not an object")
    data = tmp_path / "d.jsonl.zst"
    data.write_bytes(zstandard.ZstdCompressor().compress(_jsonl(records)))
    rows = RowOptions(id_field="id")
    chunk = chunks_module.CHUNK_ROWS
    chunks_module.CHUNK_ROWS = 16
    told: list[tuple[int, int]] = []
    try:
        assert len(list(chunks_module.row_chunks([str(data)], rows))) == 13  # a pool's work
        serial = dedup_rows([str(data)], rows, jobs=1)
        pooled = dedup_rows([str(data)], rows, jobs=2, progress=lambda *n: told.append(n))
    finally:
        chunks_module.CHUNK_ROWS = chunk
    assert list(pooled.keys) == list(serial.keys) and len(serial) == len(texts)
    assert pooled.keep.tolist() == serial.keep.tolist()
    assert pooled.duplicate_of.tolist() == serial.duplicate_of.tolist()
    assert pooled.row.tolist() == serial.row.tolist() and serial.row[7] == 8
    assert serial.removed == 50
    # The rows read (no total: a stream); the later stages count their own steps (a total).
    read = [d for d, total in told if total == 0]
    assert read[-1] == len(records) and read == sorted(read)
    assert [s.path for s in pooled.skipped] == [f"{data}#7"] == [s.path for s in serial.skipped]


def test_a_stream_of_tasks_is_taken_as_workers_free_up() -> None:
    """The pool takes a task from a stream only when a worker is free for it: a stream of
    rows is never read far ahead of the workers."""
    from simdup.engines.workerpool import WorkerPool

    taken = []

    def tasks():
        for n in range(40):
            taken.append(n)
            yield n

    with WorkerPool(abs, 2) as pool:
        seen = []
        for _, value in pool.results(tasks()):
            seen.append(value)
            assert len(taken) <= len(seen) + 2  # the answered ones and one per worker
    assert sorted(seen) == list(range(40))


# -- keep policies by value --------------------------------------------------------------------


def test_keep_max_and_min_of_a_field(tmp_path: Path) -> None:
    a = _article(70)
    data = tmp_path / "d.jsonl"
    data.write_bytes(
        _jsonl(
            [
                {"id": "low", "text": a, "score": 1},
                {"id": "high", "text": _edited(a, 5), "score": "7.5"},
                {"id": "none", "text": _edited(a, 9)},
                {"id": "other", "text": _article(71), "score": 100},
            ]
        )
    )
    for keep, kept in (("max:score", "high"), ("min:score", "low")):
        removed = tmp_path / f"{keep[:3]}.jsonl"
        out = tmp_path / f"{keep[:3]}-out.jsonl"
        args = ["dedup", str(data), "-o", str(out), "--removed", str(removed), "--id-field",
                "id", "--keep", keep]  # fmt: skip
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
        assert ids == sorted([kept, "other"], key=["low", "high", "none", "other"].index)
        gone = [json.loads(line) for line in removed.read_text().splitlines()]
        assert {g["duplicate_of"] for g in gone} == {kept}  # the row without a score is not kept
    bad = CliRunner().invoke(cli, ["dedup", str(data), "-o", str(tmp_path / "x.jsonl"),
                                   "--keep", "largest"])  # fmt: skip
    assert bad.exit_code == 2 and "max:FIELD" in bad.output


# -- a stored index: index add --records, query --records, dedup --against ----------------------


def test_rows_against_a_stored_index(tmp_path: Path) -> None:
    old_a, old_b = _article(80), _article(81)
    old = tmp_path / "old.jsonl"
    old.write_bytes(_jsonl([{"id": "o1", "text": old_a}, {"id": "o2", "text": old_b},
                            {"id": "o3", "text": "  \t "}]))  # fmt: skip
    db = tmp_path / "seen.simdup"
    added = CliRunner().invoke(
        cli, ["index", "add", str(old), "--records", "auto", "--id-field", "id", "--db", str(db)]
    )
    assert added.exit_code == 0, added.output
    assert "2 documents added" in added.stderr and "1 row skipped" in added.stderr

    new = tmp_path / "new.jsonl"
    new_rows = [
        {"id": "n1", "text": _edited(old_a, 3)},
        {"id": "n2", "text": _article(82)},
        {"id": "n3", "text": _edited(_article(82), 7)},
    ]
    new.write_bytes(_jsonl(new_rows))
    query = CliRunner().invoke(
        cli,
        ["query", str(new), "--records", "jsonl", "--id-field", "id", "--db", str(db), "-f",
         "json"],
    )  # fmt: skip
    assert query.exit_code == 0, query.output
    results = json.loads(query.stdout)["results"]
    answers = {r["path"]: [m["key"] for m in r["matches"]] for r in results}
    assert answers == {"n1": ["o1"], "n2": [], "n3": []}
    assert [(r["file"], r["row"], r["line"]) for r in results] == [(str(new), n, n + 1)
                                                                   for n in range(3)]  # fmt: skip

    out, removed = tmp_path / "clean.jsonl", tmp_path / "removed.jsonl"
    args = ["dedup", str(new), "-o", str(out), "--removed", str(removed), "--id-field", "id",
            "--against", str(db)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["n2"]
    gone = [json.loads(x) for x in removed.read_text().splitlines()]
    assert [(g["key"], g["duplicate_of"], g.get("stored")) for g in gone] == [
        ("n1", "o1", True),
        ("n3", "n2", None),
    ]


# -- scan --records ----------------------------------------------------------------------------


def test_scan_records_reports_rows_as_documents(tmp_path: Path) -> None:
    a = _article(90)
    data = tmp_path / "d.jsonl.gz"
    import gzip

    records = [
        {"id": "x", "text": a},
        {"id": "y", "text": _article(91)},
        {"id": "z", "text": _edited(a, 4)},
        {"id": "w", "text": 5},
        {"id": "v", "text": "short"},  # a short text: a document like the others
        {"id": "u", "text": " "},  # nothing to judge
    ]
    data.write_bytes(gzip.compress(_jsonl(records)))
    result = CliRunner().invoke(
        cli, ["scan", str(data), "--records", "auto", "--id-field", "id", "-f", "json",
              "--fail-on-duplicates"]
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [("x", "z")]
    assert report["settings"]["records"]["reader"].startswith("2 (")
    places = {f["path"]: (f["file"], f["row"], f["line"]) for f in report["files"]}
    assert places == {"x": (str(data), 0, 1), "y": (str(data), 1, 2), "z": (str(data), 2, 3),
                      "v": (str(data), 4, 5)}  # fmt: skip
    lines = CliRunner().invoke(cli, ["scan", str(data), "--records", "auto", "--id-field", "id",
                                     "-f", "jsonl"]).stdout.splitlines()  # fmt: skip
    files = [json.loads(x) for x in lines if '"type": "file"' in x]
    rows = [(f["path"], f["row"], f["line"]) for f in files]
    assert rows == [("x", 0, 1), ("y", 1, 2), ("z", 2, 3), ("v", 4, 5)]
    stages = {s["path"]: s["stage"] for s in report["skipped"]}
    assert stages == {"w": "row", "u": "features"}  # keyed by id, as documents (issue 47)
    unreadable = next(s for s in report["skipped"] if s["path"] == "w")
    assert (unreadable["file"], unreadable["row"], unreadable["line"]) == (str(data), 3, 4)
    clash = CliRunner().invoke(cli, ["scan", str(data), "--records", "auto", "--passages"])
    assert clash.exit_code == 2 and "--records" in clash.output


# -- --annotate for CSV and Parquet -------------------------------------------------------------


def test_annotate_csv_adds_two_columns_in_its_dialect(tmp_path: Path) -> None:
    a = _article(100)
    raw = "id;text\r\n" + f"1;{a}\r\n" + f'2;"{_edited(a, 3)}"\r\n' + f"3;{_article(101)}\r\n"
    data = tmp_path / "d.csv"
    data.write_bytes(raw.encode())
    out = tmp_path / "annotated.csv"
    result = CliRunner().invoke(
        cli, ["dedup", str(data), "-o", str(out), "--annotate", "--id-field", "id"]
    )
    assert result.exit_code == 0, result.output
    written = out.read_bytes().decode()
    assert written.startswith("id;text;cluster_id;duplicate_of\r\n")
    records = list(csv.reader(io.StringIO(written, newline=""), delimiter=";"))
    assert [(r[0], r[2], r[3]) for r in records[1:]] == [("1", "0", ""), ("2", "0", "1"),
                                                        ("3", "", "")]  # fmt: skip


def test_annotate_parquet_adds_two_columns(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    a = _article(110)
    schema = pa.schema([("id", pa.string()), ("text", pa.string())], metadata={"k": "v"})
    table = pa.table({"id": ["p", "q", "r", "s"], "text": [a, None, _edited(a, 6), _article(111)]},
                     schema=schema)  # fmt: skip
    data = tmp_path / "d.parquet"
    pq.write_table(table, data, row_group_size=3)
    out = tmp_path / "annotated.parquet"
    result = CliRunner().invoke(
        cli, ["dedup", str(data), "-o", str(out), "--annotate", "--id-field", "id"]
    )
    assert result.exit_code == 0, result.output
    got = pq.read_table(out)
    assert got.schema.metadata == {b"k": b"v"}
    assert got.column_names == ["id", "text", "cluster_id", "duplicate_of"]
    # Every row, the null text row (no document) too, with null values (issue 33).
    assert got.column("id").to_pylist() == ["p", "q", "r", "s"]
    assert got.column("cluster_id").to_pylist() == [0, None, 0, None]
    assert got.column("duplicate_of").to_pylist() == [None, None, "p", None]


def test_scan_records_fingerprints_written_and_scanned_again(tmp_path: Path) -> None:
    """``scan --records --write-fingerprints DIR``, then ``scan --fingerprints DIR``: the same
    pairs and clusters, keyed by the rows' ids."""
    pytest.importorskip("pyarrow")
    a = _article(120)
    data = tmp_path / "d.jsonl"
    data.write_bytes(_jsonl([{"id": "x", "text": a}, {"id": "y", "text": _edited(a, 2)},
                             {"id": "z", "text": _article(121)}]))  # fmt: skip
    store = tmp_path / "fingerprints"
    first = CliRunner().invoke(cli, ["scan", str(data), "--records", "auto", "--id-field", "id",
                                     "--write-fingerprints", str(store), "-f", "json"])  # fmt: skip
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(cli, ["scan", "--fingerprints", str(store), "-f", "json"])
    assert again.exit_code == 0, again.output
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    assert [(p["a"], p["b"]) for p in after["pairs"]] == [("x", "y")]
    assert after["clusters"] == before["clusters"]


def test_a_row_place_says_no_line_as_reports_do(tmp_path: Path) -> None:
    """Dedup.place(n) gives a Parquet row's line as None, as --removed's JSON says null (the
    int column ``line`` holds -1 there), and a JSON line's number (issue 33)."""
    from simdup.rows.dedup import dedup_rows

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    data = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": [_article(140), _article(141)]}), data)
    found = dedup_rows([str(data)])
    assert found.place(1) == (str(data), 1, None) and found.line.tolist() == [-1, -1]
    lines = tmp_path / "d.jsonl"
    lines.write_text(json.dumps({"text": _article(142)}) + "\n", encoding="utf-8")
    assert dedup_rows([str(lines)]).place(0) == (str(lines), 0, 1)


def test_progress_knows_a_parquet_total_and_names_the_later_stages(tmp_path: Path) -> None:
    """Parquet footers give the progress bar its total (it had none); after the rows are read,
    the run says it is verifying, then writing (it said nothing) (issue 33)."""
    from simdup.rows.dedup_files import dedup_files

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    data = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": [_article(150 + k) for k in range(5)]}), data)
    told: list[tuple[int, int]] = []
    stages: list[str] = []
    dedup_files([str(data)], str(tmp_path / "o.parquet"),
                progress=lambda done, total: told.append((done, total)) if not stages else None,
                stage=stages.append)  # fmt: skip
    assert told and told[-1] == (5, 5)
    # Issue 47: the candidates are found, then verified, each counted as it goes.
    assert stages == ["finding candidates", "verifying", "writing"]
    lines = tmp_path / "d.jsonl"
    lines.write_text(json.dumps({"text": _article(160)}) + "\n", encoding="utf-8")
    told.clear()
    dedup_files([str(lines)], str(tmp_path / "o.jsonl"),
                progress=lambda done, total: told.append((done, total)))  # fmt: skip
    assert told[-1] == (1, 0)  # a stream: its length is not known before the end
