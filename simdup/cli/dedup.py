"""``simdup dedup IN... -o OUT``: a dataset of rows without its near-duplicate rows."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from ..errors import ConfigError
from ..options import resolve_options
from ..params import FeatureParams
from ..policy.exitcodes import ExitCode, exit_code_help
from ..readers.rows import RowOptions
from ..records import SkippedFile
from ..report.audit import render_audit
from ..rows.audit import Tally, audit_rows, file_tallies, sample_removals
from ..rows.dedup import KEEP_POLICIES, keep_field
from ..rows.dedup_files import dedup_files
from ..rows.spans.units import DEFAULT_MIN_SPAN_CHARS, UNITS
from ..writers.output import names_own_descriptor, output_file
from .edge import ProgressBar, skipped_name, usage_errors, warning
from .options import (
    MARKUP_OPTION,
    accept_damaged_option,
    against_index_option,
    engine_options,
    id_field_option,
    jobs_option,
    markup_setting,
    records_option,
    row_engine,
    text_field_option,
    threshold_option,
    verify_options,
)
from .output import check_not_scanned, check_output


def _keep_policy(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        keep_field(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc)) from exc
    return value


_DEDUP_CODES = exit_code_help(
    files="--strict and some rows could not be read (each is listed), or an input is\n"
    "       truncated or damaged (nothing written; --accept-damaged keeps the rows before it)",
)


@click.command(
    "dedup",
    epilog=f"""\b
Examples:
  simdup dedup data.jsonl.zst -o clean.jsonl.zst --removed removed.jsonl
  simdup dedup part-*.jsonl.gz -o clean.jsonl.gz --keep longest --text-field body
  simdup dedup new.parquet -o clean.parquet --keep max:score --against seen.simdup
  simdup index add old.jsonl.zst --records auto --id-field id --db seen.simdup
  simdup dedup crawl.jsonl.zst -o clean.jsonl.zst --spans paragraph --removed spans.jsonl
  simdup dedup a.jsonl b.jsonl -o clean.jsonl --audit 50 --source-field meta.source

\b
Kept rows are copied byte for byte; every removed row is a verified
near-duplicate of the row kept for it (--removed lists them with it).
A row that is no document (not JSON, no text field) is not written and
is listed in --removed; --annotate writes it too. A truncated or damaged
input (a cut download) exits 3 and writes nothing unless --accept-damaged.
An input that changes during the run exits 4; no partial output is left.

\b
A row is compared as written (case, width, punctuation and spacing
folded; nothing dropped as markup): --markup markdown or html when the
rows hold Markdown or HTML whose tags and link targets are not content.

\b
--spans removes repeated paragraphs, lines or runs of sentences instead of
rows: each is kept where it first occurs (inputs in the order given, rows
in file order) and cut from every later row, with its separator; a row
with nothing removed is copied byte for byte, and a row left with no text
is not written (--removed lists each cut and each such row).

{_DEDUP_CODES}""",
)
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, metavar="FILE", help="The deduplicated dataset.")
@click.option(
    "--removed",
    metavar="FILE",
    help="List each removed row (JSON Lines), then each row kept unjudged because it has no "
    'text ("judged": false), then each row that is no document and why ("unreadable": true).',
)
@click.option(
    "--annotate",
    is_flag=True,
    help="Keep every row and add cluster_id and duplicate_of to it (keys of a JSON object, "
    'CSV or Parquet columns); a JSON row with no text to judge also gets "judged": false, '
    'a JSON object that is no document "skipped" (why); a line that is not JSON is kept as '
    "stored.",
)
@accept_damaged_option(
    "A truncated or damaged input (a compressed stream cut short, an unreadable Parquet file): "
    "deduplicate the rows read before the damage (default: exit 3, nothing written)."
)
@click.option(
    "--keep",
    default="first",
    show_default=True,
    callback=_keep_policy,
    metavar="|".join([*KEEP_POLICIES, "max:FIELD", "min:FIELD"]),
    help="Which row of a cluster stays: the first, the longest, the shortest, or the one with "
    "the largest (max) or smallest (min) number in FIELD (rows without one last).",
)
@against_index_option(
    "A named index (simdup index add): also remove the rows that are near-duplicates of its "
    "documents."
)
@records_option(
    "The input format (auto: by name, then first bytes); the output has the same.",
    default="auto",
)
@text_field_option("Dotted path to the text.")
@MARKUP_OPTION
@id_field_option('Dotted path to the row\'s id (default: its "id" when it has one, else file#row).')
@threshold_option("As for scan.")
@verify_options
@jobs_option()
@engine_options(
    engine_help="Where the rows are read and fingerprinted (with --spans: cut into spans): this "
    'machine, or a Dask cluster (pip install "simdup[dask]"; Parquet by row groups, plain JSON '
    "Lines by byte ranges): the same result.",
    scheduler_help="With --engine dask: the scheduler (default $DASK_SCHEDULER_ADDRESS, else a "
    "local cluster with one worker per core).",
)
@click.option(
    "--spans",
    type=click.Choice(UNITS),
    default=None,
    help="Remove repeated spans instead of rows: paragraphs (text between blank lines), lines, "
    "or substrings (runs of whole sentences). The first occurrence in dataset order is kept.",
)
@click.option(
    "--min-span-chars",
    type=click.IntRange(1),
    default=DEFAULT_MIN_SPAN_CHARS,
    show_default=True,
    help="With --spans: the shortest span removed, in characters of its comparison form "
    "(case, width, punctuation and whitespace folded; a CJK character counts 3); a run of "
    "shorter units (navigation lines) counts together.",
)
@click.option(
    "--audit",
    type=click.IntRange(1),
    default=None,
    metavar="N",
    help="Write a seeded sample of N removals, each beside the row kept for it, with the "
    "figures and the rule that decided: STEM.jsonl and STEM.html (--audit-to).",
)
@click.option(
    "--audit-seed", type=int, default=0, show_default=True, help="The seed of --audit's sample."
)
@click.option(
    "--audit-to",
    metavar="STEM",
    help="With --audit: where its two files go (default: the output's name without its "
    "extensions, then .audit).",
)
@click.option(
    "--source-field",
    metavar="FIELD",
    help="Dotted path to a field naming each row's source (source, meta.url): the summary "
    "(and the audit page) counts rows read, kept and removed per value.",
)
@click.option("--strict", is_flag=True, help="Exit 3 when some rows could not be read.")
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@click.pass_context
def dedup_command(ctx: click.Context, /, inputs: tuple[str, ...], **kw: Any) -> None:
    """Write the rows of INPUTS (JSON Lines, CSV or TSV, gzip, zstd, bz2 or xz compressed, or
    Parquet) to OUTPUT, in their format, without their near-duplicates, keeping one row of each
    cluster."""
    with usage_errors(), contextlib.ExitStack() as stack:
        check_output(kw["output"], inputs)  # refused or resolved now, before the work
        if kw["removed"]:
            check_output(kw["removed"], inputs, "--removed")
        rows = RowOptions(
            records=kw["records"], text_field=kw["text_field"], id_field=kw["id_field"]
        )
        audit_stem = _audit_stem(ctx, kw, inputs)
        if kw["spans"]:
            _spans_command(ctx, inputs, rows, kw, stack)
            return
        if _given(ctx, "min_span_chars"):
            raise click.UsageError("--min-span-chars needs --spans")
        fields = ("threshold", "verify", "verify_radius", "min_similarity", "min_length_ratio",
                  "min_edit_similarity", "jobs")  # fmt: skip
        markup = markup_setting(kw)
        against = None
        if kw["against"]:
            check_not_scanned("--against", kw["against"], list(inputs))
            from ..store.index import Index

            if kw.get("markup") is None and not kw.get("keep_markup"):
                # No --markup named: the rows are compared as the index's texts were read
                # (an index of files holds them read as Markdown), so that they can be
                # compared at all; naming --markup still refuses an index made otherwise.
                with Index(kw["against"], create=False) as stored:
                    markup = stored.built_markup() or markup
        features = FeatureParams(markup=markup)
        options = resolve_options(None, {"features": features, **{f: kw[f] for f in fields}})
        if kw["against"]:
            against = stack.enter_context(
                Index(kw["against"], create=False, params=options.features)
            )
        engine = row_engine(kw, stack)
        progress = ProgressBar(not kw["quiet"], "fingerprinting", unit="row")
        stack.callback(progress.close)
        run = dedup_files(
            list(inputs),
            kw["output"],
            rows=rows,
            options=options,
            keep=kw["keep"],
            removed=kw["removed"],
            annotate=kw["annotate"],
            against=against,
            engine=engine,
            progress=progress,
            accept_damaged=kw["accept_damaged"],
            stage=progress.stage,
        )
        decisions = run.decisions
        skipped = run.skipped
        files = file_tallies(decisions, inputs)
        sample = sample_removals(decisions, kw["audit"] or 0, kw["audit_seed"])
        sources: list[Tally] = []
        if audit_stem is not None or kw["source_field"]:
            progress.stage("auditing")
            found = audit_rows(decisions, inputs, rows, sample, kw["source_field"])
            sources = found.sources
            if audit_stem is not None:
                _write_audit(audit_stem, found.records, files, sources)
    _echo_skipped(skipped, kw)
    if not kw["quiet"]:
        sys.stderr.write(
            f"{len(decisions) + len(skipped)} rows read: {len(decisions) - decisions.removed} "
            f"kept, {decisions.removed} removed, {len(skipped)} skipped"
            + (f", {decisions.too_short} too short to judge (kept)" if decisions.too_short else "")
            + (f" ({run.written} written, annotated)" if kw["annotate"] else "")
            + "\n"
        )
        _echo_tallies(files, sources, kw["source_field"])
    ctx.exit(ExitCode.FILES_SKIPPED if kw["strict"] and skipped else ExitCode.OK)


def _audit_stem(ctx: click.Context, kw: dict[str, Any], inputs: Sequence[str]) -> str | None:
    """Where --audit writes (STEM.jsonl, STEM.html), both checked now; None without it."""
    for name in ("audit_seed", "audit_to"):
        if _given(ctx, name) and not kw["audit"]:
            raise click.UsageError(f"--{name.replace('_', '-')} needs --audit")
    if kw["spans"] and (kw["audit"] or kw["source_field"]):
        raise click.UsageError("--audit and --source-field are for row deduplication, not --spans")
    if not kw["audit"]:
        return None
    stem = kw["audit_to"]
    if not stem:
        if kw["output"] == "-" or names_own_descriptor(kw["output"]):
            raise click.UsageError("--audit with output to a stream needs --audit-to")
        folder, name = os.path.split(kw["output"])
        stem = os.path.join(folder, name.split(".")[0] + ".audit")
    for suffix in (".jsonl", ".html"):
        check_output(stem + suffix, inputs, "--audit-to")
    return str(stem)


def _write_audit(stem: str, records: list[dict[str, Any]], files: list[Tally],
                 sources: list[Tally]) -> None:  # fmt: skip
    """The audit's JSON Lines and its page."""
    with output_file(stem + ".jsonl", "--audit-to") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
    page = io.StringIO()
    render_audit(records, files, sources, page)
    with output_file(stem + ".html", "--audit-to") as out:
        out.write(page.getvalue().encode("utf-8"))


def _echo_tallies(files: list[Tally], sources: list[Tally], source_field: str | None) -> None:
    """Rows read, kept and removed per input and per source on stderr, then a warning for
    each that lost more than half of its rows (a warning, not a failure: exit status kept)."""
    named = [(f"  {t.name}", t) for t in files]
    named += [(f"  {source_field}={t.name or '(none)'}", t) for t in sources]
    for label, t in named:
        sys.stderr.write(f"{label}: {t.read} read, {t.kept} kept, {t.removed} removed\n")
    for label, t in named:
        if t.loses_most:
            warning(f"{label.strip()} lost {t.removed} of its {t.read} rows "
                    f"({t.removed / t.read:.0%}) as near-duplicates")  # fmt: skip


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


# Options of row deduplication that --spans does not use: refused, not silently ignored.
_ROW_ONLY = ("keep", "against", "threshold", "verify", "verify_radius", "min_similarity",
             "min_length_ratio", "min_edit_similarity")  # fmt: skip


def _spans_command(
    ctx: click.Context,
    inputs: tuple[str, ...],
    rows: RowOptions,
    kw: dict[str, Any],
    stack: contextlib.ExitStack,
) -> None:
    """``dedup --spans``: repeated spans removed, rows kept."""
    from ..rows.spans import dedup_spans

    for name in _ROW_ONLY:
        if name in kw and _given(ctx, name):
            flag = "--" + name.replace("_", "-")
            raise click.UsageError(f"{flag} is for row deduplication; --spans does not use it "
                                   "(run dedup without --spans first to remove duplicate rows)")
    engine = row_engine(kw, stack)
    progress = ProgressBar(not kw["quiet"], "reading spans", unit="row")
    stack.callback(progress.close)
    result = dedup_spans(
        list(inputs),
        kw["output"],
        unit=kw["spans"],
        min_chars=kw["min_span_chars"],
        markup=markup_setting(kw),
        rows=rows,
        removed=kw["removed"],
        annotate=kw["annotate"],
        jobs=kw["jobs"],
        engine=engine,
        progress=progress,
        accept_damaged=kw["accept_damaged"],
        stage=progress.stage,
    )
    progress.close()
    skipped = result.skipped
    _echo_skipped(skipped, kw)
    if not kw["quiet"]:
        sys.stderr.write(
            f"{result.rows_read} rows read: {result.spans_removed} repeated "
            f"{kw['spans']} spans removed from {result.rows_changed} rows "
            f"({result.chars_removed} characters), {result.rows_emptied} rows left empty "
            f"({'kept, annotated' if kw['annotate'] else 'not written'}), "
            f"{len(skipped)} skipped; {result.written} rows written\n"
        )
    ctx.exit(ExitCode.FILES_SKIPPED if kw["strict"] and skipped else ExitCode.OK)


def _echo_skipped(skipped: Sequence[SkippedFile], kw: dict[str, Any]) -> None:
    """The first 20 skipped rows and why, on stderr (``--quiet`` keeps them when ``--strict``
    makes them the reason for the exit code)."""
    if not kw["quiet"] or (kw["strict"] and skipped):
        for skip in skipped[:20]:
            click.echo(f"simdup: skipped {skipped_name(skip)}: {skip.reason}", err=True)
        if len(skipped) > 20:
            click.echo(f"simdup: ... and {len(skipped) - 20} more skipped rows", err=True)
