"""Every output option of every command leaves what it is given in place: a character device
(a null device, 1:3, made in a temporary folder: never the system's) stays a device, a FIFO
stays a FIFO and receives the output, and a store option refuses both. One writer does this
for all (``simdup.writers.output.OutputTarget``): a case per option, so that an option that
learns another way to write is caught."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import random
import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from tests.conftest import SAMPLE_CORPUS

_NULL = os.makedev(1, 3)


_WORDS = [
    "river", "mill", "grain", "market", "winter", "harbour", "lantern", "orchard", "copper",
    "violin", "glacier", "meadow", "thunder", "saddle", "pepper", "engine", "canvas", "ribbon",
    "falcon", "marble", "quarry", "velvet", "compass", "beacon", "timber", "saffron", "anchor",
    "cobalt", "hollow", "prairie",
]  # fmt: skip


def _text(n: int) -> str:
    rng = random.Random(n)
    return " ".join(rng.choice(_WORDS) for _ in range(40)) + "."


def _rows(path: Path) -> None:
    """A small dataset: 30 distinct rows, 10 near-copies, 5 rows sharing a paragraph."""
    lines = [{"id": f"r{n}", "text": _text(n)} for n in range(30)]
    for n in range(10):
        words = lines[n]["text"].split()
        words[5] = "changed"
        lines.append({"id": f"c{n}", "text": " ".join(words)})
    shared = "This paragraph is boilerplate that many rows of the crawl repeat word for word."
    for n in range(5):
        lines.append({"id": f"b{n}", "text": f"{shared}\n\n{_text(100 + n)}"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """docs/ (the sample corpus), thesis.txt (one of its files, outside it), train.jsonl and
    evals.jsonl (items planted in training rows), in the working folder tmp_path/work."""
    root = tmp_path / "work"
    root.mkdir()
    shutil.copytree(SAMPLE_CORPUS / "en", root / "docs")
    first = sorted((root / "docs").rglob("*.txt"))[0]
    shutil.copy(first, root / "thesis.txt")
    _rows(root / "train.jsonl")
    items = [{"text": " ".join(_text(n).split()[10:30])} for n in (3, 4)]
    (root / "evals.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    monkeypatch.chdir(root)
    return root


# Each output option, with the rest of its command line: NODE is the node under test.
OUTPUT_OPTIONS = {
    "scan -o": ["scan", "docs", "-o", "NODE", "-f", "json"],
    "scan --write-baseline": ["scan", "docs", "--write-baseline", "NODE"],
    "check -o": ["check", "thesis.txt", "--against", "docs", "-o", "NODE", "-f", "json"],
    "dedup -o": ["dedup", "train.jsonl", "-o", "NODE"],
    "dedup --removed": ["dedup", "train.jsonl", "-o", "clean.jsonl", "--removed", "NODE"],
    "dedup --spans -o": ["dedup", "train.jsonl", "--spans", "paragraph", "-o", "NODE"],
    "dedup --spans --removed": ["dedup", "train.jsonl", "--spans", "paragraph",
                                "-o", "clean.jsonl", "--removed", "NODE"],  # fmt: skip
    "decon -o": ["decon", "train.jsonl", "--evals", "evals.jsonl", "-o", "NODE"],
    "decon --report": ["decon", "train.jsonl", "--evals", "evals.jsonl", "-o", "clean.jsonl",
                       "--report", "NODE"],  # fmt: skip
}


def _invoke(args: list[str], node: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["-q" if a == "-q" else a for a in _with_node(args, node)])
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def _with_node(args: list[str], node: Path) -> list[str]:
    return [str(node) if a == "NODE" else a for a in args]


def _make_null_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, _NULL)
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")


@pytest.mark.parametrize("option", sorted(OUTPUT_OPTIONS))
def test_a_device_node_stays_a_device(option: str, work: Path) -> None:
    node = work.parent / "null"
    _make_null_device(node)
    code, stderr = _invoke(OUTPUT_OPTIONS[option], node)
    assert code in (0, 1), stderr  # 1: duplicates or contamination found
    mode = os.lstat(node).st_mode
    assert stat.S_ISCHR(mode) and os.lstat(node).st_rdev == _NULL, option
    assert not list(work.parent.glob(".simdup-*")), "no temporary file is left beside it"


@contextlib.contextmanager
def _fifo_reader(fifo: Path) -> Iterator[Callable[[], bytes]]:
    """A reader on ``fifo`` in a thread: yields a function giving what it read."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:  # waits for the writer
            got.append(handle.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield lambda: (thread.join(30), b"".join(got))[1]
    finally:
        if thread.is_alive():  # nothing opened it: release the reader
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            thread.join(5)


def _steady(data: bytes) -> list[object]:
    """The output without what differs from run to run (timings): each JSON document or line
    parsed, its ``seconds``/``timings``/``elapsed`` keys dropped; other lines as they are."""

    def drop(value: object) -> object:
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k not in _VOLATILE}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    with contextlib.suppress(ValueError):
        return [drop(json.loads(data))]
    steady: list[object] = []
    for line in data.decode().splitlines():
        try:
            steady.append(drop(json.loads(line)))
        except ValueError:
            steady.append(line)
    return steady


_VOLATILE = {"seconds", "timings", "elapsed", "started", "finished", "created"}


@pytest.mark.parametrize("option", sorted(OUTPUT_OPTIONS))
def test_a_fifo_receives_the_output_and_stays_a_fifo(option: str, work: Path) -> None:
    fifo = work.parent / "pipe"
    os.mkfifo(fifo)
    with _fifo_reader(fifo) as received:
        code, stderr = _invoke(OUTPUT_OPTIONS[option], fifo)
        data = received()
    assert code in (0, 1), stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # What a file would have received: the same command writing a regular file.
    file = work.parent / "out"
    _invoke(OUTPUT_OPTIONS[option], file)
    assert _steady(data) == _steady(file.read_bytes())
    assert data or option.startswith("dedup --spans --removed")  # only that one may be empty


def test_a_compressed_name_is_compressed_on_a_fifo(work: Path) -> None:
    fifo = work.parent / "clean.jsonl.gz"
    os.mkfifo(fifo)
    with _fifo_reader(fifo) as received:
        code, stderr = _invoke(["dedup", "train.jsonl", "-o", "NODE"], fifo)
        data = received()
    assert code == 0, stderr
    rows = gzip.decompress(data).decode().splitlines()
    assert len(rows) == 35  # 45 rows less the 10 near-copies


def test_parquet_rows_go_to_a_device_and_to_standard_output(work: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [json.loads(line) for line in (work / "train.jsonl").read_text().splitlines()]
    pq.write_table(pa.Table.from_pylist(rows), work / "train.parquet")
    node = work.parent / "null"
    _make_null_device(node)
    code, stderr = _invoke(["dedup", "train.parquet", "-o", "NODE"], node)
    assert code == 0, stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    result = CliRunner().invoke(cli, ["dedup", "train.parquet", "-o", "-"])
    assert result.exit_code == 0, result.stderr
    out = work / "from-stdout.parquet"
    out.write_bytes(result.stdout_bytes)
    assert pq.read_table(out).num_rows == 35


def test_dedup_writes_rows_to_standard_output(work: Path) -> None:
    """``-o -`` is standard output, as for a report (the summary stays on standard error)."""
    result = CliRunner().invoke(cli, ["dedup", "train.jsonl", "-o", "-"])
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.splitlines()) == 35
    assert not (work / "-").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["decon", "train.jsonl", "--evals", "evals.jsonl", "--db", "NODE", "-o", "clean.jsonl"],
        ["index", "add", "docs", "--db", "NODE"],
        ["index", "add", "docs", "--db", "NODE", "--rebuild"],
    ],
    ids=["decon --db", "index add --db", "index add --db --rebuild"],
)
def test_a_store_is_never_kept_in_a_device(args: list[str], work: Path) -> None:
    """A store is a file of its own (replaced atomically, journals beside it): a device given
    as one is refused with a message, and stays a device."""
    node = work.parent / "null"
    _make_null_device(node)
    code, stderr = _invoke(args, node)
    assert code != 0
    assert "not a regular file" in stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert sorted(p.name for p in work.parent.iterdir()) == ["null", "work"]


def test_write_fingerprints_refuses_a_device_before_scanning(work: Path) -> None:
    """--write-fingerprints names a folder: a device there is refused before the scan."""
    node = work.parent / "null"
    _make_null_device(node)
    code, stderr = _invoke(["scan", "docs", "--write-fingerprints", "NODE"], node)
    assert code == 2
    assert "not a folder" in stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("option", ["dedup -o", "dedup --removed", "decon --report"])
def test_a_symbolic_link_is_written_through_and_kept(option: str, work: Path) -> None:
    """A link to a file: the file it names gets the output, the link stays a link."""
    real = work.parent / "real.jsonl"
    real.write_text("old\n")
    link = work.parent / "link.jsonl"
    link.symlink_to(real)
    code, stderr = _invoke(OUTPUT_OPTIONS[option], link)
    assert code in (0, 1), stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() != "old\n" and real.read_text()
