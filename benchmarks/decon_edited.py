"""Lightly edited evaluation items, short and long (issue 50): ``decon``'s rule in process.

    python benchmarks/decon_edited.py [--bench ../shared/bench/visible] [--half 0|1]

Items from one half of ``decon.py``'s pools (its split: repositories and documentation topics),
clean text from the other: per language 100 *short* items (one sentence of 20-60 characters,
none whose words occur in the clean half: that would be a real contamination) and 50 *long*
ones (paragraphs of 150-700 characters), each planted verbatim, re-wrapped, embedded and
edited. Edited items go three ways in turn: 1-3 characters changed (Chinese: a character
replaced, deleted or inserted; English: a typo in a word), a clause dropped (between commas
or semicolons; else characters changed), or ``decon.py``'s edit. Clean rows: 9,000 rows of 1-3
clean paragraphs, plus, per item, the 3 clean sentences (short items) or paragraphs (long) that
share most words (English) or character pairs (Chinese) with it: same-topic text. ``--half``
scores the items of one half (even or odd numbers: dev and test); clean rows are all scored.
Printed per rule: found per size and kind, clean rows flagged (same-topic among them).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from decon import DEFAULT_BENCH, planted_rows, pools
from decon import edit as bench_edit

from simdup.algorithms.containment import ContainmentRule
from simdup.rows.decon.items import EvalIndex, EvalItem
from simdup.rows.decon.worker import items_in_rows

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[^\W_]+")


def sentences(paragraph: str, zh: bool) -> list[str]:
    flat = re.sub(r"\s+", "" if zh else " ", paragraph)
    parts = re.split(r"(?<=[。！？；])" if zh else r"(?<=[.!?;])\s+", flat)
    return [s.strip() for s in parts if 20 <= len(s.strip()) <= 60
            and (len(_CJK.findall(s)) > 0.6 * len(s) if zh else len(s.split()) >= 4)]  # fmt: skip


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 3:
        return word + rng.choice("aest")
    i = rng.randrange(len(word) - 1)
    what = rng.choice(("replace", "delete", "swap"))
    if what == "replace":
        return word[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + word[i + 1 :]
    if what == "delete":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def chars_changed(text: str, rng: random.Random, zh: bool) -> str:
    n = rng.randint(1, 3 if len(text) > 30 else 2)
    if zh:
        cjk = [m.start() for m in _CJK.finditer(text)]
        for at in sorted(rng.sample(cjk, min(n, len(cjk))), reverse=True):
            what = rng.choice(("replace", "delete", "insert"))
            ch = text[rng.choice(cjk)] if rng.random() < 0.5 else chr(rng.randint(0x4E00, 0x9FA5))
            text = text[:at] + ("" if what == "delete" else ch) + text[at + (what != "insert") :]
        return text
    words = [m.span() for m in re.finditer(r"[A-Za-z]+", text)]
    for lo, hi in sorted(rng.sample(words, min(n, len(words))), reverse=True):
        text = text[:lo] + typo(text[lo:hi], rng) + text[hi:]
    return text


def clause_dropped(text: str, rng: random.Random) -> str | None:
    parts = re.split(r"(?<=[，、,；;：:])", text)
    if len(parts) < 2:
        return None
    i = rng.randrange(len(parts))
    out = "".join(parts[:i] + parts[i + 1 :]).strip()
    return out if out and len(out) < len(text) else None


def edited(text: str, rng: random.Random, zh: bool, how: str) -> str:
    if how == "clause":
        out = clause_dropped(text, rng)
        if out is not None:
            return out
        how = "chars"
    return chars_changed(text, rng, zh) if how == "chars" else bench_edit(text, rng)


def _grams(text: str, zh: bool) -> set[Any]:
    t = text.lower()
    return set(zip(t, t[1:], strict=False)) if zh else set(_WORD.findall(t))


Rows = list[dict[str, Any]]


def build(bench: Path, seed: int, n_short: int = 100, n_long: int = 50,
          n_clean: int = 9000, topical: int = 3) -> tuple[Rows, Rows]:  # fmt: skip
    rng = random.Random(seed)
    pool = pools(bench)
    items: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []

    def norm(t: str) -> str:
        return " " + " ".join(_WORD.findall(t.lower())) + " "

    everything = "\n".join(norm(c) for c in pool["zh"]["clean"] + pool["en"]["clean"])
    for lang in ("zh", "en"):
        zh = lang == "zh"
        sents = sorted({s for p in pool[lang]["items"] for s in sentences(p, zh)})
        clean_sents = sorted({s for p in pool[lang]["clean"] for s in sentences(p, zh)})
        short = [s for s in rng.sample(sents, min(len(sents), 3 * n_short))
                 if norm(s) not in everything][:n_short]  # fmt: skip
        mine = [{"id": f"{lang}-s{i}", "text": t, "lang": lang, "size": "short"}
                for i, t in enumerate(short)]  # fmt: skip
        mine += [{"id": f"{lang}-l{i}", "text": t, "lang": lang, "size": "long"}
                 for i, t in enumerate(rng.sample(pool[lang]["items"], n_long))]  # fmt: skip
        by_sentence = [(s, _grams(s, zh)) for s in clean_sents]
        by_paragraph = [(s, _grams(s, zh)) for s in pool[lang]["clean"]]
        for it in mine:
            g = _grams(it["text"], zh)
            near = by_sentence if it["size"] == "short" else by_paragraph
            best = sorted(near, key=lambda c: -len(g & c[1]) / (len(g | c[1]) or 1))[:topical]
            rows += [{"text": s, "planted": None, "topical": it["id"]} for s, _ in best]
        items += mine
    clean = pool["zh"]["clean"] + pool["en"]["clean"]

    rows += planted_rows(
        items, clean, rng, lambda n, it, text: edited(text, rng, it["lang"] == "zh",
                                                      ("chars", "clause", "bench")[n % 3])
    )  # fmt: skip

    def filler(count: int) -> list[str]:
        return [rng.choice(clean) for _ in range(count)]

    while sum(r["planted"] is None for r in rows) < n_clean + topical * len(items):
        rows.append({"text": "\n\n".join(filler(rng.randint(1, 3))), "planted": None})
    return items, rows


def measure(items: list[dict[str, Any]], rows: list[dict[str, Any]], rule: ContainmentRule,
            half: int | None) -> str:  # fmt: skip
    evals = EvalIndex(rule)
    for it in items:
        evals.add(EvalItem(it["id"], "evals", None, None, None, it["text"]))
    index = evals.index
    started = time.perf_counter()
    found = [{items[f.item]["id"] for f in row}
             for row in items_in_rows([r["text"] for r in rows], index)]  # fmt: skip
    seconds = time.perf_counter() - started
    scored = {it["id"] for n, it in enumerate(items) if half is None or n % 2 == half}
    size = {it["id"]: it["size"] for it in items}
    counts: dict[tuple[str, str], list[int]] = {}
    for r, f in zip(rows, found, strict=True):
        if r["planted"] in scored:
            c = counts.setdefault((size[r["planted"]], r["kind"]), [0, 0])
            c[0] += r["planted"] in f
            c[1] += 1
    clean = [(r, f) for r, f in zip(rows, found, strict=True) if r["planted"] is None]
    flagged = sum(bool(f) for _, f in clean)
    near = sum(bool(f) for r, f in clean if r.get("topical"))
    cells = "  ".join(f"{s}/{k} {a}/{b}" for (s, k), (a, b) in sorted(counts.items()))
    return (f"edit similarity {rule.min_edit_similarity}, up to {rule.max_edit_tokens} tokens, "
            f"letters {rule.min_letter_similarity}, up to {rule.max_letter_edits} edits: "
            f"{cells}  clean flagged {flagged}/{len(clean)} (same-topic {near}/"
            f"{sum(1 for r, _ in clean if r.get('topical'))})  scan {seconds:.1f} s")  # fmt: skip


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=str(DEFAULT_BENCH))
    parser.add_argument("--seed", type=int, default=50)
    parser.add_argument("--half", type=int, choices=(0, 1), default=None)
    parser.add_argument("--rule", action="append", default=None,
                        metavar="SIMILARITY:TOKENS[:LETTER_SIMILARITY:LETTER_EDITS]",
                        help="default: 0.8:0 (the k-gram rule alone), 0.8:48:0.9:0 (and the "
                             "token edit rule) and 0.8:48:0.9:6 (and the letter rule: the "
                             "defaults)")  # fmt: skip
    args = parser.parse_args(argv)
    items, rows = build(Path(args.bench), args.seed)
    for spec in args.rule or ["0.8:0", "0.8:48:0.9:0", "0.8:48:0.9:6"]:
        similarity, tokens, *by_letters = spec.split(":")
        letter_similarity, letter_edits = by_letters or ("0.9", "6")
        rule = ContainmentRule(min_edit_similarity=float(similarity), max_edit_tokens=int(tokens),
                               min_letter_similarity=float(letter_similarity),
                               max_letter_edits=int(letter_edits))  # fmt: skip
        print(measure(items, rows, rule, args.half))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1:])
