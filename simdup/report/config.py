"""The ``simdup config`` listing: each setting a scan would use, its value and where it comes from
(the command line, a configuration file, or the default)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from ..config import COMMAND_LINE, DEFAULT, Settings
from ..names import display_path


def render_settings(settings: Settings, fmt: str, stream: TextIO) -> None:
    """``settings`` as aligned text rows, or as JSON (``fmt`` "json")."""
    if fmt == "json":
        stream.write(json.dumps(settings.describe(), indent=2, ensure_ascii=False) + "\n")
        return
    where = display_path(settings.file) if settings.file else "none found"
    stream.write(f"configuration file: {where}\n")
    rows = [
        (
            s.key,
            "-" if s.value is None else json.dumps(_plain_value(s.value), ensure_ascii=False),
            s.source if s.source in (COMMAND_LINE, DEFAULT) else display_path(s.source),
        )
        for s in settings.settings
    ]
    key_width = max(len(key) for key, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for key, value, source in rows:
        stream.write(f"{key.ljust(key_width)}  {value.ljust(value_width)}  ({source})\n")


def _plain_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
