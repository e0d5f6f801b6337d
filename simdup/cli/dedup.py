"""``simdup dedup IN... -o OUT``: a dataset of rows without its near-duplicate rows."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..datasets import dedup_files
from ..deduplication import KEEP_POLICIES
from ..exitcodes import ExitCode, exit_code_help
from ..names import display_path
from ..options import resolve_options
from ..readers.rows import FORMATS, RowOptions
from .edge import usage_errors
from .options import verify_options
from .output import check_not_scanned

_DEDUP_CODES = exit_code_help(
    files="--strict and some rows could not be read (each is listed)",
)


@click.command(
    "dedup",
    epilog=f"""\b
Examples:
  simdup dedup data.jsonl.zst -o clean.jsonl.zst --removed removed.jsonl
  simdup dedup part-*.jsonl.gz -o clean.jsonl.gz --keep longest --text-field body

\b
Kept rows are copied byte for byte; every removed row is a verified
near-duplicate of the row kept for it (--removed lists them with it).
An input that changes during the run exits 4; no partial output is left.

{_DEDUP_CODES}""",
)
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, metavar="FILE", help="The deduplicated dataset.")
@click.option("--removed", metavar="FILE", help="List each removed row (JSON Lines).")
@click.option(
    "--annotate",
    is_flag=True,
    help="Keep every row and add cluster_id and duplicate_of to it (JSON Lines).",
)
@click.option(
    "--keep",
    type=click.Choice(KEEP_POLICIES),
    default="first",
    show_default=True,
    help="Which row of a cluster stays: the first, the longest or the shortest.",
)
@click.option(
    "--records",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="The input format (auto: by name, then first bytes); the output has the same.",
)
@click.option("--text-field", default="text", show_default=True, help="Dotted path to the text.")
@click.option("--id-field", default=None, help="Dotted path to the row's id (else file#row).")
@click.option(
    "-k",
    "--threshold",
    type=click.IntRange(0, 64),
    default=3,
    show_default=True,
    help="As for scan.",
)
@verify_options
@click.option("--strict", is_flag=True, help="Exit 3 when some rows could not be read.")
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@click.pass_context
def dedup_command(ctx: click.Context, /, inputs: tuple[str, ...], **kw: Any) -> None:
    """Write the rows of INPUTS (JSON Lines, CSV or TSV, gzip, zstd, bz2 or xz compressed, or
    Parquet) to OUTPUT, in their format, without their near-duplicates, keeping one row of each
    cluster."""
    with usage_errors():
        for target in (kw["output"], kw["removed"]):
            if target:
                check_not_scanned("--output", target, list(inputs))
        rows = RowOptions(
            records=kw["records"], text_field=kw["text_field"], id_field=kw["id_field"]
        )
        fields = ("threshold", "verify", "verify_radius", "min_similarity", "min_length_ratio")
        run = dedup_files(
            list(inputs),
            kw["output"],
            rows=rows,
            options=resolve_options(None, {f: kw[f] for f in fields}),
            keep=kw["keep"],
            removed=kw["removed"],
            annotate=kw["annotate"],
        )
    decisions = run.decisions
    skipped = run.skipped
    if not kw["quiet"] or (kw["strict"] and skipped):
        for skip in skipped[:20]:
            click.echo(f"simdup: skipped {display_path(skip.path)}: {skip.reason}", err=True)
        if len(skipped) > 20:
            click.echo(f"simdup: ... and {len(skipped) - 20} more skipped rows", err=True)
    if not kw["quiet"]:
        sys.stderr.write(
            f"{len(decisions) + len(skipped)} rows read: {len(decisions) - decisions.removed} "
            f"kept, {decisions.removed} removed, {len(skipped)} skipped"
            + (f" ({run.written} written, annotated)" if kw["annotate"] else "")
            + "\n"
        )
    ctx.exit(ExitCode.FILES_SKIPPED if kw["strict"] and skipped else ExitCode.OK)
