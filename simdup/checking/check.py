"""``check``: one document against everything else, as a duplicate-check service reports it.

Sources (``against``: files and folders, or the documents of a stored index; ``own``: the
author's own earlier work, reported apart) are read through the reader seam, cut into tokens
(``simdup.text.tokens``) and indexed by their winnowed k-grams (``fragments.SourceIndex``).
Each checked document is tokenised the same way; the sources it shares a run of tokens with
are aligned with it (``fragments.align``), and every fragment ``FragmentRule`` keeps is a
copied fragment. Then the rules of ``rules`` say which of its characters count: a reference
list, citation markers and the text of ``ignore`` templates are left out; quotations are
counted, and reported apart.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..__about__ import __version__
from ..algorithms.fragments import FragmentRule, Match, SourceIndex, align
from ..algorithms.sentences import (
    BagIndex,
    MeaningRule,
    MeaningSeeds,
    SentenceRule,
    Side,
    align_meaning,
    align_sentences,
    meaning_seeds,
    merged,
)
from ..readers import read_document, readers_description, reading_session, set_limits_of
from ..readers.discovery import DiscoveryOptions, discover
from ..records import DecodedDocument, FileText, Locations, Place, SkippedFile
from ..store.sentence_vectors import SentenceVectors, text_digest
from ..text import variants
from ..text.embeddings import default_embedder
from ..text.file_offsets import FileOffsets, file_offsets
from ..text.sentence_bags import sentence_side
from ..text.tokens import CJK_WEIGHT, Tokens, disguises, tokenize
from .excerpts import excerpt, plain
from .meaning import model_key, sentences_of
from .own import SameWork
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
from .rules import headings, marker_ranges, quoted_ranges, reference_ranges, sections

if TYPE_CHECKING:
    from ..store.index import Index

# Changes whenever the same texts and options could give other fragments or ratios.
# 2: traditional and simplified characters match; reworded passages (sentence bags)
# 3: exact runs bridged across tokens that are equal on both sides but gave no seed;
#    summaries (a block of sentences condensing a longer stretch of a source) found whole
# 4: a source that is the same work as own work in another form is own work (``own``)
# 5: headings are not counted (nor copied): a fragment running through one colours none of it
# 6: offsets of Markdown and HTML files count the file's characters, not the rendered text's
# 7: a passage ends on copied words (cut at a stretch with no evidence, ends on seeds whose
#    words are mostly the source's and on shared words, a verbatim copy where its runs end);
#    a passage's verbatim runs count as verbatim (``parts``, ``reworded_ratio``)
CHECK_VERSION = "simdup-check/7"
# A source sharing at least this many distinct features (words, CJK character pairs) with a
# checked document is aligned by sentences even when no run of words proposed it, the
# BAG_CANDIDATES sharing most: a reworded passage of a few sentences shares dozens.
BAG_MIN_SHARED = 12
BAG_CANDIDATES = 32
# A quotation longer than this many words (a CJK character 8/13 of one) is warned about:
# quoting a page is copying it, whatever the marks.
LONG_QUOTATION_WORDS = 100


@dataclass(frozen=True)
class CheckOptions:
    """How a check is made: the fragment rule, whether reference lists and citation markers
    are left out, and how files are found and read."""

    rule: FragmentRule = field(default_factory=FragmentRule)
    # Reworded passages: sentences compared as bags of words (None: exact runs only).
    reworded: SentenceRule | None = field(default_factory=SentenceRule)
    # Passages that mean what a source says (translated, written anew): sentence embeddings
    # (``text.embeddings``, the simdup[semantic] extra); None: off (the default).
    semantic: MeaningRule | None = None
    exclude_references: bool = True
    exclude_markers: bool = True
    discovery: DiscoveryOptions = field(default_factory=DiscoveryOptions)

    def describe(self) -> dict[str, Any]:
        return {
            "algorithm": CHECK_VERSION,
            "simdup": __version__,
            **self.rule.describe(),
            "reworded": self.reworded.describe() if self.reworded is not None else None,
            **({"semantic": self._semantic_settings()} if self.semantic is not None else {}),
            "exclude_references": self.exclude_references,
            "exclude_markers": self.exclude_markers,
            "own_work": SameWork().describe(),
            "long_quotation_words": LONG_QUOTATION_WORDS,
            "chinese_variants": variants.SOURCE,
            "readers": readers_description(),
        }

    def _semantic_settings(self) -> dict[str, Any]:
        assert self.semantic is not None
        model = default_embedder()
        return {**self.semantic.describe(), "model": model.name, "model_version": model.version}


@dataclass
class _Source:
    key: str
    own: bool  # the author's own work: named as such, or the same work as one (``own``)
    text: str
    tokens: Tokens
    locations: Locations | None
    identity: Identity | None = None  # the file's (device, inode), when it is a file
    digest: bytes = b""  # text_digest(text)
    _side: Side | None = None
    vectors: np.ndarray | None = None  # its sentences' embeddings (``Corpus.vectors``)
    # Named as own work (``--self``), or the same file or text as one: what makes others own.
    named_own: bool = False
    # Where it came from, as a report's sources say (``SourceShare.category``; own work is
    # "own" whatever its origin): "file" (--against), "index" (--db), "checked" (a document
    # checked in the same run: a classmate).
    origin: str = "file"
    # The file's characters when ``text`` renders them (Markdown, HTML), and where each
    # character of ``text`` is in them (``located``: made when a fragment is first found).
    file: FileText | None = None
    _offsets: FileOffsets | None = None

    def offsets(self) -> FileOffsets | None:
        """Where ``text``'s characters are in the file's (None: plain or extracted text)."""
        if self.file is not None and self._offsets is None:
            self._offsets = file_offsets(self.text, self.file, self.locations)
        return self._offsets

    def located(self, start: int, end: int) -> tuple[int, int] | None:
        """Text offsets ``start:end`` in the file's characters (None: they are already)."""
        offsets = self.offsets()
        return offsets.span(start, end) if offsets is not None else None

    def side(self) -> Side:
        """Its sentences as bags (made on first need: for the bag index when the corpus looks
        for reworded passages, else when it is aligned by meaning)."""
        if self._side is None:
            self._side = sentence_side(self.text, self.tokens)
        return self._side


# ``check``'s progress: READING_SOURCES while the sources are read, then each document's path
# as it is checked.
Progress = Callable[[str], None]
READING_SOURCES = "reading sources"


class Corpus:
    """The sources a document is checked against, tokenised and indexed: each file once,
    however many of ``against``, ``own`` and an index name it; and the author's own work once,
    as own work, when a file of the other sources holds the same text (a reference library
    with the author's paper in it). A source that is the same work as own work in another form
    (the paper's PDF beside its Word file) is own work too (``own.SameWork``), whichever was
    added first: settled before the first match."""

    def __init__(
        self,
        rule: FragmentRule,
        sentences: SentenceRule | None = None,
        meaning: MeaningRule | None = None,
        *,
        stored: Sequence[SentenceVectors] = (),
        cache: SentenceVectors | None = None,
    ) -> None:
        self.rule = rule
        self.sentences = sentences
        self.meaning = meaning
        # Sentence embeddings made before (an index's, then the cache's); those made here are
        # kept in ``cache``.
        self.stored = [*stored, *([cache] if cache is not None else [])]
        self.cache = cache
        self.embedded = self.reused = 0  # sentences embedded here / found stored
        self.index = SourceIndex(rule)
        self.bags = BagIndex() if sentences is not None else None
        self.sources: list[_Source] = []
        self.skipped: list[SkippedFile] = []
        self._by_identity: dict[Identity, _Source] = {}
        self._by_text: dict[bytes, list[_Source]] = {}
        # The documents read, by file: a checked document that is also a source is read once.
        self.documents: dict[Identity, DecodedDocument] = {}
        self.same_work = SameWork()
        self._settled = True  # no source was added since own work was last settled

    def add(
        self, document: DecodedDocument, *, own: bool = False, identity: Identity | None = None
    ) -> None:
        """``document`` as a source (its own work if ``own``). The same file is not added
        again, nor a text of the author's own work again: a source with the text of own work
        is own work. (Two other files with one text stay two sources: two students may hand
        in the same file, and each is then the other's source.)"""
        digest = text_digest(document.text)
        known = self._by_identity.get(identity) if identity is not None else None
        same_text = self._by_text.get(digest, [])
        if known is None and any(own or other.named_own for other in same_text):
            for other in same_text:  # every file of the author's text is own work
                other.own = other.named_own = True
            known = same_text[0]
        if known is not None:
            self._name_own(known, own)
            if identity is not None:
                self._by_identity.setdefault(identity, known)
            return
        tokens = tokenize(document.text)
        self.index.add(tokens.hashes)
        source = _Source(
            document.path, own, document.text, tokens, document.locations, identity, digest,
            named_own=own, file=document.origin,
        )  # fmt: skip
        if self.bags is not None:
            self.bags.add(source.side().feature)
        self.sources.append(source)
        self._by_text.setdefault(digest, []).append(source)
        if identity is not None:
            self._by_identity[identity] = source
        self._settled = False

    def _name_own(self, source: _Source, own: bool) -> None:
        if own and not source.named_own:
            source.own = source.named_own = True
            self._settled = False

    def settle_own_work(self) -> None:
        """Mark as own work every source that is the same work as one named as own work
        (``own.SameWork``); done by ``matches``, once for the sources added since."""
        if not self._settled:
            self.same_work.settle(self.sources)
            self._settled = True

    def add_paths(
        self, paths: Iterable[str], discovery: DiscoveryOptions, *, own: bool = False
    ) -> None:
        """Every readable file under ``paths`` (found as a scan finds them); a file already
        among the sources is read once (and becomes own work if ``own``)."""
        files, skipped = discover(list(paths), discovery)
        self.skipped.extend(skipped)
        for found in files:
            identity = file_identity(found.path)
            known = self._by_identity.get(identity)
            if known is not None:
                self._name_own(known, own)
                continue
            read = read_document(found, discovery.max_size)
            if isinstance(read, SkippedFile):
                self.skipped.append(read)
                continue
            self.documents[identity] = read
            self.add(read, own=own, identity=identity)

    def add_read(self, found: DecodedDocument | SkippedFile, *, own: bool = False) -> None:
        if isinstance(found, SkippedFile):
            self.skipped.append(found)
        else:
            self.add(found, own=own)

    def vectors(self, source: _Source) -> np.ndarray:
        """The embeddings of ``source``'s sentences: stored ones when a store holds them for
        its text, else made now (and kept in the cache)."""
        if source.vectors is not None:
            return source.vectors
        embedder = default_embedder()
        model = model_key(embedder)
        count = source.side().sentences
        for store in self.stored:
            found = store.get(source.digest, model, count)
            if found is not None:
                self.reused += count
                source.vectors = found
                return found
        vectors = embedder.encode(sentences_of(source.text, source.tokens, source.side()))
        self.embedded += count
        if self.cache is not None:
            self.cache.put([(source.key, source.digest, model, vectors)])
        source.vectors = vectors
        return vectors

    def matches(
        self, tokens: Tokens, leave_out: Identity | None = None, text: str | None = None
    ) -> list[tuple[_Source, list[Match]]]:
        """Each source that ``tokens`` share copied fragments with, and the fragments; the
        source that is the file ``leave_out`` (the checked document itself) is passed over.
        With ``text`` (the text of ``tokens``), reworded passages are looked for too."""
        return [(found.source, found.matches) for found in self.found(tokens, leave_out, text)]

    def found(
        self, tokens: Tokens, leave_out: Identity | None = None, text: str | None = None
    ) -> list[Found]:
        """As ``matches``, with each source's exact fragments (the verbatim parts of the
        passages that took them in)."""
        self.settle_own_work()
        found: list[Found] = []
        weights = tokens.weights
        wanted = text is not None and (self.sentences is not None or self.meaning is not None)
        side = sentence_side(text, tokens) if wanted and text is not None else None
        candidates = self.index.candidates(tokens.hashes)
        if side is not None and self.bags is not None:
            # Sources sharing many words (not runs of them) may hold a reworded copy.
            shared = self.bags.candidates(side.feature, BAG_MIN_SHARED, BAG_CANDIDATES)
            candidates = sorted(set(candidates) | set(shared))
        seeds: dict[int, MeaningSeeds] = {}
        if side is not None and text is not None and self.meaning is not None:
            # A translation shares no words with its source: sources are proposed by meaning,
            # all of them in one matrix product per block.
            vectors = default_embedder().encode(sentences_of(text, tokens, side))
            seeds = meaning_seeds(
                vectors, [self.vectors(source) for source in self.sources], self.meaning
            )
        lexical = set(candidates)
        for number in sorted(lexical | set(seeds)):
            source = self.sources[number]
            if leave_out is not None and source.identity == leave_out:
                continue
            matches: list[Match] = []
            passages: list[Match] = []
            exact: list[Match] = []
            if number in lexical:
                matches = exact = align(tokens.hashes, weights, source.tokens.hashes, self.rule)
                if side is not None and self.sentences is not None:
                    passages += align_sentences(side, source.side(), self.sentences)
            if side is not None and number in seeds and self.meaning is not None:
                meant = align_meaning(side, source.side(), seeds[number], self.meaning)
                passages += [_named(m, tokens, source.tokens) for m in meant]
            matches = merged(matches, passages)
            if matches:
                found.append(Found(source, matches, exact))
        return found


@dataclass(frozen=True)
class Found:
    """A source a document shares copied fragments with: the fragments (exact ones and
    passages, merged) and the exact fragments alone (the verbatim parts of passages)."""

    source: _Source
    matches: list[Match]
    exact: list[Match]


def _named(m: Match, query: Tokens, source: Tokens) -> Match:
    """A passage found by meaning, named by its scripts: "translated" when one side is
    mostly CJK and the other not, else "paraphrased"."""
    here = bool(query.cjk[m.first : m.last + 1].mean() > 0.5)
    there = bool(source.cjk[m.source_first : m.source_last + 1].mean() > 0.5)
    return replace(m, how="translated" if here != there else "paraphrased")


# A file as the system knows it: (device, inode), or its absolute path when it cannot be
# looked at.
Identity = tuple[int, int] | str


def file_identity(path: str) -> Identity:
    """Which file ``path`` names: two paths of one file (a link, ``./a`` and ``a``) are one."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.abspath(path)
    return (st.st_dev, st.st_ino)


def _token_mask(tokens: Tokens, ranges: Iterable[tuple[int, int]]) -> np.ndarray:
    """Which tokens lie (by their first character) inside one of ``ranges``."""
    mask = np.zeros(len(tokens), dtype=bool)
    for start, end in ranges:
        lo = int(np.searchsorted(tokens.starts, start, "left"))
        hi = int(np.searchsorted(tokens.starts, end, "left"))
        mask[lo:hi] = True
    return mask


def _place(
    text: str,
    locations: Locations | None,
    start: int,
    end: int,
    offsets: FileOffsets | None = None,
) -> Place | None:
    """Where characters ``start:end`` are: in the file's lines when ``offsets`` map the text
    to the file (an HTML paragraph's own label is the line of its tag), in the reader's parts,
    else in the text's lines."""
    if offsets is not None:
        first, last = offsets.lines(*offsets.span(start, end))
        return Place("line", str(first), str(last))
    if locations is not None:
        return locations.place(start, end)
    first = text.count("\n", 0, start) + 1
    last = first + text.count("\n", start, max(start, end - 1))
    return Place("line", str(first), str(last))


def _without_headings(in_heading: np.ndarray, first: int, last: int) -> tuple[int, int]:
    """Tokens ``first..last`` without the heading tokens at either end."""
    while in_heading[first] and first < last:
        first += 1
    while in_heading[last] and last > first:
        last -= 1
    return first, last


def _verbatim_tokens(m: Match, exact: list[Match]) -> np.ndarray:
    """Which tokens of ``m`` were copied as they were: all of a verbatim fragment; of a
    passage (reworded, summarised, translated, paraphrased), those inside the exact fragments
    it overlaps on both sides (the runs it took in)."""
    inside = np.zeros(m.last - m.first + 1, dtype=bool)
    if m.how == "verbatim":
        inside[:] = True
        return inside
    for e in exact:
        here = e.first <= m.last and e.last >= m.first
        if here and e.source_first <= m.source_last and e.source_last >= m.source_first:
            inside[max(e.first, m.first) - m.first : min(e.last, m.last) - m.first + 1] = True
    return inside


def _parts(
    tokens: Tokens, units: np.ndarray, counted: np.ndarray, m: Match, verbatim: np.ndarray
) -> tuple[FragmentPart, ...]:
    """The stretches of ``m`` copied verbatim and copied ``m.how``, in order (``verbatim``:
    its tokens copied as they were)."""
    found = []
    edges = np.flatnonzero(np.diff(verbatim.astype(np.int8))) + 1
    for a, b in zip(np.r_[0, edges].tolist(), np.r_[edges, verbatim.size].tolist(), strict=True):
        first, last = m.first + a, m.first + b - 1
        start, end = tokens.span(first, last)
        inside = slice(first, last + 1)
        how = "verbatim" if verbatim[a] else m.how
        found.append(FragmentPart(start, end, how, int(units[inside][counted[inside]].sum())))
    return tuple(found)


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def check_document(
    document: DecodedDocument,
    corpus: Corpus,
    options: CheckOptions,
    templates: Corpus | None = None,
) -> DocumentCheck:
    """The duplicate check of one document against ``corpus`` (text matching a document of
    ``templates`` is left out of the count). A document is never its own source: a source that
    is the same file is passed over (a class checked against its own folder)."""
    text = document.text
    offsets = (
        file_offsets(text, document.origin, document.locations)
        if document.origin is not None
        else None
    )
    itself = file_identity(document.path) if document.path not in ("", "-") else None
    tokens = tokenize(text)
    excluded: list[ExcludedRange] = []
    if options.exclude_references:
        excluded += [ExcludedRange(a, b, "references") for a, b in reference_ranges(text)]
    if options.exclude_markers:
        excluded += [ExcludedRange(a, b, "marker") for a, b in marker_ranges(text)]
    if templates is not None:
        for _source, matches in templates.matches(tokens):
            for m in matches:
                a, b = tokens.span(m.first, m.last)
                excluded.append(ExcludedRange(a, b, "template"))
    excluded = [replace(r, place=_place(text, document.locations, r.start, r.end, offsets))
                for r in sorted(excluded, key=lambda r: (r.start, r.end))]  # fmt: skip
    out = _token_mask(tokens, ((r.start, r.end) for r in excluded))
    quotes = quoted_ranges(text)
    quoted = _token_mask(tokens, quotes)
    units = tokens.units
    # A heading is the document's structure, not its text: never counted, so never copied
    # (every thesis has a 第一章 绪论, and a fragment running on into the next chapter does
    # not copy its title).
    in_heading = _token_mask(tokens, ((h.start, h.end) for h in headings(text)))
    counted = ~out & ~in_heading
    total_units = int(units[counted].sum())

    covered_any = np.zeros(len(tokens), dtype=bool)
    covered_others = np.zeros(len(tokens), dtype=bool)
    covered_own = np.zeros(len(tokens), dtype=bool)
    covered_verbatim = np.zeros(len(tokens), dtype=bool)
    fragments: list[CopiedFragment] = []
    shares: list[SourceShare] = []
    for found in corpus.found(tokens, leave_out=itself, text=text):
        source, matches = found.source, found.matches
        mine = np.zeros(len(tokens), dtype=bool)
        kept = 0
        source_heads: np.ndarray | None = None
        for m in matches:
            span = slice(m.first, m.last + 1)
            if out[span].mean() > 0.5 or not counted[span].any():
                continue  # a match inside the reference list, a template or a heading
            mine[span] = True
            verbatim = _verbatim_tokens(m, found.exact)
            covered_verbatim[span] |= verbatim
            in_parts = _parts(tokens, units, counted, m, verbatim)
            how = m.how if any(p.how != "verbatim" and p.units for p in in_parts) else "verbatim"
            kept += 1
            # Where it starts and ends: not in a heading it runs into (the heading is no part
            # of what was copied; see ``counted``).
            first, last = _without_headings(in_heading, m.first, m.last)
            start, end = tokens.span(first, last)
            if source_heads is None:
                source_heads = _token_mask(
                    source.tokens, ((h.start, h.end) for h in headings(source.text))
                )
            s_first, s_last = _without_headings(source_heads, m.source_first, m.source_last)
            s_start, s_end = source.tokens.span(s_first, s_last)
            kind = "own" if source.own else "quoted" if quoted[span].mean() >= 0.5 else "copied"
            fragments.append(
                CopiedFragment(
                    source=source.key,
                    start=start,
                    end=end,
                    source_start=s_start,
                    source_end=s_end,
                    kind=kind,
                    units=int(units[span][counted[span]].sum()),
                    similarity=round(m.matched / (m.last - m.first + 1), 4),
                    place=_place(text, document.locations, start, end, offsets),
                    source_place=_place(
                        source.text, source.locations, s_start, s_end, source.offsets()
                    ),
                    text=excerpt(text, start, end),
                    source_text=excerpt(source.text, s_start, s_end),
                    how=how,
                    parts=in_parts,
                    verbatim_units=int(units[span][counted[span] & verbatim].sum()),
                    file_span=offsets.span(start, end) if offsets is not None else None,
                    source_file_span=source.located(s_start, s_end),
                    source_extracted=source.file is None and source.locations is not None,
                )
            )
        if not kept:
            continue
        mine &= counted
        covered_any |= mine
        if source.own:
            covered_own |= mine
        else:
            covered_others |= mine
        share = int(units[mine].sum())
        category = "own" if source.own else source.origin
        shares.append(
            SourceShare(source.key, source.own, share, _ratio(share, total_units), kept, category)
        )
    shares.sort(key=lambda s: (-s.units, s.source))
    fragments.sort(key=lambda f: (f.start, f.end, f.source))

    copied = int(units[covered_any].sum())
    section_ratios = []
    for section in sections(text):
        inside = _token_mask(tokens, [(section.start, section.end)]) & counted
        whole = int(units[inside].sum())
        if not whole and not section.title:
            continue  # a title alone before the first chapter: headings count nothing
        part = int(units[inside & covered_any].sum())
        # The parts of the copied characters a report colours apart, as its text colours
        # them: quoted ones, and those found in the author's own work alone.
        in_quotes = int(units[inside & covered_any & quoted].sum())
        own_only = int(units[inside & covered_own & ~covered_others & ~quoted].sum())
        section_ratios.append(
            SectionRatio(
                plain(section.title), section.start, section.end, whole, part,
                _ratio(part, whole),
                own_units=own_only, quoted_units=in_quotes,
            )  # fmt: skip
        )
    largest = shares[0] if shares else None
    return DocumentCheck(
        path=document.path,
        text=text,
        units=total_units,
        copied_units=copied,
        copy_ratio=_ratio(copied, total_units),
        ratio_without_quotes=_ratio(int(units[covered_any & ~quoted].sum()), total_units),
        ratio_without_own=_ratio(int(units[covered_others].sum()), total_units),
        largest_source_ratio=largest.ratio if largest else 0.0,
        largest_source=largest.source if largest else None,
        sources=tuple(shares),
        sections=tuple(section_ratios),
        fragments=tuple(fragments),
        quoted=tuple(quotes),
        excluded=tuple(excluded),
        warnings=tuple(
            replace(w, place=_place(text, document.locations, w.start, w.end, offsets))
            for w in _warnings(text, tokens, quotes)
        ),
        verbatim=document.locations is None,
        offsets=offsets,
        reworded_ratio=_ratio(int(units[covered_any & ~covered_verbatim].sum()), total_units),
    )


def _warnings(text: str, tokens: Tokens, quotes: list[tuple[int, int]]) -> list[CheckWarning]:
    found = []
    weights = np.where(tokens.cjk, CJK_WEIGHT, 1.0)
    for start, end in quotes:
        inside = _token_mask(tokens, [(start, end)])
        words = float(weights[inside].sum())
        if words > LONG_QUOTATION_WORDS:
            found.append(
                CheckWarning(
                    "long-quotation",
                    f"a quotation of about {round(words)} words: counted as cited, but other "
                    "checkers may count it as copied",
                    start,
                    end,
                    round(words),
                )
            )
    for disguise in disguises(text):
        what = (
            "zero-width characters or soft hyphens"
            if disguise.kind == "invisible"
            else "words mixing Latin letters with Cyrillic or Greek look-alikes"
        )
        found.append(
            CheckWarning(
                disguise.kind,
                f"{disguise.count} {what}: read as plain text for the check",
                disguise.start,
                disguise.end,
                disguise.count,
            )
        )
    return found


def check(
    paths: Sequence[str],
    *,
    against: Sequence[str] = (),
    own: Sequence[str] = (),
    db: str | None = None,
    ignore: Sequence[str] = (),
    options: CheckOptions | None = None,
    progress: Progress | None = None,
    sentence_cache: SentenceVectors | None = None,
) -> CheckResult:
    """Check each document of ``paths`` against the files under ``against``, the documents
    stored in the index ``db`` (read again from their paths: an index keeps fingerprints, not
    texts) and the author's own work under ``own``; text matching an ``ignore`` file (a cover
    page, a declaration) is left out. A checked file that cannot be read is a skip record.
    With ``options.semantic``, the sentence embeddings stored in ``db`` (``index add
    --semantic``) and in ``sentence_cache`` are used, and those made are kept in the cache."""
    options = options or CheckOptions()
    set_limits_of(options.discovery)
    checked: list[DocumentCheck] = []
    skipped: list[SkippedFile] = []
    with contextlib.ExitStack() as stack:
        index = stack.enter_context(_open_index(db)) if db is not None else None
        stored = [index.sentence_vectors()] if index is not None and options.semantic else []
        corpus = Corpus(options.rule, options.reworded, options.semantic, stored=stored,
                        cache=sentence_cache)  # fmt: skip
        templates = Corpus(options.rule) if ignore else None  # templates are left out verbatim
        stack.enter_context(reading_session())
        targets, missing = discover(list(paths), options.discovery)
        skipped.extend(missing)
        if progress:
            progress(READING_SOURCES)
        # Every source is kept, the checked documents too (checked against its own folder, a
        # class is checked each against the others); each document leaves out only itself.
        corpus.add_paths(against, options.discovery)
        corpus.add_paths(own, options.discovery, own=True)
        if index is not None:
            paths_stored, gone = _stored_paths(index)
            first_stored = len(corpus.sources)
            corpus.add_paths(paths_stored, options.discovery)
            corpus.skipped.extend(gone)
            for source in corpus.sources[first_stored:]:
                source.origin = "index"
        batch = {file_identity(target.path) for target in targets}
        for source in corpus.sources:
            if source.identity in batch:
                source.origin = "checked"
        if templates is not None:
            templates.add_paths(ignore, options.discovery)
            skipped.extend(templates.skipped)
        skipped.extend(corpus.skipped)
        for target in targets:
            if progress:
                progress(target.path)
            found = corpus.documents.get(file_identity(target.path)) or read_document(
                target, options.discovery.max_size
            )
            if isinstance(found, SkippedFile):
                skipped.append(found)
                continue
            checked.append(check_document(found, corpus, options, templates))
    return CheckResult(
        documents=tuple(checked),
        source_count=len(corpus.sources),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        settings=options.describe(),
    )


def _open_index(db: str) -> Index:
    from ..store.index import Index

    return Index(db, create=False)


def _stored_paths(index: Index) -> tuple[list[str], list[SkippedFile]]:
    """The documents of an index as paths to read (``index add`` stores a document under its
    path), and a skip record for each whose file is gone."""
    keys = list(index.keys())
    paths = [key for key in keys if os.path.isfile(key)]
    gone = [
        SkippedFile(key, "read", "stored in the index, but its file is gone")
        for key in keys
        if not os.path.isfile(key)
    ]
    return paths, gone
