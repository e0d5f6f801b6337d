"""The outcome of a finished scan: its exit status and what decided it, in one place.

black's ``Report.return_code`` is the model: the command line asks this module and exits with
what it says; it decides nothing itself. Baseline matching (which pairs are new) is part of the
outcome, so the status and the list of new pairs shown to the user can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..options import ScanOptions
from ..records import DuplicatePair, PassagePair, ScanResult
from .baseline import Baseline, Entry, Pair
from .exitcodes import ExitCode, scan_exit_code


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    code: ExitCode
    # Pairs not accepted by the baseline (all pairs when there is no baseline).
    new_pairs: tuple[DuplicatePair, ...]
    # Files that could not be read, decoded or fingerprinted (not those passed over on purpose).
    failed_files: int
    baseline_used: bool
    # Baseline entries that accepted no pair of this scan (reported, never an error).
    stale: tuple[Entry, ...] = ()
    # Duplicated passages (scan --passages) whose two documents the baseline does not accept.
    new_passages: tuple[PassagePair, ...] = ()


def scan_outcome(
    result: ScanResult,
    *,
    fail_on_duplicates: bool = False,
    strict: bool = False,
    baseline: Baseline | None = None,
    options: ScanOptions | None = None,
    accepted: frozenset[Pair] | None = None,
) -> ScanOutcome:
    """The exit status of ``result`` under ``--fail-on-duplicates``, ``--strict`` and a
    ``baseline`` (``Baseline.load``), matched under the scan's ``options`` (its threshold and
    fingerprint parameters). ``accepted``: escaped path pairs of an old report (path matching
    only), for callers of ``load_baseline``."""
    if baseline is None and accepted is not None:
        baseline = Baseline.from_pairs("", accepted)
    fresh: tuple[DuplicatePair, ...] = tuple(result.pairs)
    stale: tuple[Entry, ...] = ()
    passages: tuple[PassagePair, ...] = tuple(result.passages)
    if baseline is not None:
        docs = {d.path: d for d in result.files}
        fresh, stale = baseline.judge(result.pairs, docs, options or ScanOptions())
        if passages:
            # A passage is accepted with the pair of documents it joins (one entry per pair:
            # --write-baseline writes the pairs of passages too). Repeated passages
            # (boilerplate by definition) never fail a scan.
            as_pairs = [DuplicatePair(p.a.path, p.b.path, 0, p.similarity, False) for p in passages]
            new_pairs, _ = baseline.judge(as_pairs, docs, options or ScanOptions())
            open_pairs = {(p.a, p.b) for p in new_pairs}
            passages = tuple(p for p in passages if (p.a.path, p.b.path) in open_pairs)
    failed = sum(1 for s in result.skipped if s.failure)
    code = scan_exit_code(
        duplicates=len(fresh) + len(passages),
        skipped=failed,
        fail_on_duplicates=fail_on_duplicates,
        strict=strict,
    )
    return ScanOutcome(code, fresh, failed, baseline is not None, stale, passages)


def marked(result: ScanResult, outcome: ScanOutcome) -> ScanResult:
    """``result`` with the pairs its baseline accepts marked (``ScanResult.accepted``), for the
    renderers: SARIF's ``baselineState`` and suppressions, the text output's accepted
    clusters. Unchanged without a baseline."""
    if not outcome.baseline_used:
        return result
    new = {(p.a, p.b) for p in outcome.new_pairs}
    accepted = frozenset((p.a, p.b) for p in result.pairs if (p.a, p.b) not in new)
    return replace(result, accepted=accepted)
