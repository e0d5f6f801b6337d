"""Repeated-span benchmark (issue 38): ``simdup dedup --spans paragraph`` on rows with planted
repeated paragraphs and boilerplate.

    python benchmarks/spans.py --bench ../shared/bench/visible        (or: make bench-spans)
    python benchmarks/spans.py --rows 1000000 --repeat 1              (the 10^6-row run)

Real text only: prose paragraphs (150-700 characters) of the set's documents, Chinese or
English, and English paragraphs of Python's documentation (``pydoc_data.topics``), split in
two halves (as ``decon.py`` splits them). Each row (``--rows``, default 100,000) has 1-3
*filler* paragraphs made of 1-3 real sentences of the first half, drawn at random, each
paragraph unique in the dataset (checked by its folded text), so no filler paragraph repeats.
Planted at known places:

- ``repeated``: ``--planted`` real paragraphs of the second half (default 2,000; half Chinese
  where there are enough), each in 2-40 rows at a random place among the row's paragraphs; a
  third of the copies re-wrapped (a line break every 30-70 characters) and a sixth upper-cased
  (English) or with full-width punctuation turned half-width (Chinese): the same paragraph to
  a reader;
- ``boilerplate``: a navigation block (eight links on lines, one paragraph) at the top of 30%
  of the rows, an English licence paragraph at the bottom of 20%, a Chinese copyright notice at
  the bottom of 10%;
- ``short``: a line too short to be a span ("Read more", "返回顶部", under 50 characters) as a
  paragraph of its own in 25% of the rows: never to be removed.

The rows are written as one ``rows.jsonl``; the expected text of each row is its paragraphs
without every planted copy but the first in dataset order, joined by blank lines. simdup runs
in a fresh process (``run_measured``: wall time, peak PSS of the process tree), ``--repeat``
times alternating with a plain Python baseline (``json.loads``, paragraphs split at blank lines,
a dict of the exact stripped paragraph -> first row, rows re-serialised: what dolma's paragraph
dedup and most scripts do; it misses re-wrapped and re-cased copies). Printed per contender:
planted later copies removed (recall), first copies kept, filler or short paragraphs removed
(false removals), rows exactly as expected, median seconds, rows/s and peak PSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import xxhash
from common import (
    DEFAULT_BENCH,
    fmt,
    log,
    markdown_table,
    median,
    publish_table,
)
from decon import is_chinese, pools
from measured import (
    run_measured,
)

NAV = "\n".join(["Home", "News", "Products", "Documentation", "Community", "Blog", "About us",
                 "Contact"])  # fmt: skip
LICENCE = (
    "This page is licensed under the Creative Commons Attribution 4.0 International License. "
    "You may share and adapt it for any purpose, even commercially, provided you give "
    "appropriate credit and indicate if changes were made."
)
ZH_NOTICE = "版权声明：本站所有文章除特别声明外，均采用署名-非商业性使用-相同方式共享许可协议，转载请注明出处并保留原文链接。"  # noqa: E501
SHORT = ["Read more", "返回顶部", "Share this page", "上一篇", "Back to top"]
_SENTENCE = re.compile(r"[^。！？.!?]+(?:[。！？]|[.!?](?=\s|$))")
_FOLD = re.compile(r"[\W_]+")

BASELINE = r"""
import json, sys
src, out = sys.argv[1:3]
first = {}
with open(src, encoding="utf-8") as fh, open(out, "w", encoding="utf-8") as dst:
    for n, line in enumerate(fh):
        row = json.loads(line)
        kept = []
        for p in row["text"].split("\n\n"):
            key = p.strip()
            if len(key) >= 50 and first.setdefault(key, n) != n:
                continue
            if len(key) >= 50 and key in kept:
                continue
            kept.append(p)
        row["text"] = "\n\n".join(kept)
        dst.write(json.dumps(row, ensure_ascii=False) + "\n")
"""


def _folded(text: str) -> bytes:
    """A paragraph's folded text (NFKC, case, runs of non-word characters), hashed: two
    paragraphs with the same are the same paragraph to any reader (and to simdup)."""
    folded = _FOLD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return xxhash.xxh3_64_digest(folded.encode("utf-8", "surrogatepass"))


def _distinct(paragraphs: list[str]) -> list[str]:
    """``paragraphs`` without those whose folded text an earlier one has (the set holds
    revisions of one file: the same paragraph, re-spaced, is no second paragraph)."""
    seen: set[bytes] = set()
    out = []
    for p in paragraphs:
        key = _folded(p)
        if key not in seen and "\ufffd" not in p:
            seen.add(key)
            out.append(p)
    return out


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(paragraph.replace("\n", " ")) if s.strip()]


_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")


def _rewrap(text: str, rng: random.Random) -> str:
    """The paragraph with its line breaks moved: one every 30-70 characters, at a space, or
    between two CJK characters (where a reader sees no break either); never inside a word."""
    flat = re.sub(r"(?<=[\u4e00-\u9fff])\s*\n\s*(?=[\u4e00-\u9fff])", "", text)
    flat = re.sub(r"\s*\n\s*", " ", flat)
    pieces, at = [], 0
    while at < len(flat):
        stop = min(len(flat), at + rng.randint(30, 70))
        while stop < len(flat) and not (
            flat[stop] == " " or (_CJK_CHAR.match(flat[stop - 1]) and _CJK_CHAR.match(flat[stop]))
        ):
            stop += 1
        pieces.append(flat[at:stop].strip())
        at = stop
    return "\n".join(p for p in pieces if p)


def _variant(text: str, rng: random.Random) -> str:
    chinese = is_chinese(text)
    roll = rng.random()
    if roll < 1 / 3:
        return _rewrap(text, rng)
    if roll < 1 / 2:
        return text.replace("，", ",").replace("。", ".") if chinese else text.upper()
    return text


def build(folder: Path, bench: Path, n_rows: int, n_planted: int, seed: int) -> dict[str, Any]:
    """rows.jsonl and truth.jsonl (per row: its paragraphs with their role, and whether each
    is to be kept)."""
    rng = random.Random(seed)
    pool = pools(bench)
    sentences = {lang: [s for p in pool[lang]["clean"] for s in _sentences(p) if len(s) >= 8]
                 for lang in ("zh", "en")}  # fmt: skip
    items = {lang: _distinct(pool[lang]["items"]) for lang in ("zh", "en")}
    half = min(n_planted // 2, len(items["zh"]))
    planted = rng.sample(items["zh"], half) + rng.sample(
        items["en"], min(n_planted - half, len(items["en"]))
    )
    planted = _distinct(planted)
    # Which rows get each planted paragraph (2-40 copies, smaller counts likelier).
    places: dict[int, list[int]] = {}
    for k in range(len(planted)):
        copies = min(n_rows, int(2 + 38 * rng.random() ** 2))
        for row in rng.sample(range(n_rows), copies):
            places.setdefault(row, []).append(k)
    seen_filler: set[bytes] = {_folded(p) for p in planted}
    seen_planted: set[int] = set()
    counts = {"planted_copies": 0, "planted_first": 0, "boilerplate_rows": 0, "filler": 0,
              "short": 0, "chars": 0}  # fmt: skip
    boiler_first = {"nav": True, "licence": True, "zh": True}
    with open(folder / "rows.jsonl", "w", encoding="utf-8") as out, \
            open(folder / "truth.jsonl", "w", encoding="utf-8") as truth:  # fmt: skip
        for n in range(n_rows):
            parts: list[tuple[str, str, bool]] = []  # text, role, kept
            for _ in range(rng.randint(1, 3)):
                lang = "zh" if rng.random() < 0.4 else "en"
                while True:
                    chosen = rng.sample(sentences[lang], rng.randint(1, 3))
                    para = ("" if lang == "zh" else " ").join(chosen)
                    key = _folded(para)
                    if len(para) >= 20 and key not in seen_filler:
                        seen_filler.add(key)
                        break
                parts.append((para, "filler", True))
                counts["filler"] += 1
            for k in places.get(n, []):
                first = k not in seen_planted
                seen_planted.add(k)
                text = planted[k] if first else _variant(planted[k], rng)
                parts.insert(rng.randint(0, len(parts)), (text, "planted", first))
                counts["planted_copies"] += 1
                counts["planted_first"] += first
            if rng.random() < 0.25:
                parts.insert(rng.randint(0, len(parts)), (rng.choice(SHORT), "short", True))
                counts["short"] += 1
            for name, text, share, top in (("nav", NAV, 0.3, True), ("licence", LICENCE, 0.2,
                                           False), ("zh", ZH_NOTICE, 0.1, False)):  # fmt: skip
                if rng.random() < share:
                    at = 0 if top else len(parts)
                    parts.insert(at, (text, "boilerplate", boiler_first[name]))
                    counts["planted_copies"] += 1
                    counts["planted_first"] += boiler_first[name]
                    boiler_first[name] = False
            text = "\n\n".join(t for t, _, _ in parts)
            counts["chars"] += len(text)
            out.write(json.dumps({"id": f"r{n}", "text": text}, ensure_ascii=False) + "\n")
            truth.write(json.dumps(parts, ensure_ascii=False) + "\n")
    counts["planted"] = len(planted)
    counts["sentences"] = {lang: len(v) for lang, v in sentences.items()}
    return counts


def score(folder: Path, output: Path) -> dict[str, Any]:
    """Planted later copies removed, first copies kept, other paragraphs removed, rows exact."""
    got: dict[str, str] = {}
    with open(output, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            got[row["id"]] = row["text"]
    later = removed = first = first_kept = others = others_removed = exact = rows = 0
    with open(folder / "truth.jsonl", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            parts = json.loads(line)
            text = got.get(f"r{n}", "")
            rows += 1
            kept_paragraphs = set(text.split("\n\n"))
            for para, role, keep in parts:
                present = para in kept_paragraphs
                if role in ("planted", "boilerplate"):
                    if keep:
                        first += 1
                        first_kept += present
                    else:
                        later += 1
                        removed += not present
                else:
                    others += 1
                    others_removed += not present
            exact += text == "\n\n".join(p for p, _, keep in parts if keep)
    return {
        "recall": removed / later if later else float("nan"),
        "later_copies": later,
        "first_kept": first_kept / first if first else float("nan"),
        "false_removals": others_removed,
        "other_paragraphs": others,
        "rows_exact": exact / rows,
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=str(DEFAULT_BENCH))
    parser.add_argument("--rows", type=float, default=100_000)
    parser.add_argument("--planted", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    n_rows = int(args.rows)
    with tempfile.TemporaryDirectory(prefix="simdup-bench-spans-") as tmp:
        folder = Path(tmp)
        log(f"building {n_rows:,} rows with {args.planted} planted paragraphs in {folder}")
        made = build(folder, Path(args.bench), n_rows, args.planted, args.seed)
        size = os.path.getsize(folder / "rows.jsonl")
        (folder / "baseline.py").write_text(BASELINE, encoding="utf-8")
        commands = {
            "simdup dedup --spans paragraph": [
                sys.executable, "-m", "simdup", "dedup", str(folder / "rows.jsonl"), "-o",
                str(folder / "simdup.jsonl"), "--spans", "paragraph", "--removed",
                str(folder / "removed.jsonl"), "-q",
                *(["-j", str(args.jobs)] if args.jobs else []),
            ],
            "exact paragraph dict (Python)": [
                sys.executable, str(folder / "baseline.py"), str(folder / "rows.jsonl"),
                str(folder / "baseline.jsonl"),
            ],
        }  # fmt: skip
        outputs = {"simdup dedup --spans paragraph": folder / "simdup.jsonl",
                   "exact paragraph dict (Python)": folder / "baseline.jsonl"}  # fmt: skip
        if args.no_baseline:
            del commands["exact paragraph dict (Python)"]
        times: dict[str, list[float]] = {name: [] for name in commands}
        pss: dict[str, list[float]] = {name: [] for name in commands}
        for r in range(args.repeat):
            for name in list(commands) if r % 2 == 0 else list(reversed(commands)):
                m = run_measured(commands[name])
                if m.returncode != 0:
                    raise SystemExit(f"{name} failed: {m.stderr[-2000:]}")
                times[name].append(m.seconds)
                pss[name].append(m.tree_peak_pss_mb or 0.0)
                log(f"round {r + 1}: {name} {m.seconds:.1f} s, peak PSS "
                    f"{m.tree_peak_pss_mb or 0:.0f} MB")  # fmt: skip
        results = {
            name: {**score(folder, outputs[name]), "seconds": median(times[name]),
                   "runs": times[name], "peak_pss_mb": max(pss[name])}
            for name in commands
        }  # fmt: skip
        with open(folder / "removed.jsonl", encoding="utf-8") as fh:
            records = sum(1 for _ in fh)
    table = markdown_table(
        ["contender", "planted later copies removed", "first copies kept",
         "false removals", "rows exact", "median s", "rows/s", "peak PSS MB"],
        [
            [name, fmt(res["recall"], 4), fmt(res["first_kept"], 4),
             f"{res['false_removals']} of {res['other_paragraphs']:,}", fmt(res["rows_exact"], 4),
             fmt(res["seconds"], 1), f"{n_rows / res['seconds']:,.0f}",
             f"{res['peak_pss_mb']:,.0f}"]
            for name, res in results.items()
        ],
    )  # fmt: skip
    table += (
        f"\n\n{n_rows:,} rows ({size / 1e6:.0f} MB of JSON Lines, {made['chars']:,} characters): "
        f"{made['planted']} planted paragraphs and 3 boilerplate blocks in "
        f"{made['planted_copies']:,} copies ({made['planted_copies'] - made['planted_first']:,} "
        f"to remove), {made['filler']:,} unique filler paragraphs, {made['short']:,} short "
        f"lines; simdup wrote {records:,} --removed records. Median of {args.repeat} "
        f"alternating runs, each a fresh process on {os.cpu_count()} cores; peak PSS of the "
        "process tree (workers included)."
    )
    publish_table("spans", "Repeated spans (issue 38)", argv, args.bench, table,
                  {"results": results, "made": made})  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
