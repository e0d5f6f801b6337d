"""Exact Hamming-distance joins over 64-bit fingerprints (pigeonhole block tables).

Split the 64 bits into ``b`` blocks. Two fingerprints within distance ``k`` differ in at most
``k`` blocks, so with ``b = k + m`` blocks they agree exactly on at least ``m`` of them. One
table per choice of ``m`` blocks, keyed on the fingerprint masked to those blocks, therefore
finds every pair within ``k`` (Manku, Jain & Das Sarma 2007). ``m = 1`` is the classic layout
of the seeds (k=3: four 16-bit blocks); for large inputs ``m = 2`` (k=3: 10 tables of ~26-bit
keys) produces far fewer random candidates. Candidates are verified by popcount, and each pair
is emitted by exactly one table: the one keyed on the lowest ``m`` blocks the pair agrees on.

Identical fingerprints are collapsed before the join, so thousands of exact copies cost one
entry, not a quadratic number of candidates.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from ..errors import ConfigError
from ..native import speedups

MAX_THRESHOLD = 31
# Upper bound on candidate pairs materialised at once (memory: ~40 bytes each).
_CHUNK = 1 << 22


def _check_threshold(threshold: int) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | np.integer):
        raise ConfigError(f"threshold must be an integer, not {threshold!r}")
    if not 0 <= threshold <= MAX_THRESHOLD:
        raise ConfigError(f"threshold must be between 0 and {MAX_THRESHOLD}, got {threshold}")


@dataclass(frozen=True)
class Layout:
    """``blocks`` contiguous bit ranges; one table per ``key_blocks``-subset of them."""

    blocks: int
    key_blocks: int

    @property
    def tables(self) -> int:
        return comb(self.blocks, self.key_blocks)

    def block_masks(self) -> list[int]:
        # Spread the remainder: the first 64 % blocks blocks get one extra bit.
        size, extra = divmod(64, self.blocks)
        masks, start = [], 0
        for i in range(self.blocks):
            width = size + (1 if i < extra else 0)
            masks.append(((1 << width) - 1) << start)
            start += width
        return masks


def choose_layout(n: int, threshold: int) -> Layout:
    """The layout with the least expected work for ``n`` distinct random fingerprints.

    Cost per table: a sort of n keys plus the random candidates, n^2 / 2^(key bits). With numpy
    each candidate costs about four sorted keys (measured: at n = 10^5 and k = 3 ten 26-bit
    tables beat four 16-bit ones 2.2x); natively (``speedups.table_pairs``) about a fiftieth of
    one (measured on 78,642 passage-window fingerprints at k = 10: 66 tables of 2 blocks in
    0.22 s, 286 of 3 in 0.47 s, 1,001 of 4 in 1.6 s, 11 of 1 in 0.47 s).
    """
    per_candidate = 0.02 if speedups is not None else 4.0
    best: tuple[float, Layout] | None = None
    for key_blocks in range(1, 5):
        blocks = threshold + key_blocks
        if blocks > 64:
            break
        layout = Layout(blocks, key_blocks)
        key_bits = 64 * key_blocks / blocks
        cost = layout.tables * (n + per_candidate * n * n / 2.0**key_bits)
        if best is None or cost < best[0]:
            best = (cost, layout)
    assert best is not None
    return best[1]


def _as_uint64(fingerprints: np.ndarray | Sequence[int]) -> np.ndarray:
    if isinstance(fingerprints, np.ndarray):
        if fingerprints.dtype == np.uint64:
            return fingerprints.ravel()
        if fingerprints.dtype.kind in "iu" and (fingerprints.size == 0 or fingerprints.min() >= 0):
            return fingerprints.astype(np.uint64).ravel()
    values = list(fingerprints)
    for v in values:
        if not 0 <= int(v) < 1 << 64:
            raise ConfigError(f"fingerprint {v!r} is not a 64-bit unsigned integer")
    return np.array([int(v) for v in values], dtype=np.uint64)


def _sort_with_index(
    keys: np.ndarray, key_bits: int, positions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted keys, positions)``: like ``argsort``, but when key and position fit in 64 bits
    they are packed into one ``uint64`` and sorted by value, which numpy does several times
    faster than an index sort."""
    n = keys.size
    idx_bits = max(1, (n - 1).bit_length())
    if key_bits + idx_bits <= 64:
        if positions is None:
            positions = np.arange(n, dtype=np.uint64)
        packed = keys << np.uint64(idx_bits)
        packed |= positions
        packed.sort()
        # uint64 positions index arrays directly; no conversion pass needed.
        return packed >> np.uint64(idx_bits), packed & np.uint64((1 << idx_bits) - 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def collapse(fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct fingerprints, and the original indices grouped by them.

    Returns ``(unique, members, starts)``: ``members[starts[u]:starts[u+1]]`` are the indices
    of the inputs equal to ``unique[u]``, ascending; ``unique`` is sorted. One sort plus a
    neighbour mask: much faster than ``np.unique`` with its inverse.
    """
    members = np.argsort(fps)
    ordered = fps[members]
    first = np.empty(ordered.size, dtype=bool)
    if ordered.size:
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    bounds = np.append(starts, ordered.size)
    if starts.size < ordered.size:
        # The quicksort leaves equal values in any order: put each group's indices in order.
        sizes = np.diff(bounds)
        in_group = np.flatnonzero(np.repeat(sizes > 1, sizes))
        group_of = np.repeat(np.arange(sizes.size), sizes)[in_group]
        sub = members[in_group]
        members[in_group] = sub[np.lexsort((sub, group_of))]
    return ordered[starts], members, bounds


def _runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in sorted ``keys`` that have later equal neighbours, and their run's end."""
    eq = keys[1:] == keys[:-1]
    if not eq.any():
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    run_start = np.flatnonzero(eq & ~np.r_[False, eq[:-1]])
    run_last = np.flatnonzero(eq & ~np.r_[eq[1:], False]) + 1  # inclusive
    size = run_last - run_start + 1
    total = int(size.sum())
    pos = np.repeat(run_start, size) + (np.arange(total) - np.repeat(np.cumsum(size) - size, size))
    end = np.repeat(run_last, size)
    keep = pos < end
    return pos[keep], end[keep]


def _table_pairs(
    unique: np.ndarray, layout: Layout, table: tuple[int, ...], k: int, positions: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """One table's pairs, in chunks: natively when the extension is there (one call, the same
    pairs in the same order), else ``_table_pairs_numpy``."""
    if unique.size < 2:
        return
    if speedups is not None:
        masks = layout.block_masks()
        earlier = [masks[j] for j in range(table[-1]) if j not in table]
        found = speedups.table_pairs(
            np.ascontiguousarray(unique, dtype=np.uint64),
            np.array([masks[j] for j in table], dtype=np.uint64),
            np.array(earlier, dtype=np.uint64),
            k,
        )
        if found is not None:
            a, b, d = found
            yield (
                np.frombuffer(a, dtype=np.int64),
                np.frombuffer(b, dtype=np.int64),
                np.frombuffer(d, dtype=np.uint8),
            )
            return
    yield from _table_pairs_numpy(unique, layout, table, k, positions)


def _table_pairs_numpy(
    unique: np.ndarray, layout: Layout, table: tuple[int, ...], k: int, positions: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The definition of ``_table_pairs`` (``speedups.table_pairs`` gives the same)."""
    n = unique.size
    if n < 2:
        return
    masks = layout.block_masks()
    key_bits = sum(masks[j].bit_count() for j in table)
    idx_bits = max(1, (n - 1).bit_length())
    if key_bits + idx_bits <= 64:
        # Pack (key, position) into one uint64 and sort by value; built in place, since at
        # 10^7 fingerprints every temporary array costs 80 MB and a pass over memory.
        packed = positions.copy()
        tmp = np.empty(n, dtype=np.uint64)
        offset = idx_bits
        for j in table:
            low = (masks[j] & -masks[j]).bit_length() - 1
            width = masks[j].bit_count()
            np.right_shift(unique, np.uint64(low), out=tmp)
            tmp &= np.uint64((1 << width) - 1)
            tmp <<= np.uint64(offset)
            packed |= tmp
            offset += width
        del tmp
        packed.sort()
        order = packed & np.uint64((1 << idx_bits) - 1)
        packed >>= np.uint64(idx_bits)
        sorted_keys = packed
    else:
        key_mask = 0
        for j in table:
            key_mask |= masks[j]
        sorted_keys, order = _sort_with_index(unique & np.uint64(key_mask), 64)
    pos, end = _runs(sorted_keys)
    if pos.size == 0:
        return
    counts = end - pos  # later members of the same bucket
    cumulative = np.cumsum(counts)
    # Blocks that would make another table the canonical one for a pair.
    earlier = [np.uint64(masks[j]) for j in range(table[-1]) if j not in table]
    start = 0
    while start < pos.size:
        base = int(cumulative[start - 1]) if start else 0
        stop = max(int(np.searchsorted(cumulative, base + _CHUNK, side="right")), start + 1)
        p = pos[start:stop]
        cnt = counts[start:stop]
        total = int(cnt.sum())
        left = np.repeat(p, cnt)
        right = left + 1 + (np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt))
        a = order[left]
        b = order[right]
        x = unique[a] ^ unique[b]
        d = np.bitwise_count(x)
        keep = d <= k
        for mask in earlier:
            keep &= (x & mask) != 0
        a, b, d = a[keep], b[keep], d[keep]
        yield (
            np.minimum(a, b).astype(np.int64),
            np.maximum(a, b).astype(np.int64),
            d.astype(np.uint8),
        )
        start = stop


def table_pairs(
    fingerprints: np.ndarray, layout: Layout, table: tuple[int, ...], threshold: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(a, b, d)`` (positions in ``fingerprints``, ``a < b``) that one table of
    ``layout`` emits: equal on the blocks of ``table``, within ``threshold`` bits, and not
    equal on an earlier block outside it, so that over all tables each pair of the whole join
    comes from exactly one. The rows of a table's bucket need not be anywhere else: a
    distributed join ships each bucket to one machine and calls this there."""
    _check_threshold(threshold)
    fps = _as_uint64(fingerprints)
    positions = np.arange(fps.size, dtype=np.uint64)
    parts = list(_table_pairs(fps, layout, table, int(threshold), positions))
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy(), np.empty(0, dtype=np.uint8)
    a, b, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    return a, b, d


def unique_near_pairs(
    unique: np.ndarray, threshold: int, layout: Layout | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs ``(u, v, d)`` with ``u < v`` of *distinct* fingerprints within ``threshold``."""
    _check_threshold(threshold)
    threshold = int(threshold)
    if layout is None:
        layout = choose_layout(unique.size, threshold)
    if layout.blocks - layout.key_blocks > threshold:
        raise ConfigError(f"layout {layout} cannot guarantee distance {threshold}")
    parts_a, parts_b, parts_d = [], [], []
    positions = np.arange(unique.size, dtype=np.uint64)
    for table in combinations(range(layout.blocks), layout.key_blocks):
        for a, b, d in _table_pairs(unique, layout, table, threshold, positions):
            parts_a.append(a)
            parts_b.append(b)
            parts_d.append(d)
    if not parts_a:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy(), np.empty(0, dtype=np.uint8)
    a = np.concatenate(parts_a)
    b = np.concatenate(parts_b)
    d = np.concatenate(parts_d)
    order = np.lexsort((b, a))
    return a[order], b[order], d[order]


def _is_sorted(i: np.ndarray, j: np.ndarray) -> bool:
    """Pairs already in ``(i, j)`` order (so the sort and its copies can be skipped)."""
    di = np.diff(i)
    return bool(np.all((di > 0) | ((di == 0) & (np.diff(j) > 0))))


def near_pairs(
    fingerprints: np.ndarray | Sequence[int], threshold: int, layout: Layout | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All index pairs ``(i, j)``, ``i < j``, whose fingerprints are within ``threshold`` bits.

    Returns three arrays ``(i, j, distance)`` sorted by ``(i, j)``. Exact: the same pairs a
    brute-force comparison of every pair would give, including identical fingerprints.
    """
    _check_threshold(threshold)
    threshold = int(threshold)
    fps = _as_uint64(fingerprints)
    ordered = np.sort(fps)
    if ordered.size < 2 or bool((ordered[1:] != ordered[:-1]).all()):
        # All distinct (the usual case): join the fingerprints as they are, no index sort.
        return unique_near_pairs(fps, threshold, layout)
    del ordered
    unique, members, starts = collapse(fps)
    sizes = np.diff(starts)
    parts_i: list[np.ndarray] = []
    parts_j: list[np.ndarray] = []
    parts_d: list[np.ndarray] = []
    # Identical fingerprints: every pair inside a group, distance 0.
    for u in np.flatnonzero(sizes > 1):
        group = members[starts[u] : starts[u + 1]]
        ii, jj = np.triu_indices(group.size, 1)
        parts_i.append(group[ii])
        parts_j.append(group[jj])
        parts_d.append(np.zeros(ii.size, dtype=np.uint8))
    ua, ub, ud = unique_near_pairs(unique, threshold, layout)
    if ua.size:
        # Expand each pair of distinct fingerprints to the product of their groups.
        ca, cb = sizes[ua], sizes[ub]
        n = ca * cb
        rep = np.repeat(np.arange(ua.size), n)
        within = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        ia = members[starts[ua][rep] + within // cb[rep]]
        ib = members[starts[ub][rep] + within % cb[rep]]
        parts_i.append(np.minimum(ia, ib))
        parts_j.append(np.maximum(ia, ib))
        parts_d.append(ud[rep])
    if not parts_i:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy(), np.empty(0, dtype=np.uint8)
    if len(parts_i) == 1:
        # One group of copies (its rows come sorted) or one product: no merge needed.
        i, j, d = parts_i[0].astype(np.int64, copy=False), parts_j[0], parts_d[0]
        if not _is_sorted(i, j):
            order1 = np.lexsort((j, i))
            i, j, d = i[order1], j[order1], d[order1]
        return i, j.astype(np.int64, copy=False), d
    i = np.concatenate(parts_i).astype(np.int64)
    del parts_i
    j = np.concatenate(parts_j).astype(np.int64)
    del parts_j
    d = np.concatenate(parts_d)
    order2 = np.lexsort((j, i))
    return i[order2], j[order2], d[order2]


class BlockIndex:
    """A set of keyed fingerprints answering "which are within ``threshold`` bits".

    ``add(key, fingerprint)``; ``query(fingerprint)`` gives ``[(key, distance)]`` for every
    stored entry within the threshold; ``pairs()`` gives every stored pair within it as
    ``[(key_a, key_b, distance)]`` in insertion order of the first key.
    """

    def __init__(self, threshold: int = 3) -> None:
        _check_threshold(threshold)
        self.threshold = int(threshold)
        self._keys: list[Hashable] = []
        self._fps: list[int] = []
        self._tables: list[tuple[int, np.ndarray, np.ndarray]] | None = None
        self._array: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, key: Hashable, fingerprint: int) -> None:
        if not 0 <= int(fingerprint) < 1 << 64:
            raise ConfigError(f"fingerprint {fingerprint!r} is not a 64-bit unsigned integer")
        self._keys.append(key)
        self._fps.append(int(fingerprint))
        self._tables = None

    def _build(self) -> tuple[np.ndarray, list[tuple[int, np.ndarray, np.ndarray]]]:
        if self._tables is None or self._array is None:
            fps = np.array(self._fps, dtype=np.uint64)
            layout = Layout(self.threshold + 1, 1)
            tables = []
            for mask in layout.block_masks():
                keys = fps & np.uint64(mask)
                order = np.argsort(keys, kind="stable")
                tables.append((mask, keys[order], order))
            self._array, self._tables = fps, tables
        return self._array, self._tables

    def query(self, fingerprint: int) -> list[tuple[Hashable, int]]:
        """Every stored ``(key, distance)`` within the threshold, in insertion order."""
        if not self._keys:
            return []
        if not 0 <= int(fingerprint) < 1 << 64:
            raise ConfigError(f"fingerprint {fingerprint!r} is not a 64-bit unsigned integer")
        fps, tables = self._build()
        fp = np.uint64(int(fingerprint))
        found: list[np.ndarray] = []
        for mask, sorted_keys, order in tables:
            key = fp & np.uint64(mask)
            lo = np.searchsorted(sorted_keys, key, side="left")
            hi = np.searchsorted(sorted_keys, key, side="right")
            found.append(order[lo:hi])
        candidates = np.unique(np.concatenate(found))
        d = np.bitwise_count(fps[candidates] ^ fp)
        keep = d <= self.threshold
        return [
            (self._keys[int(i)], int(x)) for i, x in zip(candidates[keep], d[keep], strict=True)
        ]

    def pairs(self) -> list[tuple[Hashable, Hashable, int]]:
        """Every stored pair within the threshold as ``(key_a, key_b, distance)``."""
        i, j, d = near_pairs(np.array(self._fps, dtype=np.uint64), self.threshold)
        keys = self._keys
        return [
            (keys[a], keys[b], int(x))
            for a, b, x in zip(i.tolist(), j.tolist(), d.tolist(), strict=True)
        ]


def near_pairs_touching(
    fingerprints: np.ndarray | Sequence[int],
    touched: np.ndarray,
    threshold: int,
    layout: Layout | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of ``near_pairs(fingerprints, threshold)`` that hold a ``touched`` document
    (``touched``: a bool per fingerprint): ``(i, j, distance)``, ``i < j``, sorted by
    ``(i, j)``. Exact, and cheap when few are touched: each table is sorted once and only the
    touched documents' buckets are paired, so a rescan that changed 1% of a tree finds the
    changed documents' pairs without joining the other 99% again."""
    _check_threshold(threshold)
    threshold = int(threshold)
    fps = _as_uint64(fingerprints)
    touched = np.asarray(touched, dtype=bool)
    if touched.shape != fps.shape:
        raise ValueError("touched must hold one flag per fingerprint")
    rows = np.flatnonzero(touched)
    n = fps.size
    empty = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint8))
    if rows.size == 0 or n < 2:
        return empty
    if layout is None:
        layout = choose_layout(n, threshold)
    if layout.blocks - layout.key_blocks > threshold:
        raise ConfigError(f"layout {layout} cannot guarantee distance {threshold}")
    masks = layout.block_masks()
    codes: list[np.ndarray] = []
    for table in combinations(range(layout.blocks), layout.key_blocks):
        mask = np.uint64(sum(masks[b] for b in table))
        keys = fps & mask
        # Only the touched documents' keys are sorted; every key is looked up among them.
        wanted = keys[rows]
        order = np.argsort(wanted, kind="stable")
        ordered, owners = wanted[order], rows[order]
        # One binary search for every key; the end of each equal run only for those found.
        lo = np.searchsorted(ordered, keys, "left")
        hit = np.flatnonzero(ordered[np.minimum(lo, ordered.size - 1)] == keys)
        sizes = np.searchsorted(ordered, keys[hit], "right") - lo[hit]
        other = np.repeat(hit, sizes)
        offset = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        owner = owners[np.repeat(lo[hit], sizes) + offset]
        keep = owner != other
        owner, other = owner[keep], other[keep]
        close = np.bitwise_count(fps[owner] ^ fps[other]) <= threshold
        a, b = np.minimum(owner, other)[close], np.maximum(owner, other)[close]
        codes.append(a.astype(np.int64) * np.int64(n) + b.astype(np.int64))
    found = np.unique(np.concatenate(codes)) if codes else np.empty(0, np.int64)
    i, j = found // n, found % n
    return i, j, np.bitwise_count(fps[i] ^ fps[j]).astype(np.uint8)
