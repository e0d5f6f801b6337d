"""The edge of a command (cli/edge.py): the progress drawn on a terminal."""

from __future__ import annotations

import io
import re

import pytest

from simdup.cli import edge


def test_a_stage_that_counts_its_steps_is_drawn_as_they_go(monkeypatch: pytest.MonkeyPatch):
    """Issue 47: "verifying 00:00" stayed frozen for most of a run. A stage line turns into a
    bar when the library counts the stage's steps (pairs verified), and moves with them."""
    screen = io.StringIO()
    monkeypatch.setattr(edge.sys, "stderr", screen)
    bar = edge.ProgressBar(True, "fingerprinting", unit="row")
    bar.enabled = True  # as on a terminal
    bar(100, 0)
    bar.stage("verifying")
    assert "verifying 00:00" in screen.getvalue()
    bar(5, 10)
    assert "verifying:   0%|          | 0/10" in screen.getvalue()  # drawn at its first count
    bar(10, 10)
    assert (bar.bar.desc, bar.bar.n, bar.bar.total, bar.bar.unit) == ("verifying", 10, 10, "pair")
    bar.stage("finding candidates")  # counted in thousandths: drawn as a share
    bar(0, 1000)
    assert "finding candidates:   0%|" in screen.getvalue()
    bar(500, 1000)
    assert (bar.bar.n, bar.bar.total) == (500, 1000)
    bar.close()


def test_embedding_sources_is_drawn_in_sentences_with_the_time_left(
    monkeypatch: pytest.MonkeyPatch,
):
    """Issue 49: check --semantic against a folder ran for minutes on one line. Its stage
    "embedding sources" is a bar counting sentences, with the time elapsed and left."""
    screen = io.StringIO()
    monkeypatch.setattr(edge.sys, "stderr", screen)
    bar = edge.ProgressBar(True, "reading sources")
    bar.enabled = True  # as on a terminal
    bar.stage("embedding sources")
    bar(0, 58000)
    bar(12400, 58000)
    bar.bar.refresh()  # drawn now, not at tqdm's next tenth of a second
    drawn = screen.getvalue()
    assert "embedding sources:  21%|" in drawn
    assert re.search(r"\| 12400/58000 \[\d\d:\d\d<\d\d:\d\d, [\d.]+(k|M)?sentence/s\]", drawn)
    bar.close()


def test_nothing_is_drawn_off_a_terminal(monkeypatch: pytest.MonkeyPatch):
    """stderr not a terminal (a file, a pipe, CI's log): no bar, not a character."""
    screen = io.StringIO()  # isatty() is False
    monkeypatch.setattr(edge.sys, "stderr", screen)
    bar = edge.ProgressBar(True, "reading sources")
    bar.stage("embedding sources")
    bar(12400, 58000)
    bar.close()
    assert screen.getvalue() == ""
