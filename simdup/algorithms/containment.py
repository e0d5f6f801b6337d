"""Which of many short token sequences (evaluation items) a longer one (a training row) contains.

Arrays in, arrays out: a sequence is its tokens' 64-bit hashes (``text.tokens``: one CJK
character or one word a token, folded), so whitespace and line breaks play no part, and an item
embedded anywhere in a longer row is found as well as a row that is the item.

**The rule.** Every item of at least ``k`` tokens is indexed by *all* its k-grams (not a sample,
not a Bloom filter): a dictionary of k-gram hashes to the (item, position) pairs that hold them,
kept as sorted arrays. A row's k-grams are all looked up; a hit is checked token by token
(the ``k`` token hashes of both sides are compared), so a hit is a k-gram the two really share.
An item's *coverage* in a row is the share of its tokens that lie inside at least one shared
k-gram; the row *contains* the item when the coverage is at least ``min_coverage``. An item
shorter than ``k`` tokens is matched whole: the row contains it when it holds all of its tokens
in a row (coverage 1); an item of fewer than ``min_tokens`` tokens is too short to be told from
a common phrase and is not indexed (the caller reports it). A k-gram held by more than
``max_items`` places (a template shared by a whole benchmark) is no evidence for any one of
them and gives no hits; the count of such k-grams is kept.

A lightly edited copy keeps most of its k-grams (an edit removes at most ``k`` of them, and the
tokens around it stay covered by the k-grams on either side), so its coverage stays high; an
unrelated row shares a common phrase here and there, far from half of an item.

**Short items: edit similarity.** That holds while the item is long beside ``k``: in an item of
20 tokens, two edits leave no run of 8 tokens, and an English sentence of 8 words with one
typo has no 8-gram left (issue 50: 48 of 60 edited items found). An item of at most
``max_edit_tokens`` tokens is also contained where some stretch of the row is within edit
distance ``d <= (1 - min_edit_similarity) * n`` of its ``n`` tokens (token substitutions,
insertions, deletions; the stretch is the best-aligned one, ``best_window``): its edit
similarity ``1 - d / n``. Candidates stay exact by pigeonhole: cut the item into
``d_max + 1`` pieces of at least ``q = n // (d_max + 1)`` tokens; ``d_max`` edits touch at most
``d_max`` pieces, so one piece, and one of its q-grams, is in the row unchanged. Every q-gram of
such an item is indexed (``edit_tables``), and every row holding one is aligned.

**Short items: letters.** A typo changes a letter, but the word is then another token: an
English sentence of 7 words with two typos is 5/7 alike by tokens and ~0.94 by letters (issue
50: 29 of 50 English sentences with 1-3 typos found by the rules above). An item of at most
``max_edit_tokens`` tokens that has words (not only CJK characters, whose letters are its
tokens) is also contained where a stretch of the row's *whole words* is within ``d`` letter
edits of it (``text.letters``: the words' folded letters, one separator between two words),
``d = min(max_letter_edits, floor((1 - min_letter_similarity) * letters))``; an edit is a
letter replaced, added or dropped, or two neighbours swapped (optimal string alignment: the
usual typo). Candidates stay exact by pigeonhole: ``d + 1`` disjoint pieces of the item's
letters, a letter between each two, so that any edit (a swap included) changes at most one; an
unchanged piece is in the row on a diagonal within ``d`` of the stretch's start. Only the
pieces are indexed (``letter_tables``; a piece held in more than ``max_items`` places excepted,
as for k-grams); a row holding one is aligned near it (``best_window``), first anywhere, then,
when that is close enough, along whole words (a stretch of whole words is never closer). An item
the token rules find is not sought again.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from ..native import speedups
from .winnowing import kgram_hashes

# Changes whenever the same tokens and settings could give another result.
# /2 (issue 50): short items are also contained by edit similarity (the stored items' tokens are
# unchanged, but a database names the rule it was built for, so one of /1 is rebuilt).
# /3 (issue 50): and by letter similarity (a database stores each item's letters).
CONTAINMENT_VERSION = "simdup-containment/3"
DEFAULT_K = 8
DEFAULT_MIN_COVERAGE = 0.5
DEFAULT_MIN_TOKENS = 4
DEFAULT_MAX_ITEMS = 64
# Chosen on the dev half of a set of short and long items (see docs/datasets.md, decon).
DEFAULT_MIN_EDIT_SIMILARITY = 0.8
DEFAULT_MAX_EDIT_TOKENS = 48
DEFAULT_MIN_LETTER_SIMILARITY = 0.9
DEFAULT_MAX_LETTER_EDITS = 6
# The letter rule indexes d + this many disjoint pieces of an item allowed d letter edits.
LETTER_PIECES_KEPT = 1
# The lengths a letter piece is rounded down to (shorter ones are kept as they are).
LETTER_GRAM_LENGTHS = (8, 12, 16, 24, 32)


@dataclass(frozen=True)
class ContainmentRule:
    """When a row contains an item: ``k`` (tokens a shared k-gram has), ``min_coverage`` (the
    share of the item's tokens inside shared k-grams), ``min_tokens`` (shorter items are not
    indexed), ``max_items`` (a k-gram held in more places of the items gives no hits);
    ``min_edit_similarity`` and ``max_edit_tokens``: an item of at most that many tokens is
    also contained by a stretch of the row at least that similar (0: not)."""

    k: int = DEFAULT_K
    min_coverage: float = DEFAULT_MIN_COVERAGE
    min_tokens: int = DEFAULT_MIN_TOKENS
    max_items: int = DEFAULT_MAX_ITEMS
    min_edit_similarity: float = DEFAULT_MIN_EDIT_SIMILARITY
    max_edit_tokens: int = DEFAULT_MAX_EDIT_TOKENS
    min_letter_similarity: float = DEFAULT_MIN_LETTER_SIMILARITY
    max_letter_edits: int = DEFAULT_MAX_LETTER_EDITS

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError("k must be at least 1")
        if not 0.0 < self.min_coverage <= 1.0:
            raise ValueError("min_coverage must be above 0 and at most 1")
        if not self.min_tokens >= 1:
            raise ValueError("min_tokens must be at least 1")
        if self.max_items < 1:
            raise ValueError("max_items must be at least 1")
        if not 0.0 < self.min_edit_similarity <= 1.0:
            raise ValueError("min_edit_similarity must be above 0 and at most 1")
        if self.max_edit_tokens < 0:
            raise ValueError("max_edit_tokens must be at least 0")
        if not 0.0 < self.min_letter_similarity <= 1.0:
            raise ValueError("min_letter_similarity must be above 0 and at most 1")
        if self.max_letter_edits < 0:
            raise ValueError("max_letter_edits must be at least 0")

    def max_edits(self, tokens: int) -> int:
        """Edits an item of ``tokens`` tokens may differ by and be contained by edit
        similarity; -1: the item is not judged so (too long, or too short to be indexed)."""
        if not self.min_tokens <= tokens <= self.max_edit_tokens:
            return -1
        return math.floor((1.0 - self.min_edit_similarity) * tokens + 1e-9)

    def edit_gram(self, tokens: int) -> int:
        """The q-gram length indexed for the edit rule: one piece of ``max_edits + 1``."""
        return max(1, tokens // (self.max_edits(tokens) + 1))

    def letter_edits(self, tokens: int, letters: int) -> int:
        """Letter edits an item of ``tokens`` tokens and ``letters`` letters may differ by and
        be contained by letter similarity (at most ``max_letter_edits``); -1: not judged so
        (too long or too short for the edit rule, or all CJK: its letters are its tokens)."""
        if self.max_edits(tokens) < 0 or letters <= tokens or self.max_letter_edits == 0:
            return -1
        return min(self.max_letter_edits,
                   math.floor((1.0 - self.min_letter_similarity) * letters + 1e-9))  # fmt: skip

    def letter_pieces(self, tokens: int, letters: int) -> int:
        """The disjoint pieces of letters indexed for the letter rule: d edits leave at least
        ``LETTER_PIECES_KEPT`` of ``d + LETTER_PIECES_KEPT`` unchanged."""
        return self.letter_edits(tokens, letters) + LETTER_PIECES_KEPT

    def letter_gram(self, tokens: int, letters: int) -> int:
        """The length of the letter rule's pieces: the longest that fit with a letter between
        each two, rounded down to one of a few lengths (``LETTER_GRAM_LENGTHS``; each length is
        one table to probe)."""
        pieces = self.letter_pieces(tokens, letters)
        longest = max(1, (letters - pieces + 1) // pieces)
        if longest < LETTER_GRAM_LENGTHS[0]:
            return longest
        return max(q for q in LETTER_GRAM_LENGTHS if q <= longest)

    def needed(self, tokens: int) -> int:
        """Tokens of an item of ``tokens`` tokens that must be covered."""
        if tokens < self.k:
            return tokens
        return max(self.k, math.ceil(self.min_coverage * tokens - 1e-9))

    def describe(self) -> dict[str, float | int | str]:
        return {
            "algorithm": CONTAINMENT_VERSION,
            "k": self.k,
            "min_coverage": self.min_coverage,
            "min_tokens": self.min_tokens,
            "max_items": self.max_items,
            "min_edit_similarity": self.min_edit_similarity,
            "max_edit_tokens": self.max_edit_tokens,
            "min_letter_similarity": self.min_letter_similarity,
            "max_letter_edits": self.max_letter_edits,
        }


@dataclass(frozen=True, slots=True)
class Span:
    """Tokens ``row_first..row_last`` of the row equal tokens ``item_first..item_last`` of
    the item (inclusive; one diagonal of shared k-grams)."""

    row_first: int
    row_last: int
    item_first: int
    item_last: int


SpanT = TypeVar("SpanT")


@dataclass(frozen=True, slots=True)
class Containment(Generic[SpanT]):
    """Item ``item`` is contained in a row: ``covered`` of its ``tokens`` tokens lie in shared
    k-grams, along ``spans``. The one record of an item found in a row; only the spans'
    coordinates change on the way out: tokens here (``Span``), the row's characters in a
    worker's answer (``rows.decon.worker``), characters of both in the report
    (``rows.decon.run``)."""

    item: int
    covered: int
    tokens: int
    spans: tuple[SpanT, ...]

    @property
    def coverage(self) -> float:
        return self.covered / self.tokens if self.tokens else 0.0


# The presence table (a first look that only says "maybe": a gram whose bit is set is then
# looked up exactly; one whose bit is clear is in no item) has a bit for each value of the
# grams' low bits: about 64 bits a key (1.5% of the other grams pass), at least 2**16 and at
# most 2**26 bits. Its size changes only the speed: 22,000 keys take 256 KB, which a
# processor's second-level cache holds.
_PRESENCE_MIN_BITS, _PRESENCE_MAX_BITS = 16, 26


@dataclass
class _Table:
    """The grams of one length: sorted hashes, the item and position of each, and the
    presence bits (``present``: bit ``v`` of the little-endian bit array is set when some key's
    low bits are ``v``)."""

    length: int
    keys: np.ndarray  # uint64, ascending
    item: np.ndarray  # int64
    pos: np.ndarray  # int64
    present: np.ndarray | None = None

    def __post_init__(self) -> None:
        bits = min(max(int(self.keys.size * 64).bit_length(), _PRESENCE_MIN_BITS),
                   _PRESENCE_MAX_BITS)  # fmt: skip
        low = (self.keys & np.uint64((1 << bits) - 1)).astype(np.int64)
        flags = np.zeros(1 << bits, dtype=bool)
        flags[low] = True
        self.present = np.packbits(flags, bitorder="little")


class ItemIndex:
    """All k-grams of many items (see the module's rule), to find the items a row contains."""

    def __init__(
        self, items: Sequence[np.ndarray], rule: ContainmentRule,
        letters: Sequence[np.ndarray] = (),
    ) -> None:  # fmt: skip
        """``items``: each item's token hashes; ``letters``: each item's letter hashes
        (``text.letters``), for the letter rule (none given: the rule is not used)."""
        self.rule = rule
        k = rule.k
        self.lengths = np.array([h.size for h in items], dtype=np.int64)
        self.offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.offsets[1:])
        self.flat = (
            np.concatenate([np.asarray(h, dtype=np.uint64) for h in items])
            if items
            else np.empty(0, np.uint64)
        )
        self.indexed = self.lengths >= rule.min_tokens
        self.common = 0  # distinct grams dropped: held in more than max_items places
        by_length: dict[int, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
        by_edit: dict[int, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
        for n, hashes in enumerate(items):
            size = int(hashes.size)
            if size < rule.min_tokens:
                continue
            hashes = np.asarray(hashes, dtype=np.uint64)
            for groups, length in ((by_length, min(k, size)),
                                   (by_edit, rule.edit_gram(size) if rule.max_edits(size) >= 0
                                    else 0)):  # fmt: skip
                if length == 0:
                    continue
                grams = kgram_hashes(hashes, length)
                gram_lists, owners, places = groups.setdefault(length, ([], [], []))
                gram_lists.append(grams)
                owners.append(np.full(grams.size, n, dtype=np.int64))
                places.append(np.arange(grams.size, dtype=np.int64))
        self.tables = self._tables(by_length)
        # The q-grams of the items judged by edit similarity: a hit there makes the row aligned.
        self.edit_tables = self._tables(by_edit)
        # The letters of the items judged by letter similarity, and their q-grams.
        self.letter_lengths = np.array([h.size for h in letters], dtype=np.int64)
        self.letter_offsets = np.zeros(len(letters) + 1, dtype=np.int64)
        np.cumsum(self.letter_lengths, out=self.letter_offsets[1:])
        self.letter_flat = (np.concatenate([np.asarray(h, np.uint64) for h in letters])
                            if letters else np.empty(0, np.uint64))  # fmt: skip
        by_letter: dict[int, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
        for n, hashes in enumerate(letters):
            if rule.letter_edits(int(self.lengths[n]), hashes.size) < 0:
                continue
            # Only disjoint pieces, not every q-gram, a letter between each two: an edit, a
            # swap of two neighbours included, changes at most one of them.
            length = rule.letter_gram(int(self.lengths[n]), hashes.size)
            count = rule.letter_pieces(int(self.lengths[n]), hashes.size)
            pieces = np.arange(count, dtype=np.int64) * (length + 1)
            grams = kgram_hashes(np.asarray(hashes, np.uint64), length)[pieces]
            gram_lists, owners, places = by_letter.setdefault(length, ([], [], []))
            gram_lists.append(grams)
            owners.append(np.full(grams.size, n, dtype=np.int64))
            places.append(pieces)
        self.letter_tables = self._tables(by_letter)
        # Each item's letter edits (-1: not judged by the letter rule), for ``near_groups``.
        self.letter_edits = np.array(
            [rule.letter_edits(int(self.lengths[n]), int(h.size)) for n, h in enumerate(letters)],
            dtype=np.int64,
        )

    def _tables(
        self, by_length: dict[int, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]]
    ) -> list[_Table]:
        tables: list[_Table] = []
        rule = self.rule
        for length in sorted(by_length, reverse=True):
            keys_l, owners_l, places_l = by_length[length]
            keys = np.concatenate(keys_l)
            owner = np.concatenate(owners_l)
            place = np.concatenate(places_l)
            order = np.argsort(keys, kind="stable")
            keys, owner, place = keys[order], owner[order], place[order]
            # A gram held in too many places (a template shared by many items) is no evidence
            # for any of them.
            _, count = np.unique(keys, return_counts=True)
            crowded = count > rule.max_items
            if crowded.any():
                self.common += int(crowded.sum())
                keep = np.repeat(~crowded, count)
                keys, owner, place = keys[keep], owner[keep], place[keep]
            tables.append(_Table(length, keys, owner, place))
        return tables

    def __len__(self) -> int:
        return int(self.lengths.size)

    def gram_hashes(self) -> dict[int, np.ndarray]:
        """The distinct gram hashes of each gram length (what a prefilter needs)."""
        grams: dict[int, list[np.ndarray]] = {}
        for t in [*self.tables, *self.edit_tables]:
            grams.setdefault(t.length, []).append(t.keys)
        return {length: np.unique(np.concatenate(keys)) for length, keys in grams.items()}

    def rows_with_hits(self, hashes: np.ndarray, row_of: np.ndarray) -> np.ndarray:
        """Of many rows' tokens laid end to end (``hashes``; ``row_of``: each token's row,
        ascending), the rows (ascending, distinct) holding a gram of some item (by hash; a
        gram across two rows counts for none): the rows worth ``contained``. One pass over a
        whole chunk of rows (``gram_rows``: native when built, else array operations)."""
        found = []
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        row_of = np.ascontiguousarray(row_of, dtype=np.int64)
        for table in [*self.tables, *self.edit_tables]:
            if hashes.size < table.length or table.keys.size == 0:
                continue
            assert table.present is not None
            rows = gram_rows(hashes, row_of, table.length, table.present, table.keys)
            if rows.size:
                found.append(rows)
        if not found:
            return np.empty(0, dtype=np.int64)
        if len(found) == 1:
            return found[0]
        return np.unique(np.concatenate(found))

    def hits(
        self, row: np.ndarray, *, edit: bool = False, letters: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every shared gram of the row (token hashes ``row``), checked token by token:
        arrays ``(item, item_pos, row_pos, length)`` (``gram_hits``, table by table; ``edit``:
        the q-grams of the edit rule; ``letters``: ``row`` is the row's letter hashes, and the
        q-grams of the letter rule are looked up)."""
        row = np.ascontiguousarray(row, dtype=np.uint64)
        out_item, out_ip, out_rp, out_len = [], [], [], []
        tables = self.letter_tables if letters else self.edit_tables if edit else self.tables
        flat, offsets = ((self.letter_flat, self.letter_offsets) if letters
                         else (self.flat, self.offsets))  # fmt: skip
        for table in tables:
            if row.size < table.length or table.keys.size == 0:
                continue
            item, ip, rp = gram_hits(row, table, flat, offsets)
            if item.size == 0:
                continue
            out_item.append(item)
            out_ip.append(ip)
            out_rp.append(rp)
            out_len.append(np.full(item.size, table.length, dtype=np.int64))
        if not out_item:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, empty, empty
        return (np.concatenate(out_item), np.concatenate(out_ip), np.concatenate(out_rp),
                np.concatenate(out_len))  # fmt: skip

    def contained(self, row: np.ndarray) -> list[Containment[Span]]:
        """The items the row (token hashes) contains by the k-gram and edit rules, by item
        number (``letter_similar`` adds the letter rule's)."""
        row = np.ascontiguousarray(row, dtype=np.uint64)
        found = self._covered(row)
        if self.edit_tables:
            known = {c.item for c in found}
            found += self._similar(row, known)
            found.sort(key=lambda c: c.item)
        return found

    def letter_similar(
        self, letters: np.ndarray, cuts: tuple[np.ndarray, np.ndarray], known: set[int]
    ) -> list[Containment[Span]]:
        """The items (not in ``known``: found already) a stretch of the row's whole words is
        within their letter edit distance of (the letter rule; ``letters``: the row's letter
        hashes; ``cuts``: where a stretch of them may start and end, ``text.letters``), by
        item number, each span in the row's *letters* and the item's tokens."""
        if not self.letter_tables:
            return []
        row = np.ascontiguousarray(letters, np.uint64)
        return self._similar(row, known, letters=True, cuts=cuts)

    def _similar(
        self, row: np.ndarray, known: set[int], *, letters: bool = False,
        cuts: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> list[Containment[Span]]:  # fmt: skip
        """The items (not in ``known``) a stretch of the row is within their edit distance of
        (the edit rule; ``letters``: the letter rule, ``row`` being letter hashes), with the
        stretch as their one span (in the row's letters for the letter rule, the item's
        tokens either way)."""
        item, ip, rp, _ = self.hits(row, edit=True, letters=letters)
        found: list[Containment[Span]] = []
        for n, lo, hi in _groups(item, ip, rp):
            if n in known:
                continue
            got = self.similar_stretch(n, row, ip[lo:hi], rp[lo:hi], letters=letters, cuts=cuts)
            if got is not None:
                found.append(got)
        return found

    def similar_stretch(
        self, n: int, row: np.ndarray, ip: np.ndarray, rp: np.ndarray, *, letters: bool,
        cuts: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> Containment[Span] | None:  # fmt: skip
        """Item ``n`` in the row (token hashes, or ``letters``: letter hashes) by the edit or
        the letter rule, from its hits there (``ip``/``rp``: item and row positions of the
        grams of that rule's table it shares), or None."""
        tokens = int(self.lengths[n])
        if letters:
            size = int(self.letter_lengths[n])
            edits = self.rule.letter_edits(tokens, size)
            mine = self.letter_flat[self.letter_offsets[n] : self.letter_offsets[n + 1]]
            needed = LETTER_PIECES_KEPT  # of its disjoint pieces (all that is indexed)
        else:
            size = tokens
            edits = self.rule.max_edits(tokens)
            mine = self.flat[self.offsets[n] : self.offsets[n + 1]]
            # Count filter: d edits leave at least n + 1 - q * (d + 1) of the item's
            # q-grams unchanged (each edit breaks at most q of them).
            needed = tokens + 1 - self.rule.edit_gram(tokens) * (edits + 1)
        best = _closest_stretch(mine, row, ip, rp, edits, needed, cuts, swaps=letters)
        if best is None:
            return None
        distance, first, last = best
        # The share of the item matched, counted in its tokens (the letter rule: the letters'
        # similarity as tokens, at least one token short of all when any differ).
        covered = size - distance if not letters else min(
            math.floor(tokens * (size - distance) / size + 1e-9),
            tokens - (distance > 0))  # fmt: skip
        return Containment(n, covered, tokens, (Span(first, last, 0, tokens - 1),))

    def near_letter_groups(
        self, hashes: np.ndarray, first: np.ndarray, hit_row: np.ndarray, item: np.ndarray,
        ip: np.ndarray, rp: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """Of the letter rule's hits in many rows (``letter_hits``; ``first``: where each row's
        letters start in ``hashes``, and one past the last; ``hit_row``: each hit's row), the
        first hit of each (row, item) run whose item is within its letter edits of a stretch
        of the row near them, the stretch starting and ending anywhere (``near_groups``):
        only those can be within them along whole words."""
        return near_groups(hashes, first, hit_row, item, ip, rp, self.letter_flat,
                           self.letter_offsets, self.letter_edits)  # fmt: skip

    def letter_hits(
        self, hashes: np.ndarray, row_of: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Of many rows' letter hashes laid end to end (``row_of``: each one's row,
        ascending), the letter rule's pieces they hold, checked letter by letter: arrays
        ``(item, item_pos, pos)`` (``pos`` in ``hashes``; a piece across two rows is none),
        by row, item and position: what ``hits(..., letters=True)`` gives each row, in one
        probe of them all."""
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        row_of = np.asarray(row_of, dtype=np.int64)
        item, ip, rp, length = self.hits(hashes, letters=True)
        inside = row_of[rp] == row_of[rp + length - 1]
        item, ip, rp = item[inside], ip[inside], rp[inside]
        order = np.lexsort((rp, item, row_of[rp]))
        return item[order], ip[order], rp[order]

    def _covered(self, row: np.ndarray) -> list[Containment[Span]]:
        """The items the row contains by k-gram coverage."""
        item, ip, rp, length = self.hits(row)
        if item.size == 0:
            return []
        found: list[Containment[Span]] = []
        order = np.lexsort((ip, item))
        item, ip, rp, length = item[order], ip[order], rp[order], length[order]
        bounds = (np.flatnonzero(np.diff(item)) + 1).tolist()
        for lo, hi in zip([0, *bounds], [*bounds, item.size], strict=True):
            n = int(item[lo])
            tokens = int(self.lengths[n])
            needed = self.rule.needed(tokens)
            g = int(length[lo])
            if (hi - lo) + g - 1 < needed:  # even if every hit were one run
                continue
            # The tokens inside the union of the grams [ip, ip + g) (ip ascending): each gram
            # adds the tokens before the next one starts, at most g; the last adds g.
            count = int(np.minimum(np.diff(ip[lo:hi]), g).sum()) + g
            if count < needed:
                continue
            found.append(Containment(n, count, tokens, _spans(ip[lo:hi], rp[lo:hi], g)))
        return found


def _groups(
    item: np.ndarray, ip: np.ndarray, rp: np.ndarray
) -> Iterator[tuple[int, int, int]]:
    """The hits of each item (``item``, ``ip``, ``rp`` sorted in place by item, then row
    position): ``(item, lo, hi)``, its hits being ``lo:hi``."""
    if item.size == 0:
        return
    order = np.lexsort((rp, item))
    item[:], ip[:], rp[:] = item[order], ip[order], rp[order]
    yield from item_runs(item)


def item_runs(item: np.ndarray) -> list[tuple[int, int, int]]:
    """``(item, lo, hi)`` for each run of one item in ``item`` (hits grouped by item)."""
    if item.size == 0:
        return []
    bounds = (np.flatnonzero(np.diff(item)) + 1).tolist()
    return [(int(item[lo]), lo, hi)
            for lo, hi in zip([0, *bounds], [*bounds, item.size], strict=True)]  # fmt: skip


def _closest_stretch(
    item: np.ndarray, row: np.ndarray, ip: np.ndarray, rp: np.ndarray, edits: int,
    needed: int, cuts: tuple[np.ndarray, np.ndarray] | None = None, *, swaps: bool = False,
) -> tuple[int, int, int] | None:  # fmt: skip
    """``best_window`` of ``item`` in ``row`` (within ``cuts``; ``swaps`` as there) around its
    q-gram hits
    (``ip``/``rp``: item and row positions of each), or None when the hits rule it out: a
    stretch within the edits keeps at least ``needed`` of the grams indexed unchanged."""
    n = int(item.size)
    # Within d edits, every unchanged q-gram of the item is on a diagonal (row minus item
    # position) within d of the stretch's start: hits further apart are other stretches.
    # (Few hits an item: lists are faster than arrays here.)
    diagonals = sorted((rp - ip).tolist())
    bands: list[tuple[int, int, int]] = []  # first and last diagonal, hits
    for d in diagonals:
        if bands and d - bands[-1][1] <= 2 * edits:
            bands[-1] = (bands[-1][0], d, bands[-1][2] + 1)
        else:
            bands.append((d, d, 1))
    best: tuple[int, int, int] | None = None
    for low, high, count in bands:
        if count < needed:
            continue
        start = max(0, low - edits)
        stop = min(row.size, high + n + edits)
        window = None if cuts is None else (cuts[0][start : stop + 1], cuts[1][start : stop + 1])
        found = best_window(item, row[start:stop], edits, window, swaps=swaps)
        if found is not None and (best is None or found[0] < best[0]):
            best = (found[0], start + found[1], start + found[2])
    return best


def near_groups(
    hashes: np.ndarray, first: np.ndarray, hit_row: np.ndarray, item: np.ndarray,
    ip: np.ndarray, rp: np.ndarray, flat: np.ndarray, offsets: np.ndarray, edits: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``ItemIndex.near_letter_groups`` over arrays (``flat``/``offsets``: the items' hashes end
    to end; ``edits``: each item's, -1 for none): the first hit of each passing run, int64.
    Native when the extension is built, else ``near_groups_python``."""
    first, hit_row, item, ip, rp, offsets, edits = (
        np.ascontiguousarray(a, np.int64) for a in (first, hit_row, item, ip, rp, offsets, edits)
    )
    hashes = np.ascontiguousarray(hashes, np.uint64)
    flat = np.ascontiguousarray(flat, np.uint64)
    if speedups is None:
        return near_groups_python(hashes, first, hit_row, item, ip, rp, flat, offsets, edits)
    found = speedups.near_groups(hashes, first, hit_row, item, ip, rp, flat, offsets, edits)
    return np.frombuffer(found, np.int64)


def near_groups_python(
    hashes: np.ndarray, first: np.ndarray, hit_row: np.ndarray, item: np.ndarray,
    ip: np.ndarray, rp: np.ndarray, flat: np.ndarray, offsets: np.ndarray, edits: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``near_groups`` one run at a time (the native pass's twin)."""
    passing = []
    runs = np.flatnonzero((np.diff(hit_row) != 0) | (np.diff(item) != 0)) + 1
    for lo, hi in zip([0, *runs.tolist()], [*runs.tolist(), item.size], strict=True):
        if lo == hi:
            continue
        r, n = int(hit_row[lo]), int(item[lo])
        e = int(edits[n])
        if e < 0 or offsets[n + 1] == offsets[n]:
            continue
        start = int(first[r])
        row = hashes[start : int(first[r + 1])]
        mine = flat[offsets[n] : offsets[n + 1]]
        if _closest_stretch(mine, row, ip[lo:hi], rp[lo:hi] - start, e, 1,
                            swaps=True) is not None:  # fmt: skip
            passing.append(lo)
    return np.array(passing, dtype=np.int64)


def best_window(
    item: np.ndarray, row: np.ndarray, max_edits: int,
    cuts: tuple[np.ndarray, np.ndarray] | None = None, *, swaps: bool = False,
) -> tuple[int, int, int] | None:  # fmt: skip
    """The stretch of ``row`` closest to ``item`` by edit distance (token substitutions,
    insertions, deletions, and with ``swaps`` two neighbours swapped, each one edit: optimal
    string alignment; the stretch starts and ends anywhere, or with ``cuts`` (``may_start``,
    ``may_end``: bools for each of the row's ``m + 1`` boundaries) only where they allow):
    ``(distance, first, last)`` (tokens ``first..last`` of the row), or None when every
    stretch is more than ``max_edits`` away. Native when the extension is built, else
    ``best_window_python``."""
    if speedups is None:
        return best_window_python(item, row, max_edits, cuts, swaps=swaps)
    may_start, may_end = cuts if cuts is not None else (None, None)
    found: tuple[int, int, int] | None = speedups.best_window(
        np.ascontiguousarray(item, np.uint64), np.ascontiguousarray(row, np.uint64),
        max_edits,
        None if may_start is None else np.ascontiguousarray(may_start, np.uint8),
        None if may_end is None else np.ascontiguousarray(may_end, np.uint8), swaps,
    )  # fmt: skip
    return found


def best_window_python(
    item: np.ndarray, row: np.ndarray, max_edits: int,
    cuts: tuple[np.ndarray, np.ndarray] | None = None, *, swaps: bool = False,
) -> tuple[int, int, int] | None:  # fmt: skip
    """``best_window`` in array operations (the native pass's twin): one row of the
    edit-distance table per item token, as array operations over the row (the row's own
    insertions are a running minimum)."""
    item = np.asarray(item, dtype=np.uint64)
    row = np.asarray(row, dtype=np.uint64)
    n, m = int(item.size), int(row.size)
    if max_edits < 0:
        return None
    if m == 0 or n == 0:
        return None
    may_start, may_end = cuts if cuts is not None else (None, None)
    end = _last_row(item, row, max_edits, may_start=may_start, may_end=may_end, swaps=swaps)
    if end is None:
        return None
    distance, stop = end
    # The start: the same table over both reversed, from the stretch's end (fixed) backwards.
    back_end = None if may_start is None else may_start[: stop + 1][::-1]
    back = _last_row(item[::-1], row[:stop][::-1], max_edits, anywhere=False, swaps=swaps,
                     may_end=back_end)  # fmt: skip
    assert back is not None and back[0] == distance
    first = stop - back[1]
    return distance, first, max(first, stop - 1)


# Above any distance: a boundary where a stretch may not start or end.
_FAR = 1 << 40


def _last_row(
    item: np.ndarray, row: np.ndarray, max_edits: int, *, anywhere: bool = True,
    may_start: np.ndarray | None = None, may_end: np.ndarray | None = None, swaps: bool = False,
) -> tuple[int, int] | None:  # fmt: skip
    """The edit distance of ``item`` to the best stretch of ``row`` ending anywhere (or where
    ``may_end`` allows) and where the first such stretch ends (tokens before ``end``); None
    when above ``max_edits``. The stretch starts anywhere (or where ``may_start`` allows), or
    (not ``anywhere``) at the row's first token."""
    m = int(row.size)
    at = np.arange(m + 1, dtype=np.int64)
    if not anywhere:
        previous = at.copy()
    elif may_start is None:  # starting anywhere: the row's tokens before it cost nothing
        previous = np.zeros(m + 1, dtype=np.int64)
    else:  # from the last boundary allowed, the row's tokens since then inserted
        previous = np.minimum.accumulate(np.where(may_start, -at, _FAR)) + at
    step = np.empty(m + 1, dtype=np.int64)
    older = previous
    tokens = item.tolist()
    for i, token in enumerate(tokens, start=1):
        step[0] = i if not anywhere or may_start is None or may_start[0] else _FAR
        np.minimum(previous[:-1] + (row != np.uint64(token)), previous[1:] + 1, out=step[1:])
        if swaps and i >= 2 and m >= 2:  # row[j-2], row[j-1] are this token and the last, swapped
            swapped = (row[:-1] == np.uint64(token)) & (row[1:] == np.uint64(tokens[i - 2]))
            np.minimum(step[2:], np.where(swapped, older[:-2] + 1, _FAR), out=step[2:])
        older = previous
        previous = np.minimum.accumulate(step - at) + at
        if int(previous.min()) > max_edits:  # the table's minimum never falls again
            return None
    if may_end is not None:
        previous = np.where(may_end, previous, _FAR)
    end = int(np.argmin(previous))
    if int(previous[end]) > max_edits:
        return None
    return int(previous[end]), end


def gram_rows(
    hashes: np.ndarray, rows: np.ndarray, k: int, present: np.ndarray, keys: np.ndarray
) -> np.ndarray:
    """Of many rows' token hashes laid end to end (``rows``: each token's row, ascending), the
    rows (ascending, distinct, int64) holding a k-gram (``kgram_hashes``) that is one of
    ``keys`` (ascending) and lies within the row; ``present``: a little-endian bit array
    (uint8, a power of two of them), bit ``v`` set where some key's low bits are ``v``.
    Native when the extension is built, else ``gram_rows_python``."""
    if speedups is None:
        return gram_rows_python(hashes, rows, k, present, keys)
    return np.frombuffer(speedups.gram_rows(hashes, rows, k, present, keys), np.int64)


def gram_rows_python(
    hashes: np.ndarray, rows: np.ndarray, k: int, present: np.ndarray, keys: np.ndarray
) -> np.ndarray:
    """``gram_rows`` in array operations (the native probe's twin)."""
    hashes = np.asarray(hashes, dtype=np.uint64)
    rows = np.asarray(rows, dtype=np.int64)
    if keys.size == 0 or hashes.size < k:
        return np.empty(0, dtype=np.int64)
    grams = kgram_hashes(hashes, k)
    low = (grams & np.uint64(8 * present.size - 1)).astype(np.int64)
    maybe = np.flatnonzero((present[low >> 3] >> (low & 7).astype(np.uint8)) & 1)
    at = np.searchsorted(keys, grams[maybe])
    at[at == keys.size] = 0
    hit = maybe[keys[at] == grams[maybe]]
    inside = rows[hit] == rows[hit + k - 1]
    return np.unique(rows[hit[inside]])


def gram_hits(
    row: np.ndarray, table: _Table, flat: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grams of one row (token hashes) that are grams of ``table``, each checked token by
    token against its item (``flat``: every item's token hashes end to end, item ``n`` from
    ``offsets[n]``): arrays ``(item, item_pos, row_pos)`` (int64), by row position, then by
    the table's order. Native when the extension is built, else ``gram_hits_python``."""
    if speedups is None:
        return gram_hits_python(row, table, flat, offsets)
    item, ip, rp = speedups.gram_hits(
        row, table.length, table.present, table.keys, table.item, table.pos, flat, offsets
    )
    return np.frombuffer(item, np.int64), np.frombuffer(ip, np.int64), np.frombuffer(rp, np.int64)


def gram_hits_python(
    row: np.ndarray, table: _Table, flat: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gram_hits`` in array operations (the native lookup's twin)."""
    row = np.asarray(row, dtype=np.uint64)
    empty = np.empty(0, dtype=np.int64)
    if row.size < table.length or table.keys.size == 0:
        return empty, empty, empty
    grams = kgram_hashes(row, table.length)
    lo = np.searchsorted(table.keys, grams, "left")
    hi = np.searchsorted(table.keys, grams, "right")
    count = hi - lo
    total = int(count.sum())
    if total == 0:
        return empty, empty, empty
    rp = np.repeat(np.arange(grams.size, dtype=np.int64), count)
    at = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(total)
    item, ip = table.item[at], table.pos[at]
    # Checked token by token: a hit is a gram the two sides really share.
    base = offsets[item] + ip
    same = np.ones(total, dtype=bool)
    for j in range(table.length):
        same &= flat[base + j] == row[rp + j]
    return item[same].astype(np.int64), ip[same].astype(np.int64), rp[same]


def _spans(ip: np.ndarray, rp: np.ndarray, g: int) -> tuple[Span, ...]:
    """Hits on one diagonal whose grams overlap or touch, as spans, by item position."""
    diagonal = rp - ip
    order = np.lexsort((ip, diagonal))
    ip, diagonal = ip[order], diagonal[order]
    breaks = (np.flatnonzero((np.diff(diagonal) != 0) | (np.diff(ip) > g)) + 1).tolist()
    spans = []
    for lo, hi in zip([0, *breaks], [*breaks, ip.size], strict=True):
        first, last = int(ip[lo]), int(ip[hi - 1]) + g - 1
        d = int(diagonal[lo])
        spans.append(Span(first + d, last + d, first, last))
    spans.sort(key=lambda s: (s.item_first, s.row_first))
    return tuple(spans)
