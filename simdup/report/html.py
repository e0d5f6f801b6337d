"""HTML renderer: one self-contained page (no scripts, no external resources)."""

from __future__ import annotations

from html import escape
from typing import TextIO

from ..__about__ import __version__
from ..params import ALGORITHM_VERSION
from ..records import ScanResult
from .paths import display_path

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}.num{text-align:right}.rep{font-weight:bold}
code{font:13px ui-monospace,monospace}
"""


def _p(path: str) -> str:
    return f"<code>{escape(display_path(path))}</code>"


def render_html(result: ScanResult, stream: TextIO) -> None:
    w = stream.write
    s = result.stats
    w("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>")
    w(f"<title>simdup report</title><style>{_STYLE}</style></head><body>\n")
    w("<h1>Near-duplicate documents</h1>\n")
    w(
        f"<p>{s['files_fingerprinted']} documents fingerprinted, {s['files_skipped']} skipped; "
        f"{len(result.clusters)} clusters, {len(result.pairs)} pairs. "
        f"simdup {escape(__version__)}, algorithm {escape(ALGORITHM_VERSION)}.</p>\n"
    )
    for c in result.clusters:
        w(f"<h2>Cluster {c.id}: {len(c.members)} documents, max distance {c.max_distance}</h2>\n")
        w("<table><tr><th>document</th><th>distance</th><th>similarity</th><th>exact</th></tr>\n")
        for m in c.members:
            rep = m.path == c.representative
            sim = "" if m.similarity is None else f"{m.similarity:.2f}"
            row, label = (" class=rep", " (representative)") if rep else ("", "")
            w(
                f"<tr{row}><td>{_p(m.path)}{label}"
                f"</td><td class=num>{m.distance}</td><td class=num>{sim}</td>"
                f"<td>{'yes' if m.exact_duplicate else ''}</td></tr>\n"
            )
        w("</table>\n")
    if result.skipped:
        w("<h2>Skipped files</h2>\n<table><tr><th>file</th><th>stage</th><th>reason</th></tr>\n")
        for k in result.skipped:
            w(
                f"<tr><td>{_p(k.path)}</td><td>{escape(k.stage)}</td><td>{escape(k.reason)}</td></tr>\n"
            )
        w("</table>\n")
    w("</body></html>\n")
