"""Datasets of rows on a Dask cluster: partitions read by the workers give the local decisions.

Partitions are cut and numbered without a cluster too (``row_partitions``, ``numbered``):
spans of a JSON Lines file read one by one give the rows, numbers and reasons of a read of the
whole file. Tests marked ``dask`` start a local cluster of two worker processes on 127.0.0.1.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.readers.chunking import (
    count_partition,
    is_span,
    numbered,
    partition_chunks,
    row_chunks,
    row_partitions,
)
from simdup.readers.rows import RowOptions

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _article(seed: int, n: int = 60) -> str:
    from tests.conftest import pseudo_words

    return " ".join(pseudo_words(seed, n).split())


def _edited(text: str, at: int) -> str:
    words = text.split()
    words[at] = "changed"
    return " ".join(words)


def _texts(count: int, seed: int) -> list[str | None]:
    """Articles, every fifth followed by a near-copy of it, and a null text now and then."""
    out: list[str | None] = []
    for k in range(count):
        base = _article(seed + k)
        out.append(base)
        if k % 5 == 0:
            out.append(_edited(base, 7))
        if k % 37 == 0:
            out.append(None)
    return out


def _jsonl_file(path: Path, texts: list[str | None]) -> None:
    lines = []
    for n, text in enumerate(texts):
        lines.append(json.dumps({"id": f"j{n}", "text": text}))
        if n % 23 == 0:
            lines.append("")  # a blank line: no row
        if n % 41 == 0:
            lines.append("{not json")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _chunk_rows(chunks: Iterator[Any]) -> list[tuple[int, int, object, int]]:
    return [
        (c.file, c.first_row + k, item, line)
        for c in chunks
        for k, (item, line) in enumerate(zip(c.items, c.lines or [-1] * len(c.items), strict=True))
    ]


def test_spans_read_one_by_one_are_the_whole_file(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    _jsonl_file(data, _texts(80, 1))
    options = RowOptions(id_field="id", max_line=300)
    parts = [p for p in row_partitions([str(data)], options, size=997)]
    assert len(parts) > 5 and all(is_span(p) for p in parts)
    counts = {n: count_partition(p, options) for n, p in enumerate(parts)}
    spans = [c for p in numbered(parts, counts) for c in partition_chunks(p, options)]
    assert _chunk_rows(iter(spans)) == _chunk_rows(row_chunks([str(data)], options))


def test_parquet_partitions_are_runs_of_row_groups(tmp_path: Path) -> None:
    data = tmp_path / "d.parquet"
    texts = _texts(50, 2)
    pq.write_table(pa.table({"id": list(range(len(texts))), "text": texts}), data,
                   row_group_size=9)  # fmt: skip
    options = RowOptions(id_field="id")
    parts = list(row_partitions([str(data)], options, size=1))
    assert len(parts) == -(-len(texts) // 9) and [p.first_row for p in parts][:2] == [0, 9]
    whole = _chunk_rows(row_chunks([str(data)], options))
    assert _chunk_rows(c for p in parts for c in partition_chunks(p, options)) == whole


# -- on a local cluster ------------------------------------------------------------------------


def _decisions(found: Any) -> tuple[object, ...]:
    return (
        list(found.keys), found.keep.tolist(), found.duplicate_of.tolist(), found.row.tolist(),
        found.line.tolist(), found.file.tolist(), sorted((s.path, s.reason) for s in found.skipped),
        found.rule.tolist(), found.distance.tolist(),
    )  # fmt: skip


@pytest.mark.dask
def test_dask_row_engine_gives_the_local_decisions(dask_cluster: Any, tmp_path: Path) -> None:
    """Parquet in row groups, plain JSON Lines in byte spans and a gzip file whole, read by
    the workers: the same rows kept and removed, with the same places and skip records."""
    from simdup.distributed.rows import DaskRowEngine
    from simdup.rows.dedup import dedup_rows

    parquet = tmp_path / "a.parquet"
    texts = _texts(120, 10)
    pq.write_table(pa.table({"id": [f"p{n}" for n in range(len(texts))], "text": texts}),
                   parquet, row_group_size=17)  # fmt: skip
    plain, packed = tmp_path / "b.jsonl", tmp_path / "c.jsonl.gz"
    _jsonl_file(plain, _texts(90, 10))  # near-copies of the Parquet rows too
    _jsonl_file(tmp_path / "c.jsonl", _texts(30, 500))
    packed.write_bytes(gzip.compress((tmp_path / "c.jsonl").read_bytes()))
    for paths, keep in (([parquet], "first"), ([plain, packed], "longest")):
        names = [str(p) for p in paths]
        local = dedup_rows(names, RowOptions(id_field="id"), keep=keep)
        engine = DaskRowEngine(dask_cluster.client, partition_bytes=2000)
        remote = dedup_rows(names, RowOptions(id_field="id"), keep=keep, engine=engine)
        assert _decisions(remote) == _decisions(local)
        assert local.removed > 10


@pytest.mark.dask
def test_dedup_and_scan_records_with_engine_dask(dask_cluster: Any, tmp_path: Path) -> None:
    data = tmp_path / "d.parquet"
    texts = _texts(60, 40)
    schema = pa.schema([("id", pa.int64()), ("text", pa.string())], metadata={"k": "v"})
    pq.write_table(pa.table({"id": list(range(len(texts))), "text": texts}, schema=schema),
                   data, row_group_size=10)  # fmt: skip
    outputs, audits = {}, {}
    for engine in ("local", "dask"):
        out = tmp_path / f"{engine}.parquet"
        args = ["dedup", str(data), "-o", str(out), "--id-field", "id", "--engine", engine,
                "--audit", "5"]  # fmt: skip
        if engine == "dask":
            args += ["--scheduler", dask_cluster.address]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        outputs[engine] = pq.read_table(out)
        audits[engine] = (tmp_path / f"{engine}.audit.jsonl").read_text("utf-8")
    assert outputs["dask"].equals(outputs["local"])
    assert audits["dask"] == audits["local"] and audits["local"].count("\n") == 5
    assert outputs["local"].num_rows < len(texts) - 5

    def scanned(*extra: str) -> dict[str, Any]:
        args = ["scan", str(data), "--records", "auto", "--id-field", "id", "-f", "json", *extra]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        report: dict[str, Any] = json.loads(result.stdout)
        report["summary"].pop("seconds")
        return report

    local = scanned()
    assert scanned("--engine", "dask", "--scheduler", dask_cluster.address) == local
    assert local["pairs"]


class _Scheduler:
    """A client as far as ``DaskRowEngine._partition_bytes`` asks: how many workers."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def scheduler_info(self, n_workers: int = 5) -> dict[str, Any]:
        return {"workers": {f"tcp://127.0.0.1:{k}": {} for k in range(self.workers)}}


def test_partitions_are_spread_over_the_workers(tmp_path: Path) -> None:
    """Each worker gets at least four partitions when the input is large enough (202 MB in
    64 MB pieces left one of two workers twice the other's work), none above 64 MB and none
    below 4 MB."""
    pytest.importorskip("distributed")
    from simdup.distributed.rows import DaskRowEngine

    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(202 << 20)  # sparse: the size is what is asked
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"text": "a"}\n' * 10)
    sizes = {
        workers: DaskRowEngine(_Scheduler(workers))._partition_bytes([str(big), str(small)])
        for workers in (1, 2, 4, 1000)
    }
    total = (202 << 20) + small.stat().st_size
    assert sizes[1] == total // 4
    assert sizes[2] == total // 8
    assert sizes[4] == total // 16
    assert sizes[1000] == 4 << 20
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as fh:
        fh.truncate(1 << 30)
    assert DaskRowEngine(_Scheduler(2))._partition_bytes([str(huge)]) == 64 << 20
    parts = list(row_partitions([str(big)], RowOptions(), sizes[2]))
    assert len(parts) == 8
