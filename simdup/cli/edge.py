"""The edge of the command: library errors become exit codes, signals become a clean stop, and
progress is drawn on a terminal. Every command runs inside these."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import click

from ..errors import ConfigError, InputError, MissingExtraError, OutputError, SimdupError
from ..names import display_path
from ..policy.exitcodes import ExitCode, stopped_exit_code
from ..records import SkippedFile, SkippedRow


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """Turn library errors into the exit codes of ``simdup.exitcodes``. A feature asked for
    whose optional dependency is not installed is a usage error (2), as a bad option is: the
    command line asks for what this installation cannot do; the message is the install line."""
    try:
        yield
    except (ConfigError, MissingExtraError) as exc:
        raise click.UsageError(str(exc)) from exc
    except InputError as exc:
        click.echo(f"simdup: {display_path(exc.path)}: {exc.reason}", err=True)
        raise click.exceptions.Exit(ExitCode.FILES_SKIPPED) from exc
    except OutputError as exc:
        click.echo(f"simdup: cannot write report: {exc}", err=True)
        raise click.exceptions.Exit(ExitCode.ERROR) from exc
    except SimdupError as exc:
        click.echo(f"simdup: error: {exc}", err=True)
        raise click.exceptions.Exit(ExitCode.ERROR) from exc


def os_error(exc: OSError, where: str | None) -> str:
    """'PATH: No space left on device', without errno numbers or Python quoting."""
    if isinstance(exc, OutputError):
        return str(exc)
    reason = exc.strerror or str(exc)
    name = display_path(os.fsdecode(exc.filename)) if exc.filename else where
    return f"{name}: {reason}" if name else reason


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def skipped_name(skip: SkippedFile) -> str:
    """A skipped file as its path; a skipped row as ``file#row``, with its id when it has one
    (its key in JSON outputs)."""
    if isinstance(skip, SkippedRow) and skip.file:
        where = f"{display_path(skip.file)}#{skip.row}"
        return f"{where} (id {skip.id})" if skip.id is not None else where
    return display_path(skip.path)


def warning(message: str) -> None:
    click.echo(f"simdup: warning: {message}", err=True)


# What the steps of a stage count, by the stage's name (the library's names): a stage not
# named here is drawn as a share of its steps done.
STAGE_UNITS = {"verifying": "pair", "matching stored documents": "row",
               "embedding sources": "sentence"}  # fmt: skip


class ProgressBar:
    """tqdm on stderr, only when stderr is a terminal and not --quiet."""

    def __init__(self, enabled: bool, desc: str, unit: str = "file") -> None:
        self.bar: Any = None
        self.enabled = enabled and sys.stderr.isatty()
        self.desc = desc
        self.unit = unit
        self.stage_name: str | None = None  # a stage line is shown: not counted yet

    def __call__(self, done: int, total: int) -> None:
        """``done`` of ``total`` (0: not known, as for the rows of a stream)."""
        if not self.enabled:
            return
        if self.stage_name is not None:  # the stage's first count: a bar replaces its line
            name, self.stage_name = self.stage_name, None
            self.close()
            self._open(name, total, STAGE_UNITS.get(name))
        if self.bar is None:
            self._open(self.desc, total, self.unit)
        self.bar.update(done - self.bar.n)

    def _open(self, desc: str, total: int, unit: str | None) -> None:
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread: workers are forked
        # A count without a unit (an edit join's pair slots) means nothing to a reader: its share.
        shape = {} if unit else {"bar_format": "{desc}: {percentage:3.0f}%|{bar}| {elapsed}"}
        self.bar = tqdm(total=total or None, desc=desc, unit=unit or "it", file=sys.stderr,
                        leave=False, **shape)  # fmt: skip

    def stage(self, name: str) -> None:
        """A new stage of the run (finding candidates, verifying, writing): the bar becomes a
        line naming it with the time spent, and a bar of its steps when the library counts
        them (``__call__`` in the stage)."""
        if not self.enabled:
            return
        self.close()
        from tqdm import tqdm

        self.bar = tqdm(total=None, desc=name, file=sys.stderr, leave=False,
                        bar_format="{desc} {elapsed}")  # fmt: skip
        self.bar.refresh()
        self.stage_name = name

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that it cleans up as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: object) -> None:
    # Once is enough: a second signal must not interrupt the clean-up (stopping workers).
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signum, signal.SIG_IGN)
    raise Stopped(signum)


def stop_message(exc: BaseException) -> tuple[str, ExitCode]:
    """'interrupted' (Ctrl-C) or 'terminated by SIGTERM', and its exit status."""
    if isinstance(exc, Stopped):
        return f"stopped by {signal.Signals(exc.signum).name}", stopped_exit_code(exc.signum)
    return "interrupted", ExitCode.INTERRUPTED


_STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def catch_stop_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise ``Stopped`` (so a run cleans up as for Ctrl-C), unless they are
    ignored (``nohup``) or handled already. Returns the handlers to restore."""
    previous: dict[int, Any] = {}
    for name in _STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        with contextlib.suppress(ValueError, OSError):  # not the main thread: leave them be
            if signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, _raise_stopped)
    return previous

