"""The tables of dask_bench.py: each stage's steps on the two engines, and the arithmetic of the
plan for 10^9 rows of 1 KB (``docs/scale.md``) from the Dask figures: a worker step's
throughput per core gives core-hours (it parallelises over the rows' bytes), a client step's
rows/s gives hours on one core and its bytes per row the client's memory (it does not
parallelise: that is what breaks first)."""

from __future__ import annotations

import math
from typing import Any

from common import MB, fmt, markdown_table

# Where each step the verbs name runs on a Dask run ("workers": in tasks on the cluster).
WHERE = {
    "read and fingerprint": "workers", "find candidates": "client", "verify": "client",
    "write": "client", "build item index": "client", "scan": "workers",
    "read and cut": "workers", "decide and write": "client", "read, cut and embed": "workers",
}  # fmt: skip
TARGET_ROWS = 10**9
TARGET_ROW_BYTES = 1000
CLUSTERS = (128, 1200)  # cores: a rack's worth, and datatrove's published run


def _per_core(result: dict[str, Any], stage: str, step: str, engine: str) -> tuple[float, float]:
    """rows/s and MB/s (of the rows' JSON Lines; of the files embedded) per core of a step."""
    seconds = result["summary"][stage][engine]["steps"][step]
    cores = result["workers"] if WHERE[step] == "workers" else 1
    if stage == "embed" and engine == "local":
        cores = 1  # index add --semantic embeds in its own process
    if stage == "embed":
        return (result["summary"][stage][engine]["sentences"] / seconds / cores,
                result["docs_bytes"] / MB / seconds / cores)  # fmt: skip
    return result["rows"] / seconds / cores, result["bytes"] / MB / seconds / cores


def _client_bytes_per_row(summary: dict[str, Any], rows: int) -> float:
    grown = summary["client_peak_rss_mb"] - summary["client_ready_rss_mb"]
    return max(grown, 0.0) * 2**20 / rows


def stage_table(result: dict[str, Any]) -> str:
    n = result["rows"]
    head = (
        f"### {n:,} rows ({result['bytes'] / MB:.0f} MB of JSON Lines), "
        f"{result['workers']} workers, medians of {result['repeat']} alternating runs"
    )
    rows = []
    for stage, by_engine in result["summary"].items():
        for step in by_engine["dask"]["steps"]:
            dask_rate, dask_mb = _per_core(result, stage, step, "dask")
            local_rate, _ = _per_core(result, stage, step, "local")
            unit = "sentences/s" if stage == "embed" else "rows/s"
            rows.append([stage, step, WHERE[step], fmt(by_engine["local"]["steps"][step], 2),
                         fmt(by_engine["dask"]["steps"][step], 2),
                         f"{local_rate:,.0f} {unit}", f"{dask_rate:,.0f} {unit}",
                         fmt(dask_mb, 2) if WHERE[step] == "workers" else "—"])  # fmt: skip
    headers = ["stage", "step", "on (dask)", "local s", "dask s", "local per core",
               "dask per core", "dask MB/s per core"]  # fmt: skip
    steps = markdown_table(headers, rows)
    rows = []
    for stage, by_engine in result["summary"].items():
        count = by_engine["dask"].get("sentences") if stage == "embed" else n
        for engine, s in by_engine.items():
            rows.append([stage, engine, fmt(s["seconds"], 1), fmt(s["tree_cpu_seconds"], 1),
                         fmt(s["cluster_start_seconds"], 1),
                         f"{s['tree_peak_pss_mb']:,.0f}", f"{s['client_peak_rss_mb']:,.0f}",
                         f"{_client_bytes_per_row(s, count or 1):,.0f}"])  # fmt: skip
    memory = markdown_table(["stage", "engine", "wall s (fresh process)", "CPU s (tree)",
                             "cluster start s",
                             "tree peak PSS MB", "client peak RSS MB",
                             "client B per row (sentence)"], rows)  # fmt: skip
    counts = ", ".join(
        f"{stage}: " + ", ".join(f"{k} {v:,}" for k, v in s["dask"].items()
                                 if k in ("removed", "candidates", "verified",
                                          "contaminated", "spans_removed",
                                          "documents", "sentences"))
        for stage, s in result["summary"].items()
    )  # fmt: skip
    return "\n\n".join([head, steps, memory, f"Outputs identical on both engines ({counts})."])


def plan_tables(sections: dict[str, dict[str, Any]]) -> str:
    """10^9 rows of 1 KB from the largest run's Dask figures, and how the client's steps grew
    between the sizes measured."""
    largest = max(sections.values(), key=lambda r: r["rows"])
    row_bytes = largest["bytes"] / largest["rows"]
    total_bytes = TARGET_ROWS * TARGET_ROW_BYTES
    rows = []
    for stage, by_engine in largest["summary"].items():
        for step in by_engine["dask"]["steps"]:
            rate, mb = _per_core(largest, stage, step, "dask")
            if stage == "embed":
                per_byte = by_engine["dask"]["sentences"] / largest["docs_bytes"]
                core_hours = total_bytes * per_byte / rate / 3600
                memory = "—"
            elif WHERE[step] == "workers":
                core_hours = total_bytes / (mb * MB) / 3600
                memory = "one partition a worker"
            else:  # a client step: per row, on one core
                core_hours = TARGET_ROWS / rate / 3600
                per_row = _client_bytes_per_row(by_engine["dask"], largest["rows"])
                memory = f"{per_row * TARGET_ROWS / 1e9:,.0f} GB (client)"
            hours = [core_hours / c if WHERE[step] == "workers" else core_hours
                     for c in CLUSTERS]  # fmt: skip
            rows.append([stage, step, WHERE[step], f"{core_hours:,.1f}",
                         *(f"{h:,.2f}" for h in hours), memory])  # fmt: skip
    headers = ["stage", "step", "on", "core-hours (10^9 × 1 KB)",
               *(f"hours on {c:,} cores" for c in CLUSTERS), "memory at 10^9"]  # fmt: skip
    plan = markdown_table(headers, rows)
    head = (
        f"### Plan: 10^9 rows of 1 KB ({total_bytes / 1e12:.0f} TB) from the Dask figures at "
        f"{largest['rows']:,} rows ({row_bytes:,.0f} B a row); worker steps scale by bytes, "
        "client steps by rows, embedding by sentences (this set's sentences per byte)"
    )
    parts = [head, plan]
    sizes = sorted(sections.values(), key=lambda r: r["rows"])
    if len(sizes) > 1:
        small, big = sizes[0], sizes[-1]
        growth = []
        for stage, by_engine in big["summary"].items():
            if stage == "embed":
                continue
            for step, seconds in by_engine["dask"]["steps"].items():
                before = small["summary"][stage]["dask"]["steps"][step]
                if before > 0 and seconds > 0:
                    k = math.log(seconds / before) / math.log(big["rows"] / small["rows"])
                    growth.append([stage, step, WHERE[step], fmt(before, 2), fmt(seconds, 2),
                                   f"n^{k:.2f}"])  # fmt: skip
        parts += [f"### Growth from {small['rows']:,} to {big['rows']:,} rows (Dask)",
                  markdown_table(["stage", "step", "on", f"s at {small['rows']:,}",
                                  f"s at {big['rows']:,}", "grows as"], growth)]  # fmt: skip
    return "\n\n".join(parts)
