"""The duplicate-check benchmark (``check.py``): its parts' Markdown, the short answers'
tables, the PAN tables (each subset's measures, the subsets without plagiarism, the official
scorer beside this program's figures, the documents skipped or not read as UTF-8) and the
re-wrap table. Run ``check.py``, not this."""

from __future__ import annotations

import shlex
from typing import Any

from check_pan import PAN_NAME, TARGET_PLAGDET, TARGET_SUBSET
from check_pan_scoring import AGREE, OFFICIAL_MEASURES, Official
from check_short_answers import CATEGORIES, SHORT_ANSWERS_NAME
from common import fmt, markdown_table

# ---------------------------------------------------------------- counted nouns, yes or no


def _n(count: int, noun: str) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _yes(flag: bool) -> str:
    """A flag as a table cell."""
    return "yes" if flag else "no"


# ---------------------------------------------------------------- 1. short answers


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
                [c, str(check["count"][c]), fmt(check["mean"][c]), fmt(base["mean"][c])]
                for c in CATEGORIES
            ],
        ),
        "",
        markdown_table(
            ["figure", "check copy_ratio", "baseline Jaccard"],
            [
                [
                    "AUC cut/light/heavy vs non",
                    fmt(check["auc_copied_vs_non"]),
                    fmt(base["auc_copied_vs_non"]),
                ],
                *[
                    [f"AUC {c} vs non", fmt(check["auc_vs_non"][c]), fmt(base["auc_vs_non"][c])]
                    for c in ("cut", "light", "heavy")
                ],
                [
                    "Spearman rho with category (cut 3 … non 0)",
                    fmt(check["spearman"]),
                    fmt(base["spearman"]),
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


# ---------------------------------------------------------------- 2. PAN text alignment


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
                    fmt(m["plagdet"]),
                    fmt(m["recall"]),
                    fmt(m["precision"]),
                    fmt(m["granularity"]),
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
                + [f"{theirs[k]:.6f} / {m[k]:.6f}" for k in OFFICIAL_MEASURES]
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
                [k, fmt(m["plagdet"]), fmt(m["recall"]), fmt(m["precision"]), fmt(m["granularity"])]
                for k, m in (("original", a), ("re-wrapped", b))
            ],
        ),
        "",
        f"Pairs with identical detections: {r['pairs_with_identical_detections']} of "
        f"{r['pairs']}; plagdet difference {gap:.4f} ({r['seconds']:.1f} s).",
        "",
    ]
