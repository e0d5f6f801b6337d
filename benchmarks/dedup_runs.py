"""What the dedup benchmarks (``rows.py``, ``scale.py``, ``short.py``) make of their contenders'
runs: the medians of the successful ones, the rows of the contenders table, and the verdicts of
the targets (standard library only, as ``common``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from common import MB, fmt, markdown_table, median


def verdict(ok: bool | None) -> str:
    """A target's verdict: met, not met, or n/a when it was not measured (``None``)."""
    return "n/a" if ok is None else ("**met**" if ok else "**not met**")


def summarise_runs(contenders: Sequence[dict[str, Any]]) -> None:
    """Add to each contender with a successful run the medians of those runs: seconds, peak
    PSS and RSS sum of the process tree (with their highest), max RSS, and whether every run
    removed the same as the first (where the runs say, as ``rounds_of_dedup_runs``'s do)."""
    for c in contenders:
        ok = [r for r in c.get("runs", []) if r["returncode"] == 0]
        if not ok:
            continue
        pss = [r.get("tree_peak_pss_mb") or 0 for r in ok]
        rss = [r.get("tree_peak_rss_mb") or 0 for r in ok]
        c["median_seconds"] = median([r["seconds"] for r in ok])
        c["median_peak_pss_mb"], c["max_peak_pss_mb"] = median(pss), max(pss)
        c["median_peak_rss_mb"], c["max_peak_rss_mb"] = median(rss), max(rss)
        c["median_max_rss_mb"] = median([r["max_rss_mb"] for r in ok])
        if all("same_removals" in r for r in ok):
            c["same_removals_every_run"] = all(r["same_removals"] for r in ok)


def contenders_table(
    result: dict[str, Any],
    items: tuple[int, str],
    headers: Sequence[str],
    cells: Callable[[dict[str, Any], dict[str, Any]], list[str]],
    ratio: str,
) -> str:
    """The table of ``result["contenders"]``, a row each: name, median seconds (and every
    run's), ``items`` (how many, and the column's name) per second, MB/s of
    ``result["bytes"]``, then the columns ``headers`` of ``cells(contender, its score or
    {})``, last the column ``ratio``: rensa's median seconds ÷ this one's. A skipped
    contender says why."""
    count, per_second = items
    headers = ["contender", "seconds: median (runs)", per_second, "MB/s", *headers, ratio]
    by_key = {c["key"]: c for c in result["contenders"]}
    rensa = by_key.get("rensa", {}).get("median_seconds")
    rows = []
    for c in result["contenders"]:
        if "skipped" in c:
            rows.append([c["name"], f"skipped ({c['skipped']})"] + ["—"] * (len(headers) - 2))
            continue
        secs = c.get("median_seconds")
        runs = " ".join(f"{r['seconds']:.1f}" for r in c["runs"])
        ratio = rensa / secs if secs and rensa else None
        rows.append(
            [
                c["name"],
                f"{fmt(secs, 1)} ({runs})" if secs else f"failed ({runs})",
                fmt(count / secs, 0) if secs else "—",
                fmt(result["bytes"] / MB / secs, 2) if secs else "—",
                *cells(c, c.get("score", {})),
                fmt(ratio, 2) + "×" if ratio else "—",
            ]
        )
    return markdown_table(headers, rows)


def output_checks(contenders: Sequence[dict[str, Any]]) -> list[str]:
    """A line for each scored contender whose output did not hold exactly the rows it kept or
    whose runs did not remove the same rows."""
    lines = []
    for c in contenders:
        s = c.get("score")
        if not s:
            continue
        checks = []
        if not s["output_ok"]:
            checks.append(f"its output does not hold exactly the rows kept ({s['kept_rows']})")
        if not c.get("same_removals_every_run", True):
            checks.append("its runs did not remove the same rows")
        if checks:
            lines.append(f"- **{c['name']}**: " + "; ".join(checks))
    return lines
