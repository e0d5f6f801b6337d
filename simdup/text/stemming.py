"""Words by their stems, for sentence bags (``sentence_bags``): a rewording changes a word's
form as often as the word ("develops" for "developed", "studies" for "study"), and a bag of
exact words misses it.

The stemmer is a light one for English (and the Latin-script languages whose endings are
alike): inflections and the commonest derivations are cut (``-s``, ``-es``, ``-ies``,
``-ed``, ``-ing``, ``-ly``, ``-ment``, ``-ness``, ``-ation``...), a stem keeps three letters at
least, and a final ``e`` goes ("rate", "rated", "rating" are one). Over-stemming now and then
("news" and "new") costs little: a seed is a sentence's worth of shared features, never one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .tokens import Tokens, tokenize

# Longest first: the first that leaves a stem of three letters or more is cut.
_SUFFIXES = (
    ("ational", "ate"), ("ations", "ate"), ("ation", "ate"), ("nesses", ""), ("ness", ""),
    ("ments", ""), ("ment", ""), ("ingly", ""), ("edly", ""), ("ings", ""), ("ing", ""),
    ("ies", "y"), ("ied", "y"), ("ily", "y"), ("ers", ""), ("er", ""), ("ed", ""),
    ("ly", ""), ("es", ""), ("s", ""),
)  # fmt: skip
_MIN_STEM = 3


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """``word`` (case-folded) without its ending."""
    word = word.casefold()
    if len(word) <= _MIN_STEM or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= _MIN_STEM:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            word = word[: len(word) - len(suffix)] + replacement
            break
    if len(word) > _MIN_STEM and word.endswith("e"):
        word = word[:-1]
    if len(word) > _MIN_STEM and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "stopped" → "stopp" → "stop"
    return word


def stem_hashes(text: str, tokens: Tokens, which: np.ndarray) -> np.ndarray:
    """The hashes of the stems of the tokens ``which`` (bool over ``tokens``) of ``text``, as
    ``tokenize`` hashes a word (the hashes of other tokens unchanged). Each distinct word (by
    its folded hash) is stemmed once."""
    hashes = tokens.hashes.copy()
    at = np.flatnonzero(which)
    if not at.size:
        return hashes
    _, first, inverse = np.unique(hashes[at], return_index=True, return_inverse=True)
    starts, ends = tokens.starts[at[first]].tolist(), tokens.ends[at[first]].tolist()
    stems = [stem(text[a:b]) for a, b in zip(starts, ends, strict=True)]
    distinct = sorted(set(stems))
    stemmed = tokenize(" ".join(distinct))
    if len(stemmed) != len(distinct):  # a stem the tokenizer cuts in two: keep the words
        return hashes
    code = dict(zip(distinct, stemmed.hashes.tolist(), strict=True))
    by_word = np.array([code[s] for s in stems], dtype=np.uint64)
    hashes[at] = by_word[inverse.reshape(-1)]
    return hashes
