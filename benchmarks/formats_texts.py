"""The formats benchmark (``formats.py``): what its modules share (the formats, the
folders, the targets) and the texts it converts: documents, families, the long text."""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from common import (
    REPO,
    RESULTS,
)

# The simdup of this checkout, for what runs in this process (commands run from the
# repository root, where ``python -m simdup`` finds it too).
sys.path.insert(1, str(REPO))


FORMATS_DIR = RESULTS / "formats"
# A change to how files are converted bumps this: everything converted again.
GENERATOR_VERSION = 1
FORMATS = ("txt", "docx", "odt", "html", "epub", "rtf", "doc", "pdf-office", "pdf-chromium")
# A family holds its Markdown source too (issue 34): the Markdown and its exports are one
# document.
MEMBERS = ("md", *FORMATS)
EXTENSION = {
    "md": ".md", "txt": ".txt", "docx": ".docx", "odt": ".odt", "html": ".html", "epub": ".epub",
    "rtf": ".rtf", "doc": ".doc", "pdf-office": ".pdf", "pdf-chromium": ".pdf",
}  # fmt: skip
HOW = {
    "md": "the Markdown source as written",
    "txt": "pandoc -t plain, in the original's encoding and line ends",
    "docx": "pandoc",
    "odt": "pandoc",
    "html": "pandoc -s",
    "epub": "pandoc (EPUB 3, a title page)",
    "rtf": "pandoc -s",
    "doc": "pandoc → DOCX → LibreOffice",
    "pdf-office": "pandoc → DOCX → LibreOffice",
    "pdf-chromium": "pandoc -s → HTML → Chromium print-to-PDF",
}
PANDOC_FORMATS = ("txt", "docx", "odt", "html", "epub", "rtf")
# pandoc reads the documents as GitHub does; images become their description (pandoc would
# otherwise fetch them to embed them, and Chromium would fetch them to print them).
PANDOC_FROM = "gfm"
LUA_FILTER = "function Image(el) return el.caption end\n"
FAMILY_SIZES = (1500, 2500, 4000, 6000, 8000, 11000, 15000, 20000, 27000, 35000, 45000, 60000)
LONG_PAGES = 300
# Targets of issue 24.
F1_TOLERANCE = 0.01
SCAN_RATIO_TARGET = 1.3
LONG_TARGET_SECONDS = 1.0
BENCH_DIR = Path(__file__).resolve().parent
CODECS = {
    "utf-8": "utf-8", "utf-8-sig": "utf-8-sig", "gbk": "gbk", "gb18030": "gb18030",
    "utf-16-le-bom": "utf-16", "utf-16-be-bom": "utf-16",
}  # fmt: skip
# How a plain-text copy is written back in its original's encoding: codec and BOM.
ENCODE = {
    "utf-8-sig": ("utf-8", b"\xef\xbb\xbf"), "utf-16-le-bom": ("utf-16-le", b"\xff\xfe"),
    "utf-16-be-bom": ("utf-16-be", b"\xfe\xff"),
}  # fmt: skip


def rel(path: Path) -> str:
    return os.path.relpath(path)


# ---------------------------------------------------------------- building the mixed set


def format_of(doc_id: str) -> str:
    """The format a document of the set is converted to: a stable hash of its id."""
    digest = hashlib.sha256(f"simdup-formats/{doc_id}".encode()).digest()
    return FORMATS[int.from_bytes(digest[:8], "big") % len(FORMATS)]


def true_text(path: Path, encoding: str) -> str:
    """A document's text as the set's labels define it: decoded with its true encoding, a
    leading BOM dropped (line ends made LF for the converters)."""
    text = path.read_bytes().decode(CODECS[encoding])
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def encoded(text: str, encoding: str, newline: str) -> bytes:
    """``text`` in a document's encoding and line ends (UTF-8 where it cannot be)."""
    if newline == "crlf":
        text = text.replace("\n", "\r\n")
    codec, bom = ENCODE.get(encoding, (encoding, b""))
    try:
        return bom + text.encode(codec)
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _first_line(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    lines = [ln.strip() for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    return lines[0] if lines else "unknown"


def tool_versions() -> dict[str, str]:
    """What the converted files depend on: the stamp of the cache."""
    antiword = "unavailable"
    try:
        usage = subprocess.run(["antiword"], capture_output=True, text=True).stderr
        antiword = next((ln.strip() for ln in usage.splitlines() if "Version" in ln), "unknown")
    except OSError:
        pass
    return {
        "pandoc": _first_line(["pandoc", "--version"]),
        "libreoffice": _first_line(["soffice", "--version"]),
        "chromium": _first_line(["chromium", "--version"]),
        "antiword": antiword,
    }


def _paragraph_pool(texts: dict[str, str]) -> list[tuple[str, str]]:
    """``(document, paragraph)`` for the distinct paragraphs of the set that may make up the
    families: 40 bytes to 2.5 KB, found in at most 2% of the documents (not boilerplate), with
    balanced code fences; each once, with the first document it was found in."""
    seen: dict[str, str] = {}
    df: Counter[str] = Counter()
    for doc, text in sorted(texts.items()):
        paragraphs = {p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()}
        for p in paragraphs:
            df[p] += 1
            seen.setdefault(p, doc)
    limit = max(2, len(texts) // 50)
    return [
        (seen[p], p) for p in sorted(seen)
        if 40 <= len(p.encode()) <= 2500 and df[p] <= limit and p.count("```") % 2 == 0
    ]  # fmt: skip


def family_texts(texts: dict[str, str], lineage: dict[str, str]) -> dict[str, str]:
    """The families' documents: paragraphs of the set drawn at random (seeded), no two from
    the same lineage of revisions in one document and none used twice, so that a family is a
    near-duplicate of nothing in the set."""
    pool = _paragraph_pool(texts)
    rng = random.Random(24)
    rng.shuffle(pool)
    used: set[int] = set()
    out = {}
    for number, size in enumerate(FAMILY_SIZES, 1):
        lineages: set[str] = set()
        chosen: list[str] = []
        total = 0
        for i, (doc, paragraph) in enumerate(pool):
            if total >= size:
                break
            if i in used or lineage[doc] in lineages:
                continue
            used.add(i)
            lineages.add(lineage[doc])
            chosen.append(paragraph)
            total += len(paragraph.encode())
        out[f"family{number:02d}"] = "\n\n".join(chosen) + "\n"
    return out


def long_text(texts: dict[str, str], chars: int) -> str:
    """Documents of the set one after the other (in id order) up to ``chars`` characters."""
    parts: list[str] = []
    total = 0
    for _, text in sorted(texts.items()):
        if total >= chars:
            break
        parts.append(text)
        total += len(text)
    return "\n\n".join(parts)
