"""A text cut into units (paragraphs, lines or sentences) and the windows of them that
``dedup --spans`` looks up: the spans of one text, before any other text is seen.

A unit is a paragraph (text between blank lines), a line, or a sentence (``substring``: ends
at ``. ! ? ;`` before whitespace or a closing mark, at ``。！？；`` and at blank lines, as in
``sentence_bags``), without the whitespace around it: its bounds are always at a line break, a
sentence end or whitespace, never inside a word or a character. Each unit is compared by its
comparison form (``normalize.comparison_form``: NFKC, case folded, punctuation and whitespace
runs one space, none between ideographs), so a re-wrapped, re-cased or full-width copy is the
same unit; its digest is XXH3-128 of that form.

A *window* is a run of consecutive units whose forms reach ``min_chars`` characters, and no
shorter run from the same start (or to the same end) does: the minimal runs from each unit
forward and to each unit backward. A run of units that repeats an earlier run of at least
``min_chars`` characters is covered by the windows inside it (every unit of it lies in a
forward window that fits it, or in the backward window that ends at its last unit), so looking
up windows finds every repeated run and nothing shorter than ``min_chars``. A window's digest is
XXH3-128 of its units' digests, so the same units in the same order give the same window.

Removing a unit cuts it with one separator: the one after it, unless that is a stronger break
(more line breaks) than the one before it or it is the last unit; then the one before it. So
removing a sentence that ends a paragraph keeps the paragraph break, removing a last line or
paragraph leaves no dangling separator, and what is left reads as if the unit was never there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import xxhash

from .normalize import comparison_form, strip_ignorables
from .sentence_bags import sentence_ends

UNITS = ("paragraph", "line", "substring")
# Characters of comparison form a span needs before it is removed: a navigation word, a
# heading or a short common sentence ("Read more", "All rights reserved.") alone never is.
DEFAULT_MIN_SPAN_CHARS = 50

_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")
_LINES = re.compile(r"[^\n]+")
_digest = xxhash.xxh3_128_digest


@dataclass(frozen=True, slots=True)
class TextSpans:
    """The units of a text and its windows. Units: characters ``starts[k]:ends[k]`` (no
    whitespace at either end), removed as ``cut_starts[k]:cut_ends[k]`` (with a separator);
    windows: units ``first[w]..last[w]`` with digest ``hashes[w]`` (two uint64: XXH3-128)."""

    starts: np.ndarray
    ends: np.ndarray
    cut_starts: np.ndarray
    cut_ends: np.ndarray
    first: np.ndarray
    last: np.ndarray
    hashes: np.ndarray

    def __len__(self) -> int:
        return int(self.starts.size)


def _stripped(text: str, bounds: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Each piece ``text[a:b]`` without whitespace at its ends; blank pieces are none."""
    starts: list[int] = []
    ends: list[int] = []
    for a, b in bounds:
        piece = text[a:b]
        body = piece.strip()
        if not body:
            continue
        start = a + len(piece) - len(piece.lstrip())
        starts.append(start)
        ends.append(start + len(body))
    return starts, ends


def unit_bounds(text: str, unit: str) -> tuple[list[int], list[int]]:
    """The units of ``text`` (``paragraph``, ``line`` or ``substring``: sentences) as their
    start and end offsets (characters), in text order."""
    if unit == "line":
        return _stripped(text, [m.span() for m in _LINES.finditer(text)])
    if unit == "paragraph":
        cuts = [0]
        for m in _BLANK_LINES.finditer(text):
            cuts.extend(m.span())
        cuts.append(len(text))
        return _stripped(text, list(zip(cuts[::2], cuts[1::2], strict=True)))
    if unit == "substring":
        ends = sentence_ends(text).tolist()
        edges = [0, *ends, len(text)] if not ends or ends[-1] != len(text) else [0, *ends]
        return _stripped(text, list(zip(edges[:-1], edges[1:], strict=True)))
    raise ValueError(f"unknown span unit {unit!r} ({', '.join(UNITS)})")


def cut_bounds(text: str, starts: list[int], ends: list[int]) -> tuple[list[int], list[int]]:
    """Where each unit is cut out: with the separator after it, unless that one is a stronger
    break than the one before it (more line breaks) or there is none; then with the one before
    it (see the module's docstring)."""
    n = len(starts)
    cut_starts, cut_ends = list(starts), list(ends)
    for k in range(n):
        after = text.count("\n", ends[k], starts[k + 1]) if k + 1 < n else -1
        before = text.count("\n", ends[k - 1], starts[k]) if k else -1
        if after >= 0 and (before < 0 or after <= before):
            cut_ends[k] = starts[k + 1]
        elif before >= 0:
            cut_starts[k] = ends[k - 1]
    return cut_starts, cut_ends


def unit_form(text: str) -> str:
    """A unit's comparison form: what decides that two units are the same."""
    return comparison_form(strip_ignorables(text))


def windows(lengths: np.ndarray, min_chars: int) -> tuple[np.ndarray, np.ndarray]:
    """The minimal runs of units (first, last) whose ``lengths`` sum to ``min_chars`` or more:
    from each unit forward and to each unit backward, distinct, by first then last unit."""
    n = int(lengths.size)
    if n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    total = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=total[1:])
    begin = np.arange(n, dtype=np.int64)
    reach = np.searchsorted(total, total[:-1] + min_chars, "left")  # last unit + 1
    forward = reach <= n
    back = np.searchsorted(total, total[1:] - min_chars, "right") - 1  # first unit
    backward = total[1:] >= min_chars
    first = np.concatenate([begin[forward], back[backward]])
    last = np.concatenate([reach[forward] - 1, begin[backward]])
    if first.size == 0:
        return first, last
    pairs = np.unique(first * (n + 1) + last)
    return pairs // (n + 1), pairs % (n + 1)


def text_spans(text: str, unit: str, min_chars: int = DEFAULT_MIN_SPAN_CHARS) -> TextSpans:
    """The units of ``text`` and its windows of at least ``min_chars`` characters (of
    comparison form)."""
    if min_chars < 1:
        raise ValueError("min_chars must be at least 1")
    starts, ends = unit_bounds(text, unit)
    cut_starts, cut_ends = cut_bounds(text, starts, ends)
    forms = [unit_form(text[a:b]) for a, b in zip(starts, ends, strict=True)]
    lengths = np.fromiter(map(len, forms), np.int64, len(forms))
    first, last = windows(lengths, min_chars)
    if first.size:
        digests = b"".join(_digest(f.encode("utf-8", "surrogatepass")) for f in forms)
        joined = b"".join(
            _digest(digests[16 * a : 16 * (b + 1)])
            for a, b in zip(first.tolist(), last.tolist(), strict=True)
        )
        hashes = np.frombuffer(joined, dtype="<u8").reshape(-1, 2)
    else:
        hashes = np.empty((0, 2), dtype=np.uint64)
    return TextSpans(
        np.asarray(starts, dtype=np.int64),
        np.asarray(ends, dtype=np.int64),
        np.asarray(cut_starts, dtype=np.int64),
        np.asarray(cut_ends, dtype=np.int64),
        first,
        last,
        hashes,
    )


def cut(text: str, intervals: list[tuple[int, int]]) -> str:
    """``text`` without the characters of ``intervals`` (they may overlap or touch)."""
    out: list[str] = []
    at = 0
    for a, b in sorted(intervals):
        if a > at:
            out.append(text[at:a])
        at = max(at, b)
    out.append(text[at:])
    return "".join(out)
