"""Weighted features of one document: words (and optionally word bigrams), stopwords dropped."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from .hashing import content_hash
from .normalize import collapse_whitespace, normalize_text, strip_markup
from .records import FeatureVector
from .segmentation import Segmenter

_DEFAULT_IDF_QUANTILE = 0.5


@lru_cache(maxsize=1)
def jieba_idf() -> tuple[dict[str, float], float]:
    """jieba's bundled IDF table and the median IDF used for words it does not list."""
    text = resources.files("jieba").joinpath("analyse", "idf.txt").read_text("utf-8")
    table: dict[str, float] = {}
    for line in text.splitlines():
        word, _, value = line.partition(" ")
        if value:
            table[word] = float(value)
    values = sorted(table.values())
    return table, values[int(len(values) * _DEFAULT_IDF_QUANTILE)]


def term_counts(tokens: Iterable[str], stopwords: frozenset[str], ngram: int) -> Counter[str]:
    words = [t for t in tokens if t not in stopwords]
    counts = Counter(words)
    if ngram == 2:
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
    return counts


def weigh(counts: Counter[str], weighting: str) -> dict[str, float]:
    if weighting == "tf":
        return {t: float(c) for t, c in counts.items()}
    if weighting == "binary":
        return dict.fromkeys(counts, 1.0)
    if weighting == "logtf":
        return {t: 1.0 + math.log(c) for t, c in counts.items()}
    idf, default = jieba_idf()
    return {t: (1.0 + math.log(c)) * idf.get(t, default) for t, c in counts.items()}


def extract_features(
    text: str,
    segmenter: Segmenter,
    stopwords: frozenset[str],
    *,
    markup: bool = True,
    weighting: str = "tfidf",
    ngram: int = 1,
) -> FeatureVector:
    normalised = normalize_text(text, markup=False)
    # Exact duplicates are judged on the whole normalised text, markup included.
    collapsed = collapse_whitespace(normalised)
    digest = content_hash(collapsed)
    tokens = segmenter.tokens(strip_markup(normalised) if markup else normalised)
    counts = term_counts(tokens, stopwords, ngram)
    return FeatureVector(weigh(counts, weighting), len(tokens), len(collapsed), digest)
