"""Exit statuses of the ``simdup`` command, and the one policy that picks them."""

from __future__ import annotations

import signal
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Success. Skipped files are reported, not an error."""
    DUPLICATES_FOUND = 1
    """``--fail-on-duplicates`` was given and near-duplicates were found (not in a baseline)."""
    USAGE = 2
    """Bad command line: unknown option, bad value, no paths given (as click does), or a feature
    asked for whose optional dependency is not installed (the message is its ``pip install``
    line)."""
    FILES_SKIPPED = 3
    """``--strict`` was given (or ``hash`` was asked for a file) and some files could not be read,
    decoded or fingerprinted."""
    ERROR = 4
    """simdup could not finish: output could not be written, or an unexpected error."""
    HANGUP = 129
    """Stopped by SIGHUP (the terminal was closed): 128 + 1, as a shell reports it."""
    INTERRUPTED = 130
    """Interrupted by Ctrl-C (SIGINT): 128 + 2."""
    TERMINATED = 143
    """Stopped by SIGTERM (``kill``, a CI time-out, a service manager): 128 + 15."""


_ALWAYS = """\
  2    usage error (bad option or value, a missing argument, a feature whose
       optional dependency is not installed)
  4    error: output could not be written, a worker process died, a store
       is damaged, or an internal error
  129  stopped by SIGHUP (terminal closed)
  130  interrupted (Ctrl-C, SIGINT)
  143  stopped by SIGTERM"""


def exit_code_help(success: str = "success", duplicates: str = "", files: str = "") -> str:
    """The "Exit codes" block of a command's --help: only the codes that command can give
    (``duplicates``: the meaning of 1, ``files``: of 3; empty when it never gives them)."""
    lines = ["\b", "Exit codes:", f"  0    {success}"]
    if duplicates:
        lines.append(f"  1    {duplicates}")
    usage, after = _ALWAYS.splitlines()[:2], _ALWAYS.splitlines()[2:]
    lines.extend(usage)
    if files:
        lines.append(f"  3    {files}")
    lines.extend(after)
    return "\n".join(lines)


EXIT_CODE_HELP = (
    exit_code_help(
        "success (skipped files are reported, not an error)",
        duplicates="--fail-on-duplicates and near-duplicates were found (not in --baseline)",
        files="--strict and some files could not be read, decoded or fingerprinted",
    )
    + "\n  No report is written when a run is interrupted or stopped."
)
FILE_HELP = "a file named on the command line could not be read, decoded or fingerprinted"


def scan_exit_code(
    *, duplicates: int, skipped: int, fail_on_duplicates: bool, strict: bool
) -> ExitCode:
    """The exit status of a finished scan. ``duplicates``: near-duplicate pairs found (not
    accepted by a baseline); ``skipped``: files that could not be read, decoded or
    fingerprinted. Duplicates take precedence over skips."""
    if fail_on_duplicates and duplicates > 0:
        return ExitCode.DUPLICATES_FOUND
    if strict and skipped > 0:
        return ExitCode.FILES_SKIPPED
    return ExitCode.OK


_STOPPED_BY = {
    getattr(signal, name): code
    for name, code in (
        ("SIGINT", ExitCode.INTERRUPTED),
        ("SIGTERM", ExitCode.TERMINATED),
        ("SIGHUP", ExitCode.HANGUP),  # not on Windows
    )
    if hasattr(signal, name)
}


def stopped_exit_code(signum: int) -> ExitCode:
    """The exit status of a run stopped by signal ``signum`` (SIGINT, SIGTERM or SIGHUP)."""
    return _STOPPED_BY.get(signum, ExitCode.INTERRUPTED)


def files_exit_code(failed: int) -> ExitCode:
    """``hash``: 3 when a file named on the command line could not be fingerprinted."""
    return ExitCode.FILES_SKIPPED if failed else ExitCode.OK


def query_exit_code(*, matched: int, failed: int, fail_on_duplicates: bool) -> ExitCode:
    """``query``: 1 with ``--fail-on-duplicates`` when a file has a match, else 3 when a file
    named could not be fingerprinted, else 0."""
    if fail_on_duplicates and matched:
        return ExitCode.DUPLICATES_FOUND
    return files_exit_code(failed)


def check_exit_code(
    *, over_limit: int, unread: int, skipped: int, strict: bool
) -> ExitCode:
    """``check``: 1 when a document's ratio is above ``--max-ratio`` (or, with
    ``--fail-on-duplicates``, when it has any copied fragment); else 3 when a document named
    to be checked could not be read (``unread``), or with ``--strict`` when a source could not
    be (``skipped``); else 0."""
    if over_limit:
        return ExitCode.DUPLICATES_FOUND
    if unread or (strict and skipped):
        return ExitCode.FILES_SKIPPED
    return ExitCode.OK


def decon_exit_code(
    *, contaminated: int, skipped: int, fail_on_contamination: bool, strict: bool
) -> ExitCode:
    """``decon``: 1 with ``--fail-on-contamination`` when a training row contains an
    evaluation item; else 3 with ``--strict`` when rows or evaluation items could not be read;
    else 0 (contamination alone is a finding, not a failure: the clean output is the point)."""
    if fail_on_contamination and contaminated:
        return ExitCode.DUPLICATES_FOUND
    if strict and skipped:
        return ExitCode.FILES_SKIPPED
    return ExitCode.OK
