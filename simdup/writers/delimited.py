"""CSV and TSV written back as they were read (``readers.rows.delimited.delimited_raw``, in
the dialect the reader found): the first input's header, then each record as stored (its lines,
quoting and line ends) unless it is noted or rewritten; every input must have that header.
A note adds its columns at the end of each record (and their names to the header), quoted as
the record's dialect quotes; a rewritten record is written anew in its dialect with its text
field replaced and its line end kept."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError
from ..readers.rows.base import RowOptions
from ..readers.rows.delimited import delimited_dialect, delimited_raw
from .base import Plan
from .output import output_file


def write_delimited(inputs: Sequence[str], output: str, options: RowOptions, plan: Plan) -> int:
    """The records of CSV or TSV ``inputs`` that ``plan`` writes into ``output``, as it says.
    Returns the records written."""
    notes, rewrite = plan.notes, plan.rewrite
    written = 0
    header: str | None = None
    names = [name for name, _ in plan.columns]
    text_at = -1
    with output_file(output) as out:
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
                if change is not None and text_at >= 0:
                    changed = _rewritten_record(raw, text_at, dialect, change)
                    if changed is None:
                        continue
                    raw = changed
                if not plan.written(f, row):
                    continue
                if notes is not None:
                    note = notes(f, row)
                    raw = extended(raw, [cell(note[name]) for name in names], dialect)
                out.write(raw.encode("utf-8", "surrogateescape"))
                written += 1
    return written


def cell(value: Any) -> str:
    """A noted value as a CSV cell: empty for None, ``true``/``false`` for a bool, a list's
    items separated by spaces."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):  # a list of strings: separated by spaces
        return " ".join(str(v) for v in value)
    return str(value)


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
