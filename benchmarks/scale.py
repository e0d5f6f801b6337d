"""Scale benchmark: many short documents, simdup against one-process rjieba + MinHash pipelines.

    python benchmarks/scale.py --bench ../shared/bench/visible        (or: make bench-scale)

For each N (default 1e4 and 1e5; 1e6 with ``--large``) a deterministic generator writes N short
documents (1-5 KB, ~1.8 KB on average) recombined from real paragraphs of the visible set, with
boilerplate paragraphs shared by many unrelated documents and ~2% planted near-copies whose pairs
are the ground truth (benchmarks/results/scale-N/, reused while N, seed and GENERATOR_VERSION
match). Then every contender runs in a fresh process, the contenders alternating over
``--repeat`` rounds (ABC BCA CAB ...):

- ``simdup scan DIR --no-cache --no-ignore -q -f json -o OUT`` (defaults: all cores, ``auto``),
  the same with ``-j 1``, with ``--method simhash`` and with ``--method minhash``;
- scale_anchor.py rensa: ``rjieba.cut`` + ``rensa`` ``RMinHash(128)`` + ``RMinHashLSH(0.8)`` +
  estimated Jaccard >= 0.8, one process;
- scale_anchor.py datasketch: the same with ``datasketch`` ``MinHash``/``MinHashLSH(0.8, 128)``.

Median wall seconds, documents/s, MB/s (input bytes), peak memory of the process tree (sampled
with psutil: the sum of PSS, in which a page that forked workers share with their parent counts
once, and the sum of RSS, which counts it in every process), planted recall, the pairs
reported that are not planted copies ("extra": how many of them are near-duplicates by edit
similarity all the same, and how many are not) and precision (a reported pair is right when it
was planted or is a near-duplicate by edit similarity); recall is also
given on the planted copies that are near-duplicates by the README's definition (edit
similarity >= 0.9, measured with rapidfuzz); ratios of simdup's throughput to rensa's, and the
issue's targets. Every run goes to benchmarks/results/scale.json (``--short``:
scale-short.json). (``--no-ignore``: results/ is git-ignored, and simdup leaves out git-ignored
files by default.)

``--short`` (issue 50): the documents are short instead (a heading and 2-4 paragraphs of the
visible set, under ``SHORT_TEXT_CHARS`` characters whitespace collapsed: judged by their
characters), and each planted copy has its paragraphs moved (two swapped, or one moved to
another place) and 1-3 characters edited, sometimes blank lines added (results/scale-short-N/).
Its target is planted recall ≥ 0.99 of all planted copies: their edit similarity is low by
construction (a moved paragraph is a deletion and a retyping to it), their block-move
similarity high.
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
    write_json,
)
from planted_corpus import GENERATOR_VERSION
from scale_measure import measure, results_name
from scale_tables import LEGEND, heading, table, targets
from scale_tree import generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_size_options(
        ap, "--n", "1e4,1e5", "comma-separated N (default 1e4,1e5)",
        "also N = 1e6 (~1.8 GB generated)",
    )  # fmt: skip
    ap.add_argument(
        "--simhash-max-n", type=float, default=1e5, help="largest N for --method simhash"
    )
    ap.add_argument("--datasketch-max-n", type=float, default=1e5, help="largest N for datasketch")
    ap.add_argument(
        "--retained-max-n", type=float, default=1e5,
        help="largest N at which the memory kept per document is measured (default 1e5)",
    )  # fmt: skip
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated contender keys (simdup-default, simdup-j1, simdup-simhash, "
        "simdup-minhash, rensa, datasketch)",
    )
    ap.add_argument("--generate-only", action="store_true", help="build the trees and stop")
    ap.add_argument(
        "--short", action="store_true",
        help="short documents (under 400 characters) whose planted copies have paragraphs "
        "moved and 1-3 characters edited (issue 50)",
    )  # fmt: skip
    args = ap.parse_args()
    sizes = sizes_asked(args.n, args.large)
    record: dict[str, Any] = {
        "environment": environment(),
        "argv": sys.argv[1:],
        "generator_version": GENERATOR_VERSION,
        "results": [],
    }
    if args.generate_only:
        docs, _ = bench_folders(args.bench)
        for n in sizes:
            generate(n, args.seed, docs, args.short)
        return
    print(f"Reproduce: `{reproduce_command('scale.py', sys.argv[1:])}`\n")
    for n in sizes:
        result = measure(args, n, record)
        record["results"].append(result)
        write_json(RESULTS / results_name(args), record)
        print(heading(result, args.repeat))
        print(table(result))
        print()
        print("\n".join(targets(result)))
        print(flush=True)
    record_load_end(record["environment"])
    write_json(RESULTS / results_name(args), record)
    print(LEGEND)


if __name__ == "__main__":
    main()
