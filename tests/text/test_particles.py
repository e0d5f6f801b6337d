"""simdup.text.particles: Japanese and Korean terms read as words, their particles parted."""

from __future__ import annotations

import pytest

from simdup.text.particles import korean_particles, split_term
from simdup.text.stopwords import bundled_stopwords


@pytest.mark.parametrize(
    ("term", "words"),
    [
        ("はとても", ["は", "とても"]),  # a particle, then an adverb
        ("があります", ["が", "あります"]),
        ("には", ["には"]),  # one function word rather than two
        ("々は", ["々", "は"]),  # the iteration mark is no part of the particle
        ("ゲームを", ["ゲーム", "を"]),  # katakana, then a particle
        ("pythonを", ["python", "を"]),
        ("くの", ["の"]),  # 多く: the lone ending cut from its kanji is no word
        ("き", []),  # 咲き
        ("しいです", ["しい", "です"]),  # 美しいです
    ],
)
def test_japanese_kana_are_cut_at_scripts_and_function_words(term: str, words: list[str]) -> None:
    """A kana term is cut where the script changes and at the function words of the list."""
    assert split_term(term) == words


@pytest.mark.parametrize(
    ("term", "words"),
    [
        ("학교에서", ["학교", "에서"]),
        ("봄은", ["봄", "은"]),  # 은 after a consonant
        ("우리는", ["우리", "는"]),  # 는 after a vowel
        ("책이", ["책", "이"]),
        ("친구가", ["친구", "가"]),
        ("서울로", ["서울", "로"]),  # a final ㄹ takes 로, not 으로
        ("집으로", ["집", "으로"]),
        ("문화에는", ["문화", "에는"]),  # the longest particle that fits
        ("python을", ["python", "을"]),
        ("나이", ["나이"]),  # 이 follows a consonant: 나 + 이 would be no Korean
        ("결과", ["결과"]),  # a noun ending in a particle-shaped syllable
        ("연구결과", ["연구결과"]),
        ("결과를", ["결과", "를"]),
        ("을", ["을"]),  # a particle alone is left whole (a stopword)
        ("함께", ["함께"]),
    ],
)
def test_korean_words_lose_the_particle_written_on_them(term: str, words: list[str]) -> None:
    """A particle at the end of a Korean word is cut off when it agrees with the stem."""
    assert split_term(term) == words


@pytest.mark.parametrize("term", ["图书馆", "library", "v2", "ｗｏｒｄ", "mixed中文"])
def test_terms_without_kana_or_hangul_are_left_whole(term: str) -> None:
    """Chinese, English and every other term is its own word, as before."""
    assert split_term(term) == [term]


def test_the_particles_parted_are_bundled_stopwords() -> None:
    """What is cut off a word is dropped from the terms compare lists: every form of every
    Korean particle, and the Japanese function words, are bundled stopwords."""
    words = bundled_stopwords()
    assert {particle for particle, _ in korean_particles()} <= words
    for word in ("の", "を", "は", "が", "には", "です", "ます", "々", "에서", "은", "는", "를"):
        assert word in words, word
    assert not {"ゲーム", "学校", "학교", "봄"} & words
