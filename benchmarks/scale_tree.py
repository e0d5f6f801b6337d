"""The tree ``scale.py`` measures: the planted corpus (``planted_corpus.py``) written as one
file per document under benchmarks/results/scale-N/docs/ (``scale-short-N/`` for ``--short``),
a thousand to a folder, with the planted pairs as pairs of file names in its ``manifest.json``
(reused while N, seed and the generator's versions match), and each planted pair's edit
similarity, measured once and kept in the manifest."""

from __future__ import annotations

import time
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
from planted_corpus import (
    GENERATOR_VERSION,
    SHORT_GENERATOR_VERSION,
    edit_similarity,
    paragraph_pool,
    planted_corpus,
)


def doc_path(root: Path, doc_id: int) -> Path:
    """Where document ``doc_id`` of the tree ``root`` is (a thousand documents a folder)."""
    return root / "docs" / f"{doc_id // 1000:04d}" / f"{doc_id:07d}.txt"


def generate(n: int, seed: int, docs: Path, short: bool = False) -> tuple[Path, dict[str, Any]]:
    """The tree of ``n`` documents in results/scale-N/ (``scale-short-N/`` for ``--short``)
    and its manifest (cached)."""
    root = RESULTS / (f"scale-short-{n}" if short else f"scale-{n}")
    manifest_path = root / "manifest.json"
    key: dict[str, Any] = {"n": n, "seed": seed, "generator_version": GENERATOR_VERSION}
    if short:
        key["short"] = SHORT_GENERATOR_VERSION
    cached = cached_manifest(root, key)
    if cached is not None:
        log(f"scale-{n}: reusing the generated tree ({cached['bytes'] / MB:.0f} MB)")
        return root, cached
    started = new_generation(root, f"scale-{n}: generating {n:,} documents (seed {seed}) ...")
    pool, boiler = paragraph_pool(docs)
    texts, ids, planted = planted_corpus(n, seed, pool, boiler, short)
    truth = []
    for t in planted:
        a, b = f"{t['a']:07d}.txt", f"{t['b']:07d}.txt"
        truth.append({**t, "a": min(a, b), "b": max(a, b)})
    total = 0
    made: set[Path] = set()
    for i, text in enumerate(texts):
        path = doc_path(root, ids[i])
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    manifest = {
        "key": key,
        "files": n,
        "bytes": total,
        "pool_paragraphs": len(pool),
        "boilerplate_paragraphs": len(boiler) + 2,
        "planted": truth,
    }
    write_json(manifest_path, manifest)
    log(f"scale-{n}: {total / MB:.0f} MB in {time.perf_counter() - started:.0f} s")
    return root, manifest


def collapsed_text(root: Path, name: str) -> str:
    """The text of the document named ``name`` (a file name), whitespace collapsed."""
    return " ".join(doc_path(root, int(name.split(".")[0])).read_text("utf-8").split())


def add_edit_similarity(root: Path, manifest: dict[str, Any]) -> None:
    """Each planted pair's edit similarity (rapidfuzz's Levenshtein), measured once and kept
    in the manifest (the generated tree is unchanged, so its key is too)."""
    planted = manifest["planted"]
    if all("edit_similarity" in t for t in planted):
        return
    log(f"measuring the edit similarity of {len(planted):,} planted pairs ...")
    for t in planted:
        a, b = collapsed_text(root, t["a"]), collapsed_text(root, t["b"])
        t["edit_similarity"] = round(edit_similarity(a, b), 4)
    write_json(root / "manifest.json", manifest)
