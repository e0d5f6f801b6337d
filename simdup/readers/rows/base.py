"""What every row format shares: how rows are read (``RowOptions``), a row as a document
(``Row``), the format of a file (``format_of``: by option, by name, by first bytes), the text
and id fields of a record and the checks a row passes to be a document (``row_text``,
``record_row``), the numbering of rows with their skip records (``Numbering``), and the
reasons that say an input is damaged (``is_damage``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigError, DamagedInputError
from ...records import SkippedFile, SkippedRow
from .compression import compressed_by_name

FORMATS = ("auto", "jsonl", "csv", "tsv", "parquet")
DEFAULT_MAX_LINE = 64 << 20


@dataclass(frozen=True)
class RowOptions:
    """How rows are read: the format (``auto``: by the file's name, then its first bytes),
    the text field and the id field (dotted paths into JSON; column names in CSV and Parquet),
    the longest line or field taken, in bytes, and the field read for a keep policy by value
    (``order_field``: ``--keep max:FIELD``)."""

    records: str = "auto"
    text_field: str = "text"
    id_field: str | None = None
    max_line: int = DEFAULT_MAX_LINE
    order_field: str | None = None

    def __post_init__(self) -> None:
        if self.records not in FORMATS:
            raise ConfigError(f"unknown records format {self.records!r} ({', '.join(FORMATS)})")
        if not self.text_field:
            raise ConfigError("the text field cannot be empty")
        if self.max_line < 1:
            raise ConfigError("max_line must be at least 1")


@dataclass(frozen=True, slots=True)
class Row:
    """One row as a document: its ``key`` (its id as written, else ``file#row``), its text,
    the file, its row (0-based, rows that are documents and rows skipped alike), its line
    (1-based, JSON Lines and CSV; None in Parquet), its id (None without ``id_field``) and
    the value of ``order_field`` as read (None without it)."""

    key: str
    text: str
    file: str
    row: int
    line: int | None
    id: str | None
    order: Any = None


# Why the rest of an input could not be read (the start of a skip record's reason): the input
# itself is damaged, not one row of it.
DAMAGED_STREAM = "the compressed stream is truncated or damaged"
UNREADABLE_PARQUET = "not a readable Parquet file"
PARQUET_CUT = "the Parquet file cannot be read on"


def is_damage(reason: str) -> bool:
    """Whether a row's skip reason says that its input is damaged or truncated (the rows after
    it, if any, were not read)."""
    return reason.startswith((DAMAGED_STREAM, UNREADABLE_PARQUET, PARQUET_CUT))


def damage_error(skipped: Iterable[SkippedFile]) -> DamagedInputError | None:
    """The error for the first damaged input among ``skipped``, if any (its skip record says
    where): what ``dedup``, ``decon`` and ``dedup --spans`` raise before writing anything."""
    for skip in skipped:
        if is_damage(skip.reason):
            path, row = skipped_place(skip)
            before = f"after {row} rows" if row is not None else "before its end"
            return DamagedInputError(
                path or skip.path,
                f"{skip.reason} ({before}); nothing was written (--accept-damaged keeps the rows "
                "read before the damage)",
            )
    return None


def skipped_place(skip: SkippedFile) -> tuple[str, int | None]:
    """The file and row of a row's skip record (a ``SkippedRow``, or one keyed ``file#row``);
    the row None for a file's."""
    if isinstance(skip, SkippedRow):
        return skip.file, skip.row if skip.row >= 0 else None
    path, _, row = skip.path.rpartition("#")
    return (path, int(row)) if row.isdigit() else (skip.path, None)


_NAMED_FORMATS = ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"),
                  (".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"))  # fmt: skip
FORMAT_NAMES = {"jsonl": "JSON Lines", "csv": "CSV", "tsv": "TSV", "parquet": "Parquet"}


def format_by_name(path: str) -> str | None:
    """The row format a file's name says (its compression suffix aside), None when it says
    none."""
    name = path.lower()
    if compressed_by_name(name):
        name = os.path.splitext(name)[0]
    for ext, kind in _NAMED_FORMATS:
        if name.endswith(ext):
            return kind
    return None


def format_of(path: str, options: RowOptions) -> str:
    """The format of a dataset file: ``options.records``, or by its name without the
    compression suffix, or by its first bytes."""
    if options.records != "auto":
        return options.records
    named = format_by_name(path)
    if named is not None:
        return named
    with open(path, "rb") as fh:
        if fh.read(4) == b"PAR1":
            return "parquet"
    return "jsonl"


def field_value(record: Any, dotted: str) -> tuple[bool, Any]:
    """Whether a record (a dict of dicts) has the field at the dotted path, and its value."""
    if type(record) is dict and "." not in dotted:  # the usual case, without the ABC check
        return (True, record[dotted]) if dotted in record else (False, None)
    value = record
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


# A row's key when it has this field and no id field is named (``id_field``): what datatrove's
# readers and most dataset tools take, and what a user means by a row's id.
DEFAULT_ID_FIELD = "id"


def record_id(record: Any, options: RowOptions) -> tuple[bool, Any]:
    """Whether a record (a dict) has an id, and its value: at ``options.id_field`` when one
    is named (a record without it is refused by ``row_text``), else at ``"id"`` when the
    record has one that is not null (else its key is ``file#row``)."""
    if options.id_field:
        return field_value(record, options.id_field)
    found, value = field_value(record, DEFAULT_ID_FIELD)
    return found and value is not None, value


def record_id_text(record: Any, options: RowOptions) -> str | None:
    """The id of a record that is no document, as its key: its id as a document's would be
    written, None when it has none or a null one (then its key is ``file#row``)."""
    if not isinstance(record, Mapping):
        return None
    found, value = record_id(record, options)
    return _id_text(value) if found and value is not None else None


def _id_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)  # an int as its digits, however many; a float as Python writes it


def row_text(
    text: Any, id_value: Any, found_id: bool, options: RowOptions, surrogates: bool = True
) -> tuple[str, str | None] | str:
    """A row's text and id (as written; None without ``id_field``), or why the row is no
    document (the checks every format shares). ``surrogates=False``: the text is known to hold
    no lone surrogate (it was read from UTF-8 without a ``\\u`` escape), no need to look."""
    field = options.text_field
    if text is None:
        return f"text field {field!r} is null"
    if not isinstance(text, str):
        return f"text field {field!r} is {type(text).__name__}, not a string"
    if surrogates:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return f"text field {field!r} holds a lone surrogate"
    if options.id_field and not found_id:
        return f"no id field {options.id_field!r}"
    return text, _id_text(id_value) if found_id else None


class Numbering:
    """A file's rows numbered as they are read (documents and skipped rows alike), each made a
    ``Row`` or the skip record of why it is no document (the checks every format shares)."""

    def __init__(self, path: str, options: RowOptions) -> None:
        self.path = path
        self.options = options
        self.row = 0

    def skip(self, reason: str, line: int | None = None, ident: str | None = None) -> SkippedRow:
        """The skip record of the next row: keyed by its id when it has one (``ident``), as a
        document is, else ``file#row``; ``line``: the line its reason names (None: Parquet)."""
        found = SkippedRow.of(self.path, self.row, reason, line, ident)
        self.row += 1
        return found

    def made(
        self, text: Any, id_value: Any, found_id: bool, line: int | None, order: Any = None
    ) -> Row | SkippedFile:
        checked = row_text(text, id_value, found_id, self.options)
        if isinstance(checked, str):
            ident = _id_text(id_value) if found_id and id_value is not None else None
            return self.skip(checked, line, ident)
        value, ident = checked
        key = ident if ident is not None else f"{self.path}#{self.row}"
        row = Row(key, value, self.path, self.row, line, ident, order)
        self.row += 1
        return row


def record_row(
    record: Any, options: RowOptions, surrogates: bool = True
) -> tuple[str, str | None, Any] | str | None:
    """A record's (a dict of dicts) text, id and the value of ``options.order_field`` (None
    when absent); why it is no document; or None when it has no text field (each caller
    says where). ``surrogates``: as for ``row_text``."""
    found, text = field_value(record, options.text_field)
    if not found:
        return None
    found_id, ident = record_id(record, options)
    checked = row_text(text, ident, found_id, options, surrogates)
    if isinstance(checked, str):
        return checked
    order = field_value(record, options.order_field)[1] if options.order_field else None
    return checked[0], checked[1], order

