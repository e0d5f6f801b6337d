"""Reworded copies: ``check`` of theses holding a passage of their source rewritten.

    python benchmarks/rewording.py --bench ../shared/bench/visible      (or: make bench-rewording)

No public rewording corpus ships here (PAN's and Clough & Stevenson's are read by
``benchmarks/check.py`` from paths), so cases are made, with a fixed seed, from real text:

- **zh**: Chinese paragraphs of the benchmark set (60-500 characters, at least 60% CJK, not
  headings, code, tables, lists or quotations), three consecutive ones of a document planted
  in the middle of four paragraphs of another; rewritten as 降重 services do, per sentence:
  clauses swapped, function words (的 了 也 都 就 所以 而且 ...) dropped and added, words
  replaced by other words of the same length from the set (a stand-in for synonyms that is
  harder: a synonym shares meaning, a random word nothing), neighbouring words swapped.
  ``light``: 15% of the words touched, ``heavy``: 35%.
- **summary** (both languages): six consecutive paragraphs of the source condensed into one,
  made of the first sentence of each, lightly reworded (15%): an extractive stand-in for a
  summary, whose case covers the six paragraphs in the source (as PAN's summary cases cover
  the source passage summarised).
- **en**: English paragraphs of Python's own documentation (``pydoc_data.topics``, real prose
  about the language), two consecutive ones planted; PAN's random obfuscation: words dropped,
  added, replaced by other words of the text and swapped with their neighbour, ``30%`` and
  ``50%`` of the words touched (PAN 2013's random-obfuscation cases keep 83% of their words and
  12% of their 4-word sequences; 30% here keeps about as many).

Each level also runs unchanged (``verbatim``) and without a planted passage (``none``: the
thesis against a source it holds nothing of, which counts false detections). Measured per
language and level, with the default ``CheckOptions`` and with ``--exact-only``: PAN's
character-level macro recall, precision, granularity and plagdet (``check.pan_measures``),
planted passages found (at least half of their characters), and milliseconds per check.

``--negatives N``: also the characters ``check`` reports on pairs of the labelled set's
documents that are not near-duplicates, N hard negatives (``labels.json``'s ``hard_negative``
pairs: shared templates, related text) and N random pairs of documents no label links (what a
real corpus mostly holds), one checked against the other; with ``--negatives-only`` nothing else.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from check import Annotation, pan_measures
from common import DEFAULT_BENCH, decode_anchor, log, markdown_table, publish_table

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.records import DecodedDocument

_CJK = re.compile(r"[\u4e00-\u9fff]")
_FUNCTION_WORDS = ["的", "了", "着", "也", "都", "就", "很", "非常", "所以", "因此", "而且",
                   "但是", "其实", "这样", "一些", "可以", "已经", "还"]  # fmt: skip
LEVELS = {"zh": {"light": 0.15, "heavy": 0.35}, "en": {"30%": 0.3, "50%": 0.5}}


def zh_documents(docs: Path) -> list[list[str]]:
    found = []
    for path in sorted(docs.glob("*/*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # the set's re-encoded copies: their originals are there
        paras = []
        for block in text.split("\n\n"):
            block = block.strip()
            if not 60 <= len(block) <= 500 or block.startswith(("#", "`", "|", "-", ">", "!", "[")):
                continue
            if len(_CJK.findall(block)) >= 0.6 * len(block):
                paras.append(block)
        if len(paras) >= 4:
            found.append(paras)
    return found


def en_documents() -> list[list[str]]:
    import pydoc_data.topics as topics

    found = []
    for text in topics.topics.values():
        paras = [
            p for p in re.sub(r"\n\s*\n", "\n\n", text).split("\n\n")
            if 200 <= len(p) <= 900 and not p.startswith((" ", "\t")) and p.count(".") >= 2
        ]  # fmt: skip
        if len(paras) >= 6:
            found.append(paras)
    return found


class Rewriter:
    def __init__(self, language: str, documents: list[list[str]], rng: random.Random) -> None:
        self.language = language
        self.rng = rng
        if language == "zh":
            import jieba

            jieba.setLogLevel(60)
            self.cut = jieba.lcut
            self.by_length: dict[int, list[str]] = {}
            for paras in documents[:200]:
                for p in paras:
                    for w in self.cut(p):
                        if _CJK.fullmatch(w):
                            self.by_length.setdefault(len(w), []).append(w)
        else:
            words = {w for paras in documents for p in paras for w in re.findall("[A-Za-z]{4,}", p)}
            self.vocabulary = sorted(words)

    def rewrite(self, text: str, share: float) -> str:
        return self._zh(text, share) if self.language == "zh" else self._en(text, share)

    def _zh(self, text: str, p: float) -> str:
        rng, out = self.rng, []
        for sentence in re.split(r"(?<=[。！？；])", text):
            clauses = re.split(r"(?<=，)", sentence)
            if len(clauses) > 2 and rng.random() < p:
                i = rng.randrange(len(clauses) - 2)
                clauses[i], clauses[i + 1] = clauses[i + 1], clauses[i]
            words = [w for c in clauses for w in self.cut(c)]
            new: list[str] = []
            i = 0
            while i < len(words):
                w, r = words[i], rng.random()
                if r < p * 0.25 and w in _FUNCTION_WORDS:
                    pass
                elif r < p * 0.45:
                    new += [rng.choice(_FUNCTION_WORDS), w]
                elif r < p * 0.75 and len(w) >= 2 and _CJK.match(w):
                    new.append(rng.choice(self.by_length.get(len(w), [w])))
                elif r < p and i + 1 < len(words):
                    new += [words[i + 1], w]
                    i += 1
                else:
                    new.append(w)
                i += 1
            out.append("".join(new))
        return "".join(out)

    def _en(self, text: str, p: float) -> str:
        rng, words, out = self.rng, text.split(), []
        i = 0
        while i < len(words):
            w, r = words[i], rng.random()
            if r < p * 0.2:
                pass
            elif r < p * 0.4:
                out += [w, rng.choice(self.vocabulary)]
            elif r < p * 0.6:
                out.append(rng.choice(self.vocabulary))
            elif r < p and i + 1 < len(words):
                out += [words[i + 1], w]
                i += 1
            else:
                out.append(w)
            i += 1
        return " ".join(out)


def _doc(text: str, path: str) -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode("utf-8")))


SUMMARY_PARAGRAPHS = 6


def _first_sentence(paragraph: str, language: str) -> str:
    ends = r"(?<=[。！？])" if language == "zh" else r"(?<=[.!?])\s+"
    return re.split(ends, paragraph.strip(), maxsplit=1)[0].strip()


def cases_of(
    language: str, documents: list[list[str]], count: int, seed: int
) -> list[dict[str, Any]]:
    """Planted cases (thesis, source, planted passage and its place in the source) for every
    level of ``language``, and for "verbatim" and "none"."""
    rng = random.Random(seed)
    rewriter = Rewriter(language, documents, rng)
    size = 3 if language == "zh" else 2
    out = []
    long_ones = [d for d in documents if len(d) >= SUMMARY_PARAGRAPHS]
    levels = [("verbatim", 0.0), *LEVELS[language].items(), ("summary", 0.15), ("none", 0.0)]
    for level, share in levels:
        for case in range(count):
            if level == "summary":
                own, source = rng.choice(documents), rng.choice(long_ones)
                at = rng.randrange(len(source) - SUMMARY_PARAGRAPHS + 1)
                original = source[at : at + SUMMARY_PARAGRAPHS]
                # The first sentence of each paragraph, lightly reworded, as one paragraph.
                firsts = [_first_sentence(p, language) for p in original]
                joiner = "" if language == "zh" else " "
                planted = joiner.join(rewriter.rewrite(f, share) for f in firsts)
            else:
                own, source = rng.sample(documents, 2)
                at = rng.randrange(len(source) - size + 1)
                original = source[at : at + size]
                planted = "\n\n".join(rewriter.rewrite(p, share) if share else p for p in original)
            parts = own[:4] if level == "none" else [*own[:2], planted, *own[2:4]]
            source_text = "\n\n".join(source)
            out.append({
                "language": language, "level": level, "name": f"{language}-{level}-{case}",
                "thesis": "\n\n".join(parts), "source": source_text,
                "planted": None if level == "none" else planted,
                "source_start": source_text.index(original[0]),
                "source_end": source_text.index(original[-1]) + len(original[-1]),
            })  # fmt: skip
    return out


def measure(cases: list[dict[str, Any]], options: CheckOptions) -> dict[str, dict[str, Any]]:
    by_level: dict[str, dict[str, Any]] = {}
    for case in cases:
        row = by_level.setdefault(case["level"], {
            "truth": set(), "detections": set(), "found": 0, "cases": 0, "seconds": 0.0,
            "false_detections": 0,
        })  # fmt: skip
        corpus = Corpus(options.rule, options.reworded)
        corpus.add(_doc(case["source"], "source"))
        started = time.perf_counter()
        result = check_document(_doc(case["thesis"], case["name"]), corpus, options)
        row["seconds"] += time.perf_counter() - started
        row["cases"] += 1
        for f in result.fragments:
            row["detections"].add(Annotation(case["name"], f.start, f.end - f.start, "source",
                                             f.source_start, f.source_end - f.source_start, True))
        if case["planted"] is None:
            row["false_detections"] += len(result.fragments)
            continue
        start = case["thesis"].index(case["planted"])
        end = start + len(case["planted"])
        row["truth"].add(Annotation(case["name"], start, end - start, "source",
                                    case["source_start"],
                                    case["source_end"] - case["source_start"], True))
        covered = sum(max(0, min(f.end, end) - max(f.start, start)) for f in result.fragments)
        row["found"] += covered >= 0.5 * (end - start)
    out = {}
    for level, row in by_level.items():
        figures: dict[str, Any] = {"cases": row["cases"],
                                   "ms_per_check": round(1000 * row["seconds"] / row["cases"], 2)}
        if row["truth"]:
            figures.update({k: round(v, 4) for k, v in pan_measures(row["truth"],
                                                                    row["detections"]).items()})
            figures["found"] = row["found"]
        else:
            figures["false_detections"] = row["false_detections"]
            figures["false_characters"] = sum(d.tlen for d in row["detections"])
        out[level] = figures
    return out


def negative_pairs(bench: Path, count: int, seed: int) -> list[tuple[str, str, str]]:
    """``count`` hard negatives and ``count`` random pairs no label links, as (kind, a, b)
    paths under ``bench``; each document read once as it was written (re-encoded copies of
    another document left out: their originals are there)."""
    labels = json.loads((bench / "labels.json").read_text(encoding="utf-8"))
    documents = sorted(d["path"] for d in labels["documents"] if not d.get("reencoded_from"))
    known = set(documents)
    linked = {frozenset((p["a"], p["b"])) for p in labels["pairs"]}
    hard = sorted(
        (p["a"], p["b"]) for p in labels["pairs"]
        if p["kind"] == "hard_negative" and p["a"] in known and p["b"] in known
    )  # fmt: skip
    rng = random.Random(seed)
    chosen = [("hard negative", a, b) for a, b in rng.sample(hard, min(count, len(hard)))]
    randoms: set[tuple[str, str]] = set()
    while len(randoms) < count:
        a, b = rng.sample(documents, 2)
        if frozenset((a, b)) not in linked:
            randoms.add((a, b))
    return chosen + [("random", a, b) for a, b in sorted(randoms)]


def measure_negatives(
    bench: Path, pairs: list[tuple[str, str, str]], options: CheckOptions
) -> dict[str, dict[str, int]]:
    """Per kind of pair: pairs, those with a fragment reported, and the characters of the
    checked document inside a reported fragment (each character once)."""
    texts: dict[str, str] = {}

    def text_of(path: str) -> str:
        if path not in texts:
            texts[path] = decode_anchor((bench / path).read_bytes())[0]
        return texts[path]

    out: dict[str, dict[str, int]] = {}
    for kind, a, b in pairs:
        row = out.setdefault(kind, {"pairs": 0, "pairs_reported": 0, "characters": 0})
        corpus = Corpus(options.rule, options.reworded)
        corpus.add(_doc(text_of(b), b))
        result = check_document(_doc(text_of(a), a), corpus, options)
        covered = np.zeros(len(text_of(a)), dtype=bool)
        for f in result.fragments:
            covered[f.start : f.end] = True
        row["pairs"] += 1
        row["pairs_reported"] += bool(result.fragments)
        row["characters"] += int(covered.sum())
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/)")
    ap.add_argument("--cases", type=int, default=100, help="cases per language and level")
    ap.add_argument("--seed", type=int, default=35)
    pairs_help = "also this many hard-negative and random pairs of the labelled set"
    ap.add_argument("--negatives", type=int, default=0, help=pairs_help)
    only_help = "only the pairs of --negatives (default 300), no planted cases"
    ap.add_argument("--negatives-only", action="store_true", help=only_help)
    args = ap.parse_args(argv)
    results: dict[str, Any] = {}
    rows = []
    languages = () if args.negatives_only else ("zh", "en")
    for language in languages:
        documents = zh_documents(args.bench / "docs") if language == "zh" else en_documents()
        cases = cases_of(language, documents, args.cases, args.seed)
        log(f"{language}: {len(documents)} documents, {len(cases)} cases")
        for name, options in (("default", CheckOptions()),
                              ("--exact-only", CheckOptions(reworded=None))):  # fmt: skip
            figures = measure(cases, options)
            results[f"{language} {name}"] = figures
            for level, f in figures.items():
                log(f"{language} {name} {level}: {f}")
                if "plagdet" in f:
                    rows.append([language, level, name, f"{f['plagdet']:.3f}", f"{f['recall']:.3f}",
                                 f"{f['precision']:.3f}", f"{f['granularity']:.2f}",
                                 f"{f['found']}/{f['cases']}", "", f"{f['ms_per_check']:.1f}"])
                else:
                    rows.append([language, level, name, "", "", "", "", "",
                                 f"{f['false_detections']} ({f['false_characters']} chars)",
                                 f"{f['ms_per_check']:.1f}"])  # fmt: skip
    negatives = args.negatives or (300 if args.negatives_only else 0)
    if negatives:
        pairs = negative_pairs(args.bench, negatives, args.seed)
        for name, options in (("default", CheckOptions()),
                              ("--exact-only", CheckOptions(reworded=None))):  # fmt: skip
            figures = measure_negatives(args.bench, pairs, options)
            results[f"negatives {name}"] = figures
            for kind, f in figures.items():
                log(f"negatives {name} {kind}: {f}")
                rows.append(["set", f"{kind} pairs", name, "", "", "", "", "",
                             f"{f['pairs_reported']}/{f['pairs']} pairs "
                             f"({f['characters']} chars)", ""])  # fmt: skip
    table = markdown_table(
        ["language", "level", "check", "plagdet", "recall", "precision", "granularity",
         "planted found", "false detections (none)", "ms per check"], rows)  # fmt: skip
    publish_table("rewording", "Reworded copies", argv, args.bench, table, {"results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
