"""Passage matching, ``match_passages``: the copied fragments of pairs of documents, found as
``check`` finds them (``algorithms.fragments``), at the scale of a collection.

1. **Candidates** (``candidates``): two documents sharing a run of at least
   ``guaranteed_run`` tokens share a winnowed k-gram fingerprint
   (``DocumentPassages.shingles``); pairs sharing one held by at most ``max_repeats``
   documents, with ``MIN_ANCHOR_RUN`` tokens in a row equal on both sides around it, are
   candidates (a fingerprint held by more is boilerplate and pairs none); so are pairs
   sharing a denser fingerprint for short copies (``options.SHORT_WINDOW``). Pairs the
   scan reports as near-duplicate documents are left out unless ``all_pairs``.
2. **Fragments** (``aligning``): each candidate pair is aligned token by token around its
   shared fingerprints (``align_near``: exact runs, chained across at most ``gap`` differing
   tokens), in worker processes when there are many; each fragment the rule keeps is a
   passage, unless most of its fingerprints are boilerplate. With ``reworded``, sentences
   compared as bags of words too (``reworded.align_sentences``), as ``check`` does. Two
   Markdown files, or one and a plain text, are matched as written (``_as_written``), and as
   read where that finds no copy.
3. **Repeated passages** (``repeated``): the boilerplate, reported once with its places.

Only the texts of documents with a passage are read again: for the previews (none when
``max_previews`` is 0), and those of Markdown and HTML files to give their passages in the
file's characters (``texts.ReadAgain``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..options import ScanOptions
from ..records import PassagePair, PassageSpan, Place, RepeatedPassage
from .aligning import aligned_pairs, among, pairs_of
from .candidates import Candidates
from .documents import DocumentPassages
from .edges import joined, reached_in_files, widened, with_written
from .options import PassageOptions
from .repeated import repeated_passages
from .texts import ReadAgain, TextsByPath


@dataclass(frozen=True, slots=True)
class Passages:
    """The result of passage matching: pairs of regions and repeated passages."""

    pairs: tuple[PassagePair, ...]
    repeated: tuple[RepeatedPassage, ...]
    stats: dict[str, int]


def match_passages(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    *,
    scan_options: ScanOptions | None = None,
    near_duplicates: Iterable[tuple[str, str]] = (),
    texts: TextsByPath | None = None,
    jobs: int = 1,
    every_pair: bool = False,
) -> Passages:
    """Pairs of copied passages and repeated passages among ``docs``.

    ``near_duplicates``: path pairs the scan reports as near-duplicate documents; their
    passages are left out unless ``options.all_pairs``. ``texts``: the decoded text of a
    document by path (None: no longer readable), for the previews (without it, passages have
    none). ``jobs``: processes aligning candidate pairs (the same results as one).
    ``every_pair``: every two documents are aligned, whether or not they share a run of
    tokens (``compare``: its two documents may share reworded passages only).
    ``scan_options`` is accepted for the callers' sake: passages depend on the tokens only.
    """
    del scan_options
    skip: set[tuple[int, int]] = set()
    if not options.all_pairs:
        skip = pairs_of(docs, near_duplicates)
    # Previews need the texts read again (without them, max_previews 0, only those of
    # rendered files are, for their file offsets).
    read = ReadAgain(texts)
    limit = options.max_previews
    # Two Markdown files, or one and a plain text, are matched as written first
    # (``_as_written``), and as read where that finds no copy: a copy of a page as a browser
    # shows it, pasted into another page's Markdown, lacks the link targets its source's
    # lines hold between its words.
    written = np.array([d.as_written is not None or _plain(d) for d in docs], dtype=bool)
    markdown = np.array([d.as_written is not None for d in docs], dtype=bool)
    found_written: list[PassagePair] = []
    keep = None
    if markdown.any():
        found_written = _as_written(docs, options, skip, jobs, every_pair, read)
        index = {d.path: n for n, d in enumerate(docs)}
        size = len(docs)
        copied = np.array(
            sorted({index[p.a.path] * size + index[p.b.path] for p in found_written}),
            dtype=np.int64,
        )
        read_only = _ReadOnly(docs)

        def keep(found: Candidates, short: bool) -> np.ndarray:
            """Anchors of pairs matched as read: of a Markdown file and a file of another
            format, or, for two matched as written with no copy found so, at a fingerprint
            one of them does not hold as written."""
            i, j = found.a, found.b
            both = written[i] & written[j] & (markdown[i] | markdown[j])
            again = ~np.isin(i * size + j, copied)
            if found.at_a.size and found.at_a[0] >= 0:
                again &= read_only(i, found.at_a, short) | read_only(j, found.at_b, short)
            kept_: np.ndarray = ~both | again
            return kept_

    fragments, common, stats = aligned_pairs(docs, options, skip, jobs, every_pair, keep)
    rule = options.fragment_rule()
    out: list[PassagePair] = []
    for i, j, first, last, s_first, s_last, similarity, how in fragments:
        span_a = docs[i].span(first, last)
        span_b = docs[j].span(s_first, s_last)
        if i != j:
            span_a, span_b = widened(docs[i], span_a, docs[j], span_b)
        span_a = replace(span_a, preview=read.preview(span_a, limit))
        span_b = replace(span_b, preview=read.preview(span_b, limit))
        out.append(PassagePair(span_a, span_b, similarity, how))
    out.sort(key=lambda p: (p.a.path, p.b.path, p.a.start_char, p.b.start_char))
    is_common = [
        among(d.shingles, common) if common.size else np.zeros(d.shingles.size, dtype=bool)
        for d in docs
    ]
    repeated = repeated_passages(
        docs, common, is_common, rule, options.max_repeats, read.preview, limit
    )
    stats.update(pairs=len(out), repeated=len(repeated), common_fingerprints=int(common.size))
    located = in_files(placed(Passages(tuple(out), repeated, stats), docs), docs, read)
    pairs = list(map(_reached(docs, read), located.pairs))
    if markdown.any():
        stats["as_written"] = len(found_written)
        pairs = with_written(pairs, found_written)
    return replace(located, pairs=tuple(joined(pairs)))


class _ReadOnly:
    """Whether places of documents are those of fingerprints their files as written do not
    hold (``DocumentPassages.read_only_at``), for many places at once."""

    def __init__(self, docs: Sequence[DocumentPassages]) -> None:
        self.size = np.int64(max((len(d) for d in docs), default=0) + 1)
        self.codes = {
            short: np.sort(
                np.concatenate(
                    [np.empty(0, np.int64)]
                    + [
                        n * self.size + (d.short_read_only_at if short else d.read_only_at)
                        for n, d in enumerate(docs)
                    ]
                )
            )
            for short in (False, True)
        }

    def __call__(self, doc: np.ndarray, at: np.ndarray, short: bool) -> np.ndarray:
        found: np.ndarray = np.isin(doc * self.size + at, self.codes[short])
        return found


def _as_written(
    docs: Sequence[DocumentPassages],
    options: PassageOptions,
    skip: set[tuple[int, int]],
    jobs: int,
    every_pair: bool,
    read: ReadAgain,
) -> list[PassagePair]:
    """The copies of Markdown files' lines as written (``DocumentPassages.as_written``),
    with each other and with plain texts, in the files' lines: a copy cut inside a code block
    and pasted as Markdown (its tags then hidden), or pasted into a code block (its link
    targets then shown), renders differently in its two places, yet its lines are the same.
    Found as in plain texts, boilerplate judged among these files (two plain texts are
    matched as read, their text being their file's)."""
    keep = [n for n, d in enumerate(docs) if d.as_written is not None or _plain(d)]
    written = [docs[n].as_written or docs[n] for n in keep]
    renumbered = {old: new for new, old in enumerate(keep)}
    within = {
        (renumbered[i], renumbered[j]) for i, j in skip if i in renumbered and j in renumbered
    }
    markdown = np.array([docs[n].as_written is not None for n in keep], dtype=bool)

    def either(found: Candidates, short: bool) -> np.ndarray:
        kept_: np.ndarray = markdown[found.a] | markdown[found.b]
        return kept_

    plain_options = replace(options, within=False)
    fragments, _, _ = aligned_pairs(written, plain_options, within, jobs, every_pair, either)
    reach = _reached(docs, read)
    out: list[PassagePair] = []
    for i, j, first, last, s_first, s_last, similarity, how in fragments:
        span_a = written[i].span(first, last)
        span_b = written[j].span(s_first, s_last)
        span_a, span_b = widened(written[i], span_a, written[j], span_b)
        span_a = as_rendered(span_a, docs[keep[i]])
        span_b = as_rendered(span_b, docs[keep[j]])
        span_a = replace(span_a, preview=read.preview(span_a, options.max_previews))
        span_b = replace(span_b, preview=read.preview(span_b, options.max_previews))
        out.append(reach(PassagePair(span_a, span_b, similarity, how)))
    return out


def _plain(doc: DocumentPassages) -> bool:
    """Whether a document's text is its file's characters (a plain text)."""
    return not doc.rendered and doc.locations is None


def as_rendered(span: PassageSpan, doc: DocumentPassages) -> PassageSpan:
    """A region of a Markdown file's lines as written (``span``), with the same lines of
    the text its reader made (``doc``: line k of it is the file's line k) as its
    ``read_start``/``read_end``, and its place; a plain text's as it is."""
    if not doc.rendered:
        return span
    lines = doc.token_lines
    lo = int(np.searchsorted(lines, span.start_line - 1, "left"))
    hi = int(np.searchsorted(lines, span.end_line - 1, "right"))
    if hi > lo:
        read_start, read_end = doc.tokens.span(lo, hi - 1)
    else:  # no word of it is shown: where its lines start
        read_start = read_end = 0 if span.start_line == 1 else int(doc.breaks[span.start_line - 2])
    place = Place("line", str(span.start_line), str(span.end_line))
    return replace(span, read_start=read_start, read_end=read_end, place=place)


def _reached(
    docs: Sequence[DocumentPassages], read: ReadAgain
) -> Callable[[PassagePair], PassagePair]:
    """A pair of regions in their files' lines with the lines next to them that are the
    same in both files (``edges.reached_in_files``), where both files' characters are at
    hand (not for the text extracted from a PDF or a Word file)."""
    kind = {d.path: (d.rendered, d.locations is None) for d in docs}

    def reach(pair: PassagePair) -> PassagePair:
        if pair.a.path == pair.b.path:
            return pair
        lines = []
        for span in (pair.a, pair.b):
            rendered, own_lines = kind.get(span.path, (False, False))
            found = read.file_lines(span.path, rendered) if rendered or own_lines else None
            if found is None:
                return pair
            lines.append(found)
        whole = kind.get(pair.a.path, (False,))[0] or kind.get(pair.b.path, (False,))[0]
        a, b = reached_in_files(pair.a, lines[0], pair.b, lines[1], whole)
        return replace(pair, a=a, b=b)

    return reach


def placed(found: Passages, docs: Sequence[DocumentPassages]) -> Passages:
    """``found`` with each region's place in the parts its reader found (the pages of a PDF,
    the paragraphs of a Word file: ``PassageSpan.place``), from its characters."""
    where = {d.path: d.locations for d in docs if d.locations is not None}
    if not where:
        return found

    def place(span: PassageSpan) -> PassageSpan:
        locations = where.get(span.path)
        if locations is None:
            return span
        return replace(span, place=locations.place(*span.as_read()))

    pairs = tuple(replace(p, a=place(p.a), b=place(p.b)) for p in found.pairs)
    repeated = tuple(
        RepeatedPassage(r.count, tuple(map(place, r.occurrences))) for r in found.repeated
    )
    return Passages(pairs, repeated, found.stats)


def in_files(found: Passages, docs: Sequence[DocumentPassages], read: ReadAgain) -> Passages:
    """``found`` with the regions of Markdown and HTML files in the files' characters and
    lines (``ReadAgain.in_file``; placed first: places are found in the text as read)."""
    rendered = {d.path for d in docs if d.rendered}
    if not rendered:
        return found
    spans = [s for p in found.pairs for s in (p.a, p.b)]
    spans += [s for r in found.repeated for s in r.occurrences]
    located = read.in_files(s for s in spans if s.path in rendered)

    def locate(span: PassageSpan) -> PassageSpan:
        return located.get(span, span)

    pairs = tuple(replace(p, a=locate(p.a), b=locate(p.b)) for p in found.pairs)
    repeated = tuple(
        RepeatedPassage(r.count, tuple(map(locate, r.occurrences))) for r in found.repeated
    )
    return Passages(pairs, repeated, found.stats)
