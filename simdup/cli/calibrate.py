"""``simdup calibrate PATHS``: where a corpus separates near-duplicates from the rest."""

from __future__ import annotations

from typing import Any

import click

from ..algorithms.index import MAX_THRESHOLD
from ..policy.exitcodes import ExitCode
from ..writers.output import OutputTarget
from .edge import ProgressBar, usage_errors
from .options import PLAIN_CODES, feature_options, format_option, jobs_option, scan_options


@click.command(
    "calibrate",
    epilog=f"""\b
Examples:
  simdup calibrate ./docs
  simdup calibrate ./docs --radius 20 --format json

{PLAIN_CODES}""",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--radius",
    type=click.IntRange(0, MAX_THRESHOLD),
    default=16,
    show_default=True,
    help="Largest Hamming distance to histogram.",
)
@format_option()
@jobs_option("Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@feature_options
@click.pass_context
def calibrate_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Show where a corpus separates near-duplicates from the rest.

    Histograms of each document's nearest-neighbour Hamming distance and, for every pair within
    --radius, its word-set Jaccard and whether it passes the length check, to choose
    --threshold, --verify-radius and --min-similarity for a corpus.
    """
    from ..calibration import calibrate
    from ..report.calibration import render_calibration_json, render_calibration_text

    progress = ProgressBar(not kw["quiet"], "fingerprinting")
    with usage_errors():
        options = scan_options(kw)
        target = OutputTarget.resolve(None)
        try:
            result = calibrate(paths, options, radius=kw["radius"], progress=progress)
        finally:
            progress.close()
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_calibration_json(result, stream)
            else:
                render_calibration_text(result, stream)
    ctx.exit(ExitCode.OK)

