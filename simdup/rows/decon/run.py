"""``decontaminate``: the training rows that contain evaluation items, and a clean copy.

The rows of the training files are read once in chunks and scanned by the workers of a row
engine (``worker``: local processes, or a Dask cluster's workers reading their own partitions)
for the items of an ``EvalIndex`` by the containment rule of
``algorithms.containment``; then, for an output, the inputs are read again and written as
``dedup`` writes (``writers.rows``): the rows that contain no item copied byte for byte, or
every row with ``contaminated`` and ``contains`` added (``annotate``). Matching is exact: every
k-gram of every item is indexed and every hit is checked token by token, so a row is never
flagged by a filter's false positive; what decides is the share of an item covered.

An input that changed between the two reads stops the run (``InputChangedError``); a truncated
or damaged input raises ``DamagedInputError`` before anything is written unless
``accept_damaged``; a row that is no document is a skip record, never a stopped run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...__about__ import __version__
from ...algorithms.containment import Containment
from ...engines.base import Progress
from ...engines.rows import LocalRowEngine, RowEngine
from ...errors import InputChangedError
from ...params import ALGORITHM_VERSION
from ...readers.files import file_state
from ...readers.rows import RowOptions, damage_error, rows_description
from ...records import SkippedFile, SkippedRow
from ...writers.base import Kept, skipped_note
from ...writers.rows import write_rows, written_format
from .items import EvalIndex, EvalItem
from .worker import ChunkScan, ItemInRow, init_decon_worker, scan_chunk

REPORT_SCHEMA = "simdup-decon/1"
# Added to every row by ``annotate``: whether it contains an item, and which (their ids).
ANNOTATION_COLUMNS = (("contaminated", "bool"), ("contains", "strings"))


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``row_start:row_end`` of the training row repeat characters
    ``item_start:item_end`` of the item (token for token, folded)."""

    row_start: int
    row_end: int
    item_start: int
    item_end: int


@dataclass(frozen=True, slots=True)
class RowHit:
    """A training row that contains an item: its key (its id, else ``file#row``), file, row
    (0-based), line (1-based; None in Parquet) and what it holds of the item (``contains``:
    the item's tokens covered, the spans in characters of both)."""

    key: str
    file: str
    row: int
    line: int | None
    contains: Containment[Span]


@dataclass
class DeconResult:
    """What ``decontaminate`` found: per item number the rows that contain it (``hits``),
    per input the row numbers that contain an item (``contaminated``), the rows and files
    that are no documents (``skipped``), counts, settings and the rows written."""

    evals: EvalIndex
    inputs: list[str]
    rows: RowOptions
    hits: dict[int, list[RowHit]] = field(default_factory=dict)
    contaminated: list[dict[int, list[int]]] = field(default_factory=list)
    unreadable: list[dict[int, str]] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    rows_read: int = 0
    # Items a row contains by the rule but is not credited with (a sibling item explains them),
    # and rows that hold only what their items share (a template): see ``credited_items``.
    explained: int = 0
    template_only: int = 0
    written: int | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def rows_contaminated(self) -> int:
        return sum(len(c) for c in self.contaminated)

    @property
    def items_found(self) -> int:
        return len(self.hits)

    def settings(self) -> dict[str, Any]:
        return {
            "algorithm_version": ALGORITHM_VERSION,
            "containment": self.evals.rule.describe(),
            "tokens": "fragment tokens (CJK characters, words; folded)",
            "markup": self.evals.markup,
            "exact": True,
            "records": rows_description(self.rows),
        }

    def summary(self) -> dict[str, Any]:
        return {
            "items": len(self.evals),
            "items_unindexed": len(self.evals.unindexed),
            "items_found": self.items_found,
            "eval_skipped": len(self.evals.skipped),
            "common_kgrams_dropped": self.evals.index.common,
            "rows_read": self.rows_read,
            "rows_contaminated": self.rows_contaminated,
            "rows_template_only": self.template_only,
            "matches_explained_by_siblings": self.explained,
            "rows_skipped": len(self.skipped),
            **({"rows_written": self.written} if self.written is not None else {}),
            "seconds": self.seconds,
        }

    def records(self) -> Iterator[dict[str, Any]]:
        """The report as JSON-ready records: a header, then one ``item`` record per item found
        in some row (in item order, its rows in input order), then each item too short to be
        matched (``unindexed``), then each skipped row or file (``skipped``)."""
        yield {
            "type": "header",
            "schema": REPORT_SCHEMA,
            "simdup_version": __version__,
            "settings": self.settings(),
            "summary": self.summary(),
            "inputs": self.inputs,
        }
        for n in sorted(self.hits):
            found = self.hits[n]
            yield {
                "type": "item",
                **_item_record(self.evals.items[n]),
                "tokens": int(self.evals.hashes[n].size),
                "rows_containing": len(found),
                "max_coverage": round(max(h.contains.coverage for h in found), 4),
                "rows": [
                    {
                        "key": h.key, "file": h.file, "row": h.row, "line": h.line,
                        "coverage": round(h.contains.coverage, 4),
                        "covered_tokens": h.contains.covered,
                        "spans": [
                            {"row_start": s.row_start, "row_end": s.row_end,
                             "item_start": s.item_start, "item_end": s.item_end}
                            for s in h.contains.spans
                        ],
                    }
                    for h in found
                ],
            }  # fmt: skip
        for n in self.evals.unindexed:
            yield {
                "type": "unindexed",
                **_item_record(self.evals.items[n]),
                "tokens": int(self.evals.hashes[n].size),
                "reason": f"fewer than {self.evals.rule.min_tokens} tokens: too short to be "
                "told from a common phrase",
            }
        for skip in [*self.evals.skipped, *self.skipped]:
            where = ({"file": skip.file, "row": skip.row, "line": skip.line}
                     if isinstance(skip, SkippedRow) and skip.file else {})  # fmt: skip
            yield {"type": "skipped", "path": skip.path, "stage": skip.stage, **where,
                   "reason": skip.reason, "eval": skip in self.evals.skipped}  # fmt: skip


def _item_record(item: EvalItem) -> dict[str, Any]:
    return {"item": item.id, "source": item.source, "source_row": item.row,
            "source_line": item.line, "field": item.field}  # fmt: skip


def decontaminate(
    inputs: Sequence[str],
    evals: EvalIndex,
    *,
    rows: RowOptions | None = None,
    output: str | None = None,
    annotate: bool = False,
    jobs: int | None = None,
    engine: RowEngine | None = None,
    progress: Progress | None = None,
    accept_damaged: bool = False,
) -> DeconResult:
    """Scan the rows of ``inputs`` (JSON Lines, CSV, TSV, compressed or not, or Parquet) for
    the items of ``evals`` (read with their markup left out, ``evals.markup``: so are the
    rows); with ``output``, write the rows that contain none there in the
    inputs' format (``annotate``: every row, with ``contaminated`` and ``contains``). The rows
    are scanned by ``engine`` (default: ``jobs`` local worker processes; a
    ``distributed.DaskRowEngine``: the workers of a Dask cluster), with the same result."""
    rows = rows or RowOptions()
    inputs = list(inputs)
    kind = written_format(inputs, rows, output) if output is not None else None
    result = DeconResult(evals, inputs, rows)
    result.contaminated = [{} for _ in inputs]
    result.unreadable = [{} for _ in inputs]
    before = {path: file_state(path) for path in inputs}
    started = time.perf_counter()
    index = evals.index
    indexed = time.perf_counter()
    engine = engine or LocalRowEngine(jobs)
    found = engine.chunk_results(inputs, rows, scan_chunk, init_decon_worker,
                                 (index, rows, evals.markup), result.skipped)  # fmt: skip
    for scanned in found:
        _take(result, scanned)
        if progress is not None:
            progress(result.rows_read, 0)
    scanned_at = time.perf_counter()
    for path in inputs:
        if file_state(path) != before[path]:
            raise InputChangedError(f"{path} changed while it was being decontaminated")
    damage = None if accept_damaged else damage_error(result.skipped)
    if damage is not None:
        raise damage
    if output is not None and kind is not None:
        ids = [it.id for it in evals.items]

        def notes(f: int, row: int) -> dict[str, Any]:
            reason = result.unreadable[f].get(row)
            if reason is not None:
                return skipped_note(ANNOTATION_COLUMNS, reason)
            contained = result.contaminated[f].get(row)
            return {"contaminated": contained is not None,
                    "contains": [ids[n] for n in contained or ()]}  # fmt: skip

        # Every row, annotated; else the rows that contain no item and are documents.
        kept = None if annotate else [
            Kept.all_but([*c, *u]) for c, u in zip(result.contaminated, result.unreadable,
                                                   strict=True)
        ]  # fmt: skip
        result.written = write_rows(
            kind, inputs, output, rows, kept=kept,
            columns=ANNOTATION_COLUMNS if annotate else (), notes=notes if annotate else None,
        )  # fmt: skip
    finished = time.perf_counter()
    result.seconds = {
        "index": round(indexed - started, 3),
        "scan": round(scanned_at - indexed, 3),
        "write": round(finished - scanned_at, 3),
        "total": round(finished - started, 3),
    }
    return result


def _row_cover(item: ItemInRow) -> list[tuple[int, int]]:
    """The row's characters an item's spans cover, as merged ``(start, end)`` intervals."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((s.row_start, s.row_end) for s in item.spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _inside(inner: list[tuple[int, int]], outer: list[tuple[int, int]]) -> bool:
    """Whether every interval of ``inner`` lies within one of ``outer`` (both merged)."""
    return all(any(s >= a and e <= b for a, b in outer) for s, e in inner)


def credited_items(
    found: Sequence[ItemInRow], hashes: Sequence[np.ndarray]
) -> tuple[ItemInRow, ...]:
    """The items a row is credited with among those it contains by the rule (``found``): not
    an item whose matched text in the row another found item explains, that is, another item
    (of other tokens: a duplicate item is credited too) covers every character of the row it
    matched, with a coverage at least as high. Templated items ("What is the capital of
    France?" and "... of Spain?") share most of their tokens: a row holding the France item
    holds most of the Spain item too, inside what France matched, and credits France alone;
    a row holding only the template ("... of Japan?") credits none of them. Issue 47: 190
    items were reported found for 160 planted rows."""
    if len(found) < 2:
        return tuple(found)
    covers = [_row_cover(it) for it in found]
    credited = []
    for a, item in enumerate(found):
        explained = any(
            b != a
            and other.covered * item.tokens >= item.covered * other.tokens  # coverage
            and _inside(covers[a], covers[b])
            and not np.array_equal(hashes[item.item], hashes[other.item])
            for b, other in enumerate(found)
        )
        if not explained:
            credited.append(item)
    return tuple(credited)


def _take(result: DeconResult, scanned: ChunkScan) -> None:
    """One chunk's findings into the result."""
    f = scanned.file
    path = result.inputs[f]
    lines = scanned.lines.tolist()
    result.rows_read += scanned.count
    for offset, reason, ident in scanned.skipped:
        row = scanned.first_row + offset
        result.unreadable[f][row] = reason
        result.skipped.append(SkippedRow.of(path, row, reason, lines[offset], ident))
    for finding in scanned.found:
        row = scanned.first_row + finding.offset
        line = lines[finding.offset]
        key = finding.id if finding.id is not None else f"{path}#{row}"
        credited = credited_items(finding.items, result.evals.hashes)
        result.explained += len(finding.items) - len(credited)
        if not credited:
            result.template_only += 1
        # The row contains every item found by the rule (it is left out of a clean copy); it
        # says it holds those it credits, or, holding only what siblings share, all of them.
        result.contaminated[f][row] = [it.item for it in credited or finding.items]
        for it in credited:
            spans = tuple(
                Span(s.row_start, s.row_end, *result.evals.item_span(it.item, s.item_first,
                                                                     s.item_last))
                for s in it.spans
            )  # fmt: skip
            hit = RowHit(key, path, row, line if line >= 0 else None,
                         Containment(it.item, it.covered, it.tokens, spans))  # fmt: skip
            result.hits.setdefault(it.item, []).append(hit)
