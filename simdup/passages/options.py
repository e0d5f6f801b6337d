"""How passages are cut, matched and reported: ``PassageOptions`` (validated once; the
passage thresholds as the one near-duplicate rule takes them), and the length of previews."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..algorithms.fragments import FragmentRule
from ..algorithms.index import MAX_THRESHOLD
from ..errors import ConfigError
from ..join.verify import Verifier
from ..options import ScanOptions
from ..text.blocks import DEFAULT_MAX_LINES

# Characters of a block's first line kept as its preview (a span's, in the reports).
PREVIEW_CHARS = 40


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
    # Copies shorter than a window, down to this many words (13 CJK characters per 8 words),
    # are found as the duplicate check finds copied fragments (0: windows only), with up to
    # ``match_gap`` differing tokens bridged. 20: the most recall on the dev half with
    # precision >= 0.99 among 8, 12, 16, 20, 24 (shorter shared runs between two documents of
    # one collection are mostly its templates: a newsletter's standing lines).
    min_match: float = 20.0
    match_gap: int = 4
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
        if self.min_match and self.min_match < FragmentRule().kgram:
            least = FragmentRule().kgram
            raise ConfigError(f"passage min_match must be 0 (off) or at least {least}")
        if self.match_gap < 0:
            raise ConfigError("passage match_gap must be at least 0")
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
            "min_match": self.min_match,
            "match_gap": self.match_gap,
            "max_repeats": self.max_repeats,
            "within": self.within,
            "all_pairs": self.all_pairs,
        }

    def fragment_rule(self) -> FragmentRule | None:
        """The rule of short passages (None: they are not looked for)."""
        if not self.min_match:
            return None
        return FragmentRule(min_match=self.min_match, gap=self.match_gap)

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
