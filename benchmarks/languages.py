"""Japanese and Korean near-duplicates (issue 36): real documents, labelled by edit similarity.

    python benchmarks/languages.py --ja DIR --ko DIR       (or: make bench-languages JA=DIR KO=DIR)

``DIR`` is a git clone (or bare mirror) of the Japanese or Korean translation of Python's
documentation, https://github.com/python/python-docs-ja or .../python-docs-ko, with its version
branches (a plain ``git clone`` has them as ``origin/3.11`` ...). Not shipped here.

Documents: a page is one ``.po`` file; its text is its translated paragraphs (``msgstr``, not
fuzzy, not empty) in file order, markup as it is, joined by blank lines, written as ``.md``.
With a fixed seed, among the pages of the newest branch whose text has 1,000 to 60,000
characters of which at least 30 % are Japanese (kana and kanji) or Hangul:

- *lineage* pages: every distinct text of the page at the tip of each version branch and at a
  few revisions of the newest branch's history (evenly spread over the commits that touched
  it): real revisions, from identical paragraphs to translations years apart;
- *single* pages: the newest text only (distinct documents).

Labels follow the shared benchmark (``shared/bench/README.md``): on whitespace-collapsed texts,
``sim = 1 - lev / max(len)`` (rapidfuzz, exact); POSITIVE iff ``10*lev <= max``, NEGATIVE iff
``5*lev >= 2*max``, GRAY (ignored) between; a NEGATIVE by that rule whose character 5-gram
sets have an exact Jaccard above 0.5 is GRAY too (``gray_moved``: sections moved, which an
order-insensitive fingerprint cannot tell from edits). Every pair is labelled: a pair whose
length ratio is at most 0.6 is NEGATIVE without computing (``lev >= |len(a) - len(b)|``), every
other pair is computed. The set is written as ``docs/`` + ``labels.json`` in the shared format
and scored with the shared ``score.py``; ``simdup scan`` runs with its defaults in a fresh
process (``--no-cache``). For reference, datasketch ``MinHashLSH(threshold=0.8)`` over character
5-shingle sets (what a user might otherwise run) is scored too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import (
    DEFAULT_BENCH,
    default_scorer,
    fmt,
    load_scorer,
    log,
    markdown_table,
    publish_table,
    write_json,
)

_ENTRY = re.compile(r'^msgid ((?:".*"\n?)+)msgstr ((?:".*"\n?)+)', re.M)
_QUOTED = re.compile(r'"(.*)"')
_SCRIPTS = {
    "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"),
    "ko": re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]"),
}
_LETTER = re.compile(r"[^\W\d_]")


def _unquote(block: str) -> str:
    return "".join(_QUOTED.findall(block)).replace('\\"', '"').replace("\\n", "\n")


def po_text(po: str) -> str:
    """A page's translated paragraphs (``msgstr``), in order, joined by blank lines."""
    paragraphs = []
    for entry in po.split("\n\n"):
        match = _ENTRY.search(entry)
        if match is None or "fuzzy" in entry.split("msgid")[0] or not _unquote(match.group(1)):
            continue  # no entry, a fuzzy one, or the header (empty msgid)
        text = _unquote(match.group(2)).strip()
        if text:
            paragraphs.append(text)
    return "\n\n".join(paragraphs) + "\n"


def collapse(text: str) -> str:
    return " ".join(text.split())


class Repo:
    """A git repository (clone or bare mirror) read with ``git``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout

    def branches(self) -> dict[str, str]:
        """Version branches (``3.11``, from ``refs/heads`` or any remote) -> their ref."""
        found: dict[str, str] = {}
        for ref in self.git("for-each-ref", "--format=%(refname)", "refs/heads",
                            "refs/remotes").split():  # fmt: skip
            name = ref.rsplit("/", 1)[-1]
            if re.fullmatch(r"3\.\d+", name) and (name not in found or "heads" in ref):
                found[name] = ref
        return dict(sorted(found.items(), key=lambda kv: tuple(map(int, kv[0].split(".")))))

    def show(self, rev: str, path: str) -> str | None:
        try:
            return self.git("show", f"{rev}:{path}")
        except subprocess.CalledProcessError:
            return None


def build(lang: str, repo: Repo, out: Path, lineages: int, singles: int, history: int,
          seed: int) -> dict[str, Any]:  # fmt: skip
    """Write the documents of one language to ``out/docs`` and return them with their origin."""
    branches = repo.branches()
    if not branches:
        raise SystemExit(f"{repo.path}: no version branches (3.x) found")
    newest = list(branches)[-1]
    tips = {name: repo.git("rev-parse", ref).strip() for name, ref in branches.items()}
    log(f"{lang}: branches {', '.join(branches)} (newest {newest})")
    script = _SCRIPTS[lang]

    def usable(text: str) -> bool:
        flat = collapse(text)
        letters = len(_LETTER.findall(flat))
        return (
            1000 <= len(flat) <= 60000
            and letters > 0
            and len(script.findall(flat)) >= 0.3 * letters
        )

    pages = []
    for path in repo.git("ls-tree", "-r", "--name-only", tips[newest]).split("\n"):
        if path.endswith(".po"):
            po = repo.show(tips[newest], path)
            if po is not None and usable(po_text(po)):
                pages.append(path)
    rng = random.Random(f"{seed}-{lang}")
    rng.shuffle(pages)
    chosen = pages[: lineages + singles]
    documents: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(path: str, rev: str, where: str, text: str) -> None:
        key = collapse(text)
        if key in seen or not usable(text):
            return
        seen.add(key)
        name = hashlib.sha1(f"{lang}:{path}:{rev}".encode()).hexdigest()[:16]
        rel = f"docs/{name[0]}/{name}.md"
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
        documents.append({"path": rel, "repo": f"python/python-docs-{lang}", "commit": rev,
                          "orig_path": path, "where": where, "encoding": "utf-8",
                          "reencoded_from": None, "chars": len(key)})  # fmt: skip

    for index, path in enumerate(chosen):
        if index >= lineages:
            add(path, tips[newest], newest, po_text(repo.show(tips[newest], path) or ""))
            continue
        for name, tip in tips.items():
            po = repo.show(tip, path)
            if po is not None:
                add(path, tip, name, po_text(po))
        commits = repo.git("log", "--format=%H", tips[newest], "--", path).split()
        if len(commits) > 1 and history:
            step = (len(commits) - 1) / history
            for k in range(1, history + 1):
                rev = commits[min(len(commits) - 1, round(k * step))]
                po = repo.show(rev, path)
                if po is not None:
                    add(path, rev, f"{newest} history", po_text(po))
    log(f"{lang}: {len(pages)} usable pages; {len(documents)} documents "
        f"({lineages} lineage pages, {singles} single pages)")  # fmt: skip
    return {"documents": documents, "branches": tips, "pages_usable": len(pages)}


def label(out: Path, documents: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict]:
    """Every pair labelled by exact edit similarity (pairs of length ratio <= 0.6: NEGATIVE)."""
    from rapidfuzz.distance import Levenshtein

    texts = [collapse((out / d["path"]).read_text(encoding="utf-8")) for d in documents]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    pairs, computed = [], 0
    five: dict[int, np.ndarray] = {}

    def grams(k: int) -> np.ndarray:
        """The text's distinct character 5-grams, as sorted 64-bit hashes (a collision among
        a few thousand 5-grams has a chance of about 10^-12)."""
        if k not in five:
            text = texts[k]
            hashed = [hash(text[x : x + 5]) for x in range(len(text) - 4)]
            five[k] = np.unique(np.array(hashed, dtype=np.int64))
        return five[k]

    started = time.perf_counter()
    for x, i in enumerate(order):
        for j in order[x + 1 :]:
            short, long_ = len(texts[i]), len(texts[j])
            if 5 * short <= 3 * long_:  # ratio <= 0.6: lev >= long - short >= 0.4 * long
                break
            computed += 1
            # Only whether 5*d < 2*m matters beyond the positives: cut the computation there.
            cutoff = (2 * long_ - 1) // 5
            d = Levenshtein.distance(texts[i], texts[j], score_cutoff=cutoff)
            a, b = sorted((documents[i]["path"], documents[j]["path"]))
            same = documents[i]["orig_path"] == documents[j]["orig_path"]
            if 5 * d >= 2 * long_:
                # NEGATIVE unless whole sections moved (the shared set's ``gray_moved``).
                grams_i, grams_j = grams(i), grams(j)
                common = np.intersect1d(grams_i, grams_j, assume_unique=True).size
                if 2 * common > grams_i.size + grams_j.size - common:
                    pairs.append({"a": a, "b": b, "label": "gray", "sim": None,
                                  "kind": "gray_moved", "same_lineage": same})  # fmt: skip
                continue
            positive = 10 * d <= long_
            pairs.append({"a": a, "b": b, "label": "pos" if positive else "gray",
                          "sim": int((1 - d / long_) * 10000) / 10000,
                          "kind": "revision" if positive else "gray",
                          "same_lineage": same})  # fmt: skip
    n = len(texts)
    counts = {"documents": n, "all_pairs": n * (n - 1) // 2, "computed": computed,
              "positive": sum(p["label"] == "pos" for p in pairs),
              "gray": sum(p["kind"] == "gray" for p in pairs),
              "gray_moved": sum(p["kind"] == "gray_moved" for p in pairs),
              "positive_other_page": sum(p["label"] == "pos" and not p["same_lineage"]
                                         for p in pairs),
              "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    return pairs, counts


def run_simdup(docs: Path, out: Path) -> tuple[dict[str, Any], float]:
    """``python -m simdup scan DOCS -f json --no-cache -q -o OUT`` in a fresh process."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "simdup", "scan", str(docs), "-f", "json", "--no-cache",
               "-q", "-o", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"simdup scan failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8")), seconds


def run_minhash_chars(out: Path, documents: list[dict[str, Any]]) -> list[tuple[str, str]] | None:
    """datasketch MinHashLSH(threshold 0.8, 128 perms) over character 5-shingle sets."""
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        return None
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    hashes = {}
    for d in documents:
        text = collapse((out / d["path"]).read_text(encoding="utf-8"))
        m = MinHash(num_perm=128)
        m.update_batch([text[k : k + 5].encode() for k in range(max(1, len(text) - 4))])
        hashes[d["path"]] = m
        lsh.insert(d["path"], m)
    found = set()
    for path, m in hashes.items():
        for other in lsh.query(m):
            if other != path and hashes[other].jaccard(m) >= 0.8:
                found.add(tuple(sorted((path, other))))
    return sorted(found)  # type: ignore[arg-type]


def score_row(scorer: Any, labels: dict, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    r = scorer.score(labels, pairs)
    return {k: v for k, v in r.items() if not k.startswith("_")}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ja", type=Path, help="a git clone or mirror of python/python-docs-ja")
    ap.add_argument("--ko", type=Path, help="a git clone or mirror of python/python-docs-ko")
    ap.add_argument("--lineages", type=int, default=60, help="pages taken with their revisions")
    ap.add_argument("--singles", type=int, default=120, help="pages taken once (newest)")
    ap.add_argument("--history", type=int, default=4, help="history revisions per lineage page")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--out", type=Path, help="keep the built sets here (default: a temp folder)")
    ap.add_argument("--score", type=Path, default=default_scorer(DEFAULT_BENCH))
    ap.add_argument("--errors", type=int, default=0, help="list up to N FNs and FPs per language")
    args = ap.parse_args(argv)
    sources = {lang: path for lang, path in (("ja", args.ja), ("ko", args.ko)) if path}
    if not sources:
        log(
            "needs --ja DIR and/or --ko DIR: git clones of https://github.com/python/"
            "python-docs-ja and python-docs-ko (with their version branches)"
        )
        return 2
    scorer = load_scorer(args.score)
    root = args.out or Path(tempfile.mkdtemp(prefix="simdup-languages-"))
    rows, results = [], {}
    for lang, source in sources.items():
        out = root / lang
        if (out / "labels.json").exists():
            labels = json.loads((out / "labels.json").read_text(encoding="utf-8"))
            log(f"{lang}: using the set built before in {out}")
        else:
            built = build(lang, Repo(source), out, args.lineages, args.singles, args.history,
                          args.seed)  # fmt: skip
            pairs, counts = label(out, built["documents"])
            log(f"{lang}: labels {counts}")
            labels = {"format": "simdup-bench-labels/1",
                      "meta": {"set": f"python-docs-{lang}", "branches": built["branches"],
                               "pages_usable": built["pages_usable"], "counts": counts,
                               "seed": args.seed, "lineages": args.lineages,
                               "singles": args.singles, "history": args.history},
                      "documents": built["documents"], "pairs": pairs}  # fmt: skip
            write_json(out / "labels.json", labels)
        counts = labels["meta"]["counts"]
        report, seconds = run_simdup(out / "docs", out / "simdup.json")
        got_pairs = [(p["a"], p["b"]) for p in report["pairs"]]
        got_clusters = [[m["path"] for m in c["members"]] for c in report["clusters"]]
        clustered = [(c[i], c[j]) for c in got_clusters for i in range(len(c))
                     for j in range(i + 1, len(c))]  # fmt: skip
        scored = {
            "simdup pairs": score_row(scorer, labels, got_pairs),
            "simdup clusters": score_row(scorer, labels, clustered),
        }
        chars = run_minhash_chars(out, labels["documents"])
        if chars is not None:
            scored["datasketch MinHashLSH, char 5-shingles, 0.8"] = score_row(scorer, labels, chars)
        if args.errors:
            full = scorer.score(labels, got_pairs)
            log(scorer.report(full, args.errors))
        for name, r in scored.items():
            rows.append([lang, name, str(counts["documents"]), str(counts["positive"]),
                         str(r["tp"]), str(r["fp"]), str(r["fn"]), str(r["gray_predicted"]),
                         fmt(r["precision"]), fmt(r["recall"]), fmt(r["f1"])])  # fmt: skip
            log(f"{lang}: {name}: P {r['precision']:.4f} R {r['recall']:.4f} F1 {r['f1']:.4f}")
        results[lang] = {"counts": counts, "branches": labels["meta"]["branches"],
                         "scan_seconds": round(seconds, 2), "scores": scored}  # fmt: skip
    table = markdown_table(["lang", "tool", "documents", "positive pairs", "TP", "FP", "FN",
                            "gray predicted", "precision", "recall", "F1"], rows)  # fmt: skip
    publish_table("languages", "Japanese and Korean near-duplicates", argv, root, table,
                  {"results": results})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
