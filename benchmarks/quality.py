"""Quality benchmark: simdup and off-the-shelf anchors scored on a labelled set, in one run.

    python benchmarks/quality.py --bench ../shared/bench/visible      (or: make bench-quality)

Every tool's predictions are written to benchmarks/results/predictions/ and scored with the set's
own ``score.py`` (pairwise precision, recall, F1; a cluster counts as all pairs of its members).
Rows:

- simdup at its defaults (``simdup.scan``), scored on its ``pairs`` and, separately, its
  ``clusters``; ``verify=False`` (pure SimHash, k=3); ``cluster_method="components"``; and
  ``method="minhash"`` when this simdup has it.
- the PyPI ``simhash`` package, ``Simhash(text)`` + ``SimhashIndex(k=3)``, run by
  ``simhash_anchor.py`` in a numpy<2 venv (``benchmarks/.venv-anchor``) and, to show what
  happens there, under the bench venv's NumPy 2 (as is, and with counts > 255 passed as floats);
- ``simhash`` over jieba words (punctuation-only tokens dropped), k=3;
- datasketch ``MinHashLSH(threshold=0.8, num_perm=128)`` over jieba word sets and over character
  5-shingle sets.

Anchors decode files as the bench README says (BOM, strict UTF-8, else chardet). Seconds are
in-process times of each tool on the whole set (dictionaries loaded beforehand, interpreter
start-up excluded); ``speed.py`` measures end to end. With ``--repeat N`` every tool runs N times,
the tools alternating, and the median is reported.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    RESULTS,
    anchor_python,
    bench_folders,
    decode_anchor,
    default_scorer,
    display_path,
    environment,
    fmt,
    list_docs,
    load_scorer,
    log,
    markdown_table,
    median,
    reproduce_command,
    run_measured,
    write_json,
)

BENCH_DIR = Path(__file__).resolve().parent
KINDS = ("revision", "revision_xenc", "reencoded")
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


@dataclasses.dataclass
class Row:
    key: str
    label: str
    run: Callable[[], Prediction]
    runs: list[Prediction] = dataclasses.field(default_factory=list)
    error: str | None = None


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


# ---------------------------------------------------------------- scoring


def score_file(scorer: Any, labels: dict[str, Any], path: Path) -> dict[str, Any]:
    predicted, _, _ = scorer.load_predictions(str(path))
    full = scorer.score(labels, predicted)
    return {k: v for k, v in full.items() if not k.startswith("_")}


def write_predictions(folder: Path, key: str, prediction: Prediction) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    if prediction.pairs is not None:
        files["pairs"] = folder / f"{key}.pairs.json"
        data = {"pairs": [{"a": a, "b": b} for a, b in prediction.pairs]}
        files["pairs"].write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    if prediction.clusters is not None:
        files["clusters"] = folder / f"{key}.clusters.json"
        data2 = {"clusters": prediction.clusters}
        files["clusters"].write_text(json.dumps(data2, ensure_ascii=False), encoding="utf-8")
    return files


def prf(s: dict[str, Any] | None) -> list[str]:
    if not s:
        return ["—", "—", "—"]
    return [fmt(s["precision"]), fmt(s["recall"]), fmt(s["f1"])]


def kind_cell(s: dict[str, Any], kind: str) -> str:
    found, total = s["recall_by_kind"].get(kind, [0, 0])
    return f"{found}/{total}"


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="Score simdup and anchors on a labelled set.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/, labels)")
    ap.add_argument("--score", type=Path, help="score.py (default: next to the set folder)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per tool, alternating (timing)")
    ap.add_argument(
        "--no-anchor-venv",
        action="store_true",
        help="do not create benchmarks/.venv-anchor (numpy<2) for the simhash package",
    )
    ap.add_argument("--only", help="comma-separated row keys to run (default: all)")
    ap.add_argument("--out", type=Path, default=RESULTS / "quality.json")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    docs, labels_path = bench_folders(args.bench)
    scorer = load_scorer(args.score or default_scorer(args.bench))
    labels = scorer.load_labels(str(labels_path))
    command = reproduce_command("quality.py", argv)
    env = environment()
    log(f"quality benchmark on {os.path.relpath(docs)}: {command}")

    import numpy

    import simdup

    env["simdup"] = simdup.__version__
    env["numpy"] = numpy.__version__
    corpus = Corpus(docs)
    pred_dir = RESULTS / "predictions"
    notes: list[str] = []

    # Load dictionaries before any timing: the seconds compare the tools' work, not start-up.
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    simdup.fingerprint("预热 warm-up text for the segmenter dictionary")

    rows: list[Row] = [
        Row(
            "simdup-default",
            "simdup defaults",
            lambda: run_simdup(docs, pred_dir / "simdup-default.report.json"),
        ),
        Row(
            "simdup-no-verify",
            "simdup --no-verify (SimHash k=3 only)",
            lambda: run_simdup(docs, pred_dir / "simdup-no-verify.report.json", verify=False),
        ),
        Row(
            "simdup-components",
            "simdup --cluster components",
            lambda: run_simdup(
                docs, pred_dir / "simdup-components.report.json", cluster_method="components"
            ),
        ),
    ]
    if "minhash" in simdup_available_methods():
        rows.append(
            Row(
                "simdup-minhash",
                "simdup --method minhash",
                lambda: run_simdup(docs, pred_dir / "simdup-minhash.report.json", method="minhash"),
            )
        )
    else:
        notes.append("simdup.scan has no method='minhash' in this version: MinHash row skipped.")

    anchor_py, anchor_note = anchor_python(create=not args.no_anchor_venv)
    if anchor_py is not None:
        rows.append(
            Row(
                "simhash-text",
                "simhash pkg: Simhash(text), SimhashIndex k=3 (numpy<2 venv)",
                lambda: run_simhash_subprocess(
                    anchor_py, docs, pred_dir / "simhash-text.anchor.json", "package"
                ),
            )
        )
    else:
        notes.append(f"simhash package under numpy<2 not run: {anchor_note}")
    rows += [
        Row(
            "simhash-text-numpy2",
            f"simhash pkg: same, NumPy {numpy.__version__} as installed",
            lambda: run_simhash_subprocess(
                sys.executable, docs, pred_dir / "simhash-text-numpy2.anchor.json", "package"
            ),
        ),
        Row(
            "simhash-text-numpy2-float",
            f"simhash pkg: same, NumPy {numpy.__version__}, counts > 255 as float",
            lambda: run_simhash_subprocess(
                sys.executable,
                docs,
                pred_dir / "simhash-text-numpy2-float.anchor.json",
                "float-over-255",
            ),
        ),
        Row(
            "simhash-jieba",
            "simhash pkg over jieba words (punctuation dropped), k=3",
            lambda: run_simhash_words(corpus),
        ),
        Row(
            "minhash-jieba",
            "datasketch MinHashLSH 0.8, 128 perms, jieba word sets",
            lambda: run_minhash_words(corpus),
        ),
        Row(
            "minhash-5shingles",
            "datasketch MinHashLSH 0.8, 128 perms, char 5-shingles",
            lambda: run_minhash_shingles(corpus),
        ),
    ]
    if args.only:
        wanted = set(args.only.split(","))
        rows = [r for r in rows if r.key in wanted]

    for round_no in range(args.repeat):
        corpus.new_round()
        shift = round_no % len(rows) if rows else 0
        for row in rows[shift:] + rows[:shift]:
            if row.error:
                continue
            log(f"[round {round_no + 1}/{args.repeat}] {row.label} ...")
            try:
                prediction = row.run()
            except Exception as exc:  # a broken tool is a row with an error, not a crash
                row.error = f"{type(exc).__name__}: {exc}"
                log(f"  failed: {row.error}")
                continue
            row.runs.append(prediction)
            n = len(prediction.pairs) if prediction.pairs is not None else 0
            log(f"  {prediction.seconds:.2f} s, {n} pairs")

    # Scoring: the first run's predictions (every run gives the same ones: deterministic).
    results: list[dict[str, Any]] = []
    for row in rows:
        entry: dict[str, Any] = {"key": row.key, "tool": row.label}
        if row.error or not row.runs:
            entry["error"] = row.error or "no run"
            results.append(entry)
            continue
        first = row.runs[0]
        files = write_predictions(pred_dir, row.key, first)
        entry["seconds_runs"] = [round(p.seconds, 3) for p in row.runs]
        entry["seconds"] = round(median([p.seconds for p in row.runs]), 3)
        entry["notes"] = first.notes
        entry["raw"] = {k: v for k, v in first.raw.items() if k != "fingerprints"}
        same = all(p.pairs == first.pairs for p in row.runs[1:])
        if not same:
            entry["notes"].append("WARNING: runs predicted different pairs")
        for what, path in files.items():
            entry[what] = score_file(scorer, labels, path)
            entry[f"{what}_file"] = os.path.relpath(path)
        results.append(entry)

    # Does the float workaround give NumPy 1's fingerprints?
    by_key = {r.key: r for r in rows}
    ref, alt = by_key.get("simhash-text"), by_key.get("simhash-text-numpy2-float")
    if ref and alt and ref.runs and alt.runs:
        a, b = ref.runs[0].raw["fingerprints"], alt.runs[0].raw["fingerprints"]
        equal = sum(1 for k, v in a.items() if b.get(k) == v)
        notes.append(
            f"simhash fingerprints, numpy<2 `Simhash(text)` vs NumPy 2 with counts > 255 as "
            f"float: {equal}/{len(a)} identical."
        )
    if anchor_py is not None:
        notes.append(f"numpy<2 anchor venv: {anchor_note}.")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    notes.append(
        f"simdup rows: in-process `simdup.scan([docs], ...)` at the default jobs ({cpus} CPUs), "
        "its JSON report written with simdup's renderer and read back; anchors run on one core."
    )

    table = markdown_table(
        [
            "tool / setting",
            "pairs P",
            "R",
            "F1",
            "clusters P",
            "R",
            "F1",
            "predicted pairs",
            "seconds",
        ],
        [
            [r["tool"], "error", "", "", "", "", "", "", r["error"]]
            if "error" in r
            else [
                r["tool"],
                *prf(r.get("pairs")),
                *prf(r.get("clusters")),
                str(r["pairs"]["predicted_pairs"]) if "pairs" in r else "—",
                fmt(r["seconds"], 2),
            ]
            for r in results
        ],
    )
    kinds = markdown_table(
        [
            "tool / setting (pairs)",
            *KINDS,
            "FP",
            "FP same file",
            "FP hard negative",
            "GRAY predicted",
            "notes",
        ],
        [
            [
                r["tool"],
                *(kind_cell(r["pairs"], k) for k in KINDS),
                str(r["pairs"]["fp"]),
                str(r["pairs"]["fp_by_kind"].get("negative, same file", 0)),
                str(r["pairs"]["fp_by_kind"].get("hard_negative", 0)),
                str(r["pairs"]["gray_predicted"]),
                "; ".join(r["notes"]),
            ]
            for r in results
            if "pairs" in r
        ],
    )
    positives = next((r["pairs"]["positives"] for r in results if "pairs" in r), None)
    out = [
        "## Quality on "
        f"`{os.path.relpath(docs.parent)}` ({len(corpus.paths)} documents, "
        f"{corpus.bytes / 1e6:.1f} MB, {positives} positive pairs)",
        "",
        table,
        "",
        "Clusters: every pair of members of a cluster is a predicted pair. "
        f"Seconds: median of {args.repeat} in-process run(s), tools alternating.",
        "",
        "### Positives found by kind, and false positives (pairs)",
        "",
        kinds,
        "",
        *[f"- {n}" for n in notes],
        "",
        f"Reproduce: `{command}` (or `make bench-quality`). Score one file: "
        f"`python {os.path.relpath(args.score or default_scorer(args.bench))} "
        f"{os.path.relpath(args.bench)} <predictions file> --errors 20`.",
    ]
    text = "\n".join(out)
    print(text)
    if hasattr(os, "getloadavg"):
        env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    write_json(
        args.out,
        {
            "benchmark": "quality",
            "command": command,
            "bench": os.path.relpath(args.bench),
            "documents": len(corpus.paths),
            "bytes": corpus.bytes,
            "environment": env,
            "notes": notes,
            "rows": results,
            "markdown": text,
        },
    )
    log(f"wrote {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
