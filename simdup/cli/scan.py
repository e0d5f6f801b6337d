"""``simdup scan``: near-duplicates under PATHS, with the scan cache, a baseline, passages, stored
fingerprints or a Dask cluster, rendered in any format; the exit status from the one policy."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import click

from ..algorithms.clustering import METHODS as CLUSTER_METHODS
from ..engines.backend import LOCAL, Backend
from ..errors import ConfigError
from ..join import Reference
from ..names import display_path
from ..options import METHODS_CANDIDATES, ScanOptions
from ..passages.options import PassageOptions
from ..policy.baseline import Baseline, write_baseline
from ..policy.exitcodes import EXIT_CODE_HELP, ExitCode
from ..policy.outcome import marked, scan_outcome
from ..readers import read_document
from ..readers.discovery import read_path_list
from ..records import ScanResult
from ..report import FORMATS, render
from ..report.baseline import render_baseline_diff
from ..report.text import plural, render_repair_summary, render_skip_summary
from ..scanning import scan
from ..scanning.cache import CachedBackend
from ..store.cache import ScanCache, open_cache
from ..writers.output import OutputTarget
from .edge import ProgressBar, os_error, silence_stdout, stop_message, usage_errors
from .options import (
    against_index_option,
    cache_path_option,
    cache_size_option,
    configured,
    engine_options,
    feature_options,
    format_option,
    jobs_option,
    no_cache_option,
    passage_options,
    passage_settings,
    records_options,
    row_options,
    scan_options,
    threshold_option,
    verify_options,
)
from .output import check_not_scanned, check_output

EPILOG_SCAN = f"""\b
Examples:
  simdup scan ./docs                       clusters of near-duplicates
  simdup scan ./docs --threshold 2 --format json > report.json
  git ls-files -z '*.md' | simdup scan --files-from - -0 --fail-on-duplicates
  simdup scan a/ b/ --include '*.txt' --exclude 'build/*' --format csv -o pairs.csv

{EXIT_CODE_HELP}"""


@click.command("scan", epilog=EPILOG_SCAN)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@threshold_option(
    "SimHash Hamming threshold: with --no-verify, pairs within it are reported as they are; "
    "with verification, candidates are searched within max(it, --verify-radius)."
)
@format_option(FORMATS, show_default=True, help="Output format.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the report to FILE (atomically) instead of stdout.",
)
@click.option("--fail-on-duplicates", is_flag=True, help="Exit 1 when near-duplicates are found.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="A baseline file (--write-baseline), or an earlier JSON or JSON Lines report, whose "
    "pairs are accepted: with --fail-on-duplicates only pairs not in it fail. Pairs match by "
    "content, by path or, for edited files, by fingerprint (docs/baseline.md).",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False),
    help="Also write this run's pairs to FILE (atomically, outside the scanned folders) as "
    "accepted duplicates, for --baseline.",
)
@click.option("--strict", is_flag=True, help="Exit 3 when some files could not be read or decoded.")
@click.option(
    "--files-from",
    type=click.Path(allow_dash=True),
    help="Read more paths from FILE, one per line ('-' for stdin).",
)
@click.option("-0", "--null", is_flag=True, help="--files-from items are NUL-separated.")
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Only scan files matching GLOB (repeatable)."
)
@click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Skip files and folders matching GLOB."
)
@click.option("--hidden", is_flag=True, help="Also scan hidden files and VCS folders.")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@click.option(
    "--ignore/--no-ignore",
    "ignore_files",
    default=True,
    show_default=True,
    help="Leave out what .simdupignore files, and inside a git work tree .gitignore files and "
    ".git/info/exclude, ignore (files named as PATHS are always scanned).",
)
@verify_options
@click.option(
    "--cluster",
    "cluster_method",
    type=click.Choice(CLUSTER_METHODS),
    default="centers",
    show_default=True,
    help="centers: every member is a near-duplicate of its representative; "
    "components: connected components (may chain).",
)
@click.option(
    "--method",
    type=click.Choice(METHODS_CANDIDATES),
    default="auto",
    show_default=True,
    help="Candidate generation: SimHash block index within --verify-radius, or MinHash LSH "
    "(128 permutations, bands chosen from --min-similarity); auto: simhash up to 50,000 "
    "files, minhash above (its cost grows linearly).",
)
@jobs_option()
@cache_path_option(
    "The scan cache folder (default: scans in the user's cache folder, or in "
    "$SIMDUP_CACHE_DIR). Unchanged files are not read again; an unchanged tree is not joined "
    "again."
)
@no_cache_option("Neither read nor write the scan cache.")
@cache_size_option(
    "Most the scan cache folder may hold; the least recently used scans are dropped."
)
@against_index_option(
    "A named index (simdup index add): report only pairs between the scanned files and its "
    "documents, and among the scanned files."
)
@engine_options(
    engine_help="Where the work runs: this machine, or a Dask cluster (pip install "
    '"simdup[dask]"); the same result. PATHS may then also be fsspec URLs (s3://, gs://, '
    "hdfs://).",
    scheduler_help="With --engine dask: the scheduler (tcp://host:8786; default "
    "$DASK_SCHEDULER_ADDRESS, else a local cluster with one worker per core).",
)
@click.option(
    "--write-fingerprints",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Also store the fingerprint records as Parquet in DIR, for --fingerprints.",
)
@click.option(
    "--fingerprints",
    metavar="DIR",
    type=click.Path(file_okay=False, exists=True),
    help="Scan the records stored by --write-fingerprints instead of PATHS (same algorithm "
    "version and fingerprint options, else refused).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no skip summary on stderr.")
@passage_options
@click.option(
    "--within",
    is_flag=True,
    help="With --passages: also passages repeated inside one document.",
)
@click.option(
    "--max-passage-repeats",
    type=click.IntRange(0, None),
    default=PassageOptions().max_repeats,
    show_default=True,
    help="With --passages: a passage found in more documents than this is reported once, as "
    "a repeated passage with its count and places, not as pairs (0: always as pairs).",
)
@records_options
@feature_options
@click.pass_context
def scan_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Find clusters of near-duplicate documents under PATHS (files or folders).

    Options can also be set in [tool.simdup] of pyproject.toml or in .simdup.toml (see
    simdup config); the command line wins.
    """
    kw = configured(ctx, paths, kw)
    all_paths = _scanned_paths(kw, paths)
    with usage_errors():
        target = check_output(kw["output"], all_paths)  # fail now, not after the scan
        baseline_target = (
            check_output(kw["write_baseline"], all_paths, "--write-baseline")
            if kw["write_baseline"]
            else None
        )
        baseline = Baseline.load(kw["baseline"]) if kw["baseline"] else None
    progress = ProgressBar(not kw["quiet"], "fingerprinting")
    with usage_errors(), contextlib.ExitStack() as stack:
        options = scan_options(kw)
        reference = None
        if kw["against"]:
            check_not_scanned("--against", kw["against"], all_paths)
            from ..store.index import Index

            reference = stack.enter_context(
                Index(kw["against"], create=False, params=options.features)
            )
        try:
            backend = _scan_backend(kw, stack, all_paths)
            result = _scanned(kw, all_paths, options, backend, reference, progress, stack)
        except KeyboardInterrupt as exc:
            progress.close()
            message, code = stop_message(exc)
            click.echo(f"simdup: {message}; no report written", err=True)
            ctx.exit(code)
        finally:
            progress.close()
    if kw["write_fingerprints"]:
        _write_fingerprints(ctx, kw["write_fingerprints"], result, options)
    outcome = scan_outcome(result, fail_on_duplicates=kw["fail_on_duplicates"],
                           strict=kw["strict"], baseline=baseline, options=options)  # fmt: skip
    _write_report(ctx, kw, marked(result, outcome), target, options)
    if baseline_target is not None:
        _write_baseline(ctx, kw, result, baseline_target, options)
    if not kw["quiet"]:
        render_repair_summary(result, sys.stderr)
        render_skip_summary(result, sys.stderr)
    if kw["baseline"]:
        render_baseline_diff(outcome, result, kw["baseline"], kw["quiet"], sys.stderr)
    ctx.exit(outcome.code)


def _scanned_paths(kw: dict[str, Any], paths: tuple[str, ...]) -> list[str]:
    """PATHS and those of --files-from, checked against the other options (and the markup of
    stored fingerprints, --fingerprints, set)."""
    if kw["fingerprints"] and kw["markup"] is None and not kw["keep_markup"]:
        # Stored fingerprints of rows were made as written, of files without their Markdown.
        from ..distributed.fingerprints import stored_markup

        kw["markup"] = stored_markup(kw["fingerprints"])
    all_paths = list(paths)
    if kw["files_from"]:
        all_paths += _read_files_from(kw["files_from"], kw["null"])
    if not all_paths and not kw["fingerprints"]:
        raise click.UsageError("no PATHS given (and no --files-from)")
    _check_distributed(kw, all_paths)
    return all_paths


def _write_report(
    ctx: click.Context, kw: dict[str, Any], result: ScanResult, target: OutputTarget,
    options: ScanOptions,
) -> None:  # fmt: skip
    """The report of ``result`` (the pairs a baseline accepts marked: SARIF's baselineState,
    the text's clusters) written to ``target``; a failed write exits with ERROR."""
    try:
        with target.open() as stream:
            read = functools.partial(read_document, max_size=options.discovery.max_size)
            render(result, kw["fmt"], stream, read=read)
    except BrokenPipeError:
        # The reader went away (`| head`). The scan itself is complete, so the exit status
        # still says what it found (a CI pipe must not turn duplicates into success).
        if target.is_stdout:
            silence_stdout()
    except OSError as exc:
        where = "standard output" if target.is_stdout else kw["output"]
        click.echo(f"simdup: cannot write report: {os_error(exc, where)}", err=True)
        ctx.exit(ExitCode.ERROR)


def _write_baseline(
    ctx: click.Context, kw: dict[str, Any], result: ScanResult, target: OutputTarget,
    options: ScanOptions,
) -> None:  # fmt: skip
    """--write-baseline: every pair of ``result`` accepted; a failed write exits with ERROR."""
    try:
        with target.open() as stream:
            write_baseline(result, kw["write_baseline"], options.features, stream)
    except OSError as exc:
        message = os_error(exc, kw["write_baseline"])
        click.echo(f"simdup: cannot write baseline: {message}", err=True)
        ctx.exit(ExitCode.ERROR)
    if not kw["quiet"]:
        accepted = plural(len(result.pairs), "pair")
        where = display_path(kw["write_baseline"])
        click.echo(f"simdup: baseline written to {where}: {accepted} accepted", err=True)


def _read_files_from(source: str, null: bool) -> list[str]:
    if source == "-":
        try:
            if sys.stdin is None:  # started with file descriptor 0 closed (`<&-`)
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            data = sys.stdin.buffer.read()
        except (OSError, ValueError) as exc:
            # ValueError: sys.stdin was closed; EBADF: file descriptor 0 is not open.
            reason = "standard input is closed"
            if isinstance(exc, OSError) and exc.errno != errno.EBADF:
                reason = exc.strerror or str(exc)
            raise click.UsageError(f"cannot read --files-from -: {reason}") from exc
    else:
        try:
            with open(source, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise click.BadParameter(
                f"{source}: {exc.strerror}", param_hint="--files-from"
            ) from exc
    try:
        return read_path_list(data, null)
    except ConfigError as exc:
        hint = "--files-from"
        raise click.BadParameter(f"{display_path(source)}: {exc}", param_hint=hint) from exc


def _scan_cache(kw: dict[str, Any], roots: Sequence[str]) -> ScanCache | None:
    """The scan cache, unless --no-cache, or the files come from a Dask cluster or a store
    of fingerprints (whose joins and records it does not hold)."""
    if kw["no_cache"] or kw["fingerprints"] or kw["engine"] != "local":
        return None

    def warn(message: str) -> None:
        if not kw["quiet"]:
            click.echo(f"simdup: warning: {message}", err=True)

    return open_cache(roots, kw["cache_path"], max_bytes=kw["cache_size"], warn=warn)


def _check_distributed(kw: dict[str, Any], paths: Sequence[str]) -> None:
    """Usage errors of --engine dask, --fingerprints and --write-fingerprints."""
    if kw["fingerprints"] and paths:
        raise click.UsageError("--fingerprints replaces PATHS: give one or the other")
    if kw["passages"] and (kw["engine"] == "dask" or kw["fingerprints"]):
        raise click.UsageError("--passages runs with --engine local only")
    if kw["scheduler"] and kw["engine"] != "dask":
        raise click.UsageError("--scheduler needs --engine dask")
    if kw["records"]:
        for flag, name in (("passages", "--passages"), ("fingerprints", "--fingerprints")):
            if kw[flag]:
                raise click.UsageError(f"--records does not go with {name}")
    if kw["write_fingerprints"]:
        folder = kw["write_fingerprints"]
        check_not_scanned("--write-fingerprints", folder, paths)
        if os.path.lexists(folder) and not os.path.isdir(folder):
            # checked now, not after the scan: a device or a file is never replaced by a folder
            raise click.UsageError(
                f"--write-fingerprints {display_path(folder)}: not a folder (it names the folder "
                "of Parquet files to write)"
            )


def _scan_backend(
    kw: dict[str, Any], stack: contextlib.ExitStack, roots: Sequence[str]
) -> Backend:
    """The one backend of the run: stored fingerprints (--fingerprints) and/or a Dask cluster
    (--engine dask, closed with ``stack``; its row engine for --records), else this
    machine's; the scan cache around it unless --no-cache or --records (the cache knows
    files, not rows)."""
    from ..errors import MissingExtraError

    backend = LOCAL
    try:
        if kw["fingerprints"]:
            from ..distributed.fingerprints import StoredFingerprints

            store = StoredFingerprints(kw["fingerprints"])
            backend = Backend(
                store.find, lambda options: store.engine(options.features), local=False
            )
        if kw["engine"] == "dask":
            from ..distributed.session import DaskSession

            session = DaskSession(kw["scheduler"])
            stack.callback(session.close)
            if not kw["quiet"] and session.dashboard:
                click.echo(f"simdup: Dask dashboard: {session.dashboard}", err=True)
            if kw["fingerprints"]:  # the stored fingerprints, joined on the cluster
                backend = replace(backend, join=session.join)
            else:
                backend = Backend(session.find, session.engine, session.join, local=False,
                                  row_engine=session.row_engine())  # fmt: skip
    except MissingExtraError as exc:
        raise click.UsageError(str(exc)) from exc
    cache = _scan_cache(kw, roots) if not kw["records"] else None
    if cache is None:
        return backend
    stack.callback(cache.close)
    return CachedBackend.around(backend, cache)


def _scanned(
    kw: dict[str, Any], paths: list[str], options: ScanOptions, backend: Backend,
    reference: Reference | None, progress: ProgressBar, stack: contextlib.ExitStack,
) -> ScanResult:  # fmt: skip
    """The scan the options ask for: of rows (--records), with passages (--passages), or of
    documents. Stored fingerprints hold the MinHash signatures a scan otherwise drops
    (--write-fingerprints)."""
    keep_signatures = bool(kw["write_fingerprints"])
    if kw["records"]:
        from ..rows.scan_records import scan_rows

        rows_progress = ProgressBar(not kw["quiet"], "fingerprinting", unit="row")
        stack.callback(rows_progress.close)
        return scan_rows(paths, row_options(kw), options, reference=reference,
                         keep_signatures=keep_signatures, backend=backend,
                         progress=rows_progress)  # fmt: skip
    if kw["passages"]:
        from ..passages import scan_passages

        return scan_passages(paths, options, passage_settings(kw, scan=True), backend=backend,
                             progress=progress, reference=reference)  # fmt: skip
    return scan(paths, options, backend=backend, progress=progress, reference=reference,
                keep_signatures=keep_signatures)  # fmt: skip


def _write_fingerprints(
    ctx: click.Context, directory: str, result: ScanResult, options: ScanOptions
) -> None:
    from ..errors import MissingExtraError

    try:
        from ..distributed.fingerprints import write_scan

        write_scan(directory, result, options)
    except MissingExtraError as exc:
        raise click.UsageError(str(exc)) from exc
    except OSError as exc:
        message = os_error(exc, directory)
        click.echo(f"simdup: cannot write fingerprints: {message}", err=True)
        ctx.exit(ExitCode.ERROR)

