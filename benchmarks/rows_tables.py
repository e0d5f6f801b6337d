"""The report of ``rows.py``: for each number of rows, the heading (the dataset's sizes and
planted copies), the table of contenders (seconds, rows/s, peak memory, recall, rows removed,
precision, rensa's seconds over theirs), the issue's targets with their verdicts and the output
checks; and the legend printed after the last table."""

from __future__ import annotations

from typing import Any

from common import MB, fmt
from dedup_runs import contenders_table, output_checks, verdict
from planted_corpus import NEAR_EDIT_SIMILARITY, THRESHOLD

# The targets, at 10^6 rows in one .jsonl.zst.
TARGET_RATIO = 2.5
TARGET_RECALL = 0.99
TARGET_PEAK_MB = 1500  # 1.5 GB = 1.5 * 10^9 bytes of summed PSS (MB here is 10^6 bytes)


def heading(result: dict[str, Any], repeat: int) -> str:
    """The heading of a number of rows' table: the dataset's sizes and its planted copies."""
    return (
        f"### {result['rows']:,} rows ({result['bytes'] / MB:.0f} MB of JSON Lines: "
        f"{result['jsonl_zst_bytes'] / MB:.0f} MB .jsonl.zst, "
        f"{result['parquet_bytes'] / MB:.0f} MB .parquet; {result['planted']} planted "
        f"copies, {result['planted_near']} of them near-duplicates by edit similarity ≥ "
        f"{NEAR_EDIT_SIMILARITY}, {result['planted_below_threshold']} below word Jaccard "
        f"{THRESHOLD}), {repeat} alternating round(s)"
    )


def table(result: dict[str, Any]) -> str:
    """The table of the contenders of a number of rows."""
    return contenders_table(
        result,
        (result["rows"], "rows/s"),
        [
            "peak PSS MB: median (max)",
            "peak RSS sum MB: median (max)",
            "recall (edit sim ≥ 0.9)",
            "recall (all planted)",
            "rows removed",
            "extra removed (near / not)",
            "precision",
        ],
        lambda c, s: [
            f"{fmt(c.get('median_peak_pss_mb'), 0)} ({fmt(c.get('max_peak_pss_mb'), 0)})",
            f"{fmt(c.get('median_peak_rss_mb'), 0)} ({fmt(c.get('max_peak_rss_mb'), 0)})",
            fmt(s.get("recall_near"), 4),
            fmt(s.get("recall"), 4),
            str(s["removed"]) if s else "—",
            f"{s['extra']} ({s['extra_near']} / {s['extra_not_near']})" if s else "—",
            fmt(s.get("precision"), 4),
        ],
        "rensa s ÷ this s",
    )


def targets(result: dict[str, Any]) -> list[str]:
    """The issue's targets with their verdicts, then the output checks that failed."""
    by_key = {c["key"]: c for c in result["contenders"]}
    rensa = by_key.get("rensa", {}).get("median_seconds")

    lines = []
    if result["rows"] != 1_000_000:
        lines.append(
            f"(The issue's targets are for 10^6 rows in one .jsonl.zst; shown here at "
            f"{result['rows']:,} rows.)"
        )
    c = by_key.get("simdup-jsonl", {})
    secs, s = c.get("median_seconds"), c.get("score")
    ratio = rensa / secs if rensa and secs else None
    shown = f"{ratio:.2f}×" if ratio is not None else "not measured"
    lines.append(
        f"- simdup dedup .jsonl.zst ≥ {TARGET_RATIO}× the rjieba + rensa pipeline: {shown} → "
        f"{verdict(None if ratio is None else ratio >= TARGET_RATIO)}"
    )
    if s:
        lines.append(
            f"- planted recall ≥ {TARGET_RECALL} (copies with edit similarity ≥ "
            f"{NEAR_EDIT_SIMILARITY}): {s['recall_near']:.4f} → "
            f"{verdict(s['recall_near'] >= TARGET_RECALL)} (all planted: {s['recall']:.4f})"
        )
    if secs:
        peak = c.get("max_peak_pss_mb") or 0
        lines.append(
            f"- peak ≤ 1.5 GB (1.5 × 10^9 bytes, summed PSS of the process tree, highest run): "
            f"{peak:.0f} MB → {verdict(peak <= TARGET_PEAK_MB)} "
            f"(median {c.get('median_peak_pss_mb') or 0:.0f} MB; RSS sum max "
            f"{c.get('max_peak_rss_mb') or 0:.0f} MB)"
        )
    return lines + output_checks(result["contenders"])


LEGEND = (
    "Medians of alternating runs on a shared, noisy machine: compare rows of one run. "
    "MB/s: uncompressed JSON Lines bytes (the Parquet row reads the same rows). Peak PSS / "
    "RSS sum: highest sampled sum over the command's processes (PSS counts a page shared "
    "by forked workers once). A planted pair is found when one row was removed as a "
    "duplicate of the other, or both as duplicates of one kept row. Extra removed: rows "
    "removed that are in no planted pair, as (near-duplicates of the row kept for them by "
    "edit similarity ≥ 0.9 all the same / not); precision counts a removal right when it "
    "is a planted pair or such a near-duplicate. rensa s ÷ this s > 1: faster than the "
    "rensa pipeline."
)
