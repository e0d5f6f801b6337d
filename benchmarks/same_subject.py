"""A class writing on one subject: does ``check`` claim only what was copied?

    python benchmarks/same_subject.py --bench ../shared/bench/visible [--semantic] [--stems]

Chapters of one book on one subject, each checked against the chapters of another book on
the same subject and against its classmates (the other chapters of the set, as a class is
checked against its own folder): their sentences say the like on every page, so a rule that
reaches past copied words into same-subject text shows here as lost character precision.
Made with a fixed seed, outside the repository (``--work``, else a temporary folder), as
plain-text files (offsets in the files' characters; Markdown headings are still headings):

- **zh**: the chapters of the benchmark set's ES6 tutorial (Markdown with headings; its code
  blocks cut: a class writes prose; of each group of revisions and chapters sharing text, the
  longest), split at random into hosts (up to ``--hosts``, half of them at most) and a donor
  book. Its revisions rewrote paragraphs under other titles: some reworded fragments counted
  wrong here are such rewrites (the same for every rule measured).
- **en**: the topics of Python's own documentation (``pydoc_data.topics``), chosen and split
  the same way.

Every host gets a byline under its title (a name, the course: the same for the class), and
all but ``--clean`` of them 1-2 prose paragraphs of a donor chapter pasted between two of its
own paragraphs: as they were (``verbatim``), or rewritten as 降重 services do
(``rewording.Rewriter``: 35% of the Chinese words, 30% of the English touched). Text a
host already shared verbatim with another document before planting (two revisions of one
chapter under two titles, a code example in two chapters) is left out of the measures.
Measured per language, for ``--exact-only``, the default and, with ``--semantic``,
``--semantic``: character precision and recall of the characters inside fragments against
the planted paragraphs (summed over the hosts), the same at the plants (of the fragments
that claim part of a planted paragraph: what they claim beside it, a byline, a heading or
the author's own sentences, is wrong), planted paragraphs found (half their characters or
more) and clean hosts with any fragment, summed over ``--rounds`` splits and plantings
(seeds ``--seed``, ``--seed`` + 1, ...). Precision and clean hosts are also given with the
hosts' restatements of other chapters set aside (``Host.restated``: what the default finds
before planting and a test of the benchmark's own calls alike), which tells a rule that
reaches into the author's own text from one that finds what the books say twice.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import DEFAULT_BENCH, log, markdown_table
from rewording import Rewriter

from simdup.algorithms.sentence_rule import SentenceRule
from simdup.checking import CheckOptions, MeaningRule, check

_CJK = re.compile(r"[\u4e00-\u9fff]")
# A class writes prose: code examples (which every chapter has alike) are cut.
_FENCED = re.compile(r"^```.*?^```[ \t]*\n?", re.M | re.S)
LEVEL = {"zh": 0.35, "en": 0.3}
BYLINE = {"zh": "作者：{name}　课程：程序设计", "en": "Author: {name}, course: Python"}
NAMES = ["王芳", "李娜", "张伟", "刘洋", "陈静", "杨帆", "赵磊", "黄敏", "周杰",
         "吴婷", "徐明", "孙丽", "马超", "朱琳", "胡斌", "郭燕", "何平", "林峰"]  # fmt: skip


@dataclass
class Host:
    name: str
    text: str
    bare: str  # before planting
    planted: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, how
    # Text it shared with another document before planting (two revisions of one chapter
    # under two titles, a code example in two chapters): neither right nor wrong to claim.
    shared: list[tuple[int, int]] = field(default_factory=list)
    # Text it restated from another document before planting, found then by the default rule
    # and alike by a test of the benchmark's own (``_restated``): two chapters that say one
    # thing in other words. Measured both ways: wrong to claim, and neither right nor wrong.
    restated: list[tuple[int, int]] = field(default_factory=list)


def _prose(block: str, language: str) -> bool:
    block = block.strip()
    if block.startswith(("#", "`", "|", "-", "*", ">", "!", "[", " ", "\t")) or "```" in block:
        return False
    if language == "zh":
        return 60 <= len(block) <= 500 and len(_CJK.findall(block)) >= 0.6 * len(block)
    return 200 <= len(block) <= 900 and block.count(".") >= 2


def zh_chapters(bench: Path) -> dict[str, str]:
    """The ES6 tutorial's chapters of the set, by title: the longest revision of each."""
    found: dict[str, str] = {}
    for path in sorted((bench / "docs").glob("*/*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a re-encoded copy: its original is there
        title = text.split("\n", 1)[0].strip()
        if not title.startswith("# ") or "周刊" in title or "分享" in title or "参考" in title:
            continue  # the set's other repository (a weekly) and the tutorial's link list
        text = _FENCED.sub("", text)
        if len(text) > len(found.get(title, "")):
            found[title] = text
    return found


def en_chapters() -> dict[str, str]:
    import pydoc_data.topics as topics

    return {
        f"# {name}": re.sub(r"\n\s*\n", "\n\n", text)
        for name, text in sorted(topics.topics.items())
        if len(text) >= 3000
    }


def distinct(chapters: dict[str, str], work: Path, min_share: float = 0.05) -> dict[str, str]:
    """One chapter (the longest) of each group of chapters one of which has ``min_share`` of
    its characters or more in another verbatim, directly or through others (a line every
    issue has is not enough) (revisions of one chapter under other
    titles, a chapter split in two or rewritten keep some sentences as they were): the planted
    paragraphs are then the copies to find. (Verbatim, so that the set is the same whatever
    the reworded rules.)"""
    folder = work / "chapters"
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for k, (title, text) in enumerate(sorted(chapters.items())):
        (folder / f"c{k:03d}.txt").write_text(text, encoding="utf-8")
        names[f"c{k:03d}.txt"] = title
    result = check([str(folder)], against=[str(folder)], options=CheckOptions(reworded=None))
    parent = {name: name for name in names}

    def root(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for doc in result.documents:
        for share in doc.sources:
            if share.ratio >= min_share:
                parent[root(Path(doc.path).name)] = root(Path(share.source).name)
    groups: dict[str, list[str]] = {}
    for name, title in names.items():
        groups.setdefault(root(name), []).append(title)
    kept = [max(group, key=lambda t: len(chapters[t])) for group in groups.values()]
    return {title: chapters[title] for title in sorted(kept)}


def _with_byline(text: str, byline: str) -> str:
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{byline}\n\n{rest.lstrip()}"


def make_set(
    language: str, chapters: dict[str, str], hosts: int, clean: int, rng: random.Random
) -> tuple[list[Host], list[tuple[str, str]]]:
    """``hosts`` chapters with bylines (all but ``clean`` of them with planted paragraphs)
    and the donor book's chapters."""
    titles = sorted(chapters)
    rng.shuffle(titles)
    donors = [(f"donor{k:02d}.txt", chapters[t]) for k, t in enumerate(titles[hosts:])]
    paragraphs = [
        b.strip() for _, text in donors for b in text.split("\n\n") if _prose(b, language)
    ]
    rewriter = Rewriter(language, [paragraphs], rng)
    made = []
    for k, title in enumerate(titles[:hosts]):
        byline = BYLINE[language].format(name=NAMES[k % len(NAMES)] if language == "zh"
                                         else f"Student {k + 1}")  # fmt: skip
        text = _with_byline(chapters[title], byline)
        host = Host(f"host{k:02d}.txt", text, text)
        if k >= clean:
            blocks = text.split("\n\n")
            slots = [n for n in range(3, len(blocks)) if _prose(blocks[n - 1], language)]
            if not slots or not paragraphs:
                continue
            at = rng.choice(slots)
            start = len("\n\n".join(blocks[:at])) + 2
            how = "verbatim" if k % 2 else "reworded"
            pasted = rng.sample(paragraphs, rng.choice((1, 2)))
            if how == "reworded":
                pasted = [rewriter.rewrite(p, LEVEL[language]) for p in pasted]
            plant = "\n\n".join(pasted)
            host.text = text[:start] + plant + "\n\n" + text[start:]
            host.planted.append((start, start + len(plant), how))
        made.append(host)
    return made, donors


def write_set(work: Path, hosts: list[Host], donors: list[tuple[str, str]]) -> None:
    for folder in ("hosts", "donors"):
        (work / folder).mkdir(parents=True, exist_ok=True)
        for old in (work / folder).glob("*.txt"):
            old.unlink()
    for host in hosts:
        (work / "hosts" / host.name).write_text(host.text, encoding="utf-8")
    for name, text in donors:
        (work / "donors" / name).write_text(text, encoding="utf-8")


def measure(work: Path, hosts: list[Host], options: CheckOptions) -> dict[str, Any]:
    started = time.perf_counter()
    result = check([str(work / "hosts")], against=[str(work / "hosts"), str(work / "donors")],
                   options=options)  # fmt: skip
    seconds = time.perf_counter() - started
    by_name = {h.name: h for h in hosts}
    detected = truth = overlap = found = planted = flagged = clean = spill = 0
    detected_aside = overlap_aside = flagged_aside = 0
    for doc in result.documents:
        host = by_name[Path(doc.path).name]
        claimed = [False] * len(host.text)
        for f in doc.fragments:
            claimed[f.start : f.end] = [True] * (f.end - f.start)
        counted = [not c.isspace() for c in host.text]
        for start, end in host.shared:  # neither right nor wrong to claim
            counted[start:end] = [False] * (end - start)
        # The same with the host's restatements of other chapters set aside too.
        aside = list(counted)
        for start, end in host.restated:
            aside[start:end] = [False] * (end - start)
        truth_mask = [False] * len(host.text)
        for start, end, _ in host.planted:
            truth_mask[start:end] = [True] * (end - start)
            inside = sum(claimed[i] and counted[i] for i in range(start, end))
            planted += 1
            found += inside >= 0.5 * sum(counted[start:end])
        # The fragments that claim part of a planted paragraph: what they claim beside it is
        # spill (a byline, a heading, the author's own sentences next to the copy).
        touching = [False] * len(host.text)
        for f in doc.fragments:
            if any(truth_mask[i] for i in range(f.start, f.end)):
                touching[f.start : f.end] = [True] * (f.end - f.start)
        spill += sum(t and n and not m for t, n, m in zip(touching, counted, truth_mask,
                                                          strict=True))  # fmt: skip
        detected += sum(c and n for c, n in zip(claimed, counted, strict=True))
        detected_aside += sum(c and n for c, n in zip(claimed, aside, strict=True))
        overlap_aside += sum(c and t and n for c, t, n in zip(claimed, truth_mask, aside,
                                                              strict=True))  # fmt: skip
        truth += sum(t and n for t, n in zip(truth_mask, counted, strict=True))
        overlap += sum(c and t and n for c, t, n in zip(claimed, truth_mask, counted, strict=True))
        if not host.planted:
            clean += 1
            flagged += any(
                any(counted[i] for i in range(f.start, f.end)) for f in doc.fragments
            )
            flagged_aside += any(
                any(aside[i] for i in range(f.start, f.end)) for f in doc.fragments
            )
    return {
        "detected": detected,
        "spill": spill,
        "truth": truth,
        "overlap": overlap,
        "found": found,
        "planted": planted,
        "clean_flagged": flagged,
        "detected_aside": detected_aside,
        "overlap_aside": overlap_aside,
        "clean_flagged_aside": flagged_aside,
        "clean": clean,
        "seconds": seconds,
    }


# Two stretches restate one another when the smaller of their word sets (English words,
# lower-cased; Chinese character bigrams) has at least this share in the other: a test of the
# benchmark's own, not simdup's rule, so that what it sets aside is not what the rule says.
RESTATED_SHARE = 0.5
_EN_WORD = re.compile(r"[a-z0-9]+")


def _units(text: str, language: str) -> set[str]:
    if language == "zh":
        hans = "".join(_CJK.findall(text))
        return {hans[k : k + 2] for k in range(len(hans) - 1)}
    return set(_EN_WORD.findall(text.lower()))


def _restated(a: str, b: str, language: str) -> bool:
    x, y = _units(a, language), _units(b, language)
    return bool(x and y) and len(x & y) >= RESTATED_SHARE * min(len(x), len(y))


def mark_shared(
    work: Path, hosts: list[Host], donors: list[tuple[str, str]], language: str
) -> None:
    """Each host's ``shared``: the verbatim fragments its text held before planting, and its
    ``restated``: the default rule's other fragments then whose two sides restate one another
    (``_restated``); both moved past the planted paragraphs."""
    before = work / "before"
    write_set(before, [Host(h.name, h.bare, h.bare) for h in hosts], donors)
    by_name = {h.name: h for h in hosts}
    for options, verbatim in ((CheckOptions(reworded=None), True), (CheckOptions(), False)):
        result = check([str(before / "hosts")],
                       against=[str(before / "hosts"), str(before / "donors")],
                       options=options)  # fmt: skip
        for doc in result.documents:
            host = by_name[Path(doc.path).name]
            moved = sum(end - start + 2 for start, end, _ in host.planted)
            at = host.planted[0][0] if host.planted else len(host.text)
            spans = [
                (f.start, f.end) if f.end <= at else (f.start + moved, f.end + moved)
                for f in doc.fragments
                if verbatim or _restated(f.text, f.source_text, language)
            ]
            if verbatim:
                host.shared = spans
            else:
                host.restated = spans


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--clean", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=4, help="splits and plantings, seeded")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--semantic", action="store_true")
    parser.add_argument(
        "--stems", action="store_true",
        help="also reworded passages seeded by stems (SentenceRule(seeds_by_stems=True))",
    )  # fmt: skip
    parser.add_argument("--languages", default="zh,en")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="simdup-same-subject-"))
    modes = {"--exact-only": CheckOptions(reworded=None), "default": CheckOptions()}
    if args.semantic:
        modes["--semantic"] = CheckOptions(semantic=MeaningRule())
    if args.stems:
        modes["seeds by stems"] = CheckOptions(reworded=SentenceRule(seeds_by_stems=True))
    rows = []
    for language in args.languages.split(","):
        every = zh_chapters(args.bench) if language == "zh" else en_chapters()
        chapters = distinct(every, work / language)
        totals: dict[str, dict[str, float]] = {mode: {} for mode in modes}
        for round_ in range(args.rounds):
            folder = work / language / f"round{round_}"
            rng = random.Random(args.seed + round_)
            count = min(args.hosts, len(chapters) // 2)
            hosts, donors = make_set(language, chapters, count, args.clean, rng)
            write_set(folder, hosts, donors)
            mark_shared(folder, hosts, donors, language)
            log(f"{language} round {round_}: {len(hosts)} hosts "
                f"({sum(bool(h.shared) for h in hosts)} sharing text before planting), "
                f"{len(donors)} donor chapters, in {folder}")  # fmt: skip
            for mode, options in modes.items():
                for key, value in measure(folder, hosts, options).items():
                    totals[mode][key] = totals[mode].get(key, 0) + value
        for mode, got in totals.items():
            precision = got["overlap"] / got["detected"] if got["detected"] else 1.0
            at_plants = got["overlap"] / (got["overlap"] + got["spill"]) if got["overlap"] else 1.0
            recall = got["overlap"] / got["truth"] if got["truth"] else 1.0
            aside = (got["overlap_aside"] / got["detected_aside"] if got["detected_aside"]
                     else 1.0)  # fmt: skip
            rows.append([
                language, mode, f"{precision:.3f}", f"{aside:.3f}", f"{at_plants:.3f}",
                f"{recall:.3f}", f"{got['found']:.0f}/{got['planted']:.0f}",
                f"{got['clean_flagged']:.0f}/{got['clean']:.0f}",
                f"{got['clean_flagged_aside']:.0f}/{got['clean']:.0f}", f"{got['seconds']:.1f}",
            ])  # fmt: skip
    print(markdown_table(["language", "mode", "char precision", "restatements aside",
                          "at the plants", "char recall", "found", "clean flagged",
                          "clean flagged, restatements aside", "seconds"], rows))  # fmt: skip
    print(f"\nRestatements: the default rule's fragments in the hosts before planting whose two "
          f"sides share at least {RESTATED_SHARE} of the smaller one's words (English) or "
          "character bigrams (Chinese): chapters of one book that say one thing twice.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
