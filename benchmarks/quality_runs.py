"""The quality benchmark's rows, runs and scores (run ``quality.py``, not this): which tool runs
with which settings (simdup at its defaults and three variants, the simhash package in the
numpy<2 venv and under NumPy 2, the jieba and shingle anchors), every row run ``--repeat``
times with the rows alternating, the first run's predictions written to files and scored with
the set's ``score.py``, and the notes on how the rows ran."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    log,
    median,
)
from measured import (
    anchor_python,
)
from quality_tools import (
    Corpus,
    Prediction,
    run_minhash_shingles,
    run_minhash_words,
    run_simdup,
    run_simhash_subprocess,
    run_simhash_words,
    simdup_available_methods,
)


@dataclasses.dataclass
class Row:
    key: str
    label: str
    run: Callable[[], Prediction]
    runs: list[Prediction] = dataclasses.field(default_factory=list)
    error: str | None = None


# ---------------------------------------------------------------- the rows


def tool_rows(
    docs: Path, corpus: Corpus, pred_dir: Path, create_anchor_venv: bool, notes: list[str]
) -> tuple[list[Row], str | None]:
    """Every row, in the table's order; a row this simdup or machine cannot run is left out
    with a note. Also the numpy<2 anchor venv's description when the package runs there."""
    import numpy

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

    anchor_py, anchor_note = anchor_python(create=create_anchor_venv)
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
    return rows, anchor_note if anchor_py is not None else None


# ---------------------------------------------------------------- the runs


def run_rounds(rows: list[Row], corpus: Corpus, repeat: int) -> None:
    """Every row ``repeat`` times, round r starting at row r; a row that raises is given an
    error and runs no more."""
    for round_no in range(repeat):
        corpus.new_round()
        shift = round_no % len(rows) if rows else 0
        for row in rows[shift:] + rows[:shift]:
            if row.error:
                continue
            log(f"[round {round_no + 1}/{repeat}] {row.label} ...")
            try:
                prediction = row.run()
            except Exception as exc:  # a broken tool is a row with an error, not a crash
                row.error = f"{type(exc).__name__}: {exc}"
                log(f"  failed: {row.error}")
                continue
            row.runs.append(prediction)
            n = len(prediction.pairs) if prediction.pairs is not None else 0
            log(f"  {prediction.seconds:.2f} s, {n} pairs")


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


def scored_rows(
    rows: list[Row], pred_dir: Path, scorer: Any, labels: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each row's entry of the results: the first run's predictions (every run gives the same
    ones: deterministic) written to ``pred_dir`` and scored, the seconds of every run."""
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
    return results


def run_notes(rows: list[Row], anchor_venv: str | None) -> list[str]:
    """The notes on how the rows ran: whether the float workaround gives NumPy 1's
    fingerprints, the numpy<2 venv, how the simdup rows ran."""
    notes: list[str] = []
    by_key = {r.key: r for r in rows}
    ref, alt = by_key.get("simhash-text"), by_key.get("simhash-text-numpy2-float")
    if ref and alt and ref.runs and alt.runs:
        a, b = ref.runs[0].raw["fingerprints"], alt.runs[0].raw["fingerprints"]
        equal = sum(1 for k, v in a.items() if b.get(k) == v)
        notes.append(
            f"simhash fingerprints, numpy<2 `Simhash(text)` vs NumPy 2 with counts > 255 as "
            f"float: {equal}/{len(a)} identical."
        )
    if anchor_venv is not None:
        notes.append(f"numpy<2 anchor venv: {anchor_venv}.")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    notes.append(
        f"simdup rows: in-process `simdup.scan([docs], ...)` at the default jobs ({cpus} CPUs), "
        "its JSON report written with simdup's renderer and read back; anchors run on one core."
    )
    return notes
