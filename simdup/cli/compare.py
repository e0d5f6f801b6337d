"""``simdup compare A B``: how close two documents are, and why."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..comparing import compare
from ..passages import compare_passages
from ..policy.exitcodes import ExitCode, exit_code_help
from ..report.json import render_comparison_json
from ..report.passages import render_passages_text
from ..report.text import render_comparison_text
from ..writers.output import OutputTarget
from .edge import usage_errors
from .options import (
    feature_options,
    format_option,
    passage_options,
    passage_settings,
    scan_options,
    threshold_option,
    verify_options,
)

_COMPARE_CODES = exit_code_help(files="A or B could not be read, decoded or fingerprinted")


@click.command(
    "compare",
    epilog=f"""\b
Examples:
  simdup compare draft.md final.md
  simdup compare a.txt b.txt --format json | jq .distance
  simdup compare draft.md final.md --explain      the changed passages too
  pbpaste | simdup compare - final.md             one side from standard input

{_COMPARE_CODES}""",
)
@click.argument("a", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("b", type=click.Path(dir_okay=False, allow_dash=True))
@threshold_option(
    "As for scan: with --no-verify the verdict is distance <= K; with verification (the "
    "default) a pair within max(K, --verify-radius) is verified by length ratio and word-set "
    "Jaccard."
)
@verify_options
@format_option(show_default=True)
@click.option(
    "--top",
    type=click.IntRange(0, 1000),
    default=10,
    show_default=True,
    help="How many shared and differing terms to list.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also show the changed passages of the two texts, with line numbers; a line changed "
    "in place is shown once, what was removed marked [-...-] and what was added {+...+}.",
)
@passage_options
@feature_options
@click.pass_context
def compare_command(ctx: click.Context, /, a: str, b: str, **kw: Any) -> None:
    """How close two documents are, and why.

    Reports the Hamming distance of their SimHash fingerprints, SimHash similarity (1 - d/64),
    TF-IDF cosine (jieba's IDF table), Jaccard of the word sets, the verdict and the rule that
    decided it, and the weighted terms they share (pulling the fingerprints together) and that
    differ most (pulling them apart). A or B may be '-' for standard input.
    """
    if a == "-" and b == "-":
        raise click.UsageError("only one of A and B can be '-' (standard input)")
    stdin = None
    if "-" in (a, b):
        if sys.stdin is None:
            raise click.UsageError("cannot read '-': standard input is closed")
        stdin = sys.stdin.buffer.read(kw["max_size"] + 1)
        if len(stdin) > kw["max_size"]:
            raise click.UsageError(f"standard input is larger than --max-size ({kw['max_size']})")
    with usage_errors():
        options = scan_options(kw)
        target = OutputTarget.resolve(None)
        comparison = compare(a, b, options, top=kw["top"], explain=kw["explain"], stdin=stdin)
        matching = None
        if kw["passages"]:
            matching = compare_passages(a, b, options, passage_settings(kw), stdin=stdin)
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_comparison_json(comparison, stream, passages=matching)
            else:
                render_comparison_text(comparison, stream)
                if matching is not None:
                    stream.write("\n")
                    render_passages_text(matching, (), stream)
    ctx.exit(ExitCode.OK)

