"""Datasets of rows: JSON Lines, CSV, TSV and Parquet files, one document per row, streamed.

A row's document is the value of its text field (``text_field``, a dotted path into nested
JSON); its key is its id (``id_field``, kept exactly as written: a 30-digit integer stays
those digits) or ``file#row``. Rows are read one at a time from the file (decompressed as
they are read: gzip, zstd, bz2 and xz, known by their first bytes), so memory holds one row,
not the dataset. One module a format: ``jsonl``, ``delimited`` (CSV and TSV), ``parquet``;
what they share in ``base`` (the options, a row, the format of a file, the checks a row
passes), the decompression in ``compression``. Every name is importable from here.

A row that cannot be a document is a ``SkippedRow`` (a ``SkippedFile`` of stage ``row``)
with its reason, keyed as a document would be (its id when one can be read, else
``file#row``) and saying its file, row and line, and reading goes on: a line that is not JSON
or not an object, a missing, null or non-string text field, invalid UTF-8, a lone surrogate, a
line longer than ``max_line`` bytes, a CSV field over the parser's limit. A truncated
compressed stream (a gzip, bz2 or xz stream that ends early; a zstd frame without its end,
which a zstd stream reader can take for the end of the data) is a skip record at the row
where it stops, and a file that cannot be opened as its format one for the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from ...records import SkippedFile
from .base import DAMAGED_STREAM as DAMAGED_STREAM
from .base import DEFAULT_ID_FIELD as DEFAULT_ID_FIELD
from .base import DEFAULT_MAX_LINE as DEFAULT_MAX_LINE
from .base import FORMAT_NAMES as FORMAT_NAMES
from .base import FORMATS as FORMATS
from .base import PARQUET_CUT as PARQUET_CUT
from .base import UNREADABLE_PARQUET as UNREADABLE_PARQUET
from .base import Row, RowOptions
from .base import damage_error as damage_error
from .base import field_value as field_value
from .base import format_by_name as format_by_name
from .base import format_of as format_of
from .base import is_damage as is_damage
from .base import record_id as record_id
from .base import record_id_text as record_id_text
from .base import record_row as record_row
from .base import row_text as row_text
from .base import skipped_place as skipped_place
from .compression import TruncatedStream as TruncatedStream
from .compression import compressed_by_name as compressed_by_name
from .compression import compression_of as compression_of
from .compression import open_binary as open_binary
from .delimited import delimited_dialect as delimited_dialect
from .delimited import delimited_raw as delimited_raw
from .delimited import delimited_rows as delimited_rows
from .jsonl import RawLine as RawLine
from .jsonl import jsonl_line_id as jsonl_line_id
from .jsonl import jsonl_lines as jsonl_lines
from .jsonl import jsonl_rows
from .jsonl import jsonl_texts_python as jsonl_texts_python
from .jsonl import parse_jsonl_line as parse_jsonl_line
from .jsonl import plain_jsonl_texts as plain_jsonl_texts
from .parquet import PARQUET_READ as PARQUET_READ
from .parquet import parquet_rows as parquet_rows

# The version of how rows become texts: the formats, fields and checks above. Reported with
# the libraries it reads with in every report and decision made from rows.
ROWS_READER_VERSION = "2"  # 2: a row's "id" is its key when no id field is named


def rows_description(options: RowOptions) -> dict[str, Any]:
    """What made the texts of rows: the reader's version with its libraries, and the format
    and fields read (a report's ``settings["records"]``)."""
    from .. import installed_version  # the package above this one: imported by now

    found = []
    for library in ("pyarrow", "zstandard"):
        version = installed_version(library)
        found.append(f"{library} {version if version is not None else 'missing'}")
    return {
        "reader": f"{ROWS_READER_VERSION} ({', '.join(found)})",
        "format": options.records,
        "text_field": options.text_field,
        "id_field": options.id_field or f"{DEFAULT_ID_FIELD} (when a row has one)",
    }


def read_records(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    options: RowOptions | None = None,
    **overrides: Any,
) -> Iterator[Row | SkippedFile]:
    """The rows of dataset files, one at a time, each a ``Row`` or the ``SkippedFile`` of why
    it is not a document; keyword arguments are ``RowOptions`` fields."""
    if options is None:
        options = RowOptions(**overrides)
    elif overrides:
        options = replace(options, **overrides)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    for named in paths:
        path = os.fspath(named)
        try:
            kind = format_of(path, options)
        except OSError as exc:
            yield SkippedFile(path, "read", exc.strerror or str(exc))
            continue
        if kind == "parquet":
            yield from parquet_rows(path, options)
        elif kind in ("csv", "tsv"):
            yield from delimited_rows(path, options, tabs=kind == "tsv")
        else:
            yield from jsonl_rows(path, options)


__all__ = ["Row", "RowOptions", "read_records"]
