"""The ``simdup`` command: parses options, calls the library, renders, exits.

No algorithm lives here, and no output format: one module per command (``scan``,
``compare``, ``check``, ``dedup``, ``decon``, ``hash``, ``calibrate``, ``cache``, ``index`` with
``query``, ``config``, ``serve``), each registered on the group below; ``options`` holds the
shared options and their translation into the library's settings, ``edge`` the mapping of
library errors and signals to exit codes (chosen in ``simdup.exitcodes``), ``output`` where a
report is written.
Only this package imports click and tqdm.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import traceback
from typing import Any

import click

from ..__about__ import __version__
from ..errors import MissingExtraError
from ..params import ALGORITHM_VERSION
from ..policy.exitcodes import EXIT_CODE_HELP, ExitCode
from .edge import catch_stop_signals, silence_stdout, stop_message
from .output import guard_standard_streams

# Each command's module, imported when the command is asked for: `simdup scan` does not pay
# for the index store, the passages, the HTML report or the other commands (a rescan answered
# from the cache is mostly start-up).
COMMANDS = {
    "scan": "scan:scan_command",
    "compare": "compare:compare_command",
    "check": "check:check_command",
    "dedup": "dedup:dedup_command",
    "decon": "decon:decon_command",
    "hash": "hash:hash_command",
    "calibrate": "calibrate:calibrate_command",
    "cache": "cache:cache_group",
    "index": "index:index_group",
    "query": "index:query_command",
    "config": "config:config_command",
    "serve": "serve:serve_command",
}


# What each command does, for `simdup --help` (whole phrases: click would cut each command's
# first sentence at 45 characters, and import every command to find it).
SUMMARIES = {
    "scan": "Clusters of near-duplicate documents under PATHS.",
    "compare": "How close two documents are, and why.",
    "check": "A duplicate-check report per document (查重): copy ratio, sources.",
    "dedup": "Rows (JSON Lines, CSV, Parquet) without their near-duplicates.",
    "decon": "Training rows without the evaluation items they contain.",
    "hash": "The 64-bit SimHash of each file.",
    "calibrate": "Where a corpus separates near-duplicates from the rest.",
    "cache": "The scan and sentence caches: what they hold, or clear them.",
    "index": "A named index: documents stored once, queried again and again.",
    "query": "Which stored documents of an index repeat FILES.",
    "config": "The settings a scan would use, and where each comes from.",
    "serve": "A local web page and HTTP API for the duplicate check.",
}


class _Group(click.Group):
    """The edge of every command: Ctrl-C, SIGTERM and SIGHUP exit 130, 143 and 129 with a short
    message (click would exit 1, which means duplicates); a closed stdout pipe ends the command
    quietly; a missing optional dependency exits 2 with its install line; an unexpected error
    exits 4 with one line, never 1 and never a traceback (set
    SIMDUP_TRACEBACK=1 to see it). Commands are loaded when asked for (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SUMMARIES[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = self.commands.get(cmd_name)
        if found is None and cmd_name in COMMANDS:
            module, _, name = COMMANDS[cmd_name].partition(":")
            found = getattr(importlib.import_module(f"{__name__}.{module}"), name)
            self.commands[cmd_name] = found
        return found

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            message, code = stop_message(exc)
            click.echo(f"simdup: {message}", err=True)
            raise click.exceptions.Exit(code) from None
        except BrokenPipeError:
            # The reader of stdout went away (`| head`): stop quietly.
            silence_stdout()
            raise click.exceptions.Exit(ExitCode.OK) from None
        except click.exceptions.Exit:
            raise
        except click.ClickException as exc:
            if exc.exit_code != 1:
                raise
            # click's own errors exit 1, which is simdup's "duplicates found".
            exc.show()
            raise click.exceptions.Exit(ExitCode.ERROR) from None
        except MissingExtraError as exc:
            # Outside a command's ``usage_errors``: a usage error all the same (``edge``).
            raise click.UsageError(str(exc)) from None
        except Exception as exc:
            if os.environ.get("SIMDUP_TRACEBACK"):
                traceback.print_exc()
            click.echo(f"simdup: internal error: {type(exc).__name__}: {exc}", err=True)
            raise click.exceptions.Exit(ExitCode.ERROR) from None


@click.group(
    cls=_Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODE_HELP
)
@click.version_option(
    __version__,
    "-V",
    "--version",
    prog_name="simdup",
    message=f"%(prog)s %(version)s (algorithm {ALGORITHM_VERSION})",
)
def cli() -> None:
    """Find near-duplicate documents: Chinese, English or mixed, in any common encoding.

    \b
    Examples:
      simdup scan ./docs
      simdup compare a.txt b.txt
      simdup check thesis.docx --against refs/
      simdup dedup data.jsonl.zst -o clean.jsonl.zst
      simdup hash *.txt
      simdup calibrate ./docs
    """


def all_commands() -> dict[str, click.Command]:
    """Every command by name, each module imported (for help pages and the docs' tests)."""
    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


def run() -> None:
    """The command's entry point (console script, ``python -m simdup``): ``main``, then a quick
    exit.

    When the work is done the process exits without the interpreter's shutdown, which would
    free the segmenter's dictionary and every other object one by one (~30 ms on the benchmark
    set): output is flushed first, the worker pool is already stopped, and simdup registers no
    exit handlers. Library users and tests call ``main``, which exits normally.
    """
    try:
        main()
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:  # sys.exit("message"): print it, as the interpreter would, but never exit 1
            print(exc.code, file=sys.stderr)
            code = ExitCode.ERROR
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        pass  # a closed pipe: the exit status is what matters now
    except (OSError, ValueError) as exc:
        print(f"simdup: cannot write output: {exc}", file=sys.stderr)
        if code in (ExitCode.OK, ExitCode.DUPLICATES_FOUND, ExitCode.FILES_SKIPPED):
            code = ExitCode.ERROR
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(code)


def main() -> None:
    """``simdup`` with the process's standard streams and signals looked after."""
    stderr = sys.stderr
    guard_standard_streams()
    previous = catch_stop_signals()
    try:
        cli(prog_name="simdup")
    except BrokenPipeError:
        # Reader went away (e.g. `| head`) outside a scan's report: not an error.
        silence_stdout()
        sys.exit(ExitCode.OK)
    except KeyboardInterrupt as exc:
        message, code = stop_message(exc)
        click.echo(f"simdup: {message}", err=True)
        sys.exit(code)
    finally:
        for signum, handler in previous.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, handler)
        if stderr is not None:
            sys.stderr.flush()
            sys.stderr = stderr

