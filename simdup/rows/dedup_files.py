"""``dedup_files``: a dataset of rows deduplicated into a new file of the same format.

The rows are read once to decide (``dedup_rows``: chunks of rows fingerprinted by worker
processes, no row held), then the input is read again and the kept rows are written by
``writers.rows`` (one writer a format, shared with ``decon`` and ``dedup --spans``), given a
mask of the kept rows per input: a JSON Lines row is copied byte for byte (its line as stored,
after decompression), so nothing about a kept row changes, and so is a CSV or TSV record (its
lines as stored, after the header); Parquet is filtered row group by row group with its
schema, key-value metadata and compression. ``annotate`` writes every row instead, with a note
of its ``cluster_id`` and ``duplicate_of`` (a JSON object's keys, CSV columns in the record's
dialect, Parquet columns). The output is written to a temporary file beside it and moved into
place only when complete (a stopped run leaves no partial output), compressed as its name says
(``.gz``, ``.zst``, ``.bz2``, ``.xz``). An input that changed between the two reads (size,
modification time or inode) stops the run: its second read would not be the rows decided on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engines.base import Progress
from ..engines.rows import RowEngine
from ..errors import InputChangedError
from ..join import Reference
from ..options import ScanOptions
from ..readers.files import file_state
from ..readers.rows import RowOptions, damage_error, skipped_place
from ..records import SkippedFile, SkippedRow
from ..text.processor import NOTHING_TO_JUDGE
from ..writers.base import Kept, Notes, skipped_note
from ..writers.output import output_file
from ..writers.rows import write_rows, written_format
from .dedup import Dedup, dedup_rows


def _unreadable(decisions: Dedup, inputs: Sequence[str]) -> list[dict[int, str]]:
    """Per input, its rows that are no document (not JSON, no text field, a null text...) and
    why, by row number (their skip records)."""
    number = {path: f for f, path in enumerate(inputs)}
    found: list[dict[int, str]] = [{} for _ in inputs]
    for skip in decisions.skipped:
        path, row = skipped_place(skip)
        f = number.get(path)
        if f is not None and row is not None:
            found[f][row] = skip.reason
    return found


@dataclass(frozen=True)
class DedupRun:
    """What ``dedup_files`` did: the decisions (where each row was among them) and how many
    rows it wrote."""

    decisions: Dedup
    written: int

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        return self.decisions.skipped


def _kept(decisions: Dedup, files: int) -> list[Kept]:
    """Per input, its kept rows (documents kept; a row that is no document is not)."""
    rows = np.flatnonzero(decisions.keep)
    kept = []
    for f in range(files):
        chosen = decisions.row[rows[decisions.file[rows] == f]]
        mask = np.zeros(int(chosen.max()) + 1 if chosen.size else 0, dtype=bool)
        mask[chosen] = True
        kept.append(Kept(mask))
    return kept


def index_of_rows(decisions: Dedup, files: int) -> list[np.ndarray]:
    """Per input, the decision index of each of its row numbers (-1: no document)."""
    out = []
    for f in range(files):
        ours = np.flatnonzero(decisions.file == f)
        rows = decisions.row[ours]
        index = np.full(int(rows.max()) + 1 if rows.size else 0, -1, dtype=np.int64)
        index[rows] = ours
        out.append(index)
    return out


# Added to every row by ``annotate``: the cluster's number (None: alone) and the key of the row
# kept for it (None: kept).
ANNOTATION_COLUMNS = (("cluster_id", "int"), ("duplicate_of", "string"))


def _notes(decisions: Dedup, inputs: Sequence[str]) -> Notes:
    """The note ``annotate`` adds to each row: its ``cluster_id`` and ``duplicate_of``, and
    for a JSON object with nothing to judge (an empty or blank text) ``"judged": false``; a
    row that is no document gets null values and (a JSON object) ``skipped``, why."""
    index = index_of_rows(decisions, len(inputs))
    unreadable = _unreadable(decisions, inputs)

    def note(f: int, row: int) -> dict[str, Any]:
        n = int(index[f][row]) if row < index[f].size else -1
        if n < 0:  # no document, kept all the same
            return skipped_note(ANNOTATION_COLUMNS, unreadable[f].get(row, ""))
        cluster = int(decisions.cluster[n])
        kept = int(decisions.duplicate_of[n])
        duplicate_of = decisions.keys[kept] if kept >= 0 else decisions.stored_match.get(n)
        found: dict[str, Any] = {"cluster_id": cluster if cluster >= 0 else None,
                                 "duplicate_of": duplicate_of}  # fmt: skip
        if not decisions.judged[n]:
            found["judged"] = False
        return found

    return note


def dedup_files(
    inputs: Sequence[str],
    output: str,
    *,
    rows: RowOptions | None = None,
    options: ScanOptions | None = None,
    keep: str = "first",
    removed: str | None = None,
    annotate: bool = False,
    against: Reference | None = None,
    engine: RowEngine | None = None,
    progress: Progress | None = None,
    accept_damaged: bool = False,
    stage: Callable[[str], None] | None = None,
) -> DedupRun:
    """Deduplicate the rows of ``inputs`` (all of one format: JSON Lines, CSV, TSV, compressed
    or not, or Parquet) into ``output`` in their format, and list each removed row with the
    row it repeats in ``removed`` (JSON Lines). With ``annotate`` every row is written, with
    ``cluster_id`` and ``duplicate_of`` (the key of the row kept for it) added. With
    ``against`` (a stored index), rows that are near-duplicates of a stored document are
    removed too (``duplicate_of``: its key). ``engine``: where the rows are fingerprinted
    (default: worker processes here; ``DaskRowEngine``: a Dask cluster).

    A row that is no document (not JSON, no text field, a null text) is not written, and is
    listed in ``removed`` with why; with ``annotate`` it is written (annotated with why where
    it can be). A truncated or damaged input raises ``DamagedInputError`` and nothing is
    written, unless ``accept_damaged``: then the rows read before the damage are."""
    rows = rows or RowOptions()
    inputs = list(inputs)
    kind = written_format(inputs, rows, output)
    before = {path: file_state(path) for path in inputs}
    decisions = dedup_rows(inputs, rows, options, keep=keep, against=against, engine=engine,
                           progress=progress, stage=stage)  # fmt: skip
    for path in inputs:
        if file_state(path) != before[path]:
            raise InputChangedError(f"{path} changed while it was being deduplicated")
    damage = None if accept_damaged else damage_error(decisions.skipped)
    if damage is not None:
        raise damage
    if stage is not None:
        stage("writing")
    if annotate:
        written = write_rows(kind, inputs, output, rows, columns=ANNOTATION_COLUMNS,
                             notes=_notes(decisions, inputs))  # fmt: skip
    else:
        written = write_rows(kind, inputs, output, rows, kept=_kept(decisions, len(inputs)))
    if removed is not None:
        _write_removed(removed, decisions)
    return DedupRun(decisions, written)


def _write_removed(target: str, decisions: Dedup) -> None:
    """Each removed row, with the row kept for it (or the stored document), as JSON Lines;
    then each row kept because it has nothing to judge (``"judged": false`` and why)."""

    with output_file(target, "--removed") as out:
        for n, kept, similarity in decisions.removals():
            file, row, line = decisions.place(n)
            record: dict[str, Any] = {"key": decisions.keys[n], "file": file, "row": row,
                                      "line": line}  # fmt: skip
            if kept >= 0:
                kept_file, kept_row, kept_line = decisions.place(kept)
                record.update(
                    duplicate_of=decisions.keys[kept],
                    duplicate_of_file=kept_file,
                    duplicate_of_row=kept_row,
                    duplicate_of_line=kept_line,
                )
            else:
                record.update(duplicate_of=decisions.stored_match[n], stored=True)
            record["similarity"] = round(similarity, 4)
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        # The rows kept without being judged (nothing in them), said so, after the removed ones.
        for n in np.flatnonzero(~decisions.judged).tolist():
            file, row, line = decisions.place(n)
            record = {"key": decisions.keys[n], "file": file, "row": row, "line": line,
                      "judged": False, "reason": NOTHING_TO_JUDGE}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        # Then the rows that are no document (written only with --annotate), and why.
        for skip in decisions.skipped:
            file, at = skipped_place(skip)
            line = skip.line if isinstance(skip, SkippedRow) else None
            record = {"key": skip.path, "file": file or None, "row": at, "line": line,
                      "judged": False, "reason": skip.reason, "unreadable": True}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
