"""Bottom-k sketches: a compact stand-in for a document's word set, for verification.

A sketch keeps the k smallest distinct 64-bit term hashes of a document (all of them when the
document has fewer than k distinct terms, in which case Jaccard from two such sketches is
exact). For two sketches, the k smallest hashes of their union are a uniform sample of the
union, and the share of that sample present in both sets estimates the Jaccard similarity
(Broder 1997). Memory per document is k * 8 bytes, independent of its length.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def bottom_k(hashes: np.ndarray, k: int) -> tuple[int, ...]:
    """The k smallest distinct values of ``hashes``, ascending."""
    unique = np.unique(hashes)
    return tuple(int(x) for x in unique[:k])


def estimate_jaccard(a: Sequence[int], b: Sequence[int], k: int) -> float:
    """Estimated Jaccard similarity of the two sets the sketches were taken from."""
    if not a and not b:
        return 1.0
    sa, sb = set(a), set(b)
    union = sorted(sa | sb)[:k]
    both = sum(1 for x in union if x in sa and x in sb)
    return both / len(union)
