"""The generated corpus of ``scale.py`` and ``rows.py``: short documents recombined from real
paragraphs of the visible set (1-5 KB, shared boilerplate; or, for scale.py's ``--short``, a
heading and 2-4 one-line paragraphs), ~2% of them planted near-copies of another (small content
edits; for ``--short``, paragraphs moved and 1-3 characters edited), shuffled ids, and the
planted pairs with their word-set Jaccard and length ratio; also what both score with: the
README's near-duplicate (edit similarity >= ``NEAR_EDIT_SIMILARITY``, rapidfuzz) and the
anchors' ``THRESHOLD``. Deterministic for a seed: scale.py writes the texts as a tree of files,
rows.py as rows."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from common import list_docs

# Bump when the generator's output changes: cached trees (and rows.py's rows) with another
# version are rebuilt.
GENERATOR_VERSION = 2
SHORT_GENERATOR_VERSION = 1  # the same for --short's documents
COPY_SHARE = 0.02
MIN_BYTES, MAX_BYTES, MEAN_EXTRA = 1000, 5000, 800  # 1000 + Exp(mean 800), capped: ~1.8 KB
THRESHOLD = 0.8

LICENCE_FOOTER = (
    "本文采用知识共享“署名-非商业性使用-相同方式共享 4.0”许可协议（CC BY-NC-SA 4.0）。"
    "转载请注明出处，并保持文章的完整性；商业转载请联系作者获得授权。"
    "This article is licensed under CC BY-NC-SA 4.0. Please credit the author when you share it."
)
SUBSCRIBE_FOOTER = (
    "（完）\n\n欢迎订阅本刊。邮件订阅请发送空邮件到 subscribe@example.com，"
    "或者在 RSS 阅读器中订阅。"
)


# ---------------------------------------------------------------- the generator


def paragraph_pool(docs: Path) -> tuple[list[str], list[str]]:
    """``(content paragraphs, newsletter boilerplate)`` of the visible set, deduplicated, sorted.

    Paragraphs of 40 bytes or more found in more than 2% of the source documents (the weekly's
    header lines), most frequent first, are the boilerplate; the others, 40 bytes to 2.5 KB, are
    content.
    """
    counts: dict[str, int] = {}
    files = list_docs(docs)
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="ignore").replace("\r\n", "\n")
        for para in {p.strip() for p in re.split(r"\n\s*\n", text)}:
            if para:
                counts[para] = counts.get(para, 0) + 1
    common = sorted(
        (p for p, c in counts.items() if c > 0.02 * len(files) and len(p.encode()) >= 40),
        key=lambda p: (-counts[p], p),
    )
    content = sorted(
        p for p, c in counts.items() if c <= 0.02 * len(files) and 40 <= len(p.encode()) <= 2500
    )
    return content, common


SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s")


def sentences(para: str) -> list[str]:
    return [s for s in SENTENCE_END.split(para) if s and s.strip()]


def make_document(rng: random.Random, pool: list[str], boiler: list[str]) -> list[str]:
    """Paragraphs of one document: random content up to its size, boilerplate often."""
    target = min(MAX_BYTES, MIN_BYTES + int(rng.expovariate(1 / MEAN_EXTRA)))
    paras: list[str] = []
    if rng.random() < 0.3:  # the newsletter header: its 1-3 most frequent lines
        paras += boiler[: rng.randint(1, min(3, len(boiler)))] if boiler else []
    footers = []
    if rng.random() < 0.3:
        footers.append(LICENCE_FOOTER)
    if rng.random() < 0.15:
        footers.append(SUBSCRIBE_FOOTER)
    size = sum(len(p.encode()) + 2 for p in paras + footers)
    while size < target:
        para = rng.choice(pool)
        n = len(para.encode()) + 2
        if size + n > MAX_BYTES and len(paras) > 0:
            break
        paras.append(para)
        size += n
    return paras + footers


def edit_copy(rng: random.Random, paras: list[str], pool: list[str]) -> tuple[list[str], list[str]]:
    """A near-copy: one or two small content edits, sometimes whitespace re-flowed."""
    paras = list(paras)
    kinds = [rng.choice(("change_sentence", "remove_sentence", "swap_words"))]
    if rng.random() < 0.2:
        kinds.append(rng.choice(("change_sentence", "remove_sentence", "swap_words")))
    for kind in kinds:
        idx = [i for i, p in enumerate(paras) if p not in (LICENCE_FOOTER, SUBSCRIBE_FOOTER)]
        i = rng.choice(idx)
        sents = sentences(paras[i])
        if kind == "change_sentence":
            other = sentences(rng.choice(pool)) or ["新的句子。"]
            sents[rng.randrange(len(sents))] = rng.choice(other)
            paras[i] = "".join(sents)
        elif kind == "remove_sentence":
            if len(sents) > 1:
                del sents[rng.randrange(len(sents))]
                paras[i] = "".join(sents)
            elif len(idx) > 1:
                del paras[i]
        else:  # swap two neighbouring words (or CJK characters)
            text = paras[i]
            words = text.split(" ")
            if len(words) > 2:
                k = rng.randrange(len(words) - 1)
                words[k], words[k + 1] = words[k + 1], words[k]
                paras[i] = " ".join(words)
            elif len(text) > 2:
                k = rng.randrange(len(text) - 1)
                paras[i] = text[:k] + text[k + 1] + text[k] + text[k + 2 :]
    if rng.random() < 0.5:
        kinds.append("reflow")
        # Hard-wrap at spaces (never inside a CJK run), trailing blanks, single blank lines.
        out = []
        for p in paras:
            words, line, lines = p.split(" "), "", []
            for w in words:
                if line and len(line) + len(w) > 72:
                    lines.append(line + "  ")
                    line = w
                else:
                    line = f"{line} {w}" if line else w
            lines.append(line)
            out.append("\n".join(lines))
        paras = out
    return paras, kinds


def word_set(text: str) -> set[str]:
    import rjieba

    return {w for w in rjieba.cut(text) if not w.isspace()}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def length_ratio(a: str, b: str) -> float:
    la, lb = len("".join(a.split())), len("".join(b.split()))
    return min(la, lb) / max(la, lb) if max(la, lb) else 1.0


# --short: documents under simdup.params.SHORT_TEXT_CHARS (400) characters, whitespace collapsed.
SHORT_MAX_CHARS = 390
SHORT_PARAGRAPH_CHARS = (40, 220)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")


def _visible(para: str) -> str:
    """Roughly what a reader sees of a paragraph: no images, no link targets."""
    return " ".join(_LINK_TARGET.sub("]", _IMAGE.sub("", para)).split())


def short_pool(pool: list[str]) -> list[str]:
    """The content paragraphs of one line short enough for a short document (whitespace
    collapsed) whose visible text (no images, no link targets) is most of them: a paragraph
    of images or bare links has little text to move."""
    low, high = SHORT_PARAGRAPH_CHARS
    return [
        p for p in pool
        if "\n" not in p.strip() and not p.lstrip().startswith(("#", "-", "*", ">"))
        and low <= len(" ".join(p.split())) <= high and len(_visible(p)) >= 0.8 * len(p.strip())
    ]  # fmt: skip


def make_short_document(rng: random.Random, pool: list[str]) -> list[str]:
    """A heading (often) and 2-4 paragraphs, under SHORT_MAX_CHARS characters collapsed."""
    paras: list[str] = []
    if rng.random() < 0.6:
        words = _visible(rng.choice(pool)).split()
        title = " ".join(words[:6]) if len(words) > 3 else words[0][:16] if words else "Notes"
        paras.append(f"# {title[:40].rstrip('。，,.:：')}")
    want = rng.randint(2, 4)
    for _ in range(40):
        para = rng.choice(pool)
        size = len(" ".join(" ".join([*paras, para]).split()))
        if size <= SHORT_MAX_CHARS:
            paras.append(para)
        if sum(not p.startswith("# ") for p in paras) >= want:
            break
    if sum(not p.startswith("# ") for p in paras) < 2:  # a heading and one paragraph at least
        paras = [p for p in paras if not p.startswith("# ")] or [rng.choice(pool)]
    return paras


def move_copy(rng: random.Random, paras: list[str]) -> tuple[list[str], list[str]]:
    """A copy with its paragraphs moved (two swapped, or one moved elsewhere; a heading stays
    first) and 1-3 characters edited (a letter inserted, deleted or changed)."""
    head = [p for p in paras[:1] if p.startswith("# ")]
    body = list(paras[len(head) :])
    kinds = []
    if len(body) >= 2:
        if len(body) == 2 or rng.random() < 0.5:
            i, j = rng.sample(range(len(body)), 2)
            body[i], body[j] = body[j], body[i]
            kinds.append("swap_paragraphs")
        else:
            where = rng.randrange(len(body))
            moved = body.pop(where)
            body.insert(rng.choice([k for k in range(len(body) + 1) if k != where]), moved)
            kinds.append("move_paragraph")
    out = head + body
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(out))
        text = out[k]
        at = rng.randrange(len(text))
        op = rng.choice(("insert", "delete", "substitute"))
        if op == "insert":
            text = text[:at] + rng.choice(_LETTERS) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + rng.choice(_LETTERS) + text[at + 1 :]
        out[k] = text
        kinds.append(f"{op}_character")
    return out, kinds


def planted_corpus(
    n: int, seed: int, pool: list[str], boiler: list[str], short: bool = False
) -> tuple[list[str], list[int], list[dict[str, Any]]]:
    """``(texts, ids, planted)``: ``n`` document texts, the shuffled id of each (copies and
    their sources land anywhere), and the planted copy pairs as ids (``a`` the source's, ``b``
    the copy's) with their word-set Jaccard, length ratio and edits. ``short``: short
    documents with moved paragraphs in their copies (``make_short_document``,
    ``move_copy``)."""
    rng = random.Random(seed)
    copies = round(n * COPY_SHARE)
    if short:
        pool = short_pool(pool)
        originals = [make_short_document(rng, pool) for _ in range(n - copies)]
    else:
        originals = [make_document(rng, pool, boiler) for _ in range(n - copies)]
    ids = list(range(n))
    rng.shuffle(ids)  # copies and their sources land anywhere in the tree
    sources = rng.sample(range(n - copies), copies)  # one copy per source at most
    texts: list[str] = ["\n\n".join(p) + "\n" for p in originals]
    planted = []
    for k, src in enumerate(sources):
        if short:
            paras, kinds = move_copy(rng, originals[src])
        else:
            paras, kinds = edit_copy(rng, originals[src], pool)
        text = "\n\n".join(paras) + "\n"
        if rng.random() < 0.25:
            kinds.append("blank_lines")
            text = text.replace("\n\n", "\n\n\n")
        texts.append(text)
        planted.append(
            {
                "a": ids[src],
                "b": ids[n - copies + k],
                "jaccard": round(jaccard(word_set(texts[src]), word_set(text)), 4),
                # Shorter over longer, in characters of whitespace-collapsed text.
                "length_ratio": round(length_ratio(texts[src], text), 4),
                "edits": kinds,
            }
        )
    return texts, ids, planted


# ---------------------------------------------------------------- near-duplicates

# A near-duplicate, as the README defines it: an edit similarity (1 - Levenshtein distance /
# longer length, on whitespace-collapsed text) of at least 0.9. Planted copies below it had a
# larger share of a short document rewritten (a paragraph dropped, two sentences replaced): the
# table counts them apart, neither in the recall target nor as extra pairs when reported.
NEAR_EDIT_SIMILARITY = 0.9


def edit_similarity(a: str, b: str) -> float:
    """1 - Levenshtein distance / longer length, on whitespace-collapsed texts (rapidfuzz)."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(" ".join(a.split()), " ".join(b.split())))
