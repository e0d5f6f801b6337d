"""One document as passage matching keeps it: its tokens (``text.tokens``: CJK characters and
words with their character offsets, no text), their winnowed k-gram fingerprints with their
places (``algorithms.fragments``), and where its lines start. ``PassageProcessor`` makes it
from a decoded text; ``DocumentPassages`` is what is kept."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..algorithms.fragments import FragmentRule, placed_fingerprints
from ..algorithms.sentences import Side
from ..algorithms.winnowing import kgram_hashes, winnow
from ..params import FeatureParams
from ..records import FileText, Locations, PassageSpan
from ..text.lines import line_breaks
from ..text.sentence_bags import sentence_side
from ..text.tokens import CJK_WEIGHT, Tokens, tokenize
from .options import EVERY_PLACE, SHORT_WINDOW, PassageOptions


@dataclass(frozen=True)
class DocumentPassages:
    """What passage matching keeps of one document (no text): its ``tokens`` (hashes,
    character offsets), the winnowed fingerprints of its k-grams (``shingles``, distinct,
    ascending) and the token where each first starts (``shingle_at``), and the character
    offsets where its lines after the first start (``breaks``)."""

    path: str
    tokens: Tokens = field(repr=False)
    shingles: np.ndarray = field(repr=False)  # uint64
    shingle_at: np.ndarray = field(repr=False)  # int64
    breaks: np.ndarray = field(repr=False)  # int64
    # Where the parts of the text come from (pages, paragraphs), for reports.
    locations: Locations | None = None
    # Its sentences as bags of words (``PassageOptions.reworded`` only).
    sentences: Side | None = field(repr=False, default=None)
    # Its lines with characters but no token (a closing brace, a code fence, a rule), a row
    # each: 0-based line, a hash of its stripped text, where that text starts and ends.
    bare: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 4), np.int64))
    # Whether its text renders the file's characters (Markdown, HTML): its passages are then
    # given in the file's characters (``texts.ReadAgain``).
    rendered: bool = False
    # The denser fingerprints that find copies of whole lines shorter than ``min_words``
    # (``options.SHORT_WINDOW``), and where each first starts; empty when none are looked for.
    short_shingles: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.uint64))
    short_at: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.int64))
    # The k-grams it holds at 2 to ``options.EVERY_PLACE`` places: their hashes (ascending)
    # and places, a row each (``candidates.at_every_place``).
    repeat_hashes: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.uint64))
    repeat_at: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.int64))
    # A Markdown file's: the places of its fingerprints (``shingle_at``, ``short_at``) whose
    # k-gram its file as written does not hold (words that markup separates there, a link's
    # text and the word after it), ascending: only around those can a copy be found as read
    # and not as written (``matching``).
    read_only_at: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.int64))
    short_read_only_at: np.ndarray = field(
        repr=False, default_factory=lambda: np.empty(0, np.int64)
    )
    # A Markdown file's characters as written, as a plain text's (``written``: copies of its
    # lines whatever they render to); None for any other file.
    as_written: DocumentPassages | None = field(repr=False, default=None)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def line_count(self) -> int:
        return int(self.breaks.size) + 1

    def line(self, offset: int) -> int:
        """The 1-based line of the character at ``offset``."""
        return int(np.searchsorted(self.breaks, offset, "right")) + 1

    def words(self, first: int, last: int) -> float:
        """What tokens ``first..last`` (inclusive) weigh in words (a CJK character 8/13)."""
        return float(np.where(self.tokens.cjk[first : last + 1], CJK_WEIGHT, 1.0).sum())

    @cached_property
    def token_lines(self) -> np.ndarray:
        """The 0-based line of each token (where it starts), ascending."""
        lines: np.ndarray = np.searchsorted(self.breaks, self.tokens.starts, "right")
        return lines

    def line_range(self, first: int, last: int) -> tuple[int, int]:
        """The tokens ``lo..hi-1`` on the lines that tokens ``first..last`` are reported on."""
        lines = self.token_lines
        lo = int(np.searchsorted(lines, lines[first], "left"))
        return lo, int(np.searchsorted(lines, lines[last], "right"))

    def word_lines(self, first: int, last: int) -> int:
        """How many lines hold tokens ``first..last``."""
        return int(np.unique(self.token_lines[first : last + 1]).size)

    def tokens_of_line(self, token: int) -> tuple[int, int]:
        """The tokens ``lo..hi-1`` on the line of ``token``."""
        lines = self.token_lines
        line = lines[token]
        return int(np.searchsorted(lines, line, "left")), int(np.searchsorted(lines, line, "right"))

    def bare_line(self, line: int) -> tuple[int, int, int] | None:
        """The hash, start and end of the 1-based ``line`` if it has characters but no token,
        else None."""
        at = int(np.searchsorted(self.bare[:, 0], line - 1))
        if at == self.bare.shape[0] or int(self.bare[at, 0]) != line - 1:
            return None
        _, hashed, start, end = self.bare[at].tolist()
        return hashed, start, end

    def span(self, first: int, last: int, preview: str = "") -> PassageSpan:
        """Tokens ``first..last`` (inclusive) as a span of lines and characters."""
        start, end = self.tokens.span(first, last)
        return PassageSpan(
            path=self.path,
            start_line=self.line(start),
            end_line=self.line(max(start, end - 1)),
            start_char=start,
            end_char=end,
            words=round(self.words(first, last)),
            preview=preview,
        )


class PassageProcessor:
    """Makes a decoded text's ``DocumentPassages``. Holds no state between documents."""

    def __init__(self, params: FeatureParams, passages: PassageOptions) -> None:
        self.params = params
        self.passages = passages
        self.rule: FragmentRule = passages.fragment_rule()
        self.short_rule = replace(self.rule, min_match=float(SHORT_WINDOW + self.rule.kgram - 1))

    def document(
        self,
        path: str,
        text: str,
        locations: Locations | None = None,
        rendered: bool = False,
        written: str | None = None,
    ) -> DocumentPassages:
        """``text``'s passage tokens; ``written``: the characters of a Markdown file it was
        rendered from (``written_text``), whose tokens are kept too (``as_written``)."""
        # The text as read, markup and URLs included: a copy carries its links, and code
        # blocks (with the HTML inside them) are content.
        tokens = tokenize(text)
        shingles, shingle_at = placed_fingerprints(tokens.hashes, self.rule)
        breaks = line_breaks(text)
        sentences = sentence_side(text, tokens) if self.passages.reworded else None
        short: dict[str, np.ndarray] = {}
        if self.passages.whole_lines_words:
            found, at = placed_fingerprints(tokens.hashes, self.short_rule)
            short = {"short_shingles": found, "short_at": at}
        windows = (self.rule.window, self.short_rule.window)
        repeat_hashes, repeat_at = repeated_kgrams(tokens.hashes, self.rule.kgram, windows)
        as_written = None if written is None else self.document(path, written)
        read_only: dict[str, np.ndarray] = {}
        if as_written is not None:
            held = np.sort(kgram_hashes(as_written.tokens.hashes, self.rule.kgram))
            read_only["read_only_at"] = np.sort(shingle_at[~_among(shingles, held)])
            if short:
                at = short["short_at"][~_among(short["short_shingles"], held)]
                read_only["short_read_only_at"] = np.sort(at)
        return DocumentPassages(
            path,
            tokens.compact(),
            shingles,
            shingle_at,
            breaks,
            locations,
            sentences,
            bare_lines(text, breaks, tokens.starts),
            rendered,
            **short,
            repeat_hashes=repeat_hashes,
            repeat_at=repeat_at,
            **read_only,
            as_written=as_written,
        )


def repeated_kgrams(
    hashes: np.ndarray, kgram: int, windows: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The k-grams of a token sequence that winnowing with one of ``windows`` keeps at 2 to
    ``EVERY_PLACE`` places: their hashes (ascending) and those places, a row each. An anchor
    is a kept k-gram, and a copy of another place of it keeps it there too (winnowing keeps
    the same k-gram of the same tokens), so the places it does not keep are not needed."""
    kgrams = kgram_hashes(hashes, kgram)
    if not kgrams.size:
        return kgrams, np.empty(0, dtype=np.int64)
    places = np.unique(np.concatenate([winnow(kgrams, w) for w in windows]))
    order = places[np.argsort(kgrams[places], kind="stable")]
    ordered = kgrams[order]
    cuts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
    sizes = np.diff(cuts)
    keep = np.repeat((sizes > 1) & (sizes <= EVERY_PLACE), sizes)
    return ordered[keep], order[keep].astype(np.int64)


def _among(values: np.ndarray, ascending: np.ndarray) -> np.ndarray:
    """Which of ``values`` are in the sorted array ``ascending`` (a binary search each)."""
    if not ascending.size:
        return np.zeros(values.size, dtype=bool)
    at = np.minimum(np.searchsorted(ascending, values), ascending.size - 1)
    found: np.ndarray = ascending[at] == values
    return found


def written_text(origin: FileText | None) -> str | None:
    """A Markdown file's characters, from the ``origin`` of the text its reader made
    (None for any other file: an HTML page's every paragraph has tags around it that any two
    pages share)."""
    return origin.text if origin is not None and origin.markup == "markdown" else None


def bare_lines(text: str, breaks: np.ndarray, token_starts: np.ndarray) -> np.ndarray:
    """``DocumentPassages.bare`` of ``text``: its lines with characters but no token."""
    count = breaks.size + 1
    has_token = np.zeros(count, dtype=bool)
    has_token[np.searchsorted(breaks, token_starts, "right")] = True
    starts = np.r_[0, breaks]
    ends = np.r_[breaks, len(text)]
    # An empty line is its line break alone (one character): most lines without a token.
    maybe = ~has_token & (ends - starts > 1)
    maybe[-1] = not has_token[-1] and ends[-1] > starts[-1]
    rows: list[tuple[int, int, int, int]] = []
    for line in np.flatnonzero(maybe).tolist():
        start, end = int(starts[line]), int(ends[line])
        raw = text[start:end]
        stripped = raw.strip()
        if stripped:
            first = start + raw.index(stripped)
            hashed = zlib.crc32(stripped.encode("utf-8", "surrogatepass"))
            rows.append((line, hashed, first, first + len(stripped)))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)
