"""Short-text benchmark: ``simdup dedup`` of rows of 20-300 characters cut from real documents.

    python benchmarks/short.py --bench ../shared/bench/visible        (or: make bench-short)

Issue 32: how well does ``simdup dedup`` deduplicate SHORT texts? A deterministic generator
(``--seed``) cuts rows from the Markdown files of the visible set's ``docs/``: paragraphs, list
items and headings, code blocks, tables, images and link definitions left out, inline markup
stripped (``[t](url)`` -> ``t``, emphasis, backticks, HTML tags), whitespace collapsed, 20 to
300 characters kept. Originals are distinct: one row per normalised form (below), and rows that
are near-duplicates of one another already (edit similarity >= 0.9: revisions of one file) are
kept once. Each row's language is counted by script: ``zh`` (CJK ideographs at least as many as
Latin letters), ``en`` (no CJK ideograph) or ``mixed`` (Latin-heavy with some CJK). The set is
mostly Chinese, so the originals are sampled with quotas: every ``en`` row up to a third of N,
``mixed`` up to a sixth, ``zh`` the rest; the planted copies the same way within each band.

N originals (``--rows``, default 20,000) plus planted copies of 15% of them, spread evenly over
four length bands of the original (20-39, 40-79, 80-149, 150-300 characters) and, within each
band, evenly over four kinds:

- ``exact``: byte-identical text;
- ``normalised``: the same normalised form, other bytes (case, full-width ASCII, extra or
  missing whitespace, punctuation changed or dropped; checked);
- ``edited``: character edits (insert, delete, substitute with a character of the same script;
  a swap of two neighbouring Latin words) until the edit similarity is in [0.90, 0.99];
- ``negative``: a hard negative, edited to an edit similarity in [0.70, 0.85]: NOT a
  near-duplicate, and must not be removed as a duplicate of its original.

Normalised form (the issue's definition): NFKC, ``str.casefold()``, every run of ``[\\W_]+`` one
space, stripped, spaces between two CJK ideographs removed. Edit similarity: rapidfuzz
``Levenshtein.normalized_similarity`` of two normalised forms (1 - distance / longer length).

The rows, shuffled, ``{"id": "r<k>", "text": ...}``, go to benchmarks/results/short-N/rows.jsonl
(and ``rows.jsonl.zst`` for the anchor, which reads only that), the planted pairs to
``manifest.json`` (reused while N, seed and GENERATOR_VERSION match). Then, in fresh processes,
alternating over ``--repeat`` rounds, medians:

- ``simdup dedup rows.jsonl -o clean.jsonl --removed removed.jsonl --id-field id -q``;
- rows_anchor.py (rows.py's rjieba + rensa script, the command rows.py builds), on
  ``rows.jsonl.zst``; ``--no-anchor`` leaves it out.

Scored from ``--removed``: a planted pair is found when the copy was removed as a duplicate of
the original, the original as a duplicate of the copy, or both as duplicates of one kept row.
Recall by kind and band (and by language); hard negatives found; false removals (removed rows
whose kept row is not a near-duplicate: edit similarity < 0.90), as a count and a share of the
rows removed; rows removed, rows/s, wall seconds, peak memory; the "too short" count of one
more run without ``-q`` when simdup's summary gives one. Targets (issue 32): edited recall >=
0.95 in every band, false removals <= 1%, exact and normalised recall 1.0. Every figure goes to
benchmarks/results/short.json.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import math
import os
import random
import re
import shutil
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    MB,
    REPO,
    RESULTS,
    bench_folders,
    cached_manifest,
    decode_anchor,
    environment,
    fmt,
    list_docs,
    log,
    markdown_table,
    new_generation,
    record_load_end,
    reproduce_command,
    rounds_of_dedup_runs,
    run_measured,
    write_json,
    write_report,
)
from dedup_runs import output_checks, summarise_runs, verdict
from rows import ZSTD_LEVEL, contenders, zst_lines
from scale import rotated

BENCH_DIR = Path(__file__).resolve().parent
# Bump when the rows written change (extraction, sampling, copies, files): cached rows are
# rebuilt.
GENERATOR_VERSION = 1
MIN_CHARS, MAX_CHARS = 20, 300
# A row's normalised form must have at least this many characters (edits need room; rows of
# punctuation and markup leftovers are not text).
MIN_NORMALISED = 10
BANDS = ((20, 39), (40, 79), (80, 149), (150, 300))
KINDS = ("exact", "normalised", "edited", "negative")
LANGS = ("zh", "mixed", "en")
COPY_SHARE = 0.15
# Quotas of the originals (and of each band's copies) by language; zh takes the rest.
LANG_QUOTA = {"en": 1 / 3, "mixed": 1 / 6}
NEAR = 0.90
EDITED_RANGE = (0.90, 0.99)
NEGATIVE_RANGE = (0.70, 0.85)
# The targets.
TARGET_EDITED_RECALL = 0.95
TARGET_FALSE_REMOVALS = 0.01
TARGET_EXACT_RECALL = 1.0


def band_name(band: tuple[int, int]) -> str:
    return f"{band[0]}–{band[1]}"


def band_of(length: int) -> str:
    for band in BANDS:
        if band[0] <= length <= band[1]:
            return band_name(band)
    raise ValueError(length)


BAND_NAMES = [band_name(b) for b in BANDS]

# ---------------------------------------------------------------- the normalised form

CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
CJK = re.compile(f"[{CJK_CLASS}]")
_SEPARATORS = re.compile(r"[\W_]+")
_CJK_SPACE = re.compile(f"(?<=[{CJK_CLASS}]) (?=[{CJK_CLASS}])")
LATIN = re.compile(r"[A-Za-z]")


def normalised(text: str) -> str:
    """NFKC, casefold, each run of non-letters/digits one space, stripped, no space between
    two CJK ideographs: the form on which the issue measures edit similarity."""
    form = _SEPARATORS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return _CJK_SPACE.sub("", form)


def similarity(form_a: str, form_b: str) -> float:
    """Edit similarity of two normalised forms: 1 - Levenshtein distance / longer length."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(form_a, form_b))


def language(text: str) -> str:
    cjk, latin = len(CJK.findall(text)), len(LATIN.findall(text))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= latin else "mixed"


# ---------------------------------------------------------------- rows cut from Markdown

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+|$)")
_RULE = re.compile(r"^ {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,}|=+\s*)$")
_QUOTE = re.compile(r"^ {0,3}>\s?")
_TABLE = re.compile(r"^\s*\|")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# A backslash escape (\\*) or a hard line break (a backslash at the end of a line).
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~]|$)", re.M)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")


_HIDDEN = 0xF0000  # escaped characters are hidden from the markup patterns up here


def inline_text(text: str) -> str:
    """Markdown inline markup stripped, whitespace collapsed."""
    text = _ESCAPE.sub(lambda m: chr(_HIDDEN + ord(m.group(1))) if m.group(1) else " ", text)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = html.unescape(text.replace("`", ""))
    text = re.sub("[\U000f0000-\U000f007f]", lambda m: chr(ord(m.group(0)) - _HIDDEN), text)
    return " ".join(text.split())


def markdown_blocks(text: str) -> Iterator[str]:
    """The paragraphs, list items and headings of a Markdown text, as plain text."""
    block: list[str] = []
    fence = ""

    def flush() -> Iterator[str]:
        if block:
            yield inline_text("\n".join(block))
            block.clear()

    for raw in text.splitlines():
        if fence:
            if raw.strip().startswith(fence):
                fence = ""
            continue
        match = _FENCE.match(raw)
        if match:
            yield from flush()
            fence = match.group(1)[0] * 3
            continue
        line = raw
        while _QUOTE.match(line):
            line = _QUOTE.sub("", line, count=1)
        if not line.strip() or _RULE.match(line) or _TABLE.match(line):
            yield from flush()
            continue
        if _LINK_DEFINITION.match(line):
            continue
        if _HEADING.match(line):
            yield from flush()
            block.append(_HEADING.sub("", line).rstrip("# "))
            yield from flush()
            continue
        if _LIST_ITEM.match(line):
            yield from flush()
            block.append(_LIST_ITEM.sub("", line, count=1))
            continue
        if not block and (line.startswith("    ") or line.startswith("\t")):
            continue  # an indented code block
        block.append(line)
    yield from flush()


def row_pool(docs: Path) -> tuple[list[str], dict[str, int]]:
    """Distinct rows (one per normalised form, first seen in file order) of 20-300 characters
    of the set's Markdown files, sorted; and counts of what was read."""
    by_form: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for path in list_docs(docs):
        if path.suffix.lower() not in (".md", ".markdown"):
            continue
        counts["files"] += 1
        text, _ = decode_anchor(path.read_bytes())
        for block in markdown_blocks(text.replace("\r\n", "\n")):
            counts["blocks"] += 1
            if not MIN_CHARS <= len(block) <= MAX_CHARS:
                continue
            counts["blocks_in_range"] += 1
            form = normalised(block)
            if len(form) >= MIN_NORMALISED:
                by_form.setdefault(form, block)
    counts["distinct"] = len(by_form)
    return sorted(by_form.values()), dict(counts)


def without_near_duplicates(texts: list[str]) -> tuple[list[str], int]:
    """``texts`` less each row that is a near-duplicate (edit similarity >= 0.9 of the
    normalised forms) of another: of each connected group, the first in order stays."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    forms = [normalised(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (len(forms[i]), i))
    lengths = [len(forms[i]) for i in order]
    parent = list(range(len(texts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    chunk = 1000
    low = 0
    for start in range(0, len(order), chunk):
        stop = min(start + chunk, len(order))
        # similarity >= 0.9 needs the shorter form >= 0.9 x the longer one.
        while lengths[low] < math.floor(NEAR * lengths[start]):
            low += 1
        queries = [forms[i] for i in order[start:stop]]
        choices = [forms[i] for i in order[low:stop]]
        scores = process.cdist(
            queries,
            choices,
            scorer=Levenshtein.normalized_similarity,
            score_cutoff=NEAR,
            workers=-1,
        )
        for q, c in zip(*scores.nonzero(), strict=True):
            a, b = order[start + int(q)], order[low + int(c)]
            if a != b:
                ra, rb = root(a), root(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    kept = [t for i, t in enumerate(texts) if root(i) == i]
    return kept, len(texts) - len(kept)


# ---------------------------------------------------------------- planted copies

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
_PUNCT_SWAP = {
    ",": "，", "，": ",", ".": "。", "。": ".", ":": "：", "：": ":", ";": "；", "；": ";",
    "!": "！", "！": "!", "?": "？", "？": "?", "(": "（", "（": "(", ")": "）", "）": ")",
    "、": ",", '"': "“", "“": '"', "”": '"', "'": "’", "’": "'",
}  # fmt: skip
_PUNCT = re.compile(r"[^\w\s]")
_WORD_CHAR = re.compile(r"[^\W_]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _case_change(text: str, rng: random.Random) -> str:
    words = list(_LATIN_WORD.finditer(text))
    if not words:
        return text
    mode = rng.choice(("upper", "lower", "title", "words"))
    if mode == "upper":
        return text.upper()
    if mode == "lower":
        return text.lower()
    if mode == "title":
        return _LATIN_WORD.sub(lambda m: m.group(0).capitalize(), text)
    chosen = set(rng.sample(range(len(words)), max(1, len(words) // 3)))
    parts, last = [], 0
    for k, m in enumerate(words):
        word = m.group(0).swapcase() if k in chosen else m.group(0)
        parts += [text[last : m.start()], word]
        last = m.end()
    return "".join(parts) + text[last:]


def _fullwidth(text: str, rng: random.Random) -> str:
    """Some ASCII (a word, a run, or all of it) in full-width forms; a space as U+3000."""
    if rng.random() < 0.3:
        return "".join(_FULLWIDTH.get(c, "\u3000" if c == " " else c) for c in text)
    spans = [m.span() for m in re.finditer(r"[!-~]+", text)]
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:a] + "".join(_FULLWIDTH[c] for c in text[a:b]) + text[b:]


def _whitespace(text: str, rng: random.Random) -> str:
    """One whitespace change: a space added (doubled, around punctuation, between CJK
    ideographs, at an end) or removed (beside punctuation)."""
    choice = rng.random()
    if choice < 0.3:
        spaces = [m.start() for m in re.finditer(" ", text)]
        if spaces:
            at = rng.choice(spaces)
            return text[:at] + rng.choice(("  ", " \t", "\n ")) + text[at + 1 :]
    if choice < 0.6:
        spots = [m.start() for m in _PUNCT.finditer(text)]
        if spots:
            at = rng.choice(spots) + rng.choice((0, 1))
            return text[:at] + " " + text[at:]
    if choice < 0.8:
        spots = [m.start() for m in re.finditer(r" (?=[^\w\s])|(?<=[^\w\s]) ", text)]
        if spots:
            at = rng.choice(spots)
            return text[:at] + text[at + 1 :]
    if choice < 0.9:
        spots = [m.end() for m in CJK.finditer(text[:-1]) if CJK.match(text, m.end())]
        if spots:
            at = rng.choice(spots)
            return text[:at] + " " + text[at:]
    return rng.choice((" " + text, text + " ", text + "\n"))


def _punctuation(text: str, rng: random.Random) -> str:
    """One punctuation mark changed (ASCII <-> full-width Chinese) or dropped."""
    spots = [m.start() for m in _PUNCT.finditer(text)]
    if not spots:
        return text
    at = rng.choice(spots)
    mark = text[at]
    if mark in _PUNCT_SWAP and rng.random() < 0.6:
        return text[:at] + _PUNCT_SWAP[mark] + text[at + 1 :]
    if at == len(text) - 1 and rng.random() < 0.5:
        return text[:at]  # the final full stop dropped
    return text[:at] + text[at + 1 :]


_NORMALISING = (_case_change, _fullwidth, _whitespace, _punctuation)


def normalised_copy(text: str, rng: random.Random) -> str | None:
    """Other bytes with the same normalised form: 1-4 changes, each kept only when the
    normalised form stays the same."""
    form = normalised(text)
    copy = text
    for _ in range(40):
        change = rng.choice(_NORMALISING)
        candidate = change(copy, rng)
        if candidate != copy and normalised(candidate) == form:
            copy = candidate
            if rng.random() < 0.4:
                break
    return copy if copy != text else None


class Alphabet:
    """Characters to insert or substitute, by script: CJK ideographs as often as the pool uses
    them, Latin letters, digits."""

    def __init__(self, texts: Iterable[str]):
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(CJK.findall(text))
        self.cjk = sorted(counts)
        self.weights = [counts[c] for c in self.cjk]

    def like(self, char: str, rng: random.Random) -> str:
        """A character of ``char``'s script other than ``char`` (case kept for letters)."""
        if CJK.match(char):
            for _ in range(10):
                other = rng.choices(self.cjk, self.weights)[0]
                if other != char:
                    return other
            return rng.choice(self.cjk)
        if char.isdigit():
            return rng.choice([d for d in "0123456789" if d != char])
        letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c != char.lower()]
        other = rng.choice(letters)
        return other.upper() if char.isupper() else other


def _one_edit(text: str, rng: random.Random, alphabet: Alphabet) -> str:
    words = list(_LATIN_WORD.finditer(text))
    if len(words) >= 2 and rng.random() < 0.15:
        k = rng.randrange(len(words) - 1)
        (a, b), (c, d) = words[k].span(), words[k + 1].span()
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    spots = [m.start() for m in _WORD_CHAR.finditer(text)]
    at = rng.choice(spots)
    op = rng.choice(("insert", "delete", "substitute"))
    if op == "delete" and len(spots) > MIN_NORMALISED:
        return text[:at] + text[at + 1 :]
    new = alphabet.like(text[at], rng)
    if op == "insert":
        at += rng.choice((0, 1))
        return text[:at] + new + text[at:]
    return text[:at] + new + text[at + 1 :]


def edited_copy(
    text: str, rng: random.Random, alphabet: Alphabet, bounds: tuple[float, float]
) -> tuple[str, float] | None:
    """Character edits until the edit similarity to ``text`` is within ``bounds``: a number of
    edits drawn from those that can land there, retried when the edits overlap or a word swap
    costs more than one."""
    lo, hi = bounds
    form = normalised(text)
    length = len(form)
    fewest = max(1, math.ceil((1 - hi) * length - 1e-9))
    most = max(fewest, math.floor((1 - lo) * length + 1e-9))
    for _ in range(100):
        copy = text
        for _ in range(rng.randint(fewest, most)):
            copy = _one_edit(copy, rng, alphabet)
        value = similarity(form, normalised(copy))
        if lo <= value <= hi and copy != text:
            return copy, value
    return None


def sample_by_language(
    rows: list[str], langs: dict[str, str], count: int, rng: random.Random
) -> list[str]:
    """``count`` of ``rows``: every ``en`` row up to its quota, ``mixed`` likewise, ``zh`` the
    rest (topped up from the others when zh runs short)."""
    groups = {lang: [r for r in rows if langs[r] == lang] for lang in LANGS}
    for group in groups.values():
        rng.shuffle(group)
    chosen: list[str] = []
    for lang, share in LANG_QUOTA.items():
        chosen += groups[lang][: math.ceil(share * count)]
        groups[lang] = groups[lang][math.ceil(share * count) :]
    take = max(0, count - len(chosen))
    chosen += groups["zh"][:take]
    rest = groups["zh"][take:] + groups["mixed"] + groups["en"]
    chosen += rest[: max(0, count - len(chosen))]
    return chosen[:count]


# ---------------------------------------------------------------- the generator


def generate(n: int, seed: int, docs: Path) -> tuple[Path, dict[str, Any]]:
    """results/short-N/: rows.jsonl, rows.jsonl.zst and manifest.json (cached)."""
    root = RESULTS / f"short-{n}"
    manifest_path = root / "manifest.json"
    key = {"n": n, "seed": seed, "generator_version": GENERATOR_VERSION}
    files = (root / "rows.jsonl", root / "rows.jsonl.zst")
    cached = cached_manifest(root, key, files)
    if cached is not None:
        log(f"short-{n}: reusing the generated rows ({cached['rows_total']:,} rows)")
        return root, cached
    started = new_generation(root, f"short-{n}: cutting rows from {docs} (seed {seed}) ...")
    pool, read = row_pool(docs)
    log(f"  {read['distinct']:,} distinct rows of {MIN_CHARS}-{MAX_CHARS} characters")
    pool, near_dropped = without_near_duplicates(pool)
    log(f"  {near_dropped:,} near-duplicates of another row left out")
    rng = random.Random(seed)
    langs = {t: language(t) for t in pool}
    n_originals = min(n, len(pool))
    if n_originals < n:
        log(f"  only {len(pool):,} rows available: N = {n_originals:,}")
    alphabet = Alphabet(pool)

    # Copies first: COPY_SHARE of N, evenly over the bands, within a band evenly over the
    # kinds, their originals drawn from the band's rows with the language quotas (the band
    # of long rows is rare in the set). Then the other originals, with the quotas too.
    per_band = round(COPY_SHARE * n_originals / len(BANDS))
    copies: list[tuple[str, str, dict[str, Any]]] = []
    sources: list[str] = []
    shortfall: dict[str, int] = {}
    for band in BANDS:
        name = band_name(band)
        in_band = [t for t in pool if band[0] <= len(t) <= band[1]]
        first = sample_by_language(in_band, langs, per_band, rng)
        chosen = set(first)
        spare = [t for t in in_band if t not in chosen]
        rng.shuffle(spare)
        made = 0
        for original in first + spare:  # a spare row stands in for a copy that cannot be made
            if made >= per_band:
                break
            kind = KINDS[made % len(KINDS)]
            copy: str | None
            if kind == "exact":
                copy, value = original, 1.0
            elif kind == "normalised":
                copy, value = normalised_copy(original, rng), 1.0
            else:
                bounds = EDITED_RANGE if kind == "edited" else NEGATIVE_RANGE
                got = edited_copy(original, rng, alphabet, bounds)
                copy, value = got if got else (None, 0.0)
            if copy is None:
                continue
            made += 1
            sources.append(original)
            meta = {"kind": kind, "band": name, "lang": langs[original]}
            meta["edit_similarity"] = round(value, 4)
            copies.append((original, copy, meta))
        if made < per_band:
            shortfall[name] = per_band - made
            log(f"  band {name}: {made} copies of {per_band} ({len(in_band)} rows of that length)")
    used = set(sources)
    rest = [t for t in pool if t not in used]
    originals = sources + sample_by_language(rest, langs, n_originals - len(sources), rng)
    assert len({normalised(t) for t in originals}) == len(originals), "originals repeat"

    # Shuffle, number, write.
    entries: list[tuple[str, int]] = [(t, i) for i, t in enumerate(originals)]
    entries += [(c[1], -1 - k) for k, c in enumerate(copies)]
    rng.shuffle(entries)
    id_of_original = {}
    id_of_copy = {}
    for k, (_, tag) in enumerate(entries):
        if tag >= 0:
            id_of_original[originals[tag]] = f"r{k}"
        else:
            id_of_copy[-1 - tag] = f"r{k}"
    planted = [
        {"original": id_of_original[o], "copy": id_of_copy[k], **meta}
        for k, (o, _, meta) in enumerate(copies)
    ]
    total = write_rows(files, [(f"r{k}", text) for k, (text, _) in enumerate(entries)])
    copy_langs = Counter(p["lang"] for p in planted)
    manifest = {
        "key": key,
        "rows_total": len(entries),
        "originals": len(originals),
        "copies": len(copies),
        "bytes": total,
        "jsonl_zst_bytes": files[1].stat().st_size,
        "read": read,
        "near_duplicates_left_out": near_dropped,
        "pool": len(pool),
        "pool_by_language": dict(Counter(langs.values())),
        "originals_by_language": dict(Counter(langs[t] for t in originals)),
        "originals_by_band": dict(Counter(band_of(len(t)) for t in originals)),
        "originals_by_language_and_band": {
            lang: dict(Counter(band_of(len(t)) for t in originals if langs[t] == lang))
            for lang in LANGS
        },
        "copies_by_language": dict(copy_langs),
        "copies_wanted_per_band": per_band,
        "copies_short_by_band": shortfall,
        "copies_by_kind_and_band": {
            kind: dict(Counter(p["band"] for p in planted if p["kind"] == kind)) for kind in KINDS
        },
        "planted": planted,
    }
    write_json(manifest_path, manifest)
    log(
        f"short-{n}: {len(entries):,} rows ({len(originals):,} originals, {len(copies):,} "
        f"copies; {total / MB:.1f} MB) in {time.perf_counter() - started:.0f} s"
    )
    return root, manifest


def write_rows(files: tuple[Path, Path], rows: list[tuple[str, str]]) -> int:
    """The rows as plain JSON Lines and as one zstd frame; the uncompressed bytes."""
    import zstandard

    data = b"".join(
        json.dumps({"id": row_id, "text": text}, ensure_ascii=False).encode("utf-8") + b"\n"
        for row_id, text in rows
    )
    for path, payload in (
        (files[0], data),
        (files[1], zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data)),
    ):
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(payload)
        os.replace(tmp, path)
    return len(data)


# ---------------------------------------------------------------- runs and scoring


def plan(args: argparse.Namespace, root: Path) -> list[dict[str, Any]]:
    """simdup on rows.jsonl; the rensa anchor as rows.py runs it (on rows.jsonl.zst)."""
    out = root / "runs" / "simdup"
    output, removed = out / "clean.jsonl", out / "removed.jsonl"
    command = [sys.executable, "-m", "simdup", "dedup", str(root / "rows.jsonl")]
    command += ["-o", str(output), "--removed", str(removed), "--id-field", "id", "-q"]
    entries = [
        {
            "name": "simdup dedup (.jsonl)",
            "key": "simdup",
            "command": command,
            "folder": out,
            "output": output,
            "removed_file": removed,
        }
    ]
    if args.anchor:
        anchor = contenders(argparse.Namespace(only="rensa", rensa_bands=args.rensa_bands), root)
        entries += [
            dict(c, name="rjieba + rensa (rows_anchor.py, .jsonl.zst)")
            for c in anchor
            if c["key"] == "rensa"
        ]
    return entries


def read_removed(path: Path) -> dict[str, str]:
    """``{removed id: id of the row kept for it}`` from a ``--removed`` file (the fields
    ``key`` and ``duplicate_of`` of ``simdup dedup --removed``, also written by the anchor)."""
    removed: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            removed[str(record["key"])] = str(record["duplicate_of"])
    return removed


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of a JSON Lines file, plain or zstd-compressed."""
    with contextlib.ExitStack() as stack:
        plain = path.suffix != ".zst"
        lines = stack.enter_context(open(path, "rb")) if plain else zst_lines(path)
        for line in lines:
            if line.strip():
                yield json.loads(line)


def check_output(path: Path, removed: dict[str, str], ids: list[str]) -> dict[str, Any]:
    """Whether the output holds exactly the rows not removed, in input order."""
    kept = [str(row["id"]) for row in read_rows(path)]
    return {"kept_rows": len(kept), "output_ok": kept == [i for i in ids if i not in removed]}


def found(pair: dict[str, Any], removed: dict[str, str]) -> bool:
    a, b = pair["original"], pair["copy"]
    ra, rb = removed.get(a), removed.get(b)
    return ra == b or rb == a or (ra is not None and ra == rb)


def recall_table(planted: list[dict[str, Any]], removed: dict[str, str]) -> dict[str, Any]:
    """``{kind: {band or "all" or lang: {"found", "planted", "recall"}}}``."""
    out: dict[str, Any] = {}
    for kind in KINDS:
        pairs = [p for p in planted if p["kind"] == kind]
        cells: dict[str, Any] = {}
        for label, members in (
            [("all", pairs)]
            + [(name, [p for p in pairs if p["band"] == name]) for name in BAND_NAMES]
            + [(f"lang:{lang}", [p for p in pairs if p["lang"] == lang]) for lang in LANGS]
        ):
            hits = sum(found(p, removed) for p in members)
            cells[label] = {
                "found": hits,
                "planted": len(members),
                "recall": hits / len(members) if members else float("nan"),
            }
        out[kind] = cells
    return out


def score(
    removed: dict[str, str], manifest: dict[str, Any], texts: dict[str, str], examples: int
) -> dict[str, Any]:
    planted = manifest["planted"]
    forms: dict[str, str] = {}

    def form(row_id: str) -> str:
        if row_id not in forms:
            forms[row_id] = normalised(texts[row_id])
        return forms[row_id]

    removal_similarity = {r: similarity(form(r), form(k)) for r, k in removed.items()}
    false = sorted((r for r, v in removal_similarity.items() if v < NEAR), key=lambda r: int(r[1:]))
    recall = recall_table(planted, removed)
    in_pairs = {p["original"] for p in planted} | {p["copy"] for p in planted}
    negatives = [p for p in planted if p["kind"] == "negative"]
    missed_edited = [p for p in planted if p["kind"] == "edited" and not found(p, removed)]
    result: dict[str, Any] = {
        "removed": len(removed),
        "recall": recall,
        "negatives_removed": sum(found(p, removed) for p in negatives),
        "negatives": len(negatives),
        "false_removals": len(false),
        "false_removal_share": len(false) / len(removed) if removed else float("nan"),
        "false_removals_outside_planted_pairs": sum(r not in in_pairs for r in false),
        "removed_outside_planted_pairs": sum(r not in in_pairs for r in removed),
    }
    if examples:
        result["examples"] = {
            "false_removals": [
                {
                    "removed": r,
                    "kept": removed[r],
                    "edit_similarity": round(removal_similarity[r], 4),
                    "removed_text": texts[r],
                    "kept_text": texts[removed[r]],
                }
                for r in false[:examples]
            ],
            "missed_edited": [
                {**p, "original_text": texts[p["original"]], "copy_text": texts[p["copy"]]}
                for p in missed_edited[:examples]
            ],
        }
    return result


# "1,234 rows too short ...", "1234 too short", "too short to judge: 1234".
TOO_SHORT = re.compile(
    r"(\d[\d,]*)\s+(?:rows?\s+)?(?:were\s+|are\s+)?too short|too short[^\d\n]{0,30}(\d[\d,]*)",
    re.I,
)


def summary_run(root: Path) -> dict[str, Any]:
    """One more simdup run without ``-q``: its summary line and "too short" count, if any."""
    out = root / "runs" / "simdup-summary"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    command = [sys.executable, "-m", "simdup", "dedup", str(root / "rows.jsonl")]
    command += ["-o", str(out / "clean.jsonl"), "--id-field", "id"]
    m = run_measured(command, cwd=REPO)
    lines = [x for x in m.stderr.replace("\r", "\n").splitlines() if x.strip()]
    match = TOO_SHORT.search(m.stderr)
    return {
        "returncode": m.returncode,
        "stderr_tail": lines[-5:],
        "too_short": int((match.group(1) or match.group(2)).replace(",", "")) if match else None,
    }


def measure(args: argparse.Namespace, n: int) -> dict[str, Any]:
    docs, _ = bench_folders(args.bench)
    root, manifest = generate(n, args.seed, docs)
    texts = {str(row["id"]): row["text"] for row in read_rows(root / "rows.jsonl")}
    ids = list(texts)
    runnable = plan(args, root)

    def first_score(c: dict[str, Any], removed: Any) -> dict[str, Any]:
        found = score(removed, manifest, texts, args.examples)
        found.update(check_output(c["output"], removed, ids))
        return found

    inputs = [root / "rows.jsonl", root / "rows.jsonl.zst"]
    rounds_of_dedup_runs(runnable, args.repeat, f"short-{n}", rotated, read_removed, first_score,
                         inputs=[p for p in inputs if p.exists()])  # fmt: skip
    result: dict[str, Any] = {k: v for k, v in manifest.items() if k not in ("planted", "key")}
    result["contenders"] = [
        {k: v for k, v in c.items() if k not in ("folder", "output", "removed_file", "removals")}
        for c in runnable
    ]
    summarise_runs(result["contenders"])
    for c in result["contenders"]:
        if "median_seconds" in c:
            c["rows_per_second"] = manifest["rows_total"] / c["median_seconds"]
    if args.summary:
        log(f"short-{n}: one more simdup run without -q for its summary ...")
        result["simdup_summary"] = summary_run(root)
    return result


# ---------------------------------------------------------------- the report


def _recall(cell: dict[str, Any]) -> str:
    return f"{fmt(cell['recall'])} ({cell['found']}/{cell['planted']})" if cell else "—"


def main_table(result: dict[str, Any]) -> str:
    rows = []
    for c in result["contenders"]:
        s = c.get("score")
        secs = c.get("median_seconds")
        runs = " ".join(f"{r['seconds']:.1f}" for r in c["runs"])
        if not s:
            rows.append([c["name"], *["—"] * 10, f"failed ({runs})", "—", "—"])
            continue
        rec = s["recall"]
        rows.append(
            [
                c["name"],
                *[fmt(rec["edited"][b]["recall"]) for b in BAND_NAMES],
                fmt(rec["edited"]["all"]["recall"]),
                fmt(rec["exact"]["all"]["recall"]),
                fmt(rec["normalised"]["all"]["recall"]),
                f"{s['negatives_removed']}/{s['negatives']}",
                f"{s['false_removals']} ({100 * s['false_removal_share']:.1f}%)"
                if s["removed"]
                else "0",
                str(s["removed"]),
                f"{fmt(secs, 2)} ({runs})",
                fmt(c.get("rows_per_second"), 0),
                fmt(c.get("median_peak_pss_mb"), 0),
            ]
        )
    rows.append(
        [
            "*issue 32 target*",
            *[f"≥ {TARGET_EDITED_RECALL}"] * 4,
            "",
            f"{TARGET_EXACT_RECALL}",
            f"{TARGET_EXACT_RECALL}",
            "",
            f"≤ {100 * TARGET_FALSE_REMOVALS:.0f}%",
            "",
            "",
            "",
            "",
        ]
    )
    return markdown_table(
        [
            "contender",
            *[f"edited {b}" for b in BAND_NAMES],
            "edited all",
            "exact",
            "normalised",
            "hard negatives removed",
            "false removals (share)",
            "rows removed",
            "seconds: median (runs)",
            "rows/s",
            "peak PSS MB",
        ],
        rows,
    )


def detail_table(result: dict[str, Any]) -> str:
    """Recall (found/planted) of every kind by band and language, per contender; for the
    hard negatives, the share removed as a duplicate of their original."""
    rows = []
    for c in result["contenders"]:
        s = c.get("score")
        if not s:
            continue
        for kind in KINDS:
            cells = s["recall"][kind]
            label = "negatives removed" if kind == "negative" else kind
            rows.append(
                [
                    f"{c['key']}: {label}",
                    *[_recall(cells[b]) for b in BAND_NAMES],
                    _recall(cells["all"]),
                    *[_recall(cells[f"lang:{lang}"]) for lang in LANGS],
                ]
            )
    return markdown_table(["kind", *BAND_NAMES, "all", *LANGS], rows)


def targets(result: dict[str, Any]) -> list[str]:
    lines = []
    c = next((c for c in result["contenders"] if c["key"] == "simdup"), {})
    s = c.get("score")
    if not s:
        return ["- simdup did not run to the end: no figures"]
    rec = s["recall"]
    bands = [rec["edited"][b]["recall"] for b in BAND_NAMES]
    shown = ", ".join(f"{b} {v:.3f}" for b, v in zip(BAND_NAMES, bands, strict=True))
    lines.append(
        f"- edited recall ≥ {TARGET_EDITED_RECALL} in every band: {shown} → "
        f"{verdict(all(v >= TARGET_EDITED_RECALL for v in bands))}"
    )
    share = s["false_removal_share"] if s["removed"] else 0.0
    lines.append(
        f"- false removals ≤ {100 * TARGET_FALSE_REMOVALS:.0f}% of the rows removed: "
        f"{s['false_removals']} of {s['removed']} ({100 * share:.2f}%) → "
        f"{verdict(share <= TARGET_FALSE_REMOVALS)} ({s['negatives_removed']} of "
        f"{s['negatives']} hard negatives removed as a duplicate of their original)"
    )
    for kind in ("exact", "normalised"):
        value = rec[kind]["all"]["recall"]
        lines.append(
            f"- {kind} recall = 1.0: {value:.4f} → {verdict(value >= TARGET_EXACT_RECALL)}"
        )
    lines += output_checks(result["contenders"])
    summary = result.get("simdup_summary")
    if summary:
        too_short = summary["too_short"]
        tail = summary["stderr_tail"][-1] if summary["stderr_tail"] else ""
        lines.append(
            "- simdup's summary (a run without -q): "
            + (
                f"{too_short} rows too short to judge"
                if too_short is not None
                else 'no "too short" count'
            )
            + (f"; `{tail.strip()}`" if tail else "")
        )
    return lines


def examples_text(result: dict[str, Any]) -> str:
    c = next((c for c in result["contenders"] if c["key"] == "simdup"), {})
    ex = (c.get("score") or {}).get("examples")
    if not ex:
        return ""
    out = ["simdup, a few false removals (removed ← kept, edit similarity):"]
    if not ex["false_removals"]:
        out.append("- (none)")
    for e in ex["false_removals"]:
        out.append(
            f"- {e['removed']} ← {e['kept']} ({e['edit_similarity']:.3f}): "
            f"{json.dumps(e['removed_text'], ensure_ascii=False)} ← "
            f"{json.dumps(e['kept_text'], ensure_ascii=False)}"
        )
    out.append("\nsimdup, a few edited copies missed (original → copy, edit similarity):")
    if not ex["missed_edited"]:
        out.append("- (none)")
    for e in ex["missed_edited"]:
        out.append(
            f"- {e['original']} → {e['copy']} ({e['band']}, {e['lang']}, "
            f"{e['edit_similarity']:.3f}): {json.dumps(e['original_text'], ensure_ascii=False)}"
            f" → {json.dumps(e['copy_text'], ensure_ascii=False)}"
        )
    return "\n".join(out)


def heading(result: dict[str, Any], repeat: int) -> str:
    langs = result["originals_by_language"]
    copies = result["copies_by_language"]
    per_kind = {k: sum(v.values()) for k, v in result["copies_by_kind_and_band"].items()}
    return (
        f"### {result['rows_total']:,} short rows ({result['bytes'] / MB:.1f} MB of JSON "
        f"Lines): {result['originals']:,} originals (zh {langs.get('zh', 0):,}, mixed "
        f"{langs.get('mixed', 0):,}, en {langs.get('en', 0):,}) and {result['copies']:,} "
        f"planted copies ({', '.join(f'{k} {v}' for k, v in per_kind.items())}; zh "
        f"{copies.get('zh', 0)}, mixed {copies.get('mixed', 0)}, en {copies.get('en', 0)}), "
        f"{repeat} alternating round(s)"
        + "".join(
            f"; band {band}: {result['copies_wanted_per_band'] - short} copies of "
            f"{result['copies_wanted_per_band']} wanted (too few distinct rows of that length)"
            for band, short in result.get("copies_short_by_band", {}).items()
        )
    )


LEGEND = (
    "Rows of 20–300 characters cut from the set's Markdown; bands are the original's length "
    "in characters. Edited copies have an edit similarity of 0.90–0.99 to their original, "
    "hard negatives 0.70–0.85 (normalised forms: NFKC, casefold, [\\W_]+ → one space, no "
    "space between CJK ideographs; rapidfuzz Levenshtein normalized_similarity). A planted "
    "pair is found when one row was removed as a duplicate of the other, or both as "
    "duplicates of one kept row. False removals: removed rows whose kept row is not a "
    "near-duplicate (edit similarity < 0.90), share of the rows removed. zh / mixed / en: "
    "CJK-heavy, Latin-heavy with some CJK, no CJK. Medians of alternating runs on a shared, "
    "noisy machine; peak PSS: highest sampled sum over the command's processes."
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default=str(DEFAULT_BENCH), help="the visible set (row source)")
    ap.add_argument("--rows", default="20000", help="number of original rows (default 20000)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument(
        "--no-anchor", dest="anchor", action="store_false", help="leave out the rensa anchor"
    )
    ap.add_argument(
        "--rensa-bands", type=int, default=16, help="RMinHashLSH num_bands (default 16)"
    )
    ap.add_argument(
        "--no-summary",
        dest="summary",
        action="store_false",
        help="no extra simdup run without -q (its summary's too-short count)",
    )
    ap.add_argument(
        "--examples", type=int, default=5, help="false removals and misses shown (default 5)"
    )
    ap.add_argument("--generate-only", action="store_true", help="write the rows and stop")
    args = ap.parse_args()
    n = int(float(args.rows))
    if args.generate_only:
        docs, _ = bench_folders(args.bench)
        generate(n, args.seed, docs)
        return
    command = reproduce_command("short.py", sys.argv[1:])
    env = environment()
    print(f"Reproduce: `{command}`\n", flush=True)
    result = measure(args, n)
    record_load_end(env)
    lines = targets(result)
    parts = [
        heading(result, args.repeat),
        main_table(result),
        "Recall by band and language (found/planted):",
        detail_table(result),
        "Targets (issue 32), simdup:\n" + "\n".join(lines),
    ]
    if examples_text(result):
        parts.append(examples_text(result))
    text = "\n\n".join(parts)
    print(text + "\n\n" + LEGEND, flush=True)
    write_report(
        RESULTS / "short.json",
        "short",
        command=command,
        bench=args.bench,
        environment=env,
        notes=lines,
        sections={f"short-{n}": result},
        markdown="\n\n".join([f"Reproduce: `{command}`", text, LEGEND]),
    )


if __name__ == "__main__":
    main()
