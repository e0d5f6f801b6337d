"""Quality benchmark: simdup and off-the-shelf anchors scored on a labelled set, in one run.

    python benchmarks/quality.py --bench ../shared/bench/visible      (or: make bench-quality)

Every tool's predictions are written to benchmarks/results/predictions/ and scored with the set's
own ``score.py`` (pairwise precision, recall, F1; a cluster counts as all pairs of its members).
Rows:

- simdup at its defaults (``simdup.scan``), scored on its ``pairs`` and, separately, its
  ``clusters``; ``verify=False`` (pure SimHash, k=3); ``cluster_method="components"``; and
  ``method="minhash"`` when this simdup has it.
- the PyPI ``simhash`` package, ``Simhash(text)`` + ``SimhashIndex(k=3)``, run by
  ``simhash_anchor.py`` in a numpy<2 venv (``benchmarks/.venv-anchor``) and, to show what
  happens there, under the bench venv's NumPy 2 (as is, and with counts > 255 passed as floats);
- ``simhash`` over jieba words (punctuation-only tokens dropped), k=3;
- datasketch ``MinHashLSH(threshold=0.8, num_perm=128)`` over jieba word sets and over character
  5-shingle sets.

Anchors decode files as the bench README says (BOM, strict UTF-8, else chardet). Seconds are
in-process times of each tool on the whole set (dictionaries loaded beforehand, interpreter
start-up excluded); ``speed.py`` measures end to end. With ``--repeat N`` every tool runs N times,
the tools alternating, and the median is reported.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from common import (
    DEFAULT_BENCH,
    RESULTS,
    bench_folders,
    default_scorer,
    environment,
    load_scorer,
    log,
    record_load_end,
    reproduce_command,
    write_json,
)
from quality_runs import run_notes, run_rounds, scored_rows, tool_rows
from quality_tables import quality_markdown
from quality_tools import Corpus

# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="Score simdup and anchors on a labelled set.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/, labels)")
    ap.add_argument("--score", type=Path, help="score.py (default: next to the set folder)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per tool, alternating (timing)")
    ap.add_argument(
        "--no-anchor-venv",
        action="store_true",
        help="do not create benchmarks/.venv-anchor (numpy<2) for the simhash package",
    )
    ap.add_argument("--only", help="comma-separated row keys to run (default: all)")
    ap.add_argument("--out", type=Path, default=RESULTS / "quality.json")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    docs, labels_path = bench_folders(args.bench)
    scorer = load_scorer(args.score or default_scorer(args.bench))
    labels = scorer.load_labels(str(labels_path))
    command = reproduce_command("quality.py", argv)
    env = environment()
    log(f"quality benchmark on {os.path.relpath(docs)}: {command}")

    import numpy

    import simdup

    env["simdup"] = simdup.__version__
    env["numpy"] = numpy.__version__
    corpus = Corpus(docs)
    pred_dir = RESULTS / "predictions"
    notes: list[str] = []

    # Load dictionaries before any timing: the seconds compare the tools' work, not start-up.
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    simdup.fingerprint("预热 warm-up text for the segmenter dictionary")

    rows, anchor_venv = tool_rows(docs, corpus, pred_dir, not args.no_anchor_venv, notes)
    if args.only:
        wanted = set(args.only.split(","))
        rows = [r for r in rows if r.key in wanted]

    run_rounds(rows, corpus, args.repeat)
    results = scored_rows(rows, pred_dir, scorer, labels)
    notes += run_notes(rows, anchor_venv)
    scorer_path = args.score or default_scorer(args.bench)
    text = quality_markdown(results, notes, corpus, args.repeat, command, scorer_path, args.bench)
    print(text)
    record_load_end(env)
    write_json(
        args.out,
        {
            "benchmark": "quality",
            "command": command,
            "bench": os.path.relpath(args.bench),
            "documents": len(corpus.paths),
            "bytes": corpus.bytes,
            "environment": env,
            "notes": notes,
            "rows": results,
            "markdown": text,
        },
    )
    log(f"wrote {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
