"""The speed benchmark's stages section (run ``speed.py``, not this): within one process, on
the same texts, alternating: decoding, ``jieba.lcut`` and ``rjieba.cut`` alone over whole
texts, and a whole simdup document with either segmenter (a new vocabulary and memo each round,
as in a new process), timing the calls simdup makes to the segmenter; MB/s of input bytes, and
what everything but segmentation adds on top of ``jieba.lcut``."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    MB,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    rotated,
)
from speed_e2e import ratio


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
