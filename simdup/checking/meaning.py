"""The sentences of a source as ``check --semantic`` embeds them, and embedding them once.

A source's sentences are cut as the check cuts them (its fragment tokens, then
``sentence_bags.sentence_side``), so vectors stored by ``index add --semantic`` are the ones a
check would compute: ``model_key`` names the model, the check algorithm that cut the sentences
and the character folding applied before embedding, and a stored row is used only under the
same key (``store.sentence_vectors``).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..algorithms.sentences import Side, sentence_texts
from ..engines.tasks import LocalTasks, Origin, Tasks
from ..errors import ConfigError
from ..readers import read_document, reading_session
from ..readers.discovery import DiscoveryOptions, discover
from ..records import DecodedDocument, SkippedFile, SourceFile
from ..store.sentence_vectors import SentenceVectors, text_digest
from ..text import variants
from ..text.embeddings import SentenceEmbedder, default_embedder
from ..text.sentence_bags import sentence_side
from ..text.tokens import Tokens, tokenize

# Changes whenever the same text could be cut into other sentences for embedding (the fragment
# tokens, ``sentence_side``): stored vectors of other cuts are then embedded again.
SENTENCES_VERSION = "sentences/1"
# Sentences embedded per call when many are waiting (sources, documents added to an index).
# The model cuts a call into micro-batches of 384 tokens (~25 sentences) itself; a call's
# last one is ragged, and a call is where progress is counted and the cache is written.
# Measured on 1,024 sentences of the visible bench set, one BLAS thread, alternating runs
# (medians, a shared 2-core machine at load 7): 32 a call 114/s, 64 242/s, 128 230/s,
# 256 298/s, 512 374/s. 512 also keeps a progress step to a few seconds.
EMBED_BATCH = 512
# Progress of embedding: (sentences embedded, sentences to embed).
Steps = Callable[[int, int], None]


def model_name(embedder: SentenceEmbedder) -> str:
    """The model and its package's version (what a worker's vectors are checked to come from)."""
    return f"{embedder.name} ({embedder.version})"


def model_key(embedder: SentenceEmbedder) -> str:
    """What made a row of vectors: the model, how sentences were cut, the folding before."""
    return f"{model_name(embedder)}; {SENTENCES_VERSION}; {variants.SOURCE}"


def sentences_of(text: str, tokens: Tokens, side: Side) -> list[str]:
    """The sentences of ``text`` that are embedded (one per sentence of ``side``)."""
    return sentence_texts(text, side, tokens.starts, tokens.ends)


def distinct_sentences(cuts: Sequence[Sequence[str]]) -> tuple[list[str], list[np.ndarray]]:
    """The distinct sentences of ``cuts`` in the order they first appear, and for each list of
    ``cuts`` the number of each of its sentences among them."""
    number: dict[str, int] = {}
    rows = [np.fromiter((number.setdefault(s, len(number)) for s in cut), np.int64, len(cut))
            for cut in cuts]  # fmt: skip
    return list(number), rows


def embed_distinct(
    embedder: SentenceEmbedder,
    cuts: Sequence[Sequence[str]],
    progress: Steps | None = None,
    batch: int = EMBED_BATCH,
) -> Iterator[list[tuple[int, np.ndarray]]]:
    """The vectors of each list of sentences of ``cuts``, as ``(number, vectors)`` pairs,
    yielded a call's worth at a time and in order as the lists are made whole: each distinct
    sentence is embedded once (revisions of one text, shared boilerplate: 238,000 sentences of
    1,000 sources of the visible bench set are 80,000 distinct), ``batch`` a call;
    ``progress(done, total)`` in distinct sentences. A sentence's vector does not depend on
    the others embedded with it (to float32 rounding: < 3e-7 a component)."""
    distinct, rows = distinct_sentences(cuts)
    # A list is whole once the distinct sentences up to its last new one are embedded.
    whole = np.maximum.accumulate([int(r.max()) + 1 if r.size else 0 for r in rows] or [0])
    total = len(distinct)
    if progress:
        progress(0, total)
    vectors = embedder.encode([])  # (0, dimensions) until the first call
    given = done = 0
    while given < len(rows):
        if done < total:
            part = embedder.encode(distinct[done : done + batch])
            if not done:
                vectors = np.empty((total, part.shape[1]), dtype=np.float32)
            vectors[done : done + len(part)] = part
            done += len(part)
            if progress:
                progress(done, total)
        ready = int(np.searchsorted(whole, done, side="right"))
        yield [(n, vectors[rows[n]]) for n in range(given, ready)]
        given = ready


@dataclass(frozen=True)
class EmbedResult:
    """What ``add_sentence_vectors`` did."""

    documents: int
    sentences: int
    seconds: float  # spent embedding (the model's time, reading excluded)
    skipped: tuple[SkippedFile, ...]


# Files read and cut into sentences per task (``index add --semantic``): a few seconds of work,
# so that a task costs little to schedule and a lost worker little to run again.
FILES_PER_TASK = 32
# A document read and cut: its key, its text's digest and its sentences.
Cut = tuple[str, bytes, list[str]]


def add_sentence_vectors(
    store: SentenceVectors,
    paths: Iterable[str | os.PathLike[str]],
    discovery: DiscoveryOptions | None = None,
    *,
    embedder: SentenceEmbedder | None = None,
    progress: Callable[[int, int], None] | None = None,
    tasks: Tasks | None = None,
) -> EmbedResult:
    """Embed the sentences of every file under ``paths`` (found as ``index add`` finds them,
    stored under the same keys) into ``store``; ``progress(done, total)`` in files. The files
    are read and cut, and the sentences embedded, by ``tasks`` (default: in this process; a
    ``distributed.tasks.DaskTasks``: by the workers of a cluster, each loading the model once),
    with the same rows stored: the documents are taken in groups of at least ``EMBED_BATCH``
    sentences, and each group's distinct sentences embedded ``EMBED_BATCH`` a call, here as on
    a cluster, so that every call embeds the same sentences together."""
    chosen = embedder  # None: each process's default model, loaded there once
    embedder = embedder or default_embedder()
    model = model_key(embedder)
    made_by = model_name(embedder)
    discovery = discovery or DiscoveryOptions()
    tasks = tasks or LocalTasks()
    files, skipped = discover([os.fspath(p) for p in paths], discovery)
    skips = list(skipped)
    origin = Origin.here()
    runs = ((files[start : start + FILES_PER_TASK], discovery.max_size, origin)
            for start in range(0, len(files), FILES_PER_TASK))  # fmt: skip
    counts = {"documents": 0, "sentences": 0}

    def groups() -> Iterator[list[Cut]]:
        """The documents read, in groups of at least ``EMBED_BATCH`` sentences."""
        pending: list[Cut] = []
        waiting = done = 0
        for found in (f for run in tasks.map(read_cuts, runs) for f in run):
            if progress:
                progress(done, len(files))
            done += 1
            if isinstance(found, SkippedFile):
                skips.append(found)
                continue
            pending.append(found)
            counts["documents"] += 1
            counts["sentences"] += len(found[2])
            waiting += len(found[2])
            if waiting >= EMBED_BATCH:
                yield pending
                pending, waiting = [], 0
        if pending:
            yield pending

    # Each group's calls, in order; what a call's vectors belong to waits here until they come.
    planned: deque[tuple[list[Cut], list[np.ndarray], int]] = deque()

    def calls() -> Iterator[tuple[list[str], SentenceEmbedder | None]]:
        for group in groups():
            distinct, rows = distinct_sentences([cut for _, _, cut in group])
            starts = range(0, len(distinct), EMBED_BATCH) if distinct else range(1)
            planned.append((group, rows, len(starts)))
            for start in starts:  # a group of no sentence still makes one (empty) call
                yield distinct[start : start + EMBED_BATCH], chosen

    parts: list[np.ndarray] = []
    seconds = 0.0
    with reading_session():
        for vectors, spent, by in tasks.map(encode_sentences, calls()):
            if by != made_by:
                raise ConfigError(f"sentences embedded by {by}, not {made_by}: install the same "
                                  "model package on every worker")  # fmt: skip
            seconds += spent
            parts.append(vectors)
            group, rows, count = planned[0]
            if len(parts) < count:
                continue
            planned.popleft()
            embedded = np.concatenate(parts) if len(parts) > 1 else parts[0]
            parts = []
            store.put([(path, digest, model, embedded[r])
                       for (path, digest, _), r in zip(group, rows, strict=True)])  # fmt: skip
    return EmbedResult(counts["documents"], counts["sentences"], seconds,
                       tuple(sorted(skips, key=lambda s: s.path)))  # fmt: skip


def read_cuts(run: tuple[Sequence[SourceFile], int, Origin]) -> list[Cut | SkippedFile]:
    """Files read and cut into the sentences a check embeds (a task: here, or on a worker,
    where the files are read from the client's folder)."""
    files, max_size, origin = run
    out: list[Cut | SkippedFile] = []
    with reading_session():
        for found in files:
            read = read_document(origin.source(found), max_size)
            if isinstance(read, SkippedFile):
                out.append(replace(read, path=found.path))
            else:
                out.append((found.path, text_digest(read.text), _cut(read)))
    return out


def encode_sentences(
    call: tuple[list[str], SentenceEmbedder | None],
) -> tuple[np.ndarray, float, str]:
    """One call of the model (a task): the vectors of the sentences, the seconds it took, and
    which model made them (None: this process's default model, loaded once)."""
    sentences, embedder = call
    embedder = embedder or default_embedder()
    started = time.perf_counter()
    vectors = embedder.encode(sentences)
    return vectors, time.perf_counter() - started, model_name(embedder)


def _cut(document: DecodedDocument) -> list[str]:
    tokens = tokenize(document.text)
    return sentences_of(document.text, tokens, sentence_side(document.text, tokens))
