"""A text's tokens as sentences of features, for ``algorithms.sentences`` (reworded copies).

Sentences end at ``. ! ? ;`` followed by a space or the end, at CJK ``。！？；`` and at blank
lines (a heading or a list item without a full stop is its own sentence then); a sentence of
fewer than ``MIN_SENTENCE_FEATURES`` features is read with the next. A feature is a word token
of two characters or more that is no stopword, by its stem (``stemming``), or a pair of
neighbouring CJK characters of one sentence neither of which is a one-character stopword (的,
了, 是...): the tokens' folded hashes, so look-alike letters and traditional characters match
as in ``tokens``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..algorithms.sentences import Side
from .stemming import stem_hashes
from .stopwords import bundled_stopwords
from .tokens import Tokens, tokenize

# A sentence with fewer features than this is read with the next one (a list number "2、", a
# heading of one word, a byline): alone it would match its like anywhere.
MIN_SENTENCE_FEATURES = 3
def _table(chars: str) -> np.ndarray:
    table = np.zeros(0x10000, dtype=bool)
    table[[ord(c) for c in chars]] = True
    return table


# Code point tables of the basic plane (what lies beyond it is none of these).
_LATIN_END = _table(".!?;")
_CJK_END = _table("。！？；")
# After a Latin sentence end: whitespace, or a closing quote or bracket (then whatever).
_AFTER_LATIN_END = _table(" \t\r\n\"')]”’")
_SOLID = ~_table(" \t\r")  # anything but spaces and tabs
_NEWLINE = ord("\n")



@lru_cache(maxsize=1)
def _stop_hashes() -> tuple[np.ndarray, np.ndarray]:
    """Hashes of the stopwords that are one word token, and of the CJK one-character ones."""
    words: list[int] = []
    chars: list[int] = []
    for word in bundled_stopwords():
        tokens = tokenize(word)
        if len(tokens) != 1:
            continue
        (chars if bool(tokens.cjk[0]) else words).append(int(tokens.hashes[0]))
    return np.unique(np.array(words, np.uint64)), np.unique(np.array(chars, np.uint64))


def _pair_hash(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = a * np.uint64(0x9E3779B97F4A7C15) + b + np.uint64(1)
        z ^= z >> np.uint64(31)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(29)
    mixed: np.ndarray = z
    return mixed


def sentence_ends(text: str) -> np.ndarray:
    """Offsets just past each sentence end of ``text`` (ascending): ``. ! ? ;`` before
    whitespace, a closing mark or the end; ``。！？；``; a line break starting a blank line.
    Only where tokens fall between them matters (punctuation is no token)."""
    return _ends(text)[0]


def _ends(text: str) -> tuple[np.ndarray, np.ndarray]:
    """``sentence_ends``, and the paragraph ends among them (blank lines)."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    basic = np.minimum(codes, 0xFFFF)  # U+FFFF is in no table
    after = np.append(basic[1:], np.uint32(ord(" ")))  # the end of the text is a space
    ends = (_LATIN_END[basic] & _AFTER_LATIN_END[after]) | _CJK_END[basic]
    newlines = np.flatnonzero(codes == _NEWLINE)
    paragraphs = np.empty(0, dtype=np.int64)
    if newlines.size > 1:
        # Characters other than spaces and tabs up to each position: none between two line
        # breaks makes the second one start a blank line.
        solid = np.cumsum(_SOLID[basic])
        between = solid[newlines[1:] - 1] - solid[newlines[:-1]]
        paragraphs = newlines[1:][between == 0]
        ends[paragraphs] = True
    return np.flatnonzero(ends).astype(np.int64) + 1, paragraphs.astype(np.int64) + 1


def _among(hashes: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each hash is in ``table`` (sorted, distinct)."""
    if not table.size:
        return np.zeros(hashes.size, dtype=bool)
    at = np.minimum(np.searchsorted(table, hashes), table.size - 1)
    found: np.ndarray = table[at] == hashes
    return found


def sentence_side(text: str, tokens: Tokens) -> Side:
    """The sentences and features of ``text`` whose tokens are ``tokens``."""
    ends, paragraph_ends = _ends(text)
    paragraph = np.searchsorted(paragraph_ends, tokens.starts, "right").astype(np.int64)
    sentence = np.searchsorted(ends, tokens.starts, "right").astype(np.int64)
    if sentence.size:  # numbered 0, 1, ... without empty sentences
        sentence = np.cumsum(np.r_[0, np.diff(sentence) != 0]).astype(np.int64)
    stop_words, stop_chars = _stop_hashes()
    hashes, cjk = tokens.hashes, tokens.cjk
    # A one-character word ("x", "2", "a") says nothing of what a sentence is about.
    word = ~cjk & (tokens.units > 1) & ~_among(hashes, stop_words)
    # A word by its stem (``stemming``): a rewording changes forms as often as words.
    feature = np.where(word, stem_hashes(text, tokens, word), np.uint64(0))
    forms = np.where(word, hashes, np.uint64(0))
    if cjk.any():
        plain = cjk & ~_among(hashes, stop_chars)
        pair = np.zeros(len(tokens), dtype=bool)
        pair[:-1] = (
            plain[:-1] & plain[1:] & (sentence[:-1] == sentence[1:])
            & (tokens.ends[:-1] == tokens.starts[1:])
        )  # fmt: skip
        at = np.flatnonzero(pair)
        feature[at] = _pair_hash(hashes[at], hashes[at + 1])
        forms[at] = feature[at]
    joined = _joined_short(sentence, paragraph, feature)
    # Each sentence's paragraph: that of its first token (a sentence never spans two).
    count = int(joined[-1]) + 1 if joined.size else 0
    sentence_paragraph = paragraph[np.searchsorted(joined, np.arange(count))]
    return Side(feature, joined, tokens.weights.astype(np.float64), forms, sentence_paragraph)


def _joined_short(sentence: np.ndarray, paragraph: np.ndarray, feature: np.ndarray) -> np.ndarray:
    """Sentence numbers with each sentence of fewer than ``MIN_SENTENCE_FEATURES`` features
    joined to the next one of its paragraph (a short last one to the one before; a paragraph
    of short sentences is one). Never across paragraphs: a copied paragraph ends where it ends."""
    if not sentence.size:
        return sentence
    counts = np.bincount(sentence, weights=feature != 0).tolist()
    first_token = np.searchsorted(sentence, np.arange(len(counts)), "left")
    para = paragraph[first_token].tolist()
    renumber = np.empty(len(counts), dtype=np.int64)
    current = held = start = 0
    previous_para = -1  # the paragraph of the group before the current one
    for k, count in enumerate(counts):
        renumber[k] = current
        held += int(count)
        last_in_paragraph = k + 1 == len(counts) or para[k + 1] != para[k]
        if held < MIN_SENTENCE_FEATURES and not last_in_paragraph:
            continue
        if held < MIN_SENTENCE_FEATURES and current and previous_para == para[k]:
            renumber[start : k + 1] = current - 1  # a short tail joins the one before
        else:
            previous_para = para[k]
            current += 1
        held, start = 0, k + 1
    joined: np.ndarray = renumber[sentence]
    return joined
