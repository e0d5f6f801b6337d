"""Renderers for the stores: ``simdup query`` answers, ``simdup index stats`` and ``simdup cache
info``.

A query answer is the list of files (or rows) queried, each with its matches (``IndexMatch``
records) or the reason it could not be fingerprinted (``rows.scan_records.QueryAnswer``). Text
for people, JSON for pipelines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, TextIO

from ..__about__ import __version__
from ..names import display_path, escape_path
from ..params import ALGORITHM_VERSION
from ..rows.scan_records import QueryAnswer
from ..store.cache import CacheInfo
from ..store.index import IndexMatch, IndexStats
from ..store.sentence_vectors import SentenceCacheInfo
from .json import row_place_record
from .text import plural

QUERY_SCHEMA = "simdup-query/1"


def render_query_text(answers: Sequence[QueryAnswer], db: str, stream: TextIO) -> None:
    w = stream.write
    for answer in answers:
        name = display_path(answer.path)
        if answer.error is not None:
            w(f"{name}: not queried: {answer.error}\n")
            continue
        if not answer.matches:
            w(f"{name}: no near-duplicate in {display_path(db)}\n")
            continue
        w(f"{name}: {plural(len(answer.matches), 'near-duplicate')} in {display_path(db)}\n")
        for m in answer.matches:
            sim = "" if m.similarity is None else f"  similarity {m.similarity:.2f}"
            exact = "  exact duplicate" if m.exact else ""
            w(f"  {display_path(m.key)}  distance {m.distance:2d}{sim}{exact}\n")


def _match_record(m: IndexMatch) -> dict[str, Any]:
    return {
        "key": escape_path(m.key),
        "distance": m.distance,
        "similarity": m.similarity,
        "exact": m.exact,
        "reason": m.reason,
    }


def render_query_json(answers: Sequence[QueryAnswer], db: str, stream: TextIO) -> None:
    doc = {
        "schema": QUERY_SCHEMA,
        "simdup_version": __version__,
        "algorithm_version": ALGORITHM_VERSION,
        "index": escape_path(db),
        "results": [
            {
                "path": escape_path(a.path),
                **(row_place_record(a.place) if a.place is not None else {}),
                "error": a.error,
                "matches": [_match_record(m) for m in a.matches],
            }
            for a in answers
        ],
    }
    json.dump(doc, stream, ensure_ascii=False, indent=2)
    stream.write("\n")


def render_index_stats(stats: IndexStats, fmt: str, stream: TextIO) -> None:
    if fmt == "json":
        data = asdict(stats)
        data["path"] = escape_path(stats.path)
        json.dump(data, stream, ensure_ascii=False, indent=2)
        stream.write("\n")
        return
    w = stream.write
    w(f"index              {display_path(stats.path)}\n")
    w(f"documents          {stats.documents} ({stats.verifiable} with their word sketches)\n")
    w(f"size on disk       {stats.database_bytes:,} bytes\n")
    w(f"algorithm          {stats.algorithm_version} (schema {stats.schema_version})\n")
    if stats.embedded_documents:
        w(f"sentence vectors   {stats.embedded_sentences:,} sentences of "
          f"{plural(stats.embedded_documents, 'document')} ({'; '.join(stats.sentence_models)})\n")
    for name, value in sorted(stats.params.items()):
        w(f"  {name:<17}{value}\n")


def render_cache_info(
    path: str,
    info: CacheInfo | None,
    bound: int,
    fmt: str,
    stream: TextIO,
    sentences: SentenceCacheInfo | None = None,
) -> None:
    """Where the scan cache is, what it holds and its bound (``info`` None: no cache yet), and
    the sentence cache's file, what it holds and its size (``sentences``)."""
    scans, files, size = (0, 0, 0) if info is None else (info.snapshots, info.files, info.bytes)
    passages = 0 if info is None else info.passages
    if fmt == "json":
        record: dict[str, Any] = {
            "path": path, "scans": scans, "files": files, "passages": passages, "bytes": size,
            "max_bytes": bound,
        }  # fmt: skip
        if sentences is not None:
            record["sentence_cache"] = {
                "path": sentences.path, "exists": sentences.exists, "sources": sentences.sources,
                "sentences": sentences.sentences, "models": list(sentences.models),
                "bytes": sentences.bytes, "max_bytes": sentences.max_bytes,
                "error": sentences.error,
            }  # fmt: skip
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    stream.write(f"cache        {display_path(path)}\n")
    stream.write(f"scans        {scans} ({files:,} {'file' if files == 1 else 'files'})\n")
    stream.write(f"passages     {passages} (scan --passages results kept)\n")
    stream.write(f"size         {size:,} bytes\n")
    stream.write(f"bound        {bound:,} bytes (least recently used scans dropped past it)\n")
    if sentences is not None:
        _render_sentence_cache(sentences, stream)


def _render_sentence_cache(info: SentenceCacheInfo, stream: TextIO) -> None:
    w = stream.write
    w(f"\nsentence cache  {display_path(info.path)} (check --semantic)\n")
    if not info.exists:
        w("  none yet\n")
        return
    if info.error is not None:
        w(f"  cannot be read: {info.error} (simdup cache clear removes it)\n")
    else:
        w(f"  sentences     {info.sentences:,} of {plural(info.sources, 'source')}\n")
        for model in info.models:
            w(f"  model         {model}\n")
    w(f"  size          {info.bytes:,} bytes\n")
    w(f"  bound         {info.max_bytes:,} bytes of vectors (least recently used dropped past "
      "it)\n")  # fmt: skip
