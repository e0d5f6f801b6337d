"""CSV and TSV rows: the records of a file in the dialect sniffed from its first 64 KB (TSV:
tab-separated, Excel's quoting) as documents (``delimited_rows``), and as stored, their lines
and line ends, for writing them back (``delimited_raw``, ``delimited_dialect``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import IO, Any

from ...records import SkippedFile
from .base import DAMAGED_STREAM, DEFAULT_ID_FIELD, Numbering, Row, RowOptions, format_of
from .compression import EOF_ERRORS, open_binary


def delimited_rows(path: str, options: RowOptions, tabs: bool) -> Iterator[Row | SkippedFile]:
    """The rows of a CSV (or, ``tabs``, TSV) file, each a ``Row`` or the skip record of why it
    is none (a record that cannot be parsed, a missing text field, a text not UTF-8)."""
    rows = Numbering(path, options)
    csv.field_size_limit(options.max_line)
    with open_binary(path) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
        try:
            sample = text.read(1 << 16)
        except EOF_ERRORS as exc:
            yield rows.skip(f"{DAMAGED_STREAM}: {exc}")
            return
        dialect = _dialect(sample, tabs)
        reader = csv.reader(_Chained(sample, text), dialect)
        try:
            header = next(reader, None)
        except (csv.Error, *EOF_ERRORS) as exc:
            yield rows.skip(f"the header cannot be read: {exc}")
            return
        if header is None:
            return
        if options.text_field not in header:
            yield rows.skip(f"no column {options.text_field!r} (columns: {', '.join(header)})")
            return
        text_at = header.index(options.text_field)
        id_name = options.id_field or DEFAULT_ID_FIELD
        id_at = header.index(id_name) if id_name in header else None
        order_at = header.index(options.order_field) if options.order_field in header else None
        while True:
            start = reader.line_num + 1
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield rows.skip(f"the record at line {start} cannot be parsed: {exc}", start)
                continue
            except EOF_ERRORS as exc:
                yield rows.skip(f"{DAMAGED_STREAM}: {exc}")
                return
            if not fields:
                continue
            if text_at >= len(fields):
                yield rows.skip(f"the record at line {start} has no {options.text_field!r} field",
                                start, _cell_id(fields, id_at, options))
                continue
            value = fields[text_at]
            if any("\udc80" <= ch <= "\udcff" for ch in value):
                yield rows.skip(f"the record at line {start} is not UTF-8", start,
                                _cell_id(fields, id_at, options))
                continue
            ident = fields[id_at] if id_at is not None and id_at < len(fields) else None
            if not options.id_field and ident == "":
                ident = None  # an empty "id" cell: no id, the key is file#row
            order = fields[order_at] if order_at is not None and order_at < len(fields) else None
            yield rows.made(value, ident, ident is not None, start, order)


def _cell_id(fields: list[str], at: int | None, options: RowOptions) -> str | None:
    """The id cell of a record (None: no id column, no such cell, or an empty default one)."""
    ident = fields[at] if at is not None and at < len(fields) else None
    return None if not options.id_field and ident == "" else ident


class _Chained(Iterator[str]):
    """The lines of ``first`` (already read) and then of ``rest``."""

    def __init__(self, first: str, rest: IO[str]) -> None:
        self._lines = iter(io.StringIO(first, newline=""))
        self._pending = ""
        self._rest = rest
        self._first_done = False
        self.taken: list[str] = []  # the lines given since it was last cleared

    def __next__(self) -> str:
        line = self._next()
        self.taken.append(line)
        return line

    def _next(self) -> str:
        if not self._first_done:
            line = next(self._lines, None)
            if line is not None:
                if line.endswith(("\n", "\r")) or not line:
                    return line
                # The sample ended inside this line: its rest comes from the stream.
                self._first_done = True
                return line + self._rest.readline()
            self._first_done = True
        line = self._rest.readline()
        if not line:
            raise StopIteration
        return line


def _dialect(sample: str, tabs: bool) -> Any:
    """The CSV dialect of a file's first 64 KB (TSV: tab-separated, Excel's quoting)."""
    if tabs:
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;|\t")
    except csv.Error:
        return csv.excel


def delimited_dialect(path: str, options: RowOptions) -> Any:
    """The dialect ``read_records`` reads a CSV or TSV file with."""
    with open_binary(path) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
        return _dialect(text.read(1 << 16), format_of(path, options) == "tsv")


def delimited_raw(path: str, options: RowOptions) -> Iterator[tuple[int | None, str]]:
    """The records of a CSV or TSV file as stored (their lines, line ends included; read as
    ``read_records`` reads them, so the same dialect), each with the row number
    ``read_records`` gives it (-1: the header; None: a blank line, which is no row)."""
    tabs = format_of(path, options) == "tsv"
    csv.field_size_limit(options.max_line)
    with open_binary(path) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
        sample = text.read(1 << 16)
        dialect = _dialect(sample, tabs)
        lines = _Chained(sample, text)
        reader = csv.reader(lines, dialect)
        if next(reader, None) is None:
            return
        yield -1, "".join(lines.taken)
        row = 0
        while True:
            lines.taken.clear()
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error:
                row += 1
                continue
            if not fields:
                yield None, "".join(lines.taken)
                continue
            yield row, "".join(lines.taken)
            row += 1


