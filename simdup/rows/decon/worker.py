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

from ...algorithms.containment import Containment, ItemIndex, item_runs
from ...engines.rows import WorkerState
from ...readers.chunking import NoRow, RowChunk
from ...readers.rows import RowOptions, plain_jsonl_texts
from ...text.letters import Letters, letters, row_letter_hashes
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
    (the tokens of its ``markup`` left out: ``text_tokens``; the letter rule's found on its
    ``letters``)."""
    found = _token_items(text, index, markup)
    if not index.letter_tables:
        return found
    row = letters(text, markup)
    item, ip, rp = index.letter_hits(row.hashes, np.zeros(len(row), dtype=np.int64))
    return _with(found, _letter_items(text, index, markup, row.hashes, item, ip, rp, row))


def items_in_rows(
    texts: list[str], index: ItemIndex, markup: str = "none"
) -> list[tuple[ItemInRow, ...]]:
    """``items_in`` of each of many texts, found as a worker finds them in a chunk of rows
    (one probe of them all, then only the rows it names)."""
    found: list[tuple[ItemInRow, ...]] = [() for _ in texts]
    candidates, by_letters = _candidates([(n, t, None) for n, t in enumerate(texts)], index,
                                         markup)  # fmt: skip
    for n, text, _ in candidates:
        found[n] = _with(_token_items(text, index, markup), by_letters.get(n, []))
    return found


def _token_items(text: str, index: ItemIndex, markup: str) -> tuple[ItemInRow, ...]:
    """The items ``text`` contains by the k-gram and edit rules."""
    tokens = text_tokens(text, markup)
    if len(tokens) == 0:
        return ()
    starts, ends = tokens.starts, tokens.ends
    return tuple(
        Containment(c.item, c.covered, c.tokens, tuple(
            FoundSpan(int(starts[s.row_first]), int(ends[s.row_last]), s.item_first, s.item_last)
            for s in c.spans
        ))  # fmt: skip
        for c in index.contained(tokens.hashes)
    )


def _letter_items(
    text: str, index: ItemIndex, markup: str, hashes: np.ndarray, item: np.ndarray,
    ip: np.ndarray, rp: np.ndarray, row: Letters | None = None, *, near: bool = False,
) -> list[ItemInRow]:  # fmt: skip
    """The items ``text`` contains by the letter rule, from the pieces its letters
    (``hashes``) share with them (``item``, ``ip``, ``rp``: by item, then position). A stretch
    is first sought anywhere in the letters (``near``: found already), then only along whole
    words; ``row``: the text's letters, when made already."""
    found: list[ItemInRow] = []
    for n, lo, hi in item_runs(item):
        if not near and index.similar_stretch(n, hashes, ip[lo:hi], rp[lo:hi],
                                              letters=True) is None:  # fmt: skip
            continue  # a stretch of whole words is no closer than the closest stretch
        row = row or letters(text, markup)
        got = index.similar_stretch(n, hashes, ip[lo:hi], rp[lo:hi], letters=True,
                                    cuts=row.cuts())  # fmt: skip
        if got is not None:
            at = row.offsets
            found.append(Containment(got.item, got.covered, got.tokens, tuple(
                FoundSpan(int(at[s.row_first]), int(at[s.row_last]) + 1, s.item_first,
                          s.item_last)
                for s in got.spans
            )))  # fmt: skip
    return found


def _with(found: tuple[ItemInRow, ...], more: list[ItemInRow]) -> tuple[ItemInRow, ...]:
    """``found`` and those of ``more`` whose item it lacks (the letter rule adds only items
    the token rules did not find), by item."""
    known = {c.item for c in found}
    extra = [c for c in more if c.item not in known]
    return tuple(sorted((*found, *extra), key=lambda c: c.item)) if extra else found


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
        candidates, by_letters = _candidates(texts, index, markup)
    except Exception:  # a row the joined pass cannot take: every row is scanned on its own
        candidates, by_letters = texts, None
    for offset, text, ident in candidates:
        try:
            if by_letters is None:
                items = items_in(text, index, markup)
            else:
                items = _with(_token_items(text, index, markup), by_letters.get(offset, []))
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
) -> tuple[list[tuple[int, str, str | None]], dict[int, list[ItemInRow]]]:
    """The rows of ``texts`` that share a gram with some item, found for all of them at once
    (``row_token_hashes``: every row's token hashes in one call; ``rows_with_hits``: one probe
    of the chunk), so that a chunk costs a few calls, not a few per row; and by offset, the
    items each contains by the letter rule (``row_letter_hashes`` and ``letter_hits``: one
    probe too). Only these rows are scanned one by one (``_token_items``), which finds
    exactly what scanning every row would (``items_in``)."""
    if not texts:
        return [], {}
    if markup == "none":
        hashes, row_of = row_token_hashes([text for _, text, _ in texts])
    else:  # the tokens left once the markup is out: a k-gram can span a removed link target
        hashes, row_of = _laid_end_to_end([text_tokens(t, markup).hashes for _, t, _ in texts])
    rows = index.rows_with_hits(hashes, row_of)
    by_letters: dict[int, list[ItemInRow]] = {}
    if index.letter_tables:
        if markup == "none":
            hashes, row_of = row_letter_hashes([text for _, text, _ in texts])
        else:
            hashes, row_of = _laid_end_to_end([letters(t, markup).hashes for _, t, _ in texts])
        item, ip, rp = index.letter_hits(hashes, row_of)
        first = np.searchsorted(row_of, np.arange(len(texts) + 1), "left")
        if item.size:
            # Only the runs (a row, an item) with a stretch near the item anywhere.
            hit_rows = row_of[rp]
            near = index.near_letter_groups(hashes, first, hit_rows, item, ip, rp)
            runs = np.flatnonzero((np.diff(hit_rows) != 0) | (np.diff(item) != 0)) + 1
            run_of = np.zeros(item.size, dtype=np.int64)
            run_of[runs] = 1
            run_of = np.cumsum(run_of)
            keep = np.isin(run_of, run_of[near])
            item, ip, rp, hit_rows = item[keep], ip[keep], rp[keep], hit_rows[keep]
        if item.size:
            bounds = (np.flatnonzero(np.diff(hit_rows)) + 1).tolist()
            for lo, hi in zip([0, *bounds], [*bounds, item.size], strict=True):
                r = int(hit_rows[lo])
                start, stop = int(first[r]), int(first[r + 1])
                offset, text, _ = texts[r]
                found = _letter_items(text, index, markup, hashes[start:stop], item[lo:hi],
                                      ip[lo:hi], rp[lo:hi] - start, near=True)  # fmt: skip
                if found:
                    by_letters[offset] = found
        if by_letters:
            keys = np.array([n for n, (offset, _, _) in enumerate(texts) if offset in by_letters])
            rows = np.union1d(rows, keys)
    return [texts[int(r)] for r in rows.tolist()], by_letters


def _laid_end_to_end(found: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Many rows' hashes one after the other, and each hash's row number."""
    hashes = np.concatenate(found) if found else np.empty(0, np.uint64)
    row_of = np.repeat(np.arange(len(found), dtype=np.int64), [h.size for h in found])
    return hashes, row_of


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
