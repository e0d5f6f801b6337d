"""The short-text benchmark (``short.py``): the generator. From the rows cut from the set's
Markdown it draws the planted copies (evenly over the length bands and kinds, with the language
quotas) and the other originals, shuffles and numbers them, and writes results/short-N/:
rows.jsonl, rows.jsonl.zst and manifest.json (the planted pairs and counts), reused while N,
seed and GENERATOR_VERSION match. Run short.py, not this."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import MB, RESULTS, cached_manifest, log, new_generation, write_json
from rows_dataset import ZSTD_LEVEL
from short_copies import (
    COPY_SHARE,
    EDITED_RANGE,
    NEGATIVE_RANGE,
    Alphabet,
    edited_copy,
    normalised_copy,
    sample_by_language,
)
from short_rows import (
    BANDS,
    KINDS,
    LANGS,
    MAX_CHARS,
    MIN_CHARS,
    band_name,
    band_of,
    language,
    normalised,
    row_pool,
    without_near_duplicates,
)

# Bump when the rows written change (extraction in short_rows, copies and sampling in
# short_copies, the draw and the files here): cached rows are rebuilt.
GENERATOR_VERSION = 1


def generate(n: int, seed: int, docs: Path) -> tuple[Path, dict[str, Any]]:
    """results/short-N/: rows.jsonl, rows.jsonl.zst and manifest.json (cached)."""
    root = RESULTS / f"short-{n}"
    manifest_path = root / "manifest.json"
    key = {"n": n, "seed": seed, "generator_version": GENERATOR_VERSION}
    files = (root / "rows.jsonl", root / "rows.jsonl.zst")
    cached = cached_manifest(root, key, files)
    if cached is not None:
        log(f"short-{n}: reusing the generated rows ({cached['rows_total']:,} rows)")
        return root, cached
    started = new_generation(root, f"short-{n}: cutting rows from {docs} (seed {seed}) ...")
    pool, read = row_pool(docs)
    log(f"  {read['distinct']:,} distinct rows of {MIN_CHARS}-{MAX_CHARS} characters")
    pool, near_dropped = without_near_duplicates(pool)
    log(f"  {near_dropped:,} near-duplicates of another row left out")
    rng = random.Random(seed)
    langs = {t: language(t) for t in pool}
    n_originals = min(n, len(pool))
    if n_originals < n:
        log(f"  only {len(pool):,} rows available: N = {n_originals:,}")
    alphabet = Alphabet(pool)

    # Copies first: COPY_SHARE of N, evenly over the bands, within a band evenly over the
    # kinds, their originals drawn from the band's rows with the language quotas (the band
    # of long rows is rare in the set). Then the other originals, with the quotas too.
    per_band = round(COPY_SHARE * n_originals / len(BANDS))
    copies: list[tuple[str, str, dict[str, Any]]] = []
    sources: list[str] = []
    shortfall: dict[str, int] = {}
    for band in BANDS:
        name = band_name(band)
        in_band = [t for t in pool if band[0] <= len(t) <= band[1]]
        first = sample_by_language(in_band, langs, per_band, rng)
        chosen = set(first)
        spare = [t for t in in_band if t not in chosen]
        rng.shuffle(spare)
        made = 0
        for original in first + spare:  # a spare row stands in for a copy that cannot be made
            if made >= per_band:
                break
            kind = KINDS[made % len(KINDS)]
            copy: str | None
            if kind == "exact":
                copy, value = original, 1.0
            elif kind == "normalised":
                copy, value = normalised_copy(original, rng), 1.0
            else:
                bounds = EDITED_RANGE if kind == "edited" else NEGATIVE_RANGE
                got = edited_copy(original, rng, alphabet, bounds)
                copy, value = got if got else (None, 0.0)
            if copy is None:
                continue
            made += 1
            sources.append(original)
            meta = {"kind": kind, "band": name, "lang": langs[original]}
            meta["edit_similarity"] = round(value, 4)
            copies.append((original, copy, meta))
        if made < per_band:
            shortfall[name] = per_band - made
            log(f"  band {name}: {made} copies of {per_band} ({len(in_band)} rows of that length)")
    used = set(sources)
    rest = [t for t in pool if t not in used]
    originals = sources + sample_by_language(rest, langs, n_originals - len(sources), rng)
    assert len({normalised(t) for t in originals}) == len(originals), "originals repeat"

    # Shuffle, number, write.
    entries: list[tuple[str, int]] = [(t, i) for i, t in enumerate(originals)]
    entries += [(c[1], -1 - k) for k, c in enumerate(copies)]
    rng.shuffle(entries)
    id_of_original = {}
    id_of_copy = {}
    for k, (_, tag) in enumerate(entries):
        if tag >= 0:
            id_of_original[originals[tag]] = f"r{k}"
        else:
            id_of_copy[-1 - tag] = f"r{k}"
    planted = [
        {"original": id_of_original[o], "copy": id_of_copy[k], **meta}
        for k, (o, _, meta) in enumerate(copies)
    ]
    total = write_rows(files, [(f"r{k}", text) for k, (text, _) in enumerate(entries)])
    copy_langs = Counter(p["lang"] for p in planted)
    manifest = {
        "key": key,
        "rows_total": len(entries),
        "originals": len(originals),
        "copies": len(copies),
        "bytes": total,
        "jsonl_zst_bytes": files[1].stat().st_size,
        "read": read,
        "near_duplicates_left_out": near_dropped,
        "pool": len(pool),
        "pool_by_language": dict(Counter(langs.values())),
        "originals_by_language": dict(Counter(langs[t] for t in originals)),
        "originals_by_band": dict(Counter(band_of(len(t)) for t in originals)),
        "originals_by_language_and_band": {
            lang: dict(Counter(band_of(len(t)) for t in originals if langs[t] == lang))
            for lang in LANGS
        },
        "copies_by_language": dict(copy_langs),
        "copies_wanted_per_band": per_band,
        "copies_short_by_band": shortfall,
        "copies_by_kind_and_band": {
            kind: dict(Counter(p["band"] for p in planted if p["kind"] == kind)) for kind in KINDS
        },
        "planted": planted,
    }
    write_json(manifest_path, manifest)
    log(
        f"short-{n}: {len(entries):,} rows ({len(originals):,} originals, {len(copies):,} "
        f"copies; {total / MB:.1f} MB) in {time.perf_counter() - started:.0f} s"
    )
    return root, manifest


def write_rows(files: tuple[Path, Path], rows: list[tuple[str, str]]) -> int:
    """The rows as plain JSON Lines and as one zstd frame; the uncompressed bytes."""
    import zstandard

    data = b"".join(
        json.dumps({"id": row_id, "text": text}, ensure_ascii=False).encode("utf-8") + b"\n"
        for row_id, text in rows
    )
    for path, payload in (
        (files[0], data),
        (files[1], zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data)),
    ):
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(payload)
        os.replace(tmp, path)
    return len(data)
