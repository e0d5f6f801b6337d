"""The records of a duplicate check: what every report format renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import Place, SkippedFile
from ..text.file_offsets import FileOffsets


@dataclass(frozen=True, slots=True)
class FragmentPart:
    """A stretch of a copied fragment copied one way: "verbatim" (a run of words copied as
    it was, small edits bridged) or the fragment's other ``how`` (reworded, summarised,
    translated, paraphrased: no run of words copied as it was); its character offsets in the
    checked document and its counted characters (``units``)."""

    start: int
    end: int
    how: str
    units: int


@dataclass(frozen=True, slots=True)
class CopiedFragment:
    """A fragment of the checked document found in a source: character offsets on both sides
    (in the texts as read: a plain-text file's decoded characters, another format's extracted
    text), its ``kind`` ("copied"; "quoted": at least half of it inside a quotation; "own":
    from the author's own earlier work), its length as counted (``units``: characters of words,
    a CJK character 1), the share of its tokens in exact runs or, reworded, sharing a word
    with the source passage (``similarity``), where it is on both sides, and ``how`` it was
    copied: "verbatim" (exact runs, small edits bridged), "reworded" (sentences whose
    words were reordered, swapped or dropped, found as bags of words), "summarised" (a block
    of sentences that condenses a source stretch at least half as long again, its sentences
    found as bags of words in the source's order), or with a semantic
    check "translated" or "paraphrased" (sentences that mean what the source's say, in another
    language or in other words). A reworded (...) passage often holds runs of words copied as
    they were, a pasted paragraph amid reworded ones: ``parts`` says how each stretch was
    copied, in order, and ``verbatim_units`` how many of its counted characters are in
    verbatim parts; ``how`` is "verbatim" when all are."""

    source: str
    start: int
    end: int
    source_start: int
    source_end: int
    kind: str
    units: int
    similarity: float
    place: Place | None
    source_place: Place | None
    text: str
    source_text: str
    how: str = "verbatim"
    parts: tuple[FragmentPart, ...] = ()
    verbatim_units: int = 0
    # ``start:end`` and ``source_start:source_end`` in the files' decoded characters when a
    # reader rendered them (Markdown, HTML; ``text.file_offsets``); None: the offsets above
    # are already the file's (plain text) or the extracted text's (PDF, Word...).
    file_span: tuple[int, int] | None = None
    source_file_span: tuple[int, int] | None = None
    # Whether the source's offsets count the file's characters (plain text, Markdown, HTML)
    # or a text extracted from it (PDF, Word, EPUB...).
    source_extracted: bool = False

    def in_file(self) -> tuple[int, int]:
        """Where the fragment is in its document's file (see ``DocumentCheck.offsets``)."""
        return self.file_span if self.file_span is not None else (self.start, self.end)

    def source_in_file(self) -> tuple[int, int]:
        """Where the source's passage is in the source's file."""
        return self.source_file_span or (self.source_start, self.source_end)


@dataclass(frozen=True, slots=True)
class SourceShare:
    """One source of a checked document: the share of the document's counted characters
    found in it, whether it is the author's own work, its fragments' count, and its
    ``category``: "own" (the author's own work, ``--self``), "checked" (a document checked in
    the same run: a classmate, ``check class/ --against class/``), "index" (a document of a
    stored index, ``--db``) or "file" (a file of ``--against``)."""

    source: str
    own: bool
    units: int
    ratio: float
    fragments: int
    category: str = "file"


@dataclass(frozen=True, slots=True)
class SectionRatio:
    """One section (from a heading to the next of its level): its counted characters, the
    copied ones, and their ratio; of the copied ones, those inside quotations
    (``quoted_units``) and, of the rest, those found in the author's own work alone
    (``own_units``): a report colours them apart."""

    title: str
    start: int
    end: int
    units: int
    copied_units: int
    ratio: float
    own_units: int = 0
    quoted_units: int = 0


@dataclass(frozen=True, slots=True)
class ExcludedRange:
    """Text left out of the count: ``reason`` is "references" (a reference list), "marker"
    (a citation marker), or "template" (text of an ``--ignore`` file)."""

    start: int
    end: int
    reason: str
    # Where it is (page, paragraph, line): what a report names instead of character offsets.
    place: Place | None = None


@dataclass(frozen=True, slots=True)
class CheckWarning:
    """Something a reader of the report should look at: ``kind`` is "long-quotation",
    "invisible" (zero-width characters) or "look-alike" (Cyrillic or Greek letters in Latin
    words); the first place it occurs."""

    kind: str
    message: str
    start: int
    end: int
    # How many: the words of a long quotation, the disguised words or characters.
    count: int = 0
    place: Place | None = None


@dataclass(frozen=True)
class DocumentCheck:
    """The duplicate check of one document.

    ``units`` are its counted characters (characters of words outside excluded text: a CJK
    character counts 1, a word its letters and digits; spaces and punctuation none). The
    ratios are shares of them: ``copy_ratio`` inside any copied fragment (CNKI's total copy
    ratio), ``ratio_without_quotes`` outside quotations, ``ratio_without_own`` from sources
    other than the author's own work, ``largest_source_ratio`` from the one source
    (``largest_source``) that gave most, ``reworded_ratio`` inside parts of fragments copied
    other than verbatim only (reworded, summarised, translated, paraphrased; in no verbatim
    part of any fragment): how much of the copy ratio was disguised by rewording."""

    path: str
    text: str
    units: int
    copied_units: int
    copy_ratio: float
    ratio_without_quotes: float
    ratio_without_own: float
    largest_source_ratio: float
    largest_source: str | None
    sources: tuple[SourceShare, ...]
    sections: tuple[SectionRatio, ...]
    fragments: tuple[CopiedFragment, ...]
    quoted: tuple[tuple[int, int], ...]
    excluded: tuple[ExcludedRange, ...]
    warnings: tuple[CheckWarning, ...]
    # Whether ``text`` is the file's own characters (a plain-text file), so that an offset in
    # it is one in the file; a reader's text (Markdown, HTML, Word...) is located by its parts.
    verbatim: bool = True
    reworded_ratio: float = 0.0
    # Where ``text``'s characters are in the file's, when a reader rendered them (Markdown,
    # HTML): what every report's offsets are translated by (``in_file``). None: plain text
    # (the text is the file's) or an extracted text (PDF, Word...: offsets stay in it).
    offsets: FileOffsets | None = field(default=None, repr=False, compare=False)

    @property
    def extracted(self) -> bool:
        """Whether offsets count a text extracted from the file (PDF, Word, EPUB...) rather
        than the file's own decoded characters."""
        return not self.verbatim and self.offsets is None

    def in_file(self, start: int, end: int) -> tuple[int, int]:
        """Text offsets ``start:end`` as offsets in the file's decoded characters (the same
        for plain text, and for an extracted text, which has no others)."""
        return self.offsets.span(start, end) if self.offsets is not None else (start, end)

    def file_lines(self, start: int, end: int) -> tuple[int, int]:
        """The file's first and last line (1-based) holding text offsets ``start:end``."""
        if self.offsets is not None:
            return self.offsets.lines(*self.offsets.span(start, end))
        first = self.text.count("\n", 0, start) + 1
        return first, first + self.text.count("\n", start, max(start, end - 1))

    def largest_share(self) -> SourceShare | None:
        """The share of ``largest_source`` (None when nothing was found)."""
        return next((s for s in self.sources if s.source == self.largest_source), None)

    def ratio(self, which: str) -> float:
        """``copy_ratio`` ("total"), ``ratio_without_quotes`` ("no-quotes") or
        ``ratio_without_own`` ("no-own")."""
        return {
            "total": self.copy_ratio,
            "no-quotes": self.ratio_without_quotes,
            "no-own": self.ratio_without_own,
        }[which]


@dataclass(frozen=True)
class CheckResult:
    """Every checked document, the sources they were checked against (``source_count``, and
    the sources' skip records with the checked documents' in ``skipped``), and the settings
    that decide the ratios (for the report: a ratio means nothing without its rules)."""

    documents: tuple[DocumentCheck, ...]
    source_count: int
    skipped: tuple[SkippedFile, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def ranked(self) -> tuple[DocumentCheck, ...]:
        """The documents as every report lists them: the highest copy ratio first (a
        teacher looks at those first), then the highest ratio without own work, then by
        path."""
        return tuple(
            sorted(self.documents, key=lambda d: (-d.copy_ratio, -d.ratio_without_own, d.path))
        )
