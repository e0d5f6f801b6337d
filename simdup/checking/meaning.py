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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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
# Sentences embedded per call when many documents are added (the model batches inside).
EMBED_BATCH = 1024


def model_key(embedder: SentenceEmbedder) -> str:
    """What made a row of vectors: the model, how sentences were cut, the folding before."""
    return f"{embedder.name} ({embedder.version}); {SENTENCES_VERSION}; {variants.SOURCE}"


def sentences_of(text: str, tokens: Tokens, side: Side) -> list[str]:
    """The sentences of ``text`` that are embedded (one per sentence of ``side``)."""
    return sentence_texts(text, side, tokens.starts, tokens.ends)


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
        texts = [s for _, _, cut in pending for s in cut]
        started = time.perf_counter()
        vectors = embedder.encode(texts)
        seconds += time.perf_counter() - started
        rows, at = [], 0
        for key, digest, cut in pending:
            rows.append((key, digest, model, vectors[at : at + len(cut)]))
            at += len(cut)
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
