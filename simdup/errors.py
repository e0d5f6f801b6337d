"""The errors simdup raises; the CLI maps them to exit codes in one place."""

from __future__ import annotations


class SimdupError(Exception):
    """Base class of every error simdup raises on purpose."""


class ConfigError(SimdupError, ValueError):
    """An option or parameter has a value simdup cannot work with."""


class InputError(SimdupError, OSError):
    """A file named explicitly by the user cannot be used (missing, unreadable).

    ``path`` and ``reason`` are kept apart so that the edge can escape the file name.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class DamagedInputError(InputError):
    """An input is truncated or damaged (a partial download, a file cut inside a compressed
    frame): deduplicating the rows before the damage would give a clean file that silently
    lacks the rest, so nothing is written unless the caller accepts it."""


class InputChangedError(SimdupError):
    """An input file changed between two reads of one run (a dataset is read once to decide
    and again to write): the second read would not be the rows decided on."""


class MissingExtraError(SimdupError, ImportError):
    """An optional dependency is needed for the requested feature."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f'{feature} needs an optional dependency: pip install "simdup[{extra}]"')
        self.extra = extra


class WorkerError(SimdupError, RuntimeError):
    """A worker process died or failed, so the run cannot give a complete result."""


class OutputError(SimdupError, OSError):
    """The report cannot be written where it was asked to go."""


class StoreError(SimdupError):
    """A simdup database (scan cache, named index) cannot be used: ``path`` says which."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
