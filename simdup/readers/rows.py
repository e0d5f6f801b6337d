"""Datasets of rows: JSON Lines, CSV, TSV and Parquet files, one document per row, streamed.

A row's document is the value of its text field (``text_field``, a dotted path into nested
JSON); its key is its id (``id_field``, kept exactly as written: a 30-digit integer stays
those digits) or ``file#row``. Rows are read one at a time from the file (decompressed as
they are read: gzip, zstd, bz2 and xz, known by their first bytes), so memory holds one row,
not the dataset.

A row that cannot be a document is a ``SkippedFile`` keyed ``file#row`` (stage ``row``) with
its reason, and reading goes on: a line that is not JSON or not an object, a missing, null or
non-string text field, invalid UTF-8, a lone surrogate, a line longer than ``max_line``
bytes, a CSV field over the parser's limit. A truncated compressed stream (a gzip, bz2 or xz
stream that ends early; a zstd frame without its end, which a zstd stream reader can take for
the end of the data) is a skip record at the row where it stops, and a file that cannot be
opened as its format one for the file.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import IO, Any

from ..errors import ConfigError, MissingExtraError
from ..native import speedups
from ..records import SkippedFile

FORMATS = ("auto", "jsonl", "csv", "tsv", "parquet")
DEFAULT_MAX_LINE = 64 << 20
_COMPRESSED = {  # first bytes -> name
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
}
_SUFFIXES = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd", ".bz2": "bz2", ".xz": "xz"}
_CHUNK = 1 << 20


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


class TruncatedStream(Exception):
    """A compressed stream ended before its end marker."""


def compression_of(path: str, head: bytes) -> str | None:
    """The compression of a file, by its first bytes (its name when they say nothing)."""
    for magic, name in _COMPRESSED.items():
        if head.startswith(magic):
            return name
    return _SUFFIXES.get(os.path.splitext(path)[1].lower())


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of a zstd file of one or more frames; a last frame without its
    end raises ``TruncatedStream`` (a stream reader would end there silently)."""

    def __init__(self, raw: IO[bytes]) -> None:
        try:
            import zstandard
        except ImportError as exc:
            raise MissingExtraError("reading zstd-compressed rows", "rows") from exc
        self._zstd = zstandard
        self._raw = raw
        self._inner = zstandard.ZstdDecompressor().decompressobj()
        self._pending = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        while not self._pending and not self._done:
            chunk = self._raw.read(_CHUNK)
            if not chunk:
                if not self._inner.eof and self._started:
                    raise TruncatedStream("the zstd stream ends inside a frame")
                self._done = True
                break
            self._feed(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    _started = False

    def _feed(self, chunk: bytes) -> None:
        while chunk:
            self._started = True
            out = self._inner.decompress(chunk)
            self._pending += out
            if self._inner.eof:
                chunk = self._inner.unused_data
                self._inner = self._zstd.ZstdDecompressor().decompressobj()
                self._started = False
            else:
                chunk = b""


def open_binary(path: str) -> IO[bytes]:
    """The file's bytes, decompressed as they are read (closing it closes the file)."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    kind = compression_of(path, head)
    stream: Any
    if kind == "gzip":
        stream = gzip.open(path, "rb")  # noqa: SIM115
    elif kind == "bz2":
        stream = bz2.open(path, "rb")  # noqa: SIM115
    elif kind == "xz":
        stream = lzma.open(path, "rb")  # noqa: SIM115
    elif kind == "zstd":
        stream = io.BufferedReader(_ZstdFrames(open(path, "rb")), _CHUNK)  # noqa: SIM115
    else:
        stream = open(path, "rb")  # noqa: SIM115 (closed by the caller)
    opened: IO[bytes] = stream
    return opened


_EOF_ERRORS = (EOFError, TruncatedStream, gzip.BadGzipFile, OSError, lzma.LZMAError)

# Why the rest of an input could not be read (the start of a skip record's reason): the input
# itself is damaged, not one row of it.
DAMAGED_STREAM = "the compressed stream is truncated or damaged"
UNREADABLE_PARQUET = "not a readable Parquet file"
PARQUET_CUT = "the Parquet file cannot be read on"


def is_damage(reason: str) -> bool:
    """Whether a row's skip reason says that its input is damaged or truncated (the rows after
    it, if any, were not read)."""
    return reason.startswith((DAMAGED_STREAM, UNREADABLE_PARQUET, PARQUET_CUT))


_NAMED_FORMATS = ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"),
                  (".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"))  # fmt: skip
FORMAT_NAMES = {"jsonl": "JSON Lines", "csv": "CSV", "tsv": "TSV", "parquet": "Parquet"}


def format_by_name(path: str) -> str | None:
    """The row format a file's name says (its compression suffix aside), None when it says
    none."""
    name = path.lower()
    stem, suffix = os.path.splitext(name)
    if suffix in _SUFFIXES:
        name = stem
    for ext, kind in _NAMED_FORMATS:
        if name.endswith(ext):
            return kind
    return None


def compressed_by_name(path: str) -> bool:
    """Whether a file's name ends in a compression suffix (``.gz``, ``.zst``, ...)."""
    return os.path.splitext(path.lower())[1] in _SUFFIXES


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


class _Rows:
    """Numbering, and the checks every format shares."""

    def __init__(self, path: str, options: RowOptions) -> None:
        self.path = path
        self.options = options
        self.row = 0

    def skip(self, reason: str) -> SkippedFile:
        found = SkippedFile(f"{self.path}#{self.row}", "row", reason)
        self.row += 1
        return found

    def made(
        self, text: Any, id_value: Any, found_id: bool, line: int | None, order: Any = None
    ) -> Row | SkippedFile:
        checked = row_text(text, id_value, found_id, self.options)
        if isinstance(checked, str):
            return self.skip(checked)
        value, ident = checked
        key = ident if ident is not None else f"{self.path}#{self.row}"
        row = Row(key, value, self.path, self.row, line, ident, order)
        self.row += 1
        return row


# A JSON Lines row as its file holds it: its line number and its bytes, or the reason it is
# no row (a line over ``max_line``, not held; a truncated stream, which ends the file).
RawLine = tuple[int, bytes | str]


def _blocks(path: str) -> Iterator[bytes]:
    """The file's bytes, decompressed, a block at a time as decompression gives them (no copy
    through a buffered reader: that doubled the cost of reading zstd). Raises what
    ``open_binary``'s stream raises for a truncated or damaged stream, after every byte
    before the damage."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if compression_of(path, head) != "zstd":
        with open_binary(path) as stream:
            read = getattr(stream, "read1", stream.read)
            while block := read(_CHUNK):
                yield block
        return
    try:
        import zstandard
    except ImportError as exc:
        raise MissingExtraError("reading zstd-compressed rows", "rows") from exc
    with open(path, "rb") as raw:
        inner = zstandard.ZstdDecompressor().decompressobj()
        started = False
        while chunk := raw.read(_CHUNK):
            while chunk:
                started = True
                out = inner.decompress(chunk)
                if out:
                    yield out
                if inner.eof:  # a frame ended: the next one, if any, starts here
                    chunk = inner.unused_data
                    inner = zstandard.ZstdDecompressor().decompressobj()
                    started = False
                else:
                    chunk = b""
        if started and not inner.eof:
            raise TruncatedStream("the zstd stream ends inside a frame")


def _span_blocks(path: str, start: int, stop: int) -> Iterator[bytes]:
    """The bytes of the lines of an uncompressed file that begin at offsets ``[start,
    stop)``: from the first line start at or after ``start`` to the end of the line that holds
    byte ``stop - 1`` (the partitions of a Dask run, each line in exactly one)."""
    with open(path, "rb") as fh:
        at = 0
        if start > 0:
            fh.seek(start - 1)
            at = start - 1
            while True:  # the rest of the line that began before ``start``, passed over
                block = fh.read(_CHUNK)
                if not block:
                    return
                end = block.find(b"\n")
                if end >= 0:
                    at += end + 1
                    break
                at += len(block)
            fh.seek(at)
        left = stop - at
        last = b"\n"
        while left > 0:
            block = fh.read(min(_CHUNK, left))
            if not block:
                return
            left -= len(block)
            last = block[-1:]
            yield block
        if last == b"\n":
            return
        while block := fh.read(_CHUNK):  # the end of the last line begun in the span
            end = block.find(b"\n")
            if end >= 0:
                yield block[: end + 1]
                return
            yield block


def jsonl_lines(
    path: str,
    options: RowOptions,
    span: tuple[int, int] | None = None,
    first_line: int = 1,
    counted: list[int] | None = None,
) -> Iterator[RawLine]:
    """The rows of a JSON Lines file as stored (blank lines are no rows): ``(line, bytes)``,
    or ``(line, reason)`` for a line too long to hold (over ``max_line`` bytes before its line
    end: read past, never held) and for a truncated or damaged stream (the last item then).
    One read of the file serves the decisions and the writing back. The file is read a block
    at a time and cut into lines there. ``span``: only the lines that begin at those byte
    offsets of an uncompressed file, the first numbered ``first_line`` (a Dask partition);
    ``counted`` gets the number of lines read, blank ones included, when the lines are done."""
    limit = options.max_line
    line_number = first_line - 1
    tail = b""  # the start of a line whose end is in a later block
    dropping = False  # inside a line too long to hold
    blocks = _blocks(path) if span is None else _span_blocks(path, *span)
    while True:
        try:
            block = next(blocks, b"")
        except _EOF_ERRORS as exc:
            yield line_number + 1, f"{DAMAGED_STREAM}: {exc}"
            return
        if not block:
            break
        parts = block.split(b"\n")
        last = parts.pop()
        if parts:
            if not dropping:
                parts[0] = tail + parts[0]
            for k, part in enumerate(parts):
                line_number += 1
                if (k == 0 and dropping) or len(part) > limit:
                    yield line_number, f"line {line_number} is longer than {limit} bytes"
                elif part and not part.isspace():  # not blank (as part.strip(), no copy)
                    yield line_number, part + b"\n"
            dropping = False
            tail = b""
        if dropping:
            continue
        tail += last
        if len(tail) > limit:
            dropping, tail = True, b""
    if dropping or tail:
        line_number += 1
        if dropping:
            yield line_number, f"line {line_number} is longer than {limit} bytes"
        elif tail.strip():
            yield line_number, tail
    if counted is not None:
        counted.append(line_number - first_line + 1)


# What ``json.loads`` runs on a str (a decoder of the default settings), called directly on a
# line that starts with "{": the same value, without the wrapper's steps for other input.
_SCAN_JSON: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _json_object(decoded: str) -> Any:
    """``json.loads(decoded)`` when it is sure to be a JSON object and nothing else (the
    line starts with "{" and is followed by JSON whitespace only), else None (then
    ``json.loads`` says what it is)."""
    if decoded[:1] != "{":
        return None
    try:
        record, end = _SCAN_JSON(decoded, 0)
    except (StopIteration, ValueError):
        return None
    if end != len(decoded) and decoded[end:].strip(" \t\n\r"):
        return None
    return record


def parse_jsonl_line(
    line: bytes, number: int, options: RowOptions
) -> tuple[str, str | None, Any] | str:
    """A JSON line's text, id and the value of ``options.order_field`` (None when absent), or
    why it is no document."""
    try:
        decoded = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"line {number} is not UTF-8 (byte {exc.start})"
    record = _json_object(decoded)
    if record is None:
        try:
            record = json.loads(decoded)
        except ValueError as exc:
            return f"line {number} is not JSON: {exc}"
        if not isinstance(record, dict):
            return f"line {number} is a JSON {type(record).__name__}, not an object"
    # A lone surrogate in a str read from UTF-8 comes from a \u escape only.
    found = record_row(record, options, surrogates=b"\\u" in line)
    return f"line {number} has no text field {options.text_field!r}" if found is None else found


def plain_jsonl_texts(lines: list[bytes], options: RowOptions) -> list[str | None]:
    """For each JSON line, its text when it is plainly a document (``parse_jsonl_line``
    would give that text, and no reason), or None: such a line is to be parsed by
    ``parse_jsonl_line``. The native reader takes the text field without building the
    record (and leaves anything unusual to Python: None); without it, or with a dotted text
    field or an id field that must be there, every line is None."""
    if speedups is None or options.id_field or "." in options.text_field:
        return [None] * len(lines)
    texts: list[str | None] = speedups.jsonl_texts(lines, options.text_field)
    return texts


def jsonl_texts_python(lines: list[bytes], field: str) -> list[str | None]:
    """What ``jsonl_texts`` may return, line by line: the value of the top-level ``field`` of
    a line that is a JSON object (UTF-8) when that value is a string without a lone
    surrogate, else None (the native reader may give None for more lines, never another
    str)."""
    out: list[str | None] = []
    for line in lines:
        try:
            record = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            out.append(None)
            continue
        value = record.get(field) if isinstance(record, dict) else None
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                value = None
        out.append(value if isinstance(value, str) else None)
    return out


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


def _jsonl(path: str, options: RowOptions) -> Iterator[Row | SkippedFile]:
    rows = _Rows(path, options)
    for number, line in jsonl_lines(path, options):
        if isinstance(line, str):
            yield rows.skip(line)
            continue
        parsed = parse_jsonl_line(line, number, options)
        if isinstance(parsed, str):
            yield rows.skip(parsed)
            continue
        text, ident, order = parsed
        key = ident if ident is not None else f"{path}#{rows.row}"
        yield Row(key, text, path, rows.row, number, ident, order)
        rows.row += 1


def delimited_rows(path: str, options: RowOptions, tabs: bool) -> Iterator[Row | SkippedFile]:
    rows = _Rows(path, options)
    csv.field_size_limit(options.max_line)
    with open_binary(path) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
        try:
            sample = text.read(1 << 16)
        except _EOF_ERRORS as exc:
            yield rows.skip(f"{DAMAGED_STREAM}: {exc}")
            return
        dialect = _dialect(sample, tabs)
        reader = csv.reader(_Chained(sample, text), dialect)
        try:
            header = next(reader, None)
        except (csv.Error, *_EOF_ERRORS) as exc:
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
                yield rows.skip(f"the record at line {start} cannot be parsed: {exc}")
                continue
            except _EOF_ERRORS as exc:
                yield rows.skip(f"{DAMAGED_STREAM}: {exc}")
                return
            if not fields:
                continue
            if text_at >= len(fields):
                yield rows.skip(f"the record at line {start} has no {options.text_field!r} field")
                continue
            value = fields[text_at]
            if any("\udc80" <= ch <= "\udcff" for ch in value):
                yield rows.skip(f"the record at line {start} is not UTF-8")
                continue
            ident = fields[id_at] if id_at is not None and id_at < len(fields) else None
            if not options.id_field and ident == "":
                ident = None  # an empty "id" cell: no id, the key is file#row
            order = fields[order_at] if order_at is not None and order_at < len(fields) else None
            yield rows.made(value, ident, ident is not None, start, order)


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


# Column chunks read through a 1 MB buffer, page by page, not whole: a row group of 10^5 short
# rows otherwise costs ~200 MB at once (measured: 261 -> 159 MB peak reading 10^5 rows).
PARQUET_READ: dict[str, Any] = {"buffer_size": 1 << 20, "pre_buffer": False}


def parquet_rows(
    path: str, options: RowOptions, groups: range | None = None, first_row: int = 0
) -> Iterator[Row | SkippedFile]:
    """The rows of a Parquet file (of its row groups ``groups``, the first numbered
    ``first_row``: a partition read on a Dask worker)."""
    rows = _Rows(path, options)
    rows.row = first_row
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("reading Parquet rows", "rows") from exc
    try:
        parquet = pq.ParquetFile(path, **PARQUET_READ)
    except Exception as exc:  # pyarrow's errors: a damaged or truncated file
        yield rows.skip(f"{UNREADABLE_PARQUET}: {exc}")
        return
    top = options.text_field.split(".")[0]
    names = parquet.schema_arrow.names
    if top not in names:
        yield rows.skip(f"no column {options.text_field!r} (columns: {', '.join(names)})")
        return
    id_name = options.id_field or DEFAULT_ID_FIELD
    columns = [top] + [f.split(".")[0] for f in (id_name, options.order_field) if f]
    columns = [c for c in dict.fromkeys(columns) if c in names]
    try:
        chosen = list(groups) if groups is not None else None
        for batch in parquet.iter_batches(columns=columns, batch_size=4096, row_groups=chosen):
            for record in batch.to_pylist():
                found, text = field_value(record, options.text_field)
                if not found:
                    yield rows.skip(f"no text field {options.text_field!r}")
                    continue
                found_id, ident = record_id(record, options)
                order = field_value(record, options.order_field)[1] if options.order_field else None
                yield rows.made(text, ident, found_id, None, order)
    except Exception as exc:  # a damaged row group
        yield rows.skip(f"{PARQUET_CUT}: {exc}")


# The version of how rows become texts: the formats, fields and checks above. Reported with
# the libraries it reads with in every report and decision made from rows.
ROWS_READER_VERSION = "2"  # 2: a row's "id" is its key when no id field is named


def rows_description(options: RowOptions) -> dict[str, Any]:
    """What made the texts of rows: the reader's version with its libraries, and the format
    and fields read (a report's ``settings["records"]``)."""
    import importlib.metadata

    found = []
    for library in ("pyarrow", "zstandard"):
        try:
            found.append(f"{library} {importlib.metadata.version(library)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{library} missing")
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
            yield from _jsonl(path, options)


__all__ = ["Row", "RowOptions", "read_records"]
