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


def test_the_baseline_count_reads_right_for_none_one_and_all() -> None:
    """The first line of ``scan --baseline``: no pairs at all is said so (not "0 of 0 ...
    are not in the baseline"), and the verb and noun agree with the counts."""
    from simdup.policy.exitcodes import ExitCode
    from simdup.policy.outcome import ScanOutcome
    from simdup.records import DuplicatePair, ScanResult
    from simdup.report.baseline import render_baseline_diff

    def first_line(new: int, total: int) -> str:
        pairs = tuple(DuplicatePair(f"a{n}", f"b{n}", 1, 0.9, False) for n in range(total))
        outcome = ScanOutcome(ExitCode.OK, pairs[:new], 0, True, ())
        out = io.StringIO()
        render_baseline_diff(outcome, ScanResult({}, (), (), pairs, (), {}), "b.json",  # type: ignore[arg-type]
                             False, out)  # fmt: skip
        return out.getvalue().splitlines()[0]

    assert first_line(0, 0) == "simdup: no near-duplicate pairs: nothing new to the baseline b.json"
    assert first_line(0, 1) == "simdup: the 1 near-duplicate pair is in the baseline b.json"
    assert first_line(0, 4) == "simdup: all 4 near-duplicate pairs are in the baseline b.json"
    assert first_line(1, 1) == "simdup: the 1 near-duplicate pair is not in the baseline b.json"
    assert first_line(1, 4) == "simdup: 1 of 4 near-duplicate pairs is not in the baseline b.json"
    assert first_line(3, 4) == "simdup: 3 of 4 near-duplicate pairs are not in the baseline b.json"
