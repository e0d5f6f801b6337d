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

With ``rewrite`` a row's text can be changed too (``dedup --spans``): ``rewrite(file, row)``
gives None (the row is copied as stored) or a function from the row's text to its new text
(None: the row is not written). Only a rewritten row is written anew: a JSON object with its
text field set (``json.dumps``, non-ASCII as is), a CSV or TSV record with its text column
replaced (in its dialect, its line end kept), a Parquet row with its text column (top-level)
replaced; every other row stays byte for byte.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError
from ..readers.rows import (
    FORMAT_NAMES,
    PARQUET_READ,
    RowOptions,
    compressed_by_name,
    delimited_dialect,
    delimited_raw,
    field_value,
    format_by_name,
    format_of,
    jsonl_lines,
)
from .output import atomic_file

# The values added to row ``row`` of input ``file``: one per column, in ``columns`` order.
Notes = Callable[[int, int], list[Any]]
# A column added with notes: its name and kind ("bool", "string", "strings": a list of them,
# in CSV one cell of them separated by spaces; "true"/"false" for a bool, empty for None).
Column = tuple[str, str]
# For row ``row`` of input ``file``: None (as stored), or its text -> its new text (None: drop).
Rewrite = Callable[[int, int], Callable[[str], str | None] | None]


def written_format(inputs: Sequence[str], options: RowOptions, output: str | None) -> str:
    """The one row format of ``inputs``, which ``output`` (when given) must be written in:
    rows are written back as they were read, so the inputs must share a format and the
    output's name may not say another (``ConfigError`` otherwise)."""
    kinds = {format_of(path, options) for path in inputs}
    if len(kinds) != 1:
        raise ConfigError(
            "the inputs must all be of one format to be written back (found "
            f"{', '.join(sorted(kinds))})"
        )
    kind = next(iter(kinds))
    if output is not None:
        check_output_format(output, kind)
    return kind


def check_output_format(output: str, kind: str) -> None:
    """Refuse an output whose name says another row format than the inputs' (rows are written
    in the format they were read, so that kept rows are copied as stored), or a compressed
    Parquet file (Parquet compresses its columns itself; a compressed stream of it is no
    Parquet file)."""
    named = format_by_name(output)
    # CSV and TSV are one writer: the dialect is the input's.
    if named is not None and {named, kind} != {"csv", "tsv"} and named != kind:
        raise ConfigError(
            f"-o {output}: its name says {FORMAT_NAMES[named]}, but the inputs are "
            f"{FORMAT_NAMES[kind]}; simdup writes the format it reads (name the output "
            f"{_EXAMPLE_NAMES[kind]})"
        )
    if kind == "parquet" and compressed_by_name(output):
        raise ConfigError(
            f"-o {output}: a Parquet file is not compressed by its name (Parquet compresses its "
            "columns: the input's compression is kept); name it .parquet"
        )


_EXAMPLE_NAMES = {"jsonl": ".jsonl, .jsonl.gz or .jsonl.zst", "csv": ".csv or .csv.gz",
                  "tsv": ".tsv or .tsv.gz", "parquet": ".parquet"}  # fmt: skip


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
    rewrite: Rewrite | None = None,
) -> int:
    """Write the rows of ``inputs`` (all of format ``kind``) to ``output``: without ``notes``
    the document rows not in ``dropped``, as stored; with them every row, with ``columns``
    added; ``rewrite``: the rows whose text it changes with their new text. Returns the rows
    written."""
    if kind == "parquet":
        return _parquet(inputs, output, options, dropped, unreadable, columns, notes, rewrite)
    if kind in ("csv", "tsv"):
        return _delimited(inputs, output, options, dropped, unreadable, columns, notes, rewrite)
    return _jsonl(inputs, output, options, dropped, unreadable, columns, notes, rewrite)


def _set_field(record: Any, dotted: str, value: str) -> None:
    """Set the field at a dotted path of a record (a dict of dicts) that has it."""
    *parents, name = dotted.split(".")
    for part in parents:
        record = record[part]
    record[name] = value


def _rewritten_line(line: bytes, field: str, change: Callable[[str], str | None]) -> bytes | None:
    """A JSON line (a document: an object with a string at ``field``) with its text changed;
    None: drop it."""
    record = json.loads(line)
    found, text = field_value(record, field)
    assert found and isinstance(text, str)
    new = change(text)
    if new is None:
        return None
    _set_field(record, field, new)
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def _jsonl(
    inputs: Sequence[str],
    output: str,
    options: RowOptions,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column],
    notes: Notes | None,
    rewrite: Rewrite | None = None,
) -> int:
    written = 0
    held: list[bytes] = []
    names = [name for name, _ in columns]
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            for row, (_, line) in enumerate(jsonl_lines(path, options)):
                if isinstance(line, str):
                    continue  # no bytes held: a line too long, a damaged stream
                change = rewrite(f, row) if rewrite is not None else None
                if change is not None and row not in unreadable[f]:
                    changed = _rewritten_line(line, options.text_field, change)
                    if changed is None:
                        continue
                    line = changed
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
    rewrite: Rewrite | None = None,
) -> int:
    written = 0
    header: str | None = None
    names = [name for name, _ in columns]
    text_at = -1
    with atomic_file(output) as out:
        for f, path in enumerate(inputs):
            dialect = delimited_dialect(path, options)
            for row, raw in delimited_raw(path, options):
                if row == -1:
                    if header is None:
                        header = raw
                        fields = next(csv.reader([raw], dialect), [])
                        if rewrite is not None and options.text_field in fields:
                            text_at = fields.index(options.text_field)
                        if notes is not None:
                            raw = extended(raw, names, dialect)
                        out.write(raw.encode("utf-8", "surrogateescape"))
                    elif raw.rstrip("\r\n") != header.rstrip("\r\n"):
                        raise ConfigError(f"{path}: its header is not {inputs[0]}'s")
                    continue
                if row is None:
                    continue
                change = rewrite(f, row) if rewrite is not None else None
                if change is not None and text_at >= 0 and row not in unreadable[f]:
                    changed = _rewritten_record(raw, text_at, dialect, change)
                    if changed is None:
                        continue
                    raw = changed
                if notes is not None:
                    values = [""] * len(names) if row in unreadable[f] else notes(f, row)
                    raw = extended(raw, [_cell(v) for v in values], dialect)
                elif row in dropped[f] or row in unreadable[f]:
                    continue
                out.write(raw.encode("utf-8", "surrogateescape"))
                written += 1
    return written


def _rewritten_record(
    raw: str, text_at: int, dialect: Any, change: Callable[[str], str | None]
) -> str | None:
    """A CSV or TSV record as stored with its text field changed, written in its dialect with
    its line end; None: drop it."""
    body = raw.rstrip("\r\n")
    end = raw[len(body) :] or "\n"
    fields = next(csv.reader(io.StringIO(raw, newline=""), dialect))
    new = change(fields[text_at])
    if new is None:
        return None
    fields[text_at] = new
    buffer = io.StringIO()
    csv.writer(buffer, dialect, lineterminator="").writerow(fields)
    return buffer.getvalue() + end


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
    options: RowOptions,
    dropped: Sequence[set[int]],
    unreadable: Sequence[dict[int, str]],
    columns: Sequence[Column],
    notes: Notes | None,
    rewrite: Rewrite | None = None,
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
                        gone: set[int] = set()
                        if rewrite is not None:
                            batch, gone = _rewritten_batch(batch, numbers, f, options.text_field,
                                                           rewrite, unreadable[f])  # fmt: skip
                        if notes is None:
                            keep = [n not in dropped[f] and n not in unreadable[f]
                                    and n not in gone for n in numbers]  # fmt: skip
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
                            if gone:
                                chosen = chosen.filter(pa.array([n not in gone for n in numbers]))
                        if chosen.num_rows:
                            batches.append(chosen)
                    if batches:
                        table = pa.Table.from_batches(batches, written_schema)
                        writer.write_table(table)
                        written += table.num_rows
        finally:
            writer.close()
    return written


def _rewritten_batch(
    batch: Any, numbers: range, f: int, field: str, rewrite: Rewrite, unreadable: dict[int, str]
) -> tuple[Any, set[int]]:
    """A Parquet record batch with the text column (top-level) of its rewritten rows changed,
    and the row numbers rewritten to None (to be left out)."""
    import pyarrow as pa

    changes = {
        k: change
        for k, n in enumerate(numbers)
        if n not in unreadable and (change := rewrite(f, n)) is not None
    }
    if not changes:
        return batch, set()
    at = batch.schema.get_field_index(field)
    if at < 0:
        raise ConfigError(f"rewriting Parquet rows needs a top-level text column ({field!r})")
    texts = batch.column(at).to_pylist()
    gone: set[int] = set()
    for k, change in changes.items():
        new = change(texts[k])
        if new is None:
            gone.add(numbers[k])
        else:
            texts[k] = new
    columns = list(batch.columns)
    columns[at] = pa.array(texts, type=batch.schema.field(at).type)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema), gone
