"""The duplicate-check benchmark (``check.py``), part 1: the Corpus of Plagiarised Short
Answers (Clough & Stevenson 2011). Where it comes from and how it is laid out, reading its
labels, checking each answer against its task's source (``copy_ratio``, with the whole
documents' word-set Jaccard as the baseline) and the rank statistics the scores are judged by
(AUC, Spearman's rho on average ranks). Its table is in ``check_tables.py``; run ``check.py``,
not this."""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.comparing import compare
from simdup.readers import read_document
from simdup.readers.discovery import DiscoveryOptions
from simdup.records import SkippedFile

SHORT_ANSWERS_ENV = "SIMDUP_SHORT_ANSWERS"
SHORT_ANSWERS_NAME = "Corpus of Plagiarised Short Answers, Clough & Stevenson 2011"
SHORT_ANSWERS_WHERE = "http://ir.shef.ac.uk/cloughie/resources/plagiarism_corpus.html"
SHORT_ANSWERS_LAYOUT = (
    "a folder with the answers gXpY_taskZ.txt, the sources orig_task[a-e].txt and labels.csv "
    "(file,task,category) or the distribution's file_information.csv"
)
CATEGORY_RANK = {"cut": 3, "light": 2, "heavy": 1, "non": 0}
CATEGORIES = ("cut", "light", "heavy", "non")
MAX_SIZE = DiscoveryOptions().max_size


# ---------------------------------------------------------------- small statistics


def average_ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, tied values sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the average ranks."""
    rx, ry = average_ranks(xs), average_ranks(ys)
    n = len(rx)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else float("nan")


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that a positive scores above a negative, ties counting 0.5."""
    if not positives or not negatives:
        return float("nan")
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


# ---------------------------------------------------------------- 1. short answers


def _labels(folder: Path) -> list[tuple[str, str, str]]:
    """(file, task, category) of every answer: ``labels.csv`` (file,task,category), else the
    distribution's own ``file_information.csv`` (File,Task,Category)."""
    for name in ("labels.csv", "file_information.csv"):
        path = folder / name
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as f:
                rows = [
                    {k.strip().lower(): v.strip() for k, v in r.items()} for r in csv.DictReader(f)
                ]
            return [
                (r["file"], r["task"].lower(), r["category"].lower())
                for r in rows
                if r["category"].lower() in CATEGORY_RANK
            ]
    raise FileNotFoundError(f"{folder}: neither labels.csv nor file_information.csv")


def short_answers(folder: Path) -> tuple[dict[str, Any], list[str]]:
    started = time.perf_counter()
    options = CheckOptions()
    notes: list[str] = []
    corpora: dict[str, Corpus] = {}
    rows: list[dict[str, Any]] = []
    for name, task, category in _labels(folder):
        source = folder / f"orig_task{task}.txt"
        if task not in corpora:
            corpus = Corpus(options.rule, options.reworded)
            found = read_document(str(source), MAX_SIZE)
            if isinstance(found, SkippedFile):
                notes.append(f"short answers: source {source.name} skipped: {found.reason}")
            corpus.add_read(found)
            corpora[task] = corpus
        answer = read_document(str(folder / name), MAX_SIZE)
        if isinstance(answer, SkippedFile):
            notes.append(f"short answers: {name} skipped by simdup ({answer.reason}): left out")
            continue
        result = check_document(answer, corpora[task], options)
        jaccard = compare(folder / name, source).jaccard
        rows.append(
            {
                "file": name,
                "task": task,
                "category": category,
                "encoding": answer.encoding,
                "copy_ratio": result.copy_ratio,
                "jaccard": jaccard,
            }
        )
    seconds = time.perf_counter() - started
    figures: dict[str, Any] = {"answers": len(rows), "seconds": round(seconds, 2)}
    for score in ("copy_ratio", "jaccard"):
        by = {c: [r[score] for r in rows if r["category"] == c] for c in CATEGORIES}
        means = {c: (sum(v) / len(v) if v else float("nan")) for c, v in by.items()}
        copied = by["cut"] + by["light"] + by["heavy"]
        figures[score] = {
            "auc_copied_vs_non": auc(copied, by["non"]),
            "auc_vs_non": {c: auc(by[c], by["non"]) for c in ("cut", "light", "heavy")},
            "mean": means,
            "count": {c: len(v) for c, v in by.items()},
            "means_ordered": all(
                means[a] > means[b] for a, b in zip(CATEGORIES, CATEGORIES[1:], strict=False)
            ),
            "spearman": spearman(
                [r[score] for r in rows], [CATEGORY_RANK[r["category"]] for r in rows]
            ),
        }
    figures["encodings"] = _count(r["encoding"] for r in rows)
    figures["answers_detail"] = rows
    return figures, notes


def _count(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))
