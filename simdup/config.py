"""Project configuration: ``[tool.simdup]`` in ``pyproject.toml``, or ``.simdup.toml``.

The file is found by walking up from the first scanned path, folder by folder, and the search
stops at the repository root (the folder holding ``.git``) or the file-system root. In each
folder ``.simdup.toml`` (top-level keys) is looked for first, then a ``pyproject.toml`` holding
a ``[tool.simdup]`` table (a ``pyproject.toml`` without one is passed over, as ruff does).

Keys are the long names of the command's options, with dashes or underscores
(``verify-radius`` or ``verify_radius``); an on/off pair is named by its positive half
(``verify = false`` for ``--no-verify``). This module knows nothing of click: the command
describes its options as ``OptionSpec`` records (with a converter that validates a value),
and receives a ``Settings`` record of every value and where it came from. Command-line values
win over the file, the file over the defaults.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

SIMDUP_TOML = ".simdup.toml"
PYPROJECT = "pyproject.toml"
COMMAND_LINE = "command line"
DEFAULT = "default"


@dataclass(frozen=True)
class OptionSpec:
    """One option that a configuration file may set.

    ``key`` is its name in the file (dashes), ``dest`` its parameter name in the command;
    ``convert`` turns a value read from TOML into the option's value or raises ``ValueError``
    with the reason; ``multiple`` options take a list (a single string is a list of one);
    ``is_path`` values are relative to the configuration file's folder.
    """

    key: str
    dest: str
    convert: Callable[[Any], Any]
    multiple: bool = False
    is_flag: bool = False
    is_path: bool = False


@dataclass(frozen=True)
class ConfigFile:
    """The raw table of a configuration file: ``path`` and its keys (normalised to dashes)."""

    path: str
    table: Mapping[str, Any]

    @property
    def label(self) -> str:
        """How the file is named in messages: 'pyproject.toml [tool.simdup]' or the path."""
        if os.path.basename(self.path) == PYPROJECT:
            return f"{self.path} [tool.simdup]"
        return self.path


@dataclass(frozen=True)
class Setting:
    """The effective value of one option and its source: ``COMMAND_LINE``, ``DEFAULT`` or the
    path of the configuration file."""

    key: str
    dest: str
    value: Any
    source: str


@dataclass(frozen=True)
class Settings:
    """Every option's effective value, in the command's order, and the file that was read."""

    file: str | None
    settings: tuple[Setting, ...]

    def values(self) -> dict[str, Any]:
        """The values by parameter name, as the command's keyword arguments."""
        return {s.dest: s.value for s in self.settings}

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly form: the file, then each key's value and source."""
        return {
            "config_file": self.file,
            "settings": {
                s.key: {"value": _plain(s.value), "source": s.source} for s in self.settings
            },
        }


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _has_git(folder: str) -> bool:
    return os.path.lexists(os.path.join(folder, ".git"))


def _read_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


def _normalise(table: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k).replace("_", "-"): v for k, v in table.items()}


def find_config(start: str) -> ConfigFile | None:
    """The configuration file that applies to ``start`` (a file or folder), or None."""
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        candidate = os.path.join(folder, SIMDUP_TOML)
        if os.path.isfile(candidate):
            return ConfigFile(candidate, _normalise(_read_toml(candidate)))
        candidate = os.path.join(folder, PYPROJECT)
        if os.path.isfile(candidate):
            tool = _read_toml(candidate).get("tool", {})
            if isinstance(tool, dict) and "simdup" in tool:
                table = tool["simdup"]
                if not isinstance(table, dict):
                    raise ConfigError(f"{candidate}: [tool.simdup] must be a table")
                return ConfigFile(candidate, _normalise(table))
        parent = os.path.dirname(folder)
        # The repository root ends the search: a parent project's settings are not ours.
        if _has_git(folder) or parent == folder:
            return None
        folder = parent


def _convert(spec: OptionSpec, raw: Any, config: ConfigFile) -> Any:
    where = f"{config.label}: {spec.key}"
    if spec.multiple:
        items = [raw] if isinstance(raw, str) else raw
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{where}: expected a list of strings, got {raw!r}")
        return tuple(spec.convert(i) for i in items)
    if spec.is_flag and not isinstance(raw, bool):
        raise ConfigError(f"{where}: expected true or false, got {raw!r}")
    if not spec.is_flag and isinstance(raw, (bool, list, dict)):
        # TOML true is not the number 1, and no single-valued option takes a list.
        shown = str(raw).lower() if isinstance(raw, bool) else repr(raw)
        raise ConfigError(f"{where}: invalid value {shown}")
    if spec.is_path:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: expected a path, got {raw!r}")
        raw = os.path.join(os.path.dirname(config.path), raw)
    try:
        return spec.convert(raw)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def resolve_settings(
    specs: Iterable[OptionSpec],
    given: Mapping[str, Any],
    from_command_line: Iterable[str],
    config: ConfigFile | None,
) -> Settings:
    """The effective settings: ``given`` values (by ``dest``) whose ``dest`` is in
    ``from_command_line`` win; then the file's values; then ``given`` (the defaults).

    Raises ``ConfigError`` naming the file and the key for an unknown key or a bad value.
    """
    specs = list(specs)
    cli_dests = set(from_command_line)
    by_key = {s.key: s for s in specs}
    table = config.table if config is not None else {}
    if config is not None:
        for key in table:
            if key not in by_key:
                known = ", ".join(sorted(by_key))
                raise ConfigError(f"{config.label}: unknown key {key!r} (known keys: {known})")
    settings = []
    for spec in specs:
        # Every value in the file is checked, also one the command line overrides: a bad
        # file fails the same way whatever options a run is given.
        in_file = config is not None and spec.key in table
        value = _convert(spec, table[spec.key], config) if config is not None and in_file else None
        if spec.dest in cli_dests:
            setting = Setting(spec.key, spec.dest, given.get(spec.dest), COMMAND_LINE)
        elif config is not None and in_file:
            setting = Setting(spec.key, spec.dest, value, config.path)
        else:
            setting = Setting(spec.key, spec.dest, given.get(spec.dest), DEFAULT)
        settings.append(setting)
    return Settings(config.path if config is not None else None, tuple(settings))
