"""simdup.report.baseline: what ``scan --baseline`` writes to stderr."""

from __future__ import annotations

import io


def _baseline_outcome(new: int, stale: int, code: int) -> tuple[object, object]:
    from simdup.policy.baseline import Entry, Side
    from simdup.policy.exitcodes import ExitCode
    from simdup.policy.outcome import ScanOutcome
    from simdup.records import DuplicatePair, ScanResult

    pairs = tuple(DuplicatePair(f"d/a{n}.txt", f"d/b{n}.txt", n % 4, 0.9, False) for n in range(30))
    entries = tuple(
        Entry(Side(f"/x/o{n}", f"old/o{n}.txt"), Side(f"/x/p{n}", f"old/p{n}.txt"))
        for n in range(stale)
    )
    result = ScanResult({}, (), (), pairs, (), {})
    outcome = ScanOutcome(ExitCode(code), pairs[:new], 0, True, entries)
    return outcome, result


def test_baseline_diff_lists_new_pairs_and_stale_entries_up_to_twenty() -> None:
    """The lines ``scan --baseline`` writes to stderr (golden): at most 20 of each, the rest
    counted; the new pairs even when quiet if they make the run fail, stale entries never."""
    from simdup.report.baseline import render_baseline_diff

    outcome, result = _baseline_outcome(new=22, stale=1, code=1)
    out = io.StringIO()
    render_baseline_diff(outcome, result, "base.json", False, out)  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert lines[0] == "simdup: 22 of 30 near-duplicate pairs are not in the baseline base.json"
    assert lines[1] == "  d/a0.txt  d/b0.txt  distance 0"
    assert lines[20] == "  d/a19.txt  d/b19.txt  distance 3"
    assert lines[21:] == [
        "  ... and 2 more",
        "simdup: 1 entry of the baseline base.json matches no pair now (stale: rewrite it "
        "with --write-baseline)",
        "  old/o0.txt  old/p0.txt",
    ]
    quiet = io.StringIO()
    render_baseline_diff(outcome, result, "base.json", True, quiet)  # type: ignore[arg-type]
    assert quiet.getvalue().splitlines() == lines[:22]
    passing, _ = _baseline_outcome(new=0, stale=0, code=0)
    silent = io.StringIO()
    render_baseline_diff(passing, result, "base.json", True, silent)  # type: ignore[arg-type]
    assert silent.getvalue() == ""
