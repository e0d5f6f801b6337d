"""simdup.passages.windows: each run of values sorted and made distinct, native and Python alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simdup.passages.windows import _distinct_runs, distinct_runs_python


@given(runs=st.lists(st.lists(st.integers(0, (1 << 32) - 1) | st.integers(0, 5), max_size=70)))
def test_distinct_runs_native_and_python_agree(runs: list[list[int]]) -> None:
    """Each run sorted and made distinct, natively and in Python alike (runs longer than the
    insertion sort's 32 included)."""
    values = np.array([v for run in runs for v in run], dtype="<u4")
    bounds = np.zeros(len(runs) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in runs], out=bounds[1:])
    flat, found = _distinct_runs(values, bounds)
    assert (flat, found) == distinct_runs_python(values, bounds)
    ends = np.frombuffer(found, dtype=np.int64)
    got = np.frombuffer(flat, dtype="<u4")
    for k, run in enumerate(runs):
        assert got[ends[k] : ends[k + 1]].tolist() == sorted(set(run))


def test_distinct_runs_refuse_bounds_that_do_not_fit() -> None:
    values = np.array([3, 1, 2], dtype="<u4")
    for bounds in ([0, 2], [1, 3], [0, 2, 1, 3]):
        b = np.array(bounds, dtype=np.int64)
        with pytest.raises(ValueError, match="bounds"):
            _distinct_runs(values, b)
        with pytest.raises(ValueError, match="bounds"):
            distinct_runs_python(values, b)
