"""simdup.features: term counts, the four weightings, bigrams, exact-duplicate digest."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from simdup.features import extract_features, jieba_idf, term_counts, term_info, weigh
from simdup.hashing import token_hash
from simdup.params import WEIGHTINGS, FeatureParams
from simdup.segmentation import get_segmenter

NO_STOPWORDS: frozenset[str] = frozenset()
COUNTS = Counter({"图书馆": 4, "读者": 1, "zzqxunknownword": 2})


def weights_of(counts: Counter[str], weighting: str) -> dict[str, float]:
    """weigh() applied to ``counts`` with jieba IDF values, as a term -> weight dict."""
    terms = list(counts)
    tf = np.array([float(counts[t]) for t in terms])
    _, idf = term_info(terms)
    return dict(zip(terms, weigh(tf, idf, weighting).tolist(), strict=True))


def test_term_counts_counts_words_and_drops_stopwords() -> None:
    """Counts per distinct word, stopwords removed."""
    counts = term_counts(["a", "b", "a", "the", "c", "a"], frozenset({"the"}), 1)
    assert counts == Counter({"a": 3, "b": 1, "c": 1})


def test_bigrams_join_neighbouring_words_after_stopword_removal() -> None:
    """ngram=2 adds 'w1 w2' for each neighbouring pair of the words that remain."""
    counts = term_counts(["a", "the", "b", "a", "b"], frozenset({"the"}), 2)
    assert counts == Counter({"a": 2, "b": 2, "a b": 2, "b a": 1})


def test_term_info_gives_token_hashes_and_idf() -> None:
    """term_info: the XXH3 token hash and jieba's IDF (median for unknown words) per term."""
    idf, default = jieba_idf()
    hashes, idfs = term_info(["图书馆", "zzqxunknownword"])
    assert hashes.dtype == np.uint64
    assert hashes.tolist() == [token_hash("图书馆"), token_hash("zzqxunknownword")]
    assert idfs.tolist() == [idf["图书馆"], default]
    assert term_info(["图书馆"])[0].tolist() == hashes.tolist()[:1]  # memoised, same answer


def test_tf_weight_is_the_count() -> None:
    """tf: weight = count."""
    assert weights_of(COUNTS, "tf") == {"图书馆": 4.0, "读者": 1.0, "zzqxunknownword": 2.0}


def test_binary_weight_is_one() -> None:
    """binary: every present term weighs 1."""
    assert weights_of(COUNTS, "binary") == dict.fromkeys(COUNTS, 1.0)


def test_logtf_weight_is_one_plus_log_count() -> None:
    """logtf: weight = 1 + ln(count)."""
    got = weights_of(COUNTS, "logtf")
    assert got == pytest.approx({t: 1.0 + math.log(c) for t, c in COUNTS.items()})
    assert got["读者"] == 1.0


def test_tfidf_weight_is_logtf_times_jieba_idf() -> None:
    """tfidf: weight = (1 + ln count) * idf from jieba's table; unknown words get the median."""
    idf, default = jieba_idf()
    got = weights_of(COUNTS, "tfidf")
    assert "图书馆" in idf and "zzqxunknownword" not in idf
    assert got["图书馆"] == pytest.approx((1.0 + math.log(4)) * idf["图书馆"])
    assert got["zzqxunknownword"] == pytest.approx((1.0 + math.log(2)) * default)
    assert min(idf.values()) <= default <= max(idf.values())


def test_weightings_differ() -> None:
    """The four weightings give four different weight vectors for the same counts."""
    vectors = [tuple(sorted(weights_of(COUNTS, w).items())) for w in WEIGHTINGS]
    assert len(set(vectors)) == len(WEIGHTINGS)


def test_default_weighting_is_tfidf() -> None:
    """FeatureParams and extract_features both default to tfidf."""
    assert FeatureParams().weighting == "tfidf"
    text = "图书馆 图书馆 读者"
    default = extract_features(text, get_segmenter(), NO_STOPWORDS)
    explicit = extract_features(text, get_segmenter(), NO_STOPWORDS, weighting="tfidf")
    assert default.as_dict() == explicit.as_dict()


def test_extract_features_counts_tokens_and_chars() -> None:
    """token_count counts every token (stopwords included); chars is the collapsed length."""
    fv = extract_features("The  cat\n\nand the DOG.", get_segmenter(), frozenset({"the", "and"}))
    assert fv.token_count == 5
    assert set(fv.terms) == {"cat", "dog"}
    assert fv.hashes.tolist() == [token_hash(t) for t in fv.terms]
    assert len(fv.weights) == len(fv.terms)
    assert fv.chars == len("the cat and the dog.")


def test_content_hash_ignores_case_width_and_whitespace_layout() -> None:
    """Texts differing only in case, full/half width and whitespace runs share a content hash;
    a changed word does not."""
    seg = get_segmenter()
    a = extract_features("Hello,  World\n中文", seg, NO_STOPWORDS)
    b = extract_features("ＨＥＬＬＯ， world 中文\n", seg, NO_STOPWORDS)
    c = extract_features("Hello, Word 中文", seg, NO_STOPWORDS)
    assert a.content_hash == b.content_hash
    assert a.content_hash != c.content_hash


def test_markup_is_not_a_feature_unless_kept() -> None:
    """URLs and tags are removed before segmentation; markup=False keeps them as words."""
    seg = get_segmenter()
    text = '<div class="x">Report</div> see https://example.com/page'
    clean = set(extract_features(text, seg, NO_STOPWORDS).terms)
    kept = set(extract_features(text, seg, NO_STOPWORDS, markup=False).terms)
    assert clean == {"report", "see"}
    assert {"div", "class", "example", "com", "page", "https"} <= kept


def test_markup_still_counts_for_exact_duplicates() -> None:
    """The exact-duplicate digest is taken on the text with markup: different links differ."""
    seg = get_segmenter()
    a = extract_features("see [docs](https://a.example)", seg, NO_STOPWORDS)
    b = extract_features("see [docs](https://b.example)", seg, NO_STOPWORDS)
    assert a.as_dict() == b.as_dict()
    assert a.content_hash != b.content_hash


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_every_weighting_is_positive(weighting: str) -> None:
    """Every weighting gives positive weights (a present term never counts against)."""
    fv = extract_features("图书馆 读者 借阅 图书馆 library", get_segmenter(), NO_STOPWORDS,
                          weighting=weighting)  # fmt: skip
    assert fv.terms and all(w > 0 for w in fv.weights.tolist())
