"""``decon`` and ``dedup --spans`` on a Dask cluster: the workers read their own partitions and
run the verb's worker (``engines.rows.RowEngine.chunk_results``), and the clean rows, the
report and the removed spans are byte for byte the local run's, also with a worker killed
mid-run and on a scheduler and workers started as separate processes.

Marked ``dask``: a local cluster of two worker processes on 127.0.0.1 (one per module).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.algorithms.containment import ContainmentRule
from simdup.cli import cli
from simdup.readers.rows import RowOptions
from simdup.rows.decon import decontaminate
from simdup.rows.decon.items import EvalIndex, read_items
from simdup.rows.spans import dedup_spans
from tests.conftest import pseudo_words

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("distributed")

pytestmark = pytest.mark.dask


def _paragraph(seed: int) -> str:
    return " ".join(pseudo_words(seed, 40).split())


# Paragraphs many rows share (boilerplate for --spans; evaluation items for decon).
SHARED = [_paragraph(5000 + k) for k in range(12)]


def _texts(count: int, seed: int) -> list[str | None]:
    """Rows of two or three paragraphs: one of their own, one or two of ``SHARED`` (a few
    re-wrapped), and now and then a null text (no document)."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for n in range(count):
        if n % 29 == 7:
            out.append(None)
            continue
        paragraphs = [_paragraph(seed * 1000 + n)]
        for _ in range(rng.choice((1, 1, 2))):
            shared = rng.choice(SHARED)
            if rng.random() < 0.2:
                shared = shared.replace(" ", "\n", 3)
            paragraphs.insert(rng.randrange(len(paragraphs) + 1), shared)
        out.append("\n\n".join(paragraphs))
    return out


def _jsonl(path: Path, texts: list[str | None]) -> Path:
    lines = [json.dumps({"id": f"{path.stem}-{n}", "text": t}) for n, t in enumerate(texts)]
    lines.insert(len(lines) // 2, "{not json")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def datasets(tmp_path: Path) -> dict[str, list[str]]:
    """Inputs read three ways by the workers: Parquet in row groups, plain JSON Lines in byte
    spans (two files) and a gzip stream whole."""
    parquet = tmp_path / "a.parquet"
    texts = _texts(90, 1)
    pq.write_table(pa.table({"id": [f"p{n}" for n in range(len(texts))], "text": texts}),
                   parquet, row_group_size=11)  # fmt: skip
    plain = _jsonl(tmp_path / "b.jsonl", _texts(80, 2))
    other = _jsonl(tmp_path / "c.jsonl", _texts(60, 3))
    packed = tmp_path / "d.jsonl.gz"
    packed.write_bytes(gzip.compress(_jsonl(tmp_path / "d.jsonl", _texts(40, 4)).read_bytes()))
    (tmp_path / "d.jsonl").unlink()
    return {"parquet": [str(parquet)], "jsonl": [str(plain), str(other), str(packed)]}


@pytest.fixture
def evals(tmp_path: Path) -> EvalIndex:
    items = tmp_path / "evals.jsonl"
    records = [{"id": f"e{k}", "text": p} for k, p in enumerate(SHARED[:6])]
    records.append({"id": "absent", "text": _paragraph(99_999)})
    items.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return EvalIndex.build(read_items([str(items)]), ContainmentRule())


def _report(result: Any) -> list[dict[str, Any]]:
    records = list(result.records())
    records[0]["summary"].pop("seconds")
    return records


def _killer(client: Any) -> tuple[list[int], Any]:
    """A progress callback that SIGKILLs one worker when the first results are in."""
    pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def progress(done: int, total: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    return killed, progress


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_decon_on_dask_writes_the_local_rows_and_report(
    dask_cluster: Any, datasets: dict[str, list[str]], evals: EvalIndex, tmp_path: Path,
    kind: str,
) -> None:  # fmt: skip
    from simdup.distributed.rows import DaskRowEngine

    inputs = datasets[kind]
    suffix = ".parquet" if kind == "parquet" else ".jsonl"
    rows = RowOptions(id_field="id")
    local = decontaminate(inputs, evals, rows=rows, output=str(tmp_path / f"local{suffix}"),
                          jobs=1)  # fmt: skip
    engine = DaskRowEngine(dask_cluster.client, partition_bytes=3000)
    remote = decontaminate(inputs, evals, rows=rows, output=str(tmp_path / f"dask{suffix}"),
                           engine=engine)  # fmt: skip
    assert _report(remote) == _report(local)
    assert (tmp_path / f"dask{suffix}").read_bytes() == (tmp_path / f"local{suffix}").read_bytes()
    assert 10 < local.rows_contaminated < local.rows_read and local.items_found == 6
    if kind == "jsonl":
        assert local.skipped  # the line that is no JSON, and the null texts


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_dedup_spans_on_dask_writes_the_local_rows(
    dask_cluster: Any, datasets: dict[str, list[str]], tmp_path: Path, kind: str
) -> None:
    from simdup.distributed.rows import DaskRowEngine

    inputs = datasets[kind]
    suffix = ".parquet" if kind == "parquet" else ".jsonl"
    out: dict[str, tuple[bytes, bytes]] = {}
    for name, engine in (("local", None),
                         ("dask", DaskRowEngine(dask_cluster.client, partition_bytes=3000))):
        output, removed = tmp_path / f"{name}{suffix}", tmp_path / f"{name}.removed.jsonl"
        result = dedup_spans(inputs, str(output), rows=RowOptions(id_field="id"),
                             removed=str(removed), jobs=1, engine=engine)  # fmt: skip
        out[name] = (output.read_bytes(), removed.read_bytes())
        assert result.spans_removed > 20
    assert out["dask"] == out["local"]


def test_a_worker_killed_mid_run_changes_neither_verb(
    dask_cluster: Any, datasets: dict[str, list[str]], evals: EvalIndex, tmp_path: Path
) -> None:
    """A worker SIGKILLed when the first partition's results are in: Dask runs its tasks again
    on the other worker (the items, sent to both, are still on one), and both verbs write what
    the local run writes."""
    from simdup.distributed.rows import DaskRowEngine

    client = dask_cluster.client
    inputs = datasets["jsonl"]
    local = decontaminate(inputs, evals, output=str(tmp_path / "local.jsonl"), jobs=1)
    killed, progress = _killer(client)
    engine = DaskRowEngine(client, partition_bytes=1500)
    remote = decontaminate(inputs, evals, output=str(tmp_path / "dask.jsonl"), engine=engine,
                           progress=progress)  # fmt: skip
    assert killed and _report(remote) == _report(local)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    client.wait_for_workers(2, timeout=60)

    dedup_spans(inputs, str(tmp_path / "spans-local.jsonl"), jobs=1)
    killed, progress = _killer(client)
    dedup_spans(inputs, str(tmp_path / "spans-dask.jsonl"), engine=engine, progress=progress)
    assert killed
    assert (tmp_path / "spans-dask.jsonl").read_bytes() == (
        tmp_path / "spans-local.jsonl"
    ).read_bytes()
    client.wait_for_workers(2, timeout=60)


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def _decon_and_spans(inputs: list[str], items: str, tmp_path: Path, name: str,
                     *engine: str) -> dict[str, Any]:  # fmt: skip
    """What ``decon`` and ``dedup --spans`` write from the command line (reports without
    their timings)."""
    suffix = Path(inputs[0]).suffix
    clean, report = tmp_path / f"{name}.clean{suffix}", tmp_path / f"{name}.decon.jsonl"
    _cli("decon", *inputs, "--evals", items, "-o", str(clean), "--report", str(report),
         "--id-field", "id", "-q", *engine)  # fmt: skip
    spans, removed = tmp_path / f"{name}.spans{suffix}", tmp_path / f"{name}.removed.jsonl"
    _cli("dedup", *inputs, "-o", str(spans), "--spans", "paragraph", "--removed", str(removed),
         "-q", *engine)  # fmt: skip
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    records[0]["summary"].pop("seconds")
    return {"clean": clean.read_bytes(), "report": records, "spans": spans.read_bytes(),
            "removed": removed.read_bytes()}  # fmt: skip


def test_decon_and_dedup_spans_with_engine_dask_from_the_command_line(
    dask_cluster: Any, datasets: dict[str, list[str]], tmp_path: Path
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"e{k}", "text": p}) + "\n"
                             for k, p in enumerate(SHARED[:4])), "utf-8")  # fmt: skip
    inputs = datasets["jsonl"]
    local = _decon_and_spans(inputs, str(items), tmp_path, "local")
    dask = _decon_and_spans(inputs, str(items), tmp_path, "dask", "--engine", "dask",
                            "--scheduler", dask_cluster.address)  # fmt: skip
    assert dask == local
    assert local["report"][0]["summary"]["rows_contaminated"] > 10 and local["removed"]


def test_scheduler_and_two_worker_processes_give_the_local_rows(
    datasets: dict[str, list[str]], tmp_path: Path
) -> None:
    """A scheduler and two workers started as separate processes on 127.0.0.1 (``dask
    scheduler``, ``dask worker``): ``decon`` and ``dedup --spans paragraph`` write the local
    run's rows, report and removed spans."""
    from tests.distributed.test_engine import start_processes

    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"e{k}", "text": p}) + "\n"
                             for k, p in enumerate(SHARED[:4])), "utf-8")  # fmt: skip
    local = {kind: _decon_and_spans(inputs, str(items), tmp_path, f"local-{kind}")
             for kind, inputs in datasets.items()}  # fmt: skip
    with start_processes(tmp_path, workers=2) as address:
        dask = {kind: _decon_and_spans(inputs, str(items), tmp_path, f"dask-{kind}", "--engine",
                                       "dask", "--scheduler", address)
                for kind, inputs in datasets.items()}  # fmt: skip
    assert dask == local


def test_scheduler_without_engine_dask_is_refused_by_decon(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "t.jsonl", ["some text here"])
    result = CliRunner().invoke(cli, ["decon", str(data), "--evals", str(data), "--scheduler",
                                      "tcp://127.0.0.1:1"])  # fmt: skip
    assert result.exit_code == 2 and "--scheduler needs --engine dask" in result.output
