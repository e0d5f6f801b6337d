"""simdup.names: file names escaped for reports and terminals."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simdup.names import display_path, escape_path


def test_undecodable_bytes_are_escaped() -> None:
    """Lone surrogates from surrogateescape become \\xNN; valid text is untouched."""
    assert escape_path("bad\udcff.txt") == "bad\\xff.txt"
    assert escape_path("中文/ok.txt") == "中文/ok.txt"


def test_display_path_escapes_control_characters() -> None:
    """Newlines, tabs and escape characters cannot reach the terminal raw."""
    assert display_path("a\nb\tc\x1b[31m.txt") == "a\\nb\\tc\\x1b[31m.txt"
    assert display_path("plain/中文.txt") == "plain/中文.txt"


# File names as Python sees them on POSIX: bytes decoded with surrogateescape.
os_paths = st.one_of(st.text(), st.binary().map(lambda b: b.decode("utf-8", "surrogateescape")))


@given(os_paths)
def test_escaped_paths_are_valid_utf8_and_printable(path: str) -> None:
    """Any file name (undecodable bytes included) renders as valid UTF-8 without control
    characters."""
    shown = display_path(path)
    shown.encode("utf-8")  # no lone surrogates left
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    escape_path(path).encode("utf-8")


def test_different_file_names_are_written_differently() -> None:
    """Two different file names never render as the same string."""
    assert escape_path("bad\\xff.txt") != escape_path("bad\udcff.txt")
