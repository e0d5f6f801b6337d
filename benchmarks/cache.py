"""Scan cache benchmark: a first scan with the cache, a rescan, no cache, and a rescan after edits.

    python benchmarks/cache.py --bench ../shared/bench/visible      (or: make bench-store)
    python benchmarks/cache.py --trees visible,1e5,1e6              (the generated short trees)

Every measurement is a fresh process running ``simdup scan TREE -q -f json -o OUT`` as a user
runs it: with the scan cache in a folder of the benchmark's own (``--cache DIR``: the defaults
otherwise) or ``--no-cache``, the contenders alternating (``--repeat`` rounds, each starting one
contender later), medians reported with the peak memory of the process tree. For each tree:

- ``unchanged tree``: the first scan (the cache folder emptied before each run), a rescan with a
  cache filled once before the rounds, and ``--no-cache``; every report must equal the one of
  ``--no-cache`` apart from timings.
- ``after edits``: each round appends a line to 1% of the files (``--edit-share``), then rescans
  with the filled cache and scans without it (the reference report); the files are put back as
  they were at the end.

Trees: ``visible`` is a copy of the benchmark set's documents; ``1e5`` and ``1e6`` are the short
documents of ``benchmarks/scale.py`` (generated into benchmarks/results/scale-N/ if missing,
scanned with ``--no-ignore`` since that folder is git-ignored). Printed as Markdown and written,
with every run, to benchmarks/results/cache.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    MB,
    RESULTS,
    bench_folders,
    environment,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    reproduce_command,
    rotated,
    write_json,
)
from measured import (
    run_measured,
)

BENCH_DIR = Path(__file__).resolve().parent
# Targets of issue 23: rescan of an unchanged tree this many times faster than a first scan.
WARM_TARGET = {"visible": 8.0, "1e5": 5.0, "1e6": 15.0}


def report(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def comparable(data: dict[str, Any]) -> Any:
    """A report without its timings."""

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items() if k != "seconds"}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    return walk(data)


def tree_for(name: str, bench: Path, tmp: Path) -> tuple[Path, list[str]]:
    """The folder to scan for tree ``name`` and the extra scan options it needs."""
    if name == "visible":
        docs, _ = bench_folders(bench)
        copy = tmp / "visible"
        shutil.copytree(docs, copy)  # edited below: never the shared set itself
        return copy, []
    n = int(float(name))
    root = RESULTS / f"scale-{n}" / "docs"
    if not root.exists():
        log(f"generating the {n:,}-document tree (benchmarks/scale.py) ...")
        subprocess.run(
            [sys.executable, str(BENCH_DIR / "scale.py"), "--bench", str(bench),
             "--n", name, "--generate-only"], check=True,
        )  # fmt: skip
    return root, ["--no-ignore"]


def measure_tree(
    name: str, root: Path, extra: list[str], args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    py = sys.executable
    base = [py, "-m", "simdup", "scan", str(root), "-q", "-f", "json", *extra]
    cold_cache, warm_cache = tmp / f"{name}-cold", tmp / f"{name}-warm"
    reference = tmp / f"{name}-reference.json"

    def run(cmd: list[str], out: Path) -> dict[str, Any]:
        m = run_measured([*cmd, "-o", str(out)], cwd=BENCH_DIR.parent)
        if m.returncode != 0:
            raise SystemExit(f"failed ({m.returncode}): {' '.join(cmd)}\n{m.stderr[-2000:]}")
        return {
            "seconds": m.seconds,
            "peak_pss_mb": m.tree_peak_pss_mb,
            "peak_rss_mb": m.tree_peak_rss_mb,
            "max_rss_mb": m.max_rss_mb,
        }

    log(f"[{name}] the reference report (--no-cache) and the rescans' cache ...")
    run([*base, "--no-cache"], reference)
    run([*base, "--cache", str(warm_cache)], tmp / "fill.json")
    expected = comparable(report(reference))
    contenders = {
        "first scan (defaults: cache on, empty)": [*base, "--cache", str(cold_cache)],
        "rescan (defaults: cache on, unchanged tree)": [*base, "--cache", str(warm_cache)],
        "--no-cache": [*base, "--no-cache"],
    }
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in contenders}
    for round_no in range(args.repeat):
        for label in rotated(list(contenders), round_no):
            if label.startswith("first scan"):
                shutil.rmtree(cold_cache, ignore_errors=True)
            out = tmp / "out.json"
            log(f"[{name} {round_no + 1}/{args.repeat}] {label} ...")
            measured = run(contenders[label], out)
            data = report(out)
            measured["identical"] = comparable(data) == expected
            measured["stages"] = data["summary"]["seconds"]
            runs[label].append(measured)
            log(f"  {measured['seconds']:.2f} s, identical: {measured['identical']}")
    info = json.loads(
        subprocess.run(
            [py, "-m", "simdup", "cache", "info", "--cache", str(cold_cache), "-f", "json"],
            capture_output=True, text=True, check=True, cwd=BENCH_DIR.parent,
        ).stdout
    )  # fmt: skip
    found = report(reference)["summary"]

    # ------------------------------------------------ after edits
    paths = sorted(list_docs(root))
    step = max(1, round(1 / args.edit_share))
    edited = paths[::step]
    saved = {p: (p.read_bytes(), p.stat()) for p in edited}
    edit_runs: list[dict[str, Any]] = []
    nocache_runs: list[dict[str, Any]] = []
    try:
        for round_no in range(args.repeat):
            for path in edited:
                with open(path, "ab") as handle:
                    handle.write(f"\nedited in round {round_no}\n".encode())
            log(f"[{name} edits {round_no + 1}/{args.repeat}] {len(edited)} files edited ...")
            order = [("rescan", tmp / "edit.json"), ("--no-cache", reference)]
            for label, out in rotated(order, round_no):
                cmd = [*base, "--no-cache"] if label == "--no-cache" else [
                    *base, "--cache", str(warm_cache)]  # fmt: skip
                measured = run(cmd, out)
                measured["stages"] = report(out)["summary"]["seconds"]
                (nocache_runs if label == "--no-cache" else edit_runs).append(measured)
            identical = comparable(report(tmp / "edit.json")) == comparable(report(reference))
            edit_runs[-1]["identical"] = identical
            log(f"  rescan {edit_runs[-1]['seconds']:.2f} s (identical: {identical}), "
                f"--no-cache {nocache_runs[-1]['seconds']:.2f} s")  # fmt: skip
    finally:
        for path, (data, st) in saved.items():
            path.write_bytes(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return {
        "tree": name,
        "files": found["files_found"],
        "bytes": found["bytes_read"],
        "runs": runs,
        "edited": len(edited),
        "edit_runs": edit_runs,
        "edit_nocache_runs": nocache_runs,
        "cache_info": info,
    }


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return median([r[key] or 0 for r in runs])


def _stage(runs: list[dict[str, Any]], name: str) -> float:
    return median([r["stages"][name] for r in runs])


def tables(result: dict[str, Any]) -> tuple[str, list[str]]:
    """The Markdown table of a tree, and its targets."""
    def row(label: str, measured: list[dict[str, Any]]) -> list[str]:
        return [
            label,
            f"{fmt(_median(measured, 'seconds'), 2)} ("
            + " ".join(f"{r['seconds']:.2f}" for r in measured) + ")",
            fmt(_median(measured, "peak_pss_mb"), 0),
            fmt(_median(measured, "peak_rss_mb"), 0),
            fmt(_stage(measured, "discovery"), 3),
            fmt(_stage(measured, "fingerprint"), 3),
            fmt(_stage(measured, "index_and_cluster"), 3),
            f"{sum(r.get('identical', True) for r in measured)}/{len(measured)}",
        ]  # fmt: skip

    runs = result["runs"]
    rows = [row(label, measured) for label, measured in runs.items()]
    rows.append(row(f"rescan after editing {result['edited']} files", result["edit_runs"]))
    rows.append(row("--no-cache after the edits", result["edit_nocache_runs"]))
    table = markdown_table(
        ["run", "seconds: median (runs)", "peak PSS MB", "peak RSS sum MB", "discovery s",
         "fingerprint s", "index+clusters s", "same report"], rows,
    )  # fmt: skip
    labels = list(runs)
    cold, warm, plain = (runs[k] for k in labels)
    cs, ws, ps = (_median(r, "seconds") for r in (cold, warm, plain))

    def verdict(ok: bool) -> str:
        return "**met**" if ok else "**not met**"

    want = WARM_TARGET.get(result["tree"], 5.0)
    edit = result["edit_runs"]
    allowed = (
        _stage(edit, "discovery") + 0.05 * _stage(plain, "fingerprint") + 1.0
    )
    es, scan_total = _median(edit, "seconds"), _stage(edit, "total")
    wm, pm = _median(warm, "peak_pss_mb"), _median(plain, "peak_pss_mb")
    info = result["cache_info"]
    targets = [
        f"first scan with the default cache ≤ 1.15× --no-cache: {cs:.2f} s vs {ps:.2f} s = "
        f"{cs / ps:.2f}× → {verdict(cs / ps <= 1.15)}",
        f"rescan of the unchanged tree ≥ {want:.0f}× faster than the first scan: {ws:.2f} s, "
        f"{cs / ws:.1f}× → {verdict(cs / ws >= want)}; identical reports: "
        f"{all(r['identical'] for r in warm)}",
        f"rescan peak memory ≤ --no-cache's (PSS): {wm:.0f} MB vs {pm:.0f} MB → "
        f"{verdict(wm <= pm)}",
        f"after editing {result['edited']} files: the rescan's scan took {scan_total:.2f} s "
        f"(the whole process {es:.2f} s) against discovery + 5% of the cold fingerprinting "
        f"+ 1 s = {allowed:.2f} s → {verdict(scan_total <= allowed)}; identical to a scan "
        f"without the cache: {all(r['identical'] for r in edit)}",
        f"the first scan's cache holds every file (no self-eviction): {info['files']:,} of "
        f"{result['files']:,} files, {info['bytes'] / MB:.1f} MB "
        f"({info['bytes'] / max(result['files'], 1):.0f} B a file) → "
        f"{verdict(info['files'] >= result['files'])}",
    ]
    return table, targets


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="simdup scan cache benchmark.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--trees", default="visible,1e5", help="visible, 1e5, 1e6 (comma-separated)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds per measurement (default 5)")
    ap.add_argument("--edit-share", type=float, default=0.01, help="files edited (default 1%%)")
    ap.add_argument("--out", type=Path, default=RESULTS / "cache.json")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    import simdup

    command = reproduce_command("cache.py", argv)
    env = environment()
    env["simdup"] = simdup.__version__
    log(f"cache benchmark: {command}")
    started = time.perf_counter()
    results = []
    text = [f"## simdup scan cache ({env['cpus']} CPUs; simdup {simdup.__version__}, git "
            f"{env['git']})", "", f"Reproduce: `{command}`", ""]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="simdup-bench-cache-") as tmp_name:
        tmp = Path(tmp_name)
        for name in args.trees.split(","):
            root, extra = tree_for(name, args.bench, tmp)
            result = measure_tree(name, root, extra, args, tmp)
            results.append(result)
            table, targets = tables(result)
            text += [f"### {name}: {result['files']:,} files, {result['bytes'] / MB:.1f} MB",
                     "", table, "", *[f"- {t}" for t in targets], ""]  # fmt: skip
            write_json(args.out, {"environment": env, "command": command, "trees": results})
    env["benchmark_seconds"] = round(time.perf_counter() - started, 1)
    write_json(args.out, {"environment": env, "command": command, "trees": results})
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
