"""Sources proposed by the words they share with a document (``BagIndex``), for reworded
copies (``sentences``): a reworded copy keeps most of its words but few runs of them."""

from __future__ import annotations

import numpy as np


class BagIndex:
    """The distinct features of many sources, to find the sources a document shares many
    features with: a reworded copy keeps most of its words but few runs of four, so the exact
    k-gram index may not propose its source."""

    def __init__(self, max_sources_per_feature: int = 64) -> None:
        self.max_sources_per_feature = max_sources_per_feature
        self._features: list[np.ndarray] = []
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, features: np.ndarray) -> None:
        """Index one source (its features, 0 for none), numbered in order of adding."""
        self.add_distinct(np.unique(features[features != 0]))

    def add_distinct(self, distinct: np.ndarray) -> None:
        """Index one source by its distinct features (sorted, no 0: ``Side.distinct_features``)."""
        self._features.append(distinct)
        self._sorted = None

    def candidates(self, features: np.ndarray, min_shared: int, limit: int) -> list[int]:
        """The sources sharing at least ``min_shared`` distinct features with ``features``
        (a feature of more than ``max_sources_per_feature`` sources counts for none), the
        ``limit`` sharing most (then the first added), ascending."""
        if self._sorted is None:
            owners = [np.full(f.size, k, np.int64) for k, f in enumerate(self._features)]
            every = np.concatenate(self._features) if self._features else np.empty(0, np.uint64)
            owner = np.concatenate(owners) if owners else np.empty(0, np.int64)
            order = np.argsort(every, kind="stable")
            self._sorted = every[order], owner[order]
        every, owner = self._sorted
        query = np.unique(features[features != 0])
        if not query.size or not every.size:
            return []
        lo = np.searchsorted(every, query, "left")
        hi = np.searchsorted(every, query, "right")
        count = hi - lo
        count[count > self.max_sources_per_feature] = 0
        total = int(count.sum())
        if not total:
            return []
        hit = owner[np.repeat(lo - np.cumsum(count) + count, count) + np.arange(total)]
        shared = np.bincount(hit, minlength=len(self._features))
        passing = np.flatnonzero(shared >= min_shared)
        best = passing[np.lexsort((passing, -shared[passing]))][:limit]
        found: list[int] = np.sort(best).tolist()
        return found
