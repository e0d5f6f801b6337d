"""Weighted features of one document: words (and optionally word bigrams), stopwords dropped."""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from functools import lru_cache

import numpy as np

from .errors import SimdupError
from .hashing import content_hash, token_hash
from .normalize import collapse_whitespace, normalize_text, strip_markup
from .records import FeatureVector
from .segmentation import RUN_SEPARATOR, Segmenter

_DEFAULT_IDF_QUANTILE = 0.5


@lru_cache(maxsize=1)
def jieba_idf() -> tuple[dict[str, float], float]:
    """jieba's bundled IDF table and the median IDF used for words it does not list."""
    # Located without importing jieba (0.1 s) when rjieba does the segmenting.
    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise SimdupError("jieba's IDF table not found: jieba, a dependency, is not installed")
    folder = next(iter(spec.submodule_search_locations))
    with open(os.path.join(folder, "analyse", "idf.txt"), encoding="utf-8") as handle:
        text = handle.read()
    fields = text.split()  # "word idf" per line; no word holds a space
    table = dict(zip(fields[0::2], map(float, fields[1::2]), strict=True))
    values = sorted(table.values())
    return table, values[int(len(values) * _DEFAULT_IDF_QUANTILE)]


def term_counts(tokens: list[str], stopwords: frozenset[str], ngram: int) -> Counter[str]:
    if ngram == 2:
        words = [t for t in tokens if t not in stopwords]
        counts = Counter(words)
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
        return counts
    counts = Counter(tokens)
    # Distinct terms are far fewer than tokens: drop stopwords (and the separators between
    # CJK runs that Segmenter.words leaves in) after counting.
    counts.pop(RUN_SEPARATOR, None)
    for word in stopwords.intersection(counts):
        del counts[word]
    return counts


class _TermTable:
    """Per-process memo of term -> (64-bit hash, IDF), stored in numpy arrays.

    A document's distinct terms are looked up with one dict access each; hashes and IDF values
    are then gathered with one vectorised indexing step instead of a Python loop.
    """

    LIMIT = 1 << 21

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.hashes = np.empty(1 << 16, dtype=np.uint64)
        self.idf = np.empty(1 << 16, dtype=np.float64)

    def lookup(self, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
        get = self.index.get
        slots = [get(t, -1) for t in terms]
        if -1 in slots:
            idf, default = jieba_idf()
            for i, slot in enumerate(slots):
                if slot == -1:
                    slots[i] = self._add(terms[i], idf.get(terms[i], default))
        at = np.array(slots, dtype=np.intp)
        return self.hashes[at], self.idf[at]

    def _add(self, term: str, idf: float) -> int:
        slot = len(self.index)
        if slot >= self.LIMIT:  # bounded memory: start afresh
            self.index.clear()
            slot = 0
        if slot >= self.hashes.size:
            self.hashes = np.resize(self.hashes, 2 * self.hashes.size)
            self.idf = np.resize(self.idf, 2 * self.idf.size)
        self.hashes[slot] = token_hash(term)
        self.idf[slot] = idf
        self.index[term] = slot
        return slot


_TERMS = _TermTable()


def term_info(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """64-bit hashes and jieba IDF values of ``terms``."""
    return _TERMS.lookup(terms)


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
    tokens = segmenter.tokens(cleaned) if ngram == 2 else segmenter.words(cleaned, separators=True)
    counts = term_counts(tokens, stopwords, ngram)
    token_count = len(tokens) - (tokens.count(RUN_SEPARATOR) if ngram == 1 else 0)
    terms = list(counts)
    tf = np.fromiter(counts.values(), dtype=np.float64, count=len(terms))
    hashes, idf = term_info(terms)
    return FeatureVector(
        terms, hashes, weigh(tf, idf, weighting), token_count, len(collapsed), digest
    )
