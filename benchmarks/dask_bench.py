"""Dask benchmark: each dataset stage on a local Dask cluster of 2 worker processes beside the
local engine, per step, and the per-core figures ``docs/scale.md`` plans 10^9 rows with.

    python benchmarks/dask_bench.py --bench ../shared/bench/visible      (or: make bench-dask)

For each N (``--rows``, default 1e5; 1e6 with ``--large``) the rows of rows.py
(benchmarks/results/rows-N/, ~2 KB rows of Chinese and English) are decompressed once to
results/dask-N/rows.jsonl: uncompressed JSON Lines, which Dask workers read in byte ranges (a
compressed file is one task). ``--items`` evaluation items are paragraphs of Python's
documentation, one in a hundred a paragraph of a row (``write_items``); the embedding stage
reads the first ``--docs`` files of the benchmark set. Each stage (dedup; decon; dedup
--spans paragraph; index add --semantic) runs in a fresh process (dask_stage.py) with
``--engine local`` and ``--engine dask``, alternating over ``--repeat`` rounds
(``--repeat-large`` at 10^6 rows); the two outputs must be byte-identical (the run fails
otherwise). Reported: median seconds of each step the verb names, where it runs (workers or
the client), throughput per core (a worker step's rows/s and MB/s over the ``--workers``
cores; a client step's on its one core), peak memory of the process tree (PSS, sampled) and
of the client (its own RSS), the client's bytes per row, CPU seconds of the tree and the
cluster's start. Then the plan's arithmetic for 10^9 rows of 1 KB from the Dask figures.
Every run goes to benchmarks/results/dask.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from alternating_runs import sizes_asked
from common import (
    BENCH_DIR,
    DEFAULT_BENCH,
    MB,
    RESULTS,
    bench_folders,
    environment,
    list_docs,
    log,
    median,
    record_load_end,
    reproduce_command,
    rotated,
    write_report,
)
from dask_plan import plan_tables, stage_table
from measured import run_measured, run_record, warm_page_cache
from rows_dataset import generate, zst_lines

STAGES = ("dedup", "decon", "spans", "embed")
ENGINES = ["local", "dask"]
# Rows read to find the paragraphs too common to be an evaluation item (``write_items``).
SAMPLED_ROWS = 20_000


def prepared(n: int, args: argparse.Namespace, docs: Path) -> dict[str, Any]:
    """results/dask-N/: the rows uncompressed, the items, the embedding's file list."""
    source, manifest = generate(n, args.seed, docs)
    root = RESULTS / f"dask-{n}"
    root.mkdir(parents=True, exist_ok=True)
    data = root / "rows.jsonl"
    if not data.exists() or data.stat().st_size != manifest["bytes"]:
        log(f"dask-{n}: decompressing the rows to {data.relative_to(BENCH_DIR)} ...")
        tmp = data.with_suffix(".tmp")
        with open(tmp, "wb") as out:
            for line in zst_lines(source / "rows.jsonl.zst"):
                out.write(line)
        tmp.replace(data)
    items = root / "items.jsonl"
    write_items(items, data, n, args.items)
    files = list_docs(docs)[: args.docs]
    docs_list = root / "docs.txt"
    docs_list.write_text("".join(f"{p}\n" for p in files), encoding="utf-8")
    warm_page_cache(data)
    return {"root": root, "data": data, "items": items, "docs_list": docs_list,
            "bytes": manifest["bytes"], "text_bytes": manifest["text_bytes"],
            "docs_bytes": sum(p.stat().st_size for p in files), "docs": len(files)}  # fmt: skip


def write_items(path: Path, rows: Path, n: int, count: int) -> None:
    """Evaluation items as a benchmark's are, mostly absent from the training rows: English
    paragraphs of Python's own documentation (150-700 characters; shipped with Python, not in
    the rows), and one in a hundred a paragraph of a row (the generator's rows recombine
    paragraphs, so decon finds each in a few rows in 10^4). A paragraph in more than 0.5% of
    the first 20,000 rows (the newsletters' headers, a licence footer: one was in 30% of the
    rows) is not taken: no benchmark's items are in a third of a corpus."""
    from collections import Counter
    from pydoc_data.topics import topics

    seen: Counter[str] = Counter()
    with open(rows, "rb") as lines:  # the rows decompressed by ``prepared``
        for row_no, line in enumerate(lines):
            if row_no >= SAMPLED_ROWS:
                break
            seen.update({p.strip() for p in json.loads(line)["text"].split("\n\n")})
    sampled = min(n, SAMPLED_ROWS)
    boilerplate = {p for p, count in seen.items() if count > sampled * 0.005}

    paragraphs = (p.strip() for name in sorted(topics) for p in re.split(r"\n\s*\n", topics[name]))
    clean = [p for p in paragraphs if 150 <= len(p) <= 700]
    planted = max(1, count // 100)
    step = max(1, n // planted)
    with open(path, "w", encoding="utf-8") as out, open(rows, "rb") as lines:
        for k, text in enumerate(clean[: count - planted]):
            out.write(json.dumps({"id": f"doc-{k}", "text": text}) + "\n")
        for row_no, line in enumerate(lines):
            if row_no % step:
                continue
            paragraphs = [p for p in json.loads(line)["text"].split("\n\n")
                          if len(p) >= 100 and p.strip() not in boilerplate]  # fmt: skip
            if paragraphs:
                item = {"id": f"row-{row_no}", "text": paragraphs[len(paragraphs) // 2]}
                out.write(json.dumps(item, ensure_ascii=False) + "\n")


def run_stage(stage: str, engine: str, n: int, ready: dict[str, Any],
              args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """One run of ``stage`` on ``engine`` in a fresh process: its figures and memory."""
    tmp = ready["root"] / "runs" / f"{stage}-{engine}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    out = tmp / "figures.json"
    command = [sys.executable, str(BENCH_DIR / "dask_stage.py"), stage, "--engine", engine,
               "--workers", str(args.workers), "--data", str(ready["data"]),
               "--items", str(ready["items"]), "--docs-list", str(ready["docs_list"]),
               "--tmp", str(tmp), "--out", str(out)]  # fmt: skip
    measured = run_measured(command, heartbeat=lambda s: log(f"  ... {stage} {engine} {s:.0f} s"))
    if measured.returncode != 0:
        raise SystemExit(f"{stage} on {engine} failed:\n{measured.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    figures.update(run_record(measured))
    clean = tmp / "clean.jsonl"
    if clean.exists():
        figures["output_sha256"] = hashlib.sha256(clean.read_bytes()).hexdigest()
        clean.unlink()  # hundreds of MB a run; the digest is what is compared
    if stage == "embed":
        figures["index_sha256"] = stored_vectors_digest(tmp / "index.sqlite")
    log(f"  {stage} {engine}: {figures['seconds']:.1f} s {figures['steps']}")
    return figures


def stored_vectors_digest(db: Path) -> str:
    """A digest of the stored sentence vectors (keys, digests, models, vectors; not the
    ``used`` times), so that the two engines' indexes can be compared."""
    import sqlite3

    digest = hashlib.sha256()
    with sqlite3.connect(db) as conn:
        table = "sentence_vectors"  # simdup.store.sentence_vectors
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] != "used"]
        for row in conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY 1, 2"):
            digest.update(repr(row).encode())
    return digest.hexdigest()


def measure(n: int, args: argparse.Namespace, docs: Path) -> dict[str, Any]:
    ready = prepared(n, args, docs)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {s: {e: [] for e in ENGINES}
                                                        for s in args.stages}  # fmt: skip
    repeat = args.repeat_large if n >= 1_000_000 and args.repeat_large else args.repeat
    for round_no in range(repeat):
        log(f"dask-{n}: round {round_no + 1} of {repeat}")
        for stage in args.stages:
            for engine in rotated(ENGINES, round_no):
                runs[stage][engine].append(run_stage(stage, engine, n, ready, args))
    for stage, by_engine in runs.items():
        key = "index_sha256" if stage == "embed" else "output_sha256"
        seen = {run[key] for engine_runs in by_engine.values() for run in engine_runs}
        if len(seen) != 1:
            raise SystemExit(f"{stage}: the engines' outputs differ ({len(seen)} digests)")
    summary = {stage: {engine: summarised(r) for engine, r in by_engine.items()}
               for stage, by_engine in runs.items()}  # fmt: skip
    return {"rows": n, "bytes": ready["bytes"], "text_bytes": ready["text_bytes"],
            "docs": ready["docs"], "docs_bytes": ready["docs_bytes"], "workers": args.workers,
            "repeat": repeat, "summary": summary, "runs": runs}  # fmt: skip


def summarised(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the runs of one stage on one engine."""
    steps = {name: median([r["steps"][name] for r in runs]) for name in runs[0]["steps"]}
    out = {
        "steps": steps,
        "seconds": median([r["seconds"] for r in runs]),
        "tree_peak_pss_mb": median([r["tree_peak_pss_mb"] or 0.0 for r in runs]),
        "client_peak_rss_mb": median([r["client_peak_rss_mb"] for r in runs]),
        "client_ready_rss_mb": median([r["client_ready_rss_mb"] for r in runs]),
        "cluster_start_seconds": median([r.get("cluster_start_seconds", 0.0) for r in runs]),
        "tree_cpu_seconds": median([r["tree_cpu_seconds"] for r in runs]),
    }
    for count in ("rows", "documents", "sentences", "removed", "candidates", "verified",
                  "contaminated", "spans_removed"):  # fmt: skip
        if count in runs[0]:
            out[count] = runs[0][count]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(DEFAULT_BENCH), help="the benchmark set folder")
    ap.add_argument("--rows", default="1e5", help="dataset sizes, comma-separated (default 1e5)")
    ap.add_argument("--large", action="store_true", help="add 10^6 rows")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--repeat-large", type=int, default=0,
                    help="rounds at 10^6 rows and more (default: --repeat)")
    ap.add_argument("--workers", type=int, default=2, help="Dask workers (default 2)")
    ap.add_argument("--items", type=int, default=1000,
                    help="decon's items, at most ~1,000 (default 1000)")
    ap.add_argument("--docs", type=int, default=150, help="files embedded (default 150)")
    ap.add_argument("--stages", default=",".join(STAGES), help="default: all four")
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    args.stages = [s for s in args.stages.split(",") if s]
    if unknown := set(args.stages) - set(STAGES):
        ap.error(f"unknown stage(s): {', '.join(sorted(unknown))}")
    docs, _ = bench_folders(args.bench)
    command = reproduce_command("dask_bench.py", sys.argv[1:])
    env = environment()
    print(f"Reproduce: `{command}`\n", flush=True)
    sections: dict[str, dict[str, Any]] = {}
    markdown = [f"Reproduce: `{command}`"]
    for n in sizes_asked(args.rows, args.large):
        result = measure(n, args, docs)
        text = stage_table(result)
        print(text + "\n", flush=True)
        markdown.append(text)
        sections[f"dask-{n}"] = result
    plans = plan_tables(sections)
    print(plans, flush=True)
    markdown.append(plans)
    record_load_end(env)
    write_report(RESULTS / "dask.json", "dask", command=command, bench=args.bench,
                 environment=env, notes=[f"MB = {MB:,} bytes"], sections=sections,
                 markdown="\n\n".join(markdown))  # fmt: skip


if __name__ == "__main__":
    main()
