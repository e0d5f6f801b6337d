"""The duplicate check of one document against everything else (查重): copied fragments down
to a sentence, the copy ratio with and without quotations and the author's own work, the
sources, and a ratio per section.

``simdup.algorithms.fragments`` finds copied fragments between token sequences (winnowed
k-grams, exact runs, runs chained across small edits) and ``simdup.algorithms.sentences``
reworded passages (sentences compared as bags of words, extended into passages); ``corpus``
holds the sources (each read once) and finds what a document shares with them; ``rules``
reads a document's quotations, reference list, citation markers and sections; ``own`` tells
the author's own earlier work; ``meaning`` embeds sources' sentences (``--semantic``);
``check`` puts them together (``check``, ``check_document``); ``results`` holds what the
reports render and ``excerpts`` a fragment's text as they show it.
"""

from __future__ import annotations

from ..algorithms.fragments import FragmentRule
from ..algorithms.sentence_meaning import MeaningRule
from ..algorithms.sentences import SentenceRule
from .check import CHECK_VERSION, CheckOptions, check, check_document
from .corpus import Corpus
from .results import (
    CheckResult,
    CheckWarning,
    CopiedFragment,
    DocumentCheck,
    ExcludedRange,
    FragmentPart,
    SectionRatio,
    SourceShare,
)

__all__ = [
    "CHECK_VERSION",
    "CheckOptions",
    "CheckResult",
    "CheckWarning",
    "CopiedFragment",
    "Corpus",
    "DocumentCheck",
    "ExcludedRange",
    "FragmentPart",
    "FragmentRule",
    "MeaningRule",
    "SectionRatio",
    "SentenceRule",
    "SourceShare",
    "check",
    "check_document",
]
