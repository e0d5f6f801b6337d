"""What a scan with a baseline found that the baseline does not hold (new pairs and passages),
and the baseline's entries that match nothing now (stale), as the lines ``simdup scan`` writes
to standard error."""

from __future__ import annotations

from typing import TextIO

from ..names import display_path
from ..policy.exitcodes import ExitCode
from ..policy.outcome import ScanOutcome
from ..records import ScanResult
from .passages import span_label

# New pairs and stale baseline entries listed; the rest are counted.
LISTED = 20


def _new_of(new: int, total: int, noun: str, name: str) -> str:
    """How many of ``total`` findings (``noun``, singular) the baseline ``name`` does not hold:
    '2 of 5 near-duplicate pairs are not in the baseline b.json', 'all 5 ... are in it', 'no
    near-duplicate pairs: nothing new to the baseline b.json'."""
    nouns = noun if total == 1 else noun + "s"
    if total == 0:
        return f"no {noun}s: nothing new to the baseline {name}"
    if new == 0:
        held = f"the 1 {noun} is" if total == 1 else f"all {total} {nouns} are"
        return f"{held} in the baseline {name}"
    if total == 1:
        return f"the 1 {noun} is not in the baseline {name}"
    return f"{new} of {total} {nouns} {'is' if new == 1 else 'are'} not in the baseline {name}"


def render_baseline_diff(
    outcome: ScanOutcome, result: ScanResult, baseline: str, quiet: bool, stream: TextIO
) -> None:
    """New pairs and stale entries of a scan with a baseline (at path ``baseline``), for
    stderr. ``quiet`` never hides the reason for a failing status: the new pairs are listed
    then (stale entries are not)."""
    if not outcome.baseline_used:
        return

    def echo(line: str) -> None:
        stream.write(line + "\n")

    name = display_path(baseline)
    fresh = outcome.new_pairs
    if not quiet or (fresh and outcome.code == ExitCode.DUPLICATES_FOUND):
        echo(f"simdup: {_new_of(len(fresh), len(result.pairs), 'near-duplicate pair', name)}")
        for pair in fresh[:LISTED]:
            echo(f"  {display_path(pair.a)}  {display_path(pair.b)}  distance {pair.distance}")
        if len(fresh) > LISTED:
            echo(f"  ... and {len(fresh) - LISTED} more")
    new_passages = outcome.new_passages
    if "passages" in result.settings and (
        not quiet or (new_passages and outcome.code == ExitCode.DUPLICATES_FOUND)
    ):
        counted = _new_of(len(new_passages), len(result.passages), "duplicated passage", name)
        echo(f"simdup: {counted}")
        for passage in new_passages[:LISTED]:
            echo(f"  {span_label(passage.a)}  {span_label(passage.b)}")
        if len(new_passages) > LISTED:
            echo(f"  ... and {len(new_passages) - LISTED} more")
    if outcome.stale and not quiet:
        n = len(outcome.stale)
        entries = "1 entry of" if n == 1 else f"{n} entries of"
        echo(
            f"simdup: {entries} the baseline {name} {'matches' if n == 1 else 'match'} no "
            "pair now (stale: rewrite it with --write-baseline)"
        )
        for entry in outcome.stale[:LISTED]:
            echo(f"  {entry.a.shown}  {entry.b.shown}")
        if len(outcome.stale) > LISTED:
            echo(f"  ... and {len(outcome.stale) - LISTED} more")

