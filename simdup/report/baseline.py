"""Baselines: the near-duplicate pairs a project has accepted, read from an earlier report.

A CI job keeps a JSON (or JSON Lines) report of the duplicates it accepts and runs
``simdup scan ... --baseline accepted.json --fail-on-duplicates``: only pairs that are not in
the baseline fail the build. Pairs are matched by their paths as written in reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..errors import ConfigError
from ..records import DuplicatePair
from .paths import escape_path

Pair = tuple[str, str]


def _key(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


def load_baseline(path: str) -> frozenset[Pair]:
    """Accepted pairs from a ``simdup scan --format json`` or ``--format jsonl`` report."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"baseline {path}: cannot read it ({exc})") from exc
    records: Iterable[dict[str, object]]
    try:
        data = json.loads(text)
        records = data.get("pairs", []) if isinstance(data, dict) else []
        if not isinstance(data, dict) or "pairs" not in data:
            raise ConfigError(f"baseline {path}: not a simdup JSON report (no 'pairs')")
    except json.JSONDecodeError:
        try:
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise ConfigError(f"baseline {path}: neither JSON nor JSON Lines ({exc})") from exc
        records = [r for r in lines if isinstance(r, dict) and r.get("type") == "pair"]
    accepted = set()
    for record in records:
        if not isinstance(record, dict) or not {"a", "b"} <= record.keys():
            raise ConfigError(f"baseline {path}: a pair without 'a' and 'b'")
        accepted.add(_key(str(record["a"]), str(record["b"])))
    return frozenset(accepted)


def new_pairs(pairs: Iterable[DuplicatePair], accepted: frozenset[Pair]) -> list[DuplicatePair]:
    """The pairs that the baseline does not accept."""
    return [p for p in pairs if _key(escape_path(p.a), escape_path(p.b)) not in accepted]
