"""The passage benchmark's cases (run ``passages.py``, not this): the set's documents split
into the ``dev`` and ``test`` halves, and the cases made from them, deterministically from a
seed: a source passage (a run of paragraphs) copied into a host document, edited in three cases
out of four (words, punctuation, re-wrapped paragraphs), and the negatives (an unedited host
with another document). ``passage_set.py`` picks and edits its passages with these functions
too."""

from __future__ import annotations

import json
import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[^\W_{CJK}]+")
_CJK_CHAR = re.compile(rf"[{CJK}]")
_PUNCT = {"，": ",", "。": ".", "：": ":", "；": ";", "（": "(", "）": ")", ",": "，", ".": "。"}
_URL = re.compile(r"\]\([^)\s]*\)|https?://\S+")


def count_words(text: str) -> int:
    """Words of the visible text (link targets and URLs left out)."""
    text = _URL.sub(" ", text)
    return len(_WORD.findall(text)) + round(len(_CJK_CHAR.findall(text)) / 1.5)


@dataclass
class Case:
    """A source document, a host with a planted copy (or none: a negative), the true ranges."""

    name: str
    source: str  # path label of the source
    source_lines: list[str]
    host: str
    host_lines: list[str]  # after planting
    truth: tuple[int, int, int, int] | None  # source start, end, host start, end (1-based)
    words: int = 0
    edits: tuple[str, ...] = ()


# ---------------------------------------------------------------- generating cases


def documents_by_half(bench: Path) -> dict[str, list[tuple[str, Path]]]:
    """UTF-8 documents, one revision per original file, split into halves ``dev``/``test``."""
    labels = json.loads((bench / "labels.json").read_text("utf-8"))
    lineages: dict[tuple[str, str], list[str]] = {}
    for d in labels["documents"]:
        if d["encoding"] == "utf-8" and d["reencoded_from"] is None:
            lineages.setdefault((d["repo"], d["orig_path"]), []).append(d["path"])
    halves: dict[str, list[tuple[str, Path]]] = {"dev": [], "test": []}
    for (repo, orig), paths in sorted(lineages.items()):
        half = "dev" if zlib.crc32(f"{repo}/{orig}".encode()) % 2 == 0 else "test"
        path = sorted(paths)[len(paths) // 2]
        halves[half].append((path, bench / path))
    return halves


def _paragraph_starts(lines: Sequence[str]) -> list[int]:
    return [
        i
        for i, line in enumerate(lines)
        if line.strip() and (i == 0 or not lines[i - 1].strip() or line.lstrip().startswith("#"))
    ]


def pick_passage(rng: random.Random, lines: Sequence[str]) -> tuple[int, int] | None:
    starts = _paragraph_starts(lines)
    if not starts:
        return None
    start = rng.choice(starts)
    end = min(len(lines), start + rng.randint(1, 30)) - 1
    # Up to the end of the paragraph, when that stays within 30 lines.
    stop = end
    while stop + 1 < len(lines) and lines[stop + 1].strip() and stop + 1 - start < 30:
        stop += 1
    if stop + 1 >= len(lines) or not lines[stop + 1].strip():
        end = stop
    while end > start and not lines[end].strip():
        end -= 1
    return start, end


def change_words(rng: random.Random, lines: list[str], host: str) -> list[str]:
    words = _WORD.findall(host) or ["x"]
    chars = _CJK_CHAR.findall(host) or ["字"]
    out = list(lines)
    for _ in range(rng.randint(1, 3)):
        candidates = [i for i, line in enumerate(out) if line.strip()]
        if not candidates:
            break
        i = rng.choice(candidates)
        spots = [(m.start(), m.end(), "w") for m in _WORD.finditer(out[i])]
        spots += [
            (m.start(), min(m.end() + 1, len(out[i])), "c") for m in _CJK_CHAR.finditer(out[i])
        ]
        if not spots:
            continue
        a, b, kind = rng.choice(spots)
        new = rng.choice(words) if kind == "w" else rng.choice(chars) + rng.choice(chars)
        out[i] = out[i][:a] + new + out[i][b:]
    return out


def change_punctuation(rng: random.Random, lines: list[str]) -> list[str]:
    def one(ch: str) -> str:
        if ch in _PUNCT and rng.random() < 0.3:
            return "" if rng.random() < 0.3 else _PUNCT[ch]
        return ch

    return ["".join(one(ch) for ch in line) for line in lines]


def _wrap(text: str, width: int) -> list[str]:
    """Greedy wrapping as an editor does it: a line may break at a space or between two CJK
    characters, never inside a Latin word or a URL."""
    units = re.findall(rf"[{CJK}]|[^\s{CJK}]+|\s+", text)
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and len(line) + len(unit.strip() and unit) > width and unit.strip():
            lines.append(line.rstrip())
            line = ""
        if unit.isspace():
            line += " " if line else ""
        else:
            line += unit
    if line.strip():
        lines.append(line.rstrip())
    return lines


def rewrap(rng: random.Random, lines: list[str]) -> list[str]:
    """Paragraphs of prose (not code, tables, lists, images or headings) re-wrapped to another
    width (joined and wrapped again)."""
    out: list[str] = []
    para: list[str] = []
    fence = False
    cjk = sum(len(_CJK_CHAR.findall(x)) for x in lines) > sum(len(x) for x in lines) / 4
    width = rng.randint(20, 45) if cjk else rng.randint(40, 90)

    def flush() -> None:
        if not para:
            return
        joined = para[0].strip()
        for line in para[1:]:
            both_cjk = _CJK_CHAR.match(line.strip()[:1] or " ") and _CJK_CHAR.match(
                joined[-1:] or " "
            )
            joined += ("" if both_cjk else " ") + line.strip()
        out.extend(_wrap(joined, width) or [joined])
        para.clear()

    for line in lines:
        is_fence = line.lstrip().startswith("```")
        if is_fence:
            fence = not fence
        markup = re.match(r"\s*([#>|`*+!\[-]|\d+[.、]|\s{4})", line)
        if line.strip() and not fence and not is_fence and not markup:
            para.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return out


def plant(rng: random.Random, host: list[str], copy: list[str]) -> tuple[list[str], int]:
    """``host`` with ``copy`` inserted; the 0-based line where the copy starts."""
    boundaries = [
        i for i in range(len(host) + 1) if i == 0 or i == len(host) or not host[i - 1].strip()
    ]
    if rng.random() < 0.25 and len(host) > 2:
        at = rng.randint(1, len(host) - 1)  # anywhere, even inside a paragraph
        return [*host[:at], *copy, *host[at:]], at
    at = rng.choice(boundaries)
    before = [""] if at > 0 and host[at - 1].strip() else []
    after = [""] if at < len(host) and host[at].strip() else []
    return [*host[:at], *before, *copy, *after, *host[at:]], at + len(before)


def make_cases(
    docs: list[tuple[str, Path]], n: int, negatives: int, seed: int, half: str
) -> list[Case]:
    rng = random.Random(f"{seed}-{half}")
    texts: dict[str, list[str]] = {}

    def lines(i: int) -> list[str]:
        path, file = docs[i]
        if path not in texts:
            texts[path] = file.read_text("utf-8").split("\n")
        return texts[path]

    cases: list[Case] = []
    while len(cases) < n:
        s, h = rng.sample(range(len(docs)), 2)
        src, host = lines(s), lines(h)
        picked = pick_passage(rng, src)
        if picked is None:
            continue
        start, end = picked
        copy = src[start : end + 1]
        edits: list[str] = []
        if rng.random() < 0.75:
            kinds = [k for k in ("words", "punctuation", "rewrap") if rng.random() < 0.5] or [
                "words"
            ]
            for kind in kinds:
                if kind == "words":
                    copy = change_words(rng, copy, "\n".join(host))
                elif kind == "punctuation":
                    copy = change_punctuation(rng, copy)
                else:
                    copy = rewrap(rng, copy)
            edits = kinds
        while copy and not copy[-1].strip():
            copy.pop()
        if not copy:
            continue
        planted, at = plant(rng, host, copy)
        truth = (start + 1, end + 1, at + 1, at + len(copy))
        cases.append(
            Case(
                f"{half}-{len(cases)}",
                docs[s][0],
                src,
                docs[h][0] + "#planted",
                planted,
                truth,
                count_words("\n".join(src[start : end + 1])),
                tuple(edits),
            )
        )
    for k in range(negatives):
        s, h = rng.sample(range(len(docs)), 2)
        src, host = lines(s), lines(h)
        cases.append(Case(f"{half}-neg{k}", docs[s][0], src, docs[h][0], host, None, 0, ()))
    return cases
