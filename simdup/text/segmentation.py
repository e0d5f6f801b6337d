"""Word segmentation: jieba for CJK runs, one word pattern for everything else.

Only runs of CJK ideographs go to the segmenter (jieba, or rjieba — the Rust port with the same
dictionary and algorithm — when installed). Latin letters, digits and other scripts are split by
simdup's own pattern, so both backends see identical input and produce identical tokens (and
therefore identical fingerprints). HMM new-word discovery is off: it is where the two backends
could differ, and near-duplicate detection gains nothing from it.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError, MissingExtraError
from .textscan import CJK_RUN, RUN_SEPARATOR, WORD

# A CJK run (continuing across whitespace between ideographs) or a word; see textscan.
_TOKEN = re.compile(rf"({CJK_RUN.pattern})|({WORD.pattern})")
_SPACE = re.compile(r"\s+")

BACKENDS = ("auto", "jieba", "rjieba")


def _rjieba_available() -> bool:
    # Found, not imported: importing rjieba loads its dictionary (~0.1 s), which a scan that
    # fingerprints nothing (every file from the scan cache) never needs.
    return importlib.util.find_spec("rjieba") is not None


def resolve_backend(name: str) -> str:
    """The concrete backend for ``auto``/``jieba``/``rjieba``."""
    if name not in BACKENDS:
        raise ConfigError(f"unknown segmenter {name!r} (choose from {', '.join(BACKENDS)})")
    if name == "auto":
        return "rjieba" if _rjieba_available() else "jieba"
    if name == "rjieba" and not _rjieba_available():
        raise MissingExtraError("--segmenter rjieba", "fast")
    return name


def read_user_dict(path: str) -> list[tuple[str, int | None, str | None]]:
    """Parse a jieba user dictionary: ``word [freq] [tag]`` per line, UTF-8."""
    entries: list[tuple[str, int | None, str | None]] = []
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"user dictionary {path}: not UTF-8 ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(f"user dictionary {path}: {exc.strerror or exc}") from exc
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) > 3:
            raise ConfigError(f"user dictionary {path}:{number}: expected 'word [freq] [tag]'")
        freq: int | None = None
        tag: str | None = None
        if len(parts) >= 2:
            if parts[1].isdigit():
                freq = int(parts[1])
                tag = parts[2] if len(parts) == 3 else None
            elif len(parts) == 2:
                tag = parts[1]
            else:
                raise ConfigError(f"user dictionary {path}:{number}: frequency must be a number")
        entries.append((parts[0], freq, tag))
    return entries


def _load_jieba(entries: list[tuple[str, int | None, str | None]]) -> Callable[[str], list[str]]:
    import logging  # here: only jieba needs it (~5-25 ms of every command's imports)

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for word, freq, tag in entries:
        tokenizer.add_word(word, freq, tag)

    def cut(text: str) -> list[str]:
        return list(tokenizer.cut(text, HMM=False))

    return cut


def _load_rjieba(entries: list[tuple[str, int | None, str | None]]) -> Callable[[str], list[str]]:
    import rjieba

    if not entries:
        # rjieba builds a default instance at import (0.1 s): use it rather than a second one.
        default: Callable[..., list[str]] = rjieba.cut
        return lambda text: default(text, hmm=False)
    tokenizer: Any = rjieba.Jieba()
    for word, freq, tag in entries:
        tokenizer.add_word(word, freq, tag)

    def cut(text: str) -> list[str]:
        return list(tokenizer.cut(text, hmm=False))

    return cut


class Segmenter:
    """Splits normalised text into word tokens, in document order. The user dictionary is read
    (and checked) at once; the backend's dictionary is loaded when first needed (``load``:
    ~0.13 s and ~40 MB for rjieba, which texts judged by their characters never need)."""

    def __init__(self, backend: str = "auto", user_dict: str | None = None) -> None:
        self.backend = resolve_backend(backend)
        self._entries = read_user_dict(user_dict) if user_dict else []
        self._cut: Callable[[str], list[str]] | None = None

    def load(self) -> Callable[[str], list[str]]:
        """The backend's cut, its dictionary loaded (once: a process that forks workers loads
        it first, so that they share it)."""
        if self._cut is None:
            loader = _load_rjieba if self.backend == "rjieba" else _load_jieba
            self._cut = loader(self._entries)
        return self._cut

    @property
    def loaded(self) -> bool:
        return self._cut is not None

    def cut(self, runs: str) -> list[str]:
        """Segment CJK runs joined by ``RUN_SEPARATOR`` (kept as tokens between the runs)."""
        return (self._cut or self.load())(runs) if runs else []

    def tokens(self, text: str) -> list[str]:
        """Word tokens of ``text`` in document order; punctuation and spaces dropped."""
        matches = _TOKEN.findall(text)
        runs = [_SPACE.sub("", cjk) for cjk, _ in matches if cjk]
        if not runs:
            return [word for _, word in matches]
        # One segmenter call per document: runs joined by newlines, which both backends
        # emit as separate tokens, so the words can be put back in document order.
        segmented = (self._cut or self.load())(RUN_SEPARATOR.join(runs))
        pieces: list[list[str]] = [[]]
        for token in segmented:
            if token == RUN_SEPARATOR:
                pieces.append([])
            else:
                pieces[-1].append(token)
        out: list[str] = []
        run_index = 0
        for cjk, word in matches:
            if cjk:
                out.extend(pieces[run_index])
                run_index += 1
            else:
                out.append(word)
        return out


_SEGMENTERS: dict[tuple[str, str | None, float], Segmenter] = {}


def get_segmenter(backend: str = "auto", user_dict: str | None = None) -> Segmenter:
    """A process-wide segmenter per configuration: dictionaries load once per process."""
    mtime = os.stat(user_dict).st_mtime if user_dict and os.path.exists(user_dict) else 0.0
    key = (backend, user_dict, mtime)
    segmenter = _SEGMENTERS.get(key)
    if segmenter is None:
        segmenter = _SEGMENTERS[key] = Segmenter(backend, user_dict)
    return segmenter
