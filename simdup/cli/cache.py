"""``simdup cache info|clear``: the scan cache."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from ..names import display_path
from ..policy.exitcodes import ExitCode
from ..report.store import render_cache_info
from ..store.cache import DEFAULT_MAX_BYTES, ScanCache, default_cache_path
from ..writers.output import OutputTarget
from .edge import usage_errors, warning
from .options import PLAIN_CODES, ByteSize


@click.group("cache", epilog=PLAIN_CODES)
def cache_group() -> None:
    """The scan cache: what earlier scans learned of their files, reused by later scans.

    \b
    Examples:
      simdup cache info
      simdup cache clear
      simdup scan docs --no-cache          neither read nor write it
    """


def _cache_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--cache",
        "cache_path",
        metavar="PATH",
        type=click.Path(file_okay=False),
        help="The cache folder (default: the one scan uses).",
    )(f)


@cache_group.command("info", epilog=PLAIN_CODES)
@_cache_option
@click.option(
    "--cache-size",
    type=ByteSize(),
    default=DEFAULT_MAX_BYTES,
    show_default="2G",
    help="The bound to report (what scan --cache-size keeps the folder to).",
)
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def cache_info_command(ctx: click.Context, /, **kw: Any) -> None:
    """Where the cache is, the scans and files it remembers, its size on disk and its bound."""
    path = kw["cache_path"] or default_cache_path()
    with usage_errors():
        target = OutputTarget.resolve(None)
        info = None
        if os.path.exists(path):
            with ScanCache(kw["cache_path"], max_bytes=kw["cache_size"], warn=warning) as cache:
                info = cache.info()
        with target.open() as stream:
            render_cache_info(path, info, kw["cache_size"], kw["fmt"], stream)
    ctx.exit(ExitCode.OK)


@cache_group.command("clear", epilog=PLAIN_CODES)
@_cache_option
@click.pass_context
def cache_clear_command(ctx: click.Context, /, **kw: Any) -> None:
    """Remove everything the cache remembers."""
    path = kw["cache_path"] or default_cache_path()
    if os.path.exists(path):
        with usage_errors(), ScanCache(kw["cache_path"], warn=warning) as cache:
            cache.clear()
    click.echo(f"simdup: cache {display_path(path)} is empty", err=True)
    ctx.exit(ExitCode.OK)

