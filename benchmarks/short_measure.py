"""The short-text benchmark (``short.py``): what it runs and measures. The contenders
(``simdup dedup`` on rows.jsonl; the rjieba + rensa anchor as rows.py runs it, on
rows.jsonl.zst), run in fresh processes over alternating rounds and scored from their first
successful run; their medians and rows/s; and one more simdup run without ``-q`` for its
summary's "too short" count. Run short.py, not this."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from common import (
    REPO,
    bench_folders,
    log,
)
from dedup_runs import summarise_runs
from measured import (
    rounds_of_dedup_runs,
    run_measured,
)
from rows_measure import contenders
from short_generate import generate
from short_score import check_output, read_removed, read_rows, score


def plan(args: argparse.Namespace, root: Path) -> list[dict[str, Any]]:
    """simdup on rows.jsonl; the rensa anchor as rows.py runs it (on rows.jsonl.zst)."""
    out = root / "runs" / "simdup"
    output, removed = out / "clean.jsonl", out / "removed.jsonl"
    command = [sys.executable, "-m", "simdup", "dedup", str(root / "rows.jsonl")]
    command += ["-o", str(output), "--removed", str(removed), "--id-field", "id", "-q"]
    entries = [
        {
            "name": "simdup dedup (.jsonl)",
            "key": "simdup",
            "command": command,
            "folder": out,
            "output": output,
            "removed_file": removed,
        }
    ]
    if args.anchor:
        anchor = contenders(argparse.Namespace(only="rensa", rensa_bands=args.rensa_bands), root)
        entries += [
            dict(c, name="rjieba + rensa (rows_anchor.py, .jsonl.zst)")
            for c in anchor
            if c["key"] == "rensa"
        ]
    return entries


# "1,234 rows too short ...", "1234 too short", "too short to judge: 1234".
TOO_SHORT = re.compile(
    r"(\d[\d,]*)\s+(?:rows?\s+)?(?:were\s+|are\s+)?too short|too short[^\d\n]{0,30}(\d[\d,]*)",
    re.I,
)


def summary_run(root: Path) -> dict[str, Any]:
    """One more simdup run without ``-q``: its summary line and "too short" count, if any."""
    out = root / "runs" / "simdup-summary"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    command = [sys.executable, "-m", "simdup", "dedup", str(root / "rows.jsonl")]
    command += ["-o", str(out / "clean.jsonl"), "--id-field", "id"]
    m = run_measured(command, cwd=REPO)
    lines = [x for x in m.stderr.replace("\r", "\n").splitlines() if x.strip()]
    match = TOO_SHORT.search(m.stderr)
    return {
        "returncode": m.returncode,
        "stderr_tail": lines[-5:],
        "too_short": int((match.group(1) or match.group(2)).replace(",", "")) if match else None,
    }


def measure(args: argparse.Namespace, n: int) -> dict[str, Any]:
    """The rows of N originals (generated or reused), every contender run and scored: the
    figures of the section ``short-N`` of short.json."""
    docs, _ = bench_folders(args.bench)
    root, manifest = generate(n, args.seed, docs)
    texts = {str(row["id"]): row["text"] for row in read_rows(root / "rows.jsonl")}
    ids = list(texts)
    runnable = plan(args, root)

    def first_score(c: dict[str, Any], removed: Any) -> dict[str, Any]:
        found = score(removed, manifest, texts, args.examples)
        found.update(check_output(c["output"], removed, ids))
        return found

    inputs = [root / "rows.jsonl", root / "rows.jsonl.zst"]
    rounds_of_dedup_runs(runnable, args.repeat, f"short-{n}", read_removed, first_score,
                         inputs=[p for p in inputs if p.exists()])  # fmt: skip
    result: dict[str, Any] = {k: v for k, v in manifest.items() if k not in ("planted", "key")}
    result["contenders"] = [
        {k: v for k, v in c.items() if k not in ("folder", "output", "removed_file", "removals")}
        for c in runnable
    ]
    summarise_runs(result["contenders"])
    for c in result["contenders"]:
        if "median_seconds" in c:
            c["rows_per_second"] = manifest["rows_total"] / c["median_seconds"]
    if args.summary:
        log(f"short-{n}: one more simdup run without -q for its summary ...")
        result["simdup_summary"] = summary_run(root)
    return result
