"""Evaluation items: read from rows or documents, tokenised once into an ``EvalIndex``.

An item is one text field of one row of a JSON Lines, CSV, TSV or Parquet file (each field
named with ``fields`` is an item of its own: a question and its answer are two), or one whole
document of any format ``scan`` reads. Its id is the row's id (``id_field``, else its ``id``,
else ``file#row``), with ``:field`` added when several fields are read, or the document's path.
Items are tokenised with the fragment tokens ``check`` uses (``text.tokens``): CJK characters
and words, folded (case, width, traditional and simplified Chinese), whitespace ignored.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...algorithms.containment import ContainmentRule, ItemIndex
from ...errors import ConfigError
from ...params import MARKUPS
from ...readers import read_document
from ...readers.discovery import DiscoveryOptions, discover
from ...readers.rows import Row, RowOptions, format_by_name, read_records
from ...records import SkippedFile
from ...text.letters import letter_hashes, letters
from ...text.tokens import text_tokens

DEFAULT_MAX_SIZE = 64 << 20


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One evaluation item: its ``id``, the file it comes from (``source``), its row and line
    there (None: a whole document; line None in Parquet), the field it was read from (None: a
    document) and its text."""

    id: str
    source: str
    row: int | None
    line: int | None
    field: str | None
    text: str


def read_items(
    paths: Iterable[str],
    fields: Sequence[str] = ("text",),
    *,
    id_field: str | None = None,
    records: str = "auto",
    max_size: int = DEFAULT_MAX_SIZE,
) -> Iterator[EvalItem | SkippedFile]:
    """The items of ``paths`` (files or folders), in order, or the record of why a row, field
    or file gives none. A file is read as rows when ``records`` names a format or its name says
    one (``.jsonl``, ``.csv``, ``.parquet``, compressed or not), else as one document."""
    fields = list(fields) or ["text"]
    for named in paths:
        if os.path.isdir(named):
            found, skipped = discover([named], DiscoveryOptions())
            yield from skipped
            files = [f.path for f in found]
        else:
            files = [named]
        for path in files:
            if records != "auto" or format_by_name(path) is not None:
                yield from _row_items(path, fields, id_field, records)
            else:
                read = read_document(path, max_size)
                if isinstance(read, SkippedFile):
                    yield read
                else:
                    yield EvalItem(path, path, None, None, None, read.text)


def _row_items(
    path: str, fields: list[str], id_field: str | None, records: str
) -> Iterator[EvalItem | SkippedFile]:
    for name in fields:
        options = RowOptions(records=records, text_field=name, id_field=id_field)
        for found in read_records(path, options):
            if isinstance(found, SkippedFile):
                yield found
                continue
            assert isinstance(found, Row)
            ident = found.key if len(fields) == 1 else f"{found.key}:{name}"
            yield EvalItem(ident, path, found.row, found.line, name, found.text)


@dataclass
class EvalIndex:
    """Evaluation items tokenised, and the index of their k-grams (``index``, made when first
    asked). ``items[n]`` is item ``n`` without its text; ``starts``/``ends`` are its tokens'
    character offsets; ``hashes`` their folded hashes. ``unindexed``: the items too short to
    be matched (fewer than ``rule.min_tokens`` tokens), by number. ``markup``: what markup
    the items and the rows scanned for them hold (``params.MARKUPS``), its tokens left out."""

    rule: ContainmentRule
    markup: str = "none"
    items: list[EvalItem] = field(default_factory=list)
    hashes: list[np.ndarray] = field(default_factory=list)
    starts: list[np.ndarray] = field(default_factory=list)
    ends: list[np.ndarray] = field(default_factory=list)
    # Each item's letters (``text.letters``: folded code points), for the letter rule.
    letters: list[np.ndarray] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    _index: ItemIndex | None = None

    def add(self, item: EvalItem) -> None:
        tokens = text_tokens(item.text, self.markup)
        self.add_tokens(
            EvalItem(item.id, item.source, item.row, item.line, item.field, ""),
            tokens.hashes, tokens.starts.astype(np.int32), tokens.ends.astype(np.int32),
            letters(item.text, self.markup).codes,
        )  # fmt: skip

    def add_tokens(
        self, item: EvalItem, hashes: np.ndarray, starts: np.ndarray, ends: np.ndarray,
        codes: np.ndarray,
    ) -> None:  # fmt: skip
        self.items.append(item)
        self.hashes.append(hashes)
        self.starts.append(starts)
        self.ends.append(ends)
        self.letters.append(codes)
        self._index = None

    @classmethod
    def build(
        cls,
        found: Iterable[EvalItem | SkippedFile],
        rule: ContainmentRule | None = None,
        *,
        markup: str = "none",
    ) -> EvalIndex:
        """The index of the items ``found`` (``read_items``; skip records are kept), read with
        ``markup`` left out."""
        if markup not in MARKUPS:
            raise ConfigError(f"unknown markup {markup!r} (choose from {', '.join(MARKUPS)})")
        made = cls(rule or ContainmentRule(), markup=markup)
        for item in found:
            if isinstance(item, SkippedFile):
                made.skipped.append(item)
            else:
                made.add(item)
        return made

    @property
    def index(self) -> ItemIndex:
        if self._index is None:
            self._index = ItemIndex(self.hashes, self.rule,
                                    [letter_hashes(c) for c in self.letters])  # fmt: skip
        return self._index

    @property
    def unindexed(self) -> list[int]:
        return [n for n, h in enumerate(self.hashes) if h.size < self.rule.min_tokens]

    def __len__(self) -> int:
        return len(self.items)

    def item_span(self, n: int, first: int, last: int) -> tuple[int, int]:
        """The character offsets in item ``n`` of its tokens ``first..last``."""
        return int(self.starts[n][first]), int(self.ends[n][last])
