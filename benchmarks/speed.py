"""Speed benchmark: simdup end to end against the PyPI simhash pipeline, stage costs, index joins.

    python benchmarks/speed.py --bench ../shared/bench/visible      (or: make bench-speed)

Three sections (``--sections``), each printed as a Markdown table and written, with every single
measurement, to benchmarks/results/speed.json:

- ``e2e``: each pipeline in a fresh process, the pipelines alternating (``--repeat`` rounds,
  each starting one pipeline later: ABCDE BCDEA ...): ``simdup scan DOCS --format json -o FILE``
  with ``--segmenter rjieba`` and ``--segmenter jieba``, at the default number of jobs and with
  ``-j1``, and with rjieba without the C extension (``SIMDUP_PURE_PYTHON=1``); and the PyPI
  ``simhash`` pipeline (decode, ``Simhash(text)``, ``SimhashIndex(k=3)``; simhash_anchor.py, run
  in the numpy<2 venv benchmarks/.venv-anchor). Median wall seconds,
  MB/s, documents/s, the max RSS of the largest process of the tree (``wait4``) and the highest
  sampled sum of the tree's RSS (psutil), and ratios to the simhash pipeline.
- ``stages``: within this process, on the same texts, alternating: decoding, ``jieba.lcut``
  alone and ``rjieba.cut`` alone over whole texts, and a whole simdup document with either
  backend (new vocabulary and memo each round, as in a new process), timing the calls simdup
  makes to the segmenter. MB/s of input file bytes, and what everything but segmentation adds
  on top of ``jieba.lcut``.
- ``joins``: ``simdup.near_pairs(fps, 3)`` on N random fingerprints with 1% planted near pairs,
  N = 1e5, 1e6, 1e7 (``--max-n``), and 1e5 with 10,001 identical ones; each join in a fresh
  process (index_join.py) for its max RSS; ``near_pairs``'s own layout against the 4-table layout
  ``Layout(4, 1)``, checking both find the same pairs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from common import (
    DEFAULT_BENCH,
    MB,
    RESULTS,
    Measured,
    anchor_python,
    bench_folders,
    chosen_sections,
    environment,
    finish_sections_report,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    reproduce_command,
    run_measured,
)

BENCH_DIR = Path(__file__).resolve().parent
SECTIONS = ("e2e", "stages", "joins")
LARGE_N = 10_000_000
T = TypeVar("T")


def heartbeat(seconds: float) -> None:
    log(f"    ... still running after {seconds:.0f} s")


def rotated(items: list[T], round_no: int) -> list[T]:
    """Round r starts at item r: each contender runs early in some rounds and late in others."""
    k = round_no % len(items) if items else 0
    return items[k:] + items[:k]


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


# ---------------------------------------------------------------- end to end


@dataclasses.dataclass
class Pipeline:
    name: str
    command: Callable[[Path], list[str]]  # output file -> command
    kind: str  # "simdup" or "simhash"
    runs: list[Measured] = dataclasses.field(default_factory=list)
    pairs: list[int] = dataclasses.field(default_factory=list)
    pair_set: frozenset[tuple[str, str]] | None = None
    error: str | None = None


def e2e(args: argparse.Namespace, docs: Path, notes: list[str]) -> dict[str, Any]:
    paths = list_docs(docs)
    total_bytes = sum(p.stat().st_size for p in paths)
    py = sys.executable
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    def simdup_cmd(segmenter: str, jobs: int | None) -> Callable[[Path], list[str]]:
        def build(out: Path) -> list[str]:
            cmd = [py, "-m", "simdup", "scan", str(docs), "--format", "json", "-o", str(out)]
            # --no-cache: every run fingerprints everything (benchmarks/cache.py measures the
            # cache).
            cmd += ["--segmenter", segmenter, "-q", "--no-cache"]
            return cmd + (["-j", str(jobs)] if jobs else [])

        return build

    anchor_py, anchor_note = anchor_python(create=not args.no_anchor_venv)
    if anchor_py is None:
        # NumPy 2 raises OverflowError in the package for counts > 255; the float path gives
        # NumPy 1's fingerprints (quality.py checks it) at a similar cost.
        weights, simhash_py = "float-over-255", Path(py)
        notes.append(
            f"simhash pipeline run under this venv's NumPy with counts > 255 passed as floats "
            f"({anchor_note})"
        )
    else:
        weights, simhash_py = "package", anchor_py
        notes.append(f"simhash pipeline run in {anchor_note}")

    def simhash_cmd(out: Path) -> list[str]:
        script = str(BENCH_DIR / "simhash_anchor.py")
        return [str(simhash_py), script, str(docs), "--out", str(out), "--weights", weights]

    pipelines = [
        Pipeline(
            f"simdup --segmenter rjieba (default jobs: {cpus})",
            simdup_cmd("rjieba", None),
            "simdup",
        ),
        Pipeline(
            f"simdup --segmenter jieba (default jobs: {cpus})", simdup_cmd("jieba", None), "simdup"
        ),
        Pipeline(
            f"simdup --segmenter rjieba, no C extension (SIMDUP_PURE_PYTHON=1, jobs: {cpus})",
            lambda out: ["env", "SIMDUP_PURE_PYTHON=1", *simdup_cmd("rjieba", None)(out)],
            "simdup",
        ),
        Pipeline("simdup --segmenter rjieba -j1", simdup_cmd("rjieba", 1), "simdup"),
        Pipeline("simdup --segmenter jieba -j1", simdup_cmd("jieba", 1), "simdup"),
        Pipeline("simhash pkg: decode + Simhash(text) + SimhashIndex(k=3)", simhash_cmd, "simhash"),
    ]
    with tempfile.TemporaryDirectory(prefix="simdup-bench-") as tmp:
        for round_no in range(args.repeat):
            for n, pipe in rotated(list(enumerate(pipelines)), round_no):
                if pipe.error:
                    continue
                out = Path(tmp) / f"e2e-{n}.json"
                log(f"[e2e {round_no + 1}/{args.repeat}] {pipe.name} ...")
                m = run_measured(pipe.command(out), heartbeat=heartbeat)
                if m.returncode != 0:
                    pipe.error = f"exit {m.returncode}: {m.stderr.strip()[-300:]}"
                    log(f"  failed: {pipe.error}")
                    continue
                report = json.loads(out.read_text(encoding="utf-8"))
                found = frozenset((p["a"], p["b"]) for p in report["pairs"])
                if pipe.pair_set is None:
                    pipe.pair_set = found
                elif found != pipe.pair_set:
                    notes.append(f"WARNING: {pipe.name}: runs reported different pairs")
                pipe.runs.append(m)
                pipe.pairs.append(len(found))
                log(f"  {m.seconds:.2f} s, max RSS {m.max_rss_mb:.0f} MB, {len(found)} pairs")
                out.unlink()

    simdup_sets = {p.pair_set for p in pipelines if p.kind == "simdup" and p.pair_set is not None}
    if len(simdup_sets) == 1:
        notes.append(
            "the five simdup runs (rjieba/jieba, default jobs/-j1, with and without the C "
            "extension) reported identical pairs"
        )
    elif simdup_sets:
        notes.append("WARNING: the simdup runs reported different pairs across segmenters/jobs")

    base = next((p for p in pipelines if p.kind == "simhash" and p.runs), None)
    base_s = median([m.seconds for m in base.runs]) if base else float("nan")
    base_rss = median([m.max_rss_mb for m in base.runs]) if base else float("nan")
    rows: list[list[str]] = []
    raw: list[dict[str, Any]] = []
    for pipe in pipelines:
        if not pipe.runs:
            rows.append([pipe.name, "error", "", "", "", "", "", "", "", "", pipe.error or ""])
            raw.append({"pipeline": pipe.name, "error": pipe.error})
            continue
        secs = median([m.seconds for m in pipe.runs])
        rss = median([m.max_rss_mb for m in pipe.runs])
        tree = [m.tree_peak_rss_mb for m in pipe.runs if m.tree_peak_rss_mb is not None]
        tree_rss = median(tree) if tree else None
        rows.append(
            [
                pipe.name,
                fmt(secs, 2),
                " ".join(fmt(m.seconds, 2) for m in pipe.runs),
                fmt(total_bytes / MB / secs, 2),
                fmt(len(paths) / secs, 0),
                fmt(rss, 0),
                fmt(tree_rss, 0),
                fmt(ratio(secs, base_s), 3),
                fmt(ratio(base_s, secs), 2) + "×",
                fmt(ratio(rss, base_rss), 2),
                str(pipe.pairs[0]),
            ]
        )
        raw.append(
            {
                "pipeline": pipe.name,
                "command": pipe.runs[0].command,
                "seconds": [round(m.seconds, 4) for m in pipe.runs],
                "median_seconds": round(secs, 4),
                "mb_per_s": round(total_bytes / MB / secs, 3),
                "docs_per_s": round(len(paths) / secs, 1),
                "max_rss_mb": [round(m.max_rss_mb, 1) for m in pipe.runs],
                "tree_peak_rss_mb": [None if x is None else round(x, 1) for x in tree],
                "time_ratio_to_simhash": round(ratio(secs, base_s), 4),
                "pairs": pipe.pairs[0],
            }
        )
    table = markdown_table(
        [
            "pipeline (fresh process)",
            "median s",
            "runs (s)",
            "MB/s",
            "docs/s",
            "max RSS MB",
            "peak tree RSS MB",
            "time ÷ simhash",
            "speed-up vs simhash",
            "RSS ÷ simhash",
            "pairs",
        ],
        rows,
    )
    heading = (
        f"### End to end: {len(paths)} documents, {total_bytes / MB:.1f} MB, "
        f"{args.repeat} alternating round(s)"
    )
    return {"markdown": f"{heading}\n\n{table}", "rows": raw, "bytes": total_bytes}


# ---------------------------------------------------------------- stages


class _TimedCut:
    """Wraps a Segmenter's cut function: counts calls, characters and the seconds spent."""

    def __init__(self, cut: Callable[[str], list[str]]) -> None:
        self.cut = cut
        self.seconds = 0.0
        self.calls = 0
        self.chars = 0

    def __call__(self, text: str) -> list[str]:
        started = time.perf_counter()
        try:
            return self.cut(text)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1
            self.chars += len(text)


def stages(args: argparse.Namespace, docs: Path, notes: list[str]) -> dict[str, Any]:
    import jieba
    import rjieba

    import simdup.text.features
    from simdup.params import FeatureParams
    from simdup.readers import read_document
    from simdup.records import DecodedDocument
    from simdup.text.processor import DocumentProcessor
    from simdup.text.textscan import CJK_RUN

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    max_size = 1 << 40
    paths = [str(p) for p in list_docs(docs)]
    total_bytes = sum(os.path.getsize(p) for p in paths)

    log("[stages] preparing inputs (untimed) ...")
    decoded = [
        d for d in (read_document(p, max_size) for p in paths) if isinstance(d, DecodedDocument)
    ]
    texts = [d.text for d in decoded]
    cjk_chars = sum(len(run) for text in texts for run in CJK_RUN.findall(text))
    if len(decoded) != len(paths):
        notes.append(f"stages: {len(paths) - len(decoded)} files were not decoded by simdup")
    inside: dict[str, list[_TimedCut]] = {"jieba": [], "rjieba": []}

    def each(fn: Callable[[Any], object], items: list[Any]) -> Callable[[], None]:
        def run() -> None:
            for item in items:
                fn(item)

        return run

    def document(backend: str) -> Callable[[], None]:
        """What a worker does for every file: read_document + DocumentProcessor.document, with
        a fresh vocabulary and memo (as a new process has), timing the segmenter calls."""

        def run() -> None:
            simdup.text.features.forget_vocabularies()
            proc = DocumentProcessor(dataclasses.replace(FeatureParams(), segmenter=backend))
            timed = _TimedCut(proc.segmenter._cut)
            proc.segmenter._cut = timed
            try:
                for path in paths:
                    d = read_document(path, max_size)
                    if isinstance(d, DecodedDocument):
                        proc.document(d)
            finally:
                proc.segmenter._cut = timed.cut
            inside[backend].append(timed)

        return run

    plan: list[tuple[str, str, Callable[[], None]]] = [
        (
            "decode",
            "simdup.readers.read_document (read, detect, decode)",
            each(lambda p: read_document(p, max_size), paths),
        ),
        (
            "jieba.lcut",
            "jieba.lcut(text): plain jieba, HMM on, whole text",
            each(jieba.lcut, texts),
        ),
        ("rjieba.cut", "rjieba.cut(text): plain rjieba, whole text", each(rjieba.cut, texts)),
        (
            "document, jieba",
            "read_document + DocumentProcessor(segmenter='jieba').document, new vocabulary",
            document("jieba"),
        ),
        (
            "document, rjieba",
            "read_document + DocumentProcessor(segmenter='rjieba').document, new vocabulary",
            document("rjieba"),
        ),
    ]
    if args.skip_plain_jieba:
        plan = [s for s in plan if s[0] != "jieba.lcut"]
    times: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    for round_no in range(args.repeat):
        for name, _, fn in rotated(plan, round_no):
            log(f"[stages {round_no + 1}/{args.repeat}] {name} ...")
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
            log(f"  {times[name][-1]:.2f} s")

    med = {name: median(v) for name, v in times.items()}
    lcut = med.get("jieba.lcut", float("nan"))
    segmenting = {b: median([t.seconds for t in runs]) for b, runs in inside.items()}
    segmented_chars = {b: median([t.chars for t in runs]) for b, runs in inside.items()}
    rows: list[list[str]] = []
    raw: list[dict[str, Any]] = []
    for name, what, _ in plan:
        s = med[name]
        rows.append(
            [
                name,
                what,
                fmt(s, 3),
                " ".join(fmt(x, 2) for x in times[name]),
                fmt(total_bytes / MB / s, 2),
                fmt(ratio(s, lcut), 3),
            ]
        )
        raw.append(
            {
                "stage": name,
                "what": what,
                "seconds": times[name],
                "median": s,
                "mb_per_s": total_bytes / MB / s,
            }
        )
    rest = {b: med[f"document, {b}"] - segmenting[b] for b in inside}
    derived: dict[str, Any] = {
        "segmenter_seconds_inside_document": segmenting,
        "everything_but_segmentation_seconds": rest,
        "everything_but_segmentation_pct_of_jieba_lcut": {
            b: 100 * ratio(r, lcut) for b, r in rest.items()
        },
        "share_of_cjk_text_segmented": {
            b: ratio(c, cjk_chars) for b, c in segmented_chars.items()
        },
        "document_jieba_over_jieba_lcut": ratio(med["document, jieba"], lcut),
        "document_rjieba_over_jieba_lcut": ratio(med["document, rjieba"], lcut),
        "jieba_lcut_over_rjieba_cut": ratio(lcut, med["rjieba.cut"]),
    }
    table = markdown_table(
        ["stage", "what is timed", "median s", "runs (s)", "MB/s", "÷ jieba.lcut"], rows
    )
    pct = derived["everything_but_segmentation_pct_of_jieba_lcut"]
    share = derived["share_of_cjk_text_segmented"]
    lines = [
        f"### Stages in one process: {len(paths)} documents, {total_bytes / MB:.1f} MB "
        f"(MB/s of input file bytes), {args.repeat} alternating round(s)",
        "",
        table,
        "",
        f"- Everything but segmentation (a whole document minus the time inside the "
        f"segmenter's cut calls): with jieba {fmt(rest['jieba'], 2)} s = "
        f"{fmt(pct['jieba'], 1)}% on top of jieba.lcut alone over the same texts; with rjieba "
        f"{fmt(rest['rjieba'], 2)} s = {fmt(pct['rjieba'], 1)}%.",
        f"- Time inside the segmenter: jieba {fmt(segmenting['jieba'], 2)} s, rjieba "
        f"{fmt(segmenting['rjieba'], 2)} s. Lines met before are not segmented again: the "
        f"segmenter saw {fmt(100 * share['rjieba'], 0)}% of the CJK text "
        f"({cjk_chars:,} characters in CJK runs).",
        f"- A whole simdup document with jieba costs "
        f"{fmt(derived['document_jieba_over_jieba_lcut'], 2)}× jieba.lcut; with rjieba "
        f"{fmt(derived['document_rjieba_over_jieba_lcut'], 3)}×. "
        f"jieba.lcut ÷ rjieba.cut: {fmt(derived['jieba_lcut_over_rjieba_cut'], 1)}×.",
    ]
    return {"markdown": "\n".join(lines), "rows": raw, "derived": derived}


# ---------------------------------------------------------------- index joins


def joins(args: argparse.Namespace, notes: list[str]) -> dict[str, Any]:
    cases = [("random", 100_000), ("random", 1_000_000), ("random", 10_000_000)]
    cases = [c for c in cases if c[1] <= args.max_n] + [("identical", 100_000)]
    layouts = ("auto", "4x1")
    reps = {
        c: args.repeat if c[1] < LARGE_N else min(args.repeat, args.repeat_large) for c in cases
    }
    if any(c[1] >= LARGE_N for c in cases) and args.repeat_large < args.repeat:
        notes.append(
            f"joins with N ≥ 1e7 ran {args.repeat_large} time(s) (--repeat-large), others "
            f"{args.repeat}"
        )
    script = str(BENCH_DIR / "index_join.py")
    results: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for rep in range(max(reps.values())):
        for case, n in cases:
            if rep >= reps[(case, n)]:
                continue
            # ABBA: the layout that ran first in one round runs second in the next.
            for layout in layouts if rep % 2 == 0 else layouts[::-1]:
                log(f"[joins {rep + 1}/{reps[(case, n)]}] {case} N={n:,} layout={layout} ...")
                cmd = [sys.executable, script, "--n", str(n), "--case", case, "--layout", layout]
                m = run_measured(cmd, heartbeat=heartbeat, heartbeat_every=20)
                if m.returncode != 0:
                    log(f"  failed: exit {m.returncode}: {m.stderr.strip()[-300:]}")
                    results.setdefault((case, n, layout), []).append(
                        {"error": m.stderr.strip()[-300:]}
                    )
                    continue
                r = json.loads(m.stdout.strip().splitlines()[-1])
                r["process_max_rss_mb"] = round(m.max_rss_mb, 1)
                r["process_seconds"] = round(m.seconds, 3)
                results.setdefault((case, n, layout), []).append(r)
                peak = r["peak_rss_during_join_mb"]
                log(f"  {r['seconds']:.2f} s, peak RSS in join {peak} MB, {r['pairs']:,} pairs")

    rows: list[list[str]] = []
    raw: list[dict[str, Any]] = []
    for case, n in cases:
        auto = [r for r in results.get((case, n, "auto"), []) if "error" not in r]
        auto_s = median([r["seconds"] for r in auto]) if auto else float("nan")
        for layout in layouts:
            runs = results.get((case, n, layout), [])
            good = [r for r in runs if "error" not in r]
            if not good:
                err = runs[0]["error"] if runs else "not run"
                rows.append([case, f"{n:,}", layout, "error", "", "", "", "", "", "", err[-80:]])
                raw.append({"case": case, "n": n, "layout": layout, "error": err})
                continue
            secs = median([r["seconds"] for r in good])
            peaks = [r["peak_rss_during_join_mb"] for r in good if r["peak_rss_during_join_mb"]]
            pairs = {r["pairs"] for r in good}
            same = "—"
            if layout != "auto" and auto:
                same = "yes" if pairs == {r["pairs"] for r in auto} else "NO"
                if same == "NO":
                    notes.append(f"WARNING: joins {case} N={n}: layouts found different pairs")
            first = good[0]
            used = f"{first['layout_used']} ({first['tables']} tables)"
            if layout != "auto" and auto and auto[0]["layout_used"] == layout:
                notes.append(
                    f"joins {case} N={n:,}: near_pairs chose {layout} itself, so both rows run "
                    "the same layout (their difference is noise)"
                )
            rows.append(
                [
                    case,
                    f"{n:,}",
                    layout if layout != "auto" else f"auto → {used}",
                    fmt(secs, 3),
                    " ".join(fmt(r["seconds"], 2) for r in good),
                    fmt(first["rss_at_join_start_mb"], 0),
                    fmt(median(peaks) if peaks else None, 0),
                    fmt(median([r["process_max_rss_mb"] for r in good]), 0),
                    f"{first['pairs']:,}",
                    same,
                    fmt(ratio(secs, auto_s), 2) + "×" if layout != "auto" else "1×",
                ]
            )
            raw.append(
                {"case": case, "n": n, "layout": layout, "runs": good, "median_seconds": secs}
            )
    table = markdown_table(
        [
            "case",
            "N",
            "layout",
            "median s",
            "runs (s)",
            "RSS at join start MB",
            "peak RSS in join MB",
            "process max RSS MB",
            "pairs",
            "same pairs as auto",
            "time ÷ auto",
        ],
        rows,
    )
    heading = (
        "### Index joins: `simdup.near_pairs(fps, 3)`, each run in a fresh process "
        "(1% planted near pairs, 1–3 bits flipped)"
    )
    return {"markdown": f"{heading}\n\n{table}", "rows": raw}


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description="simdup speed benchmarks.")
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per measurement (default 3)")
    ap.add_argument(
        "--max-n",
        type=float,
        default=1e7,
        help="largest number of fingerprints in the join benchmark (default 1e7)",
    )
    ap.add_argument(
        "--repeat-large",
        type=int,
        default=1,
        help="rounds for joins with N >= 1e7 (the 4-table layout takes minutes; default 1)",
    )
    ap.add_argument(
        "--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS)
    )
    ap.add_argument(
        "--skip-plain-jieba",
        action="store_true",
        help="stages: do not time jieba.lcut alone (the slowest stage)",
    )
    ap.add_argument(
        "--no-anchor-venv",
        action="store_true",
        help="do not create benchmarks/.venv-anchor (numpy<2) for the simhash package",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "speed.json")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.repeat_large < 1:
        ap.error("--repeat and --repeat-large must be at least 1")
    sections = chosen_sections(ap, args.sections, SECTIONS)

    import numpy

    import simdup

    command = reproduce_command("speed.py", argv)
    env = environment()
    env["simdup"] = simdup.__version__
    env["numpy"] = numpy.__version__
    log(f"speed benchmark: {command}")
    notes: list[str] = []
    out: dict[str, Any] = {}
    docs = None
    if "e2e" in sections or "stages" in sections:
        docs, _ = bench_folders(args.bench)
    started = time.perf_counter()
    if "e2e" in sections:
        assert docs is not None
        out["e2e"] = e2e(args, docs, notes)
    if "stages" in sections:
        assert docs is not None
        out["stages"] = stages(args, docs, notes)
    if "joins" in sections:
        out["joins"] = joins(args, notes)
    finish_sections_report(
        "speed",
        args.out,
        title="simdup speed",
        versions=f"simdup {simdup.__version__}",
        command=command,
        bench=args.bench,
        environment=env,
        started=started,
        order=SECTIONS,
        sections=out,
        notes=notes,
        footer=[
            "Medians of alternating runs on a shared, noisy machine: compare rows of one run, not "
            "numbers across runs.",
            f"Reproduce: `{command}` (or `make bench-speed`).",
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
