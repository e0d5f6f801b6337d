"""Duplicated passages: which line ranges of a document are near-copies of which of another's.

The document pipeline, one level down. Each file is decoded as a scan decodes it (with the
local engine, in the worker that fingerprints it, from the same text) and cut into blocks
(``simdup.text.blocks``: paragraphs and headings with their line numbers). A *window* starts at
every block and takes the following blocks until it holds ``min_words`` words, so a copied
passage of at least that many words has a window lying wholly inside it on both sides,
whatever surrounds it. Each window gets a 64-bit SimHash of its terms (the scan's features,
stopwords and weights, summed block by block) and its word set; then

1. candidate windows come from the exact block index (``simdup.algorithms.index``) within ``radius``
   bits, identical fingerprints collapsed first (its tables shared among worker processes on
   large inputs);
2. each candidate is judged by the one near-duplicate rule, ``simdup.join.verify.Verifier``, with
   the passage thresholds (length ratio in words, exact word-set Jaccard of the windows), all
   in one ``Verifier.near`` call (the rule of ``Verifier.judge`` on arrays);
3. windows matched across more than ``max_repeats`` documents (a licence footer, a newsletter
   header) form one *repeated passage*, reported once with its occurrences instead of as
   N(N-1)/2 pairs;
4. the other matches of two documents are merged where they overlap or touch on both sides into
   maximal regions, and each region's ends are trimmed block by block while an end block shares
   too little of its words with the other side: windows reach past a copy's end by design.

Only numbers are kept per document (block line and character ranges, word counts, word hashes
and a 40-character preview per block): a text is dropped as soon as its windows are
fingerprinted, so memory grows with the number of blocks, not with the size of the texts.

Passages of two documents that the scan already reports as near-duplicates are not listed by
default (the whole document is the duplicate; ``all_pairs`` lists them too); passages repeated
inside one document are found when ``within`` is set.
"""

from __future__ import annotations

import os
import re
import time
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np
import xxhash

from .algorithms.index import (
    MAX_THRESHOLD,
    Layout,
    choose_layout,
    collapse,
    table_pairs,
    unique_near_pairs,
)
from .algorithms.simhash import group_counters
from .discovery import find_files
from .engines import Engine, Result, batches, default_jobs, make_engine
from .engines.workerpool import WorkerPool
from .errors import ConfigError
from .join.verify import Verifier
from .native import speedups
from .options import ScanOptions, resolve_options
from .params import FeatureParams
from .readers import read_document, read_named
from .records import (
    PassagePair,
    PassageSpan,
    RepeatedPassage,
    ScanResult,
    SkippedFile,
    SourceFile,
)
from .scanning import scan
from .text.blocks import DEFAULT_MAX_LINES, cut_text, split_lines
from .text.features import weigh
from .text.normalize import strip_ignorables, strip_markup
from .text.processor import DocumentProcessor, processor_for
from .text.textscan import CJK_RANGE
from .text.textscan import collapse as collapse_whitespace

PREVIEW_CHARS = 40
# Window weights are scaled to integers before the per-bit prefix sums, so a window's
# fingerprint is exact (no floating-point order) and the same on every machine.
_WEIGHT_SCALE = 1 << 10
# Blocks remembered per process (text -> features): revisions of a document share most of
# their paragraphs. Started afresh past this many.
_MEMO_LIMIT = 1 << 17


@dataclass(frozen=True)
class PassageOptions:
    """How passages are cut, matched and reported.

    ``min_words``, ``radius``, ``min_similarity`` and ``edge_gap`` were chosen on the dev half
    of the labelled passage benchmark (``benchmarks/passages.py --grid``: a grid of 3 x 3 x 3,
    then edge_gap; the highest F1, ties to the cheaper setting) and are reported on its test
    half. The block sizes, ``min_length_ratio``, ``min_containment`` and ``max_repeats`` are
    not from the grid (first choices; the benchmark compares two documents at a time, so it
    cannot measure ``max_repeats``)."""

    min_words: int = 40  # words (tokens) in a window; shorter copies are not looked for
    max_block_lines: int = DEFAULT_MAX_LINES  # longer runs of lines are cut into pieces
    radius: int = 10  # SimHash radius of candidate windows
    min_similarity: float = 0.6  # word-set Jaccard of two windows
    min_length_ratio: float = 0.5  # shorter window's words / longer window's words
    # Trimming: an end block stays in a region while this share of its words is on the other side.
    min_containment: float = 0.5
    max_repeats: int = 10  # a passage in more documents than this is one repeated passage (0: off)
    # Line-level edges: tokens that may lie between two aligned runs of a region (edits).
    edge_gap: int = 4
    within: bool = False  # also passages repeated inside one document
    all_pairs: bool = False  # also pairs of documents that are near-duplicates as a whole
    max_previews: int = PREVIEW_CHARS

    def __post_init__(self) -> None:
        if self.min_words < 5:
            raise ConfigError("passage min_words must be at least 5")
        if self.max_block_lines < 1:
            raise ConfigError("passage max_block_lines must be at least 1")
        if not 0 <= self.radius <= MAX_THRESHOLD:
            raise ConfigError(f"passage radius must be between 0 and {MAX_THRESHOLD}")
        for name in ("min_similarity", "min_length_ratio", "min_containment"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"passage {name} must be between 0 and 1")
        if self.edge_gap < 0:
            raise ConfigError("passage edge_gap must be at least 0")
        if self.max_repeats < 0 or self.max_repeats == 1:
            raise ConfigError("max_repeats must be 0 (off) or at least 2")

    def describe(self) -> dict[str, Any]:
        return {
            "min_words": self.min_words,
            "max_block_lines": self.max_block_lines,
            "radius": self.radius,
            "min_similarity": self.min_similarity,
            "min_length_ratio": self.min_length_ratio,
            "min_containment": self.min_containment,
            "edge_gap": self.edge_gap,
            "max_repeats": self.max_repeats,
            "within": self.within,
            "all_pairs": self.all_pairs,
        }

    def verifier(self, options: ScanOptions | None = None) -> Verifier:
        """The one near-duplicate rule with the passage thresholds."""
        base = options or ScanOptions()
        return Verifier(
            replace(
                base,
                threshold=min(base.threshold, self.radius),
                verify=True,
                verify_radius=self.radius,
                min_similarity=self.min_similarity,
                min_length_ratio=self.min_length_ratio,
                method="simhash",
            )
        )


@dataclass(frozen=True)
class DocumentPassages:
    """What passage matching keeps of one document (no text).

    Block ``k`` is lines ``lines[k, 0]..lines[k, 1]`` and characters ``chars[k, 0]:chars[k,
    1]`` of the decoded text, holds ``words[k]`` words, and its distinct terms are
    ``terms[offsets[k]:offsets[k + 1]]`` (top 32 bits of the term hashes, ascending). The
    window starting at block ``k`` ends at block ``window_end[k]`` (-1: fewer than
    ``min_words`` words are left) and has fingerprint ``fingerprints[k]``.
    """

    path: str
    lines: np.ndarray  # int64 (n, 2)
    chars: np.ndarray  # int64 (n, 2)
    words: np.ndarray  # int64 (n,)
    offsets: np.ndarray  # int64 (n + 1,)
    terms: np.ndarray  # uint32
    identity: np.ndarray  # uint64 (n,): hash of each block's whitespace-collapsed text
    window_end: np.ndarray  # int64 (n,)
    fingerprints: np.ndarray  # uint64 (n,)
    previews: tuple[str, ...] = field(repr=False, default=())
    line_count: int = 0

    def __len__(self) -> int:
        return int(self.words.size)

    def span(self, first: int, last: int) -> PassageSpan:
        return PassageSpan(
            path=self.path,
            start_line=int(self.lines[first, 0]),
            end_line=int(self.lines[last, 1]),
            start_char=int(self.chars[first, 0]),
            end_char=int(self.chars[last, 1]),
            words=int(self.words[first : last + 1].sum()),
            preview=self.previews[first] if self.previews else "",
        )


class _BlockTable:
    """What is kept of each block text a process has seen (revisions of a document share most
    of their paragraphs), one row per distinct text, in columns: its signed SimHash counters,
    words, text identity (a hash of its whitespace-collapsed text), preview, and its terms
    (top 32 bits of its distinct term hashes, ascending) as a slice of one array."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}  # block text -> row
        self.counters = np.zeros((0, 64), dtype=np.int64)
        self.words = np.zeros(0, dtype=np.int64)
        self.identity = np.zeros(0, dtype=np.uint64)
        self.term_bounds = np.zeros(1, dtype=np.int64)  # row r: terms[bounds[r]:bounds[r+1]]
        self.terms = np.zeros(0, dtype=np.uint32)
        self.previews: list[str] = []

    def __len__(self) -> int:
        return len(self.rows)

    def add(
        self,
        texts: list[str],
        counters: np.ndarray,
        words: np.ndarray,
        identity: np.ndarray,
        terms: np.ndarray,
        sizes: np.ndarray,
        previews: list[str],
    ) -> None:
        first = len(self.rows)
        self.rows.update(zip(texts, range(first, first + len(texts)), strict=True))
        self.counters = _grown(self.counters, first, counters)
        self.words = _grown(self.words, first, words)
        self.identity = _grown(self.identity, first, identity)
        used = int(self.term_bounds[first])
        self.terms = _grown(self.terms, used, terms)
        self.term_bounds = _grown(self.term_bounds, first + 1, used + np.cumsum(sizes))
        self.previews.extend(previews)


def _grown(column: np.ndarray, used: int, new: np.ndarray) -> np.ndarray:
    """``column[:used]`` followed by ``new``, in place when there is room (capacity doubles,
    so that a process adding blocks document by document copies each row O(1) times)."""
    end = used + new.shape[0]
    if end > column.shape[0]:
        grown = np.zeros((max(end, 2 * column.shape[0]), *column.shape[1:]), dtype=column.dtype)
        grown[:used] = column[:used]
        column = grown
    column[used:end] = new
    return column


class PassageProcessor:
    """Cuts one decoded text into blocks and fingerprints its windows. One per process."""

    def __init__(self, params: FeatureParams, passages: PassageOptions) -> None:
        self.params = params
        self.passages = passages
        self.processor: DocumentProcessor = processor_for(params)
        self._blocks = _BlockTable()

    def _clean(self, text: str) -> str:
        # Default-ignorable characters go first, as for a whole document: they never split a
        # word. Offsets stay those of the decoded text (blocks are cut before cleaning).
        cleaned = strip_ignorables(text)
        return strip_markup(cleaned) if self.params.markup else cleaned

    def _learn(self, texts: list[str]) -> None:
        """Put the blocks ``texts`` (not yet known) into the block table, in one vectorised
        pass."""
        vocab = self.processor.vocabulary
        cleaned = [self._clean(t) for t in texts]
        if len(cleaned) > 1:
            # Their new lines segmented together (one segmenter call per ~256 kB rather than
            # one per block); each block's lines are then in the vocabulary's memo.
            vocab.features("\n\n".join(cleaned))
        slots, tf, sizes, words = vocab.features_of_each(cleaned)
        hashes = vocab.hashes[slots]
        weights = weigh(tf, vocab.idf[slots], self.params.weighting)
        scaled = np.rint(weights * _WEIGHT_SCALE).astype(np.int64)
        counters = group_counters(hashes, scaled, sizes)
        owner = np.repeat(np.arange(len(texts)), sizes)
        high = (hashes >> np.uint64(32)).astype(np.uint32)
        order = np.lexsort((high, owner))
        high, owner = high[order], owner[order]
        # Each block's terms ascending; two terms sharing their top 32 bits count once.
        keep = np.ones(high.size, dtype=bool)
        if high.size > 1:
            keep[1:] = (high[1:] != high[:-1]) | (owner[1:] != owner[:-1])
        limit = self.passages.max_previews
        identity = np.fromiter(
            (
                xxhash.xxh3_64_intdigest(collapse_whitespace(t).encode("utf-8", "surrogatepass"))
                for t in texts
            ),
            dtype=np.uint64,
            count=len(texts),
        )
        self._blocks.add(
            texts,
            counters,
            words,
            identity,
            high[keep],
            np.bincount(owner[keep], minlength=len(texts)),
            [t.split("\n", 1)[0].strip()[:limit] for t in texts],
        )

    def terms(self, text: str) -> tuple[frozenset[int], int]:
        """The distinct term slots of ``text`` and its number of words (as a scan counts
        them); slots are comparable within this process only."""
        slots, _, words = self.processor.vocabulary.features(self._clean(text))
        return frozenset(slots.tolist()), int(words)

    def document(self, path: str, text: str) -> DocumentPassages:
        opts = self.passages
        self.processor.vocabulary.ensure_room()
        if len(self._blocks) > _MEMO_LIMIT:
            self._blocks = _BlockTable()
        bounds, lines = cut_text(text, opts.max_block_lines)
        n = bounds.shape[0]
        raws = [text[a:b] for a, b in bounds[:, 2:].tolist()]
        table = self._blocks
        known = table.rows
        missing = [r for r in dict.fromkeys(raws) if r not in known]
        if missing:
            self._learn(missing)
        rows = np.fromiter(map(known.__getitem__, raws), dtype=np.int64, count=n)
        begin = table.term_bounds[rows]
        sizes = table.term_bounds[rows + 1] - begin
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        at = np.repeat(begin - offsets[:-1], sizes) + np.arange(int(offsets[-1]))
        words = table.words[rows]
        window_end = _window_ends(words, opts.min_words)
        fingerprints = window_fingerprints(table.counters, rows, window_end)
        return DocumentPassages(
            path=path,
            lines=np.ascontiguousarray(bounds[:, :2]),
            chars=np.ascontiguousarray(bounds[:, 2:]),
            words=words,
            offsets=offsets,
            terms=table.terms[at],
            identity=table.identity[rows],
            window_end=window_end,
            fingerprints=fingerprints,
            previews=tuple(map(table.previews.__getitem__, rows.tolist())),
            line_count=lines,
        )


def _window_ends(words: np.ndarray, min_words: int) -> np.ndarray:
    """For each block, the last block of its window: the first block at which the blocks from
    it on hold ``min_words`` words (-1: fewer than that are left)."""
    n = words.size
    cumulative = np.concatenate(([0], np.cumsum(words)))
    end = np.searchsorted(cumulative, cumulative[:-1] + min_words, side="left") - 1
    return np.where(end < n, end, -1).astype(np.int64)


def _window_fingerprints_python(counters: np.ndarray, rows: np.ndarray, ends: np.ndarray) -> bytes:
    """Each window's SimHash (``uint64`` bytes; 0 where ``ends`` is -1): block ``k`` is row
    ``rows[k]`` of ``counters`` (signed SimHash counters, 64 per row), the window starting at it
    ends at block ``ends[k]``, and bit ``b`` is set where the window's summed counter ``b`` is
    positive (integers, so exact in any order)."""
    n = rows.size
    if n and ((rows < 0).any() or (rows >= counters.shape[0]).any()):
        raise ValueError("window_fingerprints() row or end out of range")
    before = (ends >= 0) & (ends < np.arange(n))
    if n and ((ends < -1).any() or (ends >= n).any() or before.any()):
        raise ValueError("window_fingerprints() row or end out of range")
    prefix = np.zeros((n + 1, 64), dtype=np.int64)
    np.cumsum(counters[rows], axis=0, out=prefix[1:])
    valid = ends >= 0
    fingerprints = np.zeros(n, dtype="<u8")
    if valid.any():
        summed = prefix[ends[valid] + 1] - prefix[np.flatnonzero(valid)]
        fingerprints[valid] = np.packbits(summed > 0, axis=1, bitorder="little").view("<u8").ravel()
    return fingerprints.tobytes()


_window_fingerprints: Callable[[np.ndarray, np.ndarray, np.ndarray], bytes] = (
    speedups.window_fingerprints if speedups else _window_fingerprints_python
)


def window_fingerprints(counters: np.ndarray, rows: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``_window_fingerprints_python`` as a ``uint64`` array (natively when the extension is
    there)."""
    found = _window_fingerprints(
        np.ascontiguousarray(counters, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(ends, dtype=np.int64),
    )
    return np.frombuffer(found, dtype=np.uint64).copy()


# ---------------------------------------------------------------------------------------------
# Reading documents (in this process or in worker processes)

_WORKER: PassageProcessor | None = None
_WORKER_MAX_SIZE = 0


def _init_worker(params: FeatureParams, passages: PassageOptions, max_size: int) -> None:
    global _WORKER, _WORKER_MAX_SIZE
    _WORKER = PassageProcessor(params, passages)
    _WORKER_MAX_SIZE = max_size


def _read(
    proc: PassageProcessor, source: SourceFile | str, max_size: int
) -> DocumentPassages | None:
    """The passages of one file, or None when it can no longer be read (it was fingerprinted
    a moment ago; a file changed since is left out of passage matching, never fatal)."""
    try:
        decoded = read_document(source, max_size)
    except Exception:
        return None
    if isinstance(decoded, SkippedFile):
        return None
    path = source if isinstance(source, str) else source.path
    try:
        return proc.document(path, decoded.text)
    except MemoryError:
        return None


def _work_batch(
    batch: tuple[int, Sequence[SourceFile]],
) -> tuple[int, list[DocumentPassages | None]]:
    assert _WORKER is not None
    start, sources = batch
    return start, [_read(_WORKER, source, _WORKER_MAX_SIZE) for source in sources]


def _describe_batch(batch: tuple[int, Sequence[SourceFile]]) -> str:
    _, sources = batch
    first = sources[0].path if sources else "?"
    return f"passages of a batch of {len(sources)} files from {first!r}"


def read_passages(
    sources: Sequence[SourceFile],
    params: FeatureParams,
    passages: PassageOptions,
    *,
    max_size: int,
    jobs: int | None = None,
) -> list[DocumentPassages | None]:
    """The passages of each source, in order (None: it could not be read again)."""
    jobs = jobs or default_jobs()
    total_size = sum(s.size for s in sources)
    if jobs == 1 or len(sources) < 4 * jobs or total_size < (1 << 20):
        proc = PassageProcessor(params, passages)
        return [_read(proc, s, max_size) for s in sources]
    _init_worker(params, passages, max_size)  # dictionaries loaded once, before fork
    # Largest first, in batches that shrink towards the end, as the fingerprint engine does.
    order = sorted(range(len(sources)), key=lambda i: (-sources[i].size, i))
    out: list[DocumentPassages | None] = [None] * len(sources)
    with WorkerPool(
        _work_batch,
        jobs,
        initializer=_init_worker,
        initargs=(params, passages, max_size),
        describe=_describe_batch,
    ) as pool:
        for _, (start, results) in pool.results(batches([sources[i] for i in order], jobs)):
            for k, result in enumerate(results):
                out[order[start + k]] = result
    return out


# ---------------------------------------------------------------------------------------------
# Matching


@dataclass(frozen=True, slots=True)
class Passages:
    """The result of passage matching: pairs of regions and repeated passages."""

    pairs: tuple[PassagePair, ...]
    repeated: tuple[RepeatedPassage, ...]
    stats: dict[str, int]


class _Windows:
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


def _distinct_runs_python(values: np.ndarray, bounds: np.ndarray) -> tuple[bytes, bytes]:
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
    speedups.distinct_runs if speedups else _distinct_runs_python
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


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
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


def _cross(
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


def _within(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


# Largest table of skipped pairs of documents (bytes: one per pair of documents).
_SKIP_TABLE = 1 << 23


def match_passages(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    *,
    scan_options: ScanOptions | None = None,
    near_duplicates: Iterable[tuple[str, str]] = (),
    texts: Callable[[str], str | None] | None = None,
    jobs: int = 1,
) -> Passages:
    """Pairs of duplicated regions and repeated passages among ``docs``.

    ``near_duplicates``: path pairs the scan reports as near-duplicate documents; their
    passages are left out unless ``options.all_pairs``. ``texts``: the decoded text of a
    document by path (None: no longer readable), to set the regions' ends line by line;
    without it they stay on block boundaries (``texts`` is called in worker processes when
    ``jobs`` > 1). ``jobs``: processes for the index join and the line-level edges of large
    inputs (the same results as one).
    """
    windows = _Windows(docs)
    verifier = options.verifier(scan_options)
    n_docs = len(docs)
    stats = {"blocks": sum(len(d) for d in docs), "windows": len(windows)}
    empty = Passages((), (), {**stats, "candidates": 0, "matches": 0, "pairs": 0, "repeated": 0})
    if len(windows) < 2:
        return empty
    unique, members, bounds = collapse(windows.fps)
    starts, sizes = bounds[:-1], np.diff(bounds)
    ua, ub, ud = _near_pairs(unique, options.radius, jobs)
    skip = np.empty(0, dtype=np.int64)
    if not options.all_pairs:
        index = {d.path: n for n, d in enumerate(docs)}
        keys = [
            min(index[a], index[b]) * n_docs + max(index[a], index[b])
            for a, b in near_duplicates
            if a in index and b in index
        ]
        skip = np.unique(np.array(keys, dtype=np.int64))

    member_doc = windows.doc[members]
    # The skipped pairs of documents as a table where it is small, else sorted.
    skipped: np.ndarray | None = None
    if skip.size and n_docs * n_docs <= _SKIP_TABLE:
        skipped = np.zeros(n_docs * n_docs, dtype=bool)
        skipped[skip] = True

    def wanted(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Which window pairs (positions in ``members``) may be reported."""
        dx, dy = member_doc[x], member_doc[y]
        ok: np.ndarray = dx != dy
        if options.within:
            wx, wy = members[x], members[y]
            apart = (windows.last[wx] < windows.first[wy]) | (windows.last[wy] < windows.first[wx])
            ok |= (dx == dy) & apart
        if skip.size:  # not a pair of near-duplicate documents
            key = np.minimum(dx, dy) * n_docs + np.maximum(dx, dy)
            if skipped is not None:
                ok &= ~skipped[key]
            else:
                place = np.minimum(np.searchsorted(skip, key), skip.size - 1)
                ok &= skip[place] != key
        return ok

    # Candidates: distinct fingerprints within the radius, one judgement per pair of them
    # (by their first windows), and only where some pair of their windows may be reported.
    cx, cy = _cross(starts, sizes, ua, ub)
    keep = wanted(cx, cy)
    edge_of = np.repeat(np.arange(ua.size), sizes[ua] * sizes[ub])
    useful = np.unique(edge_of[keep])
    stats["candidates"] = int(useful.size)
    good = np.zeros(ua.size, dtype=bool)
    head = members[starts]  # the first window of each fingerprint
    useful = useful[windows.long_enough(head[ua[useful]], head[ub[useful]], verifier)]
    # Windows sharing a fingerprint go through the same verifier, each against its group's
    # first window at distance 0 (``sound``, by position in ``members``); the verifier's first
    # rule (the same text) is checked here on the windows' text keys, and its length rule on
    # their words, so only windows whose text differs and whose length passes are judged,
    # one per distinct text of a group. A window that fails is left out of its group's pairs.
    group = np.repeat(np.arange(sizes.size), sizes)
    leader = head[group]
    same = (windows.key[members] == windows.key[leader]) & (
        windows.words[members] == windows.words[leader]
    )
    sound = same | windows.long_enough(members, leader, verifier)
    ask = np.flatnonzero(~same & sound)
    order = np.lexsort((ask, windows.words[members[ask]], windows.key[members[ask]], group[ask]))
    ask = ask[order]
    distinct = np.ones(ask.size, dtype=bool)
    if ask.size > 1:
        g, w = group[ask], members[ask]
        distinct[1:] = (
            (g[1:] != g[:-1])
            | (windows.key[w[1:]] != windows.key[w[:-1]])
            | (windows.words[w[1:]] != windows.words[w[:-1]])
        )
    text_of = np.cumsum(distinct) - 1  # which distinct text of its group each asked one is
    judged = ask[distinct]
    stats["same_fingerprint_judged"] = int(judged.size)
    # One verifier call for all: the candidates' first windows, then each group's first
    # window with one window of each of its other texts.
    left = np.concatenate((head[ua[useful]], leader[judged]))
    right = np.concatenate((head[ub[useful]], members[judged]))
    distance = np.concatenate((ud[useful].astype(np.int64), np.zeros(judged.size, np.int64)))
    chosen = np.unique(np.concatenate((left, right)))
    # The texts of two windows are the same when their keys and words are (never so here:
    # a same-text pair shares its fingerprint and its group's key; checked all the same).
    near = np.zeros(left.size, dtype=bool)
    at, _ = verifier.near(
        windows.words[chosen],
        windows.sketches(chosen),
        np.searchsorted(chosen, left),
        np.searchsorted(chosen, right),
        distance,
        (windows.key[left] == windows.key[right]) & (windows.words[left] == windows.words[right]),
    )
    near[at] = True
    good = np.zeros(ua.size, dtype=bool)
    good[useful] = near[: useful.size]
    va, vb = ua[good], ub[good]
    sound[ask] = near[useful.size :][text_of]
    group_sound = (
        np.add.reduceat(sound.astype(np.int64), starts) if starts.size else np.zeros(0, np.int64)
    )
    # A component spanning more than max_repeats documents is boilerplate.
    component = _components(unique.size, va, vb)
    window_component = np.empty(len(windows), dtype=np.int64)
    window_component[members] = np.repeat(component, sizes)
    matched = np.zeros(unique.size, dtype=bool)
    matched[(sizes > 1) & (group_sound > 1)] = True
    matched[va] = True
    matched[vb] = True
    matched_windows = members[np.repeat(matched, sizes) & sound]
    comp_doc = np.unique(window_component[matched_windows] * n_docs + windows.doc[matched_windows])
    doc_count = np.bincount(comp_doc // n_docs, minlength=unique.size)
    repeated_component = (
        doc_count > options.max_repeats if options.max_repeats else np.zeros(unique.size, bool)
    )
    stats["matches"] = int(good.sum()) + int((sizes > 1).sum())
    repeated, boiler = _repeated(windows, window_component, matched_windows, repeated_component)

    sx, sy = _within(starts, sizes)
    px = np.concatenate((cx[keep & good[edge_of]], sx))
    py = np.concatenate((cy[keep & good[edge_of]], sy))
    ok = wanted(px, py) & sound[px] & sound[py] if px.size else np.zeros(0, dtype=bool)
    wx, wy = members[px[ok]], members[py[ok]]
    not_boiler = ~repeated_component[window_component[wx]]
    wx, wy = wx[not_boiler], wy[not_boiler]
    regions = _regions(windows, wx, wy)
    params = (scan_options or ScanOptions()).features
    if texts is not None and jobs > 1 and len(regions) >= _PARALLEL_REFINE:
        pairs = _finish_parallel(docs, regions, boiler, texts, params, options, jobs)
    else:
        pairs = _sorted_once(_finish_all(docs, regions, options, boiler))
        if texts is not None and pairs:
            held = _EdgeTexts(texts, PassageProcessor(params, options))
            pairs = _refine_all(pairs, held, options)
    stats["pairs"] = len(pairs)
    stats["repeated"] = len(repeated)
    return Passages(tuple(pairs), repeated, stats)


# Texts of the pairs being refined held at once, in characters (least recently used out first):
# a text takes part in many pairs, on either side, and reading it again costs more than its
# alignment. At least the last three are held, as large as they are.
_HELD_CHARS = 1 << 23
# Past this many distinct tokens the vocabulary starts again (with the texts held): it only
# grows otherwise.
_VOCABULARY_LIMIT = 1 << 18
# Regions' measures remembered (a region is often that of several pairs), in characters.
_MEASURED_CHARS = 1 << 22


class _EdgeTexts:
    """What refining edges keeps from one pair to the next: the texts read again (``texts``),
    as ``TextLines`` that share one vocabulary (their ids compare) and remember the ranges of
    lines they tokenized, and the measure (``proc.terms``) of regions."""

    def __init__(self, texts: Callable[[str], str | None], proc: PassageProcessor) -> None:
        self.texts = texts
        self.proc = proc
        self.vocabulary = EdgeVocabulary()
        self.held: dict[str, TextLines | None] = {}
        self.held_chars = 0
        self.measured: dict[str, tuple[frozenset[int], int]] = {}
        self.measured_chars = 0

    def lines(self, path: str) -> TextLines | None:
        """The text of ``path`` (None: changed or gone since it was read)."""
        held = self.held
        if path in held:
            found = held[path] = held.pop(path)  # now the most recently used
            return found
        if len(self.vocabulary) > _VOCABULARY_LIMIT:
            self.vocabulary = EdgeVocabulary()
            held.clear()
            self.held_chars = 0
        text = self.texts(path)
        size = 0 if text is None else len(text)
        while len(held) > 2 and self.held_chars + size > _HELD_CHARS:
            dropped = held.pop(next(iter(held)))
            self.held_chars -= 0 if dropped is None else len(dropped.text)
        lines = held[path] = None if text is None else TextLines(text, self.vocabulary)
        self.held_chars += size
        return lines

    def measure(self, region: str) -> tuple[frozenset[int], int]:
        """``proc.terms(region)``, remembered."""
        found = self.measured.get(region)
        if found is None:
            if self.measured_chars > _MEASURED_CHARS:
                self.measured.clear()
                self.measured_chars = 0
            found = self.measured[region] = self.proc.terms(region)
            self.measured_chars += len(region)
        return found


def _refine_pairs(
    pairs: Iterable[PassagePair], texts: _EdgeTexts, options: PassageOptions
) -> list[PassagePair]:
    """``refine_edges`` of each pair, in order (an unchanged pair is the same object)."""
    out = []
    margin, gap = options.max_block_lines, options.edge_gap
    for pair in pairs:
        a, b = texts.lines(pair.a.path), texts.lines(pair.b.path)
        if a is not None and b is not None:
            pair = refine_edges(pair, a, b, margin, gap, texts.measure)
        out.append(pair)
    return out


def _refine_all(
    pairs: list[PassagePair], texts: _EdgeTexts, options: PassageOptions
) -> list[PassagePair]:
    """``refine_edges`` of every pair (sorted by side A, so each text of side A is read once),
    sorted, without repeats."""
    return _sorted_once(_refine_pairs(pairs, texts, options))


def _sorted_once(pairs: list[PassagePair]) -> list[PassagePair]:
    pairs.sort(key=_pair_order)
    return [p for n, p in enumerate(pairs) if n == 0 or p != pairs[n - 1]]


# ---------------------------------------------------------------------------------------------
# The index join and the line-level edges in worker processes (large inputs only)

# Fewer distinct window fingerprints, or fewer pairs to refine, than this: one process (the
# workers would cost more to start than they save).
_PARALLEL_JOIN = 1 << 14
_PARALLEL_REFINE = 256

_JOIN: tuple[np.ndarray, Layout, int] | None = None
# What the workers finishing regions hold (from the parent, through fork): see _init_finish.
_FINISH: tuple[_EdgeTexts, PassageOptions, Sequence[DocumentPassages], list[_Region],
               dict[int, set[int]]] | None = None  # fmt: skip


def _init_join(unique: np.ndarray, layout: Layout, radius: int) -> None:
    global _JOIN
    _JOIN = (unique, layout, radius)


def _join_tables(tables: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    assert _JOIN is not None
    unique, layout, radius = _JOIN
    parts = [table_pairs(unique, layout, table, radius) for table in tables]
    a, b, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    return a, b, d


def _near_pairs(unique: np.ndarray, radius: int, jobs: int) -> tuple[np.ndarray, ...]:
    """``unique_near_pairs(unique, radius)``, its tables shared among ``jobs`` processes."""
    layout = choose_layout(unique.size, radius)
    tables = list(combinations(range(layout.blocks), layout.key_blocks))
    if jobs < 2 or unique.size < _PARALLEL_JOIN or len(tables) < 4 * jobs:
        return unique_near_pairs(unique, radius, layout)
    # Every table emits its own pairs (each pair exactly one table's), so tables split freely;
    # interleaved, so that each task holds tables of every kind.
    tasks = [tables[k :: 4 * jobs] for k in range(4 * jobs)]
    with WorkerPool(
        _join_tables,
        jobs,
        initializer=_init_join,
        initargs=(unique, layout, radius),
        describe=lambda t: f"the passage index join ({len(t)} tables)",
    ) as pool:
        parts = [found for _, found in pool.results(tasks)]
    a, b, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    order = np.lexsort((b, a))
    return a[order], b[order], d[order]


def _init_finish(
    texts: Callable[[str], str | None],
    params: FeatureParams,
    options: PassageOptions,
    docs: Sequence[DocumentPassages],
    regions: list[_Region],
    boiler: dict[int, set[int]],
) -> None:
    global _FINISH
    _FINISH = (_EdgeTexts(texts, PassageProcessor(params, options)), options, docs, regions, boiler)


# A region a worker has finished and refined, as it sends it back: its index, each side's
# values after the path (``_span_values``), and the similarity. Plain values: a pickled
# dataclass costs ~10 times as much to send and to read back.
_SpanValues = tuple[int, int, int, int, int, str]
_Finished = tuple[int, _SpanValues, _SpanValues, float]


def _span_values(span: PassageSpan) -> _SpanValues:
    return span.start_line, span.end_line, span.start_char, span.end_char, span.words, span.preview


def _finish_batch(chosen: Sequence[int]) -> list[_Finished]:
    """The regions (by index; the workers have them from the parent) trimmed (``_finish``) and
    their edges refined (``refine_edges``), as ``_Finished``; those trimmed away are left out."""
    assert _FINISH is not None
    texts, options, docs, regions, boiler = _FINISH  # held from batch to batch
    found = [(k, _finish_region(docs, regions[k], options, boiler)) for k in chosen]
    kept = [(k, pair) for k, pair in found if pair is not None]
    refined = _refine_pairs([pair for _, pair in kept], texts, options)
    return [
        (k, _span_values(p.a), _span_values(p.b), p.similarity)
        for (k, _), p in zip(kept, refined, strict=True)
    ]


# Tasks per worker process refining edges: the fewer, the fewer texts two processes both read
# (a large group of connected texts is cut in as many runs); the more, the more evenly the
# processes share the work when the costs are misjudged. One was fastest on the benchmark set
# (tasks of about one cost, below, share the work evenly enough).
_REFINE_TASKS = 1
# What reading a text again (decoding it, tokenizing its regions) costs, in pairs refined
# (measured on the benchmark set: ~0.5 ms against ~0.05 ms).
_TEXT_COST = 10


def _refine_tasks(pairs: list[tuple[str, str]], count: int) -> list[list[int]]:
    """``pairs`` of documents (paths; their indexes) as ``count`` tasks (fewer if there are few
    pairs) of about one cost, sharing as few texts as may be, most costly first. Reading a
    text (and tokenizing it) costs more than aligning a pair, so the pairs of texts that pairs
    connect (a component) stay in one task, where a whole text's pairs are refined after one
    read; a component costlier than a task is cut into runs (in order, so that each text of
    side A is still read about once). The pieces then go, costliest first, each to the task
    that costs least so far."""
    parent: dict[str, str] = {}

    def root(path: str) -> str:
        while (up := parent.setdefault(path, path)) != path:
            parent[path] = parent.setdefault(up, up)  # halve the path as it is walked
            path = up
        return path

    for a, b in pairs:
        parent[root(a)] = root(b)
    components: dict[str, list[int]] = defaultdict(list)
    for k, (a, _) in enumerate(pairs):
        components[root(a)].append(k)

    def cost(run: list[int]) -> int:
        paths = {pairs[k][0] for k in run} | {pairs[k][1] for k in run}
        return len(run) + _TEXT_COST * len(paths)

    costs = [(cost(c), c) for c in components.values()]
    limit = -(-sum(c for c, _ in costs) // count)
    pieces: list[tuple[int, list[int]]] = []
    for whole, component in costs:
        size = -(-len(component) // -(-whole // limit))
        pieces.extend(
            (cost(run), run)
            for run in (component[at : at + size] for at in range(0, len(component), size))
        )
    pieces.sort(key=lambda piece: piece[0], reverse=True)
    tasks: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for spent, run in pieces:
        least = loads.index(min(loads))
        tasks[least].extend(run)
        loads[least] += spent
    order = sorted(range(count), key=loads.__getitem__, reverse=True)
    return [tasks[k] for k in order if tasks[k]]


def _finish_parallel(
    docs: Sequence[DocumentPassages],
    regions: list[_Region],
    boiler: dict[int, set[int]],
    texts: Callable[[str], str | None],
    params: FeatureParams,
    options: PassageOptions,
    jobs: int,
) -> list[PassagePair]:
    """``_finish_all`` then ``_refine_all``, in ``jobs`` processes: the regions in tasks of
    ``_refine_tasks`` (a region is refined where it is trimmed). The same pairs: refining is a
    function of the pair, so regions that trim to the same pair refine to the same pair, and
    are reported once."""
    global _FINISH
    ends = [(docs[r[0]].path, docs[r[1]].path) for r in regions]
    tasks = _refine_tasks(ends, _REFINE_TASKS * jobs)
    # Dictionaries loaded once, before fork; the workers have the documents and regions from
    # the fork too (tasks are indexes).
    _init_finish(texts, params, options, docs, regions, boiler)
    out: list[PassagePair] = []
    try:
        with WorkerPool(
            _finish_batch,
            jobs,
            initializer=_init_finish,
            initargs=(texts, params, options, docs, regions, boiler),
            describe=lambda t: f"the edges of {len(t)} passages from {ends[t[0]][0]!r}",
        ) as pool:
            for _, found in pool.results(tasks):
                for k, a, b, similarity in found:
                    path_a, path_b = ends[k]
                    out.append(
                        PassagePair(PassageSpan(path_a, *a), PassageSpan(path_b, *b), similarity)
                    )
    finally:
        _FINISH = None  # the documents and texts are not the parent's to keep
    return _sorted_once(out)


def _pair_order(p: PassagePair) -> tuple[Any, ...]:
    return (p.a.path, p.b.path, p.a.start_line, p.b.start_line)


def _repeated(
    windows: _Windows,
    window_component: np.ndarray,
    matched_windows: np.ndarray,
    repeated_component: np.ndarray,
) -> tuple[tuple[RepeatedPassage, ...], dict[int, set[int]]]:
    """The repeated passages (their windows merged into block ranges per document), and per
    document the blocks that belong to one."""
    boiler: dict[int, set[int]] = defaultdict(set)
    chosen = matched_windows[repeated_component[window_component[matched_windows]]]
    if chosen.size == 0:
        return (), boiler
    order = np.lexsort((windows.first[chosen], windows.doc[chosen], window_component[chosen]))
    chosen = chosen[order]
    comp, doc = window_component[chosen], windows.doc[chosen]
    first, last = windows.first[chosen], windows.last[chosen]
    # Windows of one component in one document merge where they overlap or touch: a window
    # starts a new range when its first block lies beyond every block of the range so far.
    new_group = np.ones(chosen.size, dtype=bool)
    new_group[1:] = (comp[1:] != comp[:-1]) | (doc[1:] != doc[:-1])
    rank = np.cumsum(new_group) - 1
    lifted = rank * (int(last.max()) + 2) + last  # running maxima that never cross a group
    reach = np.maximum.accumulate(lifted) - rank * (int(last.max()) + 2)
    new_range = new_group.copy()
    new_range[1:] |= first[1:] > reach[:-1] + 1
    cuts = np.flatnonzero(new_range)
    r_comp, r_doc, r_first = comp[cuts], doc[cuts], first[cuts]
    r_last = np.maximum.reduceat(last, cuts)
    spans = _spans(windows.docs, r_doc, r_first, r_last)
    for d, f, la in zip(r_doc.tolist(), r_first.tolist(), r_last.tolist(), strict=True):
        boiler[d].update(range(f, la + 1))
    out = []
    starts = np.flatnonzero(np.r_[True, r_comp[1:] != r_comp[:-1]])
    # Documents per component: ranges are in (component, document) order.
    counts = np.add.reduceat(new_group[cuts], starts).tolist()
    bounds = [*starts.tolist(), cuts.size]
    for lo, hi, count in zip(bounds, bounds[1:], counts, strict=False):
        occurrences = sorted(spans[lo:hi], key=lambda s: (s.path, s.start_line))
        out.append(RepeatedPassage(count, tuple(occurrences)))
    out.sort(key=lambda r: (-r.count, r.occurrences[0].path, r.occurrences[0].start_line))
    return tuple(out), boiler


def _spans(
    docs: Sequence[DocumentPassages], doc: np.ndarray, first: np.ndarray, last: np.ndarray
) -> list[PassageSpan]:
    """``docs[doc[k]].span(first[k], last[k])`` for every ``k``, gathered document by
    document rather than one block range at a time."""
    out: list[PassageSpan | None] = [None] * doc.size
    order = np.argsort(doc, kind="stable")
    cuts = [*np.flatnonzero(np.r_[True, doc[order][1:] != doc[order][:-1]]).tolist(), doc.size]
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        at = order[lo:hi]
        d = docs[int(doc[at[0]])]
        f, la = first[at], last[at]
        cumulative = np.concatenate(([0], np.cumsum(d.words)))
        rows = zip(
            at.tolist(),
            d.lines[f, 0].tolist(),
            d.lines[la, 1].tolist(),
            d.chars[f, 0].tolist(),
            d.chars[la, 1].tolist(),
            (cumulative[la + 1] - cumulative[f]).tolist(),
            f.tolist(),
            strict=True,
        )
        previews = d.previews
        for k, start_line, end_line, start_char, end_char, words, fk in rows:
            preview = previews[fk] if previews else ""
            out[k] = PassageSpan(d.path, start_line, end_line, start_char, end_char, words, preview)
    return [s for s in out if s is not None]


# A region: documents ``da`` and ``db`` (indexes), blocks ``fa..la`` of one and ``fb..lb`` of
# the other, before trimming.
_Region = tuple[int, int, int, int, int, int]


def _regions(windows: _Windows, wx: np.ndarray, wy: np.ndarray) -> list[_Region]:
    """Matched window pairs merged into maximal regions per pair of documents: sweeping along
    side A, windows that overlap or touch join one run; within a run, sweeping along side B
    the same way. Each region is then trimmed and reported (``_finish_region``)."""
    if wx.size == 0:
        return []
    dx, dy = windows.doc[wx], windows.doc[wy]
    fx, lx, fy, ly = windows.first[wx], windows.last[wx], windows.first[wy], windows.last[wy]
    # Side A is the document (and, within one, the place) that comes first.
    swap = (dx > dy) | ((dx == dy) & (fx > fy))
    dx, dy = np.where(swap, dy, dx), np.where(swap, dx, dy)
    fx, fy = np.where(swap, fy, fx), np.where(swap, fx, fy)
    lx, ly = np.where(swap, ly, lx), np.where(swap, lx, ly)
    order = np.lexsort((fy, fx, dy, dx))
    dx, dy, fx, lx, fy, ly = dx[order], dy[order], fx[order], lx[order], fy[order], ly[order]
    # Runs along A: a window starts a new run when its first block lies beyond every block
    # of the run so far (+1: touching windows join). Pairs of documents are ranked (not
    # keyed by da * n + db), so that rank * 2**32 stays far inside 64 bits at any size.
    big = np.int64(1 << 32)
    new_pair = np.ones(dx.size, dtype=bool)
    new_pair[1:] = (dx[1:] != dx[:-1]) | (dy[1:] != dy[:-1])
    pair_rank = np.cumsum(new_pair)
    reach = np.maximum.accumulate(pair_rank * big + lx)
    new_a = new_pair.copy()
    new_a[1:] |= pair_rank[1:] * big + fx[1:] > reach[:-1] + 1
    run = np.cumsum(new_a)
    order = np.lexsort((fy, run))
    run, dx, dy = run[order], dx[order], dy[order]
    fx, lx, fy, ly = fx[order], lx[order], fy[order], ly[order]
    reach = np.maximum.accumulate(run * big + ly)
    new_b = np.ones(run.size, dtype=bool)
    new_b[1:] = (run[1:] != run[:-1]) | (run[1:] * big + fy[1:] > reach[:-1] + 1)
    cuts = np.flatnonzero(new_b)
    regions = zip(
        dx[cuts].tolist(),
        dy[cuts].tolist(),
        np.minimum.reduceat(fx, cuts).tolist(),
        np.maximum.reduceat(lx, cuts).tolist(),
        fy[cuts].tolist(),
        np.maximum.reduceat(ly, cuts).tolist(),
        strict=True,
    )
    # A region of one document that reaches into its own copy is left out.
    return [r for r in regions if r[0] != r[1] or r[3] < r[4] or r[5] < r[2]]


def _finish_all(
    docs: Sequence[DocumentPassages],
    regions: list[_Region],
    options: PassageOptions,
    boiler: dict[int, set[int]],
) -> list[PassagePair]:
    """The reported pair of each region that trimming leaves (``_finish_region``), in order.
    Two runs along A can end up as the same region after trimming: ``_sorted_once`` reports
    it once."""
    found = (_finish_region(docs, r, options, boiler) for r in regions)
    return [p for p in found if p is not None]


def _finish_region(
    docs: Sequence[DocumentPassages],
    region: _Region,
    options: PassageOptions,
    boiler: dict[int, set[int]],
) -> PassagePair | None:
    da, db, fa, la, fb, lb = region
    return _finish(docs[da], docs[db], (fa, la, fb, lb), options, boiler, da, db)


class _Side:
    """One side of a region being trimmed: which block identities and terms it holds (Python
    sets: a side holds a few hundred terms, and is asked about one block at a time)."""

    def __init__(self, doc: DocumentPassages, first: int, last: int) -> None:
        self.doc = doc
        self.identities = set(doc.identity[first : last + 1].tolist())
        self._terms: set[int] | None = None
        self.first, self.last = first, last

    def terms(self) -> set[int]:
        if self._terms is None:
            self._terms = _range_terms(self.doc, self.first, self.last)
        return self._terms

    def holds(self, other: DocumentPassages, k: int, need: float) -> bool:
        """Whether block ``k`` of ``other`` shares enough of its words with this side: the
        same text (fast), or ``need`` of its distinct terms."""
        if int(other.identity[k]) in self.identities:
            return True
        block = other.terms[other.offsets[k] : other.offsets[k + 1]].tolist()
        shared = len(self.terms().intersection(block)) / len(block) if block else 0.0
        return shared >= need


def _range_terms(doc: DocumentPassages, first: int, last: int) -> set[int]:
    """The distinct terms of blocks ``first..last``."""
    return set(doc.terms[doc.offsets[first] : doc.offsets[last + 1]].tolist())


def _finish(
    a: DocumentPassages,
    b: DocumentPassages,
    region: tuple[int, int, int, int],
    options: PassageOptions,
    boiler: dict[int, set[int]],
    da: int,
    db: int,
) -> PassagePair | None:
    """The reported pair of a region, its ends trimmed (see the module docstring), or None
    when too little is left."""
    fa, la, fb, lb = region
    need = options.min_containment
    boiler_a, boiler_b = boiler.get(da, set()), boiler.get(db, set())
    side_a, side_b = _Side(a, fa, la), _Side(b, fb, lb)
    for _ in range(256):
        before = (fa, la, fb, lb)
        if (side_a.first, side_a.last) != (fa, la):
            side_a = _Side(a, fa, la)
        if (side_b.first, side_b.last) != (fb, lb):
            side_b = _Side(b, fb, lb)
        if fa in boiler_a or not side_b.holds(a, fa, need):
            fa += 1
        elif la in boiler_a or not side_b.holds(a, la, need):
            la -= 1
        if fb in boiler_b or not side_a.holds(b, fb, need):
            fb += 1
        elif lb in boiler_b or not side_a.holds(b, lb, need):
            lb -= 1
        if fa > la or fb > lb:
            return None
        if (fa, la, fb, lb) == before:
            break
    words_a = int(a.words[fa : la + 1].sum())
    words_b = int(b.words[fb : lb + 1].sum())
    if min(words_a, words_b) < options.min_words // 2:
        return None
    if np.array_equal(a.identity[fa : la + 1], b.identity[fb : lb + 1]):
        similarity = 1.0
    else:
        ta, tb = _range_terms(a, fa, la), _range_terms(b, fb, lb)
        both = len(ta & tb)
        union = len(ta) + len(tb) - both
        similarity = round(both / union, 4) if union else 1.0
    return PassagePair(a.span(fa, la), b.span(fb, lb), similarity)


# ---------------------------------------------------------------------------------------------
# Line-level edges
#
# Regions are found block by block, and a block can hold several lines: a copy that starts in
# the middle of a block is found from the next block on, and a window reaching past a copy's
# end can carry its neighbours into the region. So each reported region's ends are set again
# from the two texts (read again, only for documents that have a region): the tokens of both
# regions and a few lines around them are aligned as ``difflib.SequenceMatcher`` aligns them
# (longest matching runs in order; ``matching_runs``); runs of at least ``_EDGE_RUN`` tokens
# chain while no more than ``edge_gap`` tokens lie between two of them on either side (an
# edited word or two), and the chain that covers most of the block-level region gives the
# first and last line on each side. Alignment in order, rather than shared words, keeps a
# neighbouring line out that shares words with the copy but not their order (an image link to
# the same host, a heading naming the topic); the tokens run across line ends, so re-wrapped
# text aligns as well as the original.
#
# A text takes part in many pairs, and a region in several: each text is read and split into
# lines once while it is held (``_EdgeTexts``), a range of lines is tokenized once
# (``TextLines.tokens``), into ids that one vocabulary (``EdgeVocabulary``) makes equal exactly
# for equal tokens, and the alignment and the choice of the chain are one native call per pair
# (``_edge_chain``). Each native function has its Python definition here, with the same result.

# One token per CJK character (no segmenter needed for order), else a run of word characters;
# a line end is a token of its own, so one pass over a range of lines says where each token is.
_EDGE_TOKEN = re.compile(rf"\n|[{CJK_RANGE}]|[^\W_{CJK_RANGE}]+")
_EDGE_RUN = 3  # shorter matching runs are chance ("的是", "the")
_EDGE_MAX_TOKENS = 1 << 15  # larger ranges keep their block-level ends (alignment cost)
# More token pairs than this starting equal runs (a table of numbers) keep their ends too.
_EDGE_MAX_GRAMS = 1 << 20


def _line_offsets_python(text: str) -> tuple[list[int], list[int]]:
    """Where each line of ``text`` (``split_lines``) starts and ends."""
    if "\r" in text:
        lines = split_lines(text)
        return [o for _, o in lines], [o + len(line) for line, o in lines]
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    breaks = np.flatnonzero(codes == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.append(breaks, len(text))
    if starts[-1] == len(text):  # ends with a newline (or is empty): no line after it
        starts, ends = starts[:-1], ends[:-1]
    return starts.tolist(), ends.tolist()


def _line_offsets(text: str) -> tuple[list[int], list[int]]:
    """``_line_offsets_python`` (natively where the extension is built: one pass, no copy)."""
    if speedups is None:
        return _line_offsets_python(text)
    starts, ends = speedups.line_offsets(text)
    return np.frombuffer(starts, dtype=np.int64).tolist(), np.frombuffer(ends, np.int64).tolist()


class EdgeVocabulary:
    """The ids of tokens (``_edge_tokens_python``), one for the texts whose tokens are compared:
    where the extension is built, a table it keeps (no str or dict lookup per token), else a
    dict."""

    def __init__(self) -> None:
        self._table: Any = speedups.edge_vocabulary() if speedups else {}

    def __len__(self) -> int:
        if speedups is None:
            return len(self._table)
        return int(speedups.edge_vocabulary_size(self._table))

    def tokens(self, folded: str) -> tuple[np.ndarray, np.ndarray]:
        """``_edge_tokens_python(folded, vocabulary)``."""
        if speedups is None:
            return _edge_tokens_python(folded, self._table)
        ids, first = speedups.edge_tokens(folded, self._table)
        return np.frombuffer(ids, dtype=np.int64), np.frombuffer(first, dtype=np.int64)


class TextLines:
    """A text and where its lines start and end (those of ``split_lines``; lists, read an item
    at a time), and its tokens as ids of ``vocabulary`` (one shared by the texts whose tokens
    are compared)."""

    def __init__(self, text: str, vocabulary: EdgeVocabulary | None = None) -> None:
        self.text = text
        self.vocabulary = EdgeVocabulary() if vocabulary is None else vocabulary
        self._tokens: dict[tuple[int, int], tuple[np.ndarray, list[int]]] = {}
        self.starts, self.ends = _line_offsets(text)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, k: int) -> str:
        return self.text[self.starts[k] : self.ends[k]]

    def tokens(self, lo: int, hi: int) -> tuple[np.ndarray, list[int]]:
        """The ids of the tokens of lines ``lo..hi`` (0-based, inclusive; ``_edge_tokens_python``
        of them casefolded), and where each line's tokens start among them: line ``lo + k``'s
        are ``ids[first[k] : first[k + 1]]``. Remembered: a region of a text is often in several
        pairs, and the lines of no pair's region (most of a text) are never tokenized."""
        found = self._tokens.get((lo, hi))
        if found is None:
            chunk = self.text[self.starts[lo] : self.ends[hi]]
            ids, first = self.vocabulary.tokens(chunk.casefold())
            found = self._tokens[lo, hi] = (ids, first.tolist())
        return found


def _edge_tokens_python(folded: str, vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The id of each token of ``folded`` (a casefolded text; tokens as ``_EDGE_TOKEN`` finds
    them, a line end not one): ``vocabulary``'s, a token new to it getting ``len(vocabulary)``
    (so that ids are equal exactly where tokens are, across the texts sharing it); and, for each
    line (ended by ``\\n``, ``\\r\\n`` or ``\\r``, as ``split_lines`` has it), the index of its
    first token, then the number of tokens."""
    if "\r" in folded:
        folded = folded.replace("\r\n", "\n").replace("\r", "\n")
    found: list[str] = _EDGE_TOKEN.findall(folded)
    put = vocabulary.setdefault
    ids = np.fromiter((put(t, len(vocabulary)) for t in found if t != "\n"), dtype=np.int64)
    is_break = np.fromiter((t == "\n" for t in found), dtype=bool, count=len(found))
    breaks = np.flatnonzero(is_break)
    # The k-th line end has k line ends before it, the rest of what precedes it being tokens.
    first = np.concatenate(([0], breaks - np.arange(breaks.size), [ids.size]))
    return ids, first.astype(np.int64)


def _token_ids(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[str, int] = {}
    put = ids.setdefault
    ia = np.array([put(t, len(ids)) for t in a], dtype=np.int64)
    ib = np.array([put(t, len(ids)) for t in b], dtype=np.int64)
    return ia, ib


def _gram_keys(a: np.ndarray, b: np.ndarray, min_run: int) -> tuple[np.ndarray, np.ndarray]:
    """A key of each ``min_run``-gram of ``a`` and of ``b`` (int64 ids), equal exactly where
    the grams are: the ids ranked, then side by side in one int64 where they fit in it."""
    n, m = a.size - min_run + 1, b.size - min_run + 1
    _, inverse = np.unique(np.concatenate((a, b)), return_inverse=True)
    code = inverse.reshape(-1).astype(np.int64)
    size = int(code.max(initial=0)) + 1
    ca, cb = code[: a.size], code[a.size :]
    ka, kb = ca[:n].copy(), cb[:m].copy()
    bits = max(1, (size - 1).bit_length())
    if bits * min_run <= 63:
        for t in range(1, min_run):
            ka = (ka << bits) | ca[t : t + n]
            kb = (kb << bits) | cb[t : t + m]
        return ka, kb
    for t in range(1, min_run):  # ranked again after each token, so that keys stay small
        _, inverse = np.unique(
            np.concatenate((ka * size + ca[t : t + n], kb * size + cb[t : t + m])),
            return_inverse=True,
        )
        key = inverse.reshape(-1).astype(np.int64)
        ka, kb = key[:n], key[n:]
    return ka, kb


def _equal_runs(
    a: np.ndarray, b: np.ndarray, min_run: int, max_grams: int = _EDGE_MAX_GRAMS
) -> list[tuple[int, int, int]] | None:
    """Every maximal run ``(i, j, size)`` of ``a[i:i+size] == b[j:j+size]`` with ``size >=
    min_run`` (int64 token ids); None when more than ``max_grams`` pairs ``(i, j)`` start equal
    ``min_run``-grams (too many to look at)."""
    n, m = a.size - min_run + 1, b.size - min_run + 1
    if n < 1 or m < 1:
        return []
    ka, kb = _gram_keys(a, b, min_run)
    order = np.argsort(kb, kind="stable")
    sb = kb[order]
    lo = np.searchsorted(sb, ka, side="left")
    count = np.searchsorted(sb, ka, side="right") - lo
    total = int(count.sum())
    if total == 0:
        return []
    if total > max_grams:
        return None
    i = np.repeat(np.arange(n, dtype=np.int64), count)
    j = order[
        np.repeat(lo, count) + (np.arange(total) - np.repeat(np.cumsum(count) - count, count))
    ]
    d = i - j
    o = np.lexsort((i, d))
    i, d = i[o], d[o]
    new = np.ones(i.size, dtype=bool)
    new[1:] = (d[1:] != d[:-1]) | (i[1:] != i[:-1] + 1)
    first = np.flatnonzero(new)
    last = np.append(first[1:], i.size) - 1
    start = i[first]
    return list(
        zip(
            start.tolist(),
            (start - d[first]).tolist(),
            (i[last] - start + min_run).tolist(),
            strict=True,
        )
    )


def _choose_runs(
    runs: list[tuple[int, int, int]], n: int, m: int, min_run: int
) -> list[tuple[int, int, int]]:
    """The runs difflib's ``get_matching_blocks`` keeps of ``runs`` (maximal equal runs of
    sequences of ``n`` and ``m`` tokens): the longest in the box, ties to the smallest ``i``,
    then ``j``; then recursively left and right of it, each run clipped to the box."""
    chosen: list[tuple[int, int, int]] = []
    boxes = [(0, n, 0, m, runs)]
    while boxes:
        alo, ahi, blo, bhi, inside = boxes.pop()
        clipped = []
        best: tuple[int, int, int] | None = None
        for i, j, k in inside:
            d = i - j
            lo = max(i, alo, blo + d)
            hi = min(i + k, ahi, bhi + d)
            if hi - lo >= min_run:
                run = (lo, lo - d, hi - lo)
                clipped.append(run)
                if best is None or (-run[2], lo, run[1]) < (-best[2], best[0], best[1]):
                    best = run
        if best is None:
            continue
        chosen.append(best)
        bi, bj, bk = best
        left = [r for r in clipped if r[0] < bi and r[1] < bj]
        right = [r for r in clipped if r[0] + r[2] > bi + bk and r[1] + r[2] > bj + bk]
        if left:
            boxes.append((alo, bi, blo, bj, left))
        if right:
            boxes.append((bi + bk, ahi, bj + bk, bhi, right))
    chosen.sort()
    return chosen


def _matching_blocks_python(
    a: np.ndarray, b: np.ndarray, min_run: int, max_grams: int
) -> list[tuple[int, int, int]] | None:
    """The matching blocks ``(i, j, size)`` of ``difflib.SequenceMatcher(None, a, b,
    autojunk=False)`` (int64 token ids) of at least ``min_run`` tokens, in order; None when
    ``_equal_runs`` finds too many to look at. A shorter match only splits a box in which no
    run of ``min_run`` is left, so leaving them out changes nothing."""
    if min_run < 1:
        raise ValueError("matching_blocks() needs min_run >= 1")
    runs = _equal_runs(a, b, min_run, max_grams)
    return None if runs is None else _choose_runs(runs, a.size, b.size, min_run)


def _edge_chain_python(
    a: np.ndarray,
    b: np.ndarray,
    min_run: int,
    max_grams: int,
    gap: int,
    core_a_start: int,
    core_a_stop: int,
    core_b_start: int,
    core_b_stop: int,
) -> tuple[int, int, int, int] | None:
    """Of the matching blocks of ``a`` and ``b`` (``_matching_blocks_python``), the chain
    (blocks no more than ``gap`` tokens apart on either side) holding most tokens of the
    block-level regions ``a[core_a_start:core_a_stop]`` and ``b[core_b_start:core_b_stop]``
    (the first such chain): its first and last token on each side, ``(first_a, last_a,
    first_b, last_b)``. None when nothing aligns, too much does, or no chain holds any."""
    runs = _matching_blocks_python(a, b, min_run, max_grams)
    if not runs:
        return None
    # Tokens of the block-level region before each position, on each side (a run's score in
    # O(1)).
    inside_a = np.clip(np.arange(a.size + 1), core_a_start, core_a_stop) - core_a_start
    inside_b = np.clip(np.arange(b.size + 1), core_b_start, core_b_stop) - core_b_start
    ra = np.array(runs, dtype=np.int64).reshape(-1, 3)
    weight = (
        inside_a[ra[:, 0] + ra[:, 2]]
        - inside_a[ra[:, 0]]
        + inside_b[ra[:, 1] + ra[:, 2]]
        - inside_b[ra[:, 1]]
    ).tolist()
    best: tuple[int, int] | None = None  # first and last run of the best chain
    best_score = 0
    head, score = 0, 0
    for r, (i, j, _) in enumerate(runs):
        if r and (
            i - (runs[r - 1][0] + runs[r - 1][2]) > gap
            or j - (runs[r - 1][1] + runs[r - 1][2]) > gap
        ):
            if score > best_score:
                best, best_score = (head, r - 1), score
            head, score = r, 0
        score += weight[r]
    if score > best_score:
        best = (head, len(runs) - 1)
    if best is None:
        return None
    first, last = runs[best[0]], runs[best[1]]
    return first[0], last[0] + last[2] - 1, first[1], last[1] + last[2] - 1


# The native versions where the extension is built (tests/test_native.py holds them to these).
_matching_blocks: Callable[
    [np.ndarray, np.ndarray, int, int], list[tuple[int, int, int]] | None
] = speedups.matching_blocks if speedups else _matching_blocks_python
_edge_chain: Callable[..., tuple[int, int, int, int] | None] = (
    speedups.edge_chain if speedups else _edge_chain_python
)


def matching_runs(a: Sequence[str], b: Sequence[str], min_run: int) -> list[tuple[int, int, int]]:
    """The matching blocks ``(i, j, size)`` of ``difflib.SequenceMatcher(None, a, b,
    autojunk=False)`` of at least ``min_run`` tokens, in order, without difflib's cost on
    common tokens: the maximal equal runs of at least ``min_run`` are found from their
    ``min_run``-grams, then chosen as difflib chooses (``_matching_blocks_python``)."""
    if min_run < 1:
        raise ValueError("min_run must be at least 1")
    ia, ib = _token_ids(a, b)
    runs = _matching_blocks(ia, ib, min_run, _EDGE_MAX_GRAMS)
    if runs is None:
        raise ValueError("too many equal runs to choose from")
    return runs


def _core_tokens(first: list[int], lo: int, hi: int, core: tuple[int, int]) -> tuple[int, int]:
    """The tokens of lines ``core`` among those of lines ``lo..hi`` (both inclusive; ``first``
    as ``TextLines.tokens(lo, hi)`` gives it), as a range of the latter: empty if they do not
    meet."""
    top, bottom = max(lo, core[0]), min(hi, core[1])
    if top > bottom:
        return 0, 0
    return first[top - lo], first[bottom + 1 - lo]


def _span(old: PassageSpan, lines: TextLines, first: int, last: int, words: int) -> PassageSpan:
    """``old`` with lines ``first..last`` (0-based) of ``lines`` and ``words`` words."""
    return PassageSpan(
        path=old.path,
        start_line=first + 1,
        end_line=last + 1,
        start_char=lines.starts[first],
        end_char=lines.ends[last],
        words=words,
        preview=lines.line(first).strip()[:PREVIEW_CHARS],
    )


def refine_edges(
    pair: PassagePair,
    text_a: str | TextLines,
    text_b: str | TextLines,
    margin: int,
    gap: int,
    measure: Callable[[str], tuple[frozenset[int], int]],
) -> PassagePair:
    """``pair`` with both regions' ends set by aligning their tokens (see above), looking up
    to ``margin`` lines beyond each block-level end; unchanged when nothing aligns.
    ``TextLines`` of a text may be passed instead of it (a text takes part in many pairs)."""
    lines_a = text_a if isinstance(text_a, TextLines) else TextLines(text_a)
    if isinstance(text_b, TextLines) and text_b.vocabulary is lines_a.vocabulary:
        lines_b = text_b
    else:  # ids compare within one vocabulary only
        raw_b = text_b.text if isinstance(text_b, TextLines) else text_b
        lines_b = TextLines(raw_b, lines_a.vocabulary)
    if not len(lines_a) or not len(lines_b):
        return pair
    core_a = (pair.a.start_line - 1, pair.a.end_line - 1)  # 0-based from here on
    core_b = (pair.b.start_line - 1, pair.b.end_line - 1)
    lo_a, hi_a = max(0, core_a[0] - margin), min(len(lines_a) - 1, core_a[1] + margin)
    lo_b, hi_b = max(0, core_b[0] - margin), min(len(lines_b) - 1, core_b[1] + margin)
    if pair.a.path == pair.b.path:  # within one document: the two sides never meet
        hi_a = min(hi_a, core_b[0] - 1)
        lo_b = max(lo_b, core_a[1] + 1)
    if lo_a > hi_a or lo_b > hi_b:
        return pair
    ids_a, first_a = lines_a.tokens(lo_a, hi_a)
    ids_b, first_b = lines_b.tokens(lo_b, hi_b)
    if not ids_a.size or not ids_b.size or ids_a.size + ids_b.size > _EDGE_MAX_TOKENS:
        return pair
    chain = _edge_chain(
        ids_a,
        ids_b,
        _EDGE_RUN,
        _EDGE_MAX_GRAMS,
        gap,
        *_core_tokens(first_a, lo_a, hi_a, core_a),
        *_core_tokens(first_b, lo_b, hi_b, core_b),
    )
    if chain is None:  # nothing aligns, or too much (a table of numbers) to look at
        return pair
    # The line of a token: the last line whose tokens start at or before it.
    top_a, top_b = hi_a - lo_a + 1, hi_b - lo_b + 1
    fa = lo_a + bisect_right(first_a, chain[0], 0, top_a) - 1
    la = lo_a + bisect_right(first_a, chain[1], 0, top_a) - 1
    fb = lo_b + bisect_right(first_b, chain[2], 0, top_b) - 1
    lb = lo_b + bisect_right(first_b, chain[3], 0, top_b) - 1
    a_chars = (lines_a.starts[fa], lines_a.ends[la])
    b_chars = (lines_b.starts[fb], lines_b.ends[lb])
    old_a, old_b = pair.a, pair.b
    if (fa + 1, la + 1, *a_chars, fb + 1, lb + 1, *b_chars) == (
        old_a.start_line,
        old_a.end_line,
        old_a.start_char,
        old_a.end_char,
        old_b.start_line,
        old_b.end_line,
        old_b.start_char,
        old_b.end_char,
    ):
        return pair
    terms_a, count_a = measure(lines_a.text[a_chars[0] : a_chars[1]])
    terms_b, count_b = measure(lines_b.text[b_chars[0] : b_chars[1]])
    both = len(terms_a & terms_b)
    union = len(terms_a) + len(terms_b) - both
    similarity = round(both / union, 4) if union else 1.0
    return PassagePair(
        _span(old_a, lines_a, fa, la, count_a), _span(old_b, lines_b, fb, lb, count_b), similarity
    )


# ---------------------------------------------------------------------------------------------
# Entry points


@dataclass(frozen=True)
class _SourceTexts:
    """The decoded text of a source by path, read again (None: changed or gone since it was
    read; its block-level ends stay). A class, so that worker processes can be sent it."""

    sources: dict[str, SourceFile]
    max_size: int
    # The encoding detection chose for a file when the scan read it: used again.
    detected: dict[str, str] = field(default_factory=dict)

    def __call__(self, path: str) -> str | None:
        try:
            decoded = read_document(self.sources[path], self.max_size, self.detected.get(path))
        except Exception:
            return None
        return None if isinstance(decoded, SkippedFile) else decoded.text


def find_passages(
    sources: Sequence[SourceFile],
    options: ScanOptions,
    passages: PassageOptions,
    *,
    near_duplicates: Iterable[tuple[str, str]] = (),
) -> Passages:
    """Duplicated passages among the files ``sources`` (read again, one at a time)."""
    read = read_passages(
        sources,
        options.features,
        passages,
        max_size=options.discovery.max_size,
        jobs=options.jobs,
    )
    docs = [d for d in read if d is not None]
    by_path = {s.path: s for s in sources}
    return _match_sources(docs, by_path, options, passages, near_duplicates, len(read) - len(docs))


def _match_sources(
    docs: Sequence[DocumentPassages],
    sources: dict[str, SourceFile],
    options: ScanOptions,
    passages: PassageOptions,
    near_duplicates: Iterable[tuple[str, str]],
    unreadable: int,
    detected: dict[str, str] | None = None,
) -> Passages:
    """``match_passages`` of files' windows, their texts read again for the edges (decoded
    with the encodings ``detected`` for them before, by path)."""
    result = match_passages(
        docs,
        passages,
        scan_options=options,
        near_duplicates=near_duplicates,
        texts=_SourceTexts(sources, options.discovery.max_size, detected or {}),
        jobs=options.jobs or default_jobs(),
    )
    result.stats["files_unreadable"] = unreadable
    return result


_PASSAGE_PROCESSORS: dict[tuple[FeatureParams, PassageOptions], PassageProcessor] = {}


class _PassageTask:
    """The engines' ``TextTask`` of ``scan --passages``: each fingerprinted text is cut into
    passage windows in the worker that has just decoded and segmented it (one read, the
    vocabulary's memo of its lines warm); only numbers go back to the parent."""

    def __init__(self, params: FeatureParams, passages: PassageOptions) -> None:
        self.params = params
        self.passages = passages

    def __call__(self, path: str, text: str) -> DocumentPassages:
        key = (self.params, self.passages)
        proc = _PASSAGE_PROCESSORS.get(key)
        if proc is None:
            proc = _PASSAGE_PROCESSORS[key] = PassageProcessor(self.params, self.passages)
        return proc.document(path, text)


def _passage_engine(
    engine: Engine,
    options: ScanOptions,
    passages: PassageOptions,
    sink: dict[str, tuple[SourceFile, DocumentPassages]],
) -> Engine | None:
    """``engine`` running the passage task, or None when it cannot (its workers never hold
    the texts)."""

    def keep(source: SourceFile, result: Result, found: DocumentPassages | None) -> None:
        if found is not None and not isinstance(result, SkippedFile):
            sink[result.path] = (source, found)

    return engine.with_task(_PassageTask(options.features, passages), keep)


def scan_passages(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    passages: PassageOptions | None = None,
    **scan_arguments: Any,
) -> ScanResult:
    """``simdup.scan`` with duplicated passages (``scan --passages``): the whole-document
    result, plus ``passages`` and ``repeated_passages``. Keyword arguments are ``scan``'s.

    The files are fingerprinted as a scan does (engine, cache). Where the engine is the local
    one, it runs the passage task (``_PassageTask``), which cuts each text into passage windows
    as it is fingerprinted; files it did not read (answered by the scan cache, or another engine)
    are read again for their passages. With ``reference`` (``--against``), passages are looked
    for among the scanned files only.
    """
    passages = passages or PassageOptions()
    sink: dict[str, tuple[SourceFile, DocumentPassages]] = {}
    chosen: Callable[[ScanOptions], Engine] | None = scan_arguments.pop("engine_for", None)
    given: Engine | None = scan_arguments.pop("engine", None)

    def engine_for(o: ScanOptions) -> Engine:
        engine = chosen(o) if chosen is not None else given
        if engine is None:
            engine = make_engine(o.features, max_size=o.discovery.max_size, jobs=o.jobs)
        # Files the scan cache answers are not read by the engine: read again below.
        return _passage_engine(engine, o, passages, sink) or engine

    result = scan(paths, options, engine_for=engine_for, **scan_arguments)
    started = time.perf_counter()
    resolved = _resolved(options, scan_arguments)
    sources = {path: source for path, (source, _) in sink.items()}
    unread = [d.path for d in result.files if d.path not in sink]
    read: dict[str, DocumentPassages | None] = {}
    if unread:
        found = find_files([os.fspath(p) for p in paths], resolved.discovery).files
        by_path = {f.path: f for f in found}
        again = [by_path[path] for path in unread if path in by_path]
        sources.update((s.path, s) for s in again)
        jobs = resolved.jobs or default_jobs()
        max_size = resolved.discovery.max_size
        for s, doc in zip(
            again,
            read_passages(again, resolved.features, passages, max_size=max_size, jobs=jobs),
            strict=True,
        ):
            read[s.path] = doc
    docs: list[DocumentPassages] = []
    unreadable = 0
    for d in result.files:
        if d.path in sink:
            docs.append(sink[d.path][1])
        elif d.path in read:
            doc = read[d.path]
            if doc is None:
                unreadable += 1
            else:
                docs.append(doc)
    sink.clear()
    detected = {d.path: d.encoding for d in result.files if d.encoding_source == "detected"}
    matched = _match_sources(
        docs, sources, resolved, passages, ((p.a, p.b) for p in result.pairs), unreadable, detected
    )
    seconds = dict(result.stats.get("seconds") or {})
    seconds["passages"] = round(time.perf_counter() - started, 3)
    if "total" in seconds:
        seconds["total"] = round(seconds["total"] + seconds["passages"], 3)
    stats = {
        **result.stats,
        "passages": len(matched.pairs),
        "repeated_passages": len(matched.repeated),
        "passage_stats": matched.stats,
        "seconds": seconds,
    }
    settings = {**result.settings, "passages": passages.describe()}
    return replace(
        result,
        settings=settings,
        stats=stats,
        passages=matched.pairs,
        repeated_passages=matched.repeated,
    )


def _resolved(options: ScanOptions | None, overrides: dict[str, Any]) -> ScanOptions:
    fields = {k: v for k, v in overrides.items() if k in ScanOptions.__dataclass_fields__}
    return resolve_options(options, fields)


def compare_passages(
    path_a: str | os.PathLike[str],
    path_b: str | os.PathLike[str],
    options: ScanOptions | None = None,
    passages: PassageOptions | None = None,
    *,
    stdin: bytes | None = None,
) -> tuple[PassagePair, ...]:
    """The matching regions of two files (``compare A B --passages``), whether or not the two
    are near-duplicates as a whole. Raises ``InputError`` when one cannot be read."""
    options = options or ScanOptions()
    passages = passages or PassageOptions()
    proc = PassageProcessor(options.features, passages)
    docs = []
    texts: dict[str, str] = {}
    for path in (os.fspath(path_a), os.fspath(path_b)):
        decoded = read_named(path, options.discovery.max_size, stdin)
        docs.append(proc.document(path, decoded.text))
        texts[path if path not in texts else path + "\0"] = decoded.text
    if docs[0].path == docs[1].path:
        docs[1] = replace(docs[1], path=docs[1].path + "\0")  # the same file twice
    found = match_passages(
        docs,
        replace(passages, all_pairs=True, max_repeats=0),
        scan_options=options,
        texts=texts.get,
    )
    pairs = [p for p in found.pairs if p.a.path != p.b.path]
    pairs = [_unmark(p) for p in pairs]
    return tuple(pairs)


def _unmark(pair: PassagePair) -> PassagePair:
    def fix(span: PassageSpan) -> PassageSpan:
        return replace(span, path=span.path.rstrip("\0")) if span.path.endswith("\0") else span

    return replace(pair, a=fix(pair.a), b=fix(pair.b))
