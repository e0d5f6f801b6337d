"""Baselines: the near-duplicate pairs a project has accepted, read from an earlier report.

A CI job keeps a JSON (or JSON Lines) report of the duplicates it accepts and runs
``simdup scan ... --baseline accepted.json --fail-on-duplicates``: only pairs that are not in
the baseline fail the build. Pairs are matched by their paths as written in reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .errors import ConfigError
from .names import escape_path
from .records import DuplicatePair

Pair = tuple[str, str]


def _key(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object" if isinstance(value, dict) else "a list"


def _jsonl_pairs(path: str, text: str) -> list[object]:
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ConfigError(f"baseline {path}: neither JSON nor JSON Lines ({exc})") from exc
    if not any(isinstance(r, dict) and r.get("type") == "header" for r in lines):
        raise ConfigError(f"baseline {path}: not a simdup JSON Lines report (no header record)")
    return [r for r in lines if isinstance(r, dict) and r.get("type") == "pair"]


def load_baseline(path: str) -> frozenset[Pair]:
    """Accepted pairs from a ``simdup scan --format json`` or ``--format jsonl`` report.

    Anything else, an empty file included, raises ``ConfigError`` naming the file: a baseline
    that silently accepted nothing would let every pair fail, or hide a typo in CI.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"baseline {path}: cannot read it ({exc})") from exc
    if not text.strip():
        raise ConfigError(f"baseline {path}: empty file, not a simdup JSON or JSON Lines report")
    records: list[object]
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        records = _jsonl_pairs(path, text)
    else:
        if isinstance(data, dict) and data.get("type") == "header":
            records = _jsonl_pairs(path, text)  # JSON Lines of one line: the header alone
        elif not isinstance(data, dict) or "pairs" not in data:
            raise ConfigError(f"baseline {path}: not a simdup JSON report (no 'pairs')")
        elif not isinstance(data["pairs"], list):
            what = _json_type(data["pairs"])
            raise ConfigError(f"baseline {path}: 'pairs' must be a list, not {what}")
        else:
            records = data["pairs"]
    accepted = set()
    for record in records:
        if not isinstance(record, dict) or not {"a", "b"} <= record.keys():
            raise ConfigError(f"baseline {path}: a pair without 'a' and 'b'")
        a, b = record["a"], record["b"]
        if not isinstance(a, str) or not isinstance(b, str):
            raise ConfigError(f"baseline {path}: a pair whose 'a' or 'b' is not a string")
        accepted.add(_key(a, b))
    return frozenset(accepted)


def new_pairs(pairs: Iterable[DuplicatePair], accepted: frozenset[Pair]) -> list[DuplicatePair]:
    """The pairs that the baseline does not accept."""
    return [p for p in pairs if _key(escape_path(p.a), escape_path(p.b)) not in accepted]
