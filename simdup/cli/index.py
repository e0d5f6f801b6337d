"""``simdup index add|remove|stats|list`` and ``simdup query``: a named index, stored once and
queried again and again."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import click

from ..checking.meaning import add_sentence_vectors
from ..errors import InputError
from ..names import display_path
from ..policy.exitcodes import FILE_HELP, ExitCode, exit_code_help, files_exit_code, query_exit_code
from ..report.store import render_index_stats, render_query_json, render_query_text
from ..report.text import plural
from ..rows.scan_records import QueryAnswer, add_rows, query_rows
from ..store.index import Index
from ..writers.output import OutputTarget
from .edge import ProgressBar, usage_errors
from .options import (
    PLAIN_CODES,
    dask_session,
    engine_options,
    feature_options,
    format_option,
    jobs_option,
    records_options,
    row_options,
    scan_options,
    threshold_option,
    verify_options,
)
from .output import check_not_scanned

_QUERY_CODES = exit_code_help(
    duplicates="--fail-on-duplicates and a stored near-duplicate was found", files=FILE_HELP
)


_REMOVE_CODES = exit_code_help(files="a key is not in the index")


@click.group("index", epilog=PLAIN_CODES)
def index_group() -> None:
    """A named index: documents stored once, queried again and again.

    \b
    Examples:
      simdup index add docs/ --db corpus.simdup
      simdup query new.md --db corpus.simdup
      simdup scan incoming/ --against corpus.simdup --fail-on-duplicates
      simdup index stats --db corpus.simdup
    """


def _db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """--db of an index that must exist (``index add`` creates one: its own option)."""
    return click.option(
        "--db",
        required=True,
        type=click.Path(dir_okay=False, exists=True),
        metavar="DB",
        help="The index file (SQLite).",
    )(f)


@index_group.command(
    "add",
    epilog=PLAIN_CODES,
    short_help="Store the files under PATHS in the index (or update them).",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--db",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="DB",
    help="The index file (SQLite); created if missing.",
)
@click.option("--rebuild", is_flag=True, help="Delete the index first (e.g. when it is damaged).")
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching GLOB.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB.")
@click.option("--hidden", is_flag=True, help="Also hidden files and VCS folders.")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links.")
@jobs_option("Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no skip summary.")
@click.option(
    "--semantic",
    is_flag=True,
    help="Also store the sentence embeddings of the files, so that check --semantic --db "
    'embeds only the checked document (pip install "simdup[semantic]").',
)
@records_options
@feature_options
@engine_options(
    engine_help="Where the files or rows are read and fingerprinted, and with --semantic the "
    'sentences embedded: this machine, or a Dask cluster (pip install "simdup[dask]"; each '
    "worker loads the model once): the same index.",
    scheduler_help="With --engine dask: the scheduler (default $DASK_SCHEDULER_ADDRESS, else a "
    "local cluster with one worker per core).",
)
@click.pass_context
def index_add_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Fingerprint the files under PATHS and store them in the index DB, each under its path as
    given (a file already stored under that path is replaced). Created if missing. With
    --records, PATHS are datasets and each row is stored under its key (its id, else
    file#row)."""
    check_not_scanned("--db", kw["db"], list(paths))
    if kw["semantic"] and kw["records"]:
        raise click.UsageError("--semantic stores the sentences of files, not of --records rows")
    progress = ProgressBar(not kw["quiet"], "indexing")
    embedded = None
    with usage_errors(), contextlib.ExitStack() as stack:
        options = scan_options(kw)
        session = dask_session(kw, stack)
        try:
            with Index(kw["db"], rebuild=kw["rebuild"], params=options.features) as index:
                if kw["records"]:
                    engine = session.row_engine() if session is not None else None
                    added = add_rows(index, paths, row_options(kw), options, engine)
                else:
                    added = index.add_files(
                        paths, discovery=options.discovery, jobs=options.jobs, progress=progress,
                        engine=session.engine(options) if session is not None else None,
                    )  # fmt: skip
                if kw["semantic"]:
                    progress.close()
                    progress = ProgressBar(not kw["quiet"], "embedding sentences")
                    embedded = add_sentence_vectors(
                        index.sentence_vectors(), paths, options.discovery, progress=progress,
                        tasks=session.tasks() if session is not None else None,
                    )  # fmt: skip
                total = len(index)
        finally:
            progress.close()
    if not kw["quiet"]:
        click.echo(
            f"simdup: {plural(added.added, 'document')} added to {display_path(kw['db'])} "
            f"({total} in all), {plural(len(added.skipped), 'row' if kw['records'] else 'file')} "
            "skipped",
            err=True,
        )
        for skip in added.skipped[:20]:
            click.echo(f"  {display_path(skip.path)}: {skip.reason}", err=True)
        if embedded is not None:
            rate = embedded.sentences / embedded.seconds if embedded.seconds else 0.0
            documents = plural(embedded.documents, "document")
            click.echo(
                f"simdup: {embedded.sentences:,} sentences of {documents} embedded "
                f"({rate:,.0f} sentences/s)",
                err=True,
            )
    ctx.exit(ExitCode.OK)


@index_group.command(
    "remove", epilog=_REMOVE_CODES, short_help="Remove the documents stored under KEYS."
)
@click.argument("keys", nargs=-1, required=True)
@_db_option
@click.pass_context
def index_remove_command(ctx: click.Context, /, keys: tuple[str, ...], **kw: Any) -> None:
    """Remove the documents stored under KEYS (their paths as added)."""
    with usage_errors(), Index(kw["db"], create=False) as index:
        missing = [key for key in keys if not index.remove(key)]
    for key in missing:
        click.echo(f"simdup: {display_path(key)}: not in the index", err=True)
    ctx.exit(files_exit_code(len(missing)))


@index_group.command(
    "stats", epilog=PLAIN_CODES, short_help="What the index holds, its size and its parameters."
)
@_db_option
@format_option()
@click.pass_context
def index_stats_command(ctx: click.Context, /, **kw: Any) -> None:
    """How many documents the index holds, its size and the parameters it was built with."""
    with usage_errors(), Index(kw["db"], create=False) as index:
        stats = index.stats()
        with OutputTarget.resolve(None).open() as stream:
            render_index_stats(stats, kw["fmt"], stream)
    ctx.exit(ExitCode.OK)


@index_group.command("list", epilog=PLAIN_CODES, short_help="Every key of the index, one a line.")
@_db_option
@click.pass_context
def index_list_command(ctx: click.Context, /, **kw: Any) -> None:
    """Every key of the index, one per line."""
    with (
        usage_errors(),
        Index(kw["db"], create=False) as index,
        OutputTarget.resolve(None).open() as stream,
    ):
        stored = index.keys()  # a page at a time
        for key in stored:
            click.echo(display_path(key), file=stream)
    ctx.exit(ExitCode.OK)


@click.command(
    "query",
    epilog=f"""\b
Examples:
  simdup query new.md --db corpus.simdup
  simdup query drafts/*.md --db corpus.simdup --format json | jq '.results[].matches'
  simdup query new.md --db corpus.simdup --fail-on-duplicates     exit 1 on a match
  simdup query new.jsonl --records auto --id-field id --db corpus.simdup

{_QUERY_CODES}""",
)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@_db_option
@threshold_option("SimHash Hamming threshold (as for scan).")
@verify_options
@format_option()
@click.option("--fail-on-duplicates", is_flag=True, help="Exit 1 when a file has a match.")
@records_options
@feature_options
@click.pass_context
def query_command(ctx: click.Context, /, files: tuple[str, ...], **kw: Any) -> None:
    """The stored documents of the index DB that are near-duplicates of each of FILES, under
    the scan's rules, nearest first (a file's own entry, stored under the same path, is not
    listed). A file that cannot be fingerprinted is reported and makes the exit status 3.
    With --records, FILES are datasets and each row is a query, named by its key."""
    with usage_errors():
        options = scan_options(kw)
        target = OutputTarget.resolve(None)
        answers = []
        with Index(kw["db"], create=False, params=options.features) as index:
            if kw["records"]:
                answers = query_rows(index, files, row_options(kw), options)
            for path in files if not kw["records"] else ():
                try:
                    # A file's own entry (stored under the same path) is not its duplicate.
                    found = [m for m in index.query_file(path, options) if m.key != path]
                    answers.append(QueryAnswer(path, tuple(found)))
                except InputError as exc:
                    answers.append(QueryAnswer(path, (), exc.reason))
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_query_json(answers, kw["db"], stream)
            else:
                render_query_text(answers, kw["db"], stream)
    ctx.exit(
        query_exit_code(
            matched=sum(1 for a in answers if a.matches),
            failed=sum(1 for a in answers if a.error),
            fail_on_duplicates=kw["fail_on_duplicates"],
        )
    )
