"""What the tests of the Dask engines share: a local cluster of two worker processes on
127.0.0.1, one per test module (a module may define its own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """A local cluster of two single-threaded worker processes, for the whole module."""
    pytest.importorskip("distributed")
    from simdup.distributed.cluster import connect

    connection = connect(workers=2)
    try:
        yield connection
    finally:
        connection.close()
