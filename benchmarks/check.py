"""Duplicate-check benchmark: ``check_document`` on two public corpora read from paths.

    python benchmarks/check.py --short-answers DIR --pan DIR      (or: make bench-check)
    python benchmarks/check.py --quick                            (200 pairs of each PAN subset)

Neither corpus is in the repository; each part is skipped, with a note on how to provide it,
when its folder is not given (``--short-answers`` / ``SIMDUP_SHORT_ANSWERS``, ``--pan`` /
``SIMDUP_PAN``).

1. **Short answers** (Corpus of Plagiarised Short Answers, Clough & Stevenson 2011): 95 answers
   to five questions, each written by cutting from the question's Wikipedia source (``cut``),
   lightly or heavily rewriting it (``light``, ``heavy``), or without it (``non``). Each answer
   is checked against its task's source alone with the default ``CheckOptions``; the score is
   ``copy_ratio``. Figures: AUC of the score separating cut/light/heavy from non (ties count
   0.5), mean score per category and whether the means order cut > light > heavy > non,
   Spearman's rank correlation with the category (cut 3, light 2, heavy 1, non 0; average
   ranks), and the same for a baseline: the whole documents' word-set Jaccard
   (``simdup.compare(a, b).jaccard``).
2. **PAN text alignment** (PAN 2013 test corpus, PAN13/14 format): for each pair of a subset,
   the suspicious document is checked against a corpus holding the pair's source only, with
   ``exclude_references=False, exclude_markers=False`` (PAN's truth counts every character);
   each copied fragment is a detection, written in PAN's XML format to a temporary folder.
   Macro-averaged character precision and recall, granularity and plagdet are computed here
   (Potthast et al. 2010, as ``perfmeasures.py`` computes them) and, when an official scorer
   and a Python that runs it are given, by the official scorer too, side by side: PAN-09's
   ``perfmeasures.py`` (Python 2 with numpy) or PAN-12/13's ``pan12-evaluation.py`` from
   pan-code (Python 3 with numpy and ``tira``; ``--python2`` names whichever Python runs it).
   ``01-no-plagiarism`` has no cases: its figure is false detections per pair.
3. **Re-wrap**: the first pairs of ``02-no-obfuscation`` again, with single spaces of both texts
   replaced by newlines at random (seeded) places: same lengths, so the truth's offsets hold,
   and line breaks must play no part (the detections should equal the originals').
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from xml.sax.saxutils import quoteattr

from common import RESULTS, environment, log, markdown_table, reproduce_command, write_json

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.comparing import compare
from simdup.readers import read_document
from simdup.readers.discovery import DiscoveryOptions
from simdup.records import DecodedDocument, SkippedFile

SHORT_ANSWERS_ENV = "SIMDUP_SHORT_ANSWERS"
PAN_ENV = "SIMDUP_PAN"
PYTHON2_ENV = "SIMDUP_PYTHON2"
SHORT_ANSWERS_NAME = "Corpus of Plagiarised Short Answers, Clough & Stevenson 2011"
SHORT_ANSWERS_WHERE = "http://ir.shef.ac.uk/cloughie/resources/plagiarism_corpus.html"
SHORT_ANSWERS_LAYOUT = (
    "a folder with the answers gXpY_taskZ.txt, the sources orig_task[a-e].txt and labels.csv "
    "(file,task,category) or the distribution's file_information.csv"
)
PAN_NAME = "PAN 2013 text alignment corpus"
PAN_WHERE = "https://pan.webis.de/data.html, PAN 2013 text alignment, test corpus 2"
PAN_LAYOUT = (
    "the corpus folder with src/, susp/ and the subset folders 01-no-plagiarism/, "
    "02-no-obfuscation/, 03-random-obfuscation/ (each a pairs file and one truth XML per pair)"
)

CATEGORY_RANK = {"cut": 3, "light": 2, "heavy": 1, "non": 0}
CATEGORIES = ("cut", "light", "heavy", "non")
SUBSETS = ("02-no-obfuscation", "03-random-obfuscation", "01-no-plagiarism")
TARGET_SUBSET, TARGET_PLAGDET = "02-no-obfuscation", 0.90
QUICK_PAIRS = 200
# Official and own figures agree when they differ by at most this (Python 2 prints 12 digits).
AGREE = 1e-9
MAX_SIZE = DiscoveryOptions().max_size
PAN_OPTIONS = CheckOptions(exclude_references=False, exclude_markers=False)


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


def f3(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.3f}"


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


def short_answers_text(f: dict[str, Any]) -> list[str]:
    check, base = f["copy_ratio"], f["jaccard"]
    lines = [
        f"## Short answers ({SHORT_ANSWERS_NAME})",
        "",
        f"{f['answers']} answers, each checked against its task's source alone "
        f"(CheckOptions() defaults); score = copy_ratio. Baseline: whole-document word-set "
        f"Jaccard (simdup.compare). Answers by encoding as read: "
        + ", ".join(f"{k} {v}" for k, v in f["encodings"].items())
        + f". {f['seconds']:.1f} s.",
        "",
        markdown_table(
            ["category", "answers", "mean copy_ratio", "mean Jaccard (baseline)"],
            [
                [c, str(check["count"][c]), f3(check["mean"][c]), f3(base["mean"][c])]
                for c in CATEGORIES
            ],
        ),
        "",
        markdown_table(
            ["figure", "check copy_ratio", "baseline Jaccard"],
            [
                [
                    "AUC cut/light/heavy vs non",
                    f3(check["auc_copied_vs_non"]),
                    f3(base["auc_copied_vs_non"]),
                ],
                *[
                    [f"AUC {c} vs non", f3(check["auc_vs_non"][c]), f3(base["auc_vs_non"][c])]
                    for c in ("cut", "light", "heavy")
                ],
                [
                    "Spearman rho with category (cut 3 … non 0)",
                    f3(check["spearman"]),
                    f3(base["spearman"]),
                ],
                [
                    "means ordered cut > light > heavy > non",
                    _yes(check["means_ordered"]),
                    _yes(base["means_ordered"]),
                ],
            ],
        ),
        "",
    ]
    return lines


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# ---------------------------------------------------------------- PAN measures


class Annotation(NamedTuple):
    """A case or a detection, as ``perfmeasures.py`` has it."""

    tref: str
    toff: int
    tlen: int
    sref: str
    soff: int
    slen: int
    ext: bool


def read_annotations(folder: Path, tag: str) -> set[Annotation]:
    """The annotations named ``tag`` in the XML files of ``folder`` (and its subfolders, one
    level), read as ``perfmeasures.py`` reads them: a set, so a repeated one counts once."""
    return annotations_of(sorted([*folder.glob("*.xml"), *folder.glob("*/*.xml")]), tag)


def annotations_of(paths: Iterable[Path], tag: str) -> set[Annotation]:
    """The annotations named ``tag`` in the PAN XML files ``paths``."""
    found: set[Annotation] = set()
    for path in paths:
        root = ET.parse(path).getroot()
        tref = root.get("reference")
        if tref is None:
            continue
        for node in root:
            if node.get("name") != tag or node.get("this_offset") is None:
                continue
            if node.get("this_length") is None:
                continue
            sref, soff, slen = (
                node.get("source_reference"),
                node.get("source_offset"),
                node.get("source_length"),
            )
            ext = sref is not None and soff is not None and slen is not None
            found.add(
                Annotation(
                    tref,
                    int(node.get("this_offset", "0")),
                    int(node.get("this_length", "0")),
                    sref if ext and sref is not None else "",
                    int(soff) if ext and soff is not None else 0,
                    int(slen) if ext and slen is not None else 0,
                    ext,
                )
            )
    return found


def overlapping(a: Annotation, b: Annotation) -> bool:
    """Same suspicious document and overlapping ranges there; for two external annotations,
    also the same source and overlapping ranges there."""
    hit = a.tref == b.tref and b.toff + b.tlen > a.toff and b.toff < a.toff + a.tlen
    if a.ext and b.ext:
        hit = hit and a.sref == b.sref and b.soff + b.slen > a.soff and b.soff < a.soff + a.slen
    return hit


def _union(ranges: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if end is None or a >= end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def covered_chars(a: Annotation, others: Sequence[Annotation]) -> int:
    """Characters of ``a`` (suspicious side plus source side) inside annotations overlapping it."""
    hits = [o for o in others if overlapping(a, o)]
    if not hits:
        return 0
    this = [(max(a.toff, o.toff), min(a.toff + a.tlen, o.toff + o.tlen)) for o in hits]
    source = [(max(a.soff, o.soff), min(a.soff + a.slen, o.soff + o.slen)) for o in hits]
    return _union(this) + _union(source)


def _by_document(annotations: Iterable[Annotation]) -> dict[str, list[Annotation]]:
    index: dict[str, list[Annotation]] = {}
    for a in annotations:
        index.setdefault(a.tref, []).append(a)
    return index


def macro_recall(cases: set[Annotation], detections: set[Annotation]) -> float:
    """Mean over the cases of the share of each case's characters (both sides) detected."""
    if not cases and not detections:
        return 1.0
    if not cases or not detections:
        return 0.0
    index = _by_document(detections)
    total = 0.0
    for case in cases:
        found = index.get(case.tref)
        if found:
            total += covered_chars(case, found) / (case.tlen + case.slen)
    return total / len(cases)


def macro_precision(cases: set[Annotation], detections: set[Annotation]) -> float:
    """Recall with the roles swapped: the share of each detection's characters in a case."""
    return macro_recall(detections, cases)


def granularity(cases: set[Annotation], detections: set[Annotation]) -> float:
    """Mean number of detections overlapping each detected case (1 when nothing is detected)."""
    if not detections:
        return 1.0
    index = _by_document(detections)
    counts = [sum(overlapping(c, d) for d in index.get(c.tref, ())) for c in cases]
    detected = sum(1 for n in counts if n > 0)
    return sum(counts) / detected if detected else 1.0


def plagdet(recall: float, precision: float, gran: float) -> float:
    if (recall == 0 and precision == 0) or recall < 0 or precision < 0 or gran < 1:
        return 0.0
    return (2 * recall * precision / (recall + precision)) / math.log2(1 + gran)


def pan_measures(cases: set[Annotation], detections: set[Annotation]) -> dict[str, float]:
    r, p, g = (
        macro_recall(cases, detections),
        macro_precision(cases, detections),
        granularity(cases, detections),
    )
    return {"plagdet": plagdet(r, p, g), "recall": r, "precision": p, "granularity": g}


# ---------------------------------------------------------------- 2. PAN text alignment


@dataclass
class Reader:
    """Each PAN document read once per subset (a source serves several pairs)."""

    folder: Path
    cache: dict[str, DecodedDocument | SkippedFile] = field(default_factory=dict)

    def get(self, side: str, name: str) -> DecodedDocument | SkippedFile:
        key = f"{side}/{name}"
        if key not in self.cache:
            self.cache[key] = read_document(str(self.folder / side / name), MAX_SIZE)
        return self.cache[key]


def read_pairs(subset: Path, limit: int | None) -> list[tuple[str, str]]:
    pairs = []
    for line in (subset / "pairs").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2:
            pairs.append((parts[0], parts[1]))
    return pairs[:limit] if limit is not None else pairs


def truth_name(susp: str, src: str) -> str:
    return f"{Path(susp).stem}-{Path(src).stem}.xml"


def detect(
    susp: DecodedDocument, src: DecodedDocument, susp_name: str, src_name: str
) -> list[Annotation]:
    """The fragments of ``susp`` found in a corpus holding ``src`` alone, as PAN detections."""
    corpus = Corpus(PAN_OPTIONS.rule, PAN_OPTIONS.reworded)
    corpus.add(src)
    result = check_document(susp, corpus, PAN_OPTIONS)
    return [
        Annotation(
            susp_name,
            f.start,
            f.end - f.start,
            src_name,
            f.source_start,
            f.source_end - f.source_start,
            True,
        )
        for f in result.fragments
    ]


def write_detections(path: Path, susp_name: str, detections: Sequence[Annotation]) -> None:
    lines = [f"<document reference={quoteattr(susp_name)}>"]
    lines += [
        f'<feature name="detected-plagiarism" this_offset="{d.toff}" this_length="{d.tlen}" '
        f'source_reference={quoteattr(d.sref)} source_offset="{d.soff}" '
        f'source_length="{d.slen}"/>'
        for d in detections
    ]
    lines.append("</document>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass
class Official:
    """The official scorer, or why it is not run."""

    command: list[str] | None
    reason: str


def official_scorer(scorer: Path | None, python2: str | None) -> Official:
    if scorer is None or not scorer.is_file():
        where = scorer if scorer is not None else "(no --pan-scorer, no PAN folder)"
        return Official(None, f"no official scorer at {where} (give --pan-scorer FILE)")
    if not python2:
        return Official(None, f"no Python 2 given (--python2 CMD or {PYTHON2_ENV}=CMD)")
    base = shlex.split(python2)
    try:
        probe = subprocess.run(
            [*base, "-c", "import numpy"], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return Official(None, f"Python 2 command {python2!r} cannot be run: {e}")
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return Official(None, f"{python2!r} cannot import numpy: {last}")
    return Official([*base, str(scorer)], "")


# The PAN-09 ``perfmeasures.py`` prints ``Plagdet Score 0.9``; PAN-12/13's
# ``pan12-evaluation.py`` (pan-code, Python 3 with numpy and ``tira``) prints
# ``macro_plagdet : 0.9``. Both are read; the macro-averaged figures are the ones compared.
_OFFICIAL_LINE = re.compile(
    r"^(Plagdet Score|Recall|Precision|Granularity"
    r"|macro_plagdet|macro_recall|macro_precision|granularity)\s*:?\s+(\S+)\s*$"
)
_OFFICIAL_KEYS = {
    "Plagdet Score": "plagdet",
    "Recall": "recall",
    "Precision": "precision",
    "Granularity": "granularity",
    "macro_plagdet": "plagdet",
    "macro_recall": "recall",
    "macro_precision": "precision",
    "granularity": "granularity",
}
_OFFICIAL_MEASURES = ("plagdet", "recall", "precision", "granularity")


def run_official(official: Official, truth: Path, detections: Path) -> dict[str, Any]:
    assert official.command is not None
    started = time.perf_counter()
    done = subprocess.run(
        [*official.command, "-p", str(truth), "-d", str(detections)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    figures: dict[str, Any] = {"seconds": round(time.perf_counter() - started, 2)}
    for line in done.stdout.splitlines():
        m = _OFFICIAL_LINE.match(line.strip())
        if m:
            figures[_OFFICIAL_KEYS[m.group(1)]] = float(m.group(2))
    if done.returncode != 0 or "plagdet" not in figures:
        figures["error"] = (done.stderr.strip() or done.stdout.strip())[-500:]
    figures["output"] = done.stdout
    return figures


def _misread(doc: DecodedDocument) -> str:
    """How a document was read when not as UTF-8, and whether its bytes are valid UTF-8."""
    try:
        Path(doc.path).read_bytes().decode("utf-8")
        valid = "its bytes are valid UTF-8"
    except (OSError, UnicodeDecodeError):
        valid = "its bytes are not valid UTF-8"
    return f"read as {doc.encoding} ({doc.encoding_source}); {valid}"


def pan_subset(
    pan: Path, name: str, limit: int | None, work: Path, official: Official
) -> dict[str, Any]:
    subset = pan / name
    pairs = read_pairs(subset, limit)
    reader = Reader(pan)
    truth_dir, det_dir = work / "truth" / name, work / "detections" / name
    truth_dir.mkdir(parents=True)
    det_dir.mkdir(parents=True)
    started = time.perf_counter()
    skipped_pairs: list[str] = []
    misread_pairs = 0
    not_utf8: dict[str, str] = {}
    skipped_docs: dict[str, str] = {}
    missing_truth = 0
    detections_per_pair: list[int] = []
    detected_chars: list[int] = []
    for susp_name, src_name in pairs:
        truth = subset / truth_name(susp_name, src_name)
        if not truth.is_file():
            missing_truth += 1
            continue
        shutil.copyfile(truth, truth_dir / truth.name)
        susp, src = reader.get("susp", susp_name), reader.get("src", src_name)
        found: list[Annotation] = []
        for doc in (susp, src):
            if isinstance(doc, SkippedFile):
                skipped_docs[Path(doc.path).name] = doc.reason
            elif doc.encoding != "utf-8":
                not_utf8[Path(doc.path).name] = _misread(doc)
        misread_pairs += any(
            isinstance(doc, DecodedDocument) and doc.encoding != "utf-8" for doc in (susp, src)
        )
        if isinstance(susp, SkippedFile) or isinstance(src, SkippedFile):
            skipped_pairs.append(truth.name)
        else:
            found = detect(susp, src, susp_name, src_name)
        write_detections(det_dir / truth.name, susp_name, found)
        detections_per_pair.append(len(found))
        detected_chars.append(sum(d.tlen for d in found))
    seconds = time.perf_counter() - started
    cases = read_annotations(truth_dir, "plagiarism")
    detections = read_annotations(det_dir, "detected-plagiarism")
    scored = time.perf_counter()
    mine = pan_measures(cases, detections)
    score_seconds = time.perf_counter() - scored
    n = len(detections_per_pair)
    out: dict[str, Any] = {
        "pairs": n,
        "cases": len(cases),
        "detections": len(detections),
        "seconds": round(seconds, 2),
        "score_seconds": round(score_seconds, 2),
        "pairs_with_skipped_document": len(skipped_pairs),
        "skipped_documents": skipped_docs,
        "documents_not_read_as_utf8": not_utf8,
        "pairs_with_document_not_read_as_utf8": misread_pairs,
        "missing_truth_files": missing_truth,
        "detections_per_pair": sum(detections_per_pair) / n if n else float("nan"),
        "pairs_with_detections": sum(1 for k in detections_per_pair if k),
        "detected_chars_per_pair": sum(detected_chars) / n if n else float("nan"),
        "measures": mine,
    }
    if cases and official.command is not None:
        log(f"{name}: running the official scorer")
        theirs = run_official(official, truth_dir, det_dir)
        out["official"] = theirs
        if "error" not in theirs:
            out["official_agrees"] = all(
                abs(theirs[k] - mine[k]) <= AGREE for k in _OFFICIAL_MEASURES
            )
    return out


def pan_text(
    results: dict[str, dict[str, Any]], official: Official, limit: int | None
) -> list[str]:
    lines = [
        f"## PAN text alignment ({PAN_NAME})",
        "",
        "Each pair: the suspicious document checked against a Corpus holding its source only, "
        "with CheckOptions(exclude_references=False, exclude_markers=False): PAN's truth counts "
        "every character, so reference lists and citation markers are NOT left out here. "
        "Detections = the copied fragments (start, end - start, source_start, "
        "source_end - source_start). Measures: macro-averaged character recall and precision, "
        "granularity, plagdet = F1 / log2(1 + granularity) (Potthast et al. 2010), computed "
        f"here{'' if official.command else ' only'}. Pairs: "
        + ("all of each subset" if limit is None else f"the first {limit} of each subset")
        + ".",
        "",
    ]
    scored = [s for s in results if results[s]["cases"]]
    if scored:
        rows = []
        for s in scored:
            r, m = results[s], results[s]["measures"]
            rows.append(
                [
                    s + (f" (target plagdet ≥ {TARGET_PLAGDET:.2f})" if s == TARGET_SUBSET else ""),
                    str(r["pairs"]),
                    str(r["cases"]),
                    str(r["detections"]),
                    f3(m["plagdet"]),
                    f3(m["recall"]),
                    f3(m["precision"]),
                    f3(m["granularity"]),
                    str(r["pairs_with_skipped_document"]),
                    f"{r['seconds']:.1f}",
                ]
            )
        lines += [
            markdown_table(
                [
                    "subset",
                    "pairs",
                    "cases",
                    "detections",
                    "plagdet",
                    "recall",
                    "precision",
                    "granularity",
                    "pairs with a skipped document",
                    "seconds",
                ],
                rows,
            ),
            "",
        ]
        if TARGET_SUBSET in results and results[TARGET_SUBSET]["cases"]:
            value = results[TARGET_SUBSET]["measures"]["plagdet"]
            met = "met" if value >= TARGET_PLAGDET else "NOT met"
            lines += [
                f"Target on {TARGET_SUBSET}: plagdet {value:.4f} ≥ {TARGET_PLAGDET:.2f}: {met}.",
                "",
            ]
    free = [s for s in results if not results[s]["cases"]]
    for s in free:
        r = results[s]
        lines += [
            markdown_table(
                [
                    "subset (no plagiarism)",
                    "pairs",
                    "false detections",
                    "per pair",
                    "pairs with any",
                    "detected chars per pair (suspicious side)",
                    "pairs with a skipped document",
                    "seconds",
                ],
                [
                    [
                        s,
                        str(r["pairs"]),
                        str(r["detections"]),
                        f"{r['detections_per_pair']:.3f}",
                        str(r["pairs_with_detections"]),
                        f"{r['detected_chars_per_pair']:.1f}",
                        str(r["pairs_with_skipped_document"]),
                        f"{r['seconds']:.1f}",
                    ]
                ],
            ),
            "",
        ]
    if official.command is None:
        lines += [f"Official scorer NOT run: {official.reason}.", ""]
    else:
        rows = []
        for s in scored:
            theirs, m = results[s].get("official", {}), results[s]["measures"]
            if "error" in theirs or not theirs:
                rows.append([s, "failed: " + str(theirs.get("error", "?"))[:120], "", "", "", ""])
                continue
            rows.append(
                [s]
                + [f"{theirs[k]:.6f} / {m[k]:.6f}" for k in _OFFICIAL_MEASURES]
                + [_yes(bool(results[s].get("official_agrees")))]
            )
        lines += [
            f"Official scorer (`{shlex.join(official.command)} -p TRUTH -d DETECTIONS`), "
            "official / this program's:",
            "",
            markdown_table(
                ["subset", "plagdet", "recall", "precision", "granularity", f"agree (±{AGREE:g})"],
                rows,
            ),
            "",
        ]
        if free:
            lines += [
                "Not run on " + ", ".join(free) + ": no cases there (PAN's measures give 0 as "
                "soon as anything is detected).",
                "",
            ]
    for s, r in results.items():
        if r["skipped_documents"]:
            lines.append(
                f"{s}: {_n(len(r['skipped_documents']), 'document')} skipped by simdup ("
                + "; ".join(f"{k}: {v}" for k, v in sorted(r["skipped_documents"].items()))
                + f"): no detections for the {_n(r['pairs_with_skipped_document'], 'pair')} "
                "holding one."
            )
        if r["documents_not_read_as_utf8"]:
            lines.append(
                f"{s}: {_n(len(r['documents_not_read_as_utf8']), 'document')} not read as "
                "UTF-8 ("
                + "; ".join(f"{k}: {v}" for k, v in sorted(r["documents_not_read_as_utf8"].items()))
                + f"): {_n(r['pairs_with_document_not_read_as_utf8'], 'pair')} checked on the "
                "text as simdup decoded it."
            )
        if r["missing_truth_files"]:
            lines.append(f"{s}: {r['missing_truth_files']} pairs without a truth file: left out.")
    lines.append("")
    return lines


# ---------------------------------------------------------------- 3. re-wrap


_SINGLE_SPACE = re.compile(r"(?<=\S) (?=\S)")


def rewrap(text: str, rng: random.Random, share: float) -> str:
    """``text`` with each single space (between two non-blanks) made a newline with
    probability ``share``: the same length, so every offset still holds."""
    chars = list(text)
    for m in _SINGLE_SPACE.finditer(text):
        if rng.random() < share:
            chars[m.start()] = "\n"
    return "".join(chars)


def rewrap_check(pan: Path, pairs_count: int, seed: int, share: float) -> dict[str, Any]:
    subset = pan / TARGET_SUBSET
    reader = Reader(pan)
    cases: set[Annotation] = set()
    original: set[Annotation] = set()
    rewrapped: set[Annotation] = set()
    same, used, skipped = 0, 0, 0
    started = time.perf_counter()
    for susp_name, src_name in read_pairs(subset, pairs_count):
        truth = subset / truth_name(susp_name, src_name)
        susp, src = reader.get("susp", susp_name), reader.get("src", src_name)
        if not truth.is_file() or isinstance(susp, SkippedFile) or isinstance(src, SkippedFile):
            skipped += 1
            continue
        used += 1
        cases |= annotations_of([truth], "plagiarism")
        before = detect(susp, src, susp_name, src_name)
        rng = random.Random(f"{seed}:{susp_name}:{src_name}")
        wrapped = [
            DecodedDocument(doc.path, t, "utf-8", "utf-8", 1.0, len(t))
            for doc in (susp, src)
            for t in [rewrap(doc.text, rng, share)]
        ]
        after = detect(wrapped[0], wrapped[1], susp_name, src_name)
        same += sorted(before) == sorted(after)
        original |= set(before)
        rewrapped |= set(after)
    return {
        "pairs": used,
        "pairs_skipped": skipped,
        "newline_share": share,
        "seed": seed,
        "pairs_with_identical_detections": same,
        "original": pan_measures(cases, original),
        "rewrapped": pan_measures(cases, rewrapped),
        "seconds": round(time.perf_counter() - started, 2),
    }


def rewrap_text(r: dict[str, Any]) -> list[str]:
    a, b = r["original"], r["rewrapped"]
    gap = abs(a["plagdet"] - b["plagdet"])
    return [
        "## Re-wrap (line breaks play no part)",
        "",
        f"The first {r['pairs']} pairs of {TARGET_SUBSET} ({r['pairs_skipped']} left out: a "
        f"skipped document), both texts with each single space made a newline with probability "
        f"{r['newline_share']:.3f} (seed {r['seed']}; lengths unchanged, so the truth's offsets "
        "hold), built as DecodedDocument records; same options as above.",
        "",
        markdown_table(
            ["texts", "plagdet", "recall", "precision", "granularity"],
            [
                [k, f3(m["plagdet"]), f3(m["recall"]), f3(m["precision"]), f3(m["granularity"])]
                for k, m in (("original", a), ("re-wrapped", b))
            ],
        ),
        "",
        f"Pairs with identical detections: {r['pairs_with_identical_detections']} of "
        f"{r['pairs']}; plagdet difference {gap:.4f} ({r['seconds']:.1f} s).",
        "",
    ]


# ---------------------------------------------------------------- main


def _folder(given: str | None, option: str, env: str) -> tuple[Path | None, str]:
    """The corpus folder and where it came from (option, environment variable)."""
    if given:
        return Path(given), option
    value = os.environ.get(env)
    return (Path(value), f"${env}") if value else (None, "")


def _missing(
    part: str, option: str, env: str, name: str, layout: str, where: str, why: str
) -> list[str]:
    return [
        f"## {part}: skipped",
        "",
        f"{why}. Provide it with `{option} DIR` or `{env}=DIR`: {layout} ({name}; public "
        f"copies: {where}).",
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--short-answers", help=f"the short-answers corpus folder (default ${SHORT_ANSWERS_ENV})"
    )
    parser.add_argument(
        "--pan", help=f"the PAN corpus folder with src/, susp/ (default ${PAN_ENV})"
    )
    parser.add_argument(
        "--pan-pairs", type=int, help="the first N pairs of each PAN subset (default all)"
    )
    parser.add_argument(
        "--subsets", default=",".join(SUBSETS), help="PAN subsets (comma-separated)"
    )
    parser.add_argument(
        "--pan-scorer",
        help="official perfmeasures.py or pan12-evaluation.py (default: PAN/../perfmeasures.py)",
    )
    parser.add_argument(
        "--python2",
        default=os.environ.get(PYTHON2_ENV),
        help=(
            "the Python that runs the official scorer: Python 2 with numpy for perfmeasures.py, "
            f"Python 3 with numpy and tira for pan12-evaluation.py (default ${PYTHON2_ENV})"
        ),
    )
    parser.add_argument("--rewrap-pairs", type=int, default=100)
    parser.add_argument(
        "--rewrap-share", type=float, default=1 / 6, help="share of single spaces made newlines"
    )
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_PAIRS} pairs of each PAN subset"
    )
    parser.add_argument(
        "--json", type=Path, default=RESULTS / "check.json", help="write the figures here"
    )
    args = parser.parse_args(argv)
    limit = args.pan_pairs if args.pan_pairs is not None else QUICK_PAIRS if args.quick else None
    command = reproduce_command("check.py", sys.argv[1:] if argv is None else list(argv))
    out: dict[str, Any] = {
        "command": command,
        "environment": environment(),
        "check_options": CheckOptions().describe(),
        "pan_options": PAN_OPTIONS.describe(),
        "notes": [],
    }
    lines = [f"Reproduce: `{command}`", ""]
    ran = 0

    short, short_from = _folder(args.short_answers, "--short-answers", SHORT_ANSWERS_ENV)
    if short is None or not short.is_dir():
        why = (
            f"no folder given ({SHORT_ANSWERS_ENV} is not set)"
            if short is None
            else f"{short} ({short_from}) is not a folder"
        )
        lines += _missing(
            "Short answers",
            "--short-answers",
            SHORT_ANSWERS_ENV,
            SHORT_ANSWERS_NAME,
            SHORT_ANSWERS_LAYOUT,
            SHORT_ANSWERS_WHERE,
            why,
        )
        out["short_answers"] = {"skipped": why}
    else:
        log(f"short answers: {short}")
        figures, notes = short_answers(short)
        out["short_answers"] = figures
        out["notes"] += notes
        lines += short_answers_text(figures) + notes + ([""] if notes else [])
        ran += 1

    pan, pan_from = _folder(args.pan, "--pan", PAN_ENV)
    if pan is None or not (pan / "susp").is_dir() or not (pan / "src").is_dir():
        why = (
            f"no folder given ({PAN_ENV} is not set)"
            if pan is None
            else f"{pan} ({pan_from}) has no susp/ and src/ folders"
        )
        lines += _missing(
            "PAN text alignment", "--pan", PAN_ENV, PAN_NAME, PAN_LAYOUT, PAN_WHERE, why
        )
        out["pan"] = {"skipped": why}
    else:
        scorer = Path(args.pan_scorer) if args.pan_scorer else pan.parent / "perfmeasures.py"
        official = official_scorer(scorer, args.python2)
        out["official_scorer"] = {"command": official.command, "not_run_because": official.reason}
        results: dict[str, dict[str, Any]] = {}
        with tempfile.TemporaryDirectory(prefix="simdup-check-pan-") as tmp:
            for name in [s.strip() for s in args.subsets.split(",") if s.strip()]:
                if not (pan / name / "pairs").is_file():
                    out["notes"].append(f"PAN: {pan / name} has no pairs file: left out")
                    lines.append(out["notes"][-1])
                    continue
                log(f"PAN {name}: checking")
                results[name] = pan_subset(pan, name, limit, Path(tmp), official)
                log(f"PAN {name}: {results[name]['measures']} ({results[name]['seconds']} s)")
        out["pan"] = results
        lines += pan_text(results, official, limit)
        if (pan / TARGET_SUBSET / "pairs").is_file() and args.rewrap_pairs > 0:
            log("re-wrap check")
            wrapped = rewrap_check(pan, args.rewrap_pairs, args.seed, args.rewrap_share)
            out["rewrap"] = wrapped
            lines += rewrap_text(wrapped)
        ran += 1

    print("\n".join(lines).rstrip() + "\n")
    if not ran:
        return 2
    out["parts_run"] = ran
    write_json(args.json, out)
    log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
