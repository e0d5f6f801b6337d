"""A one-process MinHash LSH scanner over rjieba word sets: the issue-12 anchors of scale.py.

    python benchmarks/scale_anchor.py rensa DIR OUT.json [--bands 16]
    python benchmarks/scale_anchor.py datasketch DIR OUT.json

What an informed user writes in an afternoon: read each file (UTF-8), ``rjieba.cut``, the set of
words (whitespace-only tokens dropped), a 128-permutation MinHash of it, an LSH index at Jaccard
0.8, then every document's candidates checked with the estimated Jaccard (>= 0.8). Writes
``{"engine", "params", "files", "pairs": [[name_a, name_b, estimated_jaccard], ...]}`` with file
names (not paths) as scale.py's ground truth names documents.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

NUM_PERM = 128
THRESHOLD = 0.8
SEED = 42


def walk(root: str) -> list[str]:
    """Every regular file under ``root``, sorted (os.scandir, no stat beyond the dirent)."""
    out: list[str] = []
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    out.append(entry.path)
    out.sort()
    return out


def words(text: str) -> set[str]:
    """The set of ``rjieba.cut`` tokens of ``text``, whitespace-only tokens dropped."""
    import rjieba

    return {w for w in rjieba.cut(text) if not w.isspace()}


def word_sets(paths: list[str]):
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        yield words(text)


def rensa_index(sets: Iterable[set[str]], bands: int) -> tuple[list[Any], Any]:
    """``(sketches, lsh)``: an ``RMinHash(NUM_PERM, SEED)`` of each word set, inserted into an
    ``RMinHashLSH(THRESHOLD, NUM_PERM, bands)`` under its number."""
    from rensa import RMinHash, RMinHashLSH

    sketches = []
    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=bands)
    for i, ws in enumerate(sets):
        m = RMinHash(num_perm=NUM_PERM, seed=SEED)
        m.update(list(ws))
        lsh.insert(i, m)
        sketches.append(m)
    return sketches, lsh


def run_rensa(paths: list[str], bands: int) -> tuple[list[tuple[int, int, float]], dict]:
    sketches, lsh = rensa_index(word_sets(paths), bands)
    pairs = []
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j > i:
                est = m.jaccard(sketches[j])
                if est >= THRESHOLD:
                    pairs.append((i, j, est))
    return pairs, {"num_perm": NUM_PERM, "threshold": THRESHOLD, "num_bands": bands}


def run_datasketch(paths: list[str]) -> tuple[list[tuple[int, int, float]], dict]:
    from datasketch import MinHash, MinHashLSH

    sketches = []
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    for i, words in enumerate(word_sets(paths)):
        m = MinHash(num_perm=NUM_PERM, seed=SEED)
        m.update_batch([w.encode("utf-8") for w in words])
        lsh.insert(i, m, check_duplication=False)
        sketches.append(m)
    pairs = []
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j > i:
                est = m.jaccard(sketches[j])
                if est >= THRESHOLD:
                    pairs.append((i, j, est))
    bands, rows = lsh.b, lsh.r
    return pairs, {"num_perm": NUM_PERM, "threshold": THRESHOLD, "bands": bands, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=("rensa", "datasketch"))
    ap.add_argument("dir")
    ap.add_argument("out")
    ap.add_argument("--bands", type=int, default=16, help="rensa num_bands (default 16: 8 rows)")
    args = ap.parse_args()
    paths = walk(args.dir)
    if args.engine == "rensa":
        pairs, params = run_rensa(paths, args.bands)
    else:
        pairs, params = run_datasketch(paths)
    names = [os.path.basename(p) for p in paths]
    doc = {
        "engine": args.engine,
        "params": params,
        "files": len(paths),
        "pairs": [[names[i], names[j], round(est, 4)] for i, j, est in pairs],
    }
    Path(args.out).write_text(json.dumps(doc), encoding="utf-8")


if __name__ == "__main__":
    main()
