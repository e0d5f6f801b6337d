"""The duplicate-check benchmark (``check.py``): the scoring of part 2, PAN text alignment.
A case or a detection (``Annotation``) as PAN's ``perfmeasures.py`` has it, read from and
written to PAN's XML files; macro-averaged character recall and precision, granularity and
plagdet (Potthast et al. 2010) computed here; and PAN's official scorer (PAN-09's
``perfmeasures.py`` or PAN-12/13's ``pan12-evaluation.py``), found, run and read, to be set
beside them. ``rewording.py`` scores with these too (importing them from ``check``); run
``check.py``, not this."""

from __future__ import annotations

import math
import re
import shlex
import subprocess
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from xml.sax.saxutils import quoteattr

PYTHON2_ENV = "SIMDUP_PYTHON2"
# Official and own figures agree when they differ by at most this (Python 2 prints 12 digits).
AGREE = 1e-9


# ---------------------------------------------------------------- PAN's annotations and XML files


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


def write_detections(path: Path, susp_name: str, detections: Sequence[Annotation]) -> None:
    """The detections of the pair of ``susp_name`` as a PAN XML file at ``path``."""
    lines = [f"<document reference={quoteattr(susp_name)}>"]
    lines += [
        f'<feature name="detected-plagiarism" this_offset="{d.toff}" this_length="{d.tlen}" '
        f'source_reference={quoteattr(d.sref)} source_offset="{d.soff}" '
        f'source_length="{d.slen}"/>'
        for d in detections
    ]
    lines.append("</document>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- PAN's measures, computed here


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


# ---------------------------------------------------------------- PAN's official scorer


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
    return Official([*base, str(scorer.resolve())], "")


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
OFFICIAL_MEASURES = ("plagdet", "recall", "precision", "granularity")


def run_official(official: Official, truth: Path, detections: Path) -> dict[str, Any]:
    """The official scorer's figures for ``detections`` (a temporary folder of this run). It
    runs in that folder's parent, also temporary: ``pan12-evaluation.py`` writes its
    ``evaluation.prototext`` where it runs, and the checkout is no place for it."""
    assert official.command is not None
    started = time.perf_counter()
    done = subprocess.run(
        [*official.command, "-p", str(truth.resolve()), "-d", str(detections.resolve())],
        capture_output=True,
        text=True,
        timeout=3600,
        cwd=detections.resolve().parent,
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
