"""The quality benchmark's Markdown (run ``quality.py``, not this): the table of every row's
pairwise and cluster precision, recall and F1 with its seconds, the table of the positives
found by kind and the false positives, the notes, and how to reproduce the run and score one
predictions file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from common import (
    fmt,
    markdown_table,
)
from quality_tools import Corpus

KINDS = ("revision", "revision_xenc", "reencoded")


def prf(s: dict[str, Any] | None) -> list[str]:
    if not s:
        return ["—", "—", "—"]
    return [fmt(s["precision"]), fmt(s["recall"]), fmt(s["f1"])]


def kind_cell(s: dict[str, Any], kind: str) -> str:
    found, total = s["recall_by_kind"].get(kind, [0, 0])
    return f"{found}/{total}"


def quality_markdown(
    results: list[dict[str, Any]],
    notes: list[str],
    corpus: Corpus,
    repeat: int,
    command: str,
    scorer: Path,
    bench: Path,
) -> str:
    """What the benchmark prints: its tables and notes, scored by ``scorer`` on the set
    ``bench``, the tools run ``repeat`` times by ``command``."""
    table = markdown_table(
        [
            "tool / setting",
            "pairs P",
            "R",
            "F1",
            "clusters P",
            "R",
            "F1",
            "predicted pairs",
            "seconds",
        ],
        [
            [r["tool"], "error", "", "", "", "", "", "", r["error"]]
            if "error" in r
            else [
                r["tool"],
                *prf(r.get("pairs")),
                *prf(r.get("clusters")),
                str(r["pairs"]["predicted_pairs"]) if "pairs" in r else "—",
                fmt(r["seconds"], 2),
            ]
            for r in results
        ],
    )
    kinds = markdown_table(
        [
            "tool / setting (pairs)",
            *KINDS,
            "FP",
            "FP same file",
            "FP hard negative",
            "GRAY predicted",
            "notes",
        ],
        [
            [
                r["tool"],
                *(kind_cell(r["pairs"], k) for k in KINDS),
                str(r["pairs"]["fp"]),
                str(r["pairs"]["fp_by_kind"].get("negative, same file", 0)),
                str(r["pairs"]["fp_by_kind"].get("hard_negative", 0)),
                str(r["pairs"]["gray_predicted"]),
                "; ".join(r["notes"]),
            ]
            for r in results
            if "pairs" in r
        ],
    )
    positives = next((r["pairs"]["positives"] for r in results if "pairs" in r), None)
    out = [
        "## Quality on "
        f"`{os.path.relpath(corpus.docs.parent)}` ({len(corpus.paths)} documents, "
        f"{corpus.bytes / 1e6:.1f} MB, {positives} positive pairs)",
        "",
        table,
        "",
        "Clusters: every pair of members of a cluster is a predicted pair. "
        f"Seconds: median of {repeat} in-process run(s), tools alternating.",
        "",
        "### Positives found by kind, and false positives (pairs)",
        "",
        kinds,
        "",
        *[f"- {n}" for n in notes],
        "",
        f"Reproduce: `{command}` (or `make bench-quality`). Score one file: "
        f"`python {os.path.relpath(scorer)} "
        f"{os.path.relpath(bench)} <predictions file> --errors 20`.",
    ]
    return "\n".join(out)
