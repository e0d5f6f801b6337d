"""Bottom-k sketches: a compact stand-in for a document's word set, for verification.

A sketch keeps the k smallest distinct 64-bit term hashes of a document (all of them when the
document has fewer than k distinct terms, in which case Jaccard from two such sketches is
exact). For two sketches, the k smallest hashes of their union are a uniform sample of the
union, and the share of that sample present in both sets estimates the Jaccard similarity
(Broder 1997). Memory per document is k * 4 bytes, independent of its length.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ..native import speedups


def bottom_k(hashes: np.ndarray, k: int) -> np.ndarray:
    """The k smallest distinct values of the top 32 bits of ``hashes``, ascending (``uint32``).

    32 bits are plenty to tell a document's terms apart (a collision among 10,000 terms has
    probability ~1%, and shifts an estimate by at most 1/k) and halve the memory.
    """
    high = (np.asarray(hashes, dtype=np.uint64) >> np.uint64(32)).astype(np.uint32)
    return _distinct_sorted(high)[:k]


def bottom_k_bytes(hashes: np.ndarray, k: int) -> bytes:
    """``bottom_k`` as little-endian uint32 bytes, as documents store it (in one native call
    where the accelerator is built: a dozen small numpy calls cost more than the sort)."""
    if speedups is not None and sys.byteorder == "little":
        return speedups.bottom_k(np.ascontiguousarray(hashes, dtype=np.uint64), k)  # type: ignore[no-any-return]
    return bottom_k(hashes, k).astype("<u4").tobytes()


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique without its overhead: 10x faster on small arrays)."""
    values = np.sort(values)
    if values.size < 2:
        return values
    keep = np.empty(values.size, dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def estimate_jaccard(a: np.ndarray, b: np.ndarray, k: int) -> float:
    """Estimated Jaccard similarity of the two sets the sketches were taken from.

    ``a`` and ``b`` are sorted, distinct arrays as made by ``bottom_k``.
    """
    if a.size == 0 and b.size == 0:
        return 1.0
    if a.size < k and b.size < k:
        # Both sketches hold their whole sets: exact.
        both_all = np.intersect1d(a, b, assume_unique=True).size
        return both_all / (a.size + b.size - both_all)
    union = _distinct_sorted(np.concatenate((a, b)))[:k]
    both = np.intersect1d(a, b, assume_unique=True)
    return int(np.count_nonzero(both <= union[-1])) / union.size


# The C version reads the stored little-endian bytes as native integers.
_native_jaccard = speedups.bottom_k_jaccard if speedups and sys.byteorder == "little" else None


def sketch_jaccard(a: bytes, b: bytes, k: int) -> float:
    """``estimate_jaccard`` of two stored sketches (``bottom_k`` as little-endian uint32 bytes)."""
    if _native_jaccard is not None:
        return float(_native_jaccard(a, b, k))
    return estimate_jaccard(np.frombuffer(a, dtype="<u4"), np.frombuffer(b, dtype="<u4"), k)


_native_jaccard_pairs = (
    speedups.bottom_k_jaccard_pairs if speedups and sys.byteorder == "little" else None
)


# Pairs per thread below which one native call does the work alone (a thread's start costs
# more than the estimates of a few thousand pairs).
_PAIRS_PER_THREAD = 1 << 16


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def sketch_jaccard_pairs(sketches: list[bytes], i: np.ndarray, j: np.ndarray, k: int) -> np.ndarray:
    """``sketch_jaccard(sketches[i[n]], sketches[j[n]], k)`` for every ``n`` (``float64``), in
    native calls where the accelerator is built (millions of candidate pairs), shared by a
    thread per core (the native loop runs without the GIL; the result is the same)."""
    i = np.ascontiguousarray(i, dtype=np.int64)
    j = np.ascontiguousarray(j, dtype=np.int64)
    if _native_jaccard_pairs is not None:
        threads = min(_cores(), i.size // _PAIRS_PER_THREAD)
        if threads < 2:
            return np.frombuffer(_native_jaccard_pairs(sketches, i, j, k), dtype=np.float64)
        from concurrent.futures import ThreadPoolExecutor

        cuts = np.linspace(0, i.size, threads + 1).astype(np.int64).tolist()
        spans = list(zip(cuts[:-1], cuts[1:], strict=True))
        with ThreadPoolExecutor(threads) as pool:
            parts = pool.map(lambda s: _native_jaccard_pairs(sketches, i[s[0]:s[1]],
                                                             j[s[0]:s[1]], k), spans)  # fmt: skip
            return np.frombuffer(b"".join(parts), dtype=np.float64)
    pairs = zip(i.tolist(), j.tolist(), strict=True)
    estimates = [sketch_jaccard(sketches[a], sketches[b], k) for a, b in pairs]
    return np.array(estimates, dtype=np.float64)
