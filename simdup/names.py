"""How file names are written in output and matched in baselines.

File names are bytes on POSIX; Python decodes them with ``surrogateescape``. ``escape_path``
writes a byte that is not valid UTF-8 as ``\\xNN`` and, on POSIX, a literal backslash as
``\\\\``, so every format is valid UTF-8 and the original name can always be recovered (a name
with a byte 0xE9 and one literally spelled ``caf\\xe9`` never look alike). Windows paths keep
their backslashes. In text output (``display_path``), control characters (newline, tab,
escape, ...) are also written as escapes so a file name cannot forge lines or drive the
terminal.
"""

from __future__ import annotations

import os
import unicodedata

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


def display_path(path: str) -> str:
    """``escape_path`` plus control characters escaped, for terminals and logs."""
    path = escape_path(path)
    if path.isprintable():
        return path
    out = []
    for ch in path:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") or not ch.isprintable():
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: a wide or full-width character (an ideograph,
    kana, Hangul, a full-width letter) two, a combining mark none, any other one."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` terminal columns (``display_width``)."""
    return text + " " * max(0, width - display_width(text))
