"""Japanese and Korean terms read as words, their particles parted: what ``compare`` lists.

The scan's words are maximal runs of letters (``textscan.WORD``), and only Han ideographs go
to jieba: a Japanese text gives the kana between its kanji as terms ("はとても", "があります",
"々は"), a Korean text its words with their particles written on ("학교에서", "봄은").
``split_term`` cuts such a term into words by the bundled lists (``stopwords_ja.txt``,
``stopwords_ko.txt``), so that the terms ``compare`` shows are words, its particles left out
as stopwords (and, with them, the words ``written_in_hiragana``: Japanese grammar, mostly). A
term of no kana and no Hangul (Chinese, English, ...) is returned whole.

Fingerprints are not made of these words: the features drop Japanese and Korean stopwords as
whole tokens only, as they drop Chinese and English ones. Parting the particles in the features
too was measured on the Japanese and Korean benchmark (``make bench-languages``,
docs/performance.md): Korean pairs recall fell from 0.968 to 0.926 (a word set without its
particles is smaller, while the endings a revision edits stay) and Japanese gained a false
positive; whole-token stopwords left every score as it was.

- **Japanese** (no spaces; grammar written in hiragana): a term is cut where its script
  changes (hiragana, katakana, the iteration mark 々, anything else: "ゲームを" is
  "ゲーム" "を"), and a hiragana run into the function words of the list that cover most of
  it (fewest words on a tie: "には" over "に" "は"); the hiragana between them is one word
  ("はとても" is "は" "とても"). A lone hiragana left over is an inflection ending cut from its
  kanji stem (咲き, 多く) and no word.
- **Korean** (spaces between words): a word ends in at most one particle of the list (the
  longest that fits), which is cut off if a syllable is left before it and the stem agrees
  with the particle's form (이 after a consonant, 가 after a vowel: 나이 is a word, not 나 + 이).
  Common words that end in a syllable shaped like a particle (결과, 온도, 회의) keep it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

# Kana, the ideographic iteration marks, Hangul syllables: a term without them is not split.
_NEEDS_SPLIT = re.compile("[\u3005-\u3007\u3041-\u30ff\uac00-\ud7a3]")
_HIRAGANA, _KATAKANA, _MARK, _HANGUL, _OTHER = range(5)
_PROLONGED = "\u30fc"  # ー: lengthens the kana before it, of either script

# Words whose last syllable has the form of a particle (과, 도, 의, 로, 가...): read whole.
_KOREAN_WHOLE = (
    "결과", "효과", "성과", "학과", "교과", "온도", "속도", "정도", "제도", "태도", "각도",
    "의도", "지도", "수도", "포도", "회의", "주의", "정의", "의의", "동의", "도로", "경로",
    "하나", "추가", "국가", "평가",
)  # fmt: skip


def _data(name: str) -> list[str]:
    """The entries of a bundled list, comments and blank lines dropped."""
    text = resources.files("simdup").joinpath("data", name).read_text("utf-8")
    return [e for line in text.splitlines() if (e := line.split("#", 1)[0].strip())]


@lru_cache(maxsize=1)
def japanese_function_words() -> frozenset[str]:
    """The words of ``stopwords_ja.txt``."""
    return frozenset(_data("stopwords_ja.txt"))


@lru_cache(maxsize=1)
def _hiragana_words() -> tuple[frozenset[str], int]:
    words = frozenset(w for w in japanese_function_words() if written_in_hiragana(w))
    return words, max(map(len, words))


@lru_cache(maxsize=1)
def korean_particles() -> tuple[tuple[str, str], ...]:
    """The particles of ``stopwords_ko.txt``, longest first, each with the way a stem before
    it ends: "consonant", "vowel" or "" (either)."""
    found: list[tuple[str, str]] = []
    for entry in _data("stopwords_ko.txt"):
        if not entry.startswith("-"):
            continue
        forms = entry[1:].split("/")
        if len(forms) == 1:
            found.append((forms[0], ""))
        else:
            after_consonant, after_vowel = forms
            found.append((after_consonant, "consonant"))
            found.append((after_vowel, "vowel"))
    return tuple(sorted(found, key=lambda p: -len(p[0])))


@lru_cache(maxsize=1)
def korean_function_words() -> frozenset[str]:
    """Every word of ``stopwords_ko.txt``: its particles (each form) and other words."""
    words = {particle for particle, _ in korean_particles()}
    words.update(e for e in _data("stopwords_ko.txt") if not e.startswith("-"))
    return frozenset(words)


def split_term(term: str) -> list[str]:
    """The words of a normalised term (see the module): ``[term]`` unless it holds kana or
    Hangul."""
    if not _NEEDS_SPLIT.search(term):
        return [term]
    words: list[str] = []
    for script, run in _script_runs(term):
        if script == _HIRAGANA:
            words.extend(_split_hiragana(run))
        elif script == _HANGUL:
            words.extend(_split_korean(run))
        else:
            words.append(run)
    return words


def _script(ch: str) -> int:
    if "\u3041" <= ch <= "\u309f":
        return _HIRAGANA
    if "\u30a0" <= ch <= "\u30ff":
        return _KATAKANA
    if "\u3005" <= ch <= "\u3007":
        return _MARK
    if "\uac00" <= ch <= "\ud7a3":
        return _HANGUL
    return _OTHER


def _script_runs(term: str) -> list[tuple[int, str]]:
    runs: list[tuple[int, str]] = []
    for ch in term:
        script = _script(ch)
        if runs and (ch == _PROLONGED and runs[-1][0] in (_HIRAGANA, _KATAKANA)):
            script = runs[-1][0]
        if runs and runs[-1][0] == script and script != _MARK:
            runs[-1] = (script, runs[-1][1] + ch)
        else:
            runs.append((script, ch))
    return runs


def written_in_hiragana(word: str) -> bool:
    """Whether ``word`` is hiragana alone: in Japanese, grammar far more often than content
    (particles, auxiliaries, the endings written after a kanji stem: 考える gives "える");
    content words are written in kanji and katakana."""
    return bool(word) and all(_script(ch) == _HIRAGANA or ch == _PROLONGED for ch in word)


def _split_hiragana(run: str) -> list[str]:
    """A hiragana run as function words and the stretches between them (see the module)."""
    words, longest = _hiragana_words()
    n = len(run)
    # best[i]: (characters not covered, function words) of the best cut of run[:i], and the
    # start of its last piece (a function word, or one character not covered).
    best: list[tuple[int, int, int]] = [(0, 0, 0)] + [(n + 1, 0, 0)] * n
    for i in range(n):
        free, count, _ = best[i]
        if (free + 1, count) < best[i + 1][:2]:
            best[i + 1] = (free + 1, count, -1 - i)  # run[i] not covered
        for j in range(i + 1, min(n, i + longest) + 1):
            if run[i:j] in words and (free, count + 1) < best[j][:2]:
                best[j] = (free, count + 1, i)
    cuts: list[tuple[int, int, bool]] = []  # (start, end, a function word), last first
    end = n
    while end > 0:
        start = best[end][2]
        if start >= 0:
            cuts.append((start, end, True))
        elif cuts and not cuts[-1][2]:
            cuts[-1] = (end - 1, cuts[-1][1], False)  # one stretch between function words
        else:
            cuts.append((end - 1, end, False))
        end = start if start >= 0 else end - 1
    # A lone hiragana between function words is an ending cut from its kanji stem: no word.
    return [run[a:b] for a, b, word in reversed(cuts) if word or b - a > 1]


def _split_korean(word: str) -> list[str]:
    """A Korean word as its stem and the particle written on it (see the module)."""
    if word.endswith(_KOREAN_WHOLE):  # the noun, or a compound ending in it (연구결과)
        return [word]
    for particle, after in korean_particles():
        if len(particle) >= len(word) or not word.endswith(particle):
            continue
        stem = word[: -len(particle)]
        if after and _stem_ending(stem, particle) != after:
            continue
        return [stem, particle]
    return [word]


def _stem_ending(stem: str, particle: str) -> str:
    """How the stem's last syllable (Hangul) ends, "consonant" or "vowel", as the particle's
    form depends on it (a final ㄹ takes the vowel forms of 으로)."""
    final = (ord(stem[-1]) - 0xAC00) % 28  # the syllable's final consonant, 0 for none
    if final == 8 and particle.startswith(("으", "로")):
        return "vowel"  # ㄹ: 서울로, not 서울으로
    return "vowel" if final == 0 else "consonant"
