"""Rows benchmark: ``simdup dedup`` of a dataset of short rows against an rjieba + rensa script.

    python benchmarks/rows.py --bench ../shared/bench/visible        (or: make bench-rows)

For each N (``--rows``, default 1e5; 1e6 with ``--large``) a deterministic generator makes N
rows ``{"id", "text", "meta"}`` whose texts are scale.py's short documents (the generator both
use, planted_corpus.py: 1-5 KB recombined from paragraphs of the visible set, shared
boilerplate, 2% planted near-copies, shuffled ids) and writes them in id order as one
``rows.jsonl.zst`` (zstd level 3) and one ``rows.parquet`` (zstd, row groups of 10^5 rows), with
the planted pairs as pairs of ids in ``manifest.json`` (benchmarks/results/rows-N/, reused while
N, seed and both generator versions match). Then every contender runs in a fresh process,
alternating over ``--repeat`` rounds (ABC BCA CAB ...), its outputs in
results/rows-N/runs/<contender>/:

- ``simdup dedup rows.jsonl.zst -o clean.jsonl.zst --removed removed.jsonl --id-field id -q``
  (the defaults a user gets);
- the same on ``rows.parquet`` (``-o clean.parquet``);
- rows_anchor.py: the one-process rjieba + rensa pipeline reading the same ``.jsonl.zst``
  (MinHash LSH at 0.8, the first row of a group kept, kept lines written to ``.jsonl.zst``).

Median wall seconds, rows/s, MB/s of uncompressed JSON Lines, peak memory of the process tree
(sampled with psutil: the sum of PSS, and the sum of RSS; median and max over the runs), rows
removed, planted recall (a planted pair is found when one row was removed as a duplicate of the
other, or both were removed as duplicates of one kept row), also on the planted copies that are
near-duplicates by the README's definition (edit similarity >= 0.9), rows removed outside any
planted pair ("extra": near-duplicates by edit similarity all the same, or not), precision, the
anchor's seconds over simdup's, and the issue's targets (at 10^6 rows in one .jsonl.zst:
>= 2.5x the rensa pipeline, recall >= 0.99, peak <= 1.5 GB). Every run goes to
benchmarks/results/rows.json.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from alternating_runs import add_size_options, sizes_asked
from common import (
    RESULTS,
    bench_folders,
    environment,
    record_load_end,
    reproduce_command,
    write_report,
)
from rows_dataset import generate
from rows_measure import measure
from rows_tables import LEGEND, heading, table, targets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_size_options(
        ap, "--rows", "1e5", "comma-separated numbers of rows (default 1e5)",
        "also 1e6 rows (~2 GB of JSON Lines)",
    )  # fmt: skip
    ap.add_argument(
        "--only", default="", help="comma-separated keys (simdup-jsonl, simdup-parquet, rensa)"
    )
    ap.add_argument("--generate-only", action="store_true", help="write the rows and stop")
    args = ap.parse_args()
    sizes = sizes_asked(args.rows, args.large)
    if args.generate_only:
        docs, _ = bench_folders(args.bench)
        for n in sizes:
            generate(n, args.seed, docs)
        return
    command = reproduce_command("rows.py", sys.argv[1:])
    env = environment()
    print(f"Reproduce: `{command}`\n", flush=True)
    sections: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    markdown: list[str] = [f"Reproduce: `{command}`"]
    for n in sizes:
        result = measure(args, n)
        head = heading(result, args.repeat)
        text = "\n\n".join([head, table(result), "\n".join(targets(result))])
        print(text + "\n", flush=True)
        markdown.append(text)
        notes += [f"{n:,} rows: {line}" for line in targets(result)]
        sections[f"rows-{n}"] = result
        record_load_end(env)
        write_report(
            RESULTS / "rows.json",
            "rows",
            command=command,
            bench=args.bench,
            environment=env,
            notes=notes,
            sections=sections,
            markdown="\n\n".join([*markdown, LEGEND]),
        )
    print(LEGEND)


if __name__ == "__main__":
    main()
