"""The report of ``scale.py``: for each N, the heading (the tree's size and planted copies), the
table of contenders (seconds, throughput, peak memory, recall, extra pairs, precision,
throughput over rensa's) and the issue's targets with their verdicts; and the legend printed
after the last table."""

from __future__ import annotations

from typing import Any

from common import MB, fmt
from dedup_runs import contenders_table, verdict
from planted_corpus import NEAR_EDIT_SIMILARITY, THRESHOLD


def heading(result: dict[str, Any], repeat: int) -> str:
    """The heading of N's table: the tree's size, its planted copies and how they were made."""
    n = result["n"]
    return (
        f"### N = {n:,} ({result['bytes'] / MB:.0f} MB, "
        f"{result['planted']} planted copies, {result['planted_near']} of them "
        f"near-duplicates by edit similarity ≥ {NEAR_EDIT_SIMILARITY}; "
        f"{result['planted_below_threshold']} below word Jaccard {THRESHOLD}, "
        f"{result['planted_length_ratio_below_0.9']} with length ratio < 0.9), "
        f"{repeat} alternating round(s)\n"
    )


def table(result: dict[str, Any]) -> str:
    """The table of N's contenders."""
    return contenders_table(
        result,
        (result["n"], "docs/s"),
        [
            "peak PSS MB",
            "peak RSS sum MB",
            "recall (edit sim ≥ 0.9)",
            "recall (all planted)",
            "missed: near / all",
            "extra pairs (near / not)",
            "precision",
        ],
        lambda c, s: [
            fmt(c.get("median_peak_pss_mb"), 0),
            fmt(c.get("median_peak_rss_mb"), 0),
            fmt(s.get("recall_near"), 4),
            fmt(s.get("recall"), 4),
            f"{s['missed_near']} / {s['missed']}" if s else "—",
            f"{s['extra']} ({s['extra_near']} / {s['false']})" if s else "—",
            fmt(s.get("precision"), 4),
        ],
        "throughput ÷ rensa",
    )


def targets(result: dict[str, Any]) -> list[str]:
    """The issue's targets at N with their verdicts, and the memory kept per document."""
    by_key = {c["key"]: c for c in result["contenders"]}
    rensa = by_key.get("rensa", {})
    lines = []

    r = rensa.get("median_seconds")
    for key, want, label in (
        ("simdup-default", 2.0, "defaults ≥ 2× rensa"),
        ("simdup-j1", 1.0, "-j1 ≥ 1× rensa"),
    ):
        s = by_key.get(key, {}).get("median_seconds")
        ratio = r / s if r and s else None
        shown = f"{ratio:.2f}×" if ratio is not None else "not measured"
        lines.append(f"- {label}: {shown} → {verdict(None if ratio is None else ratio >= want)}")
    cold = by_key.get("simdup-default", {})
    warm = by_key.get("simdup-warm", {})
    plain = by_key.get("simdup-nocache", {})
    cs, ws, ps = (c.get("median_seconds") for c in (cold, warm, plain))
    if cs and ps:
        lines.append(
            f"- first scan with the default cache ≤ 1.15× --no-cache: {cs:.1f} s vs {ps:.1f} s "
            f"= {cs / ps:.2f}× → {verdict(cs / ps <= 1.15)}"
        )
    if cs and ws:
        want = 15.0 if result["n"] >= 1_000_000 else 5.0
        lines.append(
            f"- rescan of the unchanged tree ≥ {want:.0f}× faster than the first scan: "
            f"{ws:.2f} s, {cs / ws:.1f}× → {verdict(cs / ws >= want)}"
        )
    if ws and plain.get("median_peak_pss_mb"):
        wm, pm = warm.get("median_peak_pss_mb") or 0, plain["median_peak_pss_mb"]
        lines.append(
            f"- rescan peak memory ≤ --no-cache's (PSS): {wm:.0f} MB vs {pm:.0f} MB → "
            f"{verdict(wm <= pm)}"
        )
    d = by_key.get("simdup-default", {}).get("score")
    if d and result.get("short"):
        lines.append(
            f"- defaults recall ≥ 0.99 (all planted copies: paragraphs moved, 1-3 characters "
            f"edited): {d['recall']:.4f} → {verdict(d['recall'] >= 0.99)}"
        )
    if d and not result.get("short"):
        lines.append(
            f"- defaults recall ≥ 0.99 (planted copies with edit similarity ≥ "
            f"{NEAR_EDIT_SIMILARITY}): {d['recall_near']:.4f} → "
            f"{verdict(d['recall_near'] >= 0.99)} (all planted: {d['recall']:.4f})"
        )
    if d:
        rs = rensa.get("score")
        if rs:
            lines.append(
                f"- no precision loss vs rensa: precision {d['precision']:.4f} vs "
                f"{rs['precision']:.4f} (pairs that are neither planted nor near-duplicates: "
                f"{d['false']} vs {rs['false']}) → "
                f"{verdict(d['precision'] >= rs['precision'])}"
            )
    kept = result.get("retained")
    if kept:
        lines.append(
            f"- memory kept per document ({kept['method']} scan, live, tracemalloc): files found "
            f"{kept['files_bytes_per_doc']:.0f} B, scan result "
            f"{kept['result_bytes_per_doc']:.0f} B"
        )
    if result["n"] >= 1_000_000:
        c = by_key.get("simdup-default", {})
        s, m = c.get("median_seconds"), c.get("median_peak_pss_mb")
        if s:
            lines.append(f"- 10^6 in ≤ 180 s: {s:.0f} s → {verdict(s <= 180)}")
            lines.append(
                f"- peak memory ≤ 2 GB (PSS of the process tree): {m:.0f} MB → "
                f"{verdict(m <= 2000)} (RSS sum {c.get('median_peak_rss_mb') or 0:.0f} MB)"
            )
    return lines


LEGEND = (
    "Medians of alternating runs on a shared, noisy machine: compare rows of one run. "
    "Throughput ÷ rensa = rensa seconds ÷ this row's seconds (> 1: faster than rensa). "
    "Peak PSS / RSS sum: highest sampled sum over the command's processes (PSS counts a "
    "page shared by forked workers once). Extra pairs: pairs "
    "reported between documents that are not a planted copy pair, as (near-duplicates by "
    "edit similarity ≥ 0.9 all the same / not): unplanted documents drawn from paragraphs "
    "of revisions of one file can be near-copies. Precision counts the first as right."
)
