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

One stage per module, each importing only those listed before it: ``options``
(``PassageOptions``), ``documents`` (blocks, windows and their fingerprints:
``PassageProcessor``), ``reading`` (files read again, in worker processes when they pay),
``windows`` (the window table), ``regions`` (step 4, and the repeated passages of step 3),
``align`` and ``edges`` (the ends of regions set line by line), ``parallel`` (the index join
and the finishing of regions in worker processes), ``matching`` (``match_passages``: steps 1
to 4) and ``scanning`` (the entry points: ``scan_passages``, ``find_passages``,
``compare_passages``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .align import EdgeVocabulary, TextLines, matching_runs
    from .documents import DocumentPassages, PassageProcessor, window_fingerprints
    from .edges import refine_edges
    from .matching import Passages, match_passages
    from .options import PassageOptions
    from .scanning import compare_passages, find_passages, scan_passages

# Loaded on first use (PEP 562): a scan without --passages reads ``options`` alone.
_LAZY = {
    "EdgeVocabulary": "align", "TextLines": "align", "matching_runs": "align",
    "DocumentPassages": "documents", "PassageProcessor": "documents",
    "window_fingerprints": "documents", "refine_edges": "edges", "Passages": "matching",
    "match_passages": "matching", "PassageOptions": "options",
    "compare_passages": "scanning", "find_passages": "scanning", "scan_passages": "scanning",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DocumentPassages",
    "EdgeVocabulary",
    "PassageOptions",
    "PassageProcessor",
    "Passages",
    "TextLines",
    "compare_passages",
    "find_passages",
    "match_passages",
    "matching_runs",
    "refine_edges",
    "scan_passages",
    "window_fingerprints",
]
