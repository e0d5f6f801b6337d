"""MinHash signatures and LSH banding (Broder 1997; Leskovec, Rajaraman & Ullman ch. 3).

A signature holds, for each of ``perms`` seeded 64-bit mixings of the term hashes, the minimum
value over the document's distinct terms; two signatures agree in a position with probability
equal to the Jaccard similarity of the two term sets. LSH splits the signature into ``bands``
of ``rows``; documents that agree on a whole band become candidates. The band layout is chosen
from the Jaccard threshold so that false negatives and false positives around it are balanced,
weighted towards recall (candidates are verified afterwards).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from .native import speedups

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a fixed bijection of uint64 with good avalanche."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    out: np.ndarray = x ^ (x >> np.uint64(31))
    return out


@lru_cache(maxsize=8)
def _seeds(perms: int) -> np.ndarray:
    return _mix(np.arange(1, perms + 1, dtype=np.uint64) * _GOLDEN)


def signature_python(hashes: np.ndarray, perms: int = 128) -> np.ndarray:
    """MinHash signature (``uint64[perms]``) of the set of ``hashes`` (the reference)."""
    if hashes.size == 0:
        return np.full(perms, np.iinfo(np.uint64).max, dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = _mix(hashes.astype(np.uint64)[:, None] ^ _seeds(perms)[None, :])
    out: np.ndarray = mixed.min(axis=0)
    return out


# Native: the same values as ``perms`` native-order uint64 bytes (tests/test_native.py).
_native_signature: Callable[[np.ndarray, int], bytes] | None = (
    speedups.minhash_signature if speedups else None
)


def signature(hashes: np.ndarray, perms: int = 128) -> np.ndarray:
    """MinHash signature (``uint64[perms]``) of the set of ``hashes``.

    With the C accelerator the array is a read-only view of the bytes it returned.
    """
    if _native_signature is None or hashes.ndim != 1:
        return signature_python(hashes, perms)
    raw = _native_signature(np.ascontiguousarray(hashes, dtype=np.uint64), perms)
    return np.frombuffer(raw, dtype=np.uint64)


def signature_bytes(hashes: np.ndarray, perms: int = 128) -> bytes:
    """``signature`` as little-endian uint64 bytes, as documents store it."""
    if _native_signature is not None and sys.byteorder == "little" and hashes.ndim == 1:
        return _native_signature(np.ascontiguousarray(hashes, dtype=np.uint64), perms)
    return signature(hashes, perms).astype("<u8").tobytes()


def estimate(a: np.ndarray, b: np.ndarray) -> float:
    """Share of equal positions: the Jaccard estimate of two signatures."""
    return float(np.count_nonzero(a == b)) / a.size


def _collision(s: np.ndarray, rows: int, bands: int) -> np.ndarray:
    out: np.ndarray = 1.0 - (1.0 - s**rows) ** bands
    return out


def choose_bands(threshold: float, perms: int, fn_weight: float = 0.7) -> tuple[int, int]:
    """``(bands, rows)`` with ``bands * rows <= perms`` minimising weighted FP + FN area."""
    grid = np.linspace(0.0, 1.0, 201)
    best: tuple[float, int, int] | None = None
    for bands in range(1, perms + 1):
        rows = perms // bands
        if rows < 1:
            break
        p = _collision(grid, rows, bands)
        fp = np.trapezoid(np.where(grid < threshold, p, 0.0), grid)
        fn = np.trapezoid(np.where(grid >= threshold, 1.0 - p, 0.0), grid)
        cost = (1.0 - fn_weight) * fp + fn_weight * fn
        if best is None or cost < best[0]:
            best = (float(cost), bands, rows)
    assert best is not None
    return best[1], best[2]


def band_candidates(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j`` (shape ``(n, 2)``) sharing at least one band."""
    n = signatures.shape[0]
    found: list[np.ndarray] = []
    with np.errstate(over="ignore"):
        for band in range(bands):
            block = signatures[:, band * rows : (band + 1) * rows]
            key = np.zeros(n, dtype=np.uint64)
            for col in range(rows):
                key = _mix(key * _GOLDEN + block[:, col])
            order = np.argsort(key, kind="stable")
            ordered = key[order]
            same = np.flatnonzero(ordered[1:] == ordered[:-1])
            if same.size == 0:
                continue
            # Runs of equal keys: every pair inside a run.
            starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
            ends = np.r_[starts[1:], n]
            for s, e in zip(starts[ends - starts > 1], ends[ends - starts > 1], strict=True):
                members = np.sort(order[s:e])
                ii, jj = np.triu_indices(members.size, 1)
                found.append(np.stack([members[ii], members[jj]], axis=1))
    if not found:
        return np.empty((0, 2), dtype=np.int64)
    pairs = np.concatenate(found).astype(np.int64)
    return np.unique(pairs, axis=0)
