"""Duplicated passages: which stretches of a document are copies of stretches of another.

A passage is a copied fragment as ``check`` finds one (``simdup.algorithms.fragments``): exact
runs of tokens (CJK characters and words, folded) chained across a few differing tokens, with
its lines and characters on both sides. Each file is decoded as a scan decodes it (with the
local engine, in the worker that fingerprints it, from the same text) and kept as numbers: its
tokens' hashes and offsets, their winnowed k-gram fingerprints, and where its lines start;

1. pairs of documents sharing a fingerprint are candidates (``candidates``);
   a fingerprint held by more than ``max_repeats`` documents is boilerplate and pairs none;
2. each candidate pair is aligned around its shared fingerprints (``fragments.align_near``),
   in worker processes when there are many, and each fragment the rule keeps (at least
   ``min_words`` words matched, half of it matched) is a passage;
3. boilerplate held by more than ``max_repeats`` documents (a licence footer, a newsletter's
   standing lines) is one *repeated passage*, reported once with its places (``repeated``).

Passages of two documents that the scan already reports as near-duplicates are not listed by
default (the whole document is the duplicate; ``all_pairs`` lists them too); passages repeated
inside one document are found when ``within`` is set.

One stage per module, each importing only those listed before it: ``options``
(``PassageOptions``), ``documents`` (a document's tokens and fingerprints:
``PassageProcessor``), ``reading`` (files read again, in worker processes when they pay),
``candidates`` (step 1), ``repeated`` (step 3), ``twins`` (a copy's other places),
``aligning`` (step 2), ``matching`` (``match_passages``: steps 1 to 3), ``store`` (the
passages of a scan kept in the scan cache's folder) and ``run`` (the entry points:
``scan_passages``, ``find_passages``, ``compare_passages``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .documents import DocumentPassages, PassageProcessor
    from .matching import Passages, match_passages
    from .options import PassageOptions
    from .run import compare_passages, find_passages, scan_passages

# Loaded on first use (PEP 562): a scan without --passages reads ``options`` alone.
_LAZY = {
    "DocumentPassages": "documents", "PassageProcessor": "documents", "Passages": "matching",
    "match_passages": "matching", "PassageOptions": "options",
    "compare_passages": "run", "find_passages": "run", "scan_passages": "run",
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
    "PassageOptions",
    "PassageProcessor",
    "Passages",
    "compare_passages",
    "find_passages",
    "match_passages",
    "scan_passages",
]
