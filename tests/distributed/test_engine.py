"""The Dask engine gives the local engine's result: same records, pairs, clusters and report.

Tests marked ``dask`` start a local cluster of two worker processes on 127.0.0.1 (one per
module, ~2 s) and need the ``simdup[dask]`` extra, which ``make test`` installs; without it
they are skipped. Reports are compared without their timings (``summary.seconds``), the only
field in which an engine may differ.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.engines import SerialEngine
from simdup.join.local import LocalJoin
from simdup.options import ScanOptions, resolve_options
from simdup.params import FeatureParams
from simdup.records import FingerprintedDocument

try:
    import distributed  # noqa: F401
    import pyarrow  # noqa: F401

    HAVE_DASK = True
except ImportError:  # pragma: no cover - the extra is installed by make test
    HAVE_DASK = False

needs_dask = pytest.mark.skipif(not HAVE_DASK, reason='needs pip install "simdup[dask]"')


def report(stdout: str) -> dict[str, Any]:
    """A JSON report without its timings."""
    data = json.loads(stdout)
    data["summary"].pop("seconds")
    return dict(data)


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """A local cluster of two single-threaded worker processes, for the whole module."""
    if not HAVE_DASK:
        pytest.skip('needs pip install "simdup[dask]"')
    from simdup.distributed.cluster import connect

    connection = connect(workers=2)
    try:
        yield connection
    finally:
        connection.close()


# ------------------------------------------------------------ without Dask


def test_importing_simdup_and_a_local_scan_do_not_import_dask(sample_corpus: Path) -> None:
    """Dask is imported lazily: `import simdup`, the CLI module and a local scan load none of
    dask, distributed, pandas or pyarrow."""
    code = (
        "import sys, simdup, simdup.cli, simdup.distributed\n"
        f"simdup.scan([{str(sample_corpus)!r}], jobs=1)\n"
        "print(sorted(m for m in ('dask', 'distributed', 'pandas', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]", out.stderr


def test_engine_dask_without_the_extra_is_a_usage_error(
    sample_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Dask installed, --engine dask exits 2 with the exact pip install line."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    result = CliRunner().invoke(cli, ["scan", str(sample_corpus), "--engine", "dask"])
    assert result.exit_code == 2, result.output
    assert 'pip install "simdup[dask]"' in result.stderr


def test_scheduler_without_engine_dask_is_a_usage_error(sample_corpus: Path) -> None:
    """--scheduler means nothing to the local engine: a usage error, not a silent no-op."""
    result = CliRunner().invoke(cli, ["scan", str(sample_corpus), "--scheduler", "tcp://x:1"])
    assert result.exit_code == 2
    assert "--scheduler needs --engine dask" in result.stderr


# ------------------------------------------------------------ the engine


@pytest.mark.dask
def test_scan_engine_dask_equals_local_on_sample_corpus(
    dask_cluster: Any, sample_corpus: Path
) -> None:
    """`scan --engine dask --format json` is the local report (apart from timings), for both
    cluster methods; the scheduler is given by --scheduler."""
    address = dask_cluster.address
    for method in ("centers", "components"):
        local = run("scan", str(sample_corpus), "-f", "json", "--no-cache", "--cluster", method)
        dask = run(
            "scan", str(sample_corpus), "-f", "json", "--cluster", method,
            "--engine", "dask", "--scheduler", address,
        )  # fmt: skip
        assert local.exit_code == dask.exit_code == 0, dask.stderr
        assert report(dask.stdout) == report(local.stdout)
        assert report(local.stdout)["clusters"]


@pytest.mark.dask
def test_scheduler_from_the_environment(
    dask_cluster: Any, sample_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DASK_SCHEDULER_ADDRESS names the scheduler when --scheduler is not given; the
    dashboard link goes to stderr."""
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", dask_cluster.address)
    local = run("scan", str(sample_corpus), "-f", "json", "--no-cache")
    dask = run("scan", str(sample_corpus), "-f", "json", "--engine", "dask")
    assert report(dask.stdout) == report(local.stdout)
    assert "simdup: Dask dashboard: http://" in dask.stderr


@pytest.mark.dask
def test_fsspec_urls_are_read_by_the_workers(dask_cluster: Any, sample_corpus: Path) -> None:
    """A file:// URL is listed and read through fsspec: the same clusters as the local paths,
    under the URLs."""
    url = sample_corpus.resolve().as_uri()
    local = report(run("scan", str(sample_corpus.resolve()), "-f", "json", "--no-cache").stdout)
    remote = report(
        run("scan", url, "-f", "json", "--engine", "dask", "--scheduler", dask_cluster.address)
        .stdout
    )  # fmt: skip
    prefix = str(sample_corpus.resolve())

    def names(data: dict[str, Any]) -> list[list[str]]:
        return [
            sorted(m["path"].replace("file://", "").replace(prefix, "") for m in c["members"])
            for c in data["clusters"]
        ]

    assert names(remote) == names(local)
    assert remote["summary"]["pairs"] == local["summary"]["pairs"]


@pytest.mark.dask
def test_a_worker_lost_mid_run_changes_nothing(dask_cluster: Any, sample_corpus: Path) -> None:
    """A worker killed (SIGKILL) after the first partition is done: Dask runs its tasks
    again on the other worker (and the nanny restarts it), and the records are those of the
    serial engine."""
    from simdup.distributed.engine import DaskEngine
    from simdup.readers.discovery import find_files

    client = dask_cluster.client
    files = find_files([str(sample_corpus)]).files
    params = FeatureParams()
    expected = list(SerialEngine(params, 1 << 26).run(files))
    pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def progress(done: int, total: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    got = list(DaskEngine(params, 1 << 26, client).run(files, progress))
    assert killed and got == expected
    client.wait_for_workers(2, timeout=60)


@pytest.mark.dask
def test_workers_of_another_simdup_version_are_refused(
    dask_cluster: Any, sample_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client whose simdup version is not the workers' gets a clear error naming both
    versions, when connecting and from every task (workers may join later)."""
    from simdup.distributed import cluster, engine
    from simdup.readers.discovery import find_files

    other = ("0.0.0-other", "simdup-simhash64/0")
    monkeypatch.setattr(cluster, "VERSION", other)
    with pytest.raises(cluster.VersionMismatch, match="install the same simdup version"):
        cluster.check_workers(dask_cluster)
    files = find_files([str(sample_corpus)]).files
    origin = replace(engine.Origin.here(), version=other)
    monkeypatch.setattr(engine.Origin, "here", classmethod(lambda cls: origin))
    dask_engine = engine.DaskEngine(FeatureParams(), 1 << 26, dask_cluster.client)
    with pytest.raises(cluster.VersionMismatch, match="0.0.0-other"):
        list(dask_engine.run(files))


# ------------------------------------------------------------ the join


def generated_documents(n: int, seed: int, perms: int = 0) -> list[FingerprintedDocument]:
    """``n`` records: random fingerprints, sketches and signatures, where every tenth record
    (k % 10 == 1) is a near copy of the one before (1-4 fingerprint bits flipped, up to 40
    sketch values and 1/16 of the signature changed, a slightly different length) and every
    tenth (k % 10 == 2) an identical copy of the one two before (same text)."""
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2)
    sketches = np.sort(rng.integers(0, 1 << 31, (n, 256), dtype=np.uint32), axis=1)
    signatures = rng.integers(0, 1 << 63, (n, perms), dtype=np.uint64)
    chars = rng.integers(1000, 5000, n)
    digests = [f"text-{k}" for k in range(n)]
    near = np.arange(1, n, 10)
    bits = rng.integers(0, 64, (near.size, 4)).astype(np.uint64)
    used = np.arange(4)[None, :] < rng.integers(1, 5, near.size)[:, None]
    masks = np.bitwise_or.reduce(np.where(used, np.uint64(1) << bits, np.uint64(0)), axis=1)
    fps[near] = fps[near - 1] ^ masks
    changed = np.arange(256)[None, :] < rng.integers(0, 40, near.size)[:, None]
    fresh = rng.integers(0, 1 << 31, (near.size, 256), dtype=np.uint32)
    sketches[near] = np.sort(np.where(changed, fresh, sketches[near - 1]), axis=1)
    signatures[near] = signatures[near - 1]
    if perms:
        rows = np.repeat(near, perms // 16)
        signatures[rows, rng.integers(0, perms, rows.size)] = 7
    chars[near] = chars[near - 1] + rng.integers(-60, 60, near.size)
    copies = np.arange(2, n, 10)
    fps[copies], sketches[copies] = fps[copies - 2], sketches[copies - 2]
    signatures[copies], chars[copies] = signatures[copies - 2], chars[copies - 2]
    for k in copies.tolist():
        digests[k] = digests[k - 2]
    sketch_bytes = sketches.astype("<u4")
    signature_bytes = signatures.astype("<u8")
    return [
        FingerprintedDocument(
            f"doc-{k:07d}",
            int(fps[k]),
            "utf-8",
            "utf-8",
            int(chars[k]),
            100,
            50,
            digests[k],
            int(chars[k]),
            sketch_bytes[k].tobytes(),
            signature_bytes[k].tobytes(),
        )  # fmt: skip
        for k in range(n)
    ]


@pytest.mark.dask
def test_distributed_join_equals_local_on_1e5_fingerprints(dask_cluster: Any) -> None:
    """On 10^5 generated records with planted near pairs and identical copies, the block-table
    join gives the local candidates count and verified pairs, and the distributed components
    (forced: driver_edges=0) give the local clusters."""
    from simdup.distributed.join import DaskJoin

    n = 100_000
    docs = generated_documents(n, seed=13)
    options = resolve_options(ScanOptions(verify_radius=4, method="simhash"), {}, files=n)
    local_count, local_pairs = LocalJoin().pairs(docs, options)
    join = DaskJoin(dask_cluster.client, driver_edges=0)
    count, pairs = join.pairs(docs, options)
    assert (count, pairs) == (local_count, local_pairs)
    assert sum(p.exact for p in pairs) >= n // 10 and len(pairs) > n // 5
    expected = LocalJoin().clusters(docs, local_pairs, "centers", 256)
    assert join.clusters(docs, pairs, "centers", 256) == expected
    # Components on the driver (the default below 10^6 pairs), clustered on the workers.
    expected = LocalJoin().clusters(docs, local_pairs, "components", 256)
    assert DaskJoin(dask_cluster.client).clusters(docs, pairs, "components", 256) == expected


@pytest.mark.dask
def test_distributed_join_names_moved_blocks_as_the_local_join(dask_cluster: Any) -> None:
    """Two short texts near by their block-move similarity only (paragraphs swapped, one
    character dropped): verified on the workers, the pair says the moves decided, as here."""
    from simdup.distributed.join import DaskJoin

    def short(path: str, marked: str) -> FingerprintedDocument:
        # A short text's record: its form with its blocks marked in place of a sketch.
        return FingerprintedDocument(
            path, 0, "utf-8", "utf-8", 100, 10, 10, marked, len(marked), marked.encode()
        )

    docs = [
        short("s0", "the kettle boils fast\nthe lid closes properly\nhappy with it overall"),
        short("s1", "happy with it overal\nthe kettle boils fast\nthe lid closes properly"),
        short("s2", "the kettle boils fast the lid closes properly happy with it overal"),
        short("s3", "the toaster burns the bread\nthe lid closes properly"),
    ]
    options = resolve_options(ScanOptions(method="simhash"), {}, files=len(docs))
    expected = LocalJoin().pairs(docs, options)
    assert DaskJoin(dask_cluster.client).pairs(docs, options) == expected
    assert [(p.i, p.j, p.moved) for p in expected[1]] == [(0, 1, True), (0, 2, False)]


@pytest.mark.dask
def test_distributed_band_join_equals_local(dask_cluster: Any) -> None:
    """MinHash bands: the same candidate count and verified pairs as the local LSH."""
    from simdup.distributed.join import DaskJoin

    n = 20_000
    docs = generated_documents(n, seed=5, perms=32)
    options = resolve_options(ScanOptions(method="minhash", minhash_perms=32), {}, files=n)
    expected = LocalJoin().pairs(docs, options)
    assert DaskJoin(dask_cluster.client).pairs(docs, options) == expected
    assert len(expected[1]) > n // 10


# ------------------------------------------------------------ fingerprints as data


@needs_dask
@pytest.mark.parametrize("method", ["simhash", "minhash"])
def test_fingerprints_written_and_read_back_give_the_same_report(
    sample_corpus: Path, tmp_path: Path, method: str
) -> None:
    """--write-fingerprints stores step 1 as Parquet; --fingerprints scans it without the
    files and gives the same report (a MinHash scan keeps its signatures for the store)."""
    store = tmp_path / "fingerprints"
    first = run("scan", str(sample_corpus), "-f", "json", "--no-cache", "--method", method,
                "--write-fingerprints", str(store))  # fmt: skip
    assert first.exit_code == 0, first.stderr
    assert sorted(p.name for p in store.iterdir()) == ["part-00000.parquet"]
    again = run("scan", "--fingerprints", str(store), "-f", "json", "--method", method)
    assert again.exit_code == 0, again.stderr
    assert report(again.stdout) == report(first.stdout)


@needs_dask
def test_fingerprints_of_other_parameters_or_version_are_refused(
    sample_corpus: Path, tmp_path: Path
) -> None:
    """A store written with other fingerprint options, or by another algorithm version, is
    refused with a usage error naming the reason; so are PATHS given with --fingerprints."""
    import pyarrow.parquet as pq

    store = tmp_path / "fingerprints"
    run("scan", str(sample_corpus), "--no-cache", "-q", "--write-fingerprints", str(store))
    other = CliRunner().invoke(cli, ["scan", "--fingerprints", str(store), "--weighting", "tf"])
    assert other.exit_code == 2 and "other fingerprint parameters" in other.stderr
    both = CliRunner().invoke(cli, ["scan", str(sample_corpus), "--fingerprints", str(store)])
    assert both.exit_code == 2 and "--fingerprints replaces PATHS" in both.stderr
    part = store / "part-00000.parquet"
    table = pq.read_table(part)
    meta = dict(table.schema.metadata)
    meta[b"simdup.algorithm"] = b"simdup-simhash64/0"
    pq.write_table(table.replace_schema_metadata(meta), part)
    old = CliRunner().invoke(cli, ["scan", "--fingerprints", str(store)])
    assert old.exit_code == 2 and "simdup-simhash64/0" in old.stderr


@pytest.mark.dask
def test_stored_fingerprints_with_engine_dask(
    dask_cluster: Any, sample_corpus: Path, tmp_path: Path
) -> None:
    """A Dask run writes the store, and a Dask run reads it: the local report both times."""
    store = tmp_path / "fp"
    local = report(run("scan", str(sample_corpus), "-f", "json", "--no-cache").stdout)
    address = dask_cluster.address
    first = run("scan", str(sample_corpus), "-f", "json", "--engine", "dask",
                "--scheduler", address, "--write-fingerprints", str(store))  # fmt: skip
    again = run("scan", "--fingerprints", str(store), "-f", "json", "--engine", "dask",
                "--scheduler", address)  # fmt: skip
    assert report(first.stdout) == report(again.stdout) == local


# ------------------------------------------------------------ a cluster of real processes


@contextlib.contextmanager
def start_processes(folder: Path, workers: int = 2) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers, each its own process on 127.0.0.1
    (what `dask scheduler` and `dask worker` start); the scheduler's address. All are
    stopped on the way out."""
    scheduler_file = folder / "scheduler.json"
    log = (folder / "cluster.log").open("wb")
    cli_module = "distributed.cli.dask_"
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                cli_module + "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                str(scheduler_file),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    ]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text():
            assert time.monotonic() < deadline, "the scheduler did not start"
            assert processes[0].poll() is None, "the scheduler exited"
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written in one go, but give it a moment
        address = json.loads(scheduler_file.read_text())["address"]
        for n in range(workers):
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        cli_module + "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--host",
                        "127.0.0.1",
                        "--no-dashboard",
                        "--local-directory",
                        str(folder / f"worker-{n}"),
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )  # fmt: skip
            )
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a hung process
                process.kill()
                process.wait()
        log.close()


@pytest.mark.dask
def test_scheduler_and_two_worker_processes_give_the_local_result(
    tmp_path: Path, sample_corpus: Path
) -> None:
    """A scheduler and two workers started as separate processes on 127.0.0.1 (as on a real
    cluster: `dask scheduler`, `dask worker`): the report is the local one. On the sample
    corpus here; `make test-dask-cluster` runs it on the benchmark set
    (SIMDUP_DASK_BENCH names the folder)."""
    corpus = Path(os.environ.get("SIMDUP_DASK_BENCH") or sample_corpus)
    with start_processes(tmp_path, workers=2) as address:
        dask = run("scan", str(corpus), "-f", "json", "--engine", "dask", "--scheduler", address)
    local = run("scan", str(corpus), "-f", "json", "--no-cache")
    assert dask.exit_code == 0, dask.stderr
    assert report(dask.stdout) == report(local.stdout)
    assert report(local.stdout)["pairs"]


@pytest.mark.dask
def test_scan_engine_dask_finds_short_texts_and_same_forms(
    dask_cluster: Any, tmp_path: Path
) -> None:
    """Short texts (edit similarity) and copies of one form (case, punctuation) are found on a
    Dask cluster as here: the same report, with those pairs in it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    review = "The kettle boils fast and the lid closes properly; happy with it overall."
    for name, text in {
        "a.txt": review,
        "b.txt": review.upper(),  # the same form
        "c.txt": review.replace("fast", "quickly"),  # an edited short copy
        "d.txt": "你好",
        "e.txt": "你好！",
        "f.txt": "Something else entirely.",
    }.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    local = run("scan", str(docs), "-f", "json", "--no-cache")
    dask = run("scan", str(docs), "-f", "json", "--engine", "dask",
               "--scheduler", dask_cluster.address)  # fmt: skip
    assert local.exit_code == dask.exit_code == 0, dask.stderr
    assert report(dask.stdout) == report(local.stdout)
    pairs = {(Path(p["a"]).name, Path(p["b"]).name) for p in report(local.stdout)["pairs"]}
    assert pairs == {("a.txt", "b.txt"), ("a.txt", "c.txt"), ("b.txt", "c.txt"), ("d.txt", "e.txt")}
