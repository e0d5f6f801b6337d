"""Short-text benchmark: ``simdup dedup`` of rows of 20-300 characters cut from real documents.

    python benchmarks/short.py --bench ../shared/bench/visible        (or: make bench-short)

Issue 32: how well does ``simdup dedup`` deduplicate SHORT texts? A deterministic generator
(``--seed``) cuts rows from the Markdown files of the visible set's ``docs/``: paragraphs, list
items and headings, code blocks, tables, images and link definitions left out, inline markup
stripped (``[t](url)`` -> ``t``, emphasis, backticks, HTML tags), whitespace collapsed, 20 to
300 characters kept. Originals are distinct: one row per normalised form (below), and rows that
are near-duplicates of one another already (edit similarity >= 0.9: revisions of one file) are
kept once. Each row's language is counted by script: ``zh`` (CJK ideographs at least as many as
Latin letters), ``en`` (no CJK ideograph) or ``mixed`` (Latin-heavy with some CJK). The set is
mostly Chinese, so the originals are sampled with quotas: every ``en`` row up to a third of N,
``mixed`` up to a sixth, ``zh`` the rest; the planted copies the same way within each band.

N originals (``--rows``, default 20,000) plus planted copies of 15% of them, spread evenly over
four length bands of the original (20-39, 40-79, 80-149, 150-300 characters) and, within each
band, evenly over four kinds:

- ``exact``: byte-identical text;
- ``normalised``: the same normalised form, other bytes (case, full-width ASCII, extra or
  missing whitespace, punctuation changed or dropped; checked);
- ``edited``: character edits (insert, delete, substitute with a character of the same script;
  a swap of two neighbouring Latin words) until the edit similarity is in [0.90, 0.99];
- ``negative``: a hard negative, edited to an edit similarity in [0.70, 0.85]: NOT a
  near-duplicate, and must not be removed as a duplicate of its original.

Normalised form (the issue's definition): NFKC, ``str.casefold()``, every run of ``[\\W_]+`` one
space, stripped, spaces between two CJK ideographs removed. Edit similarity: rapidfuzz
``Levenshtein.normalized_similarity`` of two normalised forms (1 - distance / longer length).

The rows, shuffled, ``{"id": "r<k>", "text": ...}``, go to benchmarks/results/short-N/rows.jsonl
(and ``rows.jsonl.zst`` for the anchor, which reads only that), the planted pairs to
``manifest.json`` (reused while N, seed and GENERATOR_VERSION match). Then, in fresh processes,
alternating over ``--repeat`` rounds, medians:

- ``simdup dedup rows.jsonl -o clean.jsonl --removed removed.jsonl --id-field id -q``;
- rows_anchor.py (rows.py's rjieba + rensa script, the command rows.py builds), on
  ``rows.jsonl.zst``; ``--no-anchor`` leaves it out.

Scored from ``--removed``: a planted pair is found when the copy was removed as a duplicate of
the original, the original as a duplicate of the copy, or both as duplicates of one kept row.
Recall by kind and band (and by language); hard negatives found; false removals (removed rows
whose kept row is not a near-duplicate: edit similarity < 0.90), as a count and a share of the
rows removed; rows removed, rows/s, wall seconds, peak memory; the "too short" count of one
more run without ``-q`` when simdup's summary gives one. Targets (issue 32): edited recall >=
0.95 in every band, false removals <= 1%, exact and normalised recall 1.0. Every figure goes to
benchmarks/results/short.json.

This file is the entry point; its parts are ``short_rows.py`` (what a row is, the rows cut from
the Markdown), ``short_copies.py`` (the planted copies), ``short_generate.py`` (the cached
rows and manifest), ``short_measure.py`` (the runs), ``short_score.py`` (scoring a run) and
``short_tables.py`` (the report).
"""

from __future__ import annotations

import argparse
import sys

from common import (
    DEFAULT_BENCH,
    RESULTS,
    bench_folders,
    environment,
    record_load_end,
    reproduce_command,
    write_report,
)
from short_generate import generate
from short_measure import measure
from short_tables import LEGEND, detail_table, examples_text, heading, main_table, targets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default=str(DEFAULT_BENCH), help="the visible set (row source)")
    ap.add_argument("--rows", default="20000", help="number of original rows (default 20000)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument(
        "--no-anchor", dest="anchor", action="store_false", help="leave out the rensa anchor"
    )
    ap.add_argument(
        "--rensa-bands", type=int, default=16, help="RMinHashLSH num_bands (default 16)"
    )
    ap.add_argument(
        "--no-summary",
        dest="summary",
        action="store_false",
        help="no extra simdup run without -q (its summary's too-short count)",
    )
    ap.add_argument(
        "--examples", type=int, default=5, help="false removals and misses shown (default 5)"
    )
    ap.add_argument("--generate-only", action="store_true", help="write the rows and stop")
    args = ap.parse_args()
    n = int(float(args.rows))
    if args.generate_only:
        docs, _ = bench_folders(args.bench)
        generate(n, args.seed, docs)
        return
    command = reproduce_command("short.py", sys.argv[1:])
    env = environment()
    print(f"Reproduce: `{command}`\n", flush=True)
    result = measure(args, n)
    record_load_end(env)
    lines = targets(result)
    parts = [
        heading(result, args.repeat),
        main_table(result),
        "Recall by band and language (found/planted):",
        detail_table(result),
        "Targets (issue 32), simdup:\n" + "\n".join(lines),
    ]
    if examples_text(result):
        parts.append(examples_text(result))
    text = "\n\n".join(parts)
    print(text + "\n\n" + LEGEND, flush=True)
    write_report(
        RESULTS / "short.json",
        "short",
        command=command,
        bench=args.bench,
        environment=env,
        notes=lines,
        sections={f"short-{n}": result},
        markdown="\n\n".join([f"Reproduce: `{command}`", text, LEGEND]),
    )


if __name__ == "__main__":
    main()
