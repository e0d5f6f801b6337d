"""The dataset ``rows.py`` measures: the planted corpus (``planted_corpus.py``, as scale.py makes
it) as rows ``{"id", "text", "meta"}`` in id order, written as one ``rows.jsonl.zst`` (zstd
level 3) and one ``rows.parquet`` (zstd, row groups of 10^5 rows), the planted pairs as pairs
of ids with their edit similarity in ``manifest.json`` (benchmarks/results/rows-N/, reused while
N, seed and both generator versions match); and reading it back: the decompressed lines, the
texts of chosen rows."""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from common import (
    MB,
    RESULTS,
    cached_manifest,
    log,
    new_generation,
    write_json,
)
from planted_corpus import GENERATOR_VERSION, edit_similarity, paragraph_pool, planted_corpus

# Bump when the rows written change (layout, fields, files): cached rows are rebuilt. The texts
# are planted_corpus.py's, whose GENERATOR_VERSION is part of the key too.
ROWS_VERSION = 1
ROW_GROUP = 100_000
ZSTD_LEVEL = 3
# A row's line starts with its id (the generator writes "id" first): read without json.loads.
ID_PREFIX = re.compile(rb'\{"id": (\d+)')


# ---------------------------------------------------------------- writing the rows


def row_meta(row_id: int, text: str) -> dict[str, Any]:
    """A small ``meta`` object, as crawled datasets carry one."""
    return {"url": f"https://example.org/post/{row_id}", "chars": len(text)}


def write_jsonl_zst(path: Path, texts: list[str]) -> int:
    """Rows ``{"id", "text", "meta"}`` in id order as one zstd frame; the uncompressed bytes."""
    import zstandard

    total = 0
    tmp = path.with_suffix(".tmp")
    with (
        open(tmp, "wb") as raw,
        zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(raw) as out,
    ):
        for row_id, text in enumerate(texts):
            row = {"id": row_id, "text": text, "meta": row_meta(row_id, text)}
            line = json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n"
            out.write(line)
            total += len(line)
    os.replace(tmp, path)
    return total


def write_parquet(path: Path, texts: list[str]) -> None:
    """The same rows as Parquet (zstd), ``ROW_GROUP`` rows per row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("id", pa.int64()),
            ("text", pa.string()),
            ("meta", pa.struct([("url", pa.string()), ("chars", pa.int64())])),
        ]
    )
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        for start in range(0, len(texts), ROW_GROUP):
            chunk = texts[start : start + ROW_GROUP]
            ids = list(range(start, start + len(chunk)))
            table = pa.table(
                {
                    "id": ids,
                    "text": chunk,
                    "meta": [row_meta(i, t) for i, t in zip(ids, chunk, strict=True)],
                },
                schema=schema,
            )
            writer.write_table(table, row_group_size=ROW_GROUP)
    os.replace(tmp, path)


def generate(n: int, seed: int, docs: Path) -> tuple[Path, dict[str, Any]]:
    """The rows of results/rows-N/ and their manifest (cached)."""
    root = RESULTS / f"rows-{n}"
    manifest_path = root / "manifest.json"
    key = {"n": n, "seed": seed, "generator_version": GENERATOR_VERSION, "rows": ROWS_VERSION}
    files = (root / "rows.jsonl.zst", root / "rows.parquet")
    cached = cached_manifest(root, key, files)
    if cached is not None:
        log(f"rows-{n}: reusing the generated rows ({cached['bytes'] / MB:.0f} MB)")
        return root, cached
    started = new_generation(root, f"rows-{n}: generating {n:,} rows (seed {seed}) ...")
    pool, boiler = paragraph_pool(docs)
    texts, ids, planted = planted_corpus(n, seed, pool, boiler)
    by_id = [""] * n
    for text, row_id in zip(texts, ids, strict=True):
        by_id[row_id] = text
    del texts
    for t in planted:
        t["edit_similarity"] = round(edit_similarity(by_id[t["a"]], by_id[t["b"]]), 4)
    total = write_jsonl_zst(files[0], by_id)
    write_parquet(files[1], by_id)
    manifest = {
        "key": key,
        "rows": n,
        "bytes": total,
        "text_bytes": sum(len(t.encode("utf-8")) for t in by_id),
        "jsonl_zst_bytes": files[0].stat().st_size,
        "parquet_bytes": files[1].stat().st_size,
        "pool_paragraphs": len(pool),
        "planted": planted,
    }
    write_json(manifest_path, manifest)
    log(
        f"rows-{n}: {total / MB:.0f} MB of JSON Lines ({manifest['jsonl_zst_bytes'] / MB:.0f} MB "
        f"zstd, Parquet {manifest['parquet_bytes'] / MB:.0f} MB) in "
        f"{time.perf_counter() - started:.0f} s"
    )
    return root, manifest


# ---------------------------------------------------------------- reading it back


def zst_lines(path: Path) -> Iterator[bytes]:
    """The lines of a zstd-compressed file, decompressed as they are read."""
    import zstandard

    with open(path, "rb") as raw:
        yield from io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw), 1 << 20)


def texts_of(root: Path, wanted: set[int]) -> dict[int, str]:
    """The texts of the rows ``wanted``, read from rows.jsonl.zst."""
    texts = {}
    for line in zst_lines(root / "rows.jsonl.zst"):
        match = ID_PREFIX.match(line)
        if match and int(match.group(1)) in wanted:
            row = json.loads(line)
            texts[int(row["id"])] = row["text"]
    return texts
