"""What a rows writer is given, whatever the format (``jsonl``, ``delimited``, ``parquet``):
a ``Plan``. Per input, which of its rows are written (``Kept``: a mask over its row numbers);
for every row written, a note (``Notes``: the values added to it, by name, filling the
``Column``s); and for some rows a new text (``Rewrite``). A writer knows no caller's types:
``dedup``, ``decon`` and ``dedup --spans`` each turn their decisions into these
(``rows.dedup_files``, ``rows.decon.run``, ``rows.spans.run``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# A column added with notes: its name and kind ("bool", "int", "string", "strings": a list
# of them, in CSV one cell of them separated by spaces; "true"/"false" for a bool, empty for
# None).
Column = tuple[str, str]
# The note added to row ``row`` of input ``file``: a value for every column, by name. A JSON
# object gets every key of it (a note may hold more than the columns: ``"skipped"``, why a
# row is no document, or ``"judged"``), a CSV record and a Parquet row the columns only.
Notes = Callable[[int, int], Mapping[str, Any]]
# For row ``row`` of input ``file``: None (as stored), or its text -> its new text (None: drop).
# Only a row that is a document may be given a change.
Rewrite = Callable[[int, int], Callable[[str], str | None] | None]


@dataclass(frozen=True, eq=False)
class Kept:
    """Which rows of one input are written: row ``n`` when ``mask[n]``, and the rows past the
    mask's end when ``rest``."""

    mask: np.ndarray
    rest: bool = False

    @classmethod
    def all_but(cls, rows: Collection[int]) -> Kept:
        """Every row but ``rows`` (row numbers)."""
        numbers = np.fromiter(rows, dtype=np.int64, count=len(rows))
        mask = np.ones(int(numbers.max()) + 1 if numbers.size else 0, dtype=bool)
        mask[numbers] = False
        return cls(mask, rest=True)

    def __contains__(self, row: int) -> bool:
        return bool(self.mask[row]) if row < self.mask.size else self.rest

    def of(self, numbers: np.ndarray) -> np.ndarray:
        """The mask over ``numbers`` (row numbers): True where the row is written."""
        found = np.full(numbers.size, self.rest, dtype=bool)
        inside = numbers < self.mask.size
        found[inside] = self.mask[numbers[inside]]
        return found


@dataclass(frozen=True)
class Plan:
    """Which rows a writer writes, and how: per input the rows in ``kept`` (every row: None);
    with ``notes``, each with its note (``columns`` added); ``rewrite``: the rows whose text it
    changes, with their new text."""

    kept: Sequence[Kept] | None = None
    columns: Sequence[Column] = ()
    notes: Notes | None = None
    rewrite: Rewrite | None = None

    def written(self, f: int, row: int) -> bool:
        """Whether row ``row`` of input ``f`` is written (unless a rewrite drops it)."""
        return self.kept is None or row in self.kept[f]


def skipped_note(columns: Sequence[Column], reason: str) -> dict[str, Any]:
    """The note of a row that is no document: no values (null, empty), and why (a JSON
    object's ``"skipped"``)."""
    return {**dict.fromkeys(name for name, _ in columns), "skipped": reason}
