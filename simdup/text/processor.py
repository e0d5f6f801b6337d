"""One document at a time: a file or a text becomes a fingerprinted document (or a skip record).

``DocumentProcessor`` holds what a process needs for that (segmenter, stopwords, vocabulary)
and is built once per process and parameter set: every engine runs it, in this process or in
workers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
import xxhash

from ..algorithms.edit_join import bigram_features
from ..algorithms.minhash import signature_bytes as minhash_signature
from ..algorithms.simhash import simhash
from ..algorithms.sketch import bottom_k_bytes
from ..native import speedups
from ..params import SHORT_TEXT_CHARS, FeatureParams
from ..readers import document_of, documents_of
from ..readers.files import read_or_skip
from ..records import (
    DecodedDocument,
    FeatureVector,
    FingerprintedDocument,
    SkippedFile,
    SourceFile,
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

    def __init__(self, params: FeatureParams) -> None:
        self.params = params
        self.segmenter: Segmenter = get_segmenter(params.segmenter, params.user_dict)
        words = bundled_stopwords() if params.stopwords else frozenset()
        self.stopwords = frozenset(words | params.extra_stopwords)
        # Built before workers fork, so that they share it.
        self.vocabulary = vocabulary(self.segmenter, self.stopwords)
        jieba_table()

    def features(self, text: str, words_from: int = 0) -> FeatureVector:
        """The text's weighted words and comparison form; below ``words_from`` characters its
        form only (``extract_features``)."""
        p = self.params
        return extract_features(
            text,
            self.segmenter,
            self.stopwords,
            markup=p.markup,
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
        its comparison form (UTF-8) in place of a sketch (edit similarity verifies it); and the
        number of distinct bigrams."""
        hashes, counts = bigram_features(fv.form)
        fp, _, signature = document_parts(
            hashes, counts, _NO_HASHES, self.params.sketch_size, self.params.minhash_perms
        )
        return fp, fv.form.encode("utf-8", "surrogatepass"), signature, int(hashes.size)

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

    def process(
        self,
        source: SourceFile,
        max_size: int,
        task: Callable[[DecodedDocument], T] | None = None,
    ) -> tuple[FingerprintedDocument | SkippedFile, T | None, bytes]:
        """One file, read once: its fingerprint (read by its reader, ``simdup.readers``) or
        the record of why it has none; ``task(document)`` of its decoded document when it was
        fingerprinted (None otherwise, or when the task runs out of memory: the record still
        stands); and the xxh3-128 of its bytes (``b""`` when they could not be read), by which
        the scan cache knows the file again. One bad file never stops a run: even an
        unexpected error (a bug, memory exhausted by one huge text) becomes a skip record of
        stage ``internal``, which ``--strict`` counts."""
        path = source.path
        data = read_or_skip(source, max_size)
        if isinstance(data, SkippedFile):
            return data, None, b""
        digest = xxhash.xxh3_128_digest(data)
        document: DecodedDocument | None = None

        def decode() -> DecodedDocument | SkippedFile:
            nonlocal document
            decoded = document_of(path, documents_of(path, data))
            if task is not None and not isinstance(decoded, SkippedFile):
                document = decoded
            return decoded

        result = self._guarded(path, decode)
        if task is None or document is None:
            return result, None, digest
        if isinstance(result, SkippedFile) and not is_too_short(result):
            # A text with nothing to judge still goes to the task, which decides for itself.
            return result, None, digest
        try:
            return result, task(document), digest
        except MemoryError:
            return result, None, digest

    def file(self, source: SourceFile, max_size: int) -> FingerprintedDocument | SkippedFile:
        """``process`` without a task: the file's record."""
        return self.process(source, max_size)[0]

    def file_with(
        self, source: SourceFile, max_size: int, task: Callable[[DecodedDocument], T]
    ) -> tuple[FingerprintedDocument | SkippedFile, T | None]:
        """``process`` with a task: the file's record and what the task made of its text."""
        result, made, _ = self.process(source, max_size, task)
        return result, made

    def data(self, path: str, data: bytes) -> FingerprintedDocument | SkippedFile:
        """``file`` for bytes already read (a file behind an fsspec URL, read by a worker)."""
        return self._guarded(path, lambda: document_of(path, documents_of(path, data)))

    def _guarded(
        self, path: str, decode: Callable[[], DecodedDocument | SkippedFile]
    ) -> FingerprintedDocument | SkippedFile:
        try:
            decoded = decode()
            if isinstance(decoded, SkippedFile):
                return decoded
            return self.document(decoded)
        except MemoryError:
            return SkippedFile(path, "internal", "out of memory while fingerprinting it")
        except Exception as exc:
            reason = f"internal error: {type(exc).__name__}: {exc}"
            return SkippedFile(path, "internal", reason)


_PROCESSORS: dict[FeatureParams, DocumentProcessor] = {}


def processor_for(params: FeatureParams) -> DocumentProcessor:
    """The process's ``DocumentProcessor`` for ``params`` (built on first use)."""
    proc = _PROCESSORS.get(params)
    if proc is None:
        proc = _PROCESSORS[params] = DocumentProcessor(params)
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
