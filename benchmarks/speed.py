"""Speed benchmark: simdup end to end against the PyPI simhash pipeline, stage costs, index joins.

    python benchmarks/speed.py --bench ../shared/bench/visible      (or: make bench-speed)

Three sections (``--sections``), each printed as a Markdown table and written, with every single
measurement, to benchmarks/results/speed.json:

- ``e2e``: each pipeline in a fresh process, the pipelines alternating (``--repeat`` rounds,
  each starting one pipeline later: ABCDE BCDEA ...): ``simdup scan DOCS --format json -o FILE``
  with ``--segmenter rjieba`` and ``--segmenter jieba``, at the default number of jobs and with
  ``-j1``, and with rjieba without the C extension (``SIMDUP_PURE_PYTHON=1``); and the PyPI
  ``simhash`` pipeline (decode, ``Simhash(text)``, ``SimhashIndex(k=3)``; simhash_anchor.py, run
  in the numpy<2 venv benchmarks/.venv-anchor). Median wall seconds,
  MB/s, documents/s, the max RSS of the largest process of the tree (``wait4``) and the highest
  sampled sum of the tree's RSS (psutil), and ratios to the simhash pipeline.
- ``stages``: within this process, on the same texts, alternating: decoding, ``jieba.lcut``
  alone and ``rjieba.cut`` alone over whole texts, and a whole simdup document with either
  backend (new vocabulary and memo each round, as in a new process), timing the calls simdup
  makes to the segmenter. MB/s of input file bytes, and what everything but segmentation adds
  on top of ``jieba.lcut``.
- ``joins``: ``simdup.near_pairs(fps, 3)`` on N random fingerprints with 1% planted near pairs,
  N = 1e5, 1e6, 1e7 (``--max-n``), and 1e5 with 10,001 identical ones; each join in a fresh
  process (index_join.py) for its max RSS; ``near_pairs``'s own layout against the 4-table layout
  ``Layout(4, 1)``, checking both find the same pairs.
"""

from __future__ import annotations

import argparse
import sys
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
    log,
    reproduce_command,
)
from speed_e2e import e2e
from speed_joins import joins
from speed_stages import stages

SECTIONS = ("e2e", "stages", "joins")


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="simdup speed benchmarks.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per measurement (default 3)")
    ap.add_argument(
        "--max-n",
        type=float,
        default=1e7,
        help="largest number of fingerprints in the join benchmark (default 1e7)",
    )
    ap.add_argument(
        "--repeat-large",
        type=int,
        default=1,
        help="rounds for joins with N >= 1e7 (the 4-table layout takes minutes; default 1)",
    )
    ap.add_argument(
        "--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS)
    )
    ap.add_argument(
        "--skip-plain-jieba",
        action="store_true",
        help="stages: do not time jieba.lcut alone (the slowest stage)",
    )
    ap.add_argument(
        "--no-anchor-venv",
        action="store_true",
        help="do not create benchmarks/.venv-anchor (numpy<2) for the simhash package",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "speed.json")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.repeat_large < 1:
        ap.error("--repeat and --repeat-large must be at least 1")
    sections = chosen_sections(ap, args.sections, SECTIONS)

    import numpy

    import simdup

    command = reproduce_command("speed.py", argv)
    env = environment()
    env["simdup"] = simdup.__version__
    env["numpy"] = numpy.__version__
    log(f"speed benchmark: {command}")
    notes: list[str] = []
    out: dict[str, Any] = {}
    docs = None
    if "e2e" in sections or "stages" in sections:
        docs, _ = bench_folders(args.bench)
    started = time.perf_counter()
    if "e2e" in sections:
        assert docs is not None
        out["e2e"] = e2e(args, docs, notes)
    if "stages" in sections:
        assert docs is not None
        out["stages"] = stages(args, docs, notes)
    if "joins" in sections:
        out["joins"] = joins(args, notes)
    finish_sections_report(
        "speed",
        args.out,
        title="simdup speed",
        versions=f"simdup {simdup.__version__}",
        command=command,
        bench=args.bench,
        environment=env,
        started=started,
        order=SECTIONS,
        sections=out,
        notes=notes,
        footer=[
            "Medians of alternating runs on a shared, noisy machine: compare rows of one run, not "
            "numbers across runs.",
            f"Reproduce: `{command}` (or `make bench-speed`).",
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
