"""How passages are found and reported: ``PassageOptions`` (validated once), the fragment rule
it stands for, and the length of previews."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..algorithms.fragments import KGRAM, FragmentRule
from ..algorithms.sentences import SentenceRule
from ..errors import ConfigError

# Characters of a passage's first line kept as its preview (a span's, in the reports).
PREVIEW_CHARS = 40
# ``compare --passages`` also reports copies down to this many words: between two documents
# a user chose, a shared sentence is worth showing; in a collection (``scan``) most short
# shared passages are its templates, so there they are looked for only when asked.
COMPARE_MIN_MATCH = 20.0
# A passage is reported as line ranges ("lines 40-52 of A are a copy of lines 7-19 of B"), so
# those lines must be alike: their tokens in common, in order, at least this share of each
# side's (``check``'s density rule, half of a fragment's own tokens matched, applied to what
# is reported; ``aligning.lines_alike``). A copy whose lines are not (one inside longer,
# different lines) needs twice ``min_words`` (``PassageOptions.embedded_words``). Measured on
# documentation pages (issue 48), most passages that were neither a copy nor two alike regions
# were a stock sentence of 25-49 words two pages share inside long lines (a paragraph a line)
# that otherwise differ; a copy of whole lines (a pasted passage, re-wrapped or not) and an
# edited revision of a paragraph are alike line for line, and a block pasted inside a long
# line is longer than a sentence or two.
LINE_SHARE = 0.5
# A copy of fewer than ``min_words`` words, down to ``WHOLE_LINES_SHARE`` of them (12.5 words
# of the default 25), is a passage when it is whole lines alike (``aligning.whole_lines``): at
# least ``SHORT_LINES`` lines with words on each side, the tokens of those lines alike as
# wholes. What a reader sees of a short copy can weigh few words (a list of links, a code
# block's identifiers, a Markdown line whose link targets are hidden), yet several lines pasted
# whole are a copy; a stock sentence or a template's heading is one line, or lines alike only
# in part. Chosen on the dev half of a collection of documentation pages with copies planted
# (``benchmarks/passage_set.py``: shares 0.3-0.7, 3-5 lines, line similarity 0.8-0.95).
WHOLE_LINES_SHARE = 0.5
SHORT_LINES = 3
# Such a copy is looked for around fingerprints of its own: a passage's (``min_words`` 25:
# winnowing window 22, sure to be found from a shared run of 25 tokens on) are too sparse for a
# copy of 13-24 words, whose edits leave runs of 6-20, and most such copies shared none. Each
# document also keeps its k-grams winnowed with a window of ``SHORT_WINDOW`` (a run of 12
# tokens shared is sure to hold one; about 2 in 10 k-grams kept, against 2 in 23), and two
# documents sharing one, with ``SHORT_ANCHOR_RUN`` tokens in a row equal on both sides around
# it (``candidates.anchored``; a passage's anchors need 12), and no passage fingerprint, are
# aligned there too (``candidates.with_short``). Chosen on the dev half of the collection set
# (``benchmarks/passage_set.py``, ``.txt``; without them 150 of 174 planted copies found, 6
# false passages): windows 5, 7, 9 by runs 8, 10, 12, and 11, 13 by 10. Windows 5-9 with runs
# 8 or 10 found 158 (8 false), runs of 12 155, windows 11 and 13 157; of the most found, the
# largest window and run (the fewest fingerprints kept and pairs aligned): 9 and 10.
SHORT_WINDOW = 9
SHORT_ANCHOR_RUN = 10
# A k-gram a document holds at more places than this is not looked for at the others
# (``candidates.at_every_place``): a page of reference entries repeats a sentence under each
# of them (ten times in one page of the collection set of issue 48), a template repeats more.
EVERY_PLACE = 16


@dataclass(frozen=True)
class PassageOptions:
    """How passages are found and reported.

    A passage is a copied fragment as ``check`` finds one (``algorithms.fragments``: exact runs
    of tokens chained where at most ``gap`` tokens differ between them on each side, at least
    half of it matched) whose matched tokens weigh at least ``min_words`` words (13 CJK
    characters count 8). ``min_words`` and ``gap`` were chosen on the dev half of the labelled
    passage benchmark (``benchmarks/passages.py --grid``: among min_words 20, 25, 30, 40 and
    gap 4, 8, 12, the most recall of passages >= 5 lines / 50 words with precision >= 0.99;
    ties to the recall of all sizes, then the larger min_words, then the smaller gap) and are
    reported on its test half. ``min_match``, when set below ``min_words``, looks for shorter
    copies too (``--passage-min-match``: a sentence pasted from another document).
    ``max_repeats`` is not from the benchmark, which compares two documents at a time."""

    min_words: int = 25  # the shortest passage, in words
    gap: int = 4  # tokens that may differ between two exact runs of a passage, on each side
    # Copies shorter than ``min_words``, down to this many words (0: none shorter).
    min_match: float = 0.0
    # Copies shorter than ``min_words`` of whole lines alike, down to this share of it (0:
    # none; ``WHOLE_LINES_SHARE``; not with ``min_match``, which asks for any copy that short).
    whole_lines_share: float = WHOLE_LINES_SHARE
    max_repeats: int = 10  # a passage in more documents than this is one repeated passage (0: off)
    # The share of the tokens of its lines, on each side, that must be in common for a copy to
    # be a passage from ``min_words`` on (``LINE_SHARE``: why; 0: any).
    line_share: float = LINE_SHARE
    # Also passages reworded (sentences compared as bags of words, as ``check`` finds them),
    # between documents that share an exact run (a candidate pair).
    reworded: bool = False
    within: bool = False  # also passages repeated inside one document
    all_pairs: bool = False  # also pairs of documents that are near-duplicates as a whole
    max_previews: int = PREVIEW_CHARS  # characters of a preview (0: none, no text read again)

    def __post_init__(self) -> None:
        if self.min_words < 5:
            raise ConfigError("passage min_words must be at least 5")
        if self.min_match and self.min_match < KGRAM:
            raise ConfigError(f"passage min_match must be 0 (off) or at least {KGRAM}")
        if not 0.0 <= self.whole_lines_share <= 1.0:
            raise ConfigError("passage whole_lines_share must be between 0 and 1")
        if self.gap < 0:
            raise ConfigError("passage gap must be at least 0")
        if not 0.0 <= self.line_share <= 1.0:
            raise ConfigError("passage line_share must be between 0 and 1")
        if self.max_repeats < 0 or self.max_repeats == 1:
            raise ConfigError("max_repeats must be 0 (off) or at least 2")

    @property
    def shortest(self) -> float:
        """The fewest words a passage is reported with, but for a copy of whole lines alike
        (``whole_lines_words``): what its fingerprints and boilerplate are judged by."""
        return min(self.min_words, self.min_match) if self.min_match else float(self.min_words)

    @property
    def whole_lines_words(self) -> float:
        """The fewest words of a copy of whole lines alike (``WHOLE_LINES_SHARE`` of
        ``min_words``), shorter than ``shortest``; 0: no such copies (``min_match`` set, or
        the share 0). Only the aligning of two documents looks for them: their fingerprints
        and boilerplate are those of ``shortest``, as a collection's templates stay
        judged so."""
        if self.min_match or not self.whole_lines_share:
            return 0.0
        share = self.whole_lines_share * self.min_words
        return min(float(self.min_words), max(float(KGRAM), share))

    @property
    def embedded_words(self) -> float:
        """The fewest words of a copy whose lines are not alike (``LINE_SHARE``): twice
        ``min_words`` (``LINE_SHARE``), or ``min_match`` when shorter copies are asked for (a
        sentence pasted into a paragraph is inside longer lines by nature)."""
        return self.shortest if self.min_match else 2.0 * self.min_words

    def describe(self) -> dict[str, Any]:
        return {
            "min_words": self.min_words,
            "min_match": self.min_match,
            "whole_lines_share": self.whole_lines_share,
            "short_lines": SHORT_LINES,
            "short_window": SHORT_WINDOW if self.whole_lines_words else None,
            "short_anchor_run": SHORT_ANCHOR_RUN if self.whole_lines_words else None,
            # Anchors at every place of a k-gram held up to this many times (``candidates``).
            "every_place": EVERY_PLACE,
            # Markdown files are also matched as written (``matching._as_written``).
            "markdown_as_written": True,
            # File lines next to a copy (``edges._reach_lines``): lines of no word with their
            # punctuation edited are alike, a renamed heading is taken in at the copy's edge.
            "wordless_lines_alike": True,
            "renamed_headings": True,
            **{f"fragment_{k}": v for k, v in self.fragment_rule().describe().items()},
            "max_repeats": self.max_repeats,
            "line_share": self.line_share,
            "embedded_words": self.embedded_words,
            "reworded": SentenceRule().describe() if self.reworded else None,
            "within": self.within,
            "all_pairs": self.all_pairs,
        }

    def fragment_rule(self) -> FragmentRule:
        """The rule every passage passes: ``check``'s, with the passages' size and gap."""
        return FragmentRule(min_match=self.shortest, gap=self.gap)
