"""Rows written back as they were read, minus some, or every row with notes added.

A writer gets, per input, the row numbers it drops and the rows that are no document (with
why), and for ``notes`` a function giving the values added to a row (a JSON object's keys, CSV
columns at the end of each record in its dialect, Parquet columns). Without notes a kept JSON
line is copied byte for byte (as stored, after decompression), a CSV or TSV record keeps its
lines, quoting and line ends after the first input's header, and Parquet is filtered row group
by row group with its schema, key-value metadata and compression: what ``dedup`` does. The
output is one ``atomic_file``: compressed as its name says, in place only when complete.
A row that is no document is not written without notes; with notes a JSON object gets
``"skipped"`` (why) and null values, a CSV record or Parquet row empty values, and a line that
is not JSON is written as stored.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError
from ..readers.rows import PARQUET_READ, RowOptions, delimited_dialect, delimited_raw, jsonl_lines
from .output import atomic_file

# The values added to row ``row`` of input ``file``: one per column, in ``columns`` order.
Notes = Callable[[int, int], list[Any]]
# A column added with notes: its name and kind ("bool", "string", "strings": a list of them,
# in CSV one cell of them separated by spaces; "true"/"false" for a bool, empty for None).
Column = tuple[str, str]


def write_rows(
    kind: str,
    inputs: Sequence[str],
    output: str,
    options: RowOptions,
    *,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column] = (),
    notes: Notes | None = None,
) -> int:
    """Write the rows of ``inputs`` (all of format ``kind``) to ``output``: without ``notes``
    the document rows not in ``dropped``, as stored; with them every row, with ``columns``
    added. Returns the rows written."""
    if kind == "parquet":
        return _parquet(inputs, output, dropped, unreadable, columns, notes)
    if kind in ("csv", "tsv"):
        return _delimited(inputs, output, options, dropped, unreadable, columns, notes)
    return _jsonl(inputs, output, options, dropped, unreadable, columns, notes)


def _jsonl(
    inputs: Sequence[str],
    output: str,
    options: RowOptions,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column],
    notes: Notes | None,
) -> int:
    written = 0
    held: list[bytes] = []
    names = [name for name, _ in columns]
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            for row, (_, line) in enumerate(jsonl_lines(path, options)):
                if isinstance(line, str):
                    continue  # no bytes held: a line too long, a damaged stream
                if notes is None:
                    if row in dropped[f] or row in unreadable[f]:
                        continue
                    held.append(line if line.endswith(b"\n") else line + b"\n")
                    if len(held) >= 1024:  # a write per row costs more than the copy
                        out.write(b"".join(held))
                        held.clear()
                else:
                    held.append(_noted_line(line, names, notes(f, row), unreadable[f].get(row)))
                written += 1
            out.write(b"".join(held))
            held.clear()
    return written


def _noted_line(line: bytes, names: list[str], values: list[Any], reason: str | None) -> bytes:
    """A JSON line with ``names`` set to ``values``; a row that is no document (``reason``):
    a JSON object gets null values and ``skipped``, anything else is written as stored."""
    try:
        record = json.loads(line)
    except ValueError:  # not UTF-8 (UnicodeDecodeError is a ValueError) or not JSON
        record = None
    if not isinstance(record, dict):
        return line if line.endswith(b"\n") else line + b"\n"
    if reason is not None:
        record.update(dict.fromkeys(names), skipped=reason)
    else:
        record.update(zip(names, values, strict=True))
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):  # a list of strings: separated by spaces
        return " ".join(str(v) for v in value)
    return str(value)


def _delimited(
    inputs: Sequence[str],
    output: str,
    options: RowOptions,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column],
    notes: Notes | None,
) -> int:
    written = 0
    header: str | None = None
    names = [name for name, _ in columns]
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            dialect = delimited_dialect(path, options)
            for row, raw in delimited_raw(path, options):
                if row == -1:
                    if header is None:
                        header = raw
                        if notes is not None:
                            raw = extended(raw, names, dialect)
                        out.write(raw.encode("utf-8", "surrogateescape"))
                    elif raw.rstrip("\r\n") != header.rstrip("\r\n"):
                        raise ConfigError(f"{path}: its header is not {inputs[0]}'s")
                    continue
                if row is None:
                    continue
                if notes is not None:
                    values = [""] * len(names) if row in unreadable[f] else notes(f, row)
                    raw = extended(raw, [_cell(v) for v in values], dialect)
                elif row in dropped[f] or row in unreadable[f]:
                    continue
                out.write(raw.encode("utf-8", "surrogateescape"))
                written += 1
    return written


def extended(raw: str, values: list[str], dialect: Any) -> str:
    """A record as stored with ``values`` added as fields at its end, before its line end,
    quoted as its dialect quotes."""
    body = raw.rstrip("\r\n")
    end = raw[len(body) :] or "\n"
    buffer = io.StringIO()
    csv.writer(buffer, dialect, lineterminator="").writerow(values)
    return f"{body}{dialect.delimiter}{buffer.getvalue()}{end}"


def _arrow_type(kind: str) -> Any:
    import pyarrow as pa

    return {"bool": pa.bool_(), "string": pa.string(), "strings": pa.list_(pa.string())}[kind]


def _parquet(
    inputs: Sequence[str],
    output: str,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column],
    notes: Notes | None,
) -> int:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pq.ParquetFile(inputs[0])
    schema = first.schema_arrow
    meta = first.metadata
    compression = (
        meta.row_group(0).column(0).compression.lower() if meta.num_row_groups else "snappy"
    )
    written_schema = schema
    if notes is not None:
        for name, kind in columns:
            written_schema = written_schema.append(pa.field(name, _arrow_type(kind)))
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
                    batches = []
                    for batch in source.iter_batches(batch_size=8192, row_groups=[group]):
                        numbers = range(offset, offset + batch.num_rows)
                        offset += batch.num_rows
                        if notes is None:
                            keep = [n not in dropped[f] and n not in unreadable[f]
                                    for n in numbers]  # fmt: skip
                            chosen = batch.filter(pa.array(np.array(keep, dtype=bool)))
                        else:
                            values = [
                                [None] * len(columns) if n in unreadable[f] else notes(f, n)
                                for n in numbers
                            ]
                            added = [
                                pa.array([v[c] for v in values], type=_arrow_type(kind))
                                for c, (_, kind) in enumerate(columns)
                            ]
                            chosen = pa.RecordBatch.from_arrays(
                                [*batch.columns, *added], schema=written_schema
                            )
                        if chosen.num_rows:
                            batches.append(chosen)
                    if batches:
                        table = pa.Table.from_batches(batches, written_schema)
                        writer.write_table(table)
                        written += table.num_rows
        finally:
            writer.close()
    return written
