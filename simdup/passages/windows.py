"""The window table: every window of every document as parallel arrays (``Windows``: its
document, blocks, fingerprint, words and a key of its text) with the word sets the verifier
judges (``distinct_runs``, natively where the extension is built), and the array steps of
matching: connected components, and the pairs of members across two groups and within one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..join.verify import Verifier
from ..native import speedups
from .documents import DocumentPassages


class Windows:
    """Every window of every document as parallel arrays (its words and a key of its text
    too), and the window records the verifier judges."""

    def __init__(self, docs: Sequence[DocumentPassages]) -> None:
        self.docs = docs
        doc_ids, firsts, lasts = [], [], []
        fps = []
        for d, doc in enumerate(docs):
            valid = np.flatnonzero(doc.window_end >= 0)
            doc_ids.append(np.full(valid.size, d, dtype=np.int64))
            firsts.append(valid)
            lasts.append(doc.window_end[valid])
            fps.append(doc.fingerprints[valid])
        empty = np.empty(0, dtype=np.int64)
        self.doc = np.concatenate(doc_ids) if doc_ids else empty
        self.first = np.concatenate(firsts) if firsts else empty
        self.last = np.concatenate(lasts) if lasts else empty
        self.fps = np.concatenate(fps) if fps else np.empty(0, dtype=np.uint64)
        self.words, self.key = _window_words_and_keys(docs, self.doc, self.first, self.last)

    def __len__(self) -> int:
        return int(self.fps.size)

    def long_enough(self, x: np.ndarray, y: np.ndarray, verifier: Verifier) -> np.ndarray:
        """Which window pairs pass the verifier's length check (in words, as their records
        say), all at once: a pair that fails it is no near-duplicate, since windows of the same
        text have the same number of words."""
        a, b = self.words[x].astype(np.float64), self.words[y].astype(np.float64)
        ratio = verifier.options.min_length_ratio
        ok: np.ndarray = np.minimum(a, b) >= ratio * np.maximum(a, b)
        return ok

    def sketches(self, chosen: np.ndarray) -> list[bytes]:
        """Each window of ``chosen`` (ascending) as the verifier sees an item: its exact word
        set as the bottom-k sketch (a window has far fewer distinct words than a sketch holds).
        A window's terms are one slice of its document's (blocks are stored in order): all are
        gathered at once, then each window's sorted and made distinct (``distinct_runs``)."""
        if chosen.size == 0:
            return []
        pieces, counts = [], []
        doc, first, last = self.doc[chosen], self.first[chosen], self.last[chosen]
        cuts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
        for lo, hi in zip(cuts.tolist(), [*cuts[1:].tolist(), chosen.size], strict=True):
            d = self.docs[int(doc[lo])]
            begin = d.offsets[first[lo:hi]]
            count = d.offsets[last[lo:hi] + 1] - begin
            at = np.repeat(begin - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
            pieces.append(d.terms[at])
            counts.append(count)
        bounds = np.zeros(chosen.size + 1, dtype=np.int64)
        np.cumsum(np.concatenate(counts), out=bounds[1:])
        values = np.ascontiguousarray(np.concatenate(pieces), dtype="<u4")
        flat, found = _distinct_runs(values, bounds)
        ends = np.frombuffer(found, dtype=np.int64).tolist()
        return [flat[4 * ends[n] : 4 * ends[n + 1]] for n in range(chosen.size)]


def distinct_runs_python(values: np.ndarray, bounds: np.ndarray) -> tuple[bytes, bytes]:
    """Each run ``values[bounds[k]:bounds[k + 1]]`` (``uint32``) sorted and made distinct: the
    runs one after the other (bytes), and their bounds (``int64`` bytes). One sort of all the
    values keyed by their run."""
    runs = bounds.size - 1
    if runs < 0 or bounds[0] != 0 or bounds[-1] != values.size:
        raise ValueError("distinct_runs() bounds must go from 0 to len(values)")
    if (np.diff(bounds) < 0).any():
        raise ValueError("distinct_runs() bounds must ascend")
    owner = np.repeat(np.arange(runs, dtype=np.uint64), np.diff(bounds))
    keyed = owner << np.uint64(32) | values.astype(np.uint64)
    keyed.sort()
    if keyed.size > 1:
        keyed = keyed[np.r_[True, keyed[1:] != keyed[:-1]]]
    found = np.searchsorted(keyed >> np.uint64(32), np.arange(runs + 1, dtype=np.uint64))
    flat = (keyed & np.uint64(0xFFFFFFFF)).astype("<u4").tobytes()
    return flat, found.astype(np.int64).tobytes()


_distinct_runs: Callable[[np.ndarray, np.ndarray], tuple[bytes, bytes]] = (
    speedups.distinct_runs if speedups else distinct_runs_python
)


_KEY_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd, so invertible modulo 2**64
_KEY_INVERSE = np.uint64(pow(int(_KEY_BASE), -1, 1 << 64))


def _window_words_and_keys(
    docs: Sequence[DocumentPassages], doc: np.ndarray, first: np.ndarray, last: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each window's words, and a key of its text (a polynomial hash modulo 2**64 of its
    blocks' text hashes, from prefix sums; windows with equal keys and equal words hold the
    same blocks' texts, as the verifier's content hash says)."""
    words = np.zeros(doc.size, dtype=np.int64)
    key = np.zeros(doc.size, dtype=np.uint64)
    at = 0
    with np.errstate(over="ignore"):
        for d in docs:
            n = int(np.count_nonzero(d.window_end >= 0))
            if n == 0:
                continue
            f, la = first[at : at + n], last[at : at + n]
            cumulative = np.concatenate(([0], np.cumsum(d.words)))
            words[at : at + n] = cumulative[la + 1] - cumulative[f]
            size = d.identity.size
            powers = np.ones(size, dtype=np.uint64)
            inverse = np.ones(size, dtype=np.uint64)
            if size > 1:
                np.cumprod(np.full(size - 1, _KEY_BASE), out=powers[1:])
                np.cumprod(np.full(size - 1, _KEY_INVERSE), out=inverse[1:])
            prefix = np.zeros(size + 1, dtype=np.uint64)
            np.cumsum(d.identity * powers, out=prefix[1:])
            key[at : at + n] = (prefix[la + 1] - prefix[f]) * inverse[f]
            at += n
    return words, key


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Component label (its smallest member) of each of ``n`` nodes joined by the edges
    ``(a[e], b[e])``: every node points at a smaller one or itself, so a tree's root is its
    smallest member; each round hooks the larger root of every edge whose ends have two
    roots under the smaller one, then lets every node jump to its root."""
    parent = np.arange(n, dtype=np.int64)
    while a.size:
        ra, rb = parent[a], parent[b]
        split = ra != rb
        if not split.any():
            break
        a, b, ra, rb = a[split], b[split], ra[split], rb[split]
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
        while True:
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
    return parent


def cross(
    starts: np.ndarray, sizes: np.ndarray, u: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions (into ``members``) of every pair of a member of group ``u[e]`` and a member
    of group ``v[e]``, for every ``e``."""
    count = sizes[u] * sizes[v]
    total = int(count.sum())
    edge = np.repeat(np.arange(u.size), count)
    at = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    width = sizes[v][edge]
    return starts[u][edge] + at // width, starts[v][edge] + at % width


def within(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every pair ``x < y`` of members of one group, for every group."""
    big = np.flatnonzero(sizes > 1)
    s = sizes[big]
    # Member i of a group of size s pairs with the s - 1 - i after it.
    member_group = np.repeat(big, s)
    index = np.arange(int(s.sum())) - np.repeat(np.cumsum(s) - s, s)
    after = sizes[member_group] - 1 - index
    x = np.repeat(starts[member_group] + index, after)
    offset = np.arange(int(after.sum())) - np.repeat(np.cumsum(after) - after, after)
    return x, x + 1 + offset
