"""``dedup_files``: a dataset of rows deduplicated into a new file of the same format.

The rows are read once to decide (``dedup_rows``: chunks of rows fingerprinted by worker
processes, no row held), then the input is read again and the kept rows are written: a JSON
Lines row is copied byte for byte (its line as stored, after decompression), so nothing about
a kept row changes, and so is a CSV or TSV record (its lines as stored, after the header);
Parquet is filtered row group by row group with its schema, key-value metadata and
compression. ``annotate`` writes every row instead, with ``cluster_id`` and ``duplicate_of``
added (a JSON object's keys, CSV columns in the record's dialect, Parquet columns). The output
is written to a temporary file beside it and moved into place only when complete (a stopped
run leaves no partial output), compressed as its name says (``.gz``, ``.zst``, ``.bz2``,
``.xz``). An input that changed between the two reads (size, modification time or inode)
stops the run: its second read would not be the rows decided on.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engines.base import Progress
from ..engines.rows import RowEngine
from ..errors import ConfigError, InputError, SimdupError
from ..join import Reference
from ..options import ScanOptions
from ..readers.files import file_state
from ..readers.rows import (
    PARQUET_READ,
    RowOptions,
    delimited_dialect,
    delimited_raw,
    is_damage,
    jsonl_lines,
)
from ..records import SkippedFile
from ..text.processor import NOTHING_TO_JUDGE
from ..writers.output import atomic_file
from ..writers.rows import written_format
from .dedup import Dedup, dedup_rows


class InputChangedError(SimdupError):
    """An input file changed while it was being deduplicated."""


class DamagedInputError(InputError):
    """An input is truncated or damaged (a partial download, a file cut inside a compressed
    frame): deduplicating the rows before the damage would give a clean file that silently
    lacks the rest, so nothing is written unless the caller accepts it."""


def damage_error(skipped: Iterable[SkippedFile]) -> DamagedInputError | None:
    """The error for the first damaged input among ``skipped``, if any (its skip record says
    where): what ``dedup``, ``decon`` and ``dedup --spans`` raise before writing anything."""
    for skip in skipped:
        if is_damage(skip.reason):
            path, _, row = skip.path.rpartition("#")
            before = f"after {row} rows" if row.isdigit() else "before its end"
            return DamagedInputError(
                path or skip.path,
                f"{skip.reason} ({before}); nothing was written (--accept-damaged keeps the rows "
                "read before the damage)",
            )
    return None


def _unreadable(decisions: Dedup, inputs: Sequence[str]) -> list[dict[int, str]]:
    """Per input, its rows that are no document (not JSON, no text field, a null text...) and
    why, by row number (their skip records, ``file#row``)."""
    number = {path: f for f, path in enumerate(inputs)}
    found: list[dict[int, str]] = [{} for _ in inputs]
    for skip in decisions.skipped:
        path, _, row = skip.path.rpartition("#")
        f = number.get(path)
        if f is not None and row.isdigit():
            found[f][int(row)] = skip.reason
    return found


@dataclass(frozen=True)
class DedupRun:
    """What ``dedup_files`` did: the decisions (where each row was among them) and how many
    rows it wrote."""

    decisions: Dedup
    written: int

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        return self.decisions.skipped


def _row_masks(decisions: Dedup, files: int, rows: np.ndarray) -> list[np.ndarray]:
    """Per input, a mask over its row numbers of the document rows in ``rows`` (an index
    into the decisions)."""
    masks = []
    for f in range(files):
        chosen = decisions.row[rows[decisions.file[rows] == f]]
        mask = np.zeros(int(chosen.max()) + 1 if chosen.size else 0, dtype=bool)
        mask[chosen] = True
        masks.append(mask)
    return masks


def _index_of_rows(decisions: Dedup, files: int) -> list[np.ndarray]:
    """Per input, the decision index of each of its row numbers (-1: no document)."""
    out = []
    for f in range(files):
        ours = np.flatnonzero(decisions.file == f)
        rows = decisions.row[ours]
        index = np.full(int(rows.max()) + 1 if rows.size else 0, -1, dtype=np.int64)
        index[rows] = ours
        out.append(index)
    return out


def _in(mask: np.ndarray, row: int) -> bool:
    return row < mask.size and bool(mask[row])


def _annotation(decisions: Dedup, n: int) -> tuple[int | None, str | None]:
    """The ``cluster_id`` and ``duplicate_of`` added to row ``n``."""
    cluster = int(decisions.cluster[n])
    kept = int(decisions.duplicate_of[n])
    if kept >= 0:
        duplicate_of: str | None = decisions.keys[kept]
    else:
        duplicate_of = decisions.stored_match.get(n)
    return (cluster if cluster >= 0 else None), duplicate_of


def _write_jsonl(
    inputs: Sequence[str], output: str, decisions: Dedup, rows: RowOptions, annotate: bool
) -> int:
    """The kept JSON lines as stored, or (``annotate``) every row that is a document with its
    ``cluster_id`` (None: alone) and ``duplicate_of`` (None: kept) added."""
    written = 0
    if annotate:
        index = _index_of_rows(decisions, len(inputs))
        unreadable = _unreadable(decisions, inputs)
    else:
        kept = _row_masks(decisions, len(inputs), np.flatnonzero(decisions.keep))
    held: list[bytes] = []
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            for row, (_, line) in enumerate(jsonl_lines(path, rows)):
                if isinstance(line, str):
                    continue  # no bytes held: a line too long, a damaged stream
                if not annotate:
                    if _in(kept[f], row):
                        held.append(line if line.endswith(b"\n") else line + b"\n")
                        written += 1
                        if len(held) >= 1024:  # a write per row cost more than the copy
                            out.write(b"".join(held))
                            held.clear()
                    continue
                n = int(index[f][row]) if row < index[f].size else -1
                if n < 0:  # no document, kept all the same: annotated with why, if it can be
                    out.write(_annotated_unreadable(line, unreadable[f].get(row, "")))
                    written += 1
                    continue
                record = json.loads(line)
                record["cluster_id"], record["duplicate_of"] = _annotation(decisions, n)
                if not decisions.judged[n]:
                    record["judged"] = False  # nothing to judge: an empty or blank text
                out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
                written += 1
            out.write(b"".join(held))
            held.clear()
    return written


def _annotated_unreadable(line: bytes, reason: str) -> bytes:
    """A JSON line that is no document, for ``--annotate``: a JSON object gets ``cluster_id``
    and ``duplicate_of`` (null) and ``skipped`` (why); anything else (not JSON, not UTF-8, not
    an object) is written as stored."""
    try:
        record = json.loads(line)
    except ValueError:  # not UTF-8 (UnicodeDecodeError is a ValueError) or not JSON
        record = None
    if not isinstance(record, dict):
        return line if line.endswith(b"\n") else line + b"\n"
    record.update(cluster_id=None, duplicate_of=None, skipped=reason)
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def _write_delimited(
    inputs: Sequence[str], output: str, decisions: Dedup, rows: RowOptions, annotate: bool
) -> int:
    """The kept records of CSV or TSV ``inputs`` into ``output`` as they were stored (the
    same dialect, quoting and line ends), after the first input's header; every input must
    have that header. ``annotate``: every record that is a document, with the columns
    ``cluster_id`` and ``duplicate_of`` added at its end (written in its dialect)."""
    written = 0
    header: str | None = None
    if annotate:
        index = _index_of_rows(decisions, len(inputs))
    else:
        kept = _row_masks(decisions, len(inputs), np.flatnonzero(decisions.keep))
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            dialect = delimited_dialect(path, rows)
            for row, raw in delimited_raw(path, rows):
                if row == -1:
                    if header is None:
                        header = raw
                        if annotate:
                            raw = _extended(raw, ["cluster_id", "duplicate_of"], dialect)
                        out.write(raw.encode("utf-8", "surrogateescape"))
                    elif raw.rstrip("\r\n") != header.rstrip("\r\n"):
                        raise ConfigError(f"{path}: its header is not {inputs[0]}'s")
                    continue
                if row is None:
                    continue
                if annotate:  # every record, a record that is no document with empty values
                    n = int(index[f][row]) if row < index[f].size else -1
                    cluster, duplicate_of = _annotation(decisions, n) if n >= 0 else (None, None)
                    values = ["" if cluster is None else str(cluster), duplicate_of or ""]
                    raw = _extended(raw, values, dialect)
                elif not _in(kept[f], row):
                    continue
                out.write(raw.encode("utf-8", "surrogateescape"))
                written += 1
    return written


def _extended(raw: str, values: list[str], dialect: Any) -> str:
    """A record as stored with ``values`` added as fields at its end, before its line end,
    quoted as its dialect quotes."""
    body = raw.rstrip("\r\n")
    end = raw[len(body) :] or "\n"
    buffer = io.StringIO()
    csv.writer(buffer, dialect, lineterminator="").writerow(values)
    return f"{body}{dialect.delimiter}{buffer.getvalue()}{end}"


def _write_parquet(inputs: Sequence[str], output: str, decisions: Dedup, annotate: bool) -> int:
    """The kept rows of Parquet ``inputs`` into ``output``, row group by row group, with the
    first input's schema, key-value metadata (a ``huggingface`` key included) and
    compression; ``annotate``: every row that is a document, with the columns ``cluster_id``
    (int64) and ``duplicate_of`` (string) added."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pq.ParquetFile(inputs[0])
    schema = first.schema_arrow
    meta = first.metadata
    compression = (
        meta.row_group(0).column(0).compression.lower() if meta.num_row_groups else "snappy"
    )
    index: list[np.ndarray] = []
    kept: list[np.ndarray] = []
    if annotate:
        index = _index_of_rows(decisions, len(inputs))
        written_schema = schema.append(pa.field("cluster_id", pa.int64())).append(
            pa.field("duplicate_of", pa.string())
        )
    else:
        kept = _row_masks(decisions, len(inputs), np.flatnonzero(decisions.keep))
        written_schema = schema
    written = 0
    with atomic_file(output) as out:
        writer = pq.ParquetWriter(out, written_schema, compression=compression)
        try:
            for f, path in enumerate(inputs):
                source = pq.ParquetFile(path, **PARQUET_READ)
                if not source.schema_arrow.equals(schema, check_metadata=False):
                    raise ConfigError(f"{path}: its schema is not {inputs[0]}'s")
                offset = 0
                for group in range(source.metadata.num_row_groups):
                    # A batch at a time, so that a row group is held once (its kept rows),
                    # not read whole and then copied by the filter.
                    kept_batches = []
                    for batch in source.iter_batches(batch_size=8192, row_groups=[group]):
                        numbers = np.arange(offset, offset + batch.num_rows)
                        offset += batch.num_rows
                        chosen = _chosen(batch, numbers, f, annotate, index, kept, decisions,
                                         written_schema)  # fmt: skip
                        if chosen.num_rows:
                            kept_batches.append(chosen)
                    if kept_batches:
                        table = pa.Table.from_batches(kept_batches, written_schema)
                        writer.write_table(table)
                        written += table.num_rows
        finally:
            writer.close()
    return written


def _chosen(
    batch: Any,
    numbers: np.ndarray,
    f: int,
    annotate: bool,
    index: list[np.ndarray],
    kept: list[np.ndarray],
    decisions: Dedup,
    schema: Any,
) -> Any:
    """The rows of a Parquet record batch (rows ``numbers`` of input ``f``) that are written:
    the kept ones, or (``annotate``) every document with its two columns."""
    import pyarrow as pa

    if not annotate:
        mask = np.zeros(numbers.size, dtype=bool)
        inside = numbers < kept[f].size
        mask[inside] = kept[f][numbers[inside]]
        return batch.filter(pa.array(mask))
    found = np.full(numbers.size, -1, dtype=np.int64)
    inside = numbers < index[f].size
    found[inside] = index[f][numbers[inside]]
    # Every row: one that is no document (a null text) with null values.
    notes = [_annotation(decisions, n) if n >= 0 else (None, None) for n in found.tolist()]
    columns = [*batch.columns, pa.array([c for c, _ in notes], type=pa.int64()),
               pa.array([d for _, d in notes], type=pa.string())]  # fmt: skip
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def dedup_files(
    inputs: Sequence[str],
    output: str,
    *,
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    keep: str = "first",
    removed: str | None = None,
    annotate: bool = False,
    against: Reference | None = None,
    engine: RowEngine | None = None,
    progress: Progress | None = None,
    accept_damaged: bool = False,
    stage: Callable[[str], None] | None = None,
) -> DedupRun:
    """Deduplicate the rows of ``inputs`` (all of one format: JSON Lines, CSV, TSV, compressed
    or not, or Parquet) into ``output`` in their format, and list each removed row with the
    row it repeats in ``removed`` (JSON Lines). With ``annotate`` every row is written, with
    ``cluster_id`` and ``duplicate_of`` (the key of the row kept for it) added. With
    ``against`` (a stored index), rows that are near-duplicates of a stored document are
    removed too (``duplicate_of``: its key). ``engine``: where the rows are fingerprinted
    (default: worker processes here; ``DaskRowEngine``: a Dask cluster).

    A row that is no document (not JSON, no text field, a null text) is not written, and is
    listed in ``removed`` with why; with ``annotate`` it is written (annotated with why where
    it can be). A truncated or damaged input raises ``DamagedInputError`` and nothing is
    written, unless ``accept_damaged``: then the rows read before the damage are."""
    rows = rows or RowOptions()
    inputs = list(inputs)
    kind = written_format(inputs, rows, output)
    kinds = {kind}
    before = {path: file_state(path) for path in inputs}
    decisions = dedup_rows(inputs, rows, options, keep=keep, against=against, engine=engine,
                           progress=progress, stage=stage)  # fmt: skip
    for path in inputs:
        if file_state(path) != before[path]:
            raise InputChangedError(f"{path} changed while it was being deduplicated")
    damage = None if accept_damaged else damage_error(decisions.skipped)
    if damage is not None:
        raise damage
    if stage is not None:
        stage("writing")
    if kinds == {"parquet"}:
        written = _write_parquet(inputs, output, decisions, annotate)
    elif kinds & {"csv", "tsv"}:
        written = _write_delimited(inputs, output, decisions, rows, annotate)
    else:
        written = _write_jsonl(inputs, output, decisions, rows, annotate)
    if removed is not None:
        _write_removed(removed, decisions)
    return DedupRun(decisions, written)




def _write_removed(target: str, decisions: Dedup) -> None:
    """Each removed row, with the row kept for it (or the stored document), as JSON Lines;
    then each row kept because it has nothing to judge (``"judged": false`` and why)."""

    with atomic_file(target) as out:
        for n, kept, similarity in decisions.removals():
            file, row, line = decisions.place(n)
            record: dict[str, Any] = {"key": decisions.keys[n], "file": file, "row": row,
                                      "line": line}  # fmt: skip
            if kept >= 0:
                kept_file, kept_row, kept_line = decisions.place(kept)
                record.update(
                    duplicate_of=decisions.keys[kept],
                    duplicate_of_file=kept_file,
                    duplicate_of_row=kept_row,
                    duplicate_of_line=kept_line,
                )
            else:
                record.update(duplicate_of=decisions.stored_match[n], stored=True)
            record["similarity"] = round(similarity, 4)
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        # The rows kept without being judged (nothing in them), said so, after the removed ones.
        for n in np.flatnonzero(~decisions.judged).tolist():
            file, row, line = decisions.place(n)
            record = {"key": decisions.keys[n], "file": file, "row": row, "line": line,
                      "judged": False, "reason": NOTHING_TO_JUDGE}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        # Then the rows that are no document (written only with --annotate), and why.
        for skip in decisions.skipped:
            file, _, number = skip.path.rpartition("#")
            record = {"key": skip.path, "file": file or None,
                      "row": int(number) if number.isdigit() else None, "line": None,
                      "judged": False, "reason": skip.reason, "unreadable": True}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
