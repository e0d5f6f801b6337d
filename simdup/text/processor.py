"""One document at a time: a decoded text becomes a fingerprinted document (or a skip record).

``DocumentProcessor`` holds what a process needs for that (segmenter, stopwords, vocabulary)
and is built once per process and parameter set: every engine runs it, in this process or in
workers. It reads no file: ``engines.work`` reads a source with its reader and hands the text
here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from ..algorithms.edit_join import bigram_features
from ..algorithms.minhash import signature_bytes as minhash_signature
from ..algorithms.simhash import simhash
from ..algorithms.sketch import bottom_k_bytes
from ..native import speedups
from ..params import SHORT_TEXT_CHARS, FeatureParams
from ..records import (
    DecodedDocument,
    FeatureVector,
    FingerprintedDocument,
    SkippedFile,
)
from .features import extract_features, vocabulary
from .idf import jieba_table
from .segmentation import Segmenter, get_segmenter
from .stopwords import bundled_stopwords

T = TypeVar("T")


def document_parts_python(
    hashes: np.ndarray, weights: np.ndarray, markup_hashes: np.ndarray, sketch_size: int,
    perms: int,
) -> tuple[int, bytes, bytes]:  # fmt: skip
    """SimHash fingerprint of the features (``hashes``, ``weights``), bottom-k sketch of the
    word set (the features' hashes and ``markup_hashes``), MinHash signature of the features
    (``b""`` when ``perms`` is 0): the reference definition."""
    words = np.concatenate((hashes, markup_hashes)) if markup_hashes.size else hashes
    sketch = bottom_k_bytes(words, sketch_size)
    signature = minhash_signature(hashes, perms) if perms else b""
    return simhash(hashes, weights), sketch, signature


# The three in one native call (little-endian bytes: native order is the stored order).
document_parts: Callable[[np.ndarray, np.ndarray, np.ndarray, int, int], tuple[int, bytes, bytes]]
if speedups is not None and sys.byteorder == "little":
    document_parts = speedups.document_parts
else:
    document_parts = document_parts_python


_NO_HASHES = np.empty(0, dtype=np.uint64)

TOO_SHORT = "too short to judge"
NOTHING_TO_JUDGE = f"{TOO_SHORT}: no text"


def is_too_short(skip: SkippedFile) -> bool:
    """Whether a file was skipped only for having no text to judge (it was read)."""
    return skip.stage == "features" and skip.reason.startswith(TOO_SHORT)


class DocumentProcessor:
    """Turns one file or text into a fingerprinted document. One per process."""

    def __init__(self, params: FeatureParams, *, words: bool = True) -> None:
        self.params = params
        self.segmenter: Segmenter = get_segmenter(params.segmenter, params.user_dict)
        words_ = bundled_stopwords() if params.stopwords else frozenset()
        self.stopwords = frozenset(words_ | params.extra_stopwords)
        # Built before workers fork, so that they share it.
        self.vocabulary = vocabulary(self.segmenter, self.stopwords)
        jieba_table()
        if words:
            self.load_words()

    def load_words(self) -> None:
        """The segmenter's dictionary, loaded now (before workers fork: they share it) rather
        than by the first text long enough to be judged by its words."""
        self.segmenter.load()

    def features(self, text: str, words_from: int = 0) -> FeatureVector:
        """The text's weighted words and comparison form; below ``words_from`` characters its
        form only (``extract_features``)."""
        p = self.params
        return extract_features(
            text,
            self.segmenter,
            self.stopwords,
            markup=p.text_markup,
            weighting=p.weighting,
            ngram=p.ngram,
            words_from=words_from,
        )

    def fingerprint_features(self, fv: FeatureVector) -> tuple[int, bytes, bytes]:
        """SimHash fingerprint, bottom-k sketch and (if asked for) MinHash signature."""
        # The sketch is of the document's word set (its markup's words too): it verifies.
        p = self.params
        return document_parts(
            np.ascontiguousarray(fv.hashes, dtype=np.uint64),
            np.ascontiguousarray(fv.weights, dtype=np.float64),
            np.ascontiguousarray(fv.markup_hashes, dtype=np.uint64),
            p.sketch_size, p.minhash_perms,
        )  # fmt: skip

    def fingerprint_short(self, fv: FeatureVector) -> tuple[int, bytes, bytes, int]:
        """A short text's SimHash fingerprint and MinHash signature, of its character bigrams;
        its comparison form with its blocks marked (UTF-8, ``FeatureVector.blocks``) in place of
        a sketch (edit and block-move similarity verify it); and the number of distinct
        bigrams."""
        hashes, counts = bigram_features(fv.form)
        fp, _, signature = document_parts(
            hashes, counts, _NO_HASHES, self.params.sketch_size, self.params.minhash_perms
        )
        kept = fv.blocks or fv.form
        return fp, kept.encode("utf-8", "surrogatepass"), signature, int(hashes.size)

    def record_parts(self, fv: FeatureVector) -> tuple[int, bytes, bytes, int]:
        """Fingerprint, sketch (or a short text's form), MinHash signature and feature count of
        a document's features: by characters below ``SHORT_TEXT_CHARS``, else by words."""
        if fv.chars < SHORT_TEXT_CHARS:
            return self.fingerprint_short(fv)
        fp, sketch, signature = self.fingerprint_features(fv)
        return fp, sketch, signature, len(fv)

    def document(self, doc: DecodedDocument) -> FingerprintedDocument | SkippedFile:
        # A short text's words are not needed: it is judged by its characters.
        fv = self.features(doc.text, words_from=SHORT_TEXT_CHARS)
        if not fv.form:
            return SkippedFile(doc.path, "features", NOTHING_TO_JUDGE)
        fp, sketch, signature, feature_count = self.record_parts(fv)
        return FingerprintedDocument(
            path=doc.path,
            fingerprint=fp,
            encoding=doc.encoding,
            encoding_source=doc.encoding_source,
            size=doc.size,
            token_count=fv.token_count,
            feature_count=feature_count,
            content_hash=fv.content_hash,
            chars=fv.chars,
            sketch=sketch,
            minhash=signature,
        )


_PROCESSORS: dict[FeatureParams, DocumentProcessor] = {}


def processor_for(params: FeatureParams, *, words: bool = True) -> DocumentProcessor:
    """The process's ``DocumentProcessor`` for ``params`` (built on first use), its
    segmenter's dictionary loaded; with ``words`` False, only when a text needs it (texts
    under ``SHORT_TEXT_CHARS`` characters never do)."""
    proc = _PROCESSORS.get(params)
    if proc is None:
        proc = _PROCESSORS[params] = DocumentProcessor(params, words=words)
    elif words:
        proc.load_words()
    return proc


def fingerprint(text: str, params: FeatureParams | None = None, **options: Any) -> int:
    """The 64-bit SimHash fingerprint of ``text``.

    Keyword arguments are ``FeatureParams`` fields (``weighting``, ``stopwords``, ...).
    """
    params = replace(params or FeatureParams(), **options) if options else params or FeatureParams()
    proc = processor_for(params)
    features = proc.features(text)
    if not features.form:  # nothing to judge: what scan skips (NOTHING_TO_JUDGE)
        return 0
    return proc.record_parts(features)[0]
