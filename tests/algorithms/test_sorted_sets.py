"""simdup.algorithms.sorted_sets: numpy's unique and isin for small sets, the same answers."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.algorithms.sorted_sets import members, unique_counts, unique_sorted

values = st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 6), max_size=40)


@settings(max_examples=200, deadline=None)
@given(values, values)
def test_the_same_as_numpy(a: list[int], b: list[int]) -> None:
    x, y = np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64)
    assert unique_sorted(x).tolist() == np.unique(x).tolist()
    got, counts = unique_counts(x)
    want, want_counts = np.unique(x, return_counts=True)
    assert got.tolist() == want.tolist() and counts.tolist() == want_counts.tolist()
    assert members(x, np.unique(y)).tolist() == np.isin(x, y).tolist()
