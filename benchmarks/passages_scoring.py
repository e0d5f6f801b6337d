"""The passage benchmark's runs and scores (run ``passages.py``, not this): each case compared
as ``compare --passages`` compares two documents, the regions reported scored against the
planted copy (found passages, correct, ignored and false regions, boundary errors), and the
grid of settings on the dev half that chose the defaults (``--grid``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from common import (
    fmt,
    log,
)
from passages_cases import Case

from simdup.options import ScanOptions
from simdup.passages import (
    DocumentPassages,
    PassageOptions,
    PassageProcessor,
    match_passages,
)
from simdup.records import PassagePair

MIN_LINES, MIN_WORDS = 5, 50  # the "copied passages of >= 5 lines / >= 50 words"


# ---------------------------------------------------------------- running and scoring


def run_case(
    case: Case, proc: PassageProcessor, options: PassageOptions, scan: ScanOptions
) -> list[PassagePair]:
    texts = {case.source: "\n".join(case.source_lines), case.host: "\n".join(case.host_lines)}
    docs: list[DocumentPassages] = [proc.document(p, t) for p, t in texts.items()]
    found = match_passages(
        docs, replace(options, all_pairs=True, max_repeats=0), scan_options=scan, texts=texts.get
    )
    return list(found.pairs)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]) + 1)


def _oriented(case: Case, p: PassagePair) -> tuple[tuple[int, int], tuple[int, int]]:
    """(source lines, host lines) of a reported region."""
    if p.a.path == case.source:
        return (p.a.start_line, p.a.end_line), (p.b.start_line, p.b.end_line)
    return (p.b.start_line, p.b.end_line), (p.a.start_line, p.a.end_line)


def _natural(case: Case, src: tuple[int, int], host: tuple[int, int]) -> bool:
    """Whether a region is a passage the two documents already share: its host side lies
    outside the planted copy (or mostly), and the two sides are similar by the set's own
    exact measure (Levenshtein similarity of the whitespace-collapsed texts >= 0.6, the
    lower bound of the set's GRAY band)."""
    from rapidfuzz.distance import Levenshtein

    if case.truth:
        planted = (case.truth[2], case.truth[3])
        if 2 * _overlap(host, planted) >= host[1] - host[0] + 1:
            return False
    a = " ".join(" ".join(case.source_lines[src[0] - 1 : src[1]]).split())
    b = " ".join(" ".join(case.host_lines[host[0] - 1 : host[1]]).split())
    return bool(Levenshtein.normalized_similarity(a, b) >= 0.6)


def score(cases: Sequence[Case], reported: Sequence[list[PassagePair]]) -> dict[str, Any]:
    tp = fp = ignored = 0
    in_scope = found_in_scope = total = found_total = 0
    edges: list[int] = []
    exact = 0
    misses: list[str] = []
    false: list[str] = []
    for case, pairs in zip(cases, reported, strict=True):
        regions = [_oriented(case, p) for p in pairs]
        truth = case.truth
        t_src = (truth[0], truth[1]) if truth else None
        t_host = (truth[2], truth[3]) if truth else None
        for src, host in regions:
            if (
                t_src
                and t_host
                and 2 * _overlap(src, t_src) >= src[1] - src[0] + 1
                and 2 * _overlap(host, t_host) >= host[1] - host[0] + 1
            ):
                tp += 1
                continue
            if _natural(case, src, host):
                ignored += 1
                continue
            fp += 1
            false.append(
                f"{case.name}: {case.source}:{src[0]}-{src[1]} ~ {case.host}:{host[0]}-{host[1]}"
            )
        if not (t_src and t_host):
            continue
        total += 1
        big = (truth[1] - truth[0] + 1) >= MIN_LINES and case.words >= MIN_WORDS
        in_scope += big
        need_src = 0.8 * (t_src[1] - t_src[0] + 1)
        need_host = 0.8 * (t_host[1] - t_host[0] + 1)
        hits = [
            (src, host)
            for src, host in regions
            if _overlap(src, t_src) >= need_src and _overlap(host, t_host) >= need_host
        ]
        if hits:
            found_total += 1
            found_in_scope += big
            src, host = max(hits, key=lambda r: _overlap(r[0], t_src) + _overlap(r[1], t_host))
            errors = [
                abs(src[0] - t_src[0]),
                abs(src[1] - t_src[1]),
                abs(host[0] - t_host[0]),
                abs(host[1] - t_host[1]),
            ]
            edges.extend(errors)
            exact += max(errors) == 0
        elif big:
            misses.append(
                f"{case.name}: {case.source}:{truth[0]}-{truth[1]} -> "
                f"{case.host}:{truth[2]}-{truth[3]} "
                f"({case.words} words, {','.join(case.edits) or 'unedited'})"
            )
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = found_in_scope / in_scope if in_scope else float("nan")
    return {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "recall_all_sizes": found_total / total if total else float("nan"),
        "true_passages": in_scope,
        "true_passages_all_sizes": total,
        "reported_correct": tp,
        "reported_false": fp,
        "reported_ignored": ignored,
        "boundary_error_median": statistics.median(edges) if edges else float("nan"),
        "boundary_error_mean": statistics.fmean(edges) if edges else float("nan"),
        "boundary_error_p90": sorted(edges)[int(0.9 * (len(edges) - 1))] if edges else float("nan"),
        "all_four_ends_exact": exact / found_total if found_total else float("nan"),
        "misses": misses,
        "false": false,
    }


def evaluate(cases: Sequence[Case], options: PassageOptions) -> tuple[dict[str, Any], float]:
    scan = ScanOptions()
    proc = PassageProcessor(scan.features, options)
    started = time.perf_counter()
    reported = [run_case(c, proc, options, scan) for c in cases]
    return score(cases, reported), time.perf_counter() - started


# ---------------------------------------------------------------- the grid


GRID = {"min_words": (20, 25, 30, 40), "gap": (4, 8, 12)}
MIN_PRECISION = 0.99


def choose(dev: Sequence[Case]) -> tuple[PassageOptions, list[list[str]]]:
    """The rule, stated before looking: on the dev half, among the settings with precision of
    every region >= ``MIN_PRECISION``, the one with the most recall of passages >= 5 lines /
    50 words; recall within 0.005 of the best counts as a tie, broken by the larger recall of
    passages of all sizes, then the larger min_words (fewer template passages in a
    collection), then the smaller gap."""
    rows: list[list[str]] = []
    results = []
    for mw in GRID["min_words"]:
        for gap in GRID["gap"]:
            opts = PassageOptions(min_words=mw, gap=gap)
            r, seconds = evaluate(dev, opts)
            results.append((opts, r))
            rows.append(
                [
                    str(mw),
                    str(gap),
                    fmt(r["precision"]),
                    fmt(r["recall"]),
                    fmt(r["recall_all_sizes"]),
                    fmt(r["boundary_error_mean"], 2),
                    f"{seconds:.1f}",
                ]
            )
            log(
                f"  dev min_words={mw} gap={gap}: P={r['precision']:.3f} R={r['recall']:.3f} "
                f"all sizes {r['recall_all_sizes']:.3f} ({seconds:.1f}s)"
            )
    precise = [(o, r) for o, r in results if r["precision"] >= MIN_PRECISION] or results
    best = max(r["recall"] for _, r in precise)
    tied = [(o, r) for o, r in precise if r["recall"] >= best - 0.005]
    chosen = min(tied, key=lambda x: (-x[1]["recall_all_sizes"], -x[0].min_words, x[0].gap))[0]
    return chosen, rows
