"""Where does a corpus separate near-duplicates from the rest?

For every document, the Hamming distance to its nearest neighbour (within a radius); for every
pair within the radius, the estimated word-set Jaccard and length ratio. Printed as histograms,
so a user can see the gap between the distances and similarities of real near-duplicates and
those of unrelated documents before choosing ``--threshold``, ``--verify-radius`` or
``--min-similarity``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from .algorithms.index import MAX_THRESHOLD, near_pairs
from .engines import Progress
from .join.verify import Verifier
from .options import ScanOptions, resolve_options
from .readers.discovery import discover
from .records import SIMILARITY_BINS, Calibration
from .scanning import fingerprint_corpus


def calibrate(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    *,
    radius: int = 16,
    progress: Progress | None = None,
    **overrides: Any,
) -> Calibration:
    """Distance and similarity histograms of a corpus (see the module docstring)."""
    options = resolve_options(options, overrides)
    radius = max(0, min(radius, MAX_THRESHOLD))
    files, skipped = discover([os.fspath(p) for p in paths], options.discovery)
    docs, skips = fingerprint_corpus(files, skipped, options, progress)
    fps = np.array([d.fingerprint for d in docs], dtype=np.uint64)
    ii, jj, dd = near_pairs(fps, radius)
    nearest_of = np.full(len(docs), radius + 1, dtype=np.int64)
    np.minimum.at(nearest_of, ii, dd.astype(np.int64))
    np.minimum.at(nearest_of, jj, dd.astype(np.int64))
    nearest = np.bincount(nearest_of, minlength=radius + 2)
    grid = np.zeros((radius + 1, SIMILARITY_BINS), dtype=np.int64)
    length_ok = np.zeros(radius + 1, dtype=np.int64)
    verifier = Verifier(options)
    for i, j, d in zip(ii.tolist(), jj.tolist(), dd.tolist(), strict=True):
        a, b = docs[i], docs[j]
        sim = verifier.estimate(a, b)
        grid[d, min(int(sim * SIMILARITY_BINS), SIMILARITY_BINS - 1)] += 1
        if verifier.length_ok(a, b):
            length_ok[d] += 1
    return Calibration(
        documents=len(docs),
        skipped=len(skips),
        radius=radius,
        nearest=tuple(int(x) for x in nearest[: radius + 1]),
        isolated=int(nearest[radius + 1]),
        pairs=tuple(tuple(int(x) for x in row) for row in grid),
        length_ok=tuple(int(x) for x in length_ok),
        settings={"radius": radius, "min_length_ratio": options.min_length_ratio},
    )
