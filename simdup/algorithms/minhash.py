"""MinHash signatures and LSH banding (Broder 1997; Leskovec, Rajaraman & Ullman ch. 3).

A signature holds, for each of ``perms`` seeded 64-bit mixings of the term hashes, the minimum
value over the document's distinct terms; two signatures agree in a position with probability
equal to the Jaccard similarity of the two term sets. LSH splits the signature into ``bands``
of ``rows``; documents that agree on a whole band become candidates. The band layout is chosen
from the Jaccard threshold so that false negatives and false positives around it are balanced,
weighted towards recall (candidates are verified afterwards).
"""

from __future__ import annotations

import math
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator
from functools import lru_cache

import numpy as np

from ..native import speedups

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a fixed bijection of uint64 with good avalanche."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    out: np.ndarray = x ^ (x >> np.uint64(31))
    return out


@lru_cache(maxsize=8)
def _seeds(perms: int) -> np.ndarray:
    return mix64(np.arange(1, perms + 1, dtype=np.uint64) * _GOLDEN)


def signature_python(hashes: np.ndarray, perms: int = 128) -> np.ndarray:
    """MinHash signature (``uint64[perms]``) of the set of ``hashes`` (the reference)."""
    if hashes.size == 0:
        return np.full(perms, np.iinfo(np.uint64).max, dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = mix64(hashes.astype(np.uint64)[:, None] ^ _seeds(perms)[None, :])
    out: np.ndarray = mixed.min(axis=0)
    return out


# Native: the same values as ``perms`` native-order uint64 bytes (tests/native/test_native.py).
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


def collision(jaccard: float, bands: int, rows: int) -> float:
    """The probability that two documents whose word sets have this Jaccard similarity agree
    on all ``rows`` values of at least one of ``bands`` bands (become a candidate pair)."""
    return float(1.0 - (1.0 - jaccard**rows) ** bands)


# A pair of documents at exactly the similarity threshold becomes a candidate at least this
# often; a pair above it, more often still. LSH is only the candidate stage: what it misses is
# lost, while a chance candidate costs one sketch comparison in verification.
BAND_RECALL = 0.99


def choose_bands(threshold: float, perms: int, recall: float = BAND_RECALL) -> tuple[int, int]:
    """``(bands, rows)``, ``bands = perms // rows``: the most rows per band (the fewest chance
    candidates) with which a pair at ``threshold`` Jaccard is a candidate with probability at
    least ``recall``; one row per band when no band layout reaches it."""
    for rows in range(perms, 1, -1):
        bands = perms // rows
        if collision(threshold, bands, rows) >= recall:
            return bands, rows
    return perms, 1


def band_keys(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """``uint64[n, bands]``: one key per band of each signature; documents agree on a band
    when their keys are equal (up to a 2^-64 collision). Key of a band: ``k = 0``, then
    ``k = mix(k * golden + value)`` over its ``rows`` values in order."""
    n = signatures.shape[0]
    # Every band at once, a column of rows at a time: a few numpy calls per batch whatever
    # its size (workers key batches of ~100 documents).
    blocks = signatures[:, : bands * rows].reshape(n, bands, rows)
    keys = np.zeros((n, bands), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in range(rows):
            keys = mix64(keys * _GOLDEN + blocks[:, :, col])
    return keys


def equal_key_pairs(key: np.ndarray) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j`` (shape ``(m, 2)``) with ``key[i] == key[j]``: every
    pair inside a bucket of one band (a distributed join calls it on each bucket's rows)."""
    n = key.size
    # Any sort will do (3x faster than a stable one): members are sorted within each run.
    order = np.argsort(key)
    ordered = key[order]
    if not bool((ordered[1:] == ordered[:-1]).any()):
        return np.empty((0, 2), dtype=np.int64)
    # Runs of equal keys: every pair inside a run. Runs of one length are paired together
    # (most are pairs; a loop per run cost ~40 µs each at 10^5 documents).
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    lengths = np.diff(np.r_[starts, n])
    found = []
    for length in np.unique(lengths[lengths > 1]).tolist():
        members = order[starts[lengths == length][:, None] + np.arange(length)]
        members.sort(axis=1)
        ii, jj = np.triu_indices(length, 1)
        found.append(np.stack([members[:, ii].ravel(), members[:, jj].ravel()], axis=1))
    return np.concatenate(found).astype(np.int64)


def band_candidates(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j`` (shape ``(n, 2)``) sharing at least one band."""
    return np.stack(keyed_candidates(band_keys(signatures, bands, rows)), axis=1)


def length_lanes(chars: np.ndarray, min_ratio: float) -> np.ndarray | None:
    """``int64`` lane of each length in ``chars``: two lengths whose ratio (shorter over longer)
    is at least ``min_ratio`` lie in the same or in neighbouring lanes, which are bins of width
    ``log(1 / min_ratio)`` (widened by one part in 10^9 against rounding) of the log length.
    None when ``min_ratio <= 0``: every length may pair with every other."""
    if min_ratio <= 0:
        return None
    logs = np.log(np.maximum(np.asarray(chars, dtype=np.float64), 1.0))
    if min_ratio >= 1:  # only equal lengths pass: a lane per length is fine-grained enough
        return np.asarray(chars, dtype=np.int64)
    width = -math.log(min_ratio) * (1 + 1e-9)
    return np.floor(logs / width).astype(np.int64)


def _in_lane(key: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return mix64(key * _GOLDEN + lanes.astype(np.uint64))


def keyed_candidates(
    keys: np.ndarray, lanes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``band_candidates`` from the ``band_keys`` of the signatures (which a caller may have
    computed a part at a time, never holding every signature in one array), as two ``int64``
    arrays ``(i, j)``. With ``lanes`` (``length_lanes``), only documents in the same or
    neighbouring lanes are paired: a band is keyed once with a document's own lane and once
    with the next, so that two documents a lane apart meet in the higher one. Boilerplate
    shared by documents of any length then proposes only the pairs whose lengths could pass
    verification."""
    n, bands = keys.shape

    def codes_of(band: int) -> np.ndarray:
        # Each pair (i < j) as one int64 code i * n + j: half the memory of a row of two, and
        # the bands' codes are made distinct (and put in (i, j) order) by sorting.
        if lanes is None:
            pairs = equal_key_pairs(keys[:, band])
            coded: np.ndarray = pairs[:, 0] * np.int64(n) + pairs[:, 1]
            return coded
        key = keys[:, band]
        both = equal_key_pairs(np.concatenate([_in_lane(key, lanes), _in_lane(key, lanes + 1)]))
        i, j = both[:, 0] % n, both[:, 1] % n
        keep = i != j  # a document's two keys (an unlikely 2^-64 collision)
        laned: np.ndarray = np.minimum(i, j)[keep] * np.int64(n) + np.maximum(i, j)[keep]
        return laned

    found: list[np.ndarray] = []
    held = distinct = 0
    for codes in _bands_in_threads(codes_of, bands, n):
        found.append(codes)
        held += codes.size
        # A pair shares many bands when its documents share much text (boilerplate): the
        # codes found are merged into distinct ones whenever they outgrow twice those, so
        # that memory follows the candidates, not candidates times bands.
        if held > max(_MERGE_AT, 2 * distinct):
            found = [_distinct(found)]
            held = distinct = found[0].size
    codes = _distinct(found)
    found.clear()
    first = codes // n
    codes -= first * n  # now the second member
    return first, codes


# Documents below which the bands are keyed in this thread alone.
_THREADED_FROM = 1 << 16


def _bands_in_threads(
    work: Callable[[int], np.ndarray], bands: int, n: int
) -> Iterator[np.ndarray]:
    """``work(band)`` for every band, in band order; on large inputs by a thread per core
    (numpy's sorts run without the GIL), at most one band ahead per thread, so that memory
    holds a few bands' pairs, not all of them."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    if cores < 2 or n < _THREADED_FROM or bands < 2:
        for band in range(bands):
            yield work(band)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(min(cores, bands)) as pool:
        pending: deque[Future[np.ndarray]] = deque()
        ahead = min(cores, bands)
        for band in range(bands):
            pending.append(pool.submit(work, band))
            if len(pending) >= ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


_MERGE_AT = 1 << 22


def _distinct(parts: list[np.ndarray]) -> np.ndarray:
    """The distinct values of ``parts``, sorted (each part let go once copied)."""
    codes = np.concatenate(parts) if parts else np.empty(0, np.int64)
    parts.clear()
    codes.sort()
    if codes.size > 1:
        codes = codes[np.r_[True, codes[1:] != codes[:-1]]]
    return codes.astype(np.int64, copy=False)


def keyed_candidates_touching(
    keys: np.ndarray, touched: np.ndarray, lanes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of ``keyed_candidates(keys, lanes)`` that hold a ``touched`` document (a bool
    per row), as two ``int64`` arrays ``(i, j)``, ``i < j``, sorted. Per band only the touched
    documents' keys are sorted, and every key is looked up among them (a rescan that changed
    1% of a tree sorts 1% of the keys)."""
    n, bands = keys.shape
    touched = np.asarray(touched, dtype=bool)
    rows = np.flatnonzero(touched)
    if rows.size == 0 or n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    codes: list[np.ndarray] = []
    for band in range(bands):
        key = keys[:, band]
        if lanes is None:
            entries, mine = key, rows
        else:
            # As keyed_candidates: a document's band keyed with its lane and with the next.
            entries = np.concatenate([_in_lane(key, lanes), _in_lane(key, lanes + 1)])
            mine = np.concatenate([rows, rows + n])
        codes.append(_equal_to_some(entries, mine, n))
    found = _distinct(codes)
    first = found // n
    return first, found - first * n


def _equal_to_some(entries: np.ndarray, mine: np.ndarray, n: int) -> np.ndarray:
    """Pair codes ``i * n + j`` (``i < j``, documents ``entry % n``) of every entry equal to
    one of the entries ``mine``, with that one (not with itself)."""
    wanted = entries[mine]
    order = np.argsort(wanted, kind="stable")
    ordered, owners = wanted[order], mine[order] % n
    # One binary search for every entry; the end of each equal run only for the few found.
    lo = np.searchsorted(ordered, entries, "left")
    found = np.flatnonzero(ordered[np.minimum(lo, ordered.size - 1)] == entries)
    lo = lo[found]
    sizes = np.searchsorted(ordered, entries[found], "right") - lo
    other = np.repeat(found % n, sizes)
    offset = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    owner = owners[np.repeat(lo, sizes) + offset]
    keep = owner != other
    owner, other = owner[keep], other[keep]
    codes: np.ndarray = np.minimum(owner, other) * np.int64(n) + np.maximum(owner, other)
    return codes
