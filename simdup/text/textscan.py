"""From a text to its tokens' term codes: words, CJK runs, units, the memo of units.

A text's tokens are its words (maximal runs of letters and digits of any script except jieba's
Han range; ``_`` and punctuation separate) and the words jieba finds in its CJK runs.
Whitespace between two ideographs is layout (Chinese re-wrapped across lines), so a run
continues across it. ``scan`` gives the words and runs; ``units`` cuts a text at the line
breaks no token crosses; ``digest`` turns a text into counts of term codes, remembering each
unit's codes so that a line seen before (near-duplicate documents share most of theirs) is not
scanned and segmented again. ``collapse`` is ``" ".join(text.split())``.

The functions here define the results. ``digest`` and ``collapse`` also exist in the optional
C extension (simdup/native/textscan.c), several times faster with identical results
(tests/native/test_native.py).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from ..native import speedups

DigestResult = tuple[bytes, bytes, dict[int, int], int, int]

# jieba's own Han range; ideographs outside it are word characters like any other letter.
CJK_RANGE = "\u4e00-\u9fd5"
# A word: letters and digits of any script except the CJK range; "_" separates.
WORD = re.compile(rf"[^\W_{CJK_RANGE}]+")
# A CJK run, continuing across whitespace that has an ideograph on both sides.
CJK_RUN = re.compile(rf"[{CJK_RANGE}]+(?:\s+[{CJK_RANGE}]+)*")
_SPACE = re.compile(r"\s+")
RUN_SEPARATOR = "\n"


def scan(text: str) -> tuple[dict[str, int], str]:
    """Word counts and newline-joined CJK runs of ``text`` (the reference implementation)."""
    counts = dict(Counter(WORD.findall(text)))
    runs = CJK_RUN.findall(text)
    if not runs:
        return counts, ""
    # "\0" marks run boundaries while the whitespace inside runs is removed in one call.
    joined = _SPACE.sub("", "\0".join(runs)).replace("\0", RUN_SEPARATOR)
    return counts, joined


def collapse_python(text: str) -> str:
    """Every whitespace run one space, none at the ends (the reference implementation)."""
    return " ".join(text.split())


Register = Callable[[str], int]
Cut = Callable[[str], list[str]]
# The memo argument: a dict, or the native memo of a ``UnitMemo`` (its ``handle``).
Digest = Callable[[str, Any, dict[str, int], Register, Cut, int, int], DigestResult]

# A line break no token crosses: in a whitespace run that does not sit between two ideographs.
_UNIT_BREAK = re.compile(
    rf"(?<![\s{CJK_RANGE}])[^\S\n]*\n\s*|(?<!\s)[^\S\n]*\n\s*(?![\s{CJK_RANGE}])"
)


def units(text: str) -> list[str]:
    """The text cut at every line break that no token crosses, each piece trimmed, empty
    pieces dropped. A document's tokens are exactly the tokens of its units, so units can be
    memoised: near-duplicate documents share most of their lines."""
    return [unit for piece in _UNIT_BREAK.split(text) if (unit := piece.strip())]


def digest_python(
    text: str,
    memo: dict[str, bytes],
    codes: dict[str, int],
    register: Register,
    cut: Cut,
    n_slots: int,
    max_unit: int,
) -> DigestResult:
    """Term frequencies of ``text`` by code (the reference implementation).

    Every token of the text (see ``scan``) has an integer code: ``codes[token]``, or
    ``register(token)`` the first time (``register`` is expected to add it to ``codes``). The
    result is ``(slots, tf, other, tokens, stored)``: the codes ``0 <= c < n_slots`` that occur,
    in the order first met, as int64 bytes, and how often each occurs as float64 bytes; a dict
    counting the other codes except -1 (which is dropped); the number of tokens (-1 included);
    and how many characters of units were added to the memo.

    ``memo`` maps a unit (``units``) to the int32 codes of its tokens: a unit found there is
    not scanned or segmented again, and every other unit of at most ``max_unit`` characters is
    added to it. The CJK runs of the new units are segmented by ``cut``, joined by newlines, one
    call per group of units of about ``SEGMENT_CHUNK`` characters (so that a long text's token
    list stays bounded).
    """
    counts: Counter[int] = Counter()
    missed: list[str] = []
    for unit in units(text):
        hit = memo.get(unit)
        if hit is None:
            missed.append(unit)
        else:
            counts.update(array("i", hit))

    def code(surface: str) -> int:
        found = codes.get(surface)
        return register(surface) if found is None else found

    stored = 0
    for group in _groups(missed):
        scanned = [scan(unit) for unit in group]
        runs_of = [runs.split(RUN_SEPARATOR) if runs else [] for _, runs in scanned]
        joined = RUN_SEPARATOR.join(run for runs in runs_of for run in runs)
        segmented: list[list[str]] = [[]]
        for token in cut(joined) if joined else []:
            if token == RUN_SEPARATOR:
                segmented.append([])
            else:
                segmented[-1].append(token)
        if len(segmented) != (joined.count(RUN_SEPARATOR) + 1 if joined else 1):
            raise RuntimeError("segmenter output does not match its input's runs")
        next_run = 0
        for unit, (words, _), runs in zip(group, scanned, runs_of, strict=True):
            unit_codes = array("i")
            for word, n in words.items():
                unit_codes.extend([code(word)] * n)
            for _ in runs:
                unit_codes.extend(code(token) for token in segmented[next_run])
                next_run += 1
            if len(unit) <= max_unit:
                memo[unit] = unit_codes.tobytes()
                stored += len(unit)
            counts.update(unit_codes)
    dense = [c for c in counts if 0 <= c < n_slots]
    other = {c: n for c, n in counts.items() if not 0 <= c < n_slots and c != -1}
    return (
        array("q", dense).tobytes(),
        array("d", [float(counts[c]) for c in dense]).tobytes(),
        other,
        sum(counts.values()),
        stored,
    )

SEGMENT_CHUNK = 1 << 18


def _groups(missed: list[str]) -> list[list[str]]:
    """Consecutive units, each group the longest run within ``SEGMENT_CHUNK`` characters (at
    least one unit)."""
    groups: list[list[str]] = []
    chars = 0
    for unit in missed:
        if not groups or chars + len(unit) > SEGMENT_CHUNK:
            groups.append([])
            chars = 0
        groups[-1].append(unit)
        chars += len(unit)
    return groups


# The native versions when the C extension is there (simdup/native/__init__.py).
collapse: Callable[[str], str] = speedups.collapse if speedups else collapse_python
digest: Digest = speedups.digest if speedups else digest_python


class UnitMemo:
    """The memo of units (a unit -> the int32 codes of its tokens, as bytes) held by the C
    extension (``unit_memo``): ``digest`` looks a unit up where it lies in its text, with no str
    made, hashed and compared per unit (the dict's lookups were ~1/6 of a worker's time).
    Reads like the dict the Python version keeps; ``handle`` is what ``digest`` takes."""

    def __init__(self) -> None:
        if speedups is None:
            raise RuntimeError("UnitMemo needs the C extension (new_memo gives a dict without)")
        self._native = speedups
        self.handle: Any = speedups.unit_memo()

    def __len__(self) -> int:
        return int(self._native.unit_memo_size(self.handle))

    def __iter__(self) -> Iterator[str]:
        return iter(self._native.unit_memo_units(self.handle))

    def __contains__(self, unit: object) -> bool:
        return isinstance(unit, str) and self.get(unit) is not None

    def get(self, unit: str) -> bytes | None:
        found: bytes | None = self._native.unit_memo_get(self.handle, unit)
        return found

    def clear(self) -> None:
        self._native.unit_memo_clear(self.handle)


Memo = dict[str, bytes] | UnitMemo


def new_memo() -> Memo:
    """An empty memo of units for ``digest``: native where the extension is built."""
    return UnitMemo() if speedups is not None else {}


def memo_handle(memo: Memo) -> Any:
    """What ``digest`` takes for ``memo``."""
    return memo.handle if isinstance(memo, UnitMemo) else memo
