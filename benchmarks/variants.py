"""Copies across traditional and simplified Chinese: ``check`` of theses holding a paragraph
copied from a source written in the other characters.

    python benchmarks/variants.py --bench ../shared/bench/visible      (or: make bench-variants)

Cases are made from the benchmark set's Chinese paragraphs (80-400 characters, at least 60%
CJK, not headings, code, tables, lists or quotations; deduplicated, shuffled with a fixed seed):
each case's thesis is five paragraphs with a sixth planted in the middle; its one source holds
two other paragraphs with the planted one converted by OpenCC between them, with each of
OpenCC's configurations: ``s2t`` (traditional), ``s2tw`` (Taiwan standard), ``s2hk`` (Hong
Kong standard), ``s2twp`` (Taiwan, with Taiwan's phrases: 软件 → 軟體, words change too). The
same cases are also checked the other way round: the whole thesis converted, its source left
simplified.

Measured per configuration and direction, with the default ``CheckOptions``: planted passages
found (at least half their characters inside a fragment), character recall of the planted
passages, characters reported outside them (false), and, beside it, the same with the
character folding switched off (``simdup.text.tokens`` as it was before: characters compared
as written) to show what the folding does.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path
from typing import Any

from common import DEFAULT_BENCH, log, markdown_table, publish_table

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.records import DecodedDocument

CONFIGS = ("s2t.json", "s2tw.json", "s2hk.json", "s2twp.json")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def paragraphs(docs: Path) -> list[str]:
    found = set()
    for path in sorted(docs.glob("*/*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # the set's re-encoded copies: their originals are there
        for block in text.split("\n\n"):
            block = block.strip()
            if not 80 <= len(block) <= 400 or block.startswith(("#", "`", "|", "-", ">", "!", "[")):
                continue
            if len(_CJK.findall(block)) >= 0.6 * len(block):
                found.add(block)
    ordered = sorted(found)
    random.Random(7).shuffle(ordered)
    return ordered


def _doc(text: str, path: str) -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode("utf-8")))


def run_cases(paras: list[str], convert: Any, cases: int, reverse: bool) -> dict[str, Any]:
    found = chars_found = chars_total = outside = 0
    for case in range(cases):
        own = paras[case * 8 : case * 8 + 5]
        planted = paras[case * 8 + 5]
        others = paras[case * 8 + 6 : case * 8 + 8]
        thesis_parts = [*own[:2], planted, *own[2:]]
        source_parts = [others[0], convert(planted), others[1]]
        if reverse:  # a traditional thesis, a simplified source
            thesis_parts = [convert(p) for p in thesis_parts]
            source_parts = [*others[:1], planted, *others[1:]]
            planted = convert(planted)
        thesis, source = "\n\n".join(thesis_parts), "\n\n".join(source_parts)
        corpus = Corpus(CheckOptions().rule, CheckOptions().reworded)
        corpus.add(_doc(source, "source.md"))
        result = check_document(_doc(thesis, "thesis.md"), corpus, CheckOptions())
        start = thesis.index(planted)
        end = start + len(planted)
        covered: set[int] = set()
        for f in result.fragments:
            covered.update(range(max(f.start, start), min(f.end, end)))
            outside += sum(1 for i in range(f.start, f.end) if not start <= i < end)
        found += len(covered) >= 0.5 * len(planted)
        chars_found += len(covered)
        chars_total += len(planted)
    return {
        "cases": cases,
        "found": found,
        "char_recall": round(chars_found / chars_total, 4),
        "chars_outside": outside,
    }


def measure(paras: list[str], cases: int) -> dict[str, Any]:
    import opencc

    import simdup.text.tokens as tokens

    rows: dict[str, Any] = {}
    for config in CONFIGS:
        convert = opencc.OpenCC(config).convert
        for reverse in (False, True):
            key = f"{config.removesuffix('.json')}{' reversed' if reverse else ''}"
            tokens._TABLES = None  # the folding as shipped
            folded = run_cases(paras, convert, cases, reverse)
            saved = tokens.simplified_forms
            tokens.simplified_forms = lambda: {}  # characters compared as written
            tokens._TABLES = None
            try:
                plain = run_cases(paras, convert, cases, reverse)
            finally:
                tokens.simplified_forms = saved
                tokens._TABLES = None
            rows[key] = {"folded": folded, "as_written": plain}
            log(f"{key}: {folded} (as written: {plain})")
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--cases", type=int, default=200, help="cases per configuration")
    args = ap.parse_args(argv)
    try:
        import opencc  # noqa: F401
    except ImportError:
        log('needs OpenCC to make the cases: pip install "opencc==1.4.2"')
        return 2
    paras = paragraphs(args.bench / "docs")
    cases = min(args.cases, len(paras) // 8)
    log(f"{len(paras)} Chinese paragraphs; {cases} cases per configuration and direction")
    rows = measure(paras, cases)
    table = markdown_table(
        ["OpenCC config", "direction", "passages found", "char recall", "chars outside",
         "as written: found", "as written: char recall"],
        [
            [key.split()[0], "traditional thesis, simplified source" if "reversed" in key
             else "simplified thesis, traditional source",
             f"{r['folded']['found']}/{r['folded']['cases']}", f"{r['folded']['char_recall']:.3f}",
             str(r["folded"]["chars_outside"]),
             f"{r['as_written']['found']}/{r['as_written']['cases']}",
             f"{r['as_written']['char_recall']:.3f}"]
            for key, r in rows.items()
        ],
    )  # fmt: skip
    title = "Traditional and simplified copies"
    publish_table("variants", title, argv, args.bench, table, {"cases": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
