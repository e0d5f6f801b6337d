"""``simdup config PATHS``: the settings a scan of PATHS would use, and where each comes from."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..policy.exitcodes import EXIT_CODE_HELP
from ..report.config import render_settings
from .options import scan_settings
from .scan import scan_command


@click.command("config", epilog=EXIT_CODE_HELP)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "config_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format of this listing.",
)
@click.pass_context
def config_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Show the settings simdup scan PATHS would use, and where each comes from.

    Settings come from the command line, else from [tool.simdup] in the nearest
    pyproject.toml or a .simdup.toml (searched upwards from the first PATH, up to the
    repository root), else the defaults. Accepts the options of scan (except -f/--format),
    so that their effect can be seen.

    \b
    Examples:
      simdup config docs
      simdup config docs -k 4 --format json
    """
    config_format = kw.pop("config_format")
    # The defaults of scan, with the options given to this command on top.
    defaults = scan_command.make_context("scan", [], parent=ctx).params
    settings = scan_settings(ctx, scan_command, paths, {**defaults, **kw})
    render_settings(settings, config_format, sys.stdout)


# config takes scan's options, but -f/--format there is the listing's own format.
config_command.params.extend(
    p for p in scan_command.params if isinstance(p, click.Option) and p.name != "fmt"
)

