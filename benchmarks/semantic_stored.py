"""Translated copies against a stored corpus: ``check --semantic --db`` of a 30,000-character
Chinese thesis against 1,000 English documents whose sentence embeddings ``index add
--semantic`` stored (issue 36).

    python benchmarks/semantic_stored.py --po DIR     (or: make bench-semantic-stored PO=DIR)

``DIR`` is a checkout of python-docs-zh-cn, as for ``benchmarks/semantic.py``: the English
paragraphs of its pages, in order, make ``--documents`` documents. The thesis is Chinese
paragraphs of the labelled set's documents (the student's own, on other subjects: Python's
documentation repeats itself across pages, code and all, so its own pages would not be
clean) with
``--planted`` passages of three consecutive paragraphs, each the human Chinese translation of
a stretch of one stored document, spread through it, to about ``--chars`` characters; the
clean thesis is the same without them.

Measured, each as a user runs it (a fresh process, files in the page cache, an empty sentence
cache): ``index add --semantic`` once (sentences embedded a second, bytes a stored sentence),
then alternating rounds of ``check --semantic --db`` and of the default check (no embeddings)
of the thesis; planted passages found (half of their characters inside a fragment), character
recall and precision on the thesis side, and whether the clean thesis is flagged.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    bench_folders,
    list_docs,
    log,
    markdown_table,
    median,
    publish_table,
)
from measured import (
    run_measured,
    warm_page_cache,
)
from semantic import _entries


def own_paragraphs(bench: Path) -> list[str]:
    """Chinese paragraphs of the labelled set's documents (another subject than Python's
    documentation: the thesis's own text, which no stored document holds in any language)."""
    docs, _ = bench_folders(bench)
    found = set()
    for path in list_docs(docs):
        for paragraph in path.read_text(encoding="utf-8", errors="replace").split("\n\n"):
            text = " ".join(paragraph.split())
            cjk = sum("\u4e00" <= c <= "\u9fff" for c in text)
            if len(text) >= 80 and cjk >= 0.6 * len(text) and not text.startswith(("#", "|")):
                found.add(text)
    return sorted(found)


def corpus_and_thesis(po: Path, bench: Path, documents: int, planted: int, chars: int,
                      seed: int, folder: Path) -> dict[str, Any]:  # fmt: skip
    pages = [list(_entries(path).items()) for path in sorted(po.rglob("*.po"))]
    stored = [pair for page in pages for pair in page]
    per = len(stored) // documents
    docs = [stored[i * per : (i + 1) * per] for i in range(documents)]
    (folder / "docs").mkdir()
    for n, doc in enumerate(docs):
        text = "\n\n".join(english for english, _ in doc) + "\n"
        (folder / "docs" / f"{n:04d}.txt").write_text(text, encoding="utf-8")
    rng = random.Random(seed)
    own = own_paragraphs(bench)
    rng.shuffle(own)
    copied = []
    for number in rng.sample(range(documents), planted):
        at = rng.randrange(len(docs[number]) - 3)
        copied.append("\n\n".join(chinese for _, chinese in docs[number][at : at + 3]))
    mine: list[str] = []
    while sum(map(len, mine)) + sum(map(len, copied)) < chars:
        mine.append(own.pop())
    step = max(1, len(mine) // (planted + 1))
    parts = list(mine)
    for k, passage in enumerate(copied):
        parts.insert((k + 1) * step + k, passage)
    thesis = "\n\n".join(parts) + "\n"
    (folder / "thesis.txt").write_text(thesis, encoding="utf-8")
    (folder / "clean.txt").write_text("\n\n".join(mine) + "\n", encoding="utf-8")
    return {"planted": copied, "thesis": thesis, "stored_chars": sum(
        len(english) for doc in docs for english, _ in doc)}  # fmt: skip


def scored(report: Path, case: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(report.read_text(encoding="utf-8"))["documents"][0]
    spans = []
    for passage in case["planted"]:
        start = case["thesis"].index(passage)
        spans.append((start, start + len(passage)))
    inside: set[int] = set()
    outside = 0
    for fragment in document["fragments"]:
        for i in range(fragment["start_char"], fragment["end_char"]):
            if any(a <= i < b for a, b in spans):
                inside.add(i)
            else:
                outside += 1
    total = sum(b - a for a, b in spans)
    found = sum(len([i for i in inside if a <= i < b]) >= 0.5 * (b - a) for a, b in spans)
    return {"found": found, "planted": len(spans),
            "char_recall": round(len(inside) / total, 4),
            "char_precision": round(len(inside) / max(1, len(inside) + outside), 4),
            "copy_ratio": document["copy_ratio"]}  # fmt: skip


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--po", type=Path, help="a checkout of python-docs-zh-cn (.po files)")
    ap.add_argument("--bench", type=Path, default=Path(DEFAULT_BENCH),
                    help="the labelled set (the thesis's own Chinese paragraphs)")
    ap.add_argument("--documents", type=int, default=1000)
    ap.add_argument("--planted", type=int, default=6, help="translated passages in the thesis")
    ap.add_argument("--chars", type=int, default=30_000, help="the thesis's length")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds")
    ap.add_argument("--seed", type=int, default=37)
    args = ap.parse_args(argv)
    if args.po is None or not args.po.is_dir():
        log("needs --po DIR: a checkout of https://github.com/python/python-docs-zh-cn")
        return 2
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="simdup-semantic-stored-") as tmp:
        folder = Path(tmp)
        case = corpus_and_thesis(args.po, args.bench, args.documents, args.planted, args.chars,
                                 args.seed, folder)  # fmt: skip
        db = folder / "corpus.simdup"
        warm_page_cache(folder / "docs")
        env_cache = folder / "cache"
        os.environ["SIMDUP_CACHE_DIR"] = str(env_cache)
        log(f"{args.documents} documents ({case['stored_chars']:,} characters): index add "
            "--semantic ...")  # fmt: skip
        added = run_measured([python, "-m", "simdup", "index", "add", "docs", "--db", str(db),
                              "--semantic"], cwd=folder)  # fmt: skip
        if added.returncode:
            log(added.stderr)
            return 1
        with sqlite3.connect(db) as conn:
            sentences, vector_bytes = conn.execute(
                "SELECT sum(sentences), sum(length(scales) + length(vectors)) "
                "FROM sentence_vectors").fetchone()  # fmt: skip
        rate = next((line for line in added.stderr.splitlines() if "embedded" in line), "")
        log(f"  {added.seconds:.1f} s: {rate.strip()}")
        commands = {
            "check --semantic --db": ["--semantic"],
            "check --db (default: exact runs, reworded passages)": [],
        }
        seconds: dict[str, list[float]] = {name: [] for name in commands}
        quality: dict[str, dict[str, Any]] = {}
        peak: dict[str, float] = {}
        for round_no in range(args.repeat):
            names = list(commands) if round_no % 2 == 0 else list(reversed(commands))
            for name in names:
                report = folder / "report.json"
                for cache in env_cache.glob("*"):  # cold: nothing cached
                    cache.unlink()
                got = run_measured([python, "-m", "simdup", "check", "thesis.txt", "--db",
                                    str(db), *commands[name], "-f", "json", "-o",
                                    str(report), "-q"], cwd=folder)  # fmt: skip
                if got.returncode not in (0, 1):
                    log(got.stderr)
                    return 1
                seconds[name].append(got.seconds)
                peak[name] = max(peak.get(name, 0.0), got.tree_peak_pss_mb or got.max_rss_mb)
                quality[name] = scored(report, case)
                log(f"round {round_no + 1}: {name}: {got.seconds:.2f} s {quality[name]}")
        clean = run_measured([python, "-m", "simdup", "check", "clean.txt", "--db", str(db),
                              "--semantic", "-f", "json", "-o", str(folder / "clean.json"),
                              "-q"], cwd=folder)  # fmt: skip
        flagged = json.loads((folder / "clean.json").read_text())["documents"][0]["fragments"]
    rows = []
    for name in commands:
        q = quality[name]
        runs = " ".join(f"{s:.2f}" for s in seconds[name])
        rows.append([name, f"{median(seconds[name]):.2f} ({runs})",
                     f"{peak[name]:.0f}", f"{q['found']}/{q['planted']}",
                     f"{q['char_recall']:.3f}", f"{q['char_precision']:.3f}"])  # fmt: skip
    table = markdown_table(["command (fresh process, empty sentence cache)", "seconds (runs)",
                            "peak MB", "planted found", "char recall", "char precision"],
                           rows)  # fmt: skip
    table += (
        f"\n\n`index add --semantic` of {args.documents:,} documents: {added.seconds:.1f} s in "
        f"all; {sentences:,} sentences stored in {vector_bytes / sentences:.0f} bytes each "
        f"({rate.strip().removeprefix('simdup: ')}). The clean thesis with --semantic: "
        f"{len(flagged)} fragments ({clean.seconds:.2f} s)."
    )
    publish_table("semantic_stored", "Translated copies against a stored corpus", argv, args.po,
                  table, {"seconds": seconds, "quality": quality,
                          "stored": {"sentences": sentences, "vector_bytes": vector_bytes,
                                     "clean_fragments": len(flagged)}})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
