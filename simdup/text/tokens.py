"""A text as tokens that keep their place: what copied fragments are found from.

A *token* is one CJK character (ideographs and kana: a copy in Chinese is counted in
characters, and a character never depends on how a segmenter cut the sentence) or one word
(a maximal run of letters and digits of any other script). Each token keeps its character
offsets in the text as read, so a fragment found on tokens is reported on characters, and
whitespace and line breaks between tokens play no part in what is found.

Tokens are compared folded: NFKC (full-width letters and digits are the ASCII ones), case
folded, and Cyrillic and Greek letters that look like Latin ones read as the Latin letter;
zero-width characters and soft hyphens inside a word are ignored. These are the tricks used to
hide a copy from a checker; ``disguises`` lists where a text uses them, for a warning.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..algorithms.hashing import token_hash

# Ideographs (the basic block, extension A, compatibility ideographs) and kana: one token each.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"([{CJK_CHARS}])|([^\W_{CJK_CHARS}]+)")
# Characters a reader does not see: a copy can be hidden from a checker by putting them
# inside words.
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_INVISIBLE = re.compile(f"[{INVISIBLE}]")
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
    """How a token is compared: NFKC, case folded, look-alike letters read as Latin."""
    return unicodedata.normalize("NFKC", word).casefold().translate(LOOK_ALIKES)


@dataclass(frozen=True)
class Tokens:
    """A text's tokens as parallel arrays: character offsets ``starts``/``ends`` (in the text
    as given), the stable hash of the folded token, whether it is a CJK character, and its
    *units*: the characters it counts for in a ratio (a CJK character 1, a word its letters and
    digits)."""

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


def tokenize(text: str) -> Tokens:
    """The tokens of ``text`` with their offsets in it (invisible characters skipped)."""
    where: np.ndarray | None = None
    scanned = text
    if _INVISIBLE.search(text):
        # Tokens are found in the text without them; ``where`` maps back to the text's offsets.
        kept = [i for i, ch in enumerate(text) if ch not in INVISIBLE]
        scanned = "".join(text[i] for i in kept)
        where = np.array([*kept, len(text)], dtype=np.int64)
    starts: list[int] = []
    ends: list[int] = []
    hashes: list[int] = []
    cjk: list[bool] = []
    units: list[int] = []
    memo: dict[str, int] = {}
    for match in _TOKEN.finditer(scanned):
        word = match.group()
        value = memo.get(word)
        if value is None:
            value = memo[word] = token_hash(fold(word))
        starts.append(match.start())
        ends.append(match.end())
        hashes.append(value)
        is_cjk = match.lastindex == 1
        cjk.append(is_cjk)
        units.append(1 if is_cjk else len(word))
    start_array = np.array(starts, dtype=np.int64)
    end_array = np.array(ends, dtype=np.int64)
    if where is not None:
        start_array = where[start_array]
        end_array = where[end_array - 1] + 1 if end_array.size else end_array
    return Tokens(
        start_array,
        end_array,
        np.array(hashes, dtype=np.uint64),
        np.array(cjk, dtype=bool),
        np.array(units, dtype=np.int64),
    )


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
