"""simdup.text.stopwords: bundled Chinese and English lists, and user files in UTF-8 or GBK."""

from __future__ import annotations

from pathlib import Path

import pytest

from simdup.errors import ConfigError
from simdup.params import FeatureParams
from simdup.text.processor import DocumentProcessor
from simdup.text.stopwords import bundled_stopwords, read_stopword_file


def test_bundled_lists_hold_chinese_english_japanese_and_korean_function_words() -> None:
    """The bundled lists are loaded: common function words of each language are in them."""
    words = bundled_stopwords()
    for word in ("的", "了", "是", "在", "和", "the", "and", "of", "a", "is", "の", "を", "에서"):
        assert word in words, word
    # Comments are not words; content words are not stopwords.
    assert not any(w.startswith("#") for w in words)
    for word in ("图书馆", "library", "duplicate"):
        assert word not in words


def test_bundled_lists_are_casefolded() -> None:
    """Entries are casefolded, like the tokens they are compared with."""
    assert all(w == w.casefold() for w in bundled_stopwords())


def test_stopword_file_in_utf8_with_comments_and_case(tmp_path: Path) -> None:
    """One word per line; '#' starts a comment; blank lines skipped; words casefolded."""
    path = tmp_path / "stop.txt"
    path.write_text("Foo\n# a comment\n\n  bar  # trailing\n中文\n", encoding="utf-8")
    assert read_stopword_file(str(path)) == {"foo", "bar", "中文"}


@pytest.mark.parametrize("encoding", ["utf-8-sig", "gbk", "gb18030"])
def test_stopword_file_in_utf8_bom_gbk_or_gb18030(tmp_path: Path, encoding: str) -> None:
    """A stopword file saved as UTF-8 with BOM, GBK or GB18030 gives the same words."""
    path = tmp_path / "stop.txt"
    path.write_bytes("图书馆\n读者\nLibrary\n".encode(encoding))
    assert read_stopword_file(str(path)) == {"图书馆", "读者", "library"}


def test_missing_stopword_file_is_a_config_error(tmp_path: Path) -> None:
    """A stopword file that cannot be opened raises ConfigError naming it."""
    with pytest.raises(ConfigError, match="stopword file"):
        read_stopword_file(str(tmp_path / "missing.txt"))


TEXT = "图书馆的读者在周末和假日都可以借阅图书。The readers of the library can borrow books."


def terms(params: FeatureParams) -> set[str]:
    return set(DocumentProcessor(params).features(TEXT).terms)


def test_stopwords_are_dropped_from_features() -> None:
    """By default bundled stopwords are not features."""
    found = terms(FeatureParams())
    assert {"图书馆", "读者", "readers", "library", "books"} <= found
    assert not {"的", "在", "和", "the", "of"} & found


def test_no_stopwords_keeps_them() -> None:
    """With stopwords=False (--no-stopwords) function words are features too."""
    found = terms(FeatureParams(stopwords=False))
    assert {"的", "在", "和", "the", "of", "图书馆", "readers"} <= found


def test_extra_stopwords_from_a_gbk_file_are_dropped(tmp_path: Path) -> None:
    """Words from a GBK-encoded stopword file are removed from the features as well."""
    path = tmp_path / "extra.txt"
    path.write_bytes("图书馆\n借阅\nLIBRARY\n".encode("gbk"))
    extra = frozenset(read_stopword_file(str(path)))
    found = terms(FeatureParams(extra_stopwords=extra))
    assert not {"图书馆", "借阅", "library"} & found
    assert {"读者", "readers", "books"} <= found
    assert "the" not in found  # bundled lists still apply


def test_extra_stopwords_change_the_settings_digest() -> None:
    """Extra stopwords are reported as a count and digest, and change the cache key."""
    plain = FeatureParams()
    extra = FeatureParams(extra_stopwords=frozenset({"图书馆"}))
    assert extra.describe()["extra_stopwords"]["count"] == 1
    assert plain.describe()["extra_stopwords"]["count"] == 0
    assert plain.cache_key() != extra.cache_key()


JA_KO_TEXT = (
    "東京の春はとても美しいです。桜の花が咲き、人々は公園で花見を楽しみます。"
    "서울의 봄은 정말 아름답습니다. 그리고 우리는 공원에서 꽃구경을 즐깁니다."
)


def test_japanese_and_korean_stopwords_are_dropped_from_features_as_whole_tokens() -> None:
    """Japanese and Korean function words are dropped as whole tokens, as Chinese and English
    ones are ("の", "を", "그리고"); a token holding a particle stays one feature ("はとても",
    "공원에서"): parting them in the features cost Korean recall (text/particles.py)."""
    found = set(DocumentProcessor(FeatureParams()).features(JA_KO_TEXT).terms)
    assert {"の", "を", "が", "그리고"}.isdisjoint(found)
    assert {"はとても", "공원에서", "桜", "정말"} <= found
    kept = set(DocumentProcessor(FeatureParams(stopwords=False)).features(JA_KO_TEXT).terms)
    assert {"の", "を", "그리고"} <= kept
