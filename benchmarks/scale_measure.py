"""The measurements of ``scale.py``: its contenders (simdup's scans, with and without the scan
cache, ``-j 1`` and each method, and scale_anchor.py's rensa and datasketch pipelines), each run
in a fresh process, alternating over ``--repeat`` rounds with the page cache warm; the pairs each
reported scored against the planted copies (recall, extra pairs, precision); and, in a process
of its own, the memory a scan keeps per document (tracemalloc)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from common import (
    BENCH_DIR,
    MB,
    RESULTS,
    bench_folders,
    log,
    rotated,
    write_json,
)
from dedup_runs import summarise_runs
from measured import (
    run_measured,
    run_record,
    warm_page_cache,
)
from planted_corpus import NEAR_EDIT_SIMILARITY, THRESHOLD, edit_similarity
from scale_tree import add_edit_similarity, collapsed_text, generate

# ---------------------------------------------------------------- contenders and scoring


def contenders(args: argparse.Namespace, n: int, out: Path, root: Path) -> list[dict[str, Any]]:
    """What is measured, the defaults a user gets first: a first scan with the scan cache on
    (an empty cache folder before each run), a rescan of the unchanged tree with it, and
    without it (``--no-cache``); then tuned variants (without the cache, to time the engine
    and the join alone) and the other tools."""
    py = sys.executable
    docs = str(root / "docs")
    base = [py, "-m", "simdup", "scan", docs, "--no-ignore", "-q", "-f", "json"]
    scan = base + ["--no-cache"]
    cold_cache, warm_cache = out / f"cache-{n}-cold", out / f"cache-{n}-warm"
    rows = [
        ("simdup (defaults: first scan, cache on)", base + ["--cache", str(cold_cache)],
         "simdup-default"),
        ("simdup (defaults: rescan, unchanged tree)", base + ["--cache", str(warm_cache)],
         "simdup-warm"),
        ("simdup --no-cache", scan, "simdup-nocache"),
        ("simdup --no-cache -j1", scan + ["-j", "1"], "simdup-j1"),
        ("simdup --no-cache --method simhash", scan + ["--method", "simhash"], "simdup-simhash"),
        ("simdup --no-cache --method minhash", scan + ["--method", "minhash"], "simdup-minhash"),
    ]  # fmt: skip
    prepare = {
        # Each first scan starts from an empty cache; the rescans from one filled once.
        "simdup-default": lambda: shutil.rmtree(cold_cache, ignore_errors=True),
        "simdup-warm": lambda: _filled(base + ["--cache", str(warm_cache)], warm_cache, out),
    }
    anchor = [py, str(BENCH_DIR / "scale_anchor.py")]
    rows.append(
        (
            "rjieba + rensa (1 process)",
            anchor + ["rensa", docs, "{out}", "--bands", str(args.rensa_bands)],
            "rensa",
        )
    )
    rows.append(
        ("rjieba + datasketch (1 process)", anchor + ["datasketch", docs, "{out}"], "datasketch")
    )
    # The contenders too slow beyond a size: the option that sets it, and its value.
    largest = {
        "simdup-simhash": ("--simhash-max-n", args.simhash_max_n),
        "datasketch": ("--datasketch-max-n", args.datasketch_max_n),
    }
    plan = []
    for name, cmd, key in rows:
        target = out / f"scale-{n}-{key}.json"
        if key in largest and n > largest[key][1]:
            option, most = largest[key]
            plan.append({"name": name, "key": key, "skipped": f"N > {option} {int(most):,}"})
            continue
        if args.only and key not in args.only.split(","):
            plan.append({"name": name, "key": key, "skipped": "not in --only"})
            continue
        if key.startswith("simdup"):
            cmd = cmd + ["-o", str(target)]
        else:
            cmd = [str(target) if c == "{out}" else c for c in cmd]
        entry = {"name": name, "key": key, "command": cmd, "output": target}
        if key in prepare:
            entry["prepare"] = prepare[key]
        plan.append(entry)
    return plan


def _filled(command: list[str], cache: Path, out: Path) -> None:
    """Fill the rescans' cache once (a first scan, not measured)."""
    import subprocess

    if not cache.exists():
        log("  filling the scan cache for the rescans (not measured) ...")
        fill = [*command, "-o", str(out / "fill.json")]
        subprocess.run(fill, check=True, cwd=BENCH_DIR.parent)


def reported_pairs(path: Path) -> set[tuple[str, str]]:
    """The pairs of a contender's JSON output as sorted pairs of file names."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = set()
    for p in doc["pairs"]:
        a, b = (p["a"], p["b"]) if isinstance(p, dict) else (p[0], p[1])
        a, b = os.path.basename(a), os.path.basename(b)
        out.add((min(a, b), max(a, b)))
    return out


def score(pairs: set[tuple[str, str]], planted: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    """Recall on the planted copies; precision over every pair reported, where a pair that
    was not planted is still right when it is a near-duplicate by the definition (edit
    similarity ≥ 0.9, measured here): documents drawn from paragraphs of revisions of one
    file can be near-copies that nobody planted."""
    truth = {(t["a"], t["b"]) for t in planted}
    near = {(t["a"], t["b"]) for t in planted if t["edit_similarity"] >= NEAR_EDIT_SIMILARITY}
    hits = pairs & truth
    misses = [t for t in planted if (t["a"], t["b"]) not in pairs]
    extra = sorted(pairs - truth)
    extra_near = sum(
        edit_similarity(collapsed_text(root, a), collapsed_text(root, b)) >= NEAR_EDIT_SIMILARITY
        for a, b in extra
    )
    return {
        "missed": len(misses),
        "missed_near": len(near - pairs),
        "missed_length_ratio_below_0.9": sum(t["length_ratio"] < 0.9 for t in misses),
        "missed_jaccard_below_0.8": sum(t["jaccard"] < THRESHOLD for t in misses),
        "reported": len(pairs),
        "found": len(hits),
        "recall": len(hits) / len(truth) if truth else float("nan"),
        "recall_near": len(pairs & near) / len(near) if near else float("nan"),
        "extra": len(extra),
        "extra_near": extra_near,
        "false": len(extra) - extra_near,
        "precision": (len(hits) + extra_near) / len(pairs) if pairs else float("nan"),
    }


# ---------------------------------------------------------------- the runs


def results_name(args: argparse.Namespace) -> str:
    """The file under benchmarks/results/ the runs go to."""
    return "scale-short.json" if args.short else "scale.json"


# Run in a fresh process: the live memory (tracemalloc, numpy arrays included) that
# discovery's result and a scan's result hold, per document.
RETAINED = """
import gc, json, sys, tracemalloc
import os, simdup
from simdup.readers.discovery import DiscoveryOptions, find_files
from simdup.options import AUTO_MINHASH_ABOVE
root, opts = sys.argv[1], DiscoveryOptions(ignore_files=False)
# A first scan of one folder, with the method the whole scan will use, loads what a scan
# loads once per process (segmenter, vocabulary, tables): not counted per document.
method = "minhash" if len(find_files([root], opts).files) > AUTO_MINHASH_ABOVE else "simhash"
first = os.path.join(root, sorted(os.listdir(root))[0])
simdup.scan([first], discovery=opts, method=method)
tracemalloc.start()
gc.collect(); start = tracemalloc.get_traced_memory()[0]
found = find_files([root], opts)
gc.collect(); listed = tracemalloc.get_traced_memory()[0]
result = simdup.scan([root], discovery=opts)
gc.collect(); kept = tracemalloc.get_traced_memory()[0]
n = len(found.files)
print(json.dumps({"files_bytes_per_doc": (listed - start) / n,
                  "result_bytes_per_doc": (kept - listed) / len(result.files),
                  "method": result.settings["method"]}))
"""


def retained_per_document(root: Path) -> dict[str, Any]:
    """What the parent keeps per document: the files found (``SourceFiles``) and a scan's
    result (``DocumentTable``: sketch, columns, path), measured live with tracemalloc."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", RETAINED, str(root / "docs")],
        capture_output=True, text=True, check=True, cwd=BENCH_DIR.parent,
    )  # fmt: skip
    return dict(json.loads(done.stdout))


def measure(args: argparse.Namespace, n: int, record: dict[str, Any]) -> dict[str, Any]:
    """N's result: the tree generated (or reused), every contender run ``--repeat`` times in
    rotated order and scored on its first successful run, the memory kept per document (up to
    ``--retained-max-n``); ``record`` is written out after each run."""
    docs, _ = bench_folders(args.bench)
    root, manifest = generate(n, args.seed, docs, args.short)
    add_edit_similarity(root, manifest)
    out = RESULTS / ("scale-short-out" if args.short else "scale-out")
    out.mkdir(parents=True, exist_ok=True)
    plan = contenders(args, n, out, root)
    runnable = [c for c in plan if "command" in c]
    for c in runnable:
        c["runs"] = []
    # The page cache warm for every contender (the first run read from disk: 21.6 s against
    # 9.3 s warm, seen here).
    log(f"N={n:,}: reading the tree once, untimed ({warm_page_cache(root) // MB} MB)")
    for round_no in range(args.repeat):
        for c in rotated(runnable, round_no):
            if "prepare" in c:
                c["prepare"]()
            log(f"N={n:,} round {round_no + 1}/{args.repeat}: {c['name']} ...")
            m = run_measured(
                c["command"],
                cwd=BENCH_DIR.parent,
                heartbeat=lambda s, name=c["name"]: log(f"  ... {name} {s:.0f} s"),
            )
            run = run_record(m)
            if m.returncode != 0:
                run["stderr"] = m.stderr[-2000:]
                log(f"  failed ({m.returncode}): {m.stderr.strip().splitlines()[-1:]}")
            elif "score" not in c:
                c["score"] = score(reported_pairs(c["output"]), manifest["planted"], root)
            c["runs"].append(run)
            log(
                f"  {m.seconds:.1f} s, tree peak PSS {m.tree_peak_pss_mb or 0:.0f} MB "
                f"(RSS sum {m.tree_peak_rss_mb or 0:.0f} MB)"
            )
            write_json(RESULTS / results_name(args), record)
    result = {
        "n": n,
        "short": args.short,
        "bytes": manifest["bytes"],
        "planted": len(manifest["planted"]),
        "planted_below_threshold": sum(t["jaccard"] < THRESHOLD for t in manifest["planted"]),
        "planted_length_ratio_below_0.9": sum(t["length_ratio"] < 0.9 for t in manifest["planted"]),
        "planted_near": sum(
            t["edit_similarity"] >= NEAR_EDIT_SIMILARITY for t in manifest["planted"]
        ),
        "contenders": [
            {k: v for k, v in c.items() if k not in ("output", "prepare")} for c in plan
        ],
    }
    if n <= args.retained_max_n:
        log(f"N={n:,}: memory kept per document (tracemalloc) ...")
        result["retained"] = retained_per_document(root)
        log(f"  {result['retained']}")
    summarise_runs(result["contenders"])
    return result
