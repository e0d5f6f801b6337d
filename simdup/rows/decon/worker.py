"""What a worker of ``decon`` does: chunks of training rows scanned for evaluation items.

A row engine (``engines.rows``) brings the training rows in ``RowChunk``s (``readers.chunking``,
as ``dedup`` does: JSON lines as stored, CSV and Parquet rows read already), read by the parent
for local workers or by each Dask worker for its partition; each worker holds the item index
(set by ``init_decon_worker``: forked, it is shared with the parent, not copied per task; on a
cluster, sent once to each worker) and gives back, per chunk, only the rows that contain an
item (``RowFinding``: the row's spans in character offsets) and the rows that are no document,
with why. Results come back in input order. One bad row never stops a run: it becomes a skip
reason.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ...algorithms.containment import Containment, ItemIndex
from ...engines.rows import WorkerState
from ...readers.chunking import NoRow, RowChunk
from ...readers.rows import RowOptions, plain_jsonl_texts
from ...text.tokens import row_token_hashes, text_tokens


@dataclass(frozen=True, slots=True)
class FoundSpan:
    """Characters ``row_start:row_end`` of the row repeat tokens ``item_first..item_last``
    of the item (the parent turns those into the item's characters)."""

    row_start: int
    row_end: int
    item_first: int
    item_last: int


# One item a row contains, its spans in the row's characters.
ItemInRow = Containment[FoundSpan]


@dataclass(frozen=True, slots=True)
class RowFinding:
    """A row (``offset`` in its chunk) that contains items; ``id``: its id as read (None: no
    id field)."""

    offset: int
    id: str | None
    items: tuple[ItemInRow, ...]


@dataclass(frozen=True, slots=True)
class ChunkScan:
    """What a worker found in a chunk: where its rows are (``file``, ``first_row``, ``lines``,
    -1 where a row has none), the rows that contain items, and the rows that are no document
    (offset in the chunk, reason, its id when one can be read)."""

    file: int
    first_row: int
    lines: np.ndarray
    found: list[RowFinding]
    skipped: list[tuple[int, str, str | None]]

    @property
    def count(self) -> int:
        return int(self.lines.size)


_STATE: WorkerState[tuple[ItemIndex, RowOptions, str]] = WorkerState(
    "looking for items in rows"
)


def init_decon_worker(index: ItemIndex, options: RowOptions, markup: str = "none") -> None:
    """The item index, row options and markup ``scan_chunk`` uses in this process."""
    _STATE.set((index, options, markup))


def items_in(text: str, index: ItemIndex, markup: str = "none") -> tuple[ItemInRow, ...]:
    """The items of ``index`` that ``text`` contains, with their spans in its characters
    (the tokens of its ``markup`` left out: ``text_tokens``)."""
    tokens = text_tokens(text, markup)
    if len(tokens) == 0:
        return ()
    found = index.contained(tokens.hashes)
    starts, ends = tokens.starts, tokens.ends
    return tuple(
        Containment(
            c.item,
            c.covered,
            c.tokens,
            tuple(
                FoundSpan(
                    int(starts[s.row_first]), int(ends[s.row_last]), s.item_first, s.item_last
                )  # fmt: skip
                for s in c.spans
            ),
        )
        for c in found
    )


def scan_chunk(chunk: RowChunk) -> ChunkScan:
    """The chunk's rows scanned for items (in this process: a worker's, or the parent's)."""
    index, options, markup = _STATE.get()
    found: list[RowFinding] = []
    skipped: list[tuple[int, str, str | None]] = []
    texts: list[tuple[int, str, str | None]] = []
    # JSON lines that are plainly documents give their text without a parse; their ids are
    # read (by the parse) only for the rows that contain an item.
    raw = [item if isinstance(item, bytes) else b"" for item in chunk.items]
    try:
        plain = plain_jsonl_texts(raw, options) if any(raw) else []
    except MemoryError:  # a huge line: every line is parsed on its own, as before
        plain = [None] * len(raw)
    unread: set[int] = set()
    for offset, item in enumerate(chunk.items):
        known = plain[offset] if isinstance(item, bytes) else None
        if known is not None:
            texts.append((offset, known, None))
            unread.add(offset)
            continue
        row = chunk.row(offset, options)
        if isinstance(row, NoRow):
            skipped.append((offset, row.reason, row.id))
            continue
        texts.append((offset, row.text, row.id))
    try:
        candidates = _candidates(texts, index, markup)
    except Exception:  # a row the joined pass cannot take: every row is scanned on its own
        candidates = texts
    for offset, text, ident in candidates:
        try:
            items = items_in(text, index, markup)
            if items and offset in unread:  # its id, read now that it is needed
                decoded = chunk.row(offset, options)
                assert not isinstance(decoded, NoRow) and decoded.text == text
                ident = decoded.id
        except MemoryError:
            skipped.append((offset, "out of memory while scanning it", None))
            continue
        except Exception as exc:  # one bad row never stops a run
            skipped.append((offset, f"internal error: {type(exc).__name__}: {exc}", None))
            continue
        if items:
            found.append(RowFinding(offset, ident, items))
    lines = chunk.line_numbers()
    return ChunkScan(chunk.file, chunk.first_row, lines, found, skipped)


def _candidates(
    texts: list[tuple[int, str, str | None]], index: ItemIndex, markup: str = "none"
) -> list[tuple[int, str, str | None]]:
    """The rows of ``texts`` that share a gram with some item, found for all of them at once
    (``row_token_hashes``: every row's token hashes in one call; ``rows_with_hits``: one probe
    of the chunk), so that a chunk costs a few calls, not a few per row. Only these rows are
    scanned one by one (``items_in``), which finds exactly what scanning every row would."""
    if not texts:
        return []
    if markup == "none":
        hashes, row_of = row_token_hashes([text for _, text, _ in texts])
    else:  # the tokens left once the markup is out: a k-gram can span a removed link target
        found = [text_tokens(text, markup).hashes for _, text, _ in texts]
        hashes = np.concatenate(found) if found else np.empty(0, np.uint64)
        row_of = np.repeat(np.arange(len(found), dtype=np.int64), [h.size for h in found])
    return [texts[int(r)] for r in index.rows_with_hits(hashes, row_of).tolist()]


def hold_freed_heap() -> None:
    """Have glibc keep freed memory for reuse (up to 256 MB at the top of the heap, and blocks
    below 32 MB taken from the heap, not mapped one by one): a chunk of rows allocates and
    frees a few MB, and by default each chunk's pages were handed back and faulted in again,
    ~0.7 s of system time per 100 MB of JSON lines. A process setting (the workers fork with
    it), for the command line; no-op where the C library is not glibc."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
    mallopt(m_trim_threshold, 256 << 20)
    mallopt(m_mmap_threshold, 32 << 20)
