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
