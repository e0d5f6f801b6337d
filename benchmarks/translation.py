"""Translated copies as translators make them: ``check --semantic`` of Chinese chapters holding
paragraphs of a book's human translation, checked against the English original and against
another team's translation (issue 49).

    python benchmarks/translation.py --en DIR --zh DIR [--zh-tw DIR] [--half dev|test|both]

``--en``, ``--zh`` and ``--zh-tw`` are checkouts of Pro Git, 2nd edition
(https://github.com/progit/progit2), its simplified Chinese translation (progit2-zh) and its
traditional one (progit2-zh-tw, another team's); not shipped here. The translators of a book
merge and split sentences as Chinese reads best (``make bench-semantic``'s documentation
paragraphs are translated sentence by sentence): here one Chinese sentence often says two
English ones, and a passage found sentence by sentence is found in pieces or not at all.

Built with a fixed seed from the book's AsciiDoc sections (code listings, headings, lists,
attributes, index terms and images left out; a paragraph is a block of prose):

- a *source* is one section in English (its paragraphs in order); its translation is paired
  with it paragraph by paragraph where the two have the same number of paragraphs;
- a *host* is another section of the Chinese translation (a chapter a student wrote on the
  same subject: Git), with ``--planted`` consecutive translated paragraphs of the source (of
  40 Chinese characters or more) pasted between two of its paragraphs; the same host without
  them is the *clean* one, where anything reported is false;
- sources are split in two halves by name (``--half``): ``dev`` to choose rules on, ``test``
  to report.

Measured as ``semantic.py`` measures (planted passages found: half their characters inside a
fragment; character recall and precision on the host side; clean hosts flagged) for
``--exact-only``, the default check and ``--semantic``, against the English section and,
with ``--zh-tw``, against the traditional translation of the same section.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from pathlib import Path
from typing import Any

from common import log, publish_table
from semantic import measured_table

_LISTING = re.compile(r"^(----|\.\.\.\.|====|\+\+\+\+|\*\*\*\*)[ \t]*$.*?^\1[ \t]*$", re.M | re.S)
_INDEX_TERM = re.compile(r"\(\(\(.*?\)\)\)")
# Blocks that are no prose paragraph: headings, attributes, anchors, titles, images, comments,
# includes, list items, tables, admonitions, shell lines, conditionals.
_NOT_PROSE = ("=", "[", ".", "image:", "//", "include::", "*", "-", "<<", "|", "ifdef",
              "endif", "ifndef", "NOTE:", "TIP:", "WARNING:", "$", ":")  # fmt: skip
_CJK = re.compile(r"[\u4e00-\u9fff]")


def paragraphs(path: Path) -> list[str]:
    """The prose paragraphs of an AsciiDoc section, each on one line."""
    text = _LISTING.sub("", path.read_text(encoding="utf-8", errors="replace"))
    found = []
    for block in re.split(r"\n[ \t]*\n", text):
        block = _INDEX_TERM.sub("", block).strip()
        if not block or block.startswith(_NOT_PROSE) or re.match(r"\d+\.\s", block):
            continue
        found.append(re.sub(r"[ \t]*\n[ \t]*", " ", block).strip())
    return found


def sections(en: Path, zh: Path, tw: Path | None) -> list[dict[str, Any]]:
    """The sections of the book in English and Chinese with as many paragraphs each (their
    paragraphs paired in order), with the traditional translation's text when there is one."""
    found = []
    for path in sorted(en.glob("book/**/*.asc")):
        name = str(path.relative_to(en))
        mine = zh / name
        if not mine.is_file():
            continue
        english, chinese = paragraphs(path), paragraphs(mine)
        if len(english) != len(chinese) or len(english) < 4:
            continue
        theirs = tw / name if tw is not None else None
        found.append({
            "name": name, "english": english, "chinese": chinese,
            "traditional": (paragraphs(theirs) if theirs is not None and theirs.is_file()
                            else None),
        })  # fmt: skip
    return found


def half_of(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "test"


def cases_of(
    every: list[dict[str, Any]], half: str, count: int, planted: int, seed: int, against: str
) -> list[dict[str, Any]]:
    """Hosts with ``planted`` translated paragraphs of a source of ``half`` (``against``:
    "english" or "traditional", what the host is checked against)."""
    rng = random.Random(seed)
    sources = [s for s in every if half in ("both", half_of(s["name"]))]
    if against == "traditional":
        sources = [s for s in sources if s["traditional"]]
    out: list[dict[str, Any]] = []
    tries = 0
    while len(out) < count and sources and tries < 50 * count:
        tries += 1
        source = rng.choice(sources)
        chinese = source["chinese"]
        runs = [at for at in range(len(chinese) - planted + 1)
                if all(len(_CJK.findall(p)) >= 40 for p in chinese[at : at + planted])]  # fmt: skip
        hosts = [h for h in every if h["name"].split("/")[1] != source["name"].split("/")[1]
                 and len(h["chinese"]) >= 4]  # fmt: skip
        if not runs or not hosts:
            continue
        at = rng.choice(runs)
        copied = "\n\n".join(chinese[at : at + planted])
        host = rng.choice(hosts)["chinese"]
        cut = rng.randrange(1, len(host))
        side = source["english"] if against == "english" else source["traditional"]
        out.append({
            "name": f"{against}-{len(out)}", "source": "\n\n".join(side),
            "thesis": "\n\n".join([*host[:cut], copied, *host[cut:]]), "planted": copied,
            "clean": "\n\n".join(host),
        })  # fmt: skip
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--en", type=Path, help="a checkout of progit/progit2")
    ap.add_argument("--zh", type=Path, help="a checkout of progit/progit2-zh")
    ap.add_argument("--zh-tw", type=Path, help="a checkout of progit/progit2-zh-tw")
    ap.add_argument("--half", choices=("dev", "test", "both"), default="test")
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--planted", type=int, default=1, help="paragraphs planted per case")
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--modes", default="exact,default,semantic")
    args = ap.parse_args(argv)
    if args.en is None or args.zh is None or not args.en.is_dir() or not args.zh.is_dir():
        log("needs --en DIR --zh DIR: checkouts of https://github.com/progit/progit2 and "
            "https://github.com/progit/progit2-zh")  # fmt: skip
        return 2
    every = sections(args.en, args.zh, args.zh_tw)
    log(f"{len(every)} sections with as many paragraphs in English and Chinese "
        f"({sum(half_of(s['name']) == 'dev' for s in every)} dev)")  # fmt: skip
    sets = [("against the English original", "english")]
    if args.zh_tw is not None:
        sets.append(("against another team's traditional translation", "traditional"))
    measured = [(title, cases_of(every, args.half, args.cases, args.planted, args.seed, against))
                for title, against in sets]  # fmt: skip
    table, results = measured_table(measured, args.modes.split(","), "hosts", f"{args.half}, ")
    publish_table("translation", f"Translated copies (Pro Git, {args.half} half)", argv,
                  args.en, table, {"results": results})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
