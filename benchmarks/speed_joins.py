"""The speed benchmark's joins section (run ``speed.py``, not this): the index join
``simdup.near_pairs(fps, 3)`` on N random fingerprints with 1% planted near pairs (N = 1e5,
1e6, 1e7, up to ``--max-n``) and on 1e5 with 10,001 identical ones, each join in a fresh
process (``index_join.py``) for its max RSS; ``near_pairs``'s own layout against the 4-table
layout, checking that both find the same pairs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from common import (
    BENCH_DIR,
    fmt,
    log,
    markdown_table,
    median,
)
from measured import (
    run_measured,
)
from speed_e2e import heartbeat, ratio

LARGE_N = 10_000_000


def joins(args: argparse.Namespace, notes: list[str]) -> dict[str, Any]:
    cases = [("random", 100_000), ("random", 1_000_000), ("random", 10_000_000)]
    cases = [c for c in cases if c[1] <= args.max_n] + [("identical", 100_000)]
    layouts = ("auto", "4x1")
    reps = {
        c: args.repeat if c[1] < LARGE_N else min(args.repeat, args.repeat_large) for c in cases
    }
    if any(c[1] >= LARGE_N for c in cases) and args.repeat_large < args.repeat:
        notes.append(
            f"joins with N ≥ 1e7 ran {args.repeat_large} time(s) (--repeat-large), others "
            f"{args.repeat}"
        )
    script = str(BENCH_DIR / "index_join.py")
    results: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for rep in range(max(reps.values())):
        for case, n in cases:
            if rep >= reps[(case, n)]:
                continue
            # ABBA: the layout that ran first in one round runs second in the next.
            for layout in layouts if rep % 2 == 0 else layouts[::-1]:
                log(f"[joins {rep + 1}/{reps[(case, n)]}] {case} N={n:,} layout={layout} ...")
                cmd = [sys.executable, script, "--n", str(n), "--case", case, "--layout", layout]
                m = run_measured(cmd, heartbeat=heartbeat, heartbeat_every=20)
                if m.returncode != 0:
                    log(f"  failed: exit {m.returncode}: {m.stderr.strip()[-300:]}")
                    results.setdefault((case, n, layout), []).append(
                        {"error": m.stderr.strip()[-300:]}
                    )
                    continue
                r = json.loads(m.stdout.strip().splitlines()[-1])
                r["process_max_rss_mb"] = round(m.max_rss_mb, 1)
                r["process_seconds"] = round(m.seconds, 3)
                results.setdefault((case, n, layout), []).append(r)
                peak = r["peak_rss_during_join_mb"]
                log(f"  {r['seconds']:.2f} s, peak RSS in join {peak} MB, {r['pairs']:,} pairs")

    rows: list[list[str]] = []
    raw: list[dict[str, Any]] = []
    for case, n in cases:
        auto = [r for r in results.get((case, n, "auto"), []) if "error" not in r]
        auto_s = median([r["seconds"] for r in auto]) if auto else float("nan")
        for layout in layouts:
            runs = results.get((case, n, layout), [])
            good = [r for r in runs if "error" not in r]
            if not good:
                err = runs[0]["error"] if runs else "not run"
                rows.append([case, f"{n:,}", layout, "error", "", "", "", "", "", "", err[-80:]])
                raw.append({"case": case, "n": n, "layout": layout, "error": err})
                continue
            secs = median([r["seconds"] for r in good])
            peaks = [r["peak_rss_during_join_mb"] for r in good if r["peak_rss_during_join_mb"]]
            pairs = {r["pairs"] for r in good}
            same = "—"
            if layout != "auto" and auto:
                same = "yes" if pairs == {r["pairs"] for r in auto} else "NO"
                if same == "NO":
                    notes.append(f"WARNING: joins {case} N={n}: layouts found different pairs")
            first = good[0]
            used = f"{first['layout_used']} ({first['tables']} tables)"
            if layout != "auto" and auto and auto[0]["layout_used"] == layout:
                notes.append(
                    f"joins {case} N={n:,}: near_pairs chose {layout} itself, so both rows run "
                    "the same layout (their difference is noise)"
                )
            rows.append(
                [
                    case,
                    f"{n:,}",
                    layout if layout != "auto" else f"auto → {used}",
                    fmt(secs, 3),
                    " ".join(fmt(r["seconds"], 2) for r in good),
                    fmt(first["rss_at_join_start_mb"], 0),
                    fmt(median(peaks) if peaks else None, 0),
                    fmt(median([r["process_max_rss_mb"] for r in good]), 0),
                    f"{first['pairs']:,}",
                    same,
                    fmt(ratio(secs, auto_s), 2) + "×" if layout != "auto" else "1×",
                ]
            )
            raw.append(
                {"case": case, "n": n, "layout": layout, "runs": good, "median_seconds": secs}
            )
    table = markdown_table(
        [
            "case",
            "N",
            "layout",
            "median s",
            "runs (s)",
            "RSS at join start MB",
            "peak RSS in join MB",
            "process max RSS MB",
            "pairs",
            "same pairs as auto",
            "time ÷ auto",
        ],
        rows,
    )
    heading = (
        "### Index joins: `simdup.near_pairs(fps, 3)`, each run in a fresh process "
        "(1% planted near pairs, 1–3 bits flipped)"
    )
    return {"markdown": f"{heading}\n\n{table}", "rows": raw}
