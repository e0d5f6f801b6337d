"""``dedup_files``: a dataset of rows deduplicated into a new file of the same format.

The rows are read once to decide (``read_records`` into ``dedup_records``), then the input is
read again and the kept rows are written: a JSON Lines row is copied byte for byte (its line
as stored, after decompression), so nothing about a kept row changes, and so is a CSV or TSV
record (its lines as stored, after the header); Parquet is filtered row group by row group
with its schema, key-value metadata and compression. The output is written
to a temporary file beside it and moved into place only when complete (a stopped run leaves
no partial output), compressed as its name says (``.gz``, ``.zst``, ``.bz2``, ``.xz``). An
input that changed between the two reads (size, modification time or inode) stops the run:
its second read would not be the rows decided on.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import lzma
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from .deduplication import Dedup, dedup_records
from .errors import ConfigError, MissingExtraError, OutputError, SimdupError
from .options import ScanOptions
from .readers.rows import (
    Row,
    RowOptions,
    delimited_raw,
    format_of,
    open_binary,
    read_records,
)
from .records import SkippedFile


class InputChangedError(SimdupError):
    """An input file changed while it was being deduplicated."""


@dataclass(frozen=True)
class DedupRun:
    """What ``dedup_files`` did: the decisions, where each row was (file and line), and the
    counts for the summary."""

    decisions: Dedup
    places: tuple[tuple[str, int | None], ...]
    written: int

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        return self.decisions.skipped


def _identity(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


@contextlib.contextmanager
def _atomic_binary(target: str) -> Iterator[IO[bytes]]:
    """A binary stream to ``target``, compressed as its name says, moved into place when the
    block ends without an error."""
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory):
        raise OutputError(f"{target}: no such folder: {directory}")
    fd, tmp = tempfile.mkstemp(prefix=".simdup-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as raw:
            suffix = os.path.splitext(target)[1].lower()
            stream: Any
            if suffix == ".gz":
                stream = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
            elif suffix == ".bz2":
                stream = bz2.BZ2File(raw, "wb")
            elif suffix == ".xz":
                stream = lzma.LZMAFile(raw, "wb")  # noqa: SIM115 (closed by the with below)
            elif suffix in (".zst", ".zstd"):
                try:
                    import zstandard
                except ImportError as exc:
                    raise MissingExtraError("writing zstd-compressed rows", "rows") from exc
                stream = zstandard.ZstdCompressor().stream_writer(raw, closefd=False)
            else:
                stream = None
            if stream is None:
                yield raw
            else:
                with stream:
                    yield stream
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_annotated(
    inputs: Sequence[str],
    output: str,
    decisions: Dedup,
    places: Sequence[tuple[str, int | None]],
) -> int:
    """Every row that is a document, with its ``cluster_id`` (None: alone) and
    ``duplicate_of`` (None: kept) added, in input order."""
    at = {place: n for n, place in enumerate(places)}
    written = 0
    with _atomic_binary(output) as out:
        for path in inputs:
            with open_binary(path) as stream:
                for number, line in enumerate(stream, start=1):
                    n = at.get((path, number))
                    if n is None:
                        continue
                    record = json.loads(line)
                    cluster = int(decisions.cluster[n])
                    kept = int(decisions.duplicate_of[n])
                    record["cluster_id"] = cluster if cluster >= 0 else None
                    record["duplicate_of"] = decisions.keys[kept] if kept >= 0 else None
                    out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
                    written += 1
    return written


def _write_delimited(
    inputs: Sequence[str], output: str, kept: set[tuple[str, int]], rows: RowOptions
) -> int:
    """The kept records of CSV or TSV ``inputs`` into ``output`` as they were stored (the
    same dialect, quoting and line ends), after the first input's header; every input must
    have that header."""
    written = 0
    header: str | None = None
    with _atomic_binary(output) as out:
        for path in inputs:
            for row, raw in delimited_raw(path, rows):
                if row == -1:
                    if header is None:
                        header = raw
                        out.write(raw.encode("utf-8", "surrogateescape"))
                    elif raw.rstrip("\r\n") != header.rstrip("\r\n"):
                        raise ConfigError(f"{path}: its header is not {inputs[0]}'s")
                elif row is not None and (path, row) in kept:
                    out.write(raw.encode("utf-8", "surrogateescape"))
                    written += 1
    return written


def _write_parquet(inputs: Sequence[str], output: str, kept: set[tuple[str, int]]) -> int:
    """The kept rows of Parquet ``inputs`` into ``output``, row group by row group, with the
    first input's schema, key-value metadata (a ``huggingface`` key included) and
    compression."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pq.ParquetFile(inputs[0])
    schema = first.schema_arrow
    meta = first.metadata
    compression = (
        meta.row_group(0).column(0).compression.lower() if meta.num_row_groups else "snappy"
    )
    written = 0
    with _atomic_binary(output) as out:
        writer = pq.ParquetWriter(out, schema, compression=compression)
        try:
            for path in inputs:
                source = pq.ParquetFile(path)
                if not source.schema_arrow.equals(schema, check_metadata=False):
                    raise ConfigError(f"{path}: its schema is not {inputs[0]}'s")
                offset = 0
                for group in range(source.metadata.num_row_groups):
                    table = source.read_row_group(group)
                    mask = [(path, offset + n) in kept for n in range(table.num_rows)]
                    offset += table.num_rows
                    chosen = table.filter(pa.array(mask, type=pa.bool_()))
                    if chosen.num_rows:
                        writer.write_table(chosen)
                        written += chosen.num_rows
        finally:
            writer.close()
    return written


def dedup_files(
    inputs: Sequence[str],
    output: str,
    *,
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    keep: str = "first",
    removed: str | None = None,
    annotate: bool = False,
) -> DedupRun:
    """Deduplicate the rows of ``inputs`` (all of one format: JSON Lines, CSV, TSV, compressed
    or not, or Parquet) into ``output`` in their format, and list each removed row with the
    row it repeats in ``removed`` (JSON Lines). With ``annotate`` every row is written, with
    ``cluster_id`` and ``duplicate_of`` (the key of the row kept for it) added (JSON Lines
    only: those rows are written again, not copied)."""
    rows = rows or RowOptions()
    kinds = {format_of(path, rows) for path in inputs}
    if annotate and kinds != {"jsonl"}:
        raise ConfigError("--annotate writes JSON Lines only (not yet CSV or Parquet)")
    if len(kinds) != 1:
        raise ConfigError(
            f"the inputs must all be of one format to be written back (found "
            f"{', '.join(sorted(kinds))})"
        )
    before = {path: _identity(path) for path in inputs}
    places: list[tuple[str, int | None]] = []
    numbers: list[tuple[str, int]] = []

    def documents() -> Iterator[Row | SkippedFile]:
        for found in read_records(inputs, rows):
            if isinstance(found, Row):
                places.append((found.file, found.line))
                numbers.append((found.file, found.row))
            yield found

    decisions = dedup_records(documents(), options, keep=keep)
    for path in inputs:
        if _identity(path) != before[path]:
            raise InputChangedError(f"{path} changed while it was being deduplicated")
    kept_rows = {numbers[n] for n in range(len(numbers)) if decisions.keep[n]}
    if annotate:
        written = _write_annotated(inputs, output, decisions, places)
    elif kinds == {"parquet"}:
        written = _write_parquet(inputs, output, kept_rows)
    elif kinds & {"csv", "tsv"}:
        written = _write_delimited(inputs, output, kept_rows, rows)
    else:
        kept = {places[n] for n in range(len(places)) if decisions.keep[n]}
        written = 0
        with _atomic_binary(output) as out:
            for path in inputs:
                with open_binary(path) as stream:
                    for number, line in enumerate(stream, start=1):
                        if (path, number) in kept:
                            out.write(line if line.endswith(b"\n") else line + b"\n")
                            written += 1
    if removed is not None:
        with _atomic_binary(removed) as out:
            for row, kept_row, similarity in decisions.removals():
                record = {
                    "key": decisions.keys[row],
                    "file": places[row][0],
                    "row": numbers[row][1],
                    "line": places[row][1],
                    "duplicate_of": decisions.keys[kept_row],
                    "duplicate_of_file": places[kept_row][0],
                    "duplicate_of_row": numbers[kept_row][1],
                    "duplicate_of_line": places[kept_row][1],
                    "similarity": round(similarity, 4),
                }
                out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
    return DedupRun(decisions, tuple(places), written)
