"""The short-text benchmark (``short.py``): scoring a contender's run. What it removed (its
``--removed`` file: each removed row and the row kept for it), whether its output holds exactly
the rows not removed, which planted pairs it found (the copy removed for the original, the
original for the copy, or both for one kept row), recall by kind, band and language, false
removals (a kept row that is not a near-duplicate) and a few examples. Run short.py, not
this."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rows_dataset import zst_lines
from short_rows import BAND_NAMES, KINDS, LANGS, NEAR, normalised, similarity


def read_removed(path: Path) -> dict[str, str]:
    """``{removed id: id of the row kept for it}`` from a ``--removed`` file (the fields
    ``key`` and ``duplicate_of`` of ``simdup dedup --removed``, also written by the anchor)."""
    removed: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            removed[str(record["key"])] = str(record["duplicate_of"])
    return removed


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of a JSON Lines file, plain or zstd-compressed."""
    with contextlib.ExitStack() as stack:
        plain = path.suffix != ".zst"
        lines = stack.enter_context(open(path, "rb")) if plain else zst_lines(path)
        for line in lines:
            if line.strip():
                yield json.loads(line)


def check_output(path: Path, removed: dict[str, str], ids: list[str]) -> dict[str, Any]:
    """Whether the output holds exactly the rows not removed, in input order."""
    kept = [str(row["id"]) for row in read_rows(path)]
    return {"kept_rows": len(kept), "output_ok": kept == [i for i in ids if i not in removed]}


def found(pair: dict[str, Any], removed: dict[str, str]) -> bool:
    a, b = pair["original"], pair["copy"]
    ra, rb = removed.get(a), removed.get(b)
    return ra == b or rb == a or (ra is not None and ra == rb)


def recall_table(planted: list[dict[str, Any]], removed: dict[str, str]) -> dict[str, Any]:
    """``{kind: {band or "all" or lang: {"found", "planted", "recall"}}}``."""
    out: dict[str, Any] = {}
    for kind in KINDS:
        pairs = [p for p in planted if p["kind"] == kind]
        cells: dict[str, Any] = {}
        for label, members in (
            [("all", pairs)]
            + [(name, [p for p in pairs if p["band"] == name]) for name in BAND_NAMES]
            + [(f"lang:{lang}", [p for p in pairs if p["lang"] == lang]) for lang in LANGS]
        ):
            hits = sum(found(p, removed) for p in members)
            cells[label] = {
                "found": hits,
                "planted": len(members),
                "recall": hits / len(members) if members else float("nan"),
            }
        out[kind] = cells
    return out


def score(
    removed: dict[str, str], manifest: dict[str, Any], texts: dict[str, str], examples: int
) -> dict[str, Any]:
    planted = manifest["planted"]
    forms: dict[str, str] = {}

    def form(row_id: str) -> str:
        if row_id not in forms:
            forms[row_id] = normalised(texts[row_id])
        return forms[row_id]

    removal_similarity = {r: similarity(form(r), form(k)) for r, k in removed.items()}
    false = sorted((r for r, v in removal_similarity.items() if v < NEAR), key=lambda r: int(r[1:]))
    recall = recall_table(planted, removed)
    in_pairs = {p["original"] for p in planted} | {p["copy"] for p in planted}
    negatives = [p for p in planted if p["kind"] == "negative"]
    missed_edited = [p for p in planted if p["kind"] == "edited" and not found(p, removed)]
    result: dict[str, Any] = {
        "removed": len(removed),
        "recall": recall,
        "negatives_removed": sum(found(p, removed) for p in negatives),
        "negatives": len(negatives),
        "false_removals": len(false),
        "false_removal_share": len(false) / len(removed) if removed else float("nan"),
        "false_removals_outside_planted_pairs": sum(r not in in_pairs for r in false),
        "removed_outside_planted_pairs": sum(r not in in_pairs for r in removed),
    }
    if examples:
        result["examples"] = {
            "false_removals": [
                {
                    "removed": r,
                    "kept": removed[r],
                    "edit_similarity": round(removal_similarity[r], 4),
                    "removed_text": texts[r],
                    "kept_text": texts[removed[r]],
                }
                for r in false[:examples]
            ],
            "missed_edited": [
                {**p, "original_text": texts[p["original"]], "copy_text": texts[p["copy"]]}
                for p in missed_edited[:examples]
            ],
        }
    return result
