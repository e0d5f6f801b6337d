"""simdup.policy.outcome: the exit policy built on a scan's result."""

from __future__ import annotations

from simdup.policy.outcome import scan_outcome
from simdup.records import DuplicatePair, ScanResult, SkippedFile


def result_with(pairs: int, failed: int, passed_over: int = 0) -> ScanResult:
    dups = tuple(DuplicatePair(f"a{n}", f"b{n}", 1, 0.9, False) for n in range(pairs))
    skips = tuple(SkippedFile(f"s{n}", "read", "x") for n in range(failed)) + tuple(
        SkippedFile(f"p{n}", "discovery", "x", failure=False) for n in range(passed_over)
    )
    return ScanResult({}, (), skips, dups, (), {})


def test_scan_outcome_is_the_exit_policy() -> None:
    """Duplicates fail only with --fail-on-duplicates, failed files only with --strict (files
    passed over on purpose never), and a baseline removes accepted pairs from both the status
    and the list of new pairs."""
    assert scan_outcome(result_with(2, 0)).code == 0
    assert scan_outcome(result_with(2, 0), fail_on_duplicates=True).code == 1
    assert scan_outcome(result_with(0, 0, passed_over=3), strict=True).code == 0
    assert scan_outcome(result_with(0, 1), strict=True).code == 3
    accepted = frozenset({("a0", "b0"), ("a1", "b1")})
    outcome = scan_outcome(result_with(2, 0), fail_on_duplicates=True, accepted=accepted)
    assert (outcome.code, outcome.new_pairs, outcome.baseline_used) == (0, (), True)
    partly = scan_outcome(result_with(3, 0), fail_on_duplicates=True, accepted=accepted)
    assert partly.code == 1 and [p.a for p in partly.new_pairs] == ["a2"]
