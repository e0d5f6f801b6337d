"""64-bit weighted SimHash (Charikar) and Hamming distance.

For every feature with hash h and weight w, add +w to counter i where bit i of h is 1 and -w
where it is 0; bit i of the fingerprint is 1 when counter i is positive (ties give 0). The
expected Hamming distance of two fingerprints is 64 * angle / pi between their weight vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..native import speedups

BITS = 64
MASK64 = (1 << BITS) - 1
_PRECISION_BITS = 24


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two 64-bit fingerprints."""
    return ((a ^ b) & MASK64).bit_count()


def scaled_weights(weights: np.ndarray) -> np.ndarray:
    """Weights scaled by a power of two (exact) so that the largest is below 2^24, rounded.

    Sums of such integers stay far below 2^53, so they are exact in float64 whatever order
    they are added in: the fingerprint is the same on every machine, ties are exactly 0, and
    the order of the terms is irrelevant. Integer weights (tf, binary) are not changed at all.
    """
    w = np.asarray(weights, dtype=np.float64)
    top = float(np.abs(w).max()) if w.size else 0.0
    if top == 0.0:
        return np.zeros_like(w)
    _, exponent = math.frexp(top)  # top < 2**exponent
    return np.rint(np.ldexp(w, _PRECISION_BITS - exponent))


def simhash_python(hashes: np.ndarray, weights: np.ndarray) -> int:
    """The fingerprint of ``uint64`` hashes with ``scaled_weights`` (the reference)."""
    if hashes.size == 0:
        return 0
    # little-endian bytes, little bit order: column i is bit i of the hash.
    bits = np.unpackbits(
        hashes.astype("<u8", copy=False).view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    counters = 2.0 * (weights @ bits) - weights.sum()
    packed = np.packbits(counters > 0, bitorder="little")
    return int(packed.view("<u8")[0])


def simhash_of_weights_python(hashes: np.ndarray, weights: np.ndarray) -> int:
    """``simhash_python`` of ``scaled_weights``: the definition of the native one-call
    ``simhash_of_weights`` (weights must be finite)."""
    if not np.isfinite(weights).all():
        raise ValueError("simhash_of_weights() needs finite weights")
    return simhash_python(hashes, scaled_weights(weights))


_of_weights: Callable[[np.ndarray, np.ndarray], int] = (
    speedups.simhash_of_weights if speedups else simhash_of_weights_python
)


def simhash(hashes: np.ndarray, weights: np.ndarray) -> int:
    """Fingerprint from feature hashes (``uint64``) and their weights (same length, finite):
    the weights scaled (``scaled_weights``) and summed bit by bit, natively in one call."""
    if hashes.size == 0:
        return 0
    return _of_weights(
        np.ascontiguousarray(hashes, dtype=np.uint64),
        np.ascontiguousarray(weights, dtype=np.float64),
    )


def similarity(distance: int) -> float:
    """SimHash similarity ``1 - d/64``."""
    return 1.0 - distance / BITS
