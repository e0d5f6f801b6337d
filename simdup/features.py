"""Weighted features of one document: words (and optionally word bigrams), stopwords dropped."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from importlib import resources

import numpy as np

from .hashing import content_hash, token_hash
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


def term_counts(tokens: list[str], stopwords: frozenset[str], ngram: int) -> Counter[str]:
    if ngram == 2:
        words = [t for t in tokens if t not in stopwords]
        counts = Counter(words)
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
        return counts
    counts = Counter(tokens)
    # Distinct terms are far fewer than tokens: drop stopwords after counting.
    for word in stopwords.intersection(counts):
        del counts[word]
    return counts


# Per-process memo of term -> (hash, idf): one lookup per distinct term of a document.
_TERM_INFO: dict[str, tuple[int, float]] = {}
_TERM_INFO_LIMIT = 1 << 21


def term_info(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """64-bit hashes and jieba IDF values of ``terms``."""
    cache = _TERM_INFO
    idf, default = jieba_idf()
    hashes: list[int] = []
    idfs: list[float] = []
    for term in terms:
        info = cache.get(term)
        if info is None:
            info = (token_hash(term), idf.get(term, default))
            if len(cache) < _TERM_INFO_LIMIT:
                cache[term] = info
        hashes.append(info[0])
        idfs.append(info[1])
    return np.array(hashes, dtype=np.uint64), np.array(idfs, dtype=np.float64)


def weigh(tf: np.ndarray, idf: np.ndarray, weighting: str) -> np.ndarray:
    """Term weights from term frequencies (and IDF for ``tfidf``)."""
    if weighting == "tf":
        return tf
    if weighting == "binary":
        return np.ones_like(tf)
    logtf: np.ndarray = 1.0 + np.log(tf)
    return logtf if weighting == "logtf" else logtf * idf


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
    cleaned = strip_markup(normalised) if markup else normalised
    # Word order only matters for bigrams.
    tokens = segmenter.tokens(cleaned) if ngram == 2 else segmenter.words(cleaned)
    counts = term_counts(tokens, stopwords, ngram)
    terms = list(counts)
    tf = np.fromiter(counts.values(), dtype=np.float64, count=len(terms))
    hashes, idf = term_info(terms)
    return FeatureVector(
        terms, hashes, weigh(tf, idf, weighting), len(tokens), len(collapsed), digest
    )
