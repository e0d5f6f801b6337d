"""The outcome of a finished scan: its exit status and what decided it, in one place.

black's ``Report.return_code`` is the model: the command line asks this module and exits with
what it says; it decides nothing itself. Baseline matching (which pairs are new) is part of the
outcome, so the status and the list of new pairs shown to the user can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .baseline import Pair, new_pairs
from .exitcodes import ExitCode, scan_exit_code
from .records import DuplicatePair, ScanResult


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    code: ExitCode
    # Pairs not accepted by the baseline (all pairs when there is no baseline).
    new_pairs: tuple[DuplicatePair, ...]
    # Files that could not be read, decoded or fingerprinted (not those passed over on purpose).
    failed_files: int
    baseline_used: bool


def scan_outcome(
    result: ScanResult,
    *,
    fail_on_duplicates: bool = False,
    strict: bool = False,
    accepted: frozenset[Pair] | None = None,
) -> ScanOutcome:
    """The exit status of ``result`` under ``--fail-on-duplicates``, ``--strict`` and a baseline
    (``accepted`` pairs, from ``simdup.baseline.load_baseline``)."""
    fresh = tuple(result.pairs) if accepted is None else tuple(new_pairs(result.pairs, accepted))
    failed = sum(1 for s in result.skipped if s.failure)
    code = scan_exit_code(
        duplicates=len(fresh), skipped=failed, fail_on_duplicates=fail_on_duplicates, strict=strict
    )
    return ScanOutcome(code, fresh, failed, accepted is not None)
