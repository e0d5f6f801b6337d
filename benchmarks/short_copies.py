"""The short-text benchmark (``short.py``): the planted copies. How many (a share of the
originals), with what edit similarity (edited copies, hard negatives), the language quotas;
normalised copies (other bytes, the same normalised form), edited copies (character edits of
the script's own characters, word swaps) and the sampling of rows by language. Run short.py,
not this."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable

from short_rows import CJK, LANGS, MIN_NORMALISED, normalised, similarity

COPY_SHARE = 0.15
# Quotas of the originals (and of each band's copies) by language; zh takes the rest.
LANG_QUOTA = {"en": 1 / 3, "mixed": 1 / 6}
EDITED_RANGE = (0.90, 0.99)
NEGATIVE_RANGE = (0.70, 0.85)

# ---------------------------------------------------------------- planted copies

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
_PUNCT_SWAP = {
    ",": "，", "，": ",", ".": "。", "。": ".", ":": "：", "：": ":", ";": "；", "；": ";",
    "!": "！", "！": "!", "?": "？", "？": "?", "(": "（", "（": "(", ")": "）", "）": ")",
    "、": ",", '"': "“", "“": '"', "”": '"', "'": "’", "’": "'",
}  # fmt: skip
_PUNCT = re.compile(r"[^\w\s]")
_WORD_CHAR = re.compile(r"[^\W_]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _case_change(text: str, rng: random.Random) -> str:
    words = list(_LATIN_WORD.finditer(text))
    if not words:
        return text
    mode = rng.choice(("upper", "lower", "title", "words"))
    if mode == "upper":
        return text.upper()
    if mode == "lower":
        return text.lower()
    if mode == "title":
        return _LATIN_WORD.sub(lambda m: m.group(0).capitalize(), text)
    chosen = set(rng.sample(range(len(words)), max(1, len(words) // 3)))
    parts, last = [], 0
    for k, m in enumerate(words):
        word = m.group(0).swapcase() if k in chosen else m.group(0)
        parts += [text[last : m.start()], word]
        last = m.end()
    return "".join(parts) + text[last:]


def _fullwidth(text: str, rng: random.Random) -> str:
    """Some ASCII (a word, a run, or all of it) in full-width forms; a space as U+3000."""
    if rng.random() < 0.3:
        return "".join(_FULLWIDTH.get(c, "\u3000" if c == " " else c) for c in text)
    spans = [m.span() for m in re.finditer(r"[!-~]+", text)]
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:a] + "".join(_FULLWIDTH[c] for c in text[a:b]) + text[b:]


def _whitespace(text: str, rng: random.Random) -> str:
    """One whitespace change: a space added (doubled, around punctuation, between CJK
    ideographs, at an end) or removed (beside punctuation)."""
    choice = rng.random()
    if choice < 0.3:
        spaces = [m.start() for m in re.finditer(" ", text)]
        if spaces:
            at = rng.choice(spaces)
            return text[:at] + rng.choice(("  ", " \t", "\n ")) + text[at + 1 :]
    if choice < 0.6:
        spots = [m.start() for m in _PUNCT.finditer(text)]
        if spots:
            at = rng.choice(spots) + rng.choice((0, 1))
            return text[:at] + " " + text[at:]
    if choice < 0.8:
        spots = [m.start() for m in re.finditer(r" (?=[^\w\s])|(?<=[^\w\s]) ", text)]
        if spots:
            at = rng.choice(spots)
            return text[:at] + text[at + 1 :]
    if choice < 0.9:
        spots = [m.end() for m in CJK.finditer(text[:-1]) if CJK.match(text, m.end())]
        if spots:
            at = rng.choice(spots)
            return text[:at] + " " + text[at:]
    return rng.choice((" " + text, text + " ", text + "\n"))


def _punctuation(text: str, rng: random.Random) -> str:
    """One punctuation mark changed (ASCII <-> full-width Chinese) or dropped."""
    spots = [m.start() for m in _PUNCT.finditer(text)]
    if not spots:
        return text
    at = rng.choice(spots)
    mark = text[at]
    if mark in _PUNCT_SWAP and rng.random() < 0.6:
        return text[:at] + _PUNCT_SWAP[mark] + text[at + 1 :]
    if at == len(text) - 1 and rng.random() < 0.5:
        return text[:at]  # the final full stop dropped
    return text[:at] + text[at + 1 :]


_NORMALISING = (_case_change, _fullwidth, _whitespace, _punctuation)


def normalised_copy(text: str, rng: random.Random) -> str | None:
    """Other bytes with the same normalised form: 1-4 changes, each kept only when the
    normalised form stays the same."""
    form = normalised(text)
    copy = text
    for _ in range(40):
        change = rng.choice(_NORMALISING)
        candidate = change(copy, rng)
        if candidate != copy and normalised(candidate) == form:
            copy = candidate
            if rng.random() < 0.4:
                break
    return copy if copy != text else None


class Alphabet:
    """Characters to insert or substitute, by script: CJK ideographs as often as the pool uses
    them, Latin letters, digits."""

    def __init__(self, texts: Iterable[str]):
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(CJK.findall(text))
        self.cjk = sorted(counts)
        self.weights = [counts[c] for c in self.cjk]

    def like(self, char: str, rng: random.Random) -> str:
        """A character of ``char``'s script other than ``char`` (case kept for letters)."""
        if CJK.match(char):
            for _ in range(10):
                other = rng.choices(self.cjk, self.weights)[0]
                if other != char:
                    return other
            return rng.choice(self.cjk)
        if char.isdigit():
            return rng.choice([d for d in "0123456789" if d != char])
        letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c != char.lower()]
        other = rng.choice(letters)
        return other.upper() if char.isupper() else other


def _one_edit(text: str, rng: random.Random, alphabet: Alphabet) -> str:
    words = list(_LATIN_WORD.finditer(text))
    if len(words) >= 2 and rng.random() < 0.15:
        k = rng.randrange(len(words) - 1)
        (a, b), (c, d) = words[k].span(), words[k + 1].span()
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    spots = [m.start() for m in _WORD_CHAR.finditer(text)]
    at = rng.choice(spots)
    op = rng.choice(("insert", "delete", "substitute"))
    if op == "delete" and len(spots) > MIN_NORMALISED:
        return text[:at] + text[at + 1 :]
    new = alphabet.like(text[at], rng)
    if op == "insert":
        at += rng.choice((0, 1))
        return text[:at] + new + text[at:]
    return text[:at] + new + text[at + 1 :]


def edited_copy(
    text: str, rng: random.Random, alphabet: Alphabet, bounds: tuple[float, float]
) -> tuple[str, float] | None:
    """Character edits until the edit similarity to ``text`` is within ``bounds``: a number of
    edits drawn from those that can land there, retried when the edits overlap or a word swap
    costs more than one."""
    lo, hi = bounds
    form = normalised(text)
    length = len(form)
    fewest = max(1, math.ceil((1 - hi) * length - 1e-9))
    most = max(fewest, math.floor((1 - lo) * length + 1e-9))
    for _ in range(100):
        copy = text
        for _ in range(rng.randint(fewest, most)):
            copy = _one_edit(copy, rng, alphabet)
        value = similarity(form, normalised(copy))
        if lo <= value <= hi and copy != text:
            return copy, value
    return None


def sample_by_language(
    rows: list[str], langs: dict[str, str], count: int, rng: random.Random
) -> list[str]:
    """``count`` of ``rows``: every ``en`` row up to its quota, ``mixed`` likewise, ``zh`` the
    rest (topped up from the others when zh runs short)."""
    groups = {lang: [r for r in rows if langs[r] == lang] for lang in LANGS}
    for group in groups.values():
        rng.shuffle(group)
    chosen: list[str] = []
    for lang, share in LANG_QUOTA.items():
        chosen += groups[lang][: math.ceil(share * count)]
        groups[lang] = groups[lang][math.ceil(share * count) :]
    take = max(0, count - len(chosen))
    chosen += groups["zh"][:take]
    rest = groups["zh"][take:] + groups["mixed"] + groups["en"]
    chosen += rest[: max(0, count - len(chosen))]
    return chosen[:count]

