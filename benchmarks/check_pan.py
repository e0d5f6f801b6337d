"""The duplicate-check benchmark (``check.py``), part 2: the PAN 2013 text alignment corpus.
Where it comes from and how it is laid out, its subsets and target, reading its pairs and
documents, checking each suspicious document against a corpus holding its pair's source only
(every copied fragment a PAN detection) and scoring a whole subset, here and by PAN's official
scorer when one is given (``check_pan_scoring.py``). Its tables are in ``check_tables.py``;
run ``check.py``, not this."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from check_pan_scoring import (
    AGREE,
    OFFICIAL_MEASURES,
    Annotation,
    Official,
    pan_measures,
    read_annotations,
    run_official,
    write_detections,
)
from common import log

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.readers import read_document
from simdup.readers.discovery import DiscoveryOptions
from simdup.records import DecodedDocument, SkippedFile

PAN_ENV = "SIMDUP_PAN"
PAN_NAME = "PAN 2013 text alignment corpus"
PAN_WHERE = "https://pan.webis.de/data.html, PAN 2013 text alignment, test corpus 2"
PAN_LAYOUT = (
    "the corpus folder with src/, susp/ and the subset folders 01-no-plagiarism/, "
    "02-no-obfuscation/, 03-random-obfuscation/ (each a pairs file and one truth XML per pair)"
)
SUBSETS = ("02-no-obfuscation", "03-random-obfuscation", "01-no-plagiarism")
TARGET_SUBSET, TARGET_PLAGDET = "02-no-obfuscation", 0.90
QUICK_PAIRS = 200
MAX_SIZE = DiscoveryOptions().max_size
PAN_OPTIONS = CheckOptions(exclude_references=False, exclude_markers=False)


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
                abs(theirs[k] - mine[k]) <= AGREE for k in OFFICIAL_MEASURES
            )
    return out
