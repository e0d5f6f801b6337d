"""The ``simdup`` process's standard streams and where its outputs may go: a closed standard
stream is remembered and its descriptor number filled with the null device
(``guard_standard_streams``), so that no file simdup opens later can take the number 0, 1 or 2
and receive stray output; a closed standard error is a sink (messages are lost, the work is
not); writes to standard error never fail. No output is written into what a command reads
(``check_output``, ``check_not_scanned``). How an output is written, whatever it is (a file, a
device such as ``/dev/null``, a FIFO, a descriptor, standard output), is
``simdup.writers.output.OutputTarget``'s, for every command and option alike.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import click

from ..names import display_path
from ..writers.output import CLOSED_AT_START, OutputTarget, names_own_descriptor


def guard_standard_streams() -> None:
    """Fill closed descriptors 0-2 with the null device and make standard error forgiving."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            CLOSED_AT_START.add(fd)
            with contextlib.suppress(OSError):
                opened = os.open(os.devnull, os.O_RDWR)
                if opened != fd:  # a lower number was free after all: keep the order
                    os.dup2(opened, fd)
                    os.close(opened)
    if sys.stderr is None or 2 in CLOSED_AT_START:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if not isinstance(sys.stderr, ForgivingStream):
        sys.stderr = ForgivingStream(sys.stderr)


class ForgivingStream(io.TextIOBase):
    """A text stream whose writes never raise: for messages, which must not stop the work
    (a hung-up terminal, a closed pipe or a full disk behind standard error)."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError):
            self.inner.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.inner.flush()

    def isatty(self) -> bool:
        try:
            return self.inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8") or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _inside(child: str, parent: str) -> bool:
    """``child`` is ``parent`` or below it, as spelled or after resolving symbolic links."""
    for resolve in (os.path.abspath, os.path.realpath):
        c, p = resolve(child), resolve(parent)
        if c == p or c.startswith(p.rstrip(os.sep) + os.sep):
            return True
    return False


def check_output(
    output: str | None, roots: Sequence[str], option: str = "--output"
) -> OutputTarget:
    """The target of ``option`` resolved now, before any work (``OutputError`` for what cannot be
    written), refused when it is a file read or lies inside a folder read (the name of a
    descriptor, ``/dev/stdout``, is what the shell opened, not a file of simdup's)."""
    if output and output != "-" and not names_own_descriptor(output):
        check_not_scanned(option, output, roots)
    return OutputTarget.resolve(output, option)


def check_not_scanned(option: str, path: str, roots: Sequence[str]) -> None:
    """Refuse a file simdup writes (a report, a database and its journal) inside what it scans."""
    for root in roots:
        if _inside(path, root):
            where = (
                f"inside the scanned folder {display_path(root)}"
                if os.path.isdir(root)
                else f"the scanned file {display_path(root)}"
            )
            raise click.UsageError(
                f"{option} {display_path(path)} is {where}: "
                "simdup never writes into the folders it scans"
            )

