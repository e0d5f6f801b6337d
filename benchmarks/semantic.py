"""Translated copies: ``check --semantic`` of Chinese theses holding paragraphs translated from
English sources, built from a real parallel text (issue 36).

    python benchmarks/semantic.py --po DIR        (or: make bench-semantic PO=DIR)

``DIR`` is a checkout of the Chinese translation of Python's documentation
(https://github.com/python/python-docs-zh-cn, any version branch; not shipped here): its
``.po`` files pair each English paragraph (``msgid``) with its human translation (``msgstr``).
From the tutorial, HOWTO and FAQ files (paragraphs of at least 150 English characters with a
translation, markup as it is), with a fixed seed:

- the *source* of a case is one file's English text (its paragraphs in order);
- its *thesis* is four Chinese paragraphs of other files with ``--planted`` consecutive
  paragraphs of the source, in their Chinese translation, in the middle;
- a *clean* thesis is the same without the planted paragraphs: anything reported there is
  false (``--dev`` chooses the thresholds on other seeds' cases);
- with ``--po-tw DIR`` (a checkout of python-docs-zh-tw, or of some of its files), the same
  kind of theses in the simplified translation are checked against the traditional
  translation of the same page, made independently by another team.

Measured with ``CheckOptions(semantic=MeaningRule())`` against ``--exact-only`` and the
default check (exact runs and reworded passages): planted passages found (half of their
characters inside a fragment), character recall and precision on the thesis side, clean
theses flagged, seconds per check (the model loaded once, sources embedded per check).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from common import log, markdown_table, publish_table

from simdup.algorithms.sentence_meaning import MeaningRule
from simdup.checking import CheckOptions, Corpus, check_document
from simdup.records import DecodedDocument

_ENTRY = re.compile(r'^msgid ((?:".*"\n?)+)msgstr ((?:".*"\n?)+)', re.M)
_QUOTED = re.compile(r'"(.*)"')


def _unquote(block: str) -> str:
    return "".join(_QUOTED.findall(block)).replace('\\"', '"').replace("\\n", "\n")


def po_documents(folder: Path) -> list[list[tuple[str, str]]]:
    """The (English, Chinese) paragraphs of each tutorial, HOWTO and FAQ file, in order."""
    found = []
    for path in sorted([*folder.glob("tutorial/*.po"), *folder.glob("howto/*.po"),
                        *folder.glob("faq/*.po")]):  # fmt: skip
        pairs = list(_entries(path).items())  # gettext keeps one entry per English text
        if len(pairs) >= 8:
            found.append(pairs)
    return found


def _entries(path: Path) -> dict[str, str]:
    """English paragraph -> its translation, for the paragraphs kept (as ``po_documents``)."""
    found = {}
    for entry in path.read_text(encoding="utf-8").split("\n\n"):
        match = _ENTRY.search(entry)
        if match is None or "fuzzy" in entry.split("msgid")[0]:
            continue
        english, chinese = _unquote(match.group(1)), _unquote(match.group(2))
        if len(english) >= 150 and len(chinese) >= 40:
            found[english] = chinese
    return found


def independent_cases(
    simplified: Path, traditional: Path, own: list[list[tuple[str, str]]], count: int,
    planted: int, seed: int,
) -> list[dict[str, Any]]:
    """Theses in the simplified translation against the traditional one of the same pages,
    made by another team (the English paragraphs both translated, in order)."""  # fmt: skip
    documents = []
    for path in sorted(traditional.glob("*/*.po")):
        mine = simplified / path.relative_to(traditional)
        if not mine.is_file():
            continue
        cn, tw = _entries(mine), _entries(path)
        both = [(cn[english], tw[english]) for english in cn if english in tw]
        if len(both) >= 2 * planted:
            documents.append(both)
    rng = random.Random(seed)
    out = []
    for case in range(count if documents else 0):
        pairs = rng.choice(documents)
        at = rng.randrange(len(pairs) - planted + 1)
        copied = "\n\n".join(cn for cn, _ in pairs[at : at + planted])
        # The thesis's own paragraphs come from other pages (none translates the source).
        page = {cn for cn, _ in pairs}
        others = [d for d in own if not page & {chinese for _, chinese in d}]
        mine_paragraphs = [chinese for _, chinese in rng.sample(rng.choice(others), 4)]
        out.append({
            "name": f"independent-{case}", "source": "\n\n".join(tw for _, tw in pairs),
            "thesis": "\n\n".join([*mine_paragraphs[:2], copied, *mine_paragraphs[2:]]),
            "planted": copied, "clean": "\n\n".join(mine_paragraphs),
        })  # fmt: skip
    return out


def _doc(text: str, path: str) -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode("utf-8")))


def cases_of(documents: list[list[tuple[str, str]]], count: int, planted: int,
             seed: int) -> list[dict[str, Any]]:  # fmt: skip
    rng = random.Random(seed)
    out = []
    for case in range(count):
        source, own = rng.sample(documents, 2)
        at = rng.randrange(len(source) - planted + 1)
        copied = "\n\n".join(chinese for _, chinese in source[at : at + planted])
        mine = [chinese for _, chinese in rng.sample(own, 4)]
        out.append({
            "name": f"case-{case}", "source": "\n\n".join(english for english, _ in source),
            "thesis": "\n\n".join([*mine[:2], copied, *mine[2:]]), "planted": copied,
            "clean": "\n\n".join(mine),
        })  # fmt: skip
    return out


def measure(cases: list[dict[str, Any]], options: CheckOptions) -> dict[str, Any]:
    found = flagged = 0
    inside = outside = planted_chars = 0
    seconds = 0.0
    for case in cases:
        for thesis in (case["thesis"], case["clean"]):
            corpus = Corpus(options.rule, options.reworded, options.semantic)
            corpus.add(_doc(case["source"], "source"))
            started = time.perf_counter()
            result = check_document(_doc(thesis, case["name"]), corpus, options)
            seconds += time.perf_counter() - started
            if thesis is case["clean"]:
                flagged += bool(result.fragments)
                continue
            start = thesis.index(case["planted"])
            end = start + len(case["planted"])
            covered = set()
            for f in result.fragments:
                covered.update(range(max(f.start, start), min(f.end, end)))
                outside += sum(1 for i in range(f.start, f.end) if not start <= i < end)
            inside += len(covered)
            planted_chars += end - start
            found += len(covered) >= 0.5 * (end - start)
    return {
        "cases": len(cases), "found": found,
        "char_recall": round(inside / max(1, planted_chars), 4),
        "char_precision": round(inside / max(1, inside + outside), 4),
        "clean_flagged": flagged, "ms_per_check": round(500 * seconds / len(cases), 1),
    }  # fmt: skip


# The three checks measured, by name, and a measured set's row of the table.
MODES = {
    "exact": ("--exact-only", CheckOptions(reworded=None)),
    "default": ("default (exact runs, reworded passages)", CheckOptions()),
    "semantic": ("--semantic", CheckOptions(semantic=MeaningRule())),
}


def measured_table(
    sets: list[tuple[str, list[dict[str, Any]]]], modes: list[str], clean: str, label: str = ""
) -> tuple[str, dict[str, Any]]:
    """Each set of cases measured with each check of ``modes`` (``MODES``' keys): the Markdown
    table (``clean``: what a clean case is called) and the figures by "set: check"."""
    rows, results = [], {}
    for title, cases in sets:
        for mode in modes:
            name, options = MODES[mode]
            got = measure(cases, options)
            results[f"{title}: {name}"] = got
            log(f"{label}{title}: {name}: {got}")
            rows.append([title, name, f"{got['found']}/{got['cases']}",
                         f"{got['char_recall']:.3f}", f"{got['char_precision']:.3f}",
                         f"{got['clean_flagged']}/{got['cases']}",
                         f"{got['ms_per_check']:.0f}"])  # fmt: skip
    table = markdown_table(["cases", "check", "planted found", "char recall", "char precision",
                            f"clean {clean} flagged", "ms per check"], rows)  # fmt: skip
    return table, results


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--po", type=Path, help="a checkout of python-docs-zh-cn (.po files)")
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--planted", type=int, default=3, help="paragraphs planted per case")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--dev", action="store_true", help="a grid of thresholds (other seed)")
    ap.add_argument(
        "--po-tw", type=Path,
        help="a checkout of python-docs-zh-tw: also check the simplified theses against the "
        "traditional translation of the same pages, made by another team",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.po is None or not args.po.is_dir():
        log("needs --po DIR: a checkout of https://github.com/python/python-docs-zh-cn")
        return 2
    documents = po_documents(args.po)
    log(f"{len(documents)} files with 8 or more translated paragraphs")
    if args.dev:
        cases = cases_of(documents, args.cases, args.planted, args.seed + 1000)
        for cosine in (0.6, 0.65, 0.7, 0.75):
            for passage in (0.7, 0.75, 0.8):
                rule = MeaningRule(min_cosine=cosine, min_passage_cosine=passage)
                got = measure(cases, CheckOptions(reworded=None, semantic=rule))
                log(f"dev cosine {cosine} passage {passage}: {got}")
        return 0
    sets = [("translated from English", cases_of(documents, args.cases, args.planted, args.seed))]
    if args.po_tw is not None:
        independent = independent_cases(args.po, args.po_tw, documents, args.cases,
                                        args.planted, args.seed)  # fmt: skip
        sets.append(("against another team's traditional translation", independent))
    table, results = measured_table(sets, list(MODES), "theses")
    publish_table("semantic", "Translated copies", argv, args.po, table, {"results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
