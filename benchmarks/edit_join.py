"""The edit-similarity join of short texts against every pair: recall and time at 10^4 to 10^5.

    python benchmarks/edit_join.py --bench ../shared/bench/visible [--compare ../main]

Issue 50: the join (``simdup.algorithms.edit_join``) found 80% of the typo copies of 50,000
English lines: a q-gram held by too many prefixes was no key. This program builds two sets,
deterministically (``--seed``), and checks the join against every pair, not just planted ones:

- ``en``: distinct comment and docstring lines (40-200 characters, whitespace collapsed, one per
  case-folded form) of the Python standard library and site-packages of the running Python;
- ``zh``: distinct lines of 20-200 characters, a third or more CJK ideographs, of the
  benchmark set's documents (as many as there are: the visible set has ~38,000).

Each set: N originals and copies of 3% of them with 1-3 random character edits (insert,
delete, substitute with a letter of the set). The truth is brute force: every pair within the
length filter compared by rapidfuzz ``cdist`` (``Levenshtein.normalized_similarity``,
``score_cutoff``) in chunks of rows sorted by length, on every core (minutes at 10^5; kept in
benchmarks/results/edit-join/ while the set's parameters match). Then the join runs in fresh
processes, ``--repeat`` rounds, alternating with ``--compare`` (another checkout, e.g. main)
when given; medians. Printed: pairs within the threshold, found by the join (recall: it must
be 1.0), planted copies found, join seconds. Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import subprocess
import sys
import sysconfig
import time
import tokenize
from pathlib import Path

import numpy as np
from common import (
    DEFAULT_BENCH,
    REPO,
    RESULTS,
    environment,
    fmt,
    list_docs,
    log,
    markdown_table,
    median,
    reproduce_command,
    write_json,
)

GENERATOR_VERSION = 1
COPY_SHARE = 0.03
_CJK = re.compile(r"[\u4e00-\u9fff]")


def english_lines(limit: int) -> list[str]:
    """Distinct comment and docstring lines of the running Python's library, shuffled."""
    lines: set[str] = set()
    roots = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]}
    for root in sorted(roots):
        for path in sorted(Path(root).rglob("*.py")):
            try:
                tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
            except (OSError, UnicodeDecodeError, SyntaxError, tokenize.TokenError):
                continue
            for token in tokens:
                if token.type == tokenize.COMMENT:
                    parts = [token.string.lstrip("#")]
                elif token.type == tokenize.STRING and token.string.lstrip("rbRB")[:3] in (
                    '"""',
                    "'''",
                ):
                    parts = token.string.split("\n")
                else:
                    continue
                for part in parts:
                    line = " ".join(part.strip("rbRB\"'").split())
                    if 40 <= len(line) <= 200 and line.isascii():
                        lines.add(line)
            if len(lines) > 4 * limit:
                break
    return _distinct_forms(sorted(lines))


def chinese_lines(bench: Path) -> list[str]:
    """Distinct lines of the set's documents, a third or more of them CJK ideographs."""
    lines: set[str] = set()
    for path in list_docs(bench / "docs"):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for raw in text.split("\n"):
            line = " ".join(raw.split())
            if 20 <= len(line) <= 200 and len(_CJK.findall(line)) * 3 >= len(line):
                lines.add(line)
    return _distinct_forms(sorted(lines))


def _distinct_forms(lines: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for line in lines:
        form = re.sub(r"[\W_]+", " ", line.casefold()).strip()
        if form not in seen:
            seen.add(form)
            out.append(line)
    return out


def with_copies(lines: list[str], rows: int, rng: random.Random) -> tuple[list[str], int]:
    """``rows`` originals and edited copies of the first ``COPY_SHARE`` of them (copy ``c`` of
    original ``c`` is row ``rows + c``)."""
    originals = lines[:rows]
    alphabet = sorted({c for line in originals[:2000] for c in line if c.isalpha()})
    copies = []
    for text in originals[: int(rows * COPY_SHARE)]:
        chars = list(text)
        for _ in range(rng.randint(1, 3)):
            at, op = rng.randrange(len(chars)), rng.randrange(3)
            if op == 0:
                chars.insert(at, rng.choice(alphabet))
            elif op == 1:
                del chars[at]
            else:
                chars[at] = rng.choice(alphabet)
        copies.append("".join(chars))
    return originals + copies, len(copies)


def brute_force(texts: list[str], threshold: float, chunk: int = 2000) -> np.ndarray:
    """Every pair ``(i, j)``, ``i < j``, with edit similarity >= threshold: rows sorted by
    length, each chunk against the rows from it up to the longest partner its lengths allow."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    lengths = np.array([len(t) for t in texts])
    order = np.argsort(lengths, kind="stable")
    ordered, sorted_lengths = [texts[k] for k in order], lengths[order]
    found = [np.empty((0, 2), dtype=np.int64)]
    for start in range(0, len(texts), chunk):
        stop = min(len(texts), start + chunk)
        reach = int(np.searchsorted(sorted_lengths, sorted_lengths[stop - 1] / threshold + 1e-9,
                                    side="right"))  # fmt: skip
        scores = process.cdist(
            ordered[start:stop],
            ordered[start:reach],
            scorer=Levenshtein.normalized_similarity,
            score_cutoff=threshold - 1e-12,
            workers=-1,
            dtype=np.float32,
        )
        a, b = np.nonzero(scores)
        keep = b > a
        a, b = order[a[keep] + start], order[b[keep] + start]
        found.append(np.stack((np.minimum(a, b), np.maximum(a, b)), 1))
    pairs = np.concatenate(found)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


_TIMED = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from simdup.algorithms import edit_join
texts = json.load(open(sys.argv[2], encoding="utf-8"))
start = time.perf_counter()
i, j, _ = edit_join.join(texts, float(sys.argv[3]))
seconds = time.perf_counter() - start
json.dump({"seconds": seconds, "pairs": (i * len(texts) + j).tolist()}, sys.stdout)
"""


def timed_join(checkout: Path, texts_file: Path, threshold: float) -> tuple[float, set[int]]:
    """The join of a checkout in a fresh process: its seconds and its pairs as ``i * n + j``."""
    out = subprocess.run([sys.executable, "-c", _TIMED, str(checkout), str(texts_file),
                          str(threshold)], capture_output=True, text=True, check=True)  # fmt: skip
    result = json.loads(out.stdout)
    return float(result["seconds"]), set(result["pairs"])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default=str(DEFAULT_BENCH), help="the set of the zh lines")
    parser.add_argument("--sizes", default="10000,25000,50000,100000")
    parser.add_argument("--threshold", type=float, default=0.9)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=50)
    parser.add_argument("--compare", help="another checkout whose join is timed alongside")
    args = parser.parse_args(argv)
    out_dir = RESULTS / "edit-join"
    out_dir.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    sources = {"en": english_lines(max(sizes)), "zh": chinese_lines(Path(args.bench))}
    rows_out, table = [], []
    for language, lines in sources.items():
        random.Random(args.seed).shuffle(lines)
        for size in sizes:
            if size > len(lines):
                log(f"{language}: {len(lines)} lines, fewer than {size}: left out")
                continue
            texts, copies = with_copies(lines, size, random.Random(args.seed + size))
            digest = hashlib.sha256(json.dumps([GENERATOR_VERSION, args.threshold, texts])
                                    .encode()).hexdigest()[:16]  # fmt: skip
            texts_file = out_dir / f"{language}-{size}.json"
            texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
            truth_file = out_dir / f"{language}-{size}-{digest}-truth.npy"
            if not truth_file.exists():
                log(f"{language} {len(texts)} rows: every pair (brute force) ...")
                started = time.perf_counter()
                np.save(truth_file, brute_force(texts, args.threshold))
                log(f"  {time.perf_counter() - started:.0f} s")
            truth_pairs = np.load(truth_file)
            truth = set((truth_pairs[:, 0] * len(texts) + truth_pairs[:, 1]).tolist())
            planted = {c * len(texts) + size + c for c in range(copies)} & truth
            ours: list[float] = []
            theirs: list[float] = []
            for _ in range(args.repeat):
                seconds, found = timed_join(REPO, texts_file, args.threshold)
                ours.append(seconds)
                if args.compare:
                    other_seconds, other = timed_join(Path(args.compare), texts_file,
                                                      args.threshold)  # fmt: skip
                    theirs.append(other_seconds)
            row = {
                "language": language, "rows": len(texts), "pairs": len(truth),
                "found": len(found & truth), "extra": len(found - truth),
                "planted": len(planted), "planted_found": len(found & planted),
                "seconds": median(ours),
                **({"compare_seconds": median(theirs), "compare_found": len(other & truth)}
                   if args.compare else {}),
            }  # fmt: skip
            rows_out.append(row)
            line = [language, str(row["rows"]), str(row["pairs"]),
                    f"{row['found']} ({fmt(row['found'] / max(row['pairs'], 1))})",
                    f"{row['planted_found']}/{row['planted']}", fmt(row["seconds"], 2)]  # fmt: skip
            if args.compare:
                line += [f"{row['compare_found']}", fmt(row["compare_seconds"], 2)]
            table.append(line)
            log(" | ".join(line))
    headers = ["set", "rows", "pairs >= t", "found (recall)", "planted found", "join s"]
    if args.compare:
        headers += ["compare found", "compare join s"]
    text = markdown_table(headers, table)
    print(text)
    write_json(RESULTS / "edit_join.json", {
        "benchmark": "edit_join", "command": reproduce_command("edit_join.py", argv),
        "environment": environment(), "threshold": args.threshold, "rows": rows_out,
        "markdown": text,
    })  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
