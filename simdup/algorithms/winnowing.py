"""k-gram fingerprints and winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003).

A document is a sequence of token hashes (64-bit, ``hashing.token_hash``). Its *k-grams* are
the runs of ``k`` consecutive tokens, each hashed from its tokens' hashes (each rotated by its
place in the run, then XORed: stable, order-sensitive, and computed for a whole document in a
few array operations). *Winnowing* keeps, in every window of ``w`` consecutive k-grams, the one
with the smallest hash (the rightmost on ties), so the kept fingerprints have this guarantee:
any run of at least ``w + k - 1`` tokens that two documents share contains a k-gram kept on
both sides, and one kept on the stored side is enough when the other side's k-grams are all
looked up. On random hashes about ``2 / (w + 1)`` of the k-grams are kept.

Arrays in, arrays out: no text, no files.
"""

from __future__ import annotations

import numpy as np

from ..native import speedups


def _rotated(hashes: np.ndarray, bits: int) -> np.ndarray:
    if bits % 64 == 0:
        return hashes
    left, right = np.uint64(bits % 64), np.uint64(64 - bits % 64)
    rotated: np.ndarray = (hashes << left) | (hashes >> right)
    return rotated


def kgram_hashes(token_hashes: np.ndarray, k: int) -> np.ndarray:
    """The hash of every k-gram of a token sequence (``uint64``; ``len - k + 1`` of them,
    none when the sequence is shorter than ``k``): k-gram ``i`` is the XOR of token ``i + j``'s
    hash rotated left by ``7 * j`` bits, for ``j`` in ``0..k-1``."""
    if k < 1:
        raise ValueError("k must be at least 1")
    hashes = np.ascontiguousarray(token_hashes, dtype=np.uint64)
    count = hashes.size - k + 1
    if count <= 0:
        return np.empty(0, dtype=np.uint64)
    out = hashes[:count].copy()
    for j in range(1, k):
        out ^= _rotated(hashes[j : j + count], 7 * j)
    return out


def kgram_hashes_at(token_hashes: np.ndarray, places: np.ndarray, k: int) -> np.ndarray:
    """``kgram_hashes(token_hashes, k)[places]``, without the others (``places``: starts of
    whole k-grams)."""
    hashes = np.asarray(token_hashes, dtype=np.uint64)
    at = np.asarray(places, dtype=np.int64)
    out = hashes[at].copy()
    for j in range(1, k):
        out ^= _rotated(hashes[at + j], 7 * j)
    return out


def winnow(kgrams: np.ndarray, w: int) -> np.ndarray:
    """The positions (ascending, ``int64``) of the k-grams winnowing keeps with window ``w``:
    the rightmost smallest hash of every window of ``w`` consecutive k-grams (of the whole
    sequence when it is shorter than one window); natively when the extension is built."""
    if speedups is None:
        return winnow_python(kgrams, w)
    found = speedups.winnow(np.ascontiguousarray(kgrams, dtype=np.uint64), w)
    return np.frombuffer(found, dtype=np.int64)


def winnow_python(kgrams: np.ndarray, w: int) -> np.ndarray:
    """``winnow`` in numpy (the definition ``speedups.winnow`` follows)."""
    if w < 1:
        raise ValueError("w must be at least 1")
    n = kgrams.size
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n <= w or w == 1:
        if w == 1:
            return np.arange(n, dtype=np.int64)
        reverse = kgrams[::-1]
        return np.array([n - 1 - int(np.argmin(reverse))], dtype=np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(kgrams, w)
    # argmin takes the leftmost minimum: on the reversed windows it is the rightmost.
    rightmost = w - 1 - np.argmin(windows[:, ::-1], axis=1)
    chosen = np.arange(windows.shape[0], dtype=np.int64) + rightmost
    # The rightmost minimum never moves left as the window slides: distinct = changed.
    changed = np.ones(chosen.size, dtype=bool)
    changed[1:] = chosen[1:] != chosen[:-1]
    kept: np.ndarray = chosen[changed]
    return kept


def guaranteed_run(k: int, w: int) -> int:
    """The length in tokens of the shortest shared run winnowing is sure to find."""
    return w + k - 1
