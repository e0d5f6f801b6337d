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
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..__about__ import __version__
from ..algorithms.fragments import FragmentRule, Match
from ..algorithms.merging import JoinRule
from ..algorithms.sentence_meaning import MeaningRule
from ..algorithms.sentences import SentenceRule
from ..readers import read_document, readers_description, reading_session, set_limits_of
from ..readers.discovery import DiscoveryOptions, discover
from ..records import DecodedDocument, Locations, Place, SkippedFile
from ..store.sentence_vectors import SentenceVectors
from ..text import variants
from ..text.embeddings import default_embedder
from ..text.file_offsets import FileOffsets, file_offsets
from ..text.tokens import CJK_WEIGHT, Tokens, disguises, tokenize
from .corpus import EMBEDDING_SOURCES, READING_SOURCES, Corpus, Progress, file_identity
from .excerpts import excerpt, plain
from .meaning import Steps
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
# 8: reworded passages: words by their stems, one long seed alone, passages grown by
#    neighbouring sentences whose words are the other side's, pieces of one copy joined, a
#    short verbatim fragment standing alone (a stock phrase) left out
# 9: summaries of a whole source found by document-level evidence (``summaries``)
# 10: a mostly verbatim reworded passage keeps its text beyond the verbatim runs only where a
#     quarter of its words are in the other side's beyond them (``merging.JoinRule``)
# 11: seeds of reworded passages compare words as written (stems only extend a passage); a
#     reworded or paraphrased passage brings words of its source the document has nowhere
#     else; a summary draws on its source, not on the words the document uses elsewhere
# 12: a fragment's end past a paragraph break with fewer tokens than a seed is cut off
#     (``_without_stray_ends``), on both sides
CHECK_VERSION = "simdup-check/12"
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
    # With ``reworded``: when two fragments of a source are one copy, and a short verbatim
    # one alone is a stock phrase (``merging``).
    join: JoinRule = field(default_factory=JoinRule)
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
            "reworded": {**self.reworded.describe(), **self.join.describe()}
            if self.reworded is not None
            else None,
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


# A paragraph break between two tokens: a line break, a line of spaces or none, a line break.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\u3000]*\n")


def _without_stray_ends(
    tokens: Tokens, text: str, first: int, last: int, seed: int
) -> tuple[int, int]:
    """Tokens ``first..last`` without the tokens at either end that a paragraph break cuts off
    from the rest when they are fewer than ``seed`` (a k-gram of the fragment rule) and their
    paragraph goes on past the fragment: a copied paragraph's run goes on into the next
    paragraph where both next paragraphs happen to begin alike (``上面``, "The"), and those
    few tokens are no evidence of their own. A short paragraph taken whole (a title wrapped
    onto two lines, a closing line at the document's end) is kept. The break furthest from the
    end within reach is taken (a stray token and a stray line)."""
    starts, ends = tokens.starts, tokens.ends

    def parted(a: int, b: int) -> bool:  # a paragraph break between tokens a and a + 1 = b
        return _PARAGRAPH_BREAK.search(text, int(ends[a]), int(starts[b])) is not None

    if last + 1 < len(tokens) and not parted(last, last + 1):
        for t in range(max(first, last - seed + 1), last):
            if parted(t, t + 1):
                last = t
                break
    if first > 0 and not parted(first - 1, first):
        for t in range(min(last, first + seed - 1), first, -1):
            if parted(t - 1, t):
                first = t
                break
    return first, last


def _without_strays(
    m: Match, tokens: Tokens, text: str, source_tokens: Tokens, source_text: str, seed: int
) -> Match:
    """``m`` with ``_without_stray_ends`` on both sides (its matched tokens less those cut)."""
    first, last = _without_stray_ends(tokens, text, m.first, m.last, seed)
    s_first, s_last = _without_stray_ends(
        source_tokens, source_text, m.source_first, m.source_last, seed
    )
    if (first, last, s_first, s_last) == (m.first, m.last, m.source_first, m.source_last):
        return m
    cut = (m.last - m.first) - (last - first)
    matched = max(0, min(m.matched - cut, last - first + 1))
    return replace(m, first=first, last=last, source_first=s_first, source_last=s_last,
                   matched=matched)  # fmt: skip


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
            m = _without_strays(m, tokens, text, source.tokens, source.text, options.rule.kgram)
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
    steps: Steps | None = None,
    jobs: int = 1,
) -> CheckResult:
    """Check each document of ``paths`` against the files under ``against``, the documents
    stored in the index ``db`` (read again from their paths: an index keeps fingerprints, not
    texts) and the author's own work under ``own``; text matching an ``ignore`` file (a cover
    page, a declaration) is left out. A checked file that cannot be read is a skip record.
    With ``options.semantic``, the sentence embeddings stored in ``db`` (``index add
    --semantic``) and in ``sentence_cache`` are used, and those made are kept in the cache.
    ``progress`` is told each stage (``READING_SOURCES``, ``EMBEDDING_SOURCES``, a document's
    path) and ``steps(done, total)`` the sentences embedded in the second. A document is
    aligned with its sources by ``jobs`` worker processes when it has many (the same report
    as one)."""
    options = options or CheckOptions()
    set_limits_of(options.discovery)
    checked: list[DocumentCheck] = []
    skipped: list[SkippedFile] = []
    with contextlib.ExitStack() as stack:
        index = stack.enter_context(_open_index(db)) if db is not None else None
        stored = [index.sentence_vectors()] if index is not None and options.semantic else []
        corpus = Corpus(options.rule, options.reworded, options.semantic, stored=stored,
                        cache=sentence_cache, join=options.join)  # fmt: skip
        corpus.jobs = jobs
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
        if options.semantic is not None and corpus.sources:
            if progress:
                progress(EMBEDDING_SOURCES)
            corpus.embed_sources(steps)
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
