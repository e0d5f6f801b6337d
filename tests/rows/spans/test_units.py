"""simdup.rows.spans.units: the units of a text, their windows, and the cut of the runs removed."""

from __future__ import annotations

from simdup.rows.spans.units import (
    cut,
    removed_runs,
    text_spans,
    unit_bounds,
    unit_form,
    windows,
)


def test_windows_are_the_minimal_runs_both_ways() -> None:
    def pairs(lengths: list[int]) -> list[tuple[int, int]]:
        return windows(lengths, 50)

    assert pairs([30, 30, 5, 60]) == [(0, 1), (0, 2), (3, 3)]
    # Backward windows reach the short last unit of a repeated run: (0, 2).
    assert pairs([30, 30, 5]) == [(0, 1), (0, 2)]
    assert pairs([10, 10]) == []
    # A long unit is a window alone; short units never join it.
    assert pairs([60, 5, 70, 20, 20, 20]) == [(0, 0), (2, 2), (3, 5)]


def test_cut_joins_overlapping_intervals() -> None:
    assert cut("abcdefgh", [(5, 7), (1, 3), (2, 4)]) == "aeh"
    spans = text_spans("one.\n\ntwo.\nthree.", "paragraph", 1)
    assert spans.breaks == [-1, 2]
    starts, ends = unit_bounds("a.\n\nb. c.\n\nd.", "substring")
    breaks = [-1, 2, 0, 2]
    # A sentence ending a paragraph goes with the space before it, not the paragraph break.
    assert removed_runs(starts, ends, breaks, [False, False, True, False]) == [(2, 2, 6, 9)]
    assert removed_runs(starts, ends, breaks, [True, True, False, False]) == [(0, 1, 0, 7)]
    assert removed_runs(starts, ends, breaks, [False, False, True, True]) == [(2, 3, 6, 13)]
    assert removed_runs(starts, ends, breaks, [True] * 4) == [(0, 3, 0, 13)]
    assert unit_form("Ｈello,\n  WORLD!") == unit_form("hello world")
