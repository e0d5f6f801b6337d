"""Line-level edges: the ends of each reported region set again from the two texts.

Regions are found block by block, and a block can hold several lines: a copy that starts in
the middle of a block is found from the next block on, and a window reaching past a copy's
end can carry its neighbours into the region. So each reported region's ends are set again
from the two texts (read again, only for documents that have a region): the tokens of both
regions and a few lines around them are aligned as ``difflib.SequenceMatcher`` aligns them
(longest matching runs in order; ``simdup.passages.align``); runs of at least ``_EDGE_RUN``
tokens chain while no more than ``edge_gap`` tokens lie between two of them on either side (an
edited word or two), and the chain that covers most of the block-level region gives the
first and last line on each side. Alignment in order, rather than shared words, keeps a
neighbouring line out that shares words with the copy but not their order (an image link to
the same host, a heading naming the topic); the tokens run across line ends, so re-wrapped
text aligns as well as the original.

A text takes part in many pairs, and a region in several: each text is read and split into
lines once while it is held (``EdgeTexts``), and a region's measure is remembered.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable

from ..records import PassagePair, PassageSpan
from .align import EDGE_MAX_GRAMS, EdgeVocabulary, TextLines, edge_chain
from .documents import PassageProcessor
from .options import PREVIEW_CHARS, PassageOptions
from .regions import sorted_once

_EDGE_RUN = 3  # shorter matching runs are chance ("的是", "the")
_EDGE_MAX_TOKENS = 1 << 15  # larger ranges keep their block-level ends (alignment cost)

# Texts of the pairs being refined held at once, in characters (least recently used out first):
# a text takes part in many pairs, on either side, and reading it again costs more than its
# alignment. At least the last three are held, as large as they are.
_HELD_CHARS = 1 << 23
# Past this many distinct tokens the vocabulary starts again (with the texts held): it only
# grows otherwise.
_VOCABULARY_LIMIT = 1 << 18
# Regions' measures remembered (a region is often that of several pairs), in characters.
_MEASURED_CHARS = 1 << 22


class EdgeTexts:
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


def refine_pairs(
    pairs: Iterable[PassagePair], texts: EdgeTexts, options: PassageOptions
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


def refine_all(
    pairs: list[PassagePair], texts: EdgeTexts, options: PassageOptions
) -> list[PassagePair]:
    """``refine_edges`` of every pair (sorted by side A, so each text of side A is read once),
    sorted, without repeats."""
    return sorted_once(refine_pairs(pairs, texts, options))


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
    chain = edge_chain(
        ids_a,
        ids_b,
        _EDGE_RUN,
        EDGE_MAX_GRAMS,
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
