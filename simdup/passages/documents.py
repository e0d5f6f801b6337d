"""One document's passage windows: its text cut into blocks (``simdup.text.blocks``), a window
starting at every block and holding ``min_words`` words, and each window's SimHash, the signs
of its blocks' summed counters (``window_fingerprints``, natively where the extension is
built). ``PassageProcessor`` (one per process) remembers the blocks it has seen;
``DocumentPassages`` is what is kept of a document: numbers, never its text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import xxhash

from ..algorithms.fragments import placed_fingerprints
from ..algorithms.simhash import group_counters
from ..native import speedups
from ..params import FeatureParams
from ..records import Locations, PassageSpan
from ..text.blocks import cut_text
from ..text.features import weigh
from ..text.normalize import markup_spans, strip_ignorables, strip_markup
from ..text.processor import DocumentProcessor, processor_for
from ..text.textscan import collapse as collapse_whitespace
from ..text.tokens import Tokens, tokenize
from .options import PassageOptions

# Window weights are scaled to integers before the per-bit prefix sums, so a window's
# fingerprint is exact (no floating-point order) and the same on every machine.
_WEIGHT_SCALE = 1 << 10
# Blocks remembered per process (text -> features): revisions of a document share most of
# their paragraphs. Started afresh past this many.
_MEMO_LIMIT = 1 << 17


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
    # Where the parts of the text come from (pages, paragraphs), for reports.
    locations: Locations | None = None
    # Copies shorter than a window (``short``, when ``min_match`` is set): the winnowed k-gram
    # fingerprints of its tokens and where each starts, and its tokens (hashes, characters).
    shingles: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.uint64))
    shingle_at: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.int64))
    tokens: Tokens | None = field(repr=False, default=None)

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

    def document(
        self, path: str, text: str, locations: Locations | None = None
    ) -> DocumentPassages:
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
        rule = opts.fragment_rule()
        tokens = passage_tokens(text, self.params.markup) if rule is not None else None
        if tokens is not None and rule is not None:
            shingles, shingle_at = placed_fingerprints(tokens.hashes, rule)
            tokens = tokens.compact()
        else:
            shingles, shingle_at = np.empty(0, np.uint64), np.empty(0, np.int64)
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
            locations=locations,
            shingles=shingles,
            shingle_at=shingle_at,
            tokens=tokens,
        )


def passage_tokens(text: str, markup: bool) -> Tokens:
    """The tokens short passages are found from: with ``markup`` (the scan's default), those of
    URLs, link targets and HTML tags outside code blocks left out, as the windows leave them
    out."""
    tokens = tokenize(text)
    return tokens.outside(markup_spans(text)) if markup else tokens


def _window_ends(words: np.ndarray, min_words: int) -> np.ndarray:
    """For each block, the last block of its window: the first block at which the blocks from
    it on hold ``min_words`` words (-1: fewer than that are left)."""
    n = words.size
    cumulative = np.concatenate(([0], np.cumsum(words)))
    end = np.searchsorted(cumulative, cumulative[:-1] + min_words, side="left") - 1
    return np.where(end < n, end, -1).astype(np.int64)


def window_fingerprints_python(counters: np.ndarray, rows: np.ndarray, ends: np.ndarray) -> bytes:
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
    speedups.window_fingerprints if speedups else window_fingerprints_python
)


def window_fingerprints(counters: np.ndarray, rows: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``window_fingerprints_python`` as a ``uint64`` array (natively when the extension is
    there)."""
    found = _window_fingerprints(
        np.ascontiguousarray(counters, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(ends, dtype=np.int64),
    )
    return np.frombuffer(found, dtype=np.uint64).copy()
