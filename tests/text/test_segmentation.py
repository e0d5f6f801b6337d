"""simdup.text.segmentation: word tokens in order, identical for the jieba and rjieba backends."""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.errors import ConfigError, MissingExtraError
from simdup.readers import read_document
from simdup.records import DecodedDocument
from simdup.text.normalize import strip_markup
from simdup.text.segmentation import (
    BACKENDS,
    Segmenter,
    get_segmenter,
    read_user_dict,
    resolve_backend,
)
from simdup.text.textscan import RUN_SEPARATOR, scan
from tests.conftest import BENCH_DOCS, REPO

MAX = 64 << 20

try:
    import rjieba  # noqa: F401
except ImportError:  # pragma: no cover - platforms without wheels
    HAVE_RJIEBA = False
else:
    HAVE_RJIEBA = True

needs_rjieba = pytest.mark.skipif(not HAVE_RJIEBA, reason="rjieba is not installed")


@pytest.fixture(scope="module")
def jieba_seg() -> Segmenter:
    return get_segmenter("jieba")


@pytest.fixture(scope="module")
def rjieba_seg() -> Segmenter:
    if not HAVE_RJIEBA:
        pytest.skip("rjieba is not installed")
    return get_segmenter("rjieba")


def test_mixed_chinese_english_tokens_in_document_order(jieba_seg: Segmenter) -> None:
    """Chinese words, Latin words and numbers come out in the order they appear."""
    text = "我们使用Python 3.12和NumPy处理数据。"
    assert jieba_seg.tokens(text) == [
        "我们", "使用", "Python", "3", "12", "和", "NumPy", "处理", "数据",
    ]  # fmt: skip


def test_punctuation_spaces_and_underscores_are_dropped(jieba_seg: Segmenter) -> None:
    """Punctuation (ASCII and CJK), whitespace and '_' separate words and never are tokens."""
    text = "你好，世界！「引号」『书名』…… snake_case, foo-bar; (x) [y] {z} — ok?"
    assert jieba_seg.tokens(text) == [
        "你好", "世界", "引号", "书名", "snake", "case", "foo", "bar", "x", "y", "z", "ok",
    ]  # fmt: skip


def test_text_without_words_gives_no_tokens(jieba_seg: Segmenter) -> None:
    """Only punctuation and spaces: no tokens."""
    assert jieba_seg.tokens("，。！ ... --- \n\t") == []
    assert jieba_seg.tokens("") == []


def test_other_scripts_are_words_too(jieba_seg: Segmenter) -> None:
    """Cyrillic, Greek, accented Latin and kana are split by the word pattern."""
    assert jieba_seg.tokens("привет мир αβγ café") == ["привет", "мир", "αβγ", "café"]


_ALPHABET = st.sampled_from(
    list("中文分词测试数据图书馆读者服务我们的了是在和")
    + list("abcXYZ019éß")
    + list(" \n\t,.;:!?，。！？、（）「」_-—…")
)


@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_tokens_concatenate_to_the_word_characters(text: str) -> None:
    """Joined, the tokens are exactly the letters and digits of the text, in order: nothing is
    lost, reordered or invented (both backends)."""
    expected = "".join(re.findall(r"[^\W_]+", text))
    for backend in ("jieba", "rjieba") if HAVE_RJIEBA else ("jieba",):
        tokens = get_segmenter(backend).tokens(text)
        assert "".join(tokens) == expected
        assert all(t and re.fullmatch(r"[^\W_]+", t) for t in tokens)


@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_scanned_words_and_segmented_runs_are_the_tokens(text: str) -> None:
    """scan()'s words plus the segmented CJK runs (the bag of words a document is counted
    from) are exactly the tokens of tokens(), as a multiset, for both backends."""
    words, runs = scan(text)
    for backend in ("jieba", "rjieba") if HAVE_RJIEBA else ("jieba",):
        segmenter = get_segmenter(backend)
        bag = Counter(words) + Counter(t for t in segmenter.cut(runs) if t != RUN_SEPARATOR)
        assert bag == Counter(segmenter.tokens(text))


@needs_rjieba
@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_backends_agree_on_arbitrary_text(text: str) -> None:
    """jieba and rjieba give the same tokens for any mix of CJK, Latin and punctuation."""
    assert get_segmenter("jieba").tokens(text) == get_segmenter("rjieba").tokens(text)


def _decoded_texts(paths: list[Path]) -> list[tuple[Path, str]]:
    out = []
    for path in paths:
        doc = read_document(str(path), MAX)
        if isinstance(doc, DecodedDocument):
            out.append((path, strip_markup(doc.text)))
    return out


@needs_rjieba
def test_backends_agree_on_every_sample_corpus_file(
    sample_corpus: Path, jieba_seg: Segmenter, rjieba_seg: Segmenter
) -> None:
    """Every decodable file of the sample corpus gives identical tokens with both backends."""
    texts = _decoded_texts(sorted(p for p in sample_corpus.rglob("*") if p.is_file()))
    assert len(texts) >= 40
    for path, text in texts:
        assert jieba_seg.tokens(text) == rjieba_seg.tokens(text), path


@needs_rjieba
@pytest.mark.skipif(not BENCH_DOCS.is_dir(), reason=f"benchmark docs not found at {BENCH_DOCS}")
def test_backends_agree_on_benchmark_documents(jieba_seg: Segmenter, rjieba_seg: Segmenter) -> None:
    """Up to 200 benchmark documents (an even sample) give identical tokens with both backends."""
    files = sorted(p for p in BENCH_DOCS.rglob("*") if p.is_file())
    sample = files[:: max(1, len(files) // 200)][:200]
    texts = _decoded_texts(sample)
    assert texts
    for path, text in texts:
        assert jieba_seg.tokens(text) == rjieba_seg.tokens(text), path


# ---------------------------------------------------------------- backends


def test_backend_names() -> None:
    """auto resolves to rjieba when it is installed, else jieba; unknown names are errors."""
    assert BACKENDS == ("auto", "jieba", "rjieba")
    assert resolve_backend("jieba") == "jieba"
    assert resolve_backend("auto") == ("rjieba" if HAVE_RJIEBA else "jieba")
    with pytest.raises(ConfigError, match="unknown segmenter"):
        resolve_backend("spacy")


def test_missing_rjieba_is_a_missing_extra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for rjieba without it installed raises MissingExtraError (an ImportError) with a
    pip command; auto quietly falls back to jieba."""
    monkeypatch.setitem(sys.modules, "rjieba", None)  # makes `import rjieba` fail
    with pytest.raises(MissingExtraError, match=r'pip install "simdup\[') as info:
        resolve_backend("rjieba")
    assert isinstance(info.value, ImportError)
    assert resolve_backend("auto") == "jieba"


def test_missing_extra_error_names_an_extra_that_installs_rjieba(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The extra named in the error exists in pyproject.toml and pulls in rjieba."""
    monkeypatch.setitem(sys.modules, "rjieba", None)
    with pytest.raises(MissingExtraError) as info:
        resolve_backend("rjieba")
    extras = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"].get(
        "optional-dependencies", {}
    )
    assert info.value.extra in extras
    assert any(dep.startswith("rjieba") for dep in extras[info.value.extra])


def test_get_segmenter_is_cached_per_configuration() -> None:
    """The same configuration returns the same (already loaded) segmenter."""
    assert get_segmenter("jieba") is get_segmenter("jieba")


# ---------------------------------------------------------------- user dictionaries

SENTENCE = "我们去鹿鸣湾书屋看书，讨论云原生架构的设计"


@pytest.mark.parametrize("line", ["鹿鸣湾书屋", "鹿鸣湾书屋 5 ns"])
@pytest.mark.parametrize("backend", ["jieba", pytest.param("rjieba", marks=needs_rjieba)])
def test_user_dictionary_word_stays_one_token(tmp_path: Path, backend: str, line: str) -> None:
    """A word from a user dictionary (with or without freq and tag) is one token."""
    plain = get_segmenter(backend).tokens(SENTENCE)
    assert "鹿鸣湾书屋" not in plain
    user_dict = tmp_path / "dict.txt"
    user_dict.write_text(f"# my words\n\n{line}\n", encoding="utf-8")
    tokens = Segmenter(backend, str(user_dict)).tokens(SENTENCE)
    assert "鹿鸣湾书屋" in tokens
    assert "".join(tokens) == "".join(plain)


@needs_rjieba
def test_user_dictionary_gives_identical_tokens_on_both_backends(tmp_path: Path) -> None:
    """With the same user dictionary, jieba and rjieba still agree."""
    user_dict = tmp_path / "dict.txt"
    user_dict.write_text("鹿鸣湾书屋\n云原生架构 20 n\n", encoding="utf-8")
    a = get_segmenter("jieba", str(user_dict)).tokens(SENTENCE)
    b = get_segmenter("rjieba", str(user_dict)).tokens(SENTENCE)
    assert a == b
    assert "云原生架构" in a


def test_user_dictionary_does_not_leak_into_other_segmenters(tmp_path: Path) -> None:
    """Loading a user dictionary changes only that segmenter, not the default one."""
    user_dict = tmp_path / "dict.txt"
    user_dict.write_text("鹿鸣湾书屋\n", encoding="utf-8")
    default = get_segmenter("jieba")
    assert "鹿鸣湾书屋" in Segmenter("jieba", str(user_dict)).tokens(SENTENCE)
    assert "鹿鸣湾书屋" not in default.tokens(SENTENCE)
    assert "鹿鸣湾书屋" not in get_segmenter("jieba").tokens(SENTENCE)


def test_user_dictionary_parsing(tmp_path: Path) -> None:
    """'word [freq] [tag]' per line; comments and blank lines ignored; a UTF-8 BOM is fine."""
    path = tmp_path / "dict.txt"
    path.write_text("\ufeff甲乙\n# comment\n\n丙丁 7\n戊己 n\n庚辛 3 nr\n", encoding="utf-8")
    assert read_user_dict(str(path)) == [
        ("甲乙", None, None),
        ("丙丁", 7, None),
        ("戊己", None, "n"),
        ("庚辛", 3, "nr"),
    ]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("好词\n# ok\n词 1 n extra\n", 3, "expected 'word \\[freq\\] \\[tag\\]'"),
        ("好词 3\n词 abc n\n", 2, "frequency must be a number"),
    ],
)
def test_malformed_user_dictionary_is_a_config_error_with_line_number(
    tmp_path: Path, content: str, line: int, message: str
) -> None:
    """Four fields, or a non-numeric frequency before a tag, raise ConfigError naming the
    file and the line."""
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{re.escape(str(path))}:{line}: {message}"):
        read_user_dict(str(path))
    with pytest.raises(ConfigError):
        Segmenter("jieba", str(path))


def test_user_dictionary_that_is_not_utf8_or_missing_is_a_config_error(tmp_path: Path) -> None:
    """A GBK user dictionary or a missing one raises ConfigError, not a traceback."""
    gbk = tmp_path / "gbk.txt"
    gbk.write_bytes("鹿鸣湾书屋 10\n".encode("gbk"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_user_dict(str(gbk))
    with pytest.raises(ConfigError):
        read_user_dict(str(tmp_path / "missing.txt"))
