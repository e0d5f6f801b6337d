"""The audit page of ``dedup --audit``: one self-contained HTML page (no scripts, no external
resources) with the rows read, kept and removed per input file and per source, then each
sampled removal beside the row kept for it, the words that differ marked, with its figures and
the rule that decided. Everything taken from the data is escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any, TextIO

from ..rows.audit import Tally
from .html import _STYLE
from .page import inline_diff


def _tallies(title: str, tallies: Sequence[Tally], w: Any) -> None:
    if not tallies:
        return
    w(f"<h2>{escape(title)}</h2>\n<table><tr><th></th><th>read</th><th>kept</th>"
      "<th>removed</th></tr>\n")  # fmt: skip
    for t in tallies:
        warn = " class=warn" if t.loses_most else ""
        w(f"<tr{warn}><td>{escape(t.name or '(none)')}</td><td class=num>{t.read}</td>"
          f"<td class=num>{t.kept}</td><td class=num>{t.removed}</td></tr>\n")  # fmt: skip
    w("</table>\n")


def _where(side: dict[str, Any]) -> str:
    if side.get("stored"):
        return f"stored document {escape(str(side['key']))}"
    line = f", line {side['line']}" if side.get("line") is not None else ""
    return (f"{escape(str(side['file']))}, row {side['row']}{line} "
            f"(<code>{escape(str(side['key']))}</code>)")  # fmt: skip


def render_audit(
    records: Sequence[dict[str, Any]],
    files: Sequence[Tally],
    sources: Sequence[Tally],
    stream: TextIO,
    title: str = "simdup dedup audit",
) -> None:
    """The page of ``records`` (``rows.audit.audit_rows``) and the tallies, on ``stream``."""
    w = stream.write
    w(f"<!doctype html>\n<html><head><meta charset=utf-8><title>{escape(title)}</title>"
      f"<style>{_STYLE}</style></head><body>\n<h1>{escape(title)}</h1>\n")  # fmt: skip
    w(f"<p>{len(records)} sampled removals, each beside the row kept for it.</p>\n")
    _tallies("Per input file", files, w)
    _tallies("Per source", sources, w)
    for k, record in enumerate(records, 1):
        removed, kept = record["removed"], record["kept"]
        figures = [f"rule: {escape(record['rule_name'])}"]
        if record["simhash_distance"] is not None:
            figures.append(f"SimHash distance {record['simhash_distance']}")
        if record["similarity"] is not None and record["measure"]:
            figures.append(f"{escape(record['measure'])} {record['similarity']}")
        if record["reason"]:
            figures.append(escape(record["reason"]))
        w(f"<h3 id=r{k}>{k}. removed {_where(removed)}</h3>\n<p>{'; '.join(figures)}</p>\n")
        old, new = kept.get("text"), removed.get("text")
        if old is None or new is None:
            left = escape(old) if old is not None else "<span class=note>(text not read)</span>"
            right = escape(new) if new is not None else "<span class=note>(text not read)</span>"
        else:
            left, right = inline_diff(old, new)
        w(f"<table class=diff><tr><th>kept: {_where(kept)}</th><th>removed</th></tr>\n"
          f"<tr><td class=old>{left}</td><td class=new>{right}</td></tr></table>\n")  # fmt: skip
    w("</body></html>\n")
