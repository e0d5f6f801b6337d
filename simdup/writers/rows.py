"""Rows written back as they were read, minus some, or every row with notes added: the one
entry for ``dedup``, ``decon`` and ``dedup --spans`` (``write_rows``), and the check of the
format written (``written_format``).

A writer gets, per input, which rows are written (``base.Kept``), and for ``notes`` a function
giving the note added to a row (a JSON object's keys, CSV columns at the end of each record in
its dialect, Parquet columns; ``base.skipped_note`` for a row that is no document). Without
notes a kept JSON line is copied byte for byte (as stored, after decompression), a CSV or TSV
record keeps its lines, quoting and line ends after the first input's header, and Parquet is
filtered row group by row group with its schema, key-value metadata and compression: what
``dedup`` does. One module a format, as ``readers/`` reads them (``jsonl``, ``delimited``,
``parquet``); the output is one ``output.output_file``: compressed as its name says, a file
replaced only when complete, a device, FIFO or standard output written as it is.

With ``rewrite`` a row's text can be changed too (``dedup --spans``): ``rewrite(file, row)``
gives None (the row is copied as stored) or a function from the row's text to its new text
(None: the row is not written). Only a rewritten row is written anew: a JSON object with its
text field set (``json.dumps``, non-ASCII as is), a CSV or TSV record with its text column
replaced (in its dialect, its line end kept), a Parquet row with its text column (top-level)
replaced; every other row stays byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError
from ..readers.rows.base import FORMAT_NAMES, RowOptions, format_by_name, format_of
from ..readers.rows.compression import compressed_by_name
from .base import Column, Kept, Notes, Plan, Rewrite
from .delimited import write_delimited
from .jsonl import write_jsonl
from .parquet import write_parquet


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
    kept: Sequence[Kept] | None = None,
    columns: Sequence[Column] = (),
    notes: Notes | None = None,
    rewrite: Rewrite | None = None,
) -> int:
    """Write the rows of ``inputs`` (all of format ``kind``) to ``output``: those in ``kept``
    (per input; every row: None), as stored; with ``notes``, each with its note (``columns``
    added); ``rewrite``: the rows whose text it changes with their new text. Returns the rows
    written."""
    plan = Plan(kept, columns, notes, rewrite)
    if kind == "parquet":
        return write_parquet(inputs, output, options, plan)
    if kind in ("csv", "tsv"):
        return write_delimited(inputs, output, options, plan)
    return write_jsonl(inputs, output, options, plan)
