"""The speed benchmark's end-to-end section and what its sections share (run ``speed.py``, not
this): rounds in rotated order, ratios, the heartbeat of long runs; then every pipeline in a
fresh process, alternating: ``simdup scan`` with rjieba and jieba, at the default jobs and
``-j1``, without the C extension, and the PyPI ``simhash`` pipeline (``simhash_anchor.py`` in
the numpy<2 venv); medians of seconds, MB/s, documents/s, memory, and ratios to the simhash
pipeline."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from common import (
    BENCH_DIR,
    MB,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    rotated,
)
from measured import (
    Measured,
    anchor_python,
    run_measured,
)

T = TypeVar("T")


def heartbeat(seconds: float) -> None:
    log(f"    ... still running after {seconds:.0f} s")


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


# ---------------------------------------------------------------- end to end


@dataclasses.dataclass
class Pipeline:
    name: str
    command: Callable[[Path], list[str]]  # output file -> command
    kind: str  # "simdup" or "simhash"
    runs: list[Measured] = dataclasses.field(default_factory=list)
    pairs: list[int] = dataclasses.field(default_factory=list)
    pair_set: frozenset[tuple[str, str]] | None = None
    error: str | None = None


def e2e(args: argparse.Namespace, docs: Path, notes: list[str]) -> dict[str, Any]:
    paths = list_docs(docs)
    total_bytes = sum(p.stat().st_size for p in paths)
    py = sys.executable
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    def simdup_cmd(segmenter: str, jobs: int | None) -> Callable[[Path], list[str]]:
        def build(out: Path) -> list[str]:
            cmd = [py, "-m", "simdup", "scan", str(docs), "--format", "json", "-o", str(out)]
            # --no-cache: every run fingerprints everything (benchmarks/cache.py measures the
            # cache).
            cmd += ["--segmenter", segmenter, "-q", "--no-cache"]
            return cmd + (["-j", str(jobs)] if jobs else [])

        return build

    anchor_py, anchor_note = anchor_python(create=not args.no_anchor_venv)
    if anchor_py is None:
        # NumPy 2 raises OverflowError in the package for counts > 255; the float path gives
        # NumPy 1's fingerprints (quality.py checks it) at a similar cost.
        weights, simhash_py = "float-over-255", Path(py)
        notes.append(
            f"simhash pipeline run under this venv's NumPy with counts > 255 passed as floats "
            f"({anchor_note})"
        )
    else:
        weights, simhash_py = "package", anchor_py
        notes.append(f"simhash pipeline run in {anchor_note}")

    def simhash_cmd(out: Path) -> list[str]:
        script = str(BENCH_DIR / "simhash_anchor.py")
        return [str(simhash_py), script, str(docs), "--out", str(out), "--weights", weights]

    pipelines = [
        Pipeline(
            f"simdup --segmenter rjieba (default jobs: {cpus})",
            simdup_cmd("rjieba", None),
            "simdup",
        ),
        Pipeline(
            f"simdup --segmenter jieba (default jobs: {cpus})", simdup_cmd("jieba", None), "simdup"
        ),
        Pipeline(
            f"simdup --segmenter rjieba, no C extension (SIMDUP_PURE_PYTHON=1, jobs: {cpus})",
            lambda out: ["env", "SIMDUP_PURE_PYTHON=1", *simdup_cmd("rjieba", None)(out)],
            "simdup",
        ),
        Pipeline("simdup --segmenter rjieba -j1", simdup_cmd("rjieba", 1), "simdup"),
        Pipeline("simdup --segmenter jieba -j1", simdup_cmd("jieba", 1), "simdup"),
        Pipeline("simhash pkg: decode + Simhash(text) + SimhashIndex(k=3)", simhash_cmd, "simhash"),
    ]
    with tempfile.TemporaryDirectory(prefix="simdup-bench-") as tmp:
        for round_no in range(args.repeat):
            for n, pipe in rotated(list(enumerate(pipelines)), round_no):
                if pipe.error:
                    continue
                out = Path(tmp) / f"e2e-{n}.json"
                log(f"[e2e {round_no + 1}/{args.repeat}] {pipe.name} ...")
                m = run_measured(pipe.command(out), heartbeat=heartbeat)
                if m.returncode != 0:
                    pipe.error = f"exit {m.returncode}: {m.stderr.strip()[-300:]}"
                    log(f"  failed: {pipe.error}")
                    continue
                report = json.loads(out.read_text(encoding="utf-8"))
                found = frozenset((p["a"], p["b"]) for p in report["pairs"])
                if pipe.pair_set is None:
                    pipe.pair_set = found
                elif found != pipe.pair_set:
                    notes.append(f"WARNING: {pipe.name}: runs reported different pairs")
                pipe.runs.append(m)
                pipe.pairs.append(len(found))
                log(f"  {m.seconds:.2f} s, max RSS {m.max_rss_mb:.0f} MB, {len(found)} pairs")
                out.unlink()

    simdup_sets = {p.pair_set for p in pipelines if p.kind == "simdup" and p.pair_set is not None}
    if len(simdup_sets) == 1:
        notes.append(
            "the five simdup runs (rjieba/jieba, default jobs/-j1, with and without the C "
            "extension) reported identical pairs"
        )
    elif simdup_sets:
        notes.append("WARNING: the simdup runs reported different pairs across segmenters/jobs")

    base = next((p for p in pipelines if p.kind == "simhash" and p.runs), None)
    base_s = median([m.seconds for m in base.runs]) if base else float("nan")
    base_rss = median([m.max_rss_mb for m in base.runs]) if base else float("nan")
    rows: list[list[str]] = []
    raw: list[dict[str, Any]] = []
    for pipe in pipelines:
        if not pipe.runs:
            rows.append([pipe.name, "error", "", "", "", "", "", "", "", "", pipe.error or ""])
            raw.append({"pipeline": pipe.name, "error": pipe.error})
            continue
        secs = median([m.seconds for m in pipe.runs])
        rss = median([m.max_rss_mb for m in pipe.runs])
        tree = [m.tree_peak_rss_mb for m in pipe.runs if m.tree_peak_rss_mb is not None]
        tree_rss = median(tree) if tree else None
        rows.append(
            [
                pipe.name,
                fmt(secs, 2),
                " ".join(fmt(m.seconds, 2) for m in pipe.runs),
                fmt(total_bytes / MB / secs, 2),
                fmt(len(paths) / secs, 0),
                fmt(rss, 0),
                fmt(tree_rss, 0),
                fmt(ratio(secs, base_s), 3),
                fmt(ratio(base_s, secs), 2) + "×",
                fmt(ratio(rss, base_rss), 2),
                str(pipe.pairs[0]),
            ]
        )
        raw.append(
            {
                "pipeline": pipe.name,
                "command": pipe.runs[0].command,
                "seconds": [round(m.seconds, 4) for m in pipe.runs],
                "median_seconds": round(secs, 4),
                "mb_per_s": round(total_bytes / MB / secs, 3),
                "docs_per_s": round(len(paths) / secs, 1),
                "max_rss_mb": [round(m.max_rss_mb, 1) for m in pipe.runs],
                "tree_peak_rss_mb": [None if x is None else round(x, 1) for x in tree],
                "time_ratio_to_simhash": round(ratio(secs, base_s), 4),
                "pairs": pipe.pairs[0],
            }
        )
    table = markdown_table(
        [
            "pipeline (fresh process)",
            "median s",
            "runs (s)",
            "MB/s",
            "docs/s",
            "max RSS MB",
            "peak tree RSS MB",
            "time ÷ simhash",
            "speed-up vs simhash",
            "RSS ÷ simhash",
            "pairs",
        ],
        rows,
    )
    heading = (
        f"### End to end: {len(paths)} documents, {total_bytes / MB:.1f} MB, "
        f"{args.repeat} alternating round(s)"
    )
    return {"markdown": f"{heading}\n\n{table}", "rows": raw, "bytes": total_bytes}
