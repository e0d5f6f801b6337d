"""``simdup hash FILES``: the 64-bit SimHash of each file, like sha256sum."""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

import click

from ..engines import fingerprint_files
from ..engines.work import fingerprint_bytes
from ..names import display_path
from ..policy.exitcodes import FILE_HELP, exit_code_help, files_exit_code
from ..readers.discovery import DiscoveryOptions, discover
from ..records import FingerprintedDocument
from ..text.processor import DocumentProcessor
from ..writers.output import OutputTarget
from .edge import usage_errors
from .options import feature_options, feature_params

_HASH_CODES = exit_code_help(files=FILE_HELP + " (files inside a folder are reported only)")


@click.command(
    "hash",
    epilog=f"""\b
Examples:
  simdup hash notes/*.txt
  simdup hash docs/ | sort | uniq -w16 -D      exact fingerprint collisions

{_HASH_CODES}""",
)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@feature_options
@click.pass_context
def hash_command(ctx: click.Context, /, files: tuple[str, ...], **kw: Any) -> None:
    """Print the 64-bit SimHash of each file: '<16 hex digits>  <path>', like sha256sum.

    Folders are walked as by 'scan'; '-' is standard input (read as a text file is). A file
    that cannot be fingerprinted is reported on stderr; one named on the command line makes the
    exit status 3 (a binary or empty file found inside a folder does not).
    """
    if files.count("-") > 1:
        raise click.UsageError("'-' (standard input) can be named once")
    stdin = _standard_input(kw["max_size"]) if "-" in files else None
    with usage_errors():
        params = feature_params(kw)
        processor = DocumentProcessor(params)  # fail early on a bad user dictionary
        # Like sha256sum: every path named gets its line, hard links and repeats included.
        found, skipped = discover(
            [f for f in files if f != "-"],
            DiscoveryOptions(max_size=kw["max_size"], unique_files=False),
        )
        failed = list(skipped)
        results: list[Any] = list(
            fingerprint_files(found, params, max_size=kw["max_size"], jobs=1)
        )
        if stdin is not None:  # its line first when '-' was named first, else last
            at = 0 if files[0] == "-" else len(results)
            results.insert(at, fingerprint_bytes(processor, "-", stdin))
        with OutputTarget.resolve(None).open() as stream:
            for result in results:
                if isinstance(result, FingerprintedDocument):
                    line = f"{result.fingerprint:016x}  {display_path(result.path)}"
                    click.echo(line, file=stream)
                else:
                    failed.append(result)
    for skip in failed:
        click.echo(f"simdup: {display_path(skip.path)}: {skip.reason}", err=True)
    named = set(files)
    ctx.exit(files_exit_code(sum(1 for skip in failed if skip.path in named)))



def _standard_input(max_size: int) -> bytes:
    """The bytes of standard input, at most ``max_size`` (a usage error beyond, or when it is
    closed)."""
    try:
        if sys.stdin is None:  # started with file descriptor 0 closed (`<&-`)
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        data: bytes = sys.stdin.buffer.read(max_size + 1)
    except (OSError, ValueError) as exc:
        raise click.UsageError("cannot read '-': standard input is closed") from exc
    if len(data) > max_size:
        raise click.UsageError(f"standard input is larger than --max-size ({max_size} bytes)")
    return data
