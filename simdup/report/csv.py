"""CSV renderer: one row per near-duplicate pair.

A cell that a spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab
or carriage return) is prefixed with ``'`` (OWASP's advice against CSV injection).
"""

from __future__ import annotations

import csv
from typing import TextIO

from ..names import escape_path
from ..records import ScanResult

HEADER = ("a", "b", "distance", "similarity", "exact", "cluster_a", "cluster_b")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


def render_csv(result: ScanResult, stream: TextIO) -> None:
    cluster_of = {m.path: c.id for c in result.clusters for m in c.members}
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(HEADER)
    for p in result.pairs:
        writer.writerow(
            (
                safe_cell(escape_path(p.a)),
                safe_cell(escape_path(p.b)),
                p.distance,
                "" if p.similarity is None else f"{p.similarity:.4f}",
                "true" if p.exact else "false",
                cluster_of.get(p.a, ""),
                cluster_of.get(p.b, ""),
            )
        )
