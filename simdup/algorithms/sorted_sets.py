"""Sets of features as sorted arrays, for the many small sets of sentence alignment.

``np.unique`` and ``np.isin`` cost tens of microseconds each in their own overhead (hashing,
concatenating and sorting both sides), and aligning a document with its sources asks them
tens of thousands of times of sets of a few dozen features. A set here is a sorted array of
distinct values (what ``unique_sorted`` makes, as ``np.unique`` does); membership is a binary
search into it. The results are those of ``np.unique`` and ``np.isin``.
"""

from __future__ import annotations

import numpy as np


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique(values)``)."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    kept: np.ndarray = ordered[keep]
    return kept


def unique_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values, sorted, and how often each occurs
    (``np.unique(values, return_counts=True)``)."""
    ordered = np.sort(values, kind="stable")
    if ordered.size == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    starts = np.flatnonzero(keep)
    counts = np.diff(np.append(starts, ordered.size)).astype(np.int64)
    return ordered[starts], counts


def members(values: np.ndarray, of: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in the set ``of`` (sorted, distinct): ``np.isin``."""
    if of.size == 0:
        return np.zeros(values.shape, dtype=bool)
    at = np.searchsorted(of, values)
    at[at == of.size] = 0
    found: np.ndarray = of[at] == values
    return found
