"""The measurements of ``rows.py``: its contenders (``simdup dedup`` of the ``.jsonl.zst`` and
of the ``.parquet``, rows_anchor.py's rjieba + rensa pipeline on the ``.jsonl.zst``), each run
in a fresh process with its outputs in results/rows-N/runs/<contender>/, alternating over
``--repeat`` rounds; what each removed scored against the planted pairs (recall, rows removed
outside them, precision) and its output checked (exactly the rows not removed, in order)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from common import (
    BENCH_DIR,
    bench_folders,
)
from dedup_runs import summarise_runs
from measured import (
    rounds_of_dedup_runs,
)
from planted_corpus import NEAR_EDIT_SIMILARITY, THRESHOLD, edit_similarity
from rows_dataset import ID_PREFIX, generate, texts_of, zst_lines

# ---------------------------------------------------------------- contenders and scoring


def contenders(args: argparse.Namespace, root: Path) -> list[dict[str, Any]]:
    """The commands measured; each writes into its own folder under ``runs/``."""
    py = sys.executable
    jsonl, parquet = str(root / "rows.jsonl.zst"), str(root / "rows.parquet")
    runs = root / "runs"
    plan = []
    for name, key, source, clean in (
        ("simdup dedup .jsonl.zst", "simdup-jsonl", jsonl, "clean.jsonl.zst"),
        ("simdup dedup .parquet", "simdup-parquet", parquet, "clean.parquet"),
        ("rjieba + rensa (1 process, .jsonl.zst)", "rensa", jsonl, "clean.jsonl.zst"),
    ):
        out = runs / key
        output, removed = out / clean, out / "removed.jsonl"
        if key == "rensa":
            command = [py, str(BENCH_DIR / "rows_anchor.py"), source, str(output), str(removed)]
            command += ["--bands", str(args.rensa_bands)]
        else:
            command = [py, "-m", "simdup", "dedup", source, "-o", str(output)]
            command += ["--removed", str(removed), "--id-field", "id", "-q"]
        entry: dict[str, Any] = {"name": name, "key": key, "command": command}
        if args.only and key not in args.only.split(","):
            entry = {"name": name, "key": key, "skipped": "not in --only"}
        else:
            entry.update(folder=out, output=output, removed_file=removed)
        plan.append(entry)
    return plan


def read_removed(path: Path) -> dict[int, int]:
    """``{removed id: id of the row kept for it}`` from a ``--removed`` JSON Lines file."""
    removed: dict[int, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            removed[int(record["key"])] = int(record["duplicate_of"])
    return removed


def kept_ids(path: Path) -> list[int]:
    """The ids of the rows of a deduplicated output, in order."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return [int(x) for x in pq.read_table(path, columns=["id"]).column("id").to_pylist()]
    out = []
    for line in zst_lines(path):
        match = ID_PREFIX.match(line)
        out.append(int(match.group(1)) if match else int(json.loads(line)["id"]))
    return out


def check_output(path: Path, removed: dict[int, int], n: int) -> dict[str, Any]:
    """Whether the output holds exactly the rows not removed, in input order."""
    kept = kept_ids(path)
    expected = [i for i in range(n) if i not in removed]
    return {"kept_rows": len(kept), "output_ok": kept == expected}


def score(removed: dict[int, int], planted: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    """Planted recall, rows removed outside the planted pairs, precision.

    A planted pair (a, b) is found when a was removed as a duplicate of b (or b of a), or both
    were removed as duplicates of one kept row. A removal is right when it is a planted pair
    or a near-duplicate by edit similarity (>= 0.9, measured here on the removed row and the
    row kept for it): rows drawn from paragraphs of revisions of one file can be near-copies
    that nobody planted.
    """

    def found(t: dict[str, Any]) -> bool:
        a, b = t["a"], t["b"]
        ra, rb = removed.get(a), removed.get(b)
        return ra == b or rb == a or (ra is not None and ra == rb)

    hits = [t for t in planted if found(t)]
    misses = [t for t in planted if not found(t)]
    near = [t for t in planted if t["edit_similarity"] >= NEAR_EDIT_SIMILARITY]
    in_pairs = {t["a"] for t in planted} | {t["b"] for t in planted}
    truth = {frozenset((t["a"], t["b"])) for t in planted}
    unplanted = {r: k for r, k in removed.items() if frozenset((r, k)) not in truth}
    texts = texts_of(root, set(unplanted) | set(unplanted.values())) if unplanted else {}
    near_removal = {
        r
        for r, k in unplanted.items()
        if edit_similarity(texts[r], texts[k]) >= NEAR_EDIT_SIMILARITY
    }
    extra = [r for r in removed if r not in in_pairs]
    extra_near = sum(r in near_removal for r in extra)
    return {
        "removed": len(removed),
        "found": len(hits),
        "recall": len(hits) / len(planted) if planted else float("nan"),
        "recall_near": sum(found(t) for t in near) / len(near) if near else float("nan"),
        "either_removed": sum(t["a"] in removed or t["b"] in removed for t in planted),
        "missed": len(misses),
        "missed_near": sum(t["edit_similarity"] >= NEAR_EDIT_SIMILARITY for t in misses),
        "missed_jaccard_below_0.8": sum(t["jaccard"] < THRESHOLD for t in misses),
        "missed_length_ratio_below_0.9": sum(t["length_ratio"] < 0.9 for t in misses),
        "extra": len(extra),
        "extra_near": extra_near,
        "extra_not_near": len(extra) - extra_near,
        "removals_not_planted": len(unplanted),
        "removals_not_planted_near": len(near_removal),
        "precision": (len(removed) - len(unplanted) + len(near_removal)) / len(removed)
        if removed
        else float("nan"),
    }


# ---------------------------------------------------------------- the runs


def measure(args: argparse.Namespace, n: int) -> dict[str, Any]:
    """The result of ``n`` rows: the dataset generated (or reused), every contender run
    ``--repeat`` times in rotated order, its first successful run scored and its output
    checked."""
    docs, _ = bench_folders(args.bench)
    root, manifest = generate(n, args.seed, docs)
    plan = contenders(args, root)
    runnable = [c for c in plan if "command" in c]

    def first_score(c: dict[str, Any], removed: Any) -> dict[str, Any]:
        found = score(removed, manifest["planted"], root)
        found.update(check_output(c["output"], removed, n))
        return found

    inputs = [root / "rows.jsonl.zst", root / "rows.parquet"]
    rounds_of_dedup_runs(runnable, args.repeat, f"rows={n:,}", read_removed, first_score,
                         inputs=inputs)  # fmt: skip
    result: dict[str, Any] = {
        "rows": n,
        "bytes": manifest["bytes"],
        "jsonl_zst_bytes": manifest["jsonl_zst_bytes"],
        "parquet_bytes": manifest["parquet_bytes"],
        "planted": len(manifest["planted"]),
        "planted_near": sum(
            t["edit_similarity"] >= NEAR_EDIT_SIMILARITY for t in manifest["planted"]
        ),
        "planted_below_threshold": sum(t["jaccard"] < THRESHOLD for t in manifest["planted"]),
        "contenders": [
            {
                k: v
                for k, v in c.items()
                if k not in ("folder", "output", "removed_file", "removals")
            }
            for c in plan
        ],
    }
    summarise_runs(result["contenders"])
    return result
