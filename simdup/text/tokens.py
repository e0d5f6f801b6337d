"""A text as tokens that keep their place: what copied fragments are found from.

A *token* is one CJK character (ideographs and kana: a copy in Chinese is counted in
characters, and a character never depends on how a segmenter cut the sentence) or one word
(a maximal run of letters and digits of any other script). Each token keeps its character
offsets in the text as read, so a fragment found on tokens is reported on characters, and
whitespace and line breaks between tokens play no part in what is found.

Tokens are compared folded: NFKC (full-width letters and digits are the ASCII ones), case
folded, Cyrillic and Greek letters that look like Latin ones read as the Latin letter, and
traditional or variant Chinese characters read as their simplified form (``variants``);
zero-width characters and soft hyphens inside a word are ignored. These are the tricks used to
hide a copy from a checker; ``disguises`` lists where a text uses them, for a warning.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..native import speedups
from .normalize import DEFAULT_IGNORABLE, markup_spans
from .variants import simplified_forms

# Characters a reader does not see (the scan's default-ignorable ones): a copy can be hidden
# from a checker by putting them inside words.
_INVISIBLE = re.compile(
    "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in DEFAULT_IGNORABLE) + "]"
)
# Cyrillic and Greek letters drawn like Latin ones (after case folding).
LOOK_ALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
        "ԛ": "q", "ԝ": "w", "ɑ": "a", "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k",
        "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    }
)  # fmt: skip
_LATIN = re.compile(r"[a-zA-Z]")
_LOOKALIKE_CHARS = re.compile("[" + "".join(chr(c) for c in LOOK_ALIKES) + "]", re.I)

# A CJK character counts as this much of a word towards a fragment's length: 13 characters
# are as long a match as 8 words (the "13 consecutive characters" of the Chinese checking
# services, the 8 words of the English ones).
CJK_WEIGHT = 8 / 13


def fold(word: str) -> str:
    """How a token is compared, character by character: NFKC, case folded, look-alike letters
    read as Latin (a character whose folded form is several characters, such as "ß", stays
    itself)."""
    return "".join(_fold_char(ch) for ch in word)


def _fold_char(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", ch).casefold().translate(LOOK_ALIKES)
    return folded if len(folded) == 1 else ch


# Character classes of the basic multilingual plane, built once per process: 0 separates
# tokens, 1 is a word character, 2 a CJK character, 3 is invisible (skipped inside a word).
_SEPARATOR, _WORD_CHAR, _CJK_CHAR, _INVISIBLE_CHAR = 0, 1, 2, 3
_TABLES: tuple[np.ndarray, np.ndarray] | None = None
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
# Ideographs outside the basic plane (extensions B to F): CJK characters too.
_CJK_ASTRAL = (0x20000, 0x2FA1F)


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The class of every BMP character and its folded code point."""
    global _TABLES
    if _TABLES is None:
        chars = [chr(c) for c in range(0x10000)]
        kind = np.fromiter(
            (_WORD_CHAR if ch.isalnum() else _SEPARATOR for ch in chars), np.uint8, 0x10000
        )
        for lo, hi in _CJK_RANGES:
            kind[lo : hi + 1] = _CJK_CHAR
        for lo, hi in DEFAULT_IGNORABLE:
            if lo < 0x10000:
                kind[lo : min(hi, 0xFFFF) + 1] = _INVISIBLE_CHAR
        folded = np.arange(0x10000, dtype=np.uint64)
        for c in np.flatnonzero(kind == _WORD_CHAR).tolist():
            folded[c] = ord(_fold_char(chars[c]))
        for traditional, simplified in simplified_forms().items():
            if traditional < 0x10000 and kind[traditional] == _CJK_CHAR:
                folded[traditional] = simplified
        _TABLES = kind, folded
    return _TABLES


def _astral_class(c: int) -> tuple[int, int]:
    """The class and folded code point of a character outside the basic plane."""
    if any(lo <= c <= hi for lo, hi in DEFAULT_IGNORABLE):
        return _INVISIBLE_CHAR, c
    if _CJK_ASTRAL[0] <= c <= _CJK_ASTRAL[1]:
        return _CJK_CHAR, simplified_forms().get(c, c)
    if chr(c).isalnum():
        return _WORD_CHAR, ord(_fold_char(chr(c)))
    return _SEPARATOR, c


def _classify(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    kind_table, fold_table = _tables()
    basic = codes < 0x10000
    if basic.all():
        return kind_table[codes], fold_table[codes]
    kind = np.zeros(codes.size, dtype=np.uint8)
    folded = codes.astype(np.uint64)
    kind[basic] = kind_table[codes[basic]]
    folded[basic] = fold_table[codes[basic]]
    for c in np.unique(codes[~basic]).tolist():
        at = codes == c
        kind[at], folded[at] = _astral_class(c)
    return kind, folded


class _AstralClasses(dict[int, int]):
    """What the native tokeniser asks of a character outside the basic plane: its class +
    4 * its folded code point, computed once per process (``_astral_class``)."""

    def __missing__(self, c: int) -> int:
        kind, folded = _astral_class(c)
        self[c] = packed = kind + 4 * folded
        return packed


_NATIVE_TABLES: tuple[bytes, _AstralClasses] | None = None


def _native_tables() -> tuple[bytes, _AstralClasses]:
    """The tables as the native tokeniser takes them: each BMP character's folded code point
    + its class << 24 (uint32), and the mapping for the other planes."""
    global _NATIVE_TABLES
    if _NATIVE_TABLES is None:
        kind, folded = _tables()
        packed = folded.astype(np.uint32) | (kind.astype(np.uint32) << np.uint32(24))
        _NATIVE_TABLES = packed.tobytes(), _AstralClasses()
    return _NATIVE_TABLES


# A token's hash: a polynomial of its folded code points modulo 2**64 (computed for a whole
# text with prefix sums: ``_BASE`` is odd, so it has an inverse), then mixed by splitmix64's
# finaliser. Integer arithmetic only: the same on every machine and in every process.
_BASE = 0x9E3779B97F4A7C15
_BASE_INVERSE = pow(_BASE, -1, 1 << 64)


def _powers(base: int, n: int) -> np.ndarray:
    powers = np.full(n, base, dtype=np.uint64)
    if n:
        powers[0] = 1
    out: np.ndarray = np.cumprod(powers, dtype=np.uint64)
    return out


def _mix(z: np.ndarray) -> np.ndarray:
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    mixed: np.ndarray = z ^ (z >> np.uint64(31))
    return mixed


@dataclass(frozen=True)
class Tokens:
    """A text's tokens as parallel arrays: character offsets ``starts``/``ends`` (in the text
    as given), the stable 64-bit hash of the folded token, whether it is a CJK character, and
    its *units*: the characters it counts for in a ratio (a CJK character 1, a word its letters
    and digits)."""

    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    hashes: np.ndarray  # uint64
    cjk: np.ndarray  # bool
    units: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.starts.size)

    @property
    def weights(self) -> np.ndarray:
        """Each token's length as a match counts it, in words."""
        weights: np.ndarray = np.where(self.cjk, CJK_WEIGHT, 1.0)
        return weights

    def span(self, first: int, last: int) -> tuple[int, int]:
        """The character offsets of tokens ``first..last`` (inclusive)."""
        return int(self.starts[first]), int(self.ends[last])

    def compact(self) -> Tokens:
        """The same tokens in narrower arrays, to be kept (offsets below 2**31)."""
        return Tokens(
            self.starts.astype(np.int32),
            self.ends.astype(np.int32),
            self.hashes,
            self.cjk,
            self.units.astype(np.int32),
        )

    def outside(self, ranges: list[tuple[int, int]]) -> Tokens:
        """The tokens that do not start inside one of ``ranges`` (character offsets)."""
        if not ranges:
            return self
        bounds = np.array(ranges, dtype=np.int64).reshape(-1, 2)
        lo = np.searchsorted(self.starts, bounds[:, 0], "left")
        hi = np.searchsorted(self.starts, bounds[:, 1], "left")
        # +1 where a range starts, -1 where it ends: a token is inside where the sum is > 0.
        depth = np.zeros(len(self) + 1, dtype=np.int64)
        np.add.at(depth, lo, 1)
        np.add.at(depth, hi, -1)
        inside = np.cumsum(depth[:-1]) > 0
        keep = ~inside
        return Tokens(
            self.starts[keep], self.ends[keep], self.hashes[keep], self.cjk[keep], self.units[keep]
        )


def tokenize(text: str) -> Tokens:
    """The tokens of ``text`` with their offsets in it (invisible characters skipped): in one
    native pass when the extension is built, else ``tokenize_python``; the same either way."""
    if speedups is None:
        return tokenize_python(text)
    starts, ends, hashes, cjk, units = speedups.fragment_tokens(text, *_native_tables())
    return Tokens(
        np.frombuffer(starts, np.int64),
        np.frombuffer(ends, np.int64),
        np.frombuffer(hashes, np.uint64),
        np.frombuffer(cjk, np.bool_),
        np.frombuffer(units, np.int64),
    )


def text_tokens(text: str, markup: str = "none") -> Tokens:
    """``tokenize(text)`` without the tokens inside the markup the setting ``markup`` names
    (``params.MARKUPS``: tags, link targets...; ``normalize.markup_spans``); the others keep
    their offsets in ``text`` as read."""
    tokens = tokenize(text)
    return tokens if markup == "none" else tokens.outside(markup_spans(text, markup))


def row_token_hashes(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The token hashes of many texts one after the other, and each token's text number
    (ascending): what ``tokenize`` gives each text, in one call (native when built, else
    ``row_token_hashes_python``)."""
    if speedups is None:
        return row_token_hashes_python(texts)
    hashes, rows = speedups.row_token_hashes(texts, *_native_tables())
    return np.frombuffer(hashes, np.uint64), np.frombuffer(rows, np.int64)


def row_token_hashes_python(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``row_token_hashes`` in array operations: the texts joined by line breaks (a separator:
    no token crosses one) are tokenised at once, and each token's text found by its start."""
    if not texts:
        return np.empty(0, np.uint64), np.empty(0, np.int64)
    tokens = tokenize_python("\n".join(texts))
    bounds = np.cumsum(np.fromiter((len(t) + 1 for t in texts), np.int64, len(texts)))
    rows: np.ndarray = np.searchsorted(bounds, tokens.starts, "right").astype(np.int64)
    return tokens.hashes, rows


def tokenize_python(text: str) -> Tokens:
    """``tokenize`` for a whole text in a few array operations (the native pass's twin)."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    kind, folded = _classify(codes)
    # Invisible characters are taken out first: a word they sit in stays one word.
    kept = np.flatnonzero(kind != _INVISIBLE_CHAR)
    if kept.size != codes.size:
        kind, folded = kind[kept], folded[kept]
    n = kind.size
    is_word = kind == _WORD_CHAR
    is_cjk = kind == _CJK_CHAR
    # A token starts at a CJK character, or at a word character after a non-word one.
    previous_word = np.zeros(n, dtype=bool)
    previous_word[1:] = is_word[:-1]
    begins = np.flatnonzero(is_cjk | (is_word & ~previous_word))
    next_word = np.zeros(n, dtype=bool)
    next_word[:-1] = is_word[1:]
    ends = np.flatnonzero(is_cjk | (is_word & ~next_word)) + 1
    cjk = is_cjk[begins]
    # Prefix sums of code * BASE**i: a token's sum times BASE**-start is its polynomial.
    prefix = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(folded * _powers(_BASE, n), out=prefix[1:])
    raw = (prefix[ends] - prefix[begins]) * _powers(_BASE_INVERSE, n)[begins] if n else prefix[:0]
    hashes = _mix(raw ^ (ends - begins).astype(np.uint64))
    units = (ends - begins).astype(np.int64)
    if kept.size != codes.size:
        begins, ends = kept[begins], kept[ends - 1] + 1
    return Tokens(begins.astype(np.int64), ends.astype(np.int64), hashes, cjk, units)


@dataclass(frozen=True)
class Disguise:
    """Where a text uses a character that hides a copy from a checker: ``kind`` is
    "invisible" (zero-width characters, soft hyphens) or "look-alike" (a Cyrillic or Greek
    letter inside a Latin word); ``count`` of them, the first at ``start:end``."""

    kind: str
    count: int
    start: int
    end: int


def disguises(text: str) -> list[Disguise]:
    """The invisible characters and look-alike letters of ``text``, for a warning."""
    found: list[Disguise] = []
    invisible = [m.start() for m in _INVISIBLE.finditer(text)]
    if invisible:
        found.append(Disguise("invisible", len(invisible), invisible[0], invisible[0] + 1))
    mixed: list[tuple[int, int]] = []
    for match in re.finditer(r"[^\W\d_]+", text):
        word = match.group()
        if _LATIN.search(word) and _LOOKALIKE_CHARS.search(word):
            mixed.append((match.start(), match.end()))
    if mixed:
        found.append(Disguise("look-alike", len(mixed), mixed[0][0], mixed[0][1]))
    return found
