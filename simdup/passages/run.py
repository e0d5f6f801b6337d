"""The entry points of passages: ``scan_passages`` (``scan --passages``: a scan whose engine
makes each text's passage tokens as it fingerprints it, where it can), ``find_passages`` (files read
again) and ``compare_passages`` (``compare A B --passages``)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..engines import Engine, Result, default_jobs
from ..options import ScanOptions, resolve_options
from ..params import FeatureParams
from ..readers import read_named
from ..readers.discovery import find_files
from ..records import (
    DecodedDocument,
    PassagePair,
    PassageSpan,
    ScanResult,
    SkippedFile,
    SourceFile,
)
from ..scanning import LOCAL, Backend, CachedBackend, scan, scan_cache_key
from ..store.cache import ScanCache
from ..text.processor import is_too_short
from .documents import DocumentPassages, PassageProcessor, written_text
from .matching import Passages, match_passages
from .options import COMPARE_MIN_MATCH, PassageOptions
from .reading import SourceTexts, read_passages
from .store import PassageStore, file_identities, passage_key


def find_passages(
    sources: Sequence[SourceFile],
    options: ScanOptions,
    passages: PassageOptions,
    *,
    near_duplicates: Iterable[tuple[str, str]] = (),
) -> Passages:
    """Duplicated passages among the files ``sources`` (read again, one at a time)."""
    read = read_passages(
        sources,
        options.features,
        passages,
        max_size=options.discovery.max_size,
        jobs=options.jobs,
    )
    docs = [d for d in read if d is not None]
    by_path = {s.path: s for s in sources}
    return _match_sources(docs, by_path, options, passages, near_duplicates, len(read) - len(docs))


def _match_sources(
    docs: Sequence[DocumentPassages],
    sources: dict[str, SourceFile],
    options: ScanOptions,
    passages: PassageOptions,
    near_duplicates: Iterable[tuple[str, str]],
    unreadable: int,
    detected: dict[str, str] | None = None,
) -> Passages:
    """``match_passages`` of files' tokens, their texts read again for the previews (decoded
    with the encodings ``detected`` for them before, by path)."""
    result = match_passages(
        docs,
        passages,
        scan_options=options,
        near_duplicates=near_duplicates,
        texts=SourceTexts(sources, options.discovery.max_size, detected or {}),
        jobs=options.jobs or default_jobs(),
    )
    result.stats["files_unreadable"] = unreadable
    return result


_PASSAGE_PROCESSORS: dict[tuple[FeatureParams, PassageOptions], PassageProcessor] = {}


class _PassageTask:
    """The engines' ``TextTask`` of ``scan --passages``: each fingerprinted text's passage
    tokens are made in the worker that has just decoded it (one read); only numbers go back
    to the parent."""

    def __init__(self, params: FeatureParams, passages: PassageOptions) -> None:
        self.params = params
        self.passages = passages

    def __call__(self, document: DecodedDocument) -> DocumentPassages:
        key = (self.params, self.passages)
        proc = _PASSAGE_PROCESSORS.get(key)
        if proc is None:
            proc = _PASSAGE_PROCESSORS[key] = PassageProcessor(self.params, self.passages)
        return proc.document(
            document.path,
            document.text,
            document.locations,
            document.origin is not None,
            written_text(document.origin),
        )


def _passage_engine(
    engine: Engine,
    options: ScanOptions,
    passages: PassageOptions,
    sink: dict[str, tuple[SourceFile, DocumentPassages]],
) -> Engine | None:
    """``engine`` running the passage task, or None when it cannot (its workers never hold
    the texts)."""

    def keep(source: SourceFile, result: Result, found: DocumentPassages | None) -> None:
        if found is not None and (not isinstance(result, SkippedFile) or is_too_short(result)):
            sink[result.path] = (source, found)

    return engine.with_task(_PassageTask(options.features, passages), keep)


def scan_passages(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    passages: PassageOptions | None = None,
    **scan_arguments: Any,
) -> ScanResult:
    """``simdup.scan`` with duplicated passages (``scan --passages``): the whole-document
    result, plus ``passages`` and ``repeated_passages``. Keyword arguments are ``scan``'s.

    The files are fingerprinted as a scan does (engine, cache). Where the engine is the local
    one, it runs the passage task (``_PassageTask``), which makes each text's passage tokens
    as it is fingerprinted; files it did not read (answered by the scan cache, or another engine)
    are read again for their passages. With ``reference`` (``--against``), passages are looked
    for among the scanned files only. With the scan cache (a backend that has one:
    ``scanning.cache.CachedBackend``), the passages of a scan
    of the same files' bytes with the same settings are reused as they were kept
    (``passages.store``; their ``passage_stats`` say ``reused``), and those found are kept.
    """
    passages = passages or PassageOptions()
    roots = [os.fspath(p) for p in paths]
    sink: dict[str, tuple[SourceFile, DocumentPassages]] = {}
    backend: Backend = scan_arguments.pop("backend", None) or LOCAL

    def with_passages(engine: Engine, o: ScanOptions) -> Engine:
        # Files the scan cache answers are not read by the engine: read again below.
        return _passage_engine(engine, o, passages, sink) or engine

    result = scan(roots, options, backend=backend.wrapping_engine(with_passages), **scan_arguments)
    started = time.perf_counter()
    resolved = _resolved(options, scan_arguments)
    # Texts too short to fingerprint are read for their passages too: copied whole into a
    # longer document, a short one is a passage of it.
    paths = [d.path for d in result.files] + [s.path for s in result.skipped if is_too_short(s)]
    # The passages of the last scan of the same files with the same settings, kept in the
    # scan cache's folder: none without the cache (--no-cache).
    cache = backend.scan_cache if isinstance(backend, CachedBackend) else None
    store, key, stored = None, None, None
    if cache is not None and cache.usable:
        store = PassageStore(cache)
        key = _passage_key(cache, roots, paths, result, resolved, passages)
        stored = None if key is None else store.load(key)
    if stored is not None:
        sink.clear()
        reused = Passages(stored.pairs, stored.repeated, {**stored.stats, "reused": True})
        return _with_passages(result, passages, reused, started)
    sources = {path: source for path, (source, _) in sink.items()}
    unread = [path for path in paths if path not in sink]
    read: dict[str, DocumentPassages | None] = {}
    if unread:
        found = find_files([os.fspath(p) for p in paths], resolved.discovery).files
        by_path = {f.path: f for f in found}
        again = [by_path[path] for path in unread if path in by_path]
        sources.update((s.path, s) for s in again)
        jobs = resolved.jobs or default_jobs()
        max_size = resolved.discovery.max_size
        for s, doc in zip(
            again,
            read_passages(again, resolved.features, passages, max_size=max_size, jobs=jobs),
            strict=True,
        ):
            read[s.path] = doc
    docs: list[DocumentPassages] = []
    unreadable = 0
    for path in paths:
        if path in sink:
            docs.append(sink[path][1])
        elif path in read:
            doc = read[path]
            if doc is None:
                unreadable += 1
            else:
                docs.append(doc)
    sink.clear()
    detected = {d.path: d.encoding for d in result.files if d.encoding_source == "detected"}
    matched = _match_sources(
        docs, sources, resolved, passages, ((p.a, p.b) for p in result.pairs), unreadable, detected
    )
    # A file that could not be read may be readable next time: such passages are not kept.
    if store is not None and key is not None and not unreadable:
        store.save(key, matched.pairs, matched.repeated, matched.stats)
    return _with_passages(result, passages, matched, started)


def _passage_key(
    cache: ScanCache,
    roots: Sequence[str],
    paths: Sequence[str],
    result: ScanResult,
    options: ScanOptions,
    passages: PassageOptions,
) -> str | None:
    """The key of the passages of ``result``'s documents ``paths`` (``store.passages``): the
    scan's settings, the passage options, each document's bytes and the near-duplicate pairs;
    None when a document cannot be read (nothing is reused or kept)."""
    scanned = resolve_options(options, {}, files=int(result.stats.get("files_found", 0)))
    identities = file_identities(cache, scan_cache_key(scanned, roots), paths)
    if identities is None:
        return None
    settings = {
        "scan": result.settings,
        "features": options.features.cache_key(),
        "passages": passages.describe(),
        "max_previews": passages.max_previews,
    }
    near_duplicates = ((p.a, p.b) for p in result.pairs)
    return passage_key(settings, list(zip(paths, identities, strict=True)), near_duplicates)


def _with_passages(
    result: ScanResult, passages: PassageOptions, matched: Passages, started: float
) -> ScanResult:
    """``result`` with the passages ``matched`` (found since ``started``, or reused)."""
    seconds = dict(result.stats.get("seconds") or {})
    seconds["passages"] = round(time.perf_counter() - started, 3)
    if "total" in seconds:
        seconds["total"] = round(seconds["total"] + seconds["passages"], 3)
    stats = {
        **result.stats,
        "passages": len(matched.pairs),
        "repeated_passages": len(matched.repeated),
        "passage_stats": matched.stats,
        "seconds": seconds,
    }
    settings = {**result.settings, "passages": passages.describe()}
    return replace(
        result,
        settings=settings,
        stats=stats,
        passages=matched.pairs,
        repeated_passages=matched.repeated,
    )


def _resolved(options: ScanOptions | None, overrides: dict[str, Any]) -> ScanOptions:
    fields = {k: v for k, v in overrides.items() if k in ScanOptions.__dataclass_fields__}
    return resolve_options(options, fields)


def compare_passages(
    path_a: str | os.PathLike[str],
    path_b: str | os.PathLike[str],
    options: ScanOptions | None = None,
    passages: PassageOptions | None = None,
    *,
    stdin: bytes | None = None,
) -> tuple[PassagePair, ...]:
    """The matching regions of two files (``compare A B --passages``), whether or not the two
    are near-duplicates as a whole. Raises ``InputError`` when one cannot be read."""
    options = options or ScanOptions()
    passages = passages or PassageOptions(min_match=COMPARE_MIN_MATCH)
    proc = PassageProcessor(options.features, passages)
    docs = []
    texts: dict[str, DecodedDocument] = {}
    for path in (os.fspath(path_a), os.fspath(path_b)):
        decoded = read_named(path, options.discovery.max_size, stdin)
        docs.append(
            proc.document(
                path,
                decoded.text,
                decoded.locations,
                decoded.origin is not None,
                written_text(decoded.origin),
            )
        )
        texts[path if path not in texts else path + "\0"] = decoded
    if docs[0].path == docs[1].path:
        docs[1] = replace(docs[1], path=docs[1].path + "\0")  # the same file twice
    found = match_passages(
        docs,
        replace(passages, all_pairs=True, max_repeats=0),
        scan_options=options,
        texts=texts.get,
        every_pair=True,
    )
    pairs = [p for p in found.pairs if p.a.path != p.b.path]
    pairs = [_unmark(p) for p in pairs]
    return tuple(pairs)


def _unmark(pair: PassagePair) -> PassagePair:
    def fix(span: PassageSpan) -> PassageSpan:
        return replace(span, path=span.path.rstrip("\0")) if span.path.endswith("\0") else span

    return replace(pair, a=fix(pair.a), b=fix(pair.b))
