"""Decontamination benchmark (issue 38): ``simdup decon`` against a whitespace 13-gram baseline.

    python benchmarks/decon.py --bench ../shared/bench/visible        (or: make bench-decon)

Real text only. Paragraphs (150-700 characters, prose: no code fences) of the set's documents,
Chinese or English by their share of CJK characters, and English paragraphs of Python's own
documentation (``pydoc_data.topics``, shipped with Python). The set's repositories are split in
two, and so are the documentation's topics: evaluation items come from one half, the clean
text of the training rows from the other (the set holds revisions of one file; an item and a
"clean" row from one file's history would be a real contamination, not a false positive).

``--items`` items per language (default 150) are planted, each once in each of four ways, in
rows of a training set of ``--rows`` rows (default 100,000, ~105 MB: a training set's size
class, where start-up is a small share; each row 1-5 clean paragraphs):

- ``verbatim``: a row that is the item;
- ``rewrapped``: the item with its line breaks moved (a break every 30-70 characters, at a
  space for English, between any two characters for Chinese), inside clean text;
- ``embedded``: the item between clean paragraphs of a longer row (joined by one space);
- ``edited``: the item lightly edited (one edit per 20 tokens on average: a word or CJK
  character replaced by another of the item, deleted, or doubled; punctuation and case of the
  first letter changed), then embedded.

The set is written as one ``train.jsonl`` in a temporary folder; after one untimed run of
simdup (its bytecode compiled and cached there, as an installed package has it), each
contender runs in a fresh process, alternating over ``--repeat`` rounds: ``simdup decon
train.jsonl --evals evals.jsonl -o clean.jsonl --report report.jsonl -q`` (defaults), and the
baseline: one Python process, the usual tools: ``json.loads`` per row,
``text.lower().split()``, the set of every item's whitespace 13-gram tuples, a row flagged when
one of its 13-grams is in the set (an item of fewer than 13 words: when its whole word sequence
is), the clean rows written.
Printed: recall per kind and language, false-positive rows (a flagged row with no planted
item) and their share of the clean rows, median seconds, rows/s and the speed ratio, and the
median CPU seconds (user + system, workers included) and their ratio: on shared cores the wall
time of a run depends on what else runs, its CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    bench_folders,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    publish_table,
)

KINDS = ("verbatim", "rewrapped", "embedded", "edited")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[^\W_]+")

BASELINE = r"""
import json, sys
evals, train, out = sys.argv[1:4]
N = 13
grams, whole = set(), set()
for line in open(evals, encoding="utf-8"):
    words = json.loads(line)["text"].lower().split()
    if len(words) < N:
        whole.add(tuple(words))
    for g in zip(*(words[i:] for i in range(N))):
        grams.add(g)
flagged = 0
with open(train, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
    for line in src:
        words = json.loads(line)["text"].lower().split()
        hit = any(g in grams for g in zip(*(words[i:] for i in range(N))))
        if not hit and whole:
            joined = " " + " ".join(words) + " "
            hit = any(" " + " ".join(w) + " " in joined for w in whole)
        if hit:
            flagged += 1
            print(json.loads(line)["id"])
        else:
            dst.write(line)
"""


def paragraphs(text: str) -> list[str]:
    """Prose paragraphs of 150-700 characters (no code blocks, tables or headings)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    found = []
    for part in re.split(r"\n\s*\n", text):
        part = part.strip()
        if not 150 <= len(part) <= 700 or part.startswith(("#", "|", "    ", ">", "<")):
            continue
        found.append(part)
    return found


def is_chinese(text: str) -> bool:
    return len(_CJK.findall(text)) > 0.3 * len(text)


def pools(bench: Path) -> dict[str, dict[str, list[str]]]:
    """``{"zh"|"en": {"items": [...], "clean": [...]}}``: paragraphs from two disjoint halves."""
    docs, labels = bench_folders(bench)
    repo_of = {}
    if labels.is_file():
        for d in json.loads(labels.read_text("utf-8"))["documents"]:
            repo_of[d["path"]] = d.get("repo") or d["path"]
    out: dict[str, dict[str, list[str]]] = {
        lang: {"items": [], "clean": []} for lang in ("zh", "en")
    }
    seen: set[str] = set()
    for path in list_docs(docs):
        name = path.relative_to(docs.parent).as_posix()
        half = "items" if zlib.crc32(repo_of.get(name, name).encode()) % 2 else "clean"
        for p in paragraphs(path.read_text("utf-8", errors="replace")):
            if p in seen:
                continue
            seen.add(p)
            out["zh" if is_chinese(p) else "en"][half].append(p)
    from pydoc_data.topics import topics

    for key in sorted(topics):
        half = "items" if zlib.crc32(key.encode()) % 2 else "clean"
        for p in paragraphs(topics[key]):
            if p not in seen and not is_chinese(p):
                seen.add(p)
                out["en"][half].append(p)
    return out


def rewrap(text: str, rng: random.Random, chinese: bool) -> str:
    flat = re.sub(r"\s*\n\s*", "" if chinese else " ", text)
    pieces, at = [], 0
    while at < len(flat):
        step = rng.randint(30, 70)
        cut = min(len(flat), at + step)
        if not chinese:
            space = flat.rfind(" ", at + 1, cut)
            if cut < len(flat) and space > at:
                cut = space
        pieces.append(flat[at:cut].strip())
        at = cut
    return "\n".join(p for p in pieces if p)


def edit(text: str, rng: random.Random) -> str:
    """One edit per 20 tokens on average: a token replaced by another of the text, deleted or
    doubled; a comma dropped or added; the first letter's case changed."""
    spans = [m.span() for m in _TOKEN.finditer(text)]
    edits = max(1, round(len(spans) / 20))
    chosen = sorted(rng.sample(range(len(spans)), min(edits, len(spans))), reverse=True)
    for k in chosen:
        lo, hi = spans[k]
        what = rng.choice(("replace", "delete", "double"))
        other = text[slice(*spans[rng.randrange(len(spans))])]
        if what == "replace":
            text = text[:lo] + other + text[hi:]
        elif what == "delete":
            text = text[:lo] + text[hi:]
        else:
            text = text[:hi] + " " + text[lo:hi] + text[hi:]
    text = text.replace("，", ",", 1) if "，" in text else text.replace(",", "", 1)
    return text[:1].swapcase() + text[1:]


def planted_rows(
    items: list[dict[str, Any]],
    clean: list[str],
    rng: random.Random,
    edit_item: Callable[[int, dict[str, Any], str], str],
) -> list[dict[str, Any]]:
    """Each item planted once of each kind in ``KINDS`` among clean text: verbatim, re-wrapped,
    embedded, and edited by ``edit_item(n, item, text)`` (the n-th item)."""

    def filler(count: int) -> list[str]:
        return [rng.choice(clean) for _ in range(count)]

    rows: list[dict[str, Any]] = []
    for n, it in enumerate(items):
        zh = it["lang"] == "zh"
        sep = "" if zh else " "
        for kind in KINDS:
            text = it["text"]
            if kind == "rewrapped":
                text = "\n\n".join([*filler(1), rewrap(text, rng, zh)])
            elif kind == "embedded":
                text = sep.join([*filler(rng.randint(1, 2)), text, *filler(rng.randint(1, 2))])
            elif kind == "edited":
                text = sep.join([*filler(1), edit_item(n, it, text), *filler(1)])
            rows.append({"text": text, "planted": it["id"], "kind": kind})
    return rows


def build(folder: Path, bench: Path, n_rows: int, n_items: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    pool = pools(bench)
    items: list[dict[str, Any]] = []
    for lang in ("zh", "en"):
        chosen = rng.sample(pool[lang]["items"], min(n_items, len(pool[lang]["items"])))
        items += [{"id": f"{lang}-{i}", "text": t, "lang": lang} for i, t in enumerate(chosen)]
    clean = pool["zh"]["clean"] + pool["en"]["clean"]
    rows = planted_rows(items, clean, rng, lambda n, item, text: edit(text, rng))

    def filler(count: int) -> list[str]:
        return [rng.choice(clean) for _ in range(count)]

    while len(rows) < n_rows:
        rows.append({"text": "\n\n".join(filler(rng.randint(1, 5))), "planted": None})
    rng.shuffle(rows)
    with open(folder / "train.jsonl", "w", encoding="utf-8") as fh:
        for n, row in enumerate(rows):
            fh.write(json.dumps({"id": f"r{n}", "text": row["text"]}, ensure_ascii=False) + "\n")
    with open(folder / "evals.jsonl", "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps({"id": it["id"], "text": it["text"]}, ensure_ascii=False) + "\n")
    truth = {f"r{n}": (row["planted"], row.get("kind")) for n, row in enumerate(rows)}
    chars = sum(len(r["text"]) for r in rows)
    return {
        "truth": truth,
        "items": {it["id"]: it["lang"] for it in items},
        "chars": chars,
        "pools": {lang: {k: len(v) for k, v in p.items()} for lang, p in pool.items()},
    }


def _env(folder: Path) -> dict[str, str]:
    """The contenders' environment: Python's bytecode cached (in the temporary folder), as an
    installed package has it, even where PYTHONDONTWRITEBYTECODE is set."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(folder / "pycache")}


def _child_cpu() -> float:
    """User + system seconds of the finished child processes (and theirs) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_simdup(folder: Path, jobs: int | None) -> tuple[float, float, set[str]]:
    cmd = [
        sys.executable,
        "-m",
        "simdup",
        "decon",
        str(folder / "train.jsonl"),
        "--evals",
        str(folder / "evals.jsonl"),
        "-o",
        str(folder / "clean.jsonl"),
        "--report",
        str(folder / "report.jsonl"),
        "-q",
    ] + (["-j", str(jobs)] if jobs else [])
    cpu, started = _child_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True, env=_env(folder))
    seconds, cpu = time.perf_counter() - started, _child_cpu() - cpu
    flagged = set()
    with open(folder / "report.jsonl", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["type"] == "item":
                flagged.update(r["key"] for r in record["rows"])
    return seconds, cpu, flagged


def run_baseline(folder: Path) -> tuple[float, float, set[str]]:
    script = folder / "baseline.py"
    script.write_text(BASELINE, encoding="utf-8")
    cmd = [
        sys.executable,
        str(script),
        str(folder / "evals.jsonl"),
        str(folder / "train.jsonl"),
        str(folder / "baseline-clean.jsonl"),
    ]
    cpu, started = _child_cpu(), time.perf_counter()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=_env(folder))
    seconds, cpu = time.perf_counter() - started, _child_cpu() - cpu
    return seconds, cpu, set(done.stdout.split())


def score(flagged: set[str], made: dict[str, Any]) -> dict[str, Any]:
    truth, langs = made["truth"], made["items"]
    found: dict[str, list[int]] = {}
    false_rows = 0
    for key, (item, kind) in truth.items():
        if item is None:
            false_rows += key in flagged
            continue
        found.setdefault(f"{kind}/{langs[item]}", []).append(key in flagged)
    clean = sum(1 for item, _ in truth.values() if item is None)
    recall = {k: sum(v) / len(v) for k, v in sorted(found.items())}
    planted = [x for v in found.values() for x in v]
    return {
        "recall": recall,
        "recall_all": sum(planted) / len(planted),
        "recall_zh": _share(found, "zh"),
        "recall_en": _share(found, "en"),
        "false_rows": false_rows,
        "clean_rows": clean,
        "false_share": false_rows / clean,
    }


def _share(found: dict[str, list[int]], lang: str) -> float:
    values = [x for k, v in found.items() if k.endswith(lang) for x in v]
    return sum(values) / len(values) if values else float("nan")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=str(DEFAULT_BENCH))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("-j", "--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="simdup-bench-decon-") as tmp:
        folder = Path(tmp)
        log(f"building {args.rows} rows with {args.items} items per language in {folder}")
        made = build(folder, Path(args.bench), args.rows, args.items, args.seed)
        size = os.path.getsize(folder / "train.jsonl")
        run_simdup(folder, args.jobs)  # untimed: bytecode compiled and cached, files read once
        times: dict[str, list[float]] = {"simdup decon": [], "whitespace 13-gram": []}
        cpus: dict[str, list[float]] = {name: [] for name in times}
        flagged: dict[str, set[str]] = {}
        for r in range(args.repeat):
            order = list(times) if r % 2 == 0 else list(reversed(times))
            for name in order:
                seconds, cpu, found = (
                    run_simdup(folder, args.jobs)
                    if name == "simdup decon"
                    else run_baseline(folder)
                )
                times[name].append(seconds)
                cpus[name].append(cpu)
                flagged[name] = found
                log(f"round {r + 1}: {name} {seconds:.2f} s ({cpu:.2f} s of CPU), "
                    f"{len(found)} rows flagged")  # fmt: skip
    rows = len(made["truth"])
    results = {
        name: {
            **score(flagged[name], made),
            "seconds": median(times[name]),
            "runs": times[name],
            "cpu_seconds": median(cpus[name]),
            "cpu_runs": cpus[name],
        }
        for name in times
    }
    base = results["whitespace 13-gram"]["seconds"]
    base_cpu = results["whitespace 13-gram"]["cpu_seconds"]
    table_rows = []
    kinds = [f"{k}/{lang}" for k in KINDS for lang in ("zh", "en")]
    for name, res in results.items():
        table_rows.append(
            [
                name,
                *[fmt(res["recall"].get(k), 3) for k in kinds],
                fmt(res["recall_all"]),
                f"{res['false_rows']} ({100 * res['false_share']:.3f}%)",
                fmt(res["seconds"], 2),
                f"{rows / res['seconds']:,.0f}",
                fmt(base / res["seconds"], 2),
                fmt(res["cpu_seconds"], 2),
                fmt(base_cpu / res["cpu_seconds"], 2),
            ]
        )
    table = markdown_table(
        [
            "contender",
            *kinds,
            "recall",
            "false-positive rows",
            "median s",
            "rows/s",
            "speed vs baseline",
            "median CPU s",
            "CPU vs baseline",
        ],
        table_rows,
    )
    table += (
        f"\n\n{rows:,} rows ({size / 1e6:.1f} MB of JSON Lines, {made['chars']:,} characters), "
        f"{len(made['items'])} items ({args.items} per language), each planted 4 ways; "
        f"{results['simdup decon']['clean_rows']:,} clean rows. Median of {args.repeat} "
        f"alternating runs, each a fresh process on {os.cpu_count()} cores (CPU: user + "
        "system seconds of the process and its workers). Paragraph pools: "
        f"{made['pools']}."
    )
    publish_table(
        "decon", "Decontamination (issue 38)", argv, args.bench, table, {"results": results}
    )


if __name__ == "__main__":
    main(sys.argv[1:])
