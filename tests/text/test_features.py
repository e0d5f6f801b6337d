"""simdup.text.features: term counts, the four weightings, bigrams, exact-duplicate digest, the
vocabulary and its memo."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from simdup.algorithms.hashing import content_hash, token_hash
from simdup.params import WEIGHTINGS, FeatureParams
from simdup.text.features import (
    Vocabulary,
    extract_features,
    markup_word_hashes_python,
    term_info,
    weigh,
)
from simdup.text.idf import jieba_table
from simdup.text.segmentation import get_segmenter

NO_STOPWORDS: frozenset[str] = frozenset()
COUNTS = Counter({"图书馆": 4, "读者": 1, "zzqxunknownword": 2})


def weights_of(counts: Counter[str], weighting: str) -> dict[str, float]:
    """weigh() applied to ``counts`` with jieba IDF values, as a term -> weight dict."""
    terms = list(counts)
    tf = np.array([float(counts[t]) for t in terms])
    _, idf = term_info(terms)
    return dict(zip(terms, weigh(tf, idf, weighting).tolist(), strict=True))


def test_stopwords_are_dropped_after_normalisation() -> None:
    """Counts per distinct term; stopwords dropped in any case or width."""
    text = "a b a The c ＴＨＥ a"
    fv = extract_features(text, get_segmenter(), frozenset({"the"}), weighting="tf")
    assert fv.as_dict() == {"a": 3, "b": 1, "c": 1}
    assert fv.token_count == 7


def test_bigrams_join_neighbouring_words_after_stopword_removal() -> None:
    """ngram=2 adds 'w1 w2' for each neighbouring pair of the words that remain."""
    fv = extract_features("a the b a b", get_segmenter(), frozenset({"the"}), weighting="tf",
                          ngram=2)  # fmt: skip
    assert fv.as_dict() == {"a": 2, "b": 2, "a b": 2, "b a": 1}


def test_term_info_gives_token_hashes_and_idf() -> None:
    """term_info: the XXH3 token hash and jieba's IDF (median for unknown words) per term."""
    table = jieba_table()
    hashes, idfs = term_info(["图书馆", "zzqxunknownword"])
    assert hashes.dtype == np.uint64
    assert hashes.tolist() == [token_hash("图书馆"), token_hash("zzqxunknownword")]
    assert idfs.tolist() == [table.idf("图书馆"), table.default]
    assert table.idf("图书馆") != table.default


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
    table = jieba_table()
    got = weights_of(COUNTS, "tfidf")
    assert got["图书馆"] == pytest.approx((1.0 + math.log(4)) * table.idf("图书馆"))
    assert got["zzqxunknownword"] == pytest.approx((1.0 + math.log(2)) * table.default)
    assert table.values.min() <= table.default <= table.values.max()


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
    assert fv.chars == len("The cat and the DOG.")


def test_content_hash_is_of_the_comparison_form() -> None:
    """Texts differing only in whitespace runs (re-wrapped, re-indented, CRLF), case,
    punctuation, full-width forms or spaces between ideographs share a content hash: the
    xxh3-128 of their comparison form. A changed or added word does not."""
    seg = get_segmenter()
    a = extract_features("Hello,  World\n中文", seg, NO_STOPWORDS)
    same = [
        "  Hello,\r\n\tWorld 中文\n",  # whitespace layout
        "hello, world 中文",  # case
        "Hello World -- 中文!!!",  # punctuation
        "ＨＥＬＬＯ，ｗｏｒｌｄ！ 中 文",  # full width, a space between two ideographs
    ]
    assert a.form == "hello world 中文"
    assert a.content_hash == content_hash(a.form)
    for text in same:
        other = extract_features(text, seg, NO_STOPWORDS)
        assert other.form == a.form, text
        assert other.content_hash == a.content_hash, text
        assert other.as_dict() == a.as_dict(), text
    for text in ("Hello, Word 中文", "Hello, World 中文 extra", "Hello, World 英文"):
        other = extract_features(text, seg, NO_STOPWORDS)
        assert other.content_hash != a.content_hash, text


def test_markup_is_not_a_feature_unless_kept() -> None:
    """URLs and tags are removed before segmentation; markup="none" keeps them as words."""
    seg = get_segmenter()
    text = '<div class="x">Report</div> see https://example.com/page'
    clean = set(extract_features(text, seg, NO_STOPWORDS).terms)
    kept = set(extract_features(text, seg, NO_STOPWORDS, markup="none").terms)
    assert clean == {"report", "see"}
    assert {"div", "class", "example", "com", "page", "https"} <= kept


@pytest.mark.parametrize("ngram", [1, 2])
def test_the_words_of_the_markup_count_in_the_word_set(ngram: int) -> None:
    """The markup removed is not weighted, but its words are in the word set that verifies
    a pair (what the edit similarity that defines a near-duplicate sees), hashed apart from
    the terms: "see" in a link title is not the term "see"."""
    seg = get_segmenter()
    text = '<div class="x">Report</div> see [the docs](https://Example.com/page "See")'
    fv = extract_features(text, seg, frozenset({"the"}), ngram=ngram)
    assert "div" not in fv.terms and "example" not in fv.terms
    pieces = ['<div class="x">', "</div>", '](https://Example.com/page "See")']
    markup = markup_word_hashes_python("\n".join(pieces))
    assert fv.markup_hashes.tolist() == markup.tolist()
    assert markup.tolist() == [
        markup_word_hashes_python(w)[0]
        for w in ["div", "class", "x", "div", "https", "example", "com", "page", "see"]
    ]
    assert not set(markup.tolist()) & {token_hash(w) for w in ("div", "see", "example")}
    assert fv.word_hashes.tolist() == fv.hashes.tolist() + markup.tolist()
    kept = extract_features(text, seg, frozenset({"the"}), markup="none", ngram=ngram)
    assert kept.markup_hashes.size == 0 and kept.word_hashes is kept.hashes


def test_markup_words_are_runs_of_letters_and_digits_case_folded_in_ascii() -> None:
    """Separators split, ASCII case folds, other scripts compare as written."""
    one = markup_word_hashes_python
    assert one("a_b-c").tolist() == one("a b c").tolist()
    assert one("GitHub").tolist() == one("github").tolist()
    assert one("Ǆ").tolist() != one("ǆ").tolist() and one("页面").size == 1
    assert one("").size == 0 and one("__--//").size == 0


def test_only_what_a_reader_sees_counts_for_exact_duplicates() -> None:
    """The exact-duplicate digest is taken on the text with tags, link targets and front matter
    removed: texts differing only there are exact duplicates. A bare URL is shown to a reader,
    so it stays in the comparison form: different bare URLs differ (though neither is a
    feature). With markup="none" nothing is removed."""
    seg = get_segmenter()
    plain = extract_features("see docs", seg, NO_STOPWORDS)
    for text in (
        "see [docs](https://a.example)",
        "see [docs](https://b.example)",
        "see <b>docs</b>",
        "---\ntitle: x\n---\nsee docs",
    ):
        fv = extract_features(text, seg, NO_STOPWORDS)
        assert fv.form == "see docs", text
        assert fv.content_hash == plain.content_hash, text
        assert fv.as_dict() == plain.as_dict(), text
    a = extract_features("see docs https://a.example", seg, NO_STOPWORDS)
    b = extract_features("see docs https://b.example", seg, NO_STOPWORDS)
    assert a.as_dict() == b.as_dict() == plain.as_dict()
    assert a.form == "see docs https a example"
    assert len({a.content_hash, b.content_hash, plain.content_hash}) == 3
    kept = extract_features("see [docs](https://a.example)", seg, NO_STOPWORDS, markup="none")
    assert kept.content_hash == a.content_hash != plain.content_hash


def test_a_text_of_punctuation_alone_is_its_own_form() -> None:
    """With no letter or digit the comparison form is the text as written (whitespace
    collapsed): such a text is still something to judge, and unlike other punctuation."""
    seg = get_segmenter()
    a = extract_features("!!!  ... ???", seg, NO_STOPWORDS)
    b = extract_features("!!! ...\n???", seg, NO_STOPWORDS)
    c = extract_features("???", seg, NO_STOPWORDS)
    assert a.form == "!!! ... ???" and a.content_hash == b.content_hash != c.content_hash
    assert extract_features(" \n\t ", seg, NO_STOPWORDS).form == ""


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_every_weighting_is_positive(weighting: str) -> None:
    """Every weighting gives positive weights (a present term never counts against)."""
    fv = extract_features("图书馆 读者 借阅 图书馆 library", get_segmenter(), NO_STOPWORDS,
                          weighting=weighting)  # fmt: skip
    assert fv.terms and all(w > 0 for w in fv.weights.tolist())


def test_vocabulary_memo_gives_the_same_features_as_a_fresh_vocabulary() -> None:
    """Units remembered from earlier documents count exactly as if scanned again."""
    seg = get_segmenter()
    docs = [
        "第一行中文内容。\nSecond line, English.\n\n第三行\n继续。",
        "Second line, English.\n第一行中文内容。\nNew line here 新的一行。",
        "第三行\n继续。\nSecond line, English.\nSecond line, English.",
    ]
    warm = Vocabulary(seg, frozenset({"line"}))
    for text in docs + docs:
        fresh = Vocabulary(seg, frozenset({"line"}))
        got = warm.features(text)
        want = fresh.features(text)
        assert dict(zip((warm.terms[i] for i in got[0]), got[1].tolist(), strict=True)) == dict(
            zip((fresh.terms[i] for i in want[0]), want[1].tolist(), strict=True)
        )
        assert got[2] == want[2]
    assert warm.memo  # the units were remembered


def test_vocabulary_starts_afresh_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its limits the vocabulary (and memo) is rebuilt between documents; results agree."""
    seg = get_segmenter()
    text = "alpha beta gamma delta 图书馆 读者 借阅"
    want = extract_features(text, seg, NO_STOPWORDS).as_dict()
    monkeypatch.setattr(Vocabulary, "LIMIT", 3)
    monkeypatch.setattr(Vocabulary, "MEMO_LIMIT", 1)
    monkeypatch.setattr(Vocabulary, "MEMO_CHARS", 5)
    vocab = Vocabulary(seg, NO_STOPWORDS)
    for _ in range(3):
        vocab.ensure_room()
        slots, tf, _ = vocab.features(text)
        assert dict(zip((vocab.terms[i] for i in slots), tf.tolist(), strict=True)) == {
            t: 1.0 for t in want
        }


def test_memo_is_bounded_by_characters() -> None:
    """Past MEMO_CHARS remembered characters the memo starts afresh; long units are skipped."""
    seg = get_segmenter()
    vocab = Vocabulary(seg, NO_STOPWORDS)
    vocab.MEMO_CHARS = 30  # type: ignore[misc]
    vocab.MEMO_MAX_UNIT = 12  # type: ignore[misc]
    vocab.features("short line\na much longer line that is not remembered\nok")
    assert set(vocab.memo) == {"short line", "ok"}
    assert vocab.memo_chars == len("short line") + len("ok")
    vocab.features("\n".join(f"line {i:03d}" for i in range(5)))
    assert vocab.memo_chars == 12 + 5 * 8 > vocab.MEMO_CHARS
    vocab.ensure_room()
    assert not vocab.memo and vocab.memo_chars == 0
