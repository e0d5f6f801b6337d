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

This file reads the options and puts the parts together; the parts are in
``check_short_answers.py`` (1), ``check_pan.py`` with ``check_pan_scoring.py`` (2),
``check_rewrap.py`` (3) and ``check_tables.py`` (their Markdown).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from check_pan import (
    PAN_ENV,
    PAN_LAYOUT,
    PAN_NAME,
    PAN_OPTIONS,
    PAN_WHERE,
    QUICK_PAIRS,
    SUBSETS,
    TARGET_SUBSET,
    pan_subset,
)

# Annotation and pan_measures are re-exported: rewording.py imports them from check.
from check_pan_scoring import PYTHON2_ENV, official_scorer
from check_pan_scoring import Annotation as Annotation
from check_pan_scoring import pan_measures as pan_measures
from check_rewrap import rewrap_check
from check_short_answers import (
    SHORT_ANSWERS_ENV,
    SHORT_ANSWERS_LAYOUT,
    SHORT_ANSWERS_NAME,
    SHORT_ANSWERS_WHERE,
    short_answers,
)
from check_tables import pan_text, rewrap_text, short_answers_text
from common import RESULTS, environment, log, reproduce_command, write_json

from simdup.checking import CheckOptions

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
