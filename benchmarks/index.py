"""Named-index benchmark: ``simdup.store.index.Index`` on synthetic and real fingerprints.

    python benchmarks/index.py --bench ../shared/bench/visible      (or: make bench-store)

Two sections (``--sections``), printed as Markdown tables and written, with every single
measurement, to benchmarks/results/index.json:

- ``store``: for N = 1e5 and 1e6 (``--max-n``) a new index in a temporary folder, filled by
  ``add_many`` (batches of 10,000, one transaction each) with N random 64-bit fingerprints, of
  which 8 per query fingerprint are planted at distances 0, 1, 2, 3, 5, 7, 10 and 12 from it
  (so every query has answers). Reported: the ``add_many`` rate, database bytes per document
  (after ``close``, WAL checkpointed), and ``query`` latency over ``--queries`` (200) queries
  at thresholds 3, 6 and 12 (median and p99; each answer checked against a numpy brute force
  over all N), the same at threshold 3 with every row scanned instead of the block indexes
  probed (the layout's alternative, on fewer queries), and, in a fresh process, opening the
  index plus its first query.
- ``query-file``: an index of the set's documents (``add_files``, all cores), then
  ``--repeat`` fresh processes each running ``Index(db).query_file(one document)`` (wall time
  from spawn to exit, and the phases inside the process); every answer is checked against the
  pairs of ``simdup.scan`` over the same documents.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    RESULTS,
    bench_folders,
    chosen_sections,
    environment,
    finish_sections_report,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    reproduce_command,
)
from measured import (
    run_measured,
)

SECTIONS = ("store", "query-file")
THRESHOLDS = (3, 6, 12)
PLANTED_DISTANCES = (0, 1, 2, 3, 5, 7, 10, 12)
SEED = 20240610


def percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(values, q)) if values else float("nan")


# ---------------------------------------------------------------- store


def synthetic(n: int, queries: int) -> tuple[Any, Any]:
    """``(stored fingerprints, query fingerprints)`` as uint64 arrays: random values with 8
    planted near each query (the first ``queries * 8`` entries)."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    stored = rng.integers(0, 1 << 64, n, dtype=np.uint64, endpoint=False)
    targets = rng.integers(0, 1 << 64, queries, dtype=np.uint64, endpoint=False)
    k = 0
    for q in targets.tolist():
        for d in PLANTED_DISTANCES:
            flips = rng.choice(64, d, replace=False)
            value = q
            for bit in flips.tolist():
                value ^= 1 << bit
            stored[k] = value
            k += 1
    return stored, targets


_OPEN_AND_QUERY = """
import json, sys, time
t0 = time.perf_counter()
from simdup.store.index import Index
t1 = time.perf_counter()
idx = Index(sys.argv[1], create=False)
t2 = time.perf_counter()
found = idx.query(int(sys.argv[2]), 3)
t3 = time.perf_counter()
idx.close()
print(json.dumps({"import_s": t1 - t0, "open_s": t2 - t1, "query_s": t3 - t2, "found": len(found)}))
"""


def store_case(n: int, args: argparse.Namespace, tmp: Path, notes: list[str]) -> dict[str, Any]:
    import numpy as np

    from simdup.store import index as store_index
    from simdup.store.index import Index

    stored, targets = synthetic(n, args.queries)
    keys = [f"doc-{i:08d}" for i in range(n)]
    path = tmp / f"index-{n}.simdup"
    log(f"[store N={n:,}] add_many ...")
    idx = Index(path, rebuild=True)
    started = time.perf_counter()
    idx.add_many(zip(keys, stored.tolist(), strict=True))
    add_s = time.perf_counter() - started
    log(f"  {n / add_s:,.0f} fingerprints/s")
    idx.close()
    size = path.stat().st_size
    wal = Path(f"{path}-wal")
    leftovers = wal.stat().st_size if wal.exists() else 0

    idx = Index(path, create=False)
    latencies: dict[str, list[float]] = {}
    answers: dict[str, list[int]] = {}
    mismatches = 0
    for k in THRESHOLDS:
        times: list[float] = []
        counts: list[int] = []
        for q in targets.tolist():
            t = time.perf_counter()
            found = idx.query(q, k)
            times.append(time.perf_counter() - t)
            counts.append(len(found))
            d = np.bitwise_count(stored ^ np.uint64(q))
            expected = sorted(
                ((keys[i], int(d[i])) for i in np.flatnonzero(d <= k).tolist()),
                key=lambda item: (item[1], item[0]),
            )
            mismatches += found != expected
        latencies[f"probe k={k}"] = times
        answers[f"probe k={k}"] = counts
        p99 = percentile(times, 99)
        log(f"  k={k}: median {median(times) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms")
    original = store_index.choose_strategy
    store_index.choose_strategy = lambda threshold, documents: "scan"  # type: ignore[assignment]
    try:
        times = []
        counts = []
        for q in targets[: args.scan_queries].tolist():
            t = time.perf_counter()
            counts.append(len(idx.query(q, 3)))
            times.append(time.perf_counter() - t)
        latencies["scan every row k=3"] = times
        answers["scan every row k=3"] = counts
        log(f"  scan every row, k=3: median {median(times) * 1e3:.1f} ms")
    finally:
        store_index.choose_strategy = original  # type: ignore[assignment]
    idx.close()
    if mismatches:
        notes.append(f"WARNING: store N={n:,}: {mismatches} answers differ from brute force")

    fresh = []
    for q in targets[:5].tolist():
        m = run_measured([sys.executable, "-c", _OPEN_AND_QUERY, str(path), str(q)])
        if m.returncode == 0:
            fresh.append(json.loads(m.stdout.strip().splitlines()[-1]) | {"wall_s": m.seconds})
    return {
        "n": n,
        "add_seconds": add_s,
        "add_rate": n / add_s,
        "database_bytes": size,
        "wal_bytes_after_close": leftovers,
        "bytes_per_document": size / n,
        "latencies_s": latencies,
        "answers": answers,
        "mismatches": mismatches,
        "fresh_process": fresh,
    }


def store(args: argparse.Namespace, notes: list[str]) -> dict[str, Any]:
    sizes = [n for n in (100_000, 1_000_000, 10_000_000) if n <= args.max_n]
    results = []
    with tempfile.TemporaryDirectory(prefix="simdup-bench-index-", dir=args.tmp) as tmp:
        for n in sizes:
            results.append(store_case(n, args, Path(tmp), notes))
    rows = []
    for r in results:
        for name, times in r["latencies_s"].items():
            counts = r["answers"][name]
            rows.append(
                [
                    f"{r['n']:,}",
                    name,
                    str(len(times)),
                    fmt(median(times) * 1e3, 2),
                    fmt(percentile(times, 99) * 1e3, 2),
                    fmt(median(counts), 0),
                ]
            )
    latency = markdown_table(
        ["N", "query", "queries", "median ms", "p99 ms", "median answers"], rows
    )
    build_rows = []
    for r in results:
        fresh = r["fresh_process"]
        build_rows.append(
            [
                f"{r['n']:,}",
                fmt(r["add_rate"], 0),
                fmt(r["add_seconds"], 1),
                fmt(r["bytes_per_document"], 1),
                fmt(r["database_bytes"] / 1e6, 1),
                "yes" if not r["mismatches"] else f"NO ({r['mismatches']})",
                fmt(median([f["open_s"] for f in fresh]) * 1e3, 1) if fresh else "—",
                fmt(median([f["query_s"] for f in fresh]) * 1e3, 1) if fresh else "—",
                fmt(median([f["wall_s"] for f in fresh]), 2) if fresh else "—",
            ]
        )
    build = markdown_table(
        [
            "N",
            "add_many /s",
            "add s",
            "bytes / doc",
            "database MB",
            "answers = brute force",
            "fresh process: open ms",
            "first query ms (k=3)",
            "process wall s",
        ],
        build_rows,
    )
    heading = (
        f"### `Index` on random fingerprints (8 planted near each of {args.queries} queries, "
        f"at distances {', '.join(map(str, PLANTED_DISTANCES))})"
    )
    return {"markdown": f"{heading}\n\n{build}\n\n{latency}", "rows": results}


# ---------------------------------------------------------------- query_file

_QUERY_FILE = """
import json, sys, time
t0 = time.perf_counter()
from simdup.store.index import Index
t1 = time.perf_counter()
with Index(sys.argv[1], create=False) as idx:
    t2 = time.perf_counter()
    matches = idx.query_file(sys.argv[2])
    t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "open_s": t2 - t1, "query_file_s": t3 - t2,
                  "keys": [m.key for m in matches]}))
"""


def query_file(args: argparse.Namespace, docs: Path, notes: list[str]) -> dict[str, Any]:
    import simdup
    from simdup.store.index import Index

    paths = list_docs(docs)
    picks = [paths[i * len(paths) // args.repeat] for i in range(args.repeat)]
    with tempfile.TemporaryDirectory(prefix="simdup-bench-index-", dir=args.tmp) as tmp:
        db = Path(tmp) / "visible.simdup"
        log(f"[query-file] indexing {len(paths)} documents ...")
        started = time.perf_counter()
        with Index(db) as idx:
            added = idx.add_files([str(docs)])
        index_s = time.perf_counter() - started
        log(f"  {added.added} added in {index_s:.1f} s; scanning for the reference pairs ...")
        partners: dict[str, set[str]] = {}
        for pair in simdup.scan([str(docs)]).pairs:
            partners.setdefault(pair.a, set()).add(pair.b)
            partners.setdefault(pair.b, set()).add(pair.a)
        runs = []
        agree = 0
        for path in picks:
            m = run_measured([sys.executable, "-c", _QUERY_FILE, str(db), str(path)])
            if m.returncode != 0:
                notes.append(f"WARNING: query_file {path}: exit {m.returncode} {m.stderr[-200:]}")
                continue
            r = json.loads(m.stdout.strip().splitlines()[-1]) | {
                "wall_s": m.seconds,
                "max_rss_mb": m.max_rss_mb,
                "file": str(path),
            }
            found = set(r["keys"]) - {str(path)}
            agree += found == partners.get(str(path), set())
            runs.append(r)
            log(f"  {path.name}: {m.seconds:.3f} s, {len(r['keys'])} matches")
        db_bytes = db.stat().st_size
    if agree != len(runs):
        notes.append(f"WARNING: query_file disagreed with scan on {len(runs) - agree} files")
    row = [
        str(added.added),
        fmt(index_s, 1),
        fmt(db_bytes / max(added.added, 1), 0),
        str(len(runs)),
        fmt(median([r["wall_s"] for r in runs]), 3),
        fmt(max((r["wall_s"] for r in runs), default=float("nan")), 3),
        fmt(median([r["import_s"] for r in runs]) * 1e3, 0),
        fmt(median([r["open_s"] for r in runs]) * 1e3, 1),
        fmt(median([r["query_file_s"] for r in runs]) * 1e3, 0),
        fmt(median([r["max_rss_mb"] for r in runs]), 0),
        f"{agree}/{len(runs)}",
    ]
    table = markdown_table(
        [
            "indexed docs",
            "add_files s",
            "bytes / doc",
            "queries",
            "median wall s",
            "max wall s",
            "import ms",
            "open ms",
            "query_file ms",
            "max RSS MB",
            "same as scan pairs",
        ],
        [row],
    )
    heading = (
        f"### `Index(db).query_file(doc)` in a fresh process, against an index of {docs} "
        "(wall time from spawn to exit)"
    )
    return {"markdown": f"{heading}\n\n{table}", "rows": runs, "index_seconds": index_s}


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="simdup named-index benchmark.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--max-n", type=float, default=1e6, help="largest index (default 1e6)")
    ap.add_argument("--queries", type=int, default=200, help="queries per threshold (200)")
    ap.add_argument(
        "--scan-queries", type=int, default=20, help="queries of the scan-every-row row (20)"
    )
    ap.add_argument("--repeat", type=int, default=10, help="fresh query_file processes (10)")
    ap.add_argument("--tmp", type=Path, default=None, help="folder for the temporary indexes")
    ap.add_argument(
        "--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS)
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "index.json")
    args = ap.parse_args(argv)
    if min(args.queries, args.scan_queries, args.repeat) < 1:
        ap.error("--queries, --scan-queries and --repeat must be at least 1")
    sections = chosen_sections(ap, args.sections, SECTIONS)

    import sqlite3

    import numpy

    import simdup

    command = reproduce_command("index.py", argv)
    env = environment()
    env.update(simdup=simdup.__version__, numpy=numpy.__version__, sqlite=sqlite3.sqlite_version)
    log(f"index benchmark: {command}")
    notes: list[str] = []
    out: dict[str, Any] = {}
    started = time.perf_counter()
    if "store" in sections:
        out["store"] = store(args, notes)
    if "query-file" in sections:
        docs, _ = bench_folders(args.bench)
        out["query-file"] = query_file(args, docs, notes)
    finish_sections_report(
        "index",
        args.out,
        title="simdup named index",
        versions=f"simdup {simdup.__version__}, SQLite {sqlite3.sqlite_version}",
        command=command,
        bench=args.bench,
        environment=env,
        started=started,
        order=SECTIONS,
        sections=out,
        notes=notes,
        footer=[
            "Medians on a shared, noisy machine; queries run with the operating system's file "
            "cache warm (the index was just written or read).",
            f"Reproduce: `{command}` (or `make bench-store`).",
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
