"""Scan cache benchmark: cold scan, warm rescan and no cache; then rescans of an edited copy.

    python benchmarks/cache.py --bench ../shared/bench/visible      (or: make bench-store)

Every measurement is a fresh process (``simdup scan DOCS -q -f json -o OUT --cache PATH`` or
``--no-cache``), the contenders alternating (``--repeat`` rounds, each starting one contender
later), medians reported. Printed as Markdown tables and written, with every single run, to
benchmarks/results/cache.json.

- ``unchanged tree``: cold (the cache file deleted before each run), warm (a cache filled once
  before the rounds) and ``--no-cache``; every run's pairs and clusters must equal those of
  ``--no-cache``.
- ``edited copy``: the tree copied (times kept) and scanned once with the warm cache (its files
  are found by the hash of their bytes: measured as "first scan of a copy"); then each round
  edits 1% of the copy's files (a line appended) and rescans it warm, and without a cache for
  the reference output. The issue's targets: warm >= 20x faster than cold; the rescan after
  the edit costs <= 1% of cold fingerprinting plus the join.
- ``where the time goes``: a warm run of the unchanged tree and a rescan after the edit, run
  through the library driver with timestamps: interpreter start-up and exit, imports, discovery,
  cache lookup, dictionaries, fingerprinting, the join, the report.

Until ``simdup scan`` has ``--cache``, the same scan runs through a small driver calling
``simdup.scan(..., engine=CachedEngine(...))`` and writing the JSON report (``--driver`` forces
it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from common import (
    DEFAULT_BENCH,
    RESULTS,
    Measured,
    bench_folders,
    environment,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    reproduce_command,
    run_measured,
    write_json,
)

T = TypeVar("T")
EDIT_SHARE = 0.01

# What `simdup scan DOCS -q -f json -o OUT --cache PATH` (or --no-cache: PATH "-") does, for
# a simdup whose command line has no --cache yet; with a fourth argument it also writes where
# its time went (seconds since the interpreter handed over) as JSON to that file.
DRIVER = """
import time
T0 = time.perf_counter()
import json, sys
import simdup.cli
from simdup.engines import make_engine
from simdup.options import ScanOptions
from simdup.text.processor import DocumentProcessor
from simdup.report import render
from simdup.scanning import scan
from simdup.store.cached_engine import with_cache
T1 = time.perf_counter()
docs, out, cache = sys.argv[1:4]
timing = sys.argv[4] if len(sys.argv) > 4 else None
options = ScanOptions()
inner = make_engine(options.features, max_size=options.discovery.max_size, jobs=options.jobs)
spent = {"dictionaries": 0.0, "engine": 0.0, "engine_files": 0}

class Timed:
    params = inner.params
    max_size = options.discovery.max_size

    def run(self, files, progress=None):
        t = time.perf_counter()
        if files:  # what the engine's processor loads first (segmenter, IDF), timed apart
            DocumentProcessor(self.params)
            spent["dictionaries"] += time.perf_counter() - t
            spent["engine"] += time.perf_counter() - t
        spent["engine_files"] += len(files)
        results = inner.run(files, progress)
        while True:
            t = time.perf_counter()
            result = next(results, None)
            spent["engine"] += time.perf_counter() - t
            if result is None:
                return
            yield result

engine = Timed() if timing else inner
if cache != "-":
    engine = with_cache(engine, [docs], cache, warn=lambda m: print(m, file=sys.stderr))
T2 = time.perf_counter()
result = scan([docs], options, engine=engine)
T3 = time.perf_counter()
with open(out, "w", encoding="utf-8") as stream:
    render(result, "json", stream)
T4 = time.perf_counter()
if timing:
    with open(timing, "w") as f:
        json.dump({"imports": T1 - T0, "setup": T2 - T1, "scan": T3 - T2, "render": T4 - T3,
                   "in_process": T4 - T0, **spent, "stages": result.stats["seconds"]}, f)
"""


def rotated(items: list[T], round_no: int) -> list[T]:
    """Round r starts at item r: each contender runs early in some rounds and late in others."""
    k = round_no % len(items) if items else 0
    return items[k:] + items[:k]


def cli_has_cache(python: str) -> bool:
    help_text = subprocess.run(
        [python, "-m", "simdup", "scan", "--help"], capture_output=True, text=True
    ).stdout
    return "--no-cache" in help_text


def remove_cache(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def cache_bytes(path: Path) -> int:
    return sum(
        Path(str(path) + s).stat().st_size for s in ("", "-wal") if Path(str(path) + s).exists()
    )


@dataclasses.dataclass
class Contender:
    name: str
    run: Callable[[Path], Measured]  # output file -> measurement
    runs: list[Measured] = dataclasses.field(default_factory=list)
    summaries: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    identical: list[bool] = dataclasses.field(default_factory=list)
    timings: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def seconds(self) -> float:
        return median([m.seconds for m in self.runs])

    def stage(self, name: str) -> float:
        return median([s["seconds"][name] for s in self.summaries])

    def timing(self, read: Callable[[dict[str, Any], float], float]) -> float:
        """Median over the instrumented runs of ``read(timing, wall seconds)``."""
        return median([read(t, m.seconds) for t, m in zip(self.timings, self.runs, strict=True)])


def outcome(report_path: Path) -> tuple[Any, Any, dict[str, Any]]:
    """(pairs, clusters, summary) of a JSON report."""
    report = json.loads(report_path.read_text(encoding="utf-8"))
    return report["pairs"], report["clusters"], report["summary"]


def record(c: Contender, out: Path, reference: Path, timing: Path | None = None) -> None:
    """Keep the summary of ``c``'s last report and whether its pairs and clusters equal those
    of ``reference``."""
    pairs, clusters, summary = outcome(out)
    ref_pairs, ref_clusters, _ = outcome(reference)
    c.summaries.append(summary)
    c.identical.append(pairs == ref_pairs and clusters == ref_clusters)
    if timing is not None:
        c.timings.append(json.loads(timing.read_text()))
    out.unlink()


def percent(part: float, whole: float) -> str:
    return fmt(part / whole * 100, 0) + "%" if whole else "—"


def breakdown(columns: list[Contender]) -> str:
    """Where the instrumented runs' time went, one column each."""
    parts: list[tuple[str, Callable[[dict[str, Any], float], float]]] = [
        ("interpreter start-up and exit", lambda t, wall: wall - t["in_process"]),
        ("imports (simdup.cli and the library)", lambda t, wall: t["imports"]),
        ("options, engine, opening the cache", lambda t, wall: t["setup"]),
        ("discovery", lambda t, wall: t["stages"]["discovery"]),
        ("cache lookup", lambda t, wall: t["stages"]["fingerprint"] - t["engine"]),
        ("loading dictionaries (segmenter, IDF)", lambda t, wall: t["dictionaries"]),
        ("fingerprinting the files missed", lambda t, wall: t["engine"] - t["dictionaries"]),
        ("candidates, verification, clusters", lambda t, wall: t["stages"]["index_and_cluster"]),
        ("rest of scan()", lambda t, wall: t["scan"] - t["stages"]["total"]),
        ("writing the JSON report", lambda t, wall: t["render"]),
    ]
    headers = ["part"]
    for c in columns:
        headers += [f"{c.name}: s", "share"]
    walls = [c.seconds() for c in columns]
    rows = []
    for label, read in parts:
        row = [label]
        for c, wall in zip(columns, walls, strict=True):
            value = c.timing(read)
            row += [fmt(value, 3), percent(value, wall)]
        rows.append(row)
    total = ["whole run (wall, median)"]
    for wall in walls:
        total += [fmt(wall, 3), "100%"]
    files = ["files fingerprinted"]
    for c in columns:
        files += [str(int(c.timing(lambda t, wall: t["engine_files"]))), ""]
    return markdown_table(headers, [*rows, total, files])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="simdup scan cache benchmark.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds per measurement (default 5)")
    ap.add_argument(
        "--driver",
        action="store_true",
        help="run scans through the library driver even if `simdup scan` has --cache",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "cache.json")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    docs, _ = bench_folders(args.bench)
    py = sys.executable
    use_cli = not args.driver and cli_has_cache(py)

    import simdup

    command = reproduce_command("cache.py", argv)
    env = environment()
    env["simdup"] = simdup.__version__
    log(f"cache benchmark: {command}")
    notes: list[str] = []
    how = (
        "`simdup scan DOCS -q -f json -o OUT --cache PATH` (or `--no-cache`)"
        if use_cli
        else "a driver calling `simdup.scan(..., engine=with_cache(...))` (this `simdup scan` "
        "has no --cache yet), writing the same JSON report"
    )
    notes.append(f"each run is a fresh process: {how}")
    notes.append(
        "instrumented rows: the library driver with timestamps (imports, scan stages, the "
        "engine's work with its dictionaries timed apart, the report); interpreter start-up "
        "and exit = wall time minus the time inside the process"
    )
    started = time.perf_counter()

    def scan_cmd(
        tree: Path, out: Path, cache: Path | None, timing: Path | None = None
    ) -> list[str]:
        if use_cli and timing is None:
            cmd = [py, "-m", "simdup", "scan", str(tree), "-q", "-f", "json", "-o", str(out)]
            return cmd + (["--cache", str(cache)] if cache else ["--no-cache"])
        cmd = [py, "-c", DRIVER, str(tree), str(out), str(cache) if cache else "-"]
        return cmd + ([str(timing)] if timing else [])

    def measured(cmd: list[str]) -> Measured:
        m = run_measured(cmd)
        if m.returncode != 0:
            raise SystemExit(f"failed ({m.returncode}): {' '.join(cmd)}\n{m.stderr[-2000:]}")
        if m.stderr.strip():
            notes.append(f"stderr: {m.stderr.strip()[-300:]}")
        return m

    with tempfile.TemporaryDirectory(prefix="simdup-bench-cache-") as tmp_name:
        tmp = Path(tmp_name)
        cold_cache, warm_cache = tmp / "cold.sqlite", tmp / "warm.sqlite"
        timing = tmp / "timing.json"
        reference = tmp / "reference.json"
        log("filling the warm cache, and the reference report (--no-cache) ...")
        measured(scan_cmd(docs, tmp / "fill.json", warm_cache))
        measured(scan_cmd(docs, reference, None))

        def cold(out: Path) -> Measured:
            remove_cache(cold_cache)
            return measured(scan_cmd(docs, out, cold_cache))

        cold_c = Contender("cold: empty cache", cold)
        warm_c = Contender(
            "warm: same cache, unchanged tree",
            lambda out: measured(scan_cmd(docs, out, warm_cache)),
        )
        nocache_c = Contender("--no-cache", lambda out: measured(scan_cmd(docs, out, None)))
        warm_timed = Contender(
            "warm, unchanged (instrumented)",
            lambda out: measured(scan_cmd(docs, out, warm_cache, timing)),
        )
        unchanged = [cold_c, warm_c, nocache_c, warm_timed]
        for round_no in range(args.repeat):
            for c in rotated(unchanged, round_no):
                out = tmp / "u.json"
                log(f"[unchanged {round_no + 1}/{args.repeat}] {c.name} ...")
                c.runs.append(c.run(out))
                record(c, out, reference, timing if c is warm_timed else None)
                log(f"  {c.runs[-1].seconds:.3f} s")
        files = len(list_docs(docs))
        warm_size = cache_bytes(warm_cache)

        # ------------------------------------------------ an edited copy
        copy = tmp / "copy" / "docs"
        shutil.copytree(docs, copy)  # copy2: modification times kept
        copy_files = list_docs(copy)
        edited = copy_files[:: max(1, round(1 / EDIT_SHARE))]
        first = Contender(
            "first scan of a copy (warm cache: found by content)",
            lambda out: measured(scan_cmd(copy, out, warm_cache)),
        )
        rescan = Contender(
            f"warm rescan after editing {len(edited)} of {len(copy_files)} files",
            lambda out: measured(scan_cmd(copy, out, warm_cache)),
        )
        rescan_timed = Contender(
            "after editing 1% (instrumented)",
            lambda out: measured(scan_cmd(copy, out, warm_cache, timing)),
        )
        nocache_copy = Contender(
            "--no-cache, edited copy", lambda out: measured(scan_cmd(copy, out, None))
        )
        copy_ref = tmp / "copy-ref.json"
        log("first scan of the copy ...")
        first.runs.append(first.run(tmp / "first.json"))
        measured(scan_cmd(copy, copy_ref, None))
        record(first, tmp / "first.json", copy_ref)
        edits = 0
        for round_no in range(args.repeat):
            for c in rotated([rescan, rescan_timed], round_no):
                edits += 1
                for path in edited:  # a small edit: one line appended
                    with open(path, "ab") as handle:
                        handle.write(f"\nedit {edits}\n".encode())
                log(f"[edited {round_no + 1}/{args.repeat}] --no-cache, then {c.name} ...")
                nocache_copy.runs.append(nocache_copy.run(copy_ref))
                nocache_copy.summaries.append(outcome(copy_ref)[2])
                nocache_copy.identical.append(True)  # it is the reference
                out = tmp / "e.json"
                c.runs.append(c.run(out))
                record(c, out, copy_ref, timing if c is rescan_timed else None)
                log(f"  {nocache_copy.runs[-1].seconds:.3f} s, {c.runs[-1].seconds:.3f} s")

    # ---------------------------------------------------- tables
    cold_s = cold_c.seconds()
    rows = []
    raw: list[dict[str, Any]] = []
    for c in [*unchanged, first, rescan, rescan_timed, nocache_copy]:
        secs = c.seconds()
        rows.append(
            [
                c.name,
                fmt(secs, 3),
                " ".join(fmt(m.seconds, 3) for m in c.runs),
                fmt(cold_s / secs, 1) + "×",
                fmt(c.stage("discovery"), 3),
                fmt(c.stage("fingerprint"), 3),
                fmt(c.stage("index_and_cluster"), 3),
                fmt(c.stage("total"), 3),
                f"{sum(c.identical)}/{len(c.identical)}",
            ]
        )
        raw.append(
            {
                "contender": c.name,
                "median_seconds": secs,
                "seconds": [m.seconds for m in c.runs],
                "max_rss_mb": [m.max_rss_mb for m in c.runs],
                "summaries": c.summaries,
                "identical": c.identical,
                "timings": c.timings,
            }
        )
    table = markdown_table(
        [
            "run",
            "median s",
            "runs",
            "cold ÷ this",
            "discovery s",
            "fingerprint s",
            "index+clusters s",
            "scan total s",
            "same pairs+clusters",
        ],
        rows,
    )
    warm_s = warm_c.seconds()
    cold_fp = nocache_c.stage("fingerprint")
    missed_fp = rescan_timed.timing(lambda t, wall: t["engine"] - t["dictionaries"])
    dictionaries = rescan_timed.timing(lambda t, wall: t["dictionaries"])
    join = rescan_timed.stage("index_and_cluster")
    targets = [
        f"warm vs cold: {fmt(cold_s / warm_s, 1)}× faster end to end (target ≥ 20×); the scan "
        f"alone (the summary's `total`): {fmt(cold_c.stage('total') / warm_c.stage('total'), 1)}×",
        f"after editing {len(edited)} files ({EDIT_SHARE:.0%}): fingerprinting them took "
        f"{fmt(missed_fp, 3)} s = {fmt(missed_fp / cold_fp * 100, 1)}% of the cold "
        f"fingerprinting ({fmt(cold_fp, 3)} s, --no-cache), plus {fmt(dictionaries, 3)} s "
        f"loading the dictionaries (once for any fingerprinting); the join took "
        f"{fmt(join, 3)} s; the whole rescan {fmt(rescan.seconds(), 3)} s end to end, "
        f"{fmt(rescan.seconds() - warm_s, 3)} s more than an unchanged warm run",
        f"cold with the cache vs --no-cache: {fmt(cold_s, 3)} s vs {fmt(nocache_c.seconds(), 3)} s "
        f"(fingerprint stage {fmt(cold_c.stage('fingerprint'), 3)} vs {fmt(cold_fp, 3)} s: "
        f"reading and hashing every file, writing the entries)",
        f"cache file: {warm_size / 1e6:.2f} MB for {files} files "
        f"({warm_size / max(files, 1) / 1e3:.2f} kB per file, WAL included)",
    ]
    env["benchmark_seconds"] = round(time.perf_counter() - started, 1)
    if hasattr(os, "getloadavg"):
        env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    load = f"load average {env.get('loadavg_start')} → {env.get('loadavg_end')}"
    text = "\n".join(
        [
            f"## simdup scan cache ({env['cpus']} CPUs, {load}; simdup {simdup.__version__}, "
            f"git {env['git']})",
            "",
            table,
            "",
            "### Where the time goes",
            "",
            breakdown([warm_timed, rescan_timed]),
            "",
            *[f"- {t}" for t in targets],
            *[f"- {n}" for n in notes],
            "",
            "Medians of alternating runs in fresh processes on a shared, noisy machine: compare "
            "rows of one run, not numbers across runs.",
            f"Reproduce: `{command}` (or `make bench-store`).",
        ]
    )
    print(text)
    write_json(
        args.out,
        {
            "benchmark": "cache",
            "command": command,
            "bench": os.path.relpath(args.bench),
            "environment": env,
            "cli": use_cli,
            "runs": raw,
            "edited_files": [os.path.relpath(p, copy) for p in edited],
            "cache_bytes": warm_size,
            "targets": targets,
            "notes": notes,
            "markdown": text,
        },
    )
    log(f"wrote {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
