"""``simdup cache info|clear``: the scan cache and the sentence cache."""

from __future__ import annotations

import os
from typing import Any

import click

from ..names import display_path
from ..policy.exitcodes import ExitCode
from ..report.store import render_cache_info
from ..store.cache import ScanCache, cache_root, default_cache_path
from ..store.sentence_vectors import cache_file, clear_sentence_cache, sentence_cache_info
from ..writers.output import OutputTarget
from .edge import usage_errors, warning
from .options import PLAIN_CODES, cache_path_option, cache_size_option, format_option


@click.group("cache", epilog=PLAIN_CODES)
def cache_group() -> None:
    """simdup's caches: the scan cache (what earlier scans learned of their files, reused by
    later scans) and the sentence cache (the sentence embeddings of check --semantic's sources).

    \b
    Examples:
      simdup cache info
      simdup cache clear                   both caches
      simdup cache clear --sentences       the sentence cache only
      simdup scan docs --no-cache          neither read nor write the scan cache
    """


_CACHE_OPTION = cache_path_option("The cache folder (default: the one scan uses).")


@cache_group.command(
    "info", epilog=PLAIN_CODES, short_help="What each cache holds, its size and its bound."
)
@_CACHE_OPTION
@cache_size_option("The bound to report (what scan --cache-size keeps the folder to).")
@format_option()
@click.pass_context
def cache_info_command(ctx: click.Context, /, **kw: Any) -> None:
    """Where the scan cache is, the scans and files it remembers, its size on disk and its
    bound; then the sentence cache (in simdup's cache folder, whatever --cache says): its file,
    the sentences and sources it keeps, the models that made them and its size on disk."""
    path = kw["cache_path"] or default_cache_path()
    with usage_errors():
        target = OutputTarget.resolve(None)
        info = None
        if os.path.exists(path):
            with ScanCache(kw["cache_path"], max_bytes=kw["cache_size"], warn=warning) as cache:
                info = cache.info()
        sentences = sentence_cache_info(cache_root())
        with target.open() as stream:
            render_cache_info(path, info, kw["cache_size"], kw["fmt"], stream, sentences)
    ctx.exit(ExitCode.OK)


@cache_group.command(
    "clear", epilog=PLAIN_CODES, short_help="Remove what the caches remember."
)
@_CACHE_OPTION
@click.option("--scans", is_flag=True, help="Clear the scan cache (and its passages) only.")
@click.option("--sentences", is_flag=True, help="Clear the sentence cache only.")
@click.pass_context
def cache_clear_command(ctx: click.Context, /, **kw: Any) -> None:
    """Remove everything the caches remember: the scan cache's scans, journals and passages,
    and the sentence cache (its SQLite file, removed whole). --scans or --sentences clears
    that one only. A scan or a check running meanwhile is not disturbed: it keeps what it
    has open, and the caches fill again from the next run."""
    both = not kw["scans"] and not kw["sentences"]
    if both or kw["scans"]:
        path = kw["cache_path"] or default_cache_path()
        if os.path.exists(path):
            with usage_errors(), ScanCache(kw["cache_path"], warn=warning) as cache:
                cache.clear()
        click.echo(f"simdup: scan cache {display_path(path)} is empty", err=True)
    if both or kw["sentences"]:
        with usage_errors():
            freed = clear_sentence_cache(cache_root())
        where = display_path(cache_file(cache_root()))
        click.echo(f"simdup: sentence cache {where} removed ({freed:,} bytes)" if freed
                   else f"simdup: sentence cache {where} is empty", err=True)  # fmt: skip
    ctx.exit(ExitCode.OK)
