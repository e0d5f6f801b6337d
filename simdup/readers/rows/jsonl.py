"""JSON Lines rows: the lines of a file as stored (``jsonl_lines``, read a block at a time,
blank lines no rows, a line over ``max_line`` bytes read past and never held), a line parsed
into its text, id and order value or why it is no document (``parse_jsonl_line``), the text
fields of plain lines taken natively (``plain_jsonl_texts``; its twin ``jsonl_texts_python``),
and the rows of a file (``jsonl_rows``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from ...native import speedups
from ...records import SkippedFile
from .base import DAMAGED_STREAM, Numbering, Row, RowOptions, record_id_text, record_row
from .compression import EOF_ERRORS, read_blocks, span_blocks

# A JSON Lines row as its file holds it: its line number and its bytes, or the reason it is
# no row (a line over ``max_line``, not held; a truncated stream, which ends the file).
RawLine = tuple[int, bytes | str]


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
    blocks = read_blocks(path) if span is None else span_blocks(path, *span)
    while True:
        try:
            block = next(blocks, b"")
        except EOF_ERRORS as exc:
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


def jsonl_line_id(line: bytes, options: RowOptions) -> str | None:
    """The id of a JSON line that is no document (``parse_jsonl_line`` gave a reason), as its
    key: None unless the line is a JSON object with an id (its text field is what is wrong)."""
    try:
        record = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return record_id_text(record, options)


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


def jsonl_rows(path: str, options: RowOptions) -> Iterator[Row | SkippedFile]:
    """The rows of a JSON Lines file, each a ``Row`` or the skip record of why it is none."""
    rows = Numbering(path, options)
    for number, line in jsonl_lines(path, options):
        if isinstance(line, str):
            yield rows.skip(line, number)
            continue
        parsed = parse_jsonl_line(line, number, options)
        if isinstance(parsed, str):
            yield rows.skip(parsed, number, jsonl_line_id(line, options))
            continue
        text, ident, order = parsed
        key = ident if ident is not None else f"{path}#{rows.row}"
        yield Row(key, text, path, rows.row, number, ident, order)
        rows.row += 1

