"""``simdup decon TRAIN... --evals EVALS... -o CLEAN --report R``: training rows without the
evaluation items they contain."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click

from ..algorithms.containment import (
    DEFAULT_K,
    DEFAULT_MAX_EDIT_TOKENS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_LETTER_EDITS,
    DEFAULT_MIN_COVERAGE,
    DEFAULT_MIN_EDIT_SIMILARITY,
    DEFAULT_MIN_LETTER_SIMILARITY,
    DEFAULT_MIN_TOKENS,
    ContainmentRule,
)
from ..policy.exitcodes import decon_exit_code, exit_code_help
from ..readers.rows import FORMATS, RowOptions
from ..rows.decon.items import EvalIndex, read_items
from ..rows.decon.run import decontaminate
from ..rows.decon.worker import hold_freed_heap
from .edge import ProgressBar, skipped_name, usage_errors
from .options import (
    MARKUP_OPTION,
    accept_damaged_option,
    engine_options,
    id_field_option,
    jobs_option,
    markup_setting,
    records_option,
    row_engine,
    text_field_option,
)
from .output import check_not_scanned, check_output

_DECON_CODES = exit_code_help(
    success="success (contaminated rows are removed or annotated and reported)",
    duplicates="--fail-on-contamination and a training row contains an evaluation item",
    files="--strict and some rows or evaluation items could not be read, or an input is\n"
    "       truncated or damaged (nothing written; --accept-damaged keeps the rows before it)",
)


@click.command(
    "decon",
    epilog=f"""\b
Examples:
  simdup decon train.jsonl.zst --evals test.jsonl --eval-field question \\
      -o clean.jsonl.zst --report contamination.jsonl
  simdup decon train.parquet --evals mmlu.parquet --eval-field question \\
      --eval-field answer --db mmlu.simdup -o clean.parquet
  simdup decon more.jsonl --db mmlu.simdup --report r.jsonl   # items stored once
  simdup decon train.csv --evals passages/ --annotate -o annotated.csv

\b
The rule: items and rows are read as tokens (a CJK character or a word,
folded; whitespace and line breaks ignored). Every k-gram of every item is
indexed (no Bloom filter, no sampling) and every hit is checked token by
token, so matching is exact. A row contains an item when at least
--min-coverage of the item's tokens lie in k-grams the row shares with it
(wherever the item sits in the row); an item shorter than k tokens must
appear whole; one of fewer than --min-tokens tokens is not matched (listed
in the report). An item of at most --max-edit-tokens tokens is also
contained where a stretch of the row is within edit distance of it: its
tokens' edit similarity 1 - edits/tokens at least --min-edit-similarity
(a lightly edited short item keeps too few k-grams), or where a stretch of
the row's whole words is within letter edit distance of it (a typo changes
a letter, not the word): the letters of its words (folded, one space between
two words) similar by at least --min-letter-similarity, at most
--max-letter-edits letters changed, added, dropped or two swapped (0: not).
Kept rows are copied
byte for byte, as dedup writes them.
Rows and items are read as written; --markup markdown or html leaves out
the tokens of their markup (tags, link targets), offsets still in the row.

{_DECON_CODES}""",
)
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--evals",
    "evals",
    multiple=True,
    metavar="PATH",
    help="Evaluation items: JSON Lines, CSV or Parquet files (one item per row and "
    "field), or documents and folders (one item per document). Repeatable.",
)
@click.option(
    "--eval-field",
    "eval_fields",
    multiple=True,
    metavar="FIELD",
    help='A field of the eval rows that is an item (repeatable; default "text").',
)
@click.option(
    "--eval-id-field",
    default=None,
    metavar="FIELD",
    help='The eval rows\' id (default: their "id", else file#row).',
)
@click.option(
    "--eval-records",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="The format of the eval files (auto: rows by name, else documents).",
)
@click.option(
    "--db",
    metavar="DB",
    type=click.Path(dir_okay=False),
    help="Store the tokenised items here (with --evals; replaced atomically), or "
    "read them from here (without --evals).",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="The training rows that contain no item, in the inputs' format.",
)
@click.option(
    "--report",
    metavar="FILE",
    help="Per contaminated item, the rows that contain it, its coverage and the spans "
    "(character offsets in row and item), as JSON Lines.",
)
@click.option(
    "--annotate",
    is_flag=True,
    help="With -o: keep every row and add contaminated (true/false) and contains (the "
    "ids of the items in it).",
)
@accept_damaged_option(
    "A truncated or damaged input: use the rows read before the damage (default: exit 3, "
    "nothing written)."
)
@records_option("The training files' format (auto: by name, then first bytes).", default="auto")
@text_field_option("Dotted path to a training row's text.")
@id_field_option('Dotted path to a training row\'s id (default: its "id", else file#row).')
@MARKUP_OPTION
@click.option(
    "-k",
    "--kgram",
    "k",
    type=click.IntRange(2, 64),
    default=DEFAULT_K,
    show_default=True,
    help="Tokens in a shared k-gram.",
)
@click.option(
    "--min-coverage",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=DEFAULT_MIN_COVERAGE,
    show_default=True,
    help="Share of an item's tokens a row must cover to contain it.",
)
@click.option(
    "--min-tokens",
    type=click.IntRange(1, 1000),
    default=DEFAULT_MIN_TOKENS,
    show_default=True,
    help="Items with fewer tokens are not matched (reported).",
)
@click.option(
    "--max-items",
    type=click.IntRange(1),
    default=DEFAULT_MAX_ITEMS,
    show_default=True,
    help="A k-gram held in more places of the items (a template) gives no hits.",
)
@click.option(
    "--min-edit-similarity",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=DEFAULT_MIN_EDIT_SIMILARITY,
    show_default=True,
    help="Token edit similarity of a short item to a stretch of a row that contains it.",
)
@click.option(
    "--max-edit-tokens",
    type=click.IntRange(0, 1000),
    default=DEFAULT_MAX_EDIT_TOKENS,
    show_default=True,
    help="Items of at most this many tokens are also matched by edit similarity (0: none).",
)
@click.option(
    "--min-letter-similarity",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=DEFAULT_MIN_LETTER_SIMILARITY,
    show_default=True,
    help="Letter edit similarity of a short item to the words of a row that contain it.",
)
@click.option(
    "--max-letter-edits",
    type=click.IntRange(0, 1000),
    default=DEFAULT_MAX_LETTER_EDITS,
    show_default=True,
    help="At most this many letter edits (typos) in a short item matched by letters (0: none).",
)
@click.option(
    "--fail-on-contamination", is_flag=True, help="Exit 1 when a training row contains an item."
)
@click.option("--strict", is_flag=True, help="Exit 3 when rows or items could not be read.")
@jobs_option()
@engine_options(
    engine_help="Where the training rows are read and scanned: this machine, or a Dask cluster "
    '(pip install "simdup[dask]"; Parquet by row groups, plain JSON Lines by byte ranges; the '
    "items sent once to each worker): the same result.",
    scheduler_help="With --engine dask: the scheduler (default $DASK_SCHEDULER_ADDRESS, else a "
    "local cluster with one worker per core).",
)
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@click.pass_context
def decon_command(ctx: click.Context, /, inputs: tuple[str, ...], **kw: Any) -> None:
    """Find the rows of INPUTS (JSON Lines, CSV or TSV, compressed or not, or Parquet) that
    contain evaluation items; write the others to OUTPUT and report which item is in which
    rows."""
    if not kw["evals"] and not kw["db"]:
        raise click.UsageError("give the evaluation items with --evals, or a --db made with them")
    if kw["annotate"] and not kw["output"]:
        raise click.UsageError("--annotate needs -o/--output")
    rule_args = {
        "k": kw["k"],
        "min_coverage": kw["min_coverage"],
        "min_tokens": kw["min_tokens"],
        "max_items": kw["max_items"],
        "min_edit_similarity": kw["min_edit_similarity"],
        "max_edit_tokens": kw["max_edit_tokens"],
        "min_letter_similarity": kw["min_letter_similarity"],
        "max_letter_edits": kw["max_letter_edits"],
    }
    with usage_errors(), contextlib.ExitStack() as stack:
        for option, target in (("--output", kw["output"]), ("--report", kw["report"])):
            if target:  # refused or resolved now, before the work
                check_output(target, inputs, option)
        if kw["db"]:
            check_not_scanned("--db", kw["db"], list(inputs))
        engine = row_engine(kw, stack)  # a usage error, a missing extra: before the work
        rule = ContainmentRule(**rule_args)
        if kw["evals"]:
            found = read_items(
                kw["evals"],
                kw["eval_fields"] or ("text",),
                id_field=kw["eval_id_field"],
                records=kw["eval_records"],
            )
            evals = EvalIndex.build(found, rule, markup=markup_setting(kw))
            if kw["db"]:
                from ..rows.decon.store import save_evals

                save_evals(kw["db"], evals)
        else:
            from ..rows.decon.store import load_evals

            evals = load_evals(kw["db"], rule, markup=markup_setting(kw))
        rows = RowOptions(
            records=kw["records"], text_field=kw["text_field"], id_field=kw["id_field"]
        )
        progress = ProgressBar(not kw["quiet"], "scanning", unit="row")
        stack.callback(progress.close)
        hold_freed_heap()
        result = decontaminate(
            list(inputs),
            evals,
            rows=rows,
            output=kw["output"],
            annotate=kw["annotate"],
            jobs=kw["jobs"],
            engine=engine,
            progress=progress,
            accept_damaged=kw["accept_damaged"],
        )
        if kw["report"]:
            from ..report.decon import write_decon_report

            write_decon_report(kw["report"], result)
    skipped = [*evals.skipped, *result.skipped]
    if not kw["quiet"] or (kw["strict"] and skipped):
        for skip in skipped[:20]:
            click.echo(f"simdup: skipped {skipped_name(skip)}: {skip.reason}", err=True)
        if len(skipped) > 20:
            click.echo(f"simdup: ... and {len(skipped) - 20} more skipped", err=True)
    if not kw["quiet"]:
        unindexed = len(evals.unindexed)
        sys.stderr.write(
            f"{len(evals)} eval items ({unindexed} too short to match), {result.items_found} "
            f"found in training rows; {result.rows_read} rows read: "
            f"{result.rows_contaminated} contaminated"
            + (f" ({result.template_only} holding only text their items share)"
               if result.template_only else "")
            + f", {len(result.skipped)} skipped"
            + (
                f" ({result.written} written" + (", annotated)" if kw["annotate"] else ")")
                if result.written is not None
                else ""
            )
            + "\n"
        )
    ctx.exit(
        decon_exit_code(
            contaminated=result.rows_contaminated,
            skipped=len(skipped),
            fail_on_contamination=kw["fail_on_contamination"],
            strict=kw["strict"],
        )
    )
