"""A collection passage set: real pages with passages planted, scanned as ``scan --passages``.

    python benchmarks/passage_set.py make PAGES OUT [--half dev|test] [--passages 150]
    python benchmarks/passage_set.py score OUT [--form md|txt] [--errors 30]

``make`` reads the Markdown pages of the folder ``PAGES`` (any documentation pages; none are
in the repository), keeps one half of them (split by a hash of the file name, so a rule chosen
on ``dev`` is reported on ``test``), and plants ``--passages`` copies: a run of 5-30 lines of
one page (from a paragraph start, as ``passages.py`` picks them) copied into another page (each
host receives one), lightly edited as ``passages.py`` edits them (a few words changed,
punctuation, paragraphs re-wrapped). Passages are drawn from a page's text and pasted into a
page's text: both after the page's YAML front matter, if it has one (as the Markdown reader
tells it: ``readers.front_matter``). A file with a NUL byte is left out (simdup skips it as
binary: a git-crypt file named ``.md`` hosted one of the dev half's missed copies). Front
matter is no text a reader sees (issue 48), so a
copy of it is no copied passage of the page, and one pasted inside it is not where a copy
goes; the hidden set's passages are real ones, of pages' text. (Sets made before this rule,
seed 77: 3 of 170 and 6 of 174 copies began in their source's front matter, 7 and 9 were
pasted before or inside their host's.) It writes the pages twice, ``OUT/md/*.md`` and
``OUT/txt/*.txt`` (the same bytes), and ``OUT/truth.json``: the planted line ranges.

``score`` runs ``simdup scan OUT/<form> --passages --format json`` (the simdup of the checkout
this script is in) and scores its passage pairs as issue 48 does:

- a reported pair is *planted* when at least half of its lines on both sides lie in one
  planted copy and its source; else *alike* when the two regions are similar (normalised
  Levenshtein similarity of the whitespace-collapsed texts >= 0.7: two pages genuinely sharing
  text); else *false*. Precision = (planted + alike) / reported;
- a planted copy is *found* when a reported pair overlaps it by >= 80% of its lines on both
  sides; recall = found / planted;
- boundary error: for each found copy, the distance in lines of its four ends from the true.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

from passages_cases import change_punctuation, change_words, pick_passage, plant, rewrap

from simdup.readers.front_matter import front_matter_end

MIN_LINES, MAX_LINES = 5, 30
ALIKE = 0.7  # the "two genuinely alike regions"


def make(pages: Path, out: Path, half: str, count: int, seed: int) -> None:
    files = sorted(p for p in pages.rglob("*.md") if p.is_file())
    files = [p for p in files if (zlib.crc32(p.name.encode()) % 2 == 0) == (half == "dev")]
    # A file with a NUL byte is no page (a git-crypt file named .md): simdup skips it as
    # binary, so a copy planted in it or drawn from it could never be found.
    binary = [p for p in files if b"\0" in p.read_bytes()]
    files = [p for p in files if p not in binary]
    if binary:
        print(f"{len(binary)} binary files left out: {', '.join(p.name for p in binary[:5])}",
              file=sys.stderr)  # fmt: skip
    texts = {p.stem: p.read_text("utf-8", errors="replace").split("\n") for p in files}
    names = sorted(texts)
    rng = random.Random(f"{seed}-{half}")
    hosts = rng.sample(names, min(count, len(names) // 2))
    sources = [n for n in names if n not in set(hosts)]
    truth: list[dict[str, Any]] = []
    for host in hosts:
        for _ in range(50):
            source = rng.choice(sources)
            lines = texts[source]
            body = _body(lines)
            picked = pick_passage(rng, lines[body:])
            if picked is None:
                continue
            start, end = picked[0] + body, picked[1] + body
            if not MIN_LINES <= end - start + 1 <= MAX_LINES:
                continue
            copy = lines[start : end + 1]
            kinds = [k for k in ("words", "punctuation", "rewrap") if rng.random() < 0.5]
            for kind in kinds or ["words"]:
                if kind == "words":
                    copy = change_words(rng, copy, "\n".join(texts[host]))
                elif kind == "punctuation":
                    copy = change_punctuation(rng, copy)
                else:
                    copy = rewrap(rng, copy)
            while copy and not copy[-1].strip():
                copy.pop()
            body = _body(texts[host])
            planted, at = plant(rng, texts[host][body:], copy)
            texts[host] = texts[host][:body] + planted
            at += body
            truth.append(
                {
                    "source": source,
                    "source_lines": [start + 1, end + 1],
                    "host": host,
                    "host_lines": [at + 1, at + len(copy)],
                    "edits": kinds or ["words"],
                }
            )
            break
    for form in ("md", "txt"):
        folder = out / form
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            (folder / f"{name}.{form}").write_text("\n".join(texts[name]), "utf-8")
    (out / "truth.json").write_text(json.dumps({"half": half, "planted": truth}, indent=1))
    print(f"{len(names)} pages, {len(truth)} planted passages -> {out}", file=sys.stderr)


def _body(lines: list[str]) -> int:
    """The first line of a page's text: after its front matter, if it has one."""
    closing = front_matter_end(lines)
    return closing + 1 if closing else 0


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]) + 1)


def _collapsed(lines: list[str], span: tuple[int, int]) -> str:
    return " ".join(" ".join(lines[span[0] - 1 : span[1]]).split())


def score(out: Path, form: str, errors: int, extra: list[str]) -> dict[str, Any]:
    from rapidfuzz.distance import Levenshtein

    folder = out / form
    planted = json.loads((out / "truth.json").read_text())["planted"]
    command = [sys.executable, "-m", "simdup", "scan", str(folder), "--passages", "--no-cache"]
    command += ["--format", "json", *extra]
    # Run from the checkout this script is in, so that its simdup is the one measured.
    ran = subprocess.run(command, capture_output=True, check=True, cwd=Path(__file__).parents[1])
    report = json.loads(ran.stdout)
    lines: dict[str, list[str]] = {}

    def text(name: str) -> list[str]:
        if name not in lines:
            lines[name] = (folder / f"{name}.{form}").read_text("utf-8").split("\n")
        return lines[name]

    regions = []
    for p in report.get("passages", []):
        a, b = p["a"], p["b"]
        regions.append(
            (
                Path(a["path"]).stem,
                (a["start_line"], a["end_line"]),
                Path(b["path"]).stem,
                (b["start_line"], b["end_line"]),
            )
        )

    def sides(t: dict[str, Any], r: tuple[Any, ...]) -> tuple[tuple[int, int], tuple[int, int]]:
        """(source side, host side) of region r against planted copy t, or empty spans."""
        none = ((0, -1), (0, -1))
        if (r[0], r[2]) == (t["source"], t["host"]):
            return r[1], r[3]
        if (r[2], r[0]) == (t["source"], t["host"]):
            return r[3], r[1]
        return none

    def mostly_in(region: tuple[int, int], truth: list[int]) -> bool:
        lines = region[1] - region[0] + 1
        return lines > 0 and 2 * _overlap(region, (truth[0], truth[1])) >= lines

    kinds = {"planted": 0, "alike": 0, "false": 0}
    false: list[str] = []
    for r in regions:
        if any(
            mostly_in(sides(t, r)[0], t["source_lines"])
            and mostly_in(sides(t, r)[1], t["host_lines"])
            for t in planted
        ):
            kinds["planted"] += 1
            continue
        x, y = _collapsed(text(r[0]), r[1]), _collapsed(text(r[2]), r[3])
        similarity = Levenshtein.normalized_similarity(x, y)
        if similarity >= ALIKE:
            kinds["alike"] += 1
            continue
        kinds["false"] += 1
        false.append(f"{r[0]}:{r[1][0]}-{r[1][1]} ~ {r[2]}:{r[3][0]}-{r[3][1]} ({similarity:.2f})")
    found = 0
    edges: list[int] = []
    for t in planted:
        ts, th = tuple(t["source_lines"]), tuple(t["host_lines"])
        best = None
        for r in regions:
            s, h = sides(t, r)
            covered = _overlap(s, ts) + _overlap(h, th)
            if (
                _overlap(s, ts) >= 0.8 * (ts[1] - ts[0] + 1)
                and _overlap(h, th) >= 0.8 * (th[1] - th[0] + 1)
                and (best is None or covered > best[0])
            ):
                best = (covered, s, h)
        if best is not None:
            found += 1
            _, s, h = best
            edges += [abs(s[0] - ts[0]), abs(s[1] - ts[1]), abs(h[0] - th[0]), abs(h[1] - th[1])]
    reported = len(regions)
    result = {
        "form": form,
        "reported": reported,
        **kinds,
        "precision": (kinds["planted"] + kinds["alike"]) / reported if reported else 1.0,
        "recall": found / len(planted) if planted else float("nan"),
        "found": found,
        "planted_total": len(planted),
        "boundary_error_median": statistics.median(edges) if edges else float("nan"),
        "boundary_error_mean": statistics.fmean(edges) if edges else float("nan"),
        "ends_exact": sum(e == 0 for e in edges) / len(edges) if edges else float("nan"),
        "repeated_passages": len(report.get("repeated_passages", [])),
    }
    summary = {k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()}
    print(json.dumps(summary))
    for line in false[:errors]:
        print("  false:", line)
    result["false_list"] = false
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    m = sub.add_parser("make", help="plant passages in a folder of pages")
    m.add_argument("pages", type=Path)
    m.add_argument("out", type=Path)
    m.add_argument("--half", choices=("dev", "test"), default="dev")
    m.add_argument("--passages", type=int, default=150)
    m.add_argument("--seed", type=int, default=48)
    s = sub.add_parser("score", help="scan a made set with --passages and score it")
    s.add_argument("out", type=Path)
    s.add_argument("--form", choices=("md", "txt"), default="md")
    s.add_argument("--errors", type=int, default=0, help="list this many false regions")
    s.add_argument("--json", type=Path, help="write the scores (and every false region) here")
    # What follows "--" goes to simdup scan as it is (argparse's own "--" handling in a
    # subcommand drops or keeps the marker depending on the Python version).
    argv = sys.argv[1:]
    scan_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    args.scan_args = scan_args
    if args.verb == "make":
        make(args.pages, args.out, args.half, args.passages, args.seed)
        return 0
    result = score(args.out, args.form, args.errors, args.scan_args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
