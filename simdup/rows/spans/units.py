"""A text cut into units (paragraphs, lines or sentences) and the windows of them that
``dedup --spans`` looks up: the spans of one text, before any other text is seen.

A unit is a paragraph (text between blank lines), a line, or a sentence (``substring``: ends
at ``. ! ? ;`` before whitespace or a closing mark, at ``。！？；`` and at blank lines, as in
``sentence_bags``), without the whitespace around it: its bounds are always at a line break, a
sentence end or whitespace, never inside a word or a character. Each unit is compared by its
comparison form (``normalize.comparison_form``: NFKC, case folded, punctuation and whitespace
runs one space, none between ideographs), so a re-wrapped, re-cased or full-width copy is the
same unit; its digest is XXH3-128 of that form. A unit is compared as written unless the rows
are said to hold markup (``markup``: ``markdown`` or ``html``, left out of its form; the unit's
bounds, and what is cut, are still its characters as written).

A *window* is what is looked up: a unit whose form reaches ``min_chars`` characters (counted
in UTF-8 bytes: a CJK character counts ``WIDE_WEIGHT``) alone, or, among
consecutive shorter units (navigation lines, short sentences), a run of them that reaches
``min_chars`` together and no shorter run from the same start (or to the same end) does: the
minimal runs from each unit forward and to each unit backward. A run of short units that
repeats an earlier run of at least ``min_chars`` characters is covered by the windows inside it
(every unit of it lies in a forward window that fits it, or in the backward window that ends at
its last unit), so looking up windows finds every repeated span and nothing shorter than
``min_chars``; a short unit is never removed with the long unit next to it. A window's digest is
XXH3-128 of its units' digests, so the same units in the same order give the same window.

A run of removed units is cut with one separator: the one after it, unless that is a stronger
break (more line breaks) than the one before it or the run ends the text; then the one before
it. So removing a sentence that ends a paragraph keeps the paragraph break, removing the last
lines or paragraphs leaves no dangling separator, and what is left reads as if the units were
never there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import xxhash

from ...text.normalize import comparison_form, strip_ignorables, visible_text
from ...text.sentence_bags import sentence_ends

UNITS = ("paragraph", "line", "substring")
# Characters of comparison form a span needs before it is removed: a navigation word, a
# heading or a short common sentence ("Read more", "All rights reserved.") alone never is.
DEFAULT_MIN_SPAN_CHARS = 50
# A span's length is counted in UTF-8 bytes of its comparison form: a Latin letter or digit is
# 1, an accented, Greek or Cyrillic letter 2, a CJK character (ideograph, kana, hangul) 3. A
# CJK character says about as much as three Latin letters (a Chinese text has about a third as
# many characters as its English translation), so 50 is ~17 Chinese characters, a clause.
WIDE_WEIGHT = 3

_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")
_LINES = re.compile(r"[^\n]+")
_digest = xxhash.xxh3_128_digest


@dataclass(frozen=True, slots=True)
class TextSpans:
    """The units of a text and its windows. Units: characters ``starts[k]:ends[k]`` (no
    whitespace at either end), ``breaks[k]`` line breaks after the unit before (-1: none);
    windows: units ``first[w]..last[w]`` with digest ``hashes[16 * w : 16 * (w + 1)]``
    (XXH3-128, big-endian bytes)."""

    starts: list[int]
    ends: list[int]
    breaks: list[int]
    first: list[int]
    last: list[int]
    hashes: bytes

    def __len__(self) -> int:
        return len(self.starts)


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


def unit_breaks(text: str, starts: list[int], ends: list[int]) -> list[int]:
    """The line breaks between each unit and the one before it (-1 before the first)."""
    return [-1] + [text.count("\n", ends[k - 1], starts[k]) for k in range(1, len(starts))]


def removed_runs(
    starts: list[int], ends: list[int], breaks: list[int], removed: list[bool]
) -> list[tuple[int, int, int, int]]:
    """The runs of consecutive removed units (first, last) and the characters cut for each
    (``start``, ``end``): a run with the separator after it, unless that is a stronger break
    than the one before it (more line breaks) or there is no unit after it; then with the one
    before it; a run of every unit, without either."""
    runs: list[tuple[int, int, int, int]] = []
    n = len(starts)
    k = 0
    while k < n:
        if not removed[k]:
            k += 1
            continue
        i = k
        while k + 1 < n and removed[k + 1]:
            k += 1
        j = k
        after = breaks[j + 1] if j + 1 < n else -1
        before = breaks[i] if i else -1
        if after >= 0 and (before < 0 or after <= before):
            runs.append((i, j, starts[i], starts[j + 1]))
        elif before >= 0:
            runs.append((i, j, ends[i - 1], ends[j]))
        else:
            runs.append((i, j, starts[i], ends[j]))
        k += 1
    return runs


def unit_form(text: str, markup: str = "none") -> str:
    """A unit's comparison form: what decides that two units are the same (without the markup
    the setting ``markup`` names, ``normalize.visible_text``)."""
    text = strip_ignorables(text)
    return comparison_form(visible_text(text, markup) if markup != "none" else text)


def _minimal_runs(lengths: list[int], min_chars: int, at: int) -> set[tuple[int, int]]:
    """The minimal runs (first, last; numbered from ``at``) whose ``lengths`` reach
    ``min_chars``: from each unit forward and to each unit backward."""
    n = len(lengths)
    found: set[tuple[int, int]] = set()
    for i in range(n):
        total = 0
        for j in range(i, n):
            total += lengths[j]
            if total >= min_chars:
                found.add((at + i, at + j))
                break
        total = 0
        for j in range(i, -1, -1):
            total += lengths[j]
            if total >= min_chars:
                found.add((at + j, at + i))
                break
    return found


def windows(lengths: list[int], min_chars: int) -> list[tuple[int, int]]:
    """The windows (first, last unit) of units of ``lengths``: each unit of ``min_chars`` or
    more alone, and in each run of shorter units, the minimal runs of them that reach
    ``min_chars`` together (from each unit forward, to each unit backward); distinct, by first
    then last unit. A short unit next to a long one is never part of its window: a "Read
    more" after a repeated paragraph stays, a run of navigation lines goes."""
    found: set[tuple[int, int]] = set()
    short_from = -1
    for k, length in enumerate([*lengths, min_chars]):
        if length < min_chars:
            if short_from < 0:
                short_from = k
            continue
        if short_from >= 0:
            run = lengths[short_from:k]
            if sum(run) >= min_chars:
                found |= _minimal_runs(run, min_chars, short_from)
            short_from = -1
        if k < len(lengths):
            found.add((k, k))
    return sorted(found)


def text_spans(
    text: str, unit: str, min_chars: int = DEFAULT_MIN_SPAN_CHARS, markup: str = "none"
) -> TextSpans:
    """The units of ``text`` and its windows of at least ``min_chars`` (see ``windows``),
    units compared without their ``markup`` (``unit_form``)."""
    if min_chars < 1:
        raise ValueError("min_chars must be at least 1")
    starts, ends = unit_bounds(text, unit)
    breaks = unit_breaks(text, starts, ends)
    forms = [
        unit_form(text[a:b], markup).encode("utf-8", "surrogatepass")
        for a, b in zip(starts, ends, strict=True)
    ]
    # A form's length in UTF-8 bytes: a Latin letter 1, a CJK character 3 (WIDE_WEIGHT).
    spans = windows([len(f) for f in forms], min_chars)
    if spans:
        digests = b"".join(map(_digest, forms))
        hashes = b"".join(_digest(digests[16 * a : 16 * (b + 1)]) for a, b in spans)
    else:
        hashes = b""
    return TextSpans(
        starts, ends, breaks, [a for a, _ in spans], [b for _, b in spans], hashes
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
