"""Copied fragments between two token sequences, down to one sentence.

Arrays in, arrays out: a sequence is its tokens' 64-bit hashes (``hashing.token_hash`` of the
folded token) and their weights (how much of a word each token counts for).

Three steps, each on arrays:

1. **Candidates** (``SourceIndex``): every source keeps only its winnowed k-gram fingerprints
   (``simdup.algorithms.winnowing``), and a checked document looks all of its k-grams up, so
   any run of at least ``guaranteed_run`` tokens it shares with a source makes that source a
   candidate: the guarantee is the algorithm's, not a sample's.
2. **Seeds and runs** (``align``): with a candidate, all k-grams of both sides are matched
   (a k-gram found more than ``max_occurrences`` times in the source is boilerplate and gives
   no seed), and seeds on one diagonal one token apart become one exact run.
3. **Fragments**: runs are chained in document order while the tokens between two runs are at
   most ``gap`` on each side (an edited word, a dropped comma-clause), so a lightly edited
   sentence is one fragment, not three. ``FragmentRule.judge`` then keeps a fragment when its
   matched tokens weigh at least ``min_match`` words (a CJK character counts 8/13 of a word)
   and at least half of its span is matched, and the longest of overlapping fragments of one
   source wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..native import speedups
from .winnowing import guaranteed_run, kgram_hashes, winnow

# Seeds are k-grams of this many tokens: short enough that a sentence with an edit every few
# words keeps seeds, long enough that unrelated texts share few.
KGRAM = 4


@dataclass(frozen=True)
class FragmentRule:
    """What counts as a copied fragment. ``min_match``: the matched tokens must weigh at least
    this many words (13 CJK characters are 8 words); ``gap``: tokens that may differ between
    two matched runs of one fragment, on each side; ``min_density``: the share of a
    fragment's tokens (on the checked side) that are matched."""

    min_match: float = 8.0
    gap: int = 4
    min_density: float = 0.5
    kgram: int = KGRAM
    max_occurrences: int = 8

    def __post_init__(self) -> None:
        if self.min_match < self.kgram:
            raise ConfigError(f"min_match must be at least {self.kgram} words")
        if self.gap < 0:
            raise ConfigError("gap must be at least 0")
        if not 0.0 < self.min_density <= 1.0:
            raise ConfigError("min_density must be above 0 and at most 1")

    @property
    def window(self) -> int:
        """The winnowing window: a shared run of ``min_match`` words of CJK characters
        (the shorter, in tokens: 8 Latin words) is sure to be found."""
        return max(1, int(self.min_match) - self.kgram + 1)

    def describe(self) -> dict[str, float | int]:
        return {
            "min_match_words": int(self.min_match)
            if float(self.min_match).is_integer()
            else self.min_match,
            "min_match_cjk_chars": round(self.min_match * 13 / 8),
            "gap": self.gap,
            "min_density": self.min_density,
            "kgram": self.kgram,
            "winnow_window": self.window,
            "guaranteed_run": guaranteed_run(self.kgram, self.window),
        }

    def judge(self, weights: np.ndarray, first: int, last: int, matched: np.ndarray) -> bool:
        """Whether tokens ``first..last`` of the checked side (``weights``: every token's, in
        words), of which ``matched`` (bool over them) are in matched runs, are a copied
        fragment."""
        weights = weights[first : last + 1]
        if float(weights[matched].sum()) < self.min_match - 1e-9:
            return False
        return float(matched.mean()) >= self.min_density


@dataclass(frozen=True, slots=True)
class Match:
    """One copied fragment: tokens ``first..last`` (inclusive) of the checked side and
    ``source_first..source_last`` of the source, and ``matched`` tokens of the checked side
    inside exact runs."""

    first: int
    last: int
    source_first: int
    source_last: int
    matched: int
    # How it was copied: "verbatim" (exact runs), or "reworded" or "summarised" (found by
    # ``sentences``).
    how: str = "verbatim"


def _seeds(query: np.ndarray, source: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) with ``query[i] == source[j]``, j among at most ``limit`` places."""
    order = np.argsort(source, kind="stable")
    ordered = source[order]
    lo = np.searchsorted(ordered, query, "left")
    hi = np.searchsorted(ordered, query, "right")
    count = hi - lo
    count[count > limit] = 0
    total = int(count.sum())
    if total == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    q = np.repeat(np.arange(query.size, dtype=np.int64), count)
    start = np.repeat(lo - np.cumsum(count) + count, count)
    s = order[start + np.arange(total)]
    return q, s.astype(np.int64)


def _runs(q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Seeds on one diagonal one token apart as runs: rows (q0, q1, s0) sorted by q0."""
    diagonal = s - q
    order = np.lexsort((q, diagonal))
    q, diagonal = q[order], diagonal[order]
    breaks = np.flatnonzero((np.diff(diagonal) != 0) | (np.diff(q) != 1)) + 1
    begins = np.r_[0, breaks]
    ends = np.r_[breaks, q.size] - 1
    runs = np.stack([q[begins], q[ends], q[begins] + diagonal[begins]], axis=1)
    return runs[np.argsort(runs[:, 0], kind="stable")]


def _clustered(runs: np.ndarray, k: int, reach: int, min_match: float) -> np.ndarray:
    """The runs that may belong to a fragment: runs no more than ``reach`` tokens apart (on
    the checked side, whatever the source side) form a cluster, which holds every chain its
    runs could make; a cluster whose runs hold fewer than ``min_match`` tokens in all (a token
    weighs at most one word) cannot make a fragment, and its runs go (most seeds of two
    unrelated texts are a common phrase here and there)."""
    if runs.shape[0] == 0:
        return runs
    ends = runs[:, 1] + k - 1
    lengths = runs[:, 1] - runs[:, 0] + k
    furthest = np.maximum.accumulate(ends)
    new = np.ones(runs.shape[0], dtype=bool)
    new[1:] = runs[1:, 0] - furthest[:-1] > reach
    cluster = np.cumsum(new) - 1
    held = np.bincount(cluster, weights=lengths)
    kept: np.ndarray = runs[held[cluster] >= min_match - 1e-9]
    return kept


def fragment_chains_python(
    qk: np.ndarray, sk: np.ndarray, k: int, max_occurrences: int, reach: int, min_match: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact runs of the k-gram sequences ``qk`` (the checked side) and ``sk`` (the
    source) and the chains they make, as ``align`` uses them (natively ``fragment_chains``):

    - seeds: every ``(i, j)`` with ``qk[i] == sk[j]``, a k-gram found more than
      ``max_occurrences`` times in ``sk`` giving none;
    - runs: seeds on one diagonal one apart, rows ``(q0, q1, s0)`` by ``q0`` (then diagonal),
      those of a cluster (runs at most ``reach`` tokens apart on the checked side) holding
      fewer than ``min_match`` tokens left out;
    - chains: each run in turn joins the open chain it continues at the least cost (how far
      it is off the chain's diagonal, plus the tokens skipped; the first such chain on a tie),
      else starts one; a chain more than ``reach`` tokens behind is closed. Rows
      ``(q_first, q_end, s_first, s_end, tokens in its runs)``, ends the last tokens.

    Returned flat, as ``int64``: runs (3 a row), chains (5 a row), and each run's chain."""
    empty = np.empty(0, dtype=np.int64)
    if qk.size == 0 or sk.size == 0:
        return empty, empty, empty
    q, s = _seeds(qk, sk, max_occurrences)
    if q.size == 0:
        return empty, empty, empty
    runs = _clustered(_runs(q, s), k, reach, min_match)
    chains: list[list[int]] = []
    chain_of: list[int] = []
    open_chains: list[int] = []
    for q0, q1, s0 in runs.tolist():
        q_end, s_end = q1 + k - 1, s0 + (q1 - q0) + k - 1
        best, best_cost = -1, 0
        closed = False
        for c in open_chains:
            chain = chains[c]
            dq = q0 - chain[1]
            if dq > reach:
                closed = True  # too far behind: closed for good
                continue
            ds = s0 - chain[3]
            if s0 <= chain[2] or not (-k < ds <= reach) or dq <= -k:
                continue
            cost = abs(dq - ds) + max(dq, 0)
            if best < 0 or cost < best_cost:
                best, best_cost = c, cost
        if closed:
            open_chains = [c for c in open_chains if q0 - chains[c][1] <= reach]
        if best >= 0:
            chain = chains[best]
            chain[1] = max(chain[1], q_end)
            chain[3] = max(chain[3], s_end)
            chain[4] += q1 - q0 + k
            chain_of.append(best)
        else:
            chains.append([q0, q_end, s0, s_end, q1 - q0 + k])
            chain_of.append(len(chains) - 1)
            open_chains.append(len(chains) - 1)
    return (
        runs.astype(np.int64).ravel(),
        np.array(chains, dtype=np.int64).ravel(),
        np.array(chain_of, dtype=np.int64),
    )


def fragment_chains(
    qk: np.ndarray, sk: np.ndarray, k: int, max_occurrences: int, reach: int, min_match: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fragment_chains_python``, natively when the extension is built."""
    if speedups is None:
        return fragment_chains_python(qk, sk, k, max_occurrences, reach, min_match)
    runs, chains, chain_of = speedups.fragment_chains(
        np.ascontiguousarray(qk, dtype=np.uint64),
        np.ascontiguousarray(sk, dtype=np.uint64),
        k, max_occurrences, reach, min_match,
    )  # fmt: skip
    return (
        np.frombuffer(runs, dtype=np.int64),
        np.frombuffer(chains, dtype=np.int64),
        np.frombuffer(chain_of, dtype=np.int64),
    )


def align(
    query: np.ndarray,
    weights: np.ndarray,
    source: np.ndarray,
    rule: FragmentRule,
    kgrams: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[Match]:
    """The copied fragments of the token sequence ``query`` (its tokens' hashes and weights)
    found in ``source`` (hashes), ordered by their place in the query, overlapping ones
    resolved to the longest. ``kgrams``: the two sequences' ``kgram_hashes``, when the caller
    has them."""
    k = rule.kgram
    qk, sk = kgrams or (kgram_hashes(query, k), kgram_hashes(source, k))
    if qk.size == 0 or sk.size == 0:
        return []
    reach = rule.gap + 1  # tokens between two runs, plus one
    found_runs, found_chains, chain_of = fragment_chains(
        qk, sk, k, rule.max_occurrences, reach, float(rule.min_match)
    )
    if not found_runs.size:
        return []
    runs = found_runs.reshape(-1, 3)
    # Chains: [q_first, q_end, s_first, s_end, tokens in its runs]; ends are the last tokens.
    chains: list[list[int]] = found_chains.reshape(-1, 5).tolist()
    members: list[list[int]] = [[] for _ in chains]
    for row, c in enumerate(chain_of.tolist()):
        members[c].append(row)
    bridges = _bridged(chains, members, query, source, rule.gap)
    found: list[Match] = []
    for chain, rows, equal in zip(chains, members, bridges, strict=True):
        if chain[4] < rule.min_match - 1e-9:
            continue  # fewer tokens in its runs than a fragment's words: judged already
        first, last = chain[0], chain[1]
        matched = np.zeros(last - first + 1, dtype=bool)
        for row in rows:
            q0, q1, _ = runs[row]
            matched[q0 - first : q1 - first + k] = True
        for a, b in equal:
            matched[a - first : b - first] = True
        if rule.judge(weights, first, last, matched):
            found.append(Match(first, last, chain[2], chain[3], int(matched.sum())))
    return longest_first(found)


# Longest stretch of tokens between two chains (on either side) that ``_bridged`` compares.
MAX_BRIDGE = 256
# Earlier chains a chain may be bridged to (a phrase matched elsewhere in the source can make a
# short chain between two parts of one copy).
_BRIDGE_BACK = 4


def _bridged(
    chains: list[list[int]], members: list[list[int]], query: np.ndarray, source: np.ndarray,
    gap: int,
) -> list[list[tuple[int, int]]]:  # fmt: skip
    """Chains joined where the tokens between them differ in at most ``gap`` places on each
    side, however many tokens lie between: tokens that are the same on both sides but gave no
    seed (their k-grams are too frequent in the source: a run of image links, a repeated table
    row) are not a difference. Joins ``chains`` (and ``members``) in place; the chains that
    are left hold ``[0, 0, 0, 0, 0]``-free rows, and each chain's list of query ranges
    ``(start, end)`` whose tokens are equal to the source's (matched, beside its runs)."""
    from rapidfuzz.distance import Indel

    equal: list[list[tuple[int, int]]] = [[] for _ in chains]
    if len(chains) < 2:
        return equal
    order = sorted(range(len(chains)), key=lambda c: (chains[c][0], chains[c][2]))
    alive: list[int] = []
    dead: set[int] = set()
    for c in order:
        q0, s0 = chains[c][0], chains[c][2]
        best, best_cost = -1, gap + 1
        for p in alive[-_BRIDGE_BACK:]:
            prev = chains[p]
            q_gap, s_gap = q0 - prev[1] - 1, s0 - prev[3] - 1
            if q_gap < 0 or s_gap < 0 or max(q_gap, s_gap) > MAX_BRIDGE:
                continue
            if abs(q_gap - s_gap) > gap:
                continue
            cost = _bridge_cost(query[prev[1] + 1 : q0], source[prev[3] + 1 : s0])
            if cost < best_cost:
                best, best_cost = p, cost
        if best < 0:
            alive.append(c)
            continue
        prev, chain = chains[best], chains[c]
        q_from, s_from = prev[1] + 1, prev[3] + 1
        a, b = query[q_from:q0].tolist(), source[s_from:s0].tolist()
        for op in Indel.opcodes(a, b):
            if op.tag == "equal":
                equal[best].append((q_from + op.src_start, q_from + op.src_end))
                prev[4] += op.src_end - op.src_start
        prev[1], prev[3] = max(prev[1], chain[1]), max(prev[3], chain[3])
        prev[4] += chain[4]
        members[best].extend(members[c])
        equal[best].extend(equal[c])
        members[c], equal[c] = [], []
        dead.add(c)
    for c in dead:
        chains[c][4] = 0  # joined into another: judged there
    return equal


def longest_first(found: list[Match]) -> list[Match]:
    """Of fragments overlapping on the checked side, the one with more matched tokens; the
    result in query order."""
    kept: list[Match] = []
    taken = np.zeros(0, dtype=bool)
    if found:
        taken = np.zeros(max(m.last for m in found) + 1, dtype=bool)
    for match in sorted(found, key=lambda m: (-m.matched, m.first)):
        span = taken[match.first : match.last + 1]
        if span.mean() > 0.5:
            continue
        span[:] = True
        kept.append(match)
    return sorted(kept, key=lambda m: (m.first, m.source_first))


def fingerprints(hashes: np.ndarray, rule: FragmentRule) -> np.ndarray:
    """The distinct winnowed k-gram hashes of a token sequence (``uint64``, ascending): what
    an index keeps of a source."""
    kgrams = kgram_hashes(hashes, rule.kgram)
    found: np.ndarray = np.unique(kgrams[winnow(kgrams, rule.window)])
    return found


def placed_fingerprints(hashes: np.ndarray, rule: FragmentRule) -> tuple[np.ndarray, np.ndarray]:
    """``fingerprints`` of a token sequence and where each first starts (token positions)."""
    kgrams = kgram_hashes(hashes, rule.kgram)
    chosen = winnow(kgrams, rule.window)
    found, first = np.unique(kgrams[chosen], return_index=True)
    return found, chosen[first]


def align_near(
    query: np.ndarray,
    weights: np.ndarray,
    source: np.ndarray,
    anchors: tuple[np.ndarray, np.ndarray],
    rule: FragmentRule,
    reach: int,
    kgrams: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[Match]:
    """``align`` only around ``anchors`` (token positions of shared fingerprints on the two
    sides): each side's tokens within ``reach`` of an anchor, anchors whose stretches overlap
    on both sides aligned together. With ``reach`` at least twice a fragment's longest run of
    tokens without an anchor (winnowing bounds it), nothing ``align`` finds is lost, and two
    long documents sharing a sentence cost a few hundred tokens, not their lengths.
    ``kgrams``: the ``kgram_hashes`` of the whole of ``query`` and ``source``."""
    k = rule.kgram
    qk, sk = kgrams or (kgram_hashes(query, k), kgram_hashes(source, k))
    at_q, at_s = anchors
    if at_q.size == 0:
        return []
    order = np.lexsort((at_s, at_q))
    at_q, at_s = at_q[order], at_s[order]
    blocks: list[list[int]] = []  # [q_lo, q_hi, s_lo, s_hi]
    for q, s in zip(at_q.tolist(), at_s.tolist(), strict=True):
        q_lo, q_hi = max(0, q - reach), min(query.size, q + reach)
        s_lo, s_hi = max(0, s - reach), min(source.size, s + reach)
        for block in blocks[-4:]:
            if q_lo <= block[1] and s_lo <= block[3] and block[2] <= s_hi:
                block[1] = max(block[1], q_hi)
                block[2], block[3] = min(block[2], s_lo), max(block[3], s_hi)
                break
        else:
            blocks.append([q_lo, q_hi, s_lo, s_hi])
    found: list[Match] = []
    for q_lo, q_hi, s_lo, s_hi in blocks:
        # The k-grams of a stretch are those of the whole that lie wholly inside it.
        inside = (qk[q_lo : max(q_lo, q_hi - k + 1)], sk[s_lo : max(s_lo, s_hi - k + 1)])
        q_part, s_part = query[q_lo:q_hi], source[s_lo:s_hi]
        for m in align(q_part, weights[q_lo:q_hi], s_part, rule, inside):
            found.append(
                Match(m.first + q_lo, m.last + q_lo, m.source_first + s_lo,
                      m.source_last + s_lo, m.matched)
            )  # fmt: skip
    return longest_first(_joined(sorted(found, key=lambda m: (m.first, m.source_first)),
                                 query, source, rule.gap))  # fmt: skip


def _joined(found: list[Match], query: np.ndarray, source: np.ndarray, gap: int) -> list[Match]:
    """Fragments (in query order) found in separate stretches joined where they are one copy:
    the next one starts after this one on both sides, and they overlap on a diagonal at most
    ``gap`` tokens from this one's, or the tokens between them differ in at most ``gap``
    places on each side (``_bridge_cost``)."""
    out: list[Match] = []
    for m in found:
        if out:
            last = out[-1]
            q_gap, s_gap = m.first - last.last - 1, m.source_first - last.source_last - 1
            later = m.first > last.first and m.source_first > last.source_first
            shift = abs((m.source_first - m.first) - (last.source_first - last.first))
            if later and (
                (min(q_gap, s_gap) < 0 and shift <= gap)
                or (min(q_gap, s_gap) >= 0 and _bridge_cost(
                    query[last.last + 1 : m.first], source[last.source_last + 1 : m.source_first]
                ) <= gap)
            ):  # fmt: skip
                first, end = last.first, max(last.last, m.last)
                matched = min(end - first + 1, last.matched + m.matched)
                source_end = max(last.source_last, m.source_last)
                out[-1] = Match(first, end, last.source_first, source_end, matched, last.how)
                continue
        out.append(m)
    return out


def _bridge_cost(a: np.ndarray, b: np.ndarray) -> int:
    """Tokens that differ between two stretches, on the longer side (its length less their
    longest common subsequence); more than any gap when either is longer than ``MAX_BRIDGE``."""
    from rapidfuzz.distance import Indel

    if max(a.size, b.size) > MAX_BRIDGE:
        return MAX_BRIDGE
    x, y = a.tolist(), b.tolist()
    common = (len(x) + len(y) - Indel.distance(x, y)) // 2
    return max(len(x), len(y)) - common


class SourceIndex:
    """The winnowed k-gram fingerprints of many sources, to find which of them a checked
    document shares a run of at least ``guaranteed_run`` tokens with."""

    def __init__(self, rule: FragmentRule) -> None:
        self.rule = rule
        self._hashes: list[np.ndarray] = []
        self._owners: list[np.ndarray] = []
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None
        self.size = 0

    def add(self, hashes: np.ndarray) -> int:
        """Index one source (its tokens' hashes); returns its number (0, 1, ...)."""
        self.add_fingerprints(fingerprints(hashes, self.rule))
        return self.size - 1

    def add_fingerprints(self, kept: np.ndarray) -> None:
        """Index one source by its ``fingerprints``."""
        self._hashes.append(kept)
        self._owners.append(np.full(kept.size, self.size, dtype=np.int64))
        self._sorted = None
        self.size += 1

    def candidates(self, sequence: np.ndarray) -> list[int]:
        """The sources sharing at least one fingerprint with the token sequence ``sequence``
        (ascending), a fingerprint held by more than ``max_occurrences`` sources counting for
        none."""
        if self._sorted is None:
            hashes = np.concatenate(self._hashes) if self._hashes else np.empty(0, np.uint64)
            owners = np.concatenate(self._owners) if self._owners else np.empty(0, np.int64)
            order = np.argsort(hashes, kind="stable")
            self._sorted = hashes[order], owners[order]
        hashes, owners = self._sorted
        query = np.unique(kgram_hashes(sequence, self.rule.kgram))
        if query.size == 0 or hashes.size == 0:
            return []
        lo = np.searchsorted(hashes, query, "left")
        hi = np.searchsorted(hashes, query, "right")
        count = hi - lo
        count[count > self.rule.max_occurrences] = 0
        if int(count.sum()) == 0:
            return []
        start = np.repeat(lo - np.cumsum(count) + count, count)
        hit = owners[start + np.arange(int(count.sum()))]
        found: list[int] = np.unique(hit).tolist()
        return found
