"""The duplicate-check benchmark (``check.py``), part 3: the re-wrap check. The first pairs of
PAN's ``02-no-obfuscation`` again, both texts with single spaces made newlines at random
(seeded) places, so the lengths and the truth's offsets hold: line breaks must play no part,
and the detections should equal the originals'. Its table is in ``check_tables.py``; run
``check.py``, not this."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

from check_pan import TARGET_SUBSET, Reader, detect, read_pairs, truth_name
from check_pan_scoring import Annotation, annotations_of, pan_measures

from simdup.records import DecodedDocument, SkippedFile

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
