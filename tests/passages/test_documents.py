"""simdup.passages.documents: the fingerprints of a document's windows, native and Python alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.passages import window_fingerprints
from simdup.passages.documents import _window_ends, window_fingerprints_python


@given(
    table=st.lists(
        st.lists(st.integers(-(1 << 40), 1 << 40), min_size=64, max_size=64), min_size=1, max_size=6
    ),
    picks=st.lists(st.integers(0, 5), max_size=12),
    words=st.lists(st.integers(0, 30), min_size=12, max_size=12),
    min_words=st.integers(1, 60),
)
def test_window_fingerprints_are_the_signs_of_summed_counters(
    table: list[list[int]], picks: list[int], words: list[int], min_words: int
) -> None:
    """Native and Python window fingerprints agree, and bit b of a window's is set exactly where
    the sum of its blocks' counter b is positive; a block without a window gets 0."""
    counters = np.array(table, dtype=np.int64)
    rows = np.array([p % len(table) for p in picks], dtype=np.int64)
    ends = _window_ends(np.array(words[: rows.size], dtype=np.int64), min_words)
    got = window_fingerprints(counters, rows, ends)
    assert got.tobytes() == window_fingerprints_python(counters, rows, ends)
    for k in range(rows.size):
        if ends[k] < 0:
            assert got[k] == 0
            continue
        summed = counters[rows[k : ends[k] + 1]].sum(axis=0)
        assert int(got[k]) == sum(1 << b for b in range(64) if summed[b] > 0)


def test_window_fingerprints_refuse_rows_and_ends_out_of_range() -> None:
    counters = np.zeros((2, 64), dtype=np.int64)
    for rows, ends in (([0, 2], [1, -1]), ([0, -1], [1, -1]), ([0, 1], [2, -1]), ([0, 1], [-1, 0])):
        r, e = np.array(rows, dtype=np.int64), np.array(ends, dtype=np.int64)
        with pytest.raises(ValueError, match="out of range"):
            window_fingerprints(counters, r, e)
        with pytest.raises(ValueError, match="out of range"):
            window_fingerprints_python(counters, r, e)
