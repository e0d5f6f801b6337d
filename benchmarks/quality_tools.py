"""The quality benchmark's tools (run ``quality.py``, not this): what one tool predicted in one
run, the set's files decoded as the anchors decode them (jieba words computed once per round),
and each tool run in this process or a fresh one: ``simdup.scan`` with its report written and
read back, the PyPI ``simhash`` package over the text (``simhash_anchor.py``, in a given
Python) or over jieba words, datasketch MinHash LSH over jieba word sets or character
shingles."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from common import (
    BENCH_DIR,
    decode_anchor,
    display_path,
    list_docs,
)
from measured import (
    run_measured,
)

_WORD = re.compile(r"\w")

Pairs = list[tuple[str, str]]


@dataclasses.dataclass
class Prediction:
    """What one tool predicted in one run."""

    pairs: Pairs | None
    clusters: list[list[str]] | None
    seconds: float
    notes: list[str] = dataclasses.field(default_factory=list)
    raw: dict[str, Any] = dataclasses.field(default_factory=dict)


# ---------------------------------------------------------------- shared inputs of the anchors


class Corpus:
    """The set's files, decoded for the anchors; jieba tokens computed once per round."""

    def __init__(self, docs: Path) -> None:
        self.docs = docs
        self.paths = list_docs(docs)
        self.names = [display_path(p, docs) for p in self.paths]
        self.bytes = sum(p.stat().st_size for p in self.paths)
        self._texts: list[str] | None = None
        self._tokens: list[list[str]] | None = None
        self.decode_seconds = 0.0
        self.jieba_seconds = 0.0

    def new_round(self) -> None:
        self._texts = None
        self._tokens = None

    def texts(self) -> list[str]:
        if self._texts is None:
            started = time.perf_counter()
            self._texts = [decode_anchor(p.read_bytes())[0] for p in self.paths]
            self.decode_seconds = time.perf_counter() - started
        return self._texts

    def words(self) -> list[list[str]]:
        """``jieba.lcut(text)`` with tokens that hold no word character dropped."""
        if self._tokens is None:
            import jieba

            texts = self.texts()
            started = time.perf_counter()
            self._tokens = [[t for t in jieba.lcut(x) if _WORD.search(t)] for x in texts]
            self.jieba_seconds = time.perf_counter() - started
        return self._tokens


# ---------------------------------------------------------------- simdup rows


def simdup_available_methods() -> set[str]:
    import simdup

    names = {f.name for f in dataclasses.fields(simdup.ScanOptions)}
    methods = {"simhash"}
    if "method" in names:
        try:
            simdup.ScanOptions(method="minhash")  # type: ignore[call-arg]
        except (TypeError, ValueError):
            pass
        else:
            methods.add("minhash")
    return methods


def run_simdup(docs: Path, out: Path, **overrides: Any) -> Prediction:
    """``simdup.scan([docs], **overrides)``, its JSON report written to ``out`` and read back."""
    import simdup

    started = time.perf_counter()
    result = simdup.scan([docs], **overrides)
    seconds = time.perf_counter() - started
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        from simdup.report.json import render_json
    except ImportError:  # the renderer moved: fall back to the records themselves
        report = {
            "pairs": [dataclasses.asdict(p) for p in result.pairs],
            "clusters": [dataclasses.asdict(c) for c in result.clusters],
        }
        out.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    else:
        with out.open("w", encoding="utf-8") as stream:
            render_json(result, stream)
    report = json.loads(out.read_text(encoding="utf-8"))
    pairs = [(p["a"], p["b"]) for p in report["pairs"]]
    clusters = [[m["path"] for m in c["members"]] for c in report["clusters"]]
    stats = report.get("summary") or {}
    notes = [f"report: {os.path.relpath(out)}"]
    skipped = stats.get("files_skipped")
    if skipped:
        notes.append(f"{skipped} files skipped")
    return Prediction(pairs, clusters, seconds, notes, {"summary": stats})


# ---------------------------------------------------------------- anchor rows


def run_simhash_subprocess(python: Path | str, docs: Path, out: Path, weights: str) -> Prediction:
    cmd = [str(python), str(BENCH_DIR / "simhash_anchor.py"), str(docs), "--out", str(out)]
    cmd += ["--weights", weights]
    measured = run_measured(cmd)
    if measured.returncode != 0:
        raise RuntimeError(f"simhash_anchor.py exited {measured.returncode}: {measured.stderr}")
    data = json.loads(out.read_text(encoding="utf-8"))
    pairs = [(p["a"], p["b"]) for p in data["pairs"]]
    notes = [f"numpy {data['versions']['numpy']}"]
    if data["failed"]:
        first = next(iter(data["failed"].values()))
        notes.append(f"{len(data['failed'])} documents raised ({first}) and were left out")
    return Prediction(
        pairs,
        None,
        data["seconds"]["total"],
        notes,
        {
            "versions": data["versions"],
            "seconds": data["seconds"],
            "failed": data["failed"],
            "fingerprints": data["fingerprints"],
            "subprocess_wall_seconds": round(measured.seconds, 3),
        },
    )


def run_simhash_words(corpus: Corpus, k: int = 3) -> Prediction:
    """``Simhash(tokens)`` over jieba words: the list gives each occurrence weight 1 (count
    weights) and never takes the package's integer-weight path that overflows under NumPy 2."""
    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)
    words = corpus.words()
    started = time.perf_counter()
    hashes = [Simhash(tokens) for tokens in words]
    index = SimhashIndex([(str(i), h) for i, h in enumerate(hashes)], k=k)
    found: set[tuple[int, int]] = set()
    for i, h in enumerate(hashes):
        for other in index.get_near_dups(h):
            j = int(other)
            if j != i:
                found.add((min(i, j), max(i, j)))
    own = time.perf_counter() - started
    names = corpus.names
    return Prediction(
        [(names[i], names[j]) for i, j in sorted(found)],
        None,
        corpus.decode_seconds + corpus.jieba_seconds + own,
        [
            f"decode {corpus.decode_seconds:.1f} s + jieba.lcut {corpus.jieba_seconds:.1f} s "
            f"(shared with the jieba MinHash row) + {own:.1f} s"
        ],
    )


def _minhash_pairs(sets: list[set[str]], names: list[str]) -> tuple[Pairs, float]:
    from datasketch import MinHash, MinHashLSH

    started = time.perf_counter()
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    signatures = []
    for i, items in enumerate(sets):
        m = MinHash(num_perm=128)
        encoded = [s.encode("utf-8") for s in items]
        # update_batch builds an (items x num_perm) matrix: bound it.
        for start in range(0, len(encoded), 20_000):
            m.update_batch(encoded[start : start + 20_000])
        lsh.insert(str(i), m)
        signatures.append(m)
    found: set[tuple[int, int]] = set()
    for i, m in enumerate(signatures):
        for other in lsh.query(m):
            j = int(other)
            if j != i:
                found.add((min(i, j), max(i, j)))
    seconds = time.perf_counter() - started
    return [(names[i], names[j]) for i, j in sorted(found)], seconds


def run_minhash_words(corpus: Corpus) -> Prediction:
    words = corpus.words()
    pairs, own = _minhash_pairs([set(w) for w in words], corpus.names)
    return Prediction(
        pairs,
        None,
        corpus.decode_seconds + corpus.jieba_seconds + own,
        [
            f"decode {corpus.decode_seconds:.1f} s + jieba.lcut {corpus.jieba_seconds:.1f} s "
            f"+ {own:.1f} s; LSH candidates reported as pairs (no Jaccard check)"
        ],
    )


def run_minhash_shingles(corpus: Corpus, width: int = 5) -> Prediction:
    texts = corpus.texts()
    started = time.perf_counter()
    sets = []
    for text in texts:
        flat = " ".join(text.split())
        sets.append({flat[i : i + width] for i in range(max(1, len(flat) - width + 1))})
    shingling = time.perf_counter() - started
    pairs, own = _minhash_pairs(sets, corpus.names)
    return Prediction(
        pairs,
        None,
        corpus.decode_seconds + shingling + own,
        [
            f"shingles of the whitespace-collapsed text; decode {corpus.decode_seconds:.1f} s + "
            f"{shingling + own:.1f} s; LSH candidates reported as pairs"
        ],
    )
