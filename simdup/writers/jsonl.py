"""JSON Lines written back as they were read (``readers.rows.jsonl.jsonl_lines``): a line as
stored (after decompression) unless it is noted or rewritten, so nothing about a kept row
changes. A noted line is its object with the note's keys set (a line that is no JSON object
is written as stored); a rewritten line, its object with its text field set (``json.dumps``,
non-ASCII as is). A line the reader could not hold (too long, a damaged stream) is never
written."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..readers.rows.base import RowOptions, field_value
from ..readers.rows.jsonl import jsonl_lines
from .base import Plan
from .output import output_file

# Lines joined into one write (a write per row costs more than the copy).
_HELD = 1024


def write_jsonl(inputs: Sequence[str], output: str, options: RowOptions, plan: Plan) -> int:
    """The rows of JSON Lines ``inputs`` that ``plan`` writes into ``output``, as it says.
    Returns the rows written."""
    notes, rewrite = plan.notes, plan.rewrite
    written = 0
    held: list[bytes] = []
    with output_file(output) as out:
        for f, path in enumerate(inputs):
            for row, (_, line) in enumerate(jsonl_lines(path, options)):
                if isinstance(line, str):
                    continue  # no bytes held: a line too long, a damaged stream
                change = rewrite(f, row) if rewrite is not None else None
                if change is not None:
                    changed = _rewritten_line(line, options.text_field, change)
                    if changed is None:
                        continue
                    line = changed
                if not plan.written(f, row):
                    continue
                if notes is None:
                    held.append(line if line.endswith(b"\n") else line + b"\n")
                else:
                    held.append(_noted_line(line, notes(f, row)))
                written += 1
                if len(held) >= _HELD:
                    out.write(b"".join(held))
                    held.clear()
            out.write(b"".join(held))
            held.clear()
    return written


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


def _noted_line(line: bytes, note: Mapping[str, Any]) -> bytes:
    """A JSON line with the keys of ``note`` set; a line that is not a JSON object (not JSON,
    not UTF-8, another value) is written as stored."""
    try:
        record = json.loads(line)
    except ValueError:  # not UTF-8 (UnicodeDecodeError is a ValueError) or not JSON
        record = None
    if not isinstance(record, dict):
        return line if line.endswith(b"\n") else line + b"\n"
    record.update(note)
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
