"""A text as the letters of its tokens: what a typo is measured on.

A token (``text.tokens``) is one CJK character or one word; a typo changes one letter of a word,
but the word is then another token, so an 8-word sentence with two typos is 6/8 alike by tokens
and 0.96 alike by letters. The *letters* of a text are its tokens' characters, folded as tokens
are compared (NFKC, case, look-alike letters, traditional characters; invisible characters
left out), with one separator (code 0) between two consecutive words and none next to a CJK
character: ``"Hello,  World!"`` is ``hello·world``, ``"使用 Python 的"`` is ``使用python的``.
Whitespace, punctuation and line breaks play no part, as for tokens. Each letter keeps its
character offset in the text and the number of its token (a separator those of the word after
it), so a stretch of letters is reported on characters and on tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..native import speedups
from .normalize import markup_spans
from .tokens import _CJK_CHAR, _INVISIBLE_CHAR, _WORD_CHAR, _classify, _mix, _native_tables

# The separator between two words, as a folded code point (no character folds to it).
SEPARATOR = 0


@dataclass(frozen=True)
class Letters:
    """A text's letters (see the module): folded code points (``codes``, uint32; 0 is the
    separator), the character offset of each in the text (``offsets``; a separator's is the
    next letter's) and the number of its token (``tokens``; as ``text_tokens`` numbers them)."""

    codes: np.ndarray  # uint32
    offsets: np.ndarray  # int64
    tokens: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.codes.size)

    @property
    def hashes(self) -> np.ndarray:
        """Each letter's stable 64-bit hash (what grams of letters are made of)."""
        return letter_hashes(self.codes)

    def cuts(self) -> tuple[np.ndarray, np.ndarray]:
        """Where a stretch of whole tokens may start and end: for each of the ``len + 1``
        boundaries between letters, whether a token's first letter follows it (``may_start``)
        and whether a token's last letter precedes it (``may_end``); a separator is neither."""
        n = self.codes.size
        letter = self.codes != SEPARATOR
        new_token = np.ones(n, dtype=bool)
        new_token[1:] = self.tokens[1:] != self.tokens[:-1]
        after_separator = np.zeros(n, dtype=bool)
        after_separator[1:] = ~letter[:-1]
        may_start = np.zeros(n + 1, dtype=bool)
        may_start[:n] = letter & (new_token | after_separator)
        may_end = np.zeros(n + 1, dtype=bool)
        may_end[1:] = letter
        may_end[1:n] &= ~letter[1:] | new_token[1:]
        return may_start, may_end


def letter_hashes(codes: np.ndarray) -> np.ndarray:
    """The stable 64-bit hash of each folded code point (splitmix64's finaliser of the code
    point plus a constant, so the separator hashes to no zero)."""
    mixed: np.ndarray = _mix(np.asarray(codes, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15))
    return mixed


def letters(text: str, markup: str = "none") -> Letters:
    """The letters of ``text`` (the module's definition), the tokens of its ``markup`` left out
    as ``text_tokens`` leaves them out (a token starting inside a tag or a link target)."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    values, offsets, tokens, word = _letters_of(codes)
    if markup != "none" and values.size:
        ranges = markup_spans(text, markup)
        if ranges:
            values, offsets, tokens, word = _outside(values, offsets, tokens, word, ranges)
    return _separated(values, offsets, tokens, word)


def row_letter_hashes(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The letter hashes of many texts one after the other, and each letter's text number
    (ascending): what ``letters(text).hashes`` gives each text, in one call (native when
    built, else ``row_letter_hashes_python``)."""
    if speedups is None:
        return row_letter_hashes_python(texts)
    hashes, rows = speedups.row_letter_hashes(texts, *_native_tables())
    return np.frombuffer(hashes, np.uint64), np.frombuffer(rows, np.int64)


def row_letter_hashes_python(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``row_letter_hashes`` in array operations: the texts joined by line breaks (no letters;
    a word of one text and the next are then two words, and the separator between them is
    dropped)."""
    if not texts:
        return np.empty(0, np.uint64), np.empty(0, np.int64)
    joined = "\n".join(texts)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    found = _separated(*_letters_of(codes))
    bounds = np.cumsum(np.fromiter((len(t) + 1 for t in texts), np.int64, len(texts)))
    rows: np.ndarray = np.searchsorted(bounds, found.offsets, "right").astype(np.int64)
    # A separator whose next letter starts another text belongs to neither: dropped.
    first = np.ones(rows.size, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    keep = ~(first & (found.codes == SEPARATOR))
    return letter_hashes(found.codes[keep]), rows[keep]


def _letters_of(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of a text's code points: its letters without separators (folded codes, offsets, token
    numbers, whether each is a word's letter), tokens cut as ``tokenize`` cuts them."""
    kind, folded = _classify(codes)
    # Invisible characters are taken out first: a word they sit in stays one word.
    visible = np.flatnonzero(kind != _INVISIBLE_CHAR)
    if visible.size != codes.size:
        kind, folded = kind[visible], folded[visible]
    is_word = kind == _WORD_CHAR
    is_cjk = kind == _CJK_CHAR
    previous_word = np.zeros(kind.size, dtype=bool)
    previous_word[1:] = is_word[:-1]
    begins = is_cjk | (is_word & ~previous_word)
    token = np.cumsum(begins, dtype=np.int64) - 1
    kept = np.flatnonzero(is_word | is_cjk)
    return (folded[kept].astype(np.uint32), visible[kept].astype(np.int64), token[kept],
            is_word[kept])  # fmt: skip


def _outside(
    values: np.ndarray, offsets: np.ndarray, tokens: np.ndarray, word: np.ndarray,
    ranges: list[tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The letters of the tokens that do not start inside one of ``ranges`` (``Tokens.outside``),
    the tokens numbered again."""
    first = np.ones(tokens.size, dtype=bool)
    first[1:] = tokens[1:] != tokens[:-1]
    starts = offsets[first]
    bounds = np.array(ranges, dtype=np.int64).reshape(-1, 2)
    lo = np.searchsorted(starts, bounds[:, 0], "left")
    hi = np.searchsorted(starts, bounds[:, 1], "left")
    depth = np.zeros(starts.size + 1, dtype=np.int64)
    np.add.at(depth, lo, 1)
    np.add.at(depth, hi, -1)
    kept_token = np.cumsum(depth[:-1]) == 0
    renumbered = np.cumsum(kept_token, dtype=np.int64) - 1
    keep = kept_token[tokens]
    return values[keep], offsets[keep], renumbered[tokens[keep]], word[keep]


def _separated(
    values: np.ndarray, offsets: np.ndarray, tokens: np.ndarray, word: np.ndarray
) -> Letters:
    """The letters with a separator before each word that follows a word."""
    before = np.zeros(values.size, dtype=bool)
    before[1:] = word[1:] & word[:-1] & (tokens[1:] != tokens[:-1])
    if not before.any():
        return Letters(values.astype(np.uint32), offsets, tokens)
    # Each letter moves right by the separators before it; a separator takes the place
    # before its word, with the word's offset and token.
    place = np.arange(values.size, dtype=np.int64) + np.cumsum(before, dtype=np.int64)
    size = values.size + int(np.count_nonzero(before))
    codes = np.full(size, SEPARATOR, dtype=np.uint32)
    codes[place] = values
    spread_offsets = np.empty(size, dtype=np.int64)
    spread_tokens = np.empty(size, dtype=np.int64)
    spread_offsets[place] = offsets
    spread_tokens[place] = tokens
    gaps = place[before] - 1
    spread_offsets[gaps] = offsets[before]
    spread_tokens[gaps] = tokens[before]
    return Letters(codes, spread_offsets, spread_tokens)
