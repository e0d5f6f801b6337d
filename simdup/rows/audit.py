"""An audit of a deduplication a person can read: a seeded sample of its removals, each beside
the row kept for it, with the figures and the rule the verifier decided by; and how many rows
each input file (and each value of a source field) had read, kept and removed.

The sample is the ``n`` removed rows with the smallest seeded hash of their place (input,
row): uniform, the same for the same seed whatever the engine or the number of workers, and a
larger ``n`` adds to a smaller one's sample. The texts are read again from the inputs, once,
with the source values (``audit_rows``); nothing but the sampled rows' texts is held.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..readers.rows import Row, RowOptions, read_records, skipped_place
from .dedup import Dedup
from .dedup_files import index_of_rows

# A source that loses more than this share of its rows is warned about.
LOSS_WARNING = 0.5

# What each rule is called in an audit, and the measure its similarity is.
RULE_NAMES = {
    "same": "normalised copy (the same text after case, width, punctuation and spacing folded)",
    "edit": "short texts: edit similarity",
    "moves": "short texts: block-move similarity (paragraphs matched in any order)",
    "similarity": "near-duplicate: word-set Jaccard (after SimHash or MinHash candidates)",
    "threshold": "SimHash distance within the threshold (not verified)",
    "stored": "near-duplicate of a stored document (--against)",
}
MEASURES = {"same": None, "edit": "edit similarity", "moves": "block-move similarity",
            "similarity": "word-set Jaccard", "threshold": None,
            "stored": "word-set Jaccard"}  # fmt: skip


@dataclass(frozen=True)
class Tally:
    """Rows of one input file or one source value: read (documents and rows that are none),
    kept, removed as near-duplicates."""

    name: str
    read: int = 0
    kept: int = 0
    removed: int = 0

    @property
    def loses_most(self) -> bool:
        """Whether more than ``LOSS_WARNING`` of its rows were removed."""
        return self.read > 0 and self.removed > LOSS_WARNING * self.read


def file_tallies(decisions: Dedup, inputs: Sequence[str]) -> list[Tally]:
    """Per input file, in the order given: rows read, kept and removed."""
    files = decisions.file
    read = np.bincount(files, minlength=len(inputs)) if files.size else np.zeros(len(inputs))
    kept = np.bincount(files[decisions.keep], minlength=len(inputs)) if files.size else read
    number = {path: f for f, path in enumerate(inputs)}
    others = Counter(number.get(skipped_place(s)[0], -1) for s in decisions.skipped)
    return [
        Tally(path, int(read[f]) + others[f], int(kept[f]), int(read[f] - kept[f]))
        for f, path in enumerate(inputs)
    ]


def sample_removals(decisions: Dedup, n: int, seed: int = 0) -> list[int]:
    """The ``n`` removed rows (decision indices, in row order) whose seeded hash of their
    place is smallest: a uniform sample, the same for the same seed and removals."""
    removed = np.flatnonzero(~decisions.keep)
    if n <= 0 or not removed.size:
        return []
    place = decisions.file[removed].astype(np.uint64) << np.uint64(40)
    place ^= decisions.row[removed].astype(np.uint64)
    hashed = _mix(place ^ _mix(np.full(1, seed & (2**64 - 1), dtype=np.uint64)))
    if n < removed.size:
        removed = removed[np.sort(np.argpartition(hashed, n - 1)[:n])]
    return [int(r) for r in removed]


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a well-spread 64-bit hash of each value."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        mixed: np.ndarray = x ^ (x >> np.uint64(31))
        return mixed


@dataclass(frozen=True)
class Audit:
    """A sample of removals as records (``audit_rows``) and the tallies per source value
    (empty without a source field)."""

    records: list[dict[str, Any]]
    sources: list[Tally]


def audit_rows(
    decisions: Dedup,
    inputs: Sequence[str],
    rows: RowOptions,
    sample: Sequence[int],
    source_field: str | None = None,
) -> Audit:
    """Read ``inputs`` once more for the texts of the ``sample`` rows and the rows kept for
    them, and (with ``source_field``, a dotted path) each row's source; the records of the
    sample, in row order. A row's source is its field's value as text ("" when absent)."""
    number = {path: f for f, path in enumerate(inputs)}
    index = index_of_rows(decisions, len(inputs))  # arrays, no object per row
    wanted = set(sample) | {int(decisions.duplicate_of[n]) for n in sample}
    texts: dict[int, str] = {}
    source: dict[str, list[int]] = {}  # read, kept, removed
    reading = replace(rows, order_field=source_field)
    if wanted or source_field:
        for item in read_records(list(inputs), reading):
            if not isinstance(item, Row):
                continue
            f = number.get(item.file, -1)
            n = int(index[f][item.row]) if f >= 0 and item.row < index[f].size else -1
            if n in wanted:
                texts[n] = item.text
            if source_field and n >= 0:
                value = item.order
                counts = source.setdefault("" if value is None else str(value), [0, 0, 0])
                counts[0] += 1
                counts[1 if decisions.keep[n] else 2] += 1
    records = [_record(decisions, n, texts) for n in sample]
    tallies = [Tally(name, *counts) for name, counts in sorted(source.items())]
    return Audit(records, tallies)


def _side(decisions: Dedup, n: int, texts: dict[int, str]) -> dict[str, Any]:
    file, row, line = decisions.place(n)
    return {"key": decisions.keys[n], "file": file, "row": row, "line": line,
            "text": texts.get(n)}  # fmt: skip


def _record(decisions: Dedup, n: int, texts: dict[int, str]) -> dict[str, Any]:
    """One sampled removal: the removed row, the row kept for it, the figures and the rule."""
    kept = int(decisions.duplicate_of[n])
    rule = decisions.rule_of(n)
    removed = _side(decisions, n, texts)
    if kept >= 0:
        kept_side = _side(decisions, kept, texts)
    else:
        kept_side = {"key": decisions.stored_match.get(n), "stored": True, "text": None}
    if rule == "same" and removed["text"] is not None and removed["text"] == kept_side["text"]:
        name = "exact copy (the same text as written)"
    else:
        name = RULE_NAMES.get(rule, rule)
    similarity = float(decisions.similarity[n])
    distance = int(decisions.distance[n]) if n < decisions.distance.size else -1
    return {
        "removed": removed,
        "kept": kept_side,
        "rule": rule,
        "rule_name": name,
        "reason": decisions.stored_reason.get(n) or _reason(decisions, rule, distance, similarity),
        "simhash_distance": distance if distance >= 0 else None,
        "similarity": None if np.isnan(similarity) else round(similarity, 4),
        "measure": "same text" if rule == "same" else MEASURES.get(rule),
    }


def _reason(decisions: Dedup, rule: str, distance: int, similarity: float) -> str:
    """The check that passed, worded as ``simdup compare`` words it, with the run's settings."""
    settings = decisions.settings
    if rule == "same":
        return "identical normalised text"
    if rule == "edit":
        return (f"short texts: edit similarity {similarity:.2f} >= "
                f"{settings.get('min_edit_similarity')}")  # fmt: skip
    if rule == "moves":
        least = settings.get("min_edit_similarity")
        return (f"short texts: edit similarity < {least}; with moved blocks "
                f"{similarity:.2f} >= {least}")  # fmt: skip
    if rule == "similarity":
        radius = settings.get("verify_radius")
        within = f"distance {distance} <= verify radius {radius}, " if radius is not None else ""
        return f"{within}word-set Jaccard {similarity:.2f} >= {settings.get('min_similarity')}"
    if rule == "threshold":
        return f"distance {distance} <= threshold {settings.get('threshold')}"
    return ""
