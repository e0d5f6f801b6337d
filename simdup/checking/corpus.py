"""The sources of a check (``Corpus``): each file read once through the reader seam, however
many of ``against``, ``own`` and a stored index name it; tokenised and indexed by winnowed
k-grams (``fragments.SourceIndex``), by sentence bags (``bag_index.BagIndex``) when reworded
passages are looked for, embedded by sentence when passages said alike are (``embed_sources``);
the author's own work marked, by file, by text and by content (``own.SameWork``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..algorithms.bag_index import BagIndex
from ..algorithms.fragments import FragmentRule, Match, SourceIndex, align, fingerprints
from ..algorithms.merging import JoinRule, joined, merged, without_lone
from ..algorithms.reworded import align_sentences
from ..algorithms.sentence_meaning import (
    PARAGRAPH,
    MeaningRule,
    MeaningSeeds,
    align_meaning,
    meaning_seeds,
)
from ..algorithms.sentences import SentenceRule, Side, brings_source_words
from ..algorithms.sentences import seeds as sentence_seeds
from ..engines.tasks import WorkerState, chunks_on_cores
from ..readers import read_document
from ..readers.discovery import DiscoveryOptions, discover
from ..records import DecodedDocument, FileText, Locations, SkippedFile, SourceFile
from ..store.sentence_vectors import SentenceVectors, text_digest
from ..text.embeddings import default_embedder
from ..text.file_offsets import FileOffsets, file_offsets
from ..text.sentence_bags import sentence_side
from ..text.tokens import Tokens, tokenize
from .meaning import Steps, embed_distinct, model_key, sentences_of
from .own import SameWork

# A source sharing at least this many distinct features (words, CJK character pairs) with a
# checked document is aligned by sentences even when no run of words proposed it, the
# BAG_CANDIDATES sharing most: a reworded passage of a few sentences shares dozens.
BAG_MIN_SHARED = 12
BAG_CANDIDATES = 32


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
    vectors: np.ndarray | None = None  # its sentences' embeddings (``Corpus.embed_sources``)
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


# ``check``'s progress: READING_SOURCES while the sources are read, EMBEDDING_SOURCES while
# their sentences are embedded (``--semantic``; its steps counted in sentences), then each
# document's path as it is checked.
Progress = Callable[[str], None]
READING_SOURCES = "reading sources"
EMBEDDING_SOURCES = "embedding sources"


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
        join: JoinRule | None = None,
    ) -> None:
        self.rule = rule
        self.sentences = sentences
        # With reworded passages: pieces of one copy joined, stock phrases left out.
        self.join = join or JoinRule()
        self.meaning = meaning
        # Worker processes that align a document with its sources (``found``).
        self.jobs = 1
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
        self, document: DecodedDocument, *, own: bool = False, identity: Identity | None = None,
        prepared: Prepared | None = None,
    ) -> None:  # fmt: skip
        """``document`` as a source (its own work if ``own``). The same file is not added
        again, nor a text of the author's own work again: a source with the text of own work
        is own work. (Two other files with one text stay two sources: two students may hand
        in the same file, and each is then the other's source.) ``prepared``: its tokens and
        sentences, made already (``prepare``)."""
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
        prepared = prepared or prepare(document.text, self.rule, sentences=False)
        tokens = prepared.tokens
        self.index.add_fingerprints(prepared.fingerprints)
        source = _Source(
            document.path, own, document.text, tokens, document.locations, identity, digest,
            named_own=own, file=document.origin, _side=prepared.side,
        )  # fmt: skip
        if self.bags is not None:
            self.bags.add_distinct(source.side().distinct_features)
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
        unread: list[tuple[SourceFile, Identity]] = []
        for found in files:
            identity = file_identity(found.path)
            known = self._by_identity.get(identity)
            if known is not None:
                self._name_own(known, own)
            else:
                unread.append((found, identity))
        reading = [found for found, _ in unread]
        for (_, identity), (read, prepared) in zip(
            unread, self._read(reading, discovery.max_size), strict=True
        ):
            known = self._by_identity.get(identity)  # another path of a file just added
            if known is not None:
                self._name_own(known, own)
                continue
            if isinstance(read, SkippedFile):
                self.skipped.append(read)
                continue
            self.documents[identity] = read
            self.add(read, own=own, identity=identity, prepared=prepared)

    def _read(
        self, files: list[SourceFile], max_size: int
    ) -> Iterator[tuple[DecodedDocument | SkippedFile, Prepared | None]]:
        """Each file read, tokenised and (for reworded passages) cut into sentences, in order:
        by ``jobs`` worker processes when there are many (``PARALLEL_MIN_SOURCES``), in
        chunks of files in order, else here."""
        jobs = self.jobs if len(files) >= PARALLEL_MIN_SOURCES else 1
        size = max(1, -(-len(files) // (CHUNKS_PER_JOB * jobs)))
        chunks = [files[at : at + size] for at in range(0, len(files), size)]
        reading = _Reading(max_size, self.rule, self.bags is not None)
        if jobs == 1:  # here, without the process-wide state (``serve`` checks in threads)
            yield from _read_in(reading, files)
            return
        for part in self._on_cores(
            _read_chunk, chunks, jobs, _READING, reading,
            lambda chunk: f"reading {chunk[0].path} and {len(chunk) - 1} more",
        ):  # fmt: skip
            yield from part

    def add_read(self, found: DecodedDocument | SkippedFile, *, own: bool = False) -> None:
        if isinstance(found, SkippedFile):
            self.skipped.append(found)
        else:
            self.add(found, own=own)

    def embed_sources(self, progress: Steps | None = None) -> None:
        """Give every source the embeddings of its sentences: stored ones when a store holds
        them for its text, else made now, each distinct sentence once and ``EMBED_BATCH`` a
        call, and kept in the cache a call's worth of sources at a time (a check stopped
        half-way keeps what it made). ``progress(done, total)`` in sentences to embed."""
        waiting = [source for source in self.sources if source.vectors is None]
        if not waiting:
            return
        embedder = default_embedder()
        model = model_key(embedder)
        missing = []
        for source in waiting:
            count = source.side().sentences
            for store in self.stored:
                found = store.get(source.digest, model, count)
                if found is not None:
                    self.reused += count
                    source.vectors = found
                    break
            else:
                missing.append(source)
        if not missing:
            return  # all stored (``--db``): no bar for nothing to embed
        cuts = [sentences_of(s.text, s.tokens, s.side()) for s in missing]
        for ready in embed_distinct(embedder, cuts, progress):
            for number, vectors in ready:
                missing[number].vectors = vectors
                self.embedded += len(vectors)
            if self.cache is not None and ready:
                self.cache.put([(missing[n].key, missing[n].digest, model, v) for n, v in ready])

    def vectors(self, source: _Source) -> np.ndarray:
        """The embeddings of ``source``'s sentences (``embed_sources``, for all on first need)."""
        if source.vectors is None:
            self.embed_sources()
        assert source.vectors is not None
        return source.vectors

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
                vectors, side,
                [(self.vectors(source), source.side()) for source in self.sources],
                self.meaning,
            )  # fmt: skip
        lexical = set(candidates)
        numbers = [
            number for number in sorted(lexical | set(seeds))
            if leave_out is None or self.sources[number].identity != leave_out
        ]  # fmt: skip
        alignment = _Alignment(self, tokens, side, seeds, lexical)
        # Each source is aligned alone: with many, on ``jobs`` worker processes (forked: they
        # share the corpus), chunks of them in order; the same fragments as one by one.
        jobs = self.jobs if len(numbers) >= PARALLEL_MIN_SOURCES else 1
        size = max(1, -(-len(numbers) // (CHUNKS_PER_JOB * jobs)))
        chunks = [numbers[at : at + size] for at in range(0, len(numbers), size)]
        if jobs == 1:  # here, without the process-wide state (``serve`` checks in threads)
            parts: Iterable[list[tuple[int, list[Match], list[Match]]]] = [
                _aligned_in(alignment, numbers)
            ]
        else:
            parts = self._on_cores(
                _align_chunk, chunks, jobs, _ALIGNING, alignment,
                lambda chunk: f"aligning sources {chunk[0]}-{chunk[-1]}",
            )  # fmt: skip
        for part in parts:
            found += [Found(self.sources[n], matches, exact) for n, matches, exact in part]
        return found

    @staticmethod
    def _on_cores(
        work: Callable[[list[Any]], Any], chunks: list[list[Any]], jobs: int,
        state: WorkerState[Any], held: object, describe: Callable[[list[Any]], str],
    ) -> Iterator[Any]:  # fmt: skip
        """``chunks_on_cores`` of ``work`` with ``state`` holding ``held`` while it runs."""
        try:
            yield from chunks_on_cores(work, chunks, jobs, initializer=state.set,
                                       initargs=(held,), describe=describe)  # fmt: skip
        finally:
            state.clear()

    def aligned(
        self, number: int, tokens: Tokens, side: Side | None, seeds: dict[int, MeaningSeeds],
        lexical: set[int],
    ) -> tuple[list[Match], list[Match]]:  # fmt: skip
        """The fragments of the document (``tokens``, ``side``) in source ``number``, and its
        exact ones (``found``, one source)."""
        source = self.sources[number]
        weights = tokens.weights
        matches: list[Match] = []
        passages: list[Match] = []
        exact: list[Match] = []
        if number in lexical:
            matches = exact = align(tokens.hashes, weights, source.tokens.hashes, self.rule)
            if side is not None and self.sentences is not None:
                passages += align_sentences(side, source.side(), self.sentences)
        if side is not None and number in seeds and self.meaning is not None:
            meant = align_meaning(side, source.side(), seeds[number], self.meaning)
            named = [_named(m, tokens, source.tokens) for m in meant]
            # A paragraph alike as a whole is a translation's evidence only: in one
            # language, the author's own paragraph on the source's subject is as alike
            # (chapters on one subject, benchmarks/same_subject.py).
            named = [n for m, n in zip(meant, named, strict=True)
                     if m.how != PARAGRAPH or n.how == "translated"]  # fmt: skip
            passages += _drawn_paraphrases(named, side, source.side(), self)
        sides = (side, source.side()) if side is not None else None
        matches = merged(matches, passages, sides, self.join)
        if side is not None and self.sentences is not None:
            # Pieces of one copy as one; stock phrases shared alone left out.
            matches = joined(matches, side, source.side(), self.join)
            matches = without_lone(matches, weights, self.join)
        return matches, exact




# Sources read, or aligned with a document, on worker processes when there are this many
# (fewer cost more to fork for than they take), in this many chunks a worker.
PARALLEL_MIN_SOURCES = 64
CHUNKS_PER_JOB = 4


@dataclass(frozen=True)
class Prepared:
    """What a source's text is indexed by: its tokens, their fingerprints, and its sentences
    (with their distinct features) when reworded passages are looked for."""

    tokens: Tokens
    fingerprints: np.ndarray
    side: Side | None


def prepare(text: str, rule: FragmentRule, *, sentences: bool) -> Prepared:
    """``Prepared`` of a source's text (``sentences``: its sentences too)."""
    tokens = tokenize(text)
    side = None
    if sentences:
        side = sentence_side(text, tokens)
        side.distinct_features  # noqa: B018 (made here: a worker's, sent with the side)
    return Prepared(tokens, fingerprints(tokens.hashes, rule), side)


@dataclass(frozen=True)
class _Reading:
    """Sources being read (``Corpus._read``): the size limit, and whether sentences are made."""

    max_size: int
    rule: FragmentRule
    sentences: bool


_READING: WorkerState[_Reading] = WorkerState("reading the sources of a check")


def _read_chunk(
    files: list[SourceFile],
) -> list[tuple[DecodedDocument | SkippedFile, Prepared | None]]:
    """``_read_in`` in a worker (its reading held in ``_READING``)."""
    return _read_in(_READING.get(), files)


def _read_in(
    held: _Reading, files: list[SourceFile]
) -> list[tuple[DecodedDocument | SkippedFile, Prepared | None]]:
    """Each of ``files`` read (``read_document``) and, read, prepared (``prepare``)."""
    out: list[tuple[DecodedDocument | SkippedFile, Prepared | None]] = []
    for found in files:
        read = read_document(found, held.max_size)
        prepared = None
        if not isinstance(read, SkippedFile):
            prepared = prepare(read.text, held.rule, sentences=held.sentences)
        out.append((read, prepared))
    return out


@dataclass(frozen=True)
class _Alignment:
    """A document being aligned with its candidate sources (``Corpus.found``)."""

    corpus: Corpus
    tokens: Tokens
    side: Side | None
    seeds: dict[int, MeaningSeeds]
    lexical: set[int]


_ALIGNING: WorkerState[_Alignment] = WorkerState("aligning a document with its sources")


def _align_chunk(numbers: list[int]) -> list[tuple[int, list[Match], list[Match]]]:
    """``_aligned_in`` in a worker (its alignment held in ``_ALIGNING``)."""
    return _aligned_in(_ALIGNING.get(), numbers)


def _aligned_in(
    held: _Alignment, numbers: list[int]
) -> list[tuple[int, list[Match], list[Match]]]:
    """Each source of ``numbers`` that the document shares fragments with, and the fragments
    (all and exact), in order."""
    out = []
    for number in numbers:
        matches, exact = held.corpus.aligned(number, held.tokens, held.side, held.seeds,
                                             held.lexical)  # fmt: skip
        if matches:
            out.append((number, matches, exact))
    return out


def _drawn_paraphrases(named: list[Match], side: Side, source: Side, corpus: Corpus) -> list[Match]:
    """``named`` without the paraphrased passages that bring too few words of their source
    (``MeaningRule.paraphrase_min_drawn_words``): the author's own text is what gives no
    seed of words with the source (``sentences.seeds``), as for reworded passages."""
    if corpus.meaning is None or not any(m.how == "paraphrased" for m in named):
        return named
    least = corpus.meaning.paraphrase_min_drawn_words
    alike = sentence_seeds(side, source, corpus.sentences or SentenceRule())[0][:, 0]
    return [
        m for m in named
        if m.how != "paraphrased" or brings_source_words(side, source, m, least, alike)
    ]  # fmt: skip


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
