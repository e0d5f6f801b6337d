"""Bundled Chinese, English, Japanese and Korean stopword lists, plus user additions."""

from __future__ import annotations

from importlib import resources

from ..errors import ConfigError
from .particles import japanese_function_words, korean_function_words


def _parse(text: str) -> set[str]:
    words = set()
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip()
        if word:
            words.add(word.casefold())
    return words


def bundled_stopwords() -> frozenset[str]:
    words: set[str] = set()
    for name in ("stopwords_zh.txt", "stopwords_en.txt"):
        words |= _parse(resources.files("simdup").joinpath("data", name).read_text("utf-8"))
    # Japanese and Korean: the words of their lists, a Korean particle in each of its forms.
    return frozenset(words | japanese_function_words() | korean_function_words())


def read_stopword_file(path: str) -> set[str]:
    """Words from a user file, one per line. UTF-8 (with or without BOM), else GB18030."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError(f"stopword file {path}: {exc.strerror or exc}") from exc
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return _parse(data.decode(encoding))
        except UnicodeDecodeError:
            continue
    raise ConfigError(f"stopword file {path}: neither UTF-8 nor GB18030")
