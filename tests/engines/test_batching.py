"""simdup.engines.batching: the batches files are fingerprinted in."""

from __future__ import annotations

import itertools

import pytest


@pytest.mark.parametrize(("n", "jobs"), [(1, 2), (7, 2), (1170, 2), (5000, 8)])
def test_batches_cover_every_file_once_and_shrink(n: int, jobs: int) -> None:
    """Guided batches: consecutive, every file once, never growing, at most MAX_BATCH."""
    from simdup.engines.batching import MAX_BATCH, batches
    from simdup.records import SourceFile

    files = [SourceFile(f"f{i}", i) for i in range(n)]
    got = batches(files, jobs)
    assert [f for _, batch in got for f in batch] == files
    assert [start for start, _ in got] == list(
        itertools.accumulate([0] + [len(b) for _, b in got[:-1]])
    )
    sizes = [len(b) for _, b in got]
    assert max(sizes) <= MAX_BATCH
    assert all(a >= b for a, b in itertools.pairwise(sizes[:-1]))
