"""Own work by content: which sources of a check are the author's own earlier work.

A source is own work when it is a file named as own work (``--self``), has the same text as
one, or is **the same work** as one: ``simdup compare`` calls the two near-duplicates. The
author's paper is read from a Word file in ``--self`` and from the journal's PDF in a reference
library or an index; the two texts differ in page headers and footers, line breaks,
hyphenation and footnotes, so equal texts cannot tell that they are one paper, and no fragment
alignment is needed to tell it either: the scan's verdict (``join.verify.Verifier`` with the
default ``ScanOptions``: SimHash distance within the verify radius, the shorter text at least
0.9 of the longer, word-set Jaccard at least 0.8; two short texts by edit similarity) is the
rule simdup already states and measures for "the same text in another form"
(docs/how-it-works.md), and a user can check a verdict with ``simdup compare``.

What it leaves out, on purpose: a longer document that holds an own work (a proceedings volume
with the author's paper among others' papers) is not the same work, and neither is a source a
longer own document holds (a thesis draft in ``--self`` with the earlier paper as a chapter):
content cannot tell which parts of a longer document are the author's, and a draft that took
a source whole would otherwise make that source "own". Name the earlier paper itself as own
work. Only documents named as own work make others own (no chains: a source like a source
that is like own work is not own).

Cost, only when there is own work: the own documents and the sources are fingerprinted as a
scan fingerprints them, then each (own document, source) pair is judged, a pair farther apart
than the verify radius by the popcount of its fingerprints alone. 1,000 sources of 3.5 M
characters, one own document: 0.09 s, after ~0.4 s to make the scan's processor once (the
sources' reading, tokenising and indexing took 0.55-0.75 s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..algorithms.simhash import hamming
from ..join.verify import Verifier
from ..options import ScanOptions
from ..records import DecodedDocument, FingerprintedDocument
from ..text.processor import DocumentProcessor, processor_for

# The rule is ``compare``'s with its defaults: what "near-duplicate" means everywhere else.
SAME_WORK = ScanOptions()


class Source(Protocol):
    """What the rule needs of a check's source: its text, and whether it is own work (``own``)
    because it is named as such (``named_own``: ``--self``, or the same file or text as one)."""

    key: str
    text: str
    own: bool
    named_own: bool


class SameWork:
    """Tells whether two documents are the same work (the module docstring's rule); makes the
    scan's document processor on first need (a check without own work never does)."""

    def __init__(self, options: ScanOptions = SAME_WORK) -> None:
        self.options = options
        self.verifier = Verifier(options)
        self._processor: DocumentProcessor | None = None
        # The fingerprints of the sources by their place in the list ``settle`` is given (it
        # grows at its end: a source keeps its place); None: nothing to judge.
        self._fingerprints: dict[int, FingerprintedDocument | None] = {}

    def settle(self, sources: Sequence[Source]) -> None:
        """Mark as own work every source of ``sources`` that is the same work as one named as
        own work. Only those named make others own: no chains."""
        named = [n for n, source in enumerate(sources) if source.named_own]
        mine = [fp for fp in (self._fingerprint(sources, n) for n in named) if fp is not None]
        if not mine:
            return
        for n, source in enumerate(sources):
            if source.own:
                continue
            theirs = self._fingerprint(sources, n)
            if theirs is not None and any(self.judge(fp, theirs) for fp in mine):
                source.own = True

    def _fingerprint(self, sources: Sequence[Source], n: int) -> FingerprintedDocument | None:
        if n not in self._fingerprints:
            self._fingerprints[n] = self.fingerprint(sources[n].key, sources[n].text)
        return self._fingerprints[n]

    def fingerprint(self, key: str, text: str) -> FingerprintedDocument | None:
        """The document ``key`` of ``text`` fingerprinted as a scan does (None: no text to
        judge)."""
        if self._processor is None:
            self._processor = processor_for(self.options.features)
        found = self._processor.document(DecodedDocument(key, text, "utf-8", "utf-8", 1.0, 0))
        return found if isinstance(found, FingerprintedDocument) else None

    def judge(self, own: FingerprintedDocument, source: FingerprintedDocument) -> bool:
        """Whether ``source`` is the same work as the own document ``own``."""
        distance = hamming(own.fingerprint, source.fingerprint)
        return self.verifier.judge(own, source, distance).near

    def describe(self) -> dict[str, object]:
        """The rule as the check's settings report it."""
        o = self.options
        return {
            "rule": "near-duplicate (simdup compare)",
            "verify_radius": o.verify_radius,
            "min_similarity": o.min_similarity,
            "min_length_ratio": o.min_length_ratio,
            "min_edit_similarity": o.min_edit_similarity,
        }
