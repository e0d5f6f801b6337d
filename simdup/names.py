"""File names as simdup writes them in reports and matches them in baselines.

File names are bytes on POSIX; Python decodes them with ``surrogateescape``. ``escape_path``
writes an undecodable byte as ``\\xNN`` and, on POSIX, a literal backslash as ``\\\\``, so the
original name can always be recovered. ``simdup.report.paths.display_path`` adds the escaping
of control characters for terminals.
"""

from __future__ import annotations

import os

_ESCAPE_BACKSLASH = os.sep == "/"


def escape_path(path: str) -> str:
    """``path`` with undecodable bytes (lone surrogates U+DC80..U+DCFF) as ``\\xNN``."""
    if _ESCAPE_BACKSLASH and "\\" in path:
        path = path.replace("\\", "\\\\")
    if path.isascii() or not any("\udc80" <= ch <= "\udcff" for ch in path):
        return path
    return "".join(
        f"\\x{ord(ch) - 0xDC00:02x}" if "\udc80" <= ch <= "\udcff" else ch for ch in path
    )
