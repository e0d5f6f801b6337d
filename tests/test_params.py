"""simdup.params: validated feature parameters, settings description and cache key."""

from __future__ import annotations

from pathlib import Path

import pytest

from simdup.errors import ConfigError
from simdup.params import ALGORITHM_VERSION, SHORT_TEXT_CHARS, FeatureParams


@pytest.mark.parametrize(
    "bad",
    [
        {"weighting": "bm25"},
        {"ngram": 3},
        {"sketch_size": 4},
        {"sketch_size": 5000},
        {"minhash_perms": 8},
        {"minhash_perms": 2048},
        {"markup": "latex"},
    ],
)
def test_invalid_parameters_are_config_errors(bad: dict[str, object]) -> None:
    """Each out-of-range parameter raises ConfigError (a ValueError) when constructed."""
    with pytest.raises(ConfigError):
        FeatureParams(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        FeatureParams(**bad)  # type: ignore[arg-type]


def test_params_are_frozen_and_hashable() -> None:
    """FeatureParams is immutable and usable as a dict key."""
    params = FeatureParams()
    with pytest.raises(AttributeError):
        params.weighting = "tf"  # type: ignore[misc]
    assert {params: 1}[FeatureParams()] == 1


def test_cache_key_ignores_the_segmenter_backend_only() -> None:
    """Both backends give identical tokens, so the backend is not part of the key; every
    setting that changes a fingerprint is."""
    base = FeatureParams()
    assert FeatureParams(segmenter="jieba").cache_key() == base.cache_key()
    assert FeatureParams(segmenter="rjieba").cache_key() == base.cache_key()
    for changed in (
        FeatureParams(weighting="tf"),
        FeatureParams(stopwords=False),
        FeatureParams(markup=False),
        FeatureParams(markup="none"),
        FeatureParams(markup="html"),
        FeatureParams(ngram=2),
        FeatureParams(extra_stopwords=frozenset({"x"})),
    ):
        assert changed.cache_key() != base.cache_key()


def test_cache_key_follows_the_user_dictionary_content_not_its_path(tmp_path: Path) -> None:
    """The same dictionary at another path gives the same key; edited in place, another one
    (the scan cache must not reuse fingerprints made with the old words); an unreadable one is
    a ConfigError."""
    a, b = tmp_path / "a.dict", tmp_path / "b.dict"
    a.write_text("卡洛米 100 n\n", "utf-8")
    b.write_text("卡洛米 100 n\n", "utf-8")
    key = FeatureParams(user_dict=str(a)).cache_key()
    assert FeatureParams(user_dict=str(b)).cache_key() == key != FeatureParams().cache_key()
    a.write_text("卡洛米 100 n\n洛米内\n", "utf-8")
    assert FeatureParams(user_dict=str(a)).cache_key() != key
    with pytest.raises(ConfigError, match="user dictionary"):
        FeatureParams(user_dict=str(tmp_path / "missing.dict")).cache_key()


def test_cache_key_holds_the_whole_stopword_set() -> None:
    """Stopword additions that a newline-joined digest would confuse get different keys."""
    joined = FeatureParams(extra_stopwords=frozenset({"a\nb"}))
    split = FeatureParams(extra_stopwords=frozenset({"a", "b"}))
    assert joined.cache_key() != split.cache_key()


def test_describe_reports_extra_stopwords_as_count_and_digest() -> None:
    """describe() is JSON-friendly: extra stopwords become a count and a short digest."""
    d = FeatureParams(extra_stopwords=frozenset({"b", "a"})).describe()
    assert d["extra_stopwords"]["count"] == 2
    assert len(d["extra_stopwords"]["sha256"]) == 16
    assert d["weighting"] == "tfidf"


def test_describe_reports_the_short_text_limit() -> None:
    """The length under which a text is judged by its characters is part of the settings;
    there is no minimum number of words any more (issue 32)."""
    d = FeatureParams().describe()
    assert d["short_text_chars"] == SHORT_TEXT_CHARS == 400
    assert "min_features" not in d
    with pytest.raises(TypeError):
        FeatureParams(min_features=20)  # type: ignore[call-arg]


def test_algorithm_version_names_the_fingerprint() -> None:
    """The algorithm version is a non-empty 'name/number' string."""
    name, _, number = ALGORITHM_VERSION.rpartition("/")
    assert name and number.isdigit()


def test_markup_is_markdown_for_documents_and_none_for_rows() -> None:
    """``auto`` markup is a document's (markdown) until rows resolve it (none); the flag it
    was before still reads (True: markdown, False: none)."""
    auto = FeatureParams()
    assert auto.markup == "auto" and auto.text_markup == "markdown"
    assert auto.describe()["markup"] == "markdown"
    assert auto.for_rows().markup == "none" and auto.for_rows().describe()["markup"] == "none"
    named = FeatureParams(markup="html")
    assert named.for_rows() is named
    assert FeatureParams(markup=True).markup == "markdown"  # type: ignore[arg-type]
    assert FeatureParams(markup=False).markup == "none"  # type: ignore[arg-type]


def test_markdown_and_none_keep_the_keys_of_the_flag_they_were() -> None:
    """Caches, indexes and stored fingerprints made when markup was a flag stay valid: the
    same fingerprints, the same key (markdown is True, none is False)."""
    assert FeatureParams().cache_key() == FeatureParams(markup="markdown").cache_key()
    keys = {FeatureParams(markup=m).cache_key() for m in ("none", "markdown", "html")}
    assert len(keys) == 3
