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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..algorithms.sentences import Side, sentence_texts
from ..readers import read_document, reading_session
from ..readers.discovery import DiscoveryOptions, discover
from ..records import DecodedDocument, SkippedFile
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


def model_key(embedder: SentenceEmbedder) -> str:
    """What made a row of vectors: the model, how sentences were cut, the folding before."""
    return f"{embedder.name} ({embedder.version}); {SENTENCES_VERSION}; {variants.SOURCE}"


def sentences_of(text: str, tokens: Tokens, side: Side) -> list[str]:
    """The sentences of ``text`` that are embedded (one per sentence of ``side``)."""
    return sentence_texts(text, side, tokens.starts, tokens.ends)


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
    number: dict[str, int] = {}
    rows = [np.fromiter((number.setdefault(s, len(number)) for s in cut), np.int64, len(cut))
            for cut in cuts]  # fmt: skip
    # A list is whole once the distinct sentences up to its last new one are embedded.
    whole = np.maximum.accumulate([int(r.max()) + 1 if r.size else 0 for r in rows] or [0])
    distinct = list(number)
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


def add_sentence_vectors(
    store: SentenceVectors,
    paths: Iterable[str | os.PathLike[str]],
    discovery: DiscoveryOptions | None = None,
    *,
    embedder: SentenceEmbedder | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedResult:
    """Embed the sentences of every file under ``paths`` (found as ``index add`` finds them,
    stored under the same keys) into ``store``; ``progress(done, total)`` in files."""
    embedder = embedder or default_embedder()
    model = model_key(embedder)
    discovery = discovery or DiscoveryOptions()
    files, skipped = discover([os.fspath(p) for p in paths], discovery)
    skips = list(skipped)
    pending: list[tuple[str, bytes, list[str]]] = []
    documents = sentences = waiting = 0
    seconds = 0.0

    def flush() -> None:
        nonlocal seconds, waiting
        started = time.perf_counter()
        rows = [(pending[n][0], pending[n][1], model, vectors)
                for ready in embed_distinct(embedder, [cut for _, _, cut in pending])
                for n, vectors in ready]  # fmt: skip
        seconds += time.perf_counter() - started
        store.put(rows)
        pending.clear()
        waiting = 0

    with reading_session():
        for done, found in enumerate(files):
            if progress:
                progress(done, len(files))
            read = read_document(found, discovery.max_size)
            if isinstance(read, SkippedFile):
                skips.append(read)
                continue
            cut = _cut(read)
            pending.append((found.path, text_digest(read.text), cut))
            documents += 1
            sentences += len(cut)
            waiting += len(cut)
            if waiting >= EMBED_BATCH:
                flush()
        if pending:
            flush()
    return EmbedResult(documents, sentences, seconds, tuple(sorted(skips, key=lambda s: s.path)))


def _cut(document: DecodedDocument) -> list[str]:
    tokens = tokenize(document.text)
    return sentences_of(document.text, tokens, sentence_side(document.text, tokens))
