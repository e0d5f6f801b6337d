"""Documents in other formats: simdup's readers on a mixed-format copy of the labelled set.

    python benchmarks/formats.py --bench ../shared/bench/visible      (or: make bench-formats)
    python benchmarks/formats.py --repeat 3 --sections quality,families,readers,scan,long

The benchmark set is Markdown. This program makes (once; cached in benchmarks/results/formats/,
converted again when the tools' versions in its ``stamp.json`` change) a copy of it in which
each document, its text decoded as labels.json says, is ONE of: plain text rendered by pandoc
(``-t plain``, written back in the original's encoding and line ends), DOCX, ODT, HTML, EPUB or
RTF made by pandoc, Word 97-2003 ``.doc`` or PDF made by pandoc and LibreOffice, or PDF made by
pandoc and headless Chromium (print to PDF); which one is chosen by a hash of the document's
id. Labels stay valid: a file is scored as the document it came from. Next to the documents,
``families/``: 12 documents made of paragraphs of the set (each paragraph used once, no two
from one lineage of revisions), each as its Markdown source and in all nine formats; and a
300-page text PDF. Beside it, ``sources/``: every document of the set twice, as its Markdown
file (as the set has it) and as its export in the mixed set (issue 34).

Measured, each in the same run:

- **quality**: ``simdup scan`` of the mixed tree (fresh process, ``--no-cache``), pairs and
  clusters scored with the set's ``score.py`` beside the plain-text scan of the original set,
  and beside the plain-text scan of the texts the bare libraries extract; the positives found
  per format; every pair the mixed scan loses or gains, with ``simdup.compare`` of the
  originals, of the documents rendered as plain text and of the converted files; how close
  each format's text is to its document rendered as plain text (word-set Jaccard, length
  ratio: what verification looks at);
- **sources**: ``simdup scan`` of the sources tree, scored like the mixed one (pairs F1 within
  0.01 of the plain-text scan), and per export format how many documents are found as one with
  their Markdown source (the pair reported; both in one cluster);
- **families**: each family must be exactly one cluster, with all its members (its Markdown
  source included) and nothing else;
- **readers**: per format, every document read in a fresh process per contender and round, the
  contenders alternating: by simdup as a scan's worker reads it (``readers.read_document``: a
  child process per file within the read limits), by the reader in place, and by the bare
  libraries (pypdfium2 page text; lxml over the DOCX, ODT and EPUB XML; ``lxml.html``;
  striprtf; antiword); medians per file and per MB;
- **scan**: fresh processes, alternating (``--repeat`` rounds): ``simdup scan`` of the mixed
  tree with ``--no-cache`` and with an empty cache folder (``--cache``), against the bare
  extraction of the same files (this program with ``--bare-extract``, as many processes as
  simdup has workers, texts written out) plus ``simdup scan --no-cache`` of those texts (target:
  at most 1.3 times); and, as a diagnostic, the scan with every reader run in place;
- **long**: a 300-page text PDF (documents of the set concatenated, pandoc, LibreOffice) read by
  simdup's PDF reader (target: 1 s) and by bare pypdfium2 (pages/s).

Printed as Markdown; every number in benchmarks/results/formats.json, the predictions and
reports in benchmarks/results/formats/out/.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    MB,
    REPO,
    RESULTS,
    bench_folders,
    default_scorer,
    environment,
    fmt,
    load_scorer,
    log,
    markdown_table,
    median,
    reproduce_command,
    run_measured,
    write_report,
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


def rotated(items: list[Any], round_no: int) -> list[Any]:
    """Round r starts at item r: each contender runs early in some rounds and late in others."""
    k = round_no % len(items) if items else 0
    return items[k:] + items[:k]


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


class Builder:
    """Makes the converted files under ``root`` (work/ holds each converter's outputs; a file
    already there is not made again)."""

    def __init__(self, root: Path, jobs: int) -> None:
        self.root = root
        self.work = root / "work"
        self.jobs = jobs
        self.filter = self.work / "images.lua"
        self.work.mkdir(parents=True, exist_ok=True)
        self.filter.write_text(LUA_FILTER, encoding="utf-8")

    def out(self, kind: str, key: str) -> Path:
        ext = ".pdf" if kind.startswith("pdf") else EXTENSION.get(kind, "." + kind)
        return self.work / kind / f"{key}{ext}"

    def write_sources(self, sources: dict[str, str]) -> None:
        """work/md/<key>.md; where one changed, what was made of it is made again."""
        for key, text in sources.items():
            path = self.out("md", key)
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() and path.read_text(encoding="utf-8") == text:
                continue
            for made in self.work.glob(f"*/{key}.*"):
                made.unlink()
            path.write_text(text, encoding="utf-8")

    def _pandoc(self, key: str, kind: str, title: str) -> None:
        target = self.out(kind, key)
        partial = target.with_name(f".part-{target.name}")
        to = "plain" if kind == "txt" else kind
        cmd = ["pandoc", "--quiet", "-f", PANDOC_FROM, "-t", to, "--lua-filter",
               str(self.filter), str(self.out("md", key)), "-o", str(partial)]  # fmt: skip
        if kind == "txt":
            cmd.append("--wrap=none")
        if kind in ("html", "rtf"):
            cmd.append("-s")
        if kind == "html":
            cmd += ["--metadata", f"pagetitle={title}"]
        if kind == "epub":
            cmd += ["--metadata", f"title={title}", "--metadata", "lang=zh-CN"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"pandoc failed on {key} ({kind}): {done.stderr[-1000:]}")
        os.replace(partial, target)

    def pandoc(self, wanted: list[tuple[str, str, str]]) -> None:
        """``(key, format, title)``: pandoc's conversions of work/md/<key>.md, two at a time."""
        todo = [w for w in wanted if not self.out(w[1], w[0]).exists()]
        if not todo:
            return
        log(f"pandoc: {len(todo)} conversions ...")
        for kind in {w[1] for w in todo}:
            self.out(kind, "x").parent.mkdir(parents=True, exist_ok=True)
        self._parallel(lambda w: self._pandoc(*w), todo, "pandoc")

    def _parallel(self, work: Callable[[Any], None], items: list[Any], what: str) -> None:
        started = time.perf_counter()
        done = 0
        with ThreadPoolExecutor(self.jobs) as pool:
            for _ in pool.map(work, items):
                done += 1
                if done % 100 == 0 or done == len(items):
                    log(f"  {what}: {done}/{len(items)} ({time.perf_counter() - started:.0f} s)")

    def office(self, keys: list[str], kind: str) -> None:
        """LibreOffice's conversions of work/docx/<key>.docx to ``.doc`` or PDF, in batches
        (LibreOffice takes seconds to start), each batch with a profile of its own."""
        target = "doc" if kind == "doc" else "pdf"
        todo = [k for k in keys if not self.out(kind, k).exists()]
        if not todo:
            return
        log(f"LibreOffice: {len(todo)} files to {kind} ...")
        self.out(kind, "x").parent.mkdir(parents=True, exist_ok=True)
        batches = [todo[i : i + 25] for i in range(0, len(todo), 25)]

        def batch(keys: list[str]) -> None:
            with tempfile.TemporaryDirectory(prefix="simdup-office-") as tmp:
                outdir = Path(tmp) / "out"
                cmd = ["soffice", f"-env:UserInstallation={Path(tmp, 'profile').as_uri()}",
                       "--headless", "--convert-to", target, "--outdir", str(outdir)]  # fmt: skip
                cmd += [str(self.out("docx", k)) for k in keys]
                subprocess.run(cmd, capture_output=True, timeout=3600)
                for k in keys:
                    made = outdir / f"{k}.{target}"
                    if made.exists():
                        shutil.move(str(made), self.out(kind, k))
                    else:
                        log(f"  LibreOffice made no {target} of {k}")

        self._parallel(batch, batches, f"LibreOffice {kind} batches")

    def chromium(self, keys: list[str]) -> None:
        """Chromium's print-to-PDF of work/html/<key>.html (no header or footer)."""
        todo = [k for k in keys if not self.out("pdf-chromium", k).exists()]
        if not todo:
            return
        log(f"Chromium: {len(todo)} pages to PDF ...")
        self.out("pdf-chromium", "x").parent.mkdir(parents=True, exist_ok=True)

        def one(key: str) -> None:
            target = self.out("pdf-chromium", key)
            partial = target.with_name(f".part-{target.name}")
            with tempfile.TemporaryDirectory(prefix="simdup-chromium-") as tmp:
                page = self.out("html", key).resolve().as_uri()
                cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                       f"--user-data-dir={tmp}", "--no-pdf-header-footer",
                       f"--print-to-pdf={partial}", page]  # fmt: skip
                for _ in range(3):
                    try:
                        subprocess.run(cmd, capture_output=True, timeout=300)
                    except subprocess.TimeoutExpired:
                        continue
                    if partial.exists() and partial.stat().st_size > 0:
                        os.replace(partial, target)
                        return
            raise SystemExit(f"Chromium made no PDF of {key}")

        self._parallel(one, todo, "Chromium")


def build(bench: Path, jobs: int, rebuild: bool) -> dict[str, Any]:
    """The mixed set, the families and the long PDF under benchmarks/results/formats/ (made
    when missing or when the stamp differs), and their manifest."""
    docs, labels_path = bench_folders(bench)
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    # What every converted file depends on: when it changes, everything is converted again.
    conversion = {
        "generator": GENERATOR_VERSION,
        "pandoc_from": PANDOC_FROM,
        "lua_filter": LUA_FILTER,
        "tools": tool_versions(),
    }
    stamp = {
        **conversion,
        "formats": list(FORMATS),
        "families": list(FAMILY_SIZES),
        "members": list(MEMBERS),
        "long_pages": LONG_PAGES,
        "layout": 3,
        "labels_sha256": hashlib.sha256(labels_path.read_bytes()).hexdigest(),
    }
    stamp_path = FORMATS_DIR / "stamp.json"
    manifest_path = FORMATS_DIR / "manifest.json"
    old = json.loads(stamp_path.read_text()) if stamp_path.exists() else None
    if rebuild or (old and {k: old.get(k) for k in conversion} != conversion):
        if FORMATS_DIR.exists():
            log("the converted files were made with other tools or settings: rebuilding ...")
            shutil.rmtree(FORMATS_DIR)
    elif old == stamp and manifest_path.exists():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
        return manifest
    missing = [tool for tool in ("pandoc", "soffice", "chromium") if not shutil.which(tool)]
    if missing:
        raise SystemExit(f"converting the set needs {', '.join(missing)} on the PATH")
    FORMATS_DIR.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    builder = Builder(FORMATS_DIR, jobs)

    documents = labels["documents"]
    texts: dict[str, str] = {}
    lineage: dict[str, str] = {}
    for d in documents:
        key = Path(d["path"]).stem
        texts[key] = true_text(bench / d["path"], d["encoding"])
        # A re-encoded copy is of its original's lineage.
        lineage[key] = f"{d['repo']}:{d['orig_path']}"
    families = family_texts(texts, lineage)
    builder.write_sources({**texts, **families})

    def title(text: str, key: str) -> str:
        found = re.search(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)
        return found.group(1)[:80] if found else key

    chosen = {Path(d["path"]).stem: format_of(Path(d["path"]).stem) for d in documents}
    wanted: set[tuple[str, str]] = set()
    for key, kind in chosen.items():
        if kind in PANDOC_FORMATS:
            wanted.add((key, kind))
        elif kind in ("doc", "pdf-office"):
            wanted.add((key, "docx"))
        elif kind == "pdf-chromium":
            wanted.add((key, "html"))
    for key in families:
        wanted |= {(key, kind) for kind in PANDOC_FORMATS}
    # Every document rendered as plain text too: the reference its readers' texts are held to.
    wanted |= {(key, "txt") for key in chosen}
    all_texts = {**texts, **families}
    builder.pandoc(sorted((k, kind, title(all_texts[k], k)) for k, kind in wanted))
    for kind in ("doc", "pdf-office"):
        keys = [k for k, c in chosen.items() if c == kind] + list(families)
        builder.office(sorted(keys), kind)
    builder.chromium(sorted([k for k, c in chosen.items() if c == "pdf-chromium"] + list(families)))

    def rendered(key: str) -> str:
        return builder.out("txt", key).relative_to(FORMATS_DIR).as_posix()

    # The tree that is scanned: docs/<h>/<id>.<ext> and families/<name>/<name>-<format>.<ext>.
    mixed = FORMATS_DIR / "mixed"
    if mixed.exists():
        shutil.rmtree(mixed)
    files = []
    for d in documents:
        key = Path(d["path"]).stem
        kind = chosen[key]
        target = mixed / Path(d["path"]).with_suffix(EXTENSION[kind])
        target.parent.mkdir(parents=True, exist_ok=True)
        made = builder.out(kind, key)
        if kind == "txt":  # plain text as the set has it: its encoding and line ends
            text = made.read_text(encoding="utf-8")
            target.write_bytes(encoded(text, d["encoding"], d["newline"]))
        else:
            shutil.copyfile(made, target)
        files.append({"path": target.relative_to(mixed).as_posix(), "format": kind,
                      "source": d["path"], "rendered": rendered(key)})  # fmt: skip
    family_members: dict[str, list[str]] = {}
    for key in families:
        family_members[key] = []
        for kind in MEMBERS:
            target = mixed / "families" / key / f"{key}-{kind}{EXTENSION[kind]}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(builder.out(kind, key), target)
            family_members[key].append(target.relative_to(mixed).as_posix())
            files.append({"path": family_members[key][-1], "format": kind, "source": key,
                          "rendered": rendered(key)})  # fmt: skip

    # Every document twice, as its Markdown source (the set's file, as written: its encoding and
    # line ends) and as its export in the mixed set: docs/<h>/<id>.md beside docs/<h>/<id>.<ext>.
    with_sources = FORMATS_DIR / "sources"
    if with_sources.exists():
        shutil.rmtree(with_sources)
    sources = []
    for f in files:
        if not f["source"].startswith("docs/"):
            continue
        for path, made, kind in (
            (Path(f["source"]).with_suffix(".md"), bench / f["source"], "md"),
            (Path(f["path"]), mixed / f["path"], f["format"]),
        ):
            target = with_sources / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(made, target)
            sources.append({"path": path.as_posix(), "format": kind, "source": f["source"],
                            "export": f["format"]})  # fmt: skip

    long_pdf = build_long(builder, texts)
    manifest = {
        "stamp": stamp,
        "files": files,
        "sources": sources,
        "families": family_members,
        "family_bytes": {k: len(v.encode()) for k, v in families.items()},
        "long_pdf": long_pdf,
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    stamp_path.write_text(json.dumps(stamp, indent=1) + "\n")
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    log(f"built {rel(mixed)} in {manifest['build_seconds']:.0f} s")
    return manifest


def build_long(builder: Builder, texts: dict[str, str]) -> dict[str, Any]:
    """A PDF of exactly LONG_PAGES pages of text: documents of the set concatenated until
    pandoc and LibreOffice make at least that many pages, then the first LONG_PAGES kept."""
    import pypdfium2 as pdfium

    target = FORMATS_DIR / "long" / f"long-{LONG_PAGES}.pdf"
    target.parent.mkdir(parents=True, exist_ok=True)
    chars = LONG_PAGES * 1500
    for _ in range(4):
        key = f"long-{chars}"
        builder.write_sources({key: long_text(texts, chars)})
        builder.pandoc([(key, "docx", key)])
        builder.office([key], "pdf-office")
        made = builder.out("pdf-office", key)
        if not made.exists():
            raise SystemExit("LibreOffice made no long PDF")
        source = pdfium.PdfDocument(str(made))
        pages = len(source)
        if pages >= LONG_PAGES:
            out = pdfium.PdfDocument.new()
            out.import_pages(source, list(range(LONG_PAGES)))
            out.save(str(target))
            out.close()
            source.close()
            where = target.relative_to(FORMATS_DIR).as_posix()
            return {"path": where, "source_chars": chars, "source_pages": pages,
                    "pages": LONG_PAGES, "bytes": target.stat().st_size}  # fmt: skip
        source.close()
        log(f"  {pages} pages from {chars:,} characters: more ...")
        chars = int(chars * LONG_PAGES / max(pages, 1) * 1.15)
    raise SystemExit("could not make a long enough PDF")


# ---------------------------------------------------------------- bare extraction

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
ODF_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
OPF = "{http://www.idpf.org/2007/opf}"
MAX_SIZE = 64 << 20


def bare_pdf(data: bytes) -> str:
    """pypdfium2: each page's text as PDFium gives it."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    texts = []
    for number in range(len(document)):
        page = document[number]
        textpage = page.get_textpage()
        texts.append(textpage.get_text_range())
        textpage.close()
        page.close()
    document.close()
    return "\n".join(texts)


def bare_docx(data: bytes) -> str:
    """lxml over word/document.xml: the ``w:t`` texts of each ``w:p``."""
    from lxml import etree

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = etree.fromstring(archive.read("word/document.xml"))
    return "\n".join("".join(t.text or "" for t in p.iter(f"{W}t")) for p in root.iter(f"{W}p"))


def bare_odt(data: bytes) -> str:
    """lxml over content.xml: the text of each ``text:p`` and ``text:h``."""
    from lxml import etree

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = etree.fromstring(archive.read("content.xml"))
    return "\n".join("".join(e.itertext()) for e in root.iter(f"{ODF_TEXT}p", f"{ODF_TEXT}h"))


def bare_epub(data: bytes) -> str:
    """lxml: container.xml, the package's spine, every chapter's text nodes (chapters that are
    not well-formed XML parsed in libxml2's recovery mode)."""
    import posixpath

    from lxml import etree

    recover = etree.XMLParser(recover=True)

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        container = etree.fromstring(archive.read("META-INF/container.xml"))
        opf = container.find(f".//{CONTAINER}rootfile").get("full-path")
        package = etree.fromstring(archive.read(opf))
        folder = posixpath.dirname(opf)
        hrefs = {i.get("id"): i.get("href") for i in package.iter(f"{OPF}item")}
        texts = []
        for ref in package.iter(f"{OPF}itemref"):
            name = posixpath.normpath(posixpath.join(folder, hrefs[ref.get("idref")]))
            chapter = etree.fromstring(archive.read(name), recover)
            texts.append("\n".join(chapter.itertext()))
    return "\n".join(texts)


def bare_html(data: bytes) -> str:
    """lxml.html: the text nodes of the body."""
    from lxml import html

    root = html.document_fromstring(data)
    return "\n".join(root.body.itertext())


def bare_rtf(data: bytes) -> str:
    from striprtf.striprtf import rtf_to_text

    text: str = rtf_to_text(  # type: ignore[no-untyped-call]
        data.decode("latin-1"), encoding="cp1252", errors="replace"
    )
    return text


def bare_doc(data: bytes) -> str:
    done = subprocess.run(["antiword", "-m", "UTF-8.txt", "-w", "0", "-"], input=data,
                          capture_output=True, check=True)  # fmt: skip
    return done.stdout.decode("utf-8", "replace")


def bare_plain(data: bytes) -> str:
    return data.decode("utf-8", "replace")


BARE = {
    ".pdf": bare_pdf, ".docx": bare_docx, ".odt": bare_odt, ".epub": bare_epub,
    ".html": bare_html, ".rtf": bare_rtf, ".doc": bare_doc, ".txt": bare_plain,
}  # fmt: skip


def import_libraries() -> float:
    """Seconds to import the bare libraries (done before timing files, where asked)."""
    started = time.perf_counter()
    import pypdfium2  # noqa: F401
    import striprtf.striprtf  # noqa: F401
    from lxml import etree, html  # noqa: F401

    return time.perf_counter() - started


def _extract_one(task: tuple[str, str]) -> int:
    source, target = task
    data = Path(source).read_bytes()
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    suffix = Path(source).suffix
    if suffix in (".txt", ".md"):
        out.write_bytes(data)  # a text file as it is: the plain-text scan decodes it
    else:
        # (PDFium may give lone surrogates: written as "?")
        out.write_text(BARE[suffix](data), encoding="utf-8", errors="replace")
    return len(data)


def bare_extract(source: Path, target: Path, jobs: int) -> None:
    """Every file under ``source`` through its bare library, its text written to ``target``
    (``<name>.txt``), largest files first, in ``jobs`` forked processes."""
    files = sorted((p for p in source.rglob("*") if p.is_file()), key=lambda p: -p.stat().st_size)
    tasks = [(str(p), str(target / f"{p.relative_to(source).as_posix()}.txt")) for p in files]
    if jobs <= 1:
        for task in tasks:
            _extract_one(task)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for _ in pool.imap_unordered(_extract_one, tasks, chunksize=4):
            pass


def time_files(contender: str, files: list[str]) -> dict[str, Any]:
    """Each file read by ``contender`` in this (fresh) process, timed: ``simdup`` as a scan's
    worker reads it (``read_document``: a child process per file within the read limits, the
    format's libraries imported where the reader imports them), ``in-place`` (the reader's
    ``read`` here, libraries imported first), ``bare`` (the bare library, imported first)."""
    imports = import_libraries() if contender != "simdup" else 0.0
    from simdup.readers import HEAD_BYTES, document_of, read_document, reader_for

    seconds: list[float] = []
    chars: list[int] = []
    skipped: dict[str, str] = {}
    for path in files:
        text: str | None = None
        started = time.perf_counter()
        try:
            if contender == "simdup":
                found = read_document(path, MAX_SIZE)
            elif contender == "in-place":
                data = Path(path).read_bytes()
                found = document_of(path, reader_for(path, data[:HEAD_BYTES]).read(path, data))
            else:
                found = None
                text = BARE[Path(path).suffix](Path(path).read_bytes())
        except Exception as exc:  # in place, a reader's failure is an exception
            found, skipped[path] = None, f"{type(exc).__name__}: {exc}"
        seconds.append(time.perf_counter() - started)
        if found is not None:
            text = getattr(found, "text", None)
            if text is None:
                skipped[path] = getattr(found, "reason", "skipped")
        chars.append(len(text) if text is not None else -1)
    return {"imports": imports, "seconds": seconds, "chars": chars, "skipped": skipped}


# ---------------------------------------------------------------- scans and scores


def simdup_scan(paths: list[str], out: Path, extra: Iterable[str] = ()) -> list[str]:
    """The ``simdup scan`` command writing a JSON report to ``out`` (run from the repository
    root, so that ``-m simdup`` is this checkout's)."""
    return [sys.executable, "-m", "simdup", "scan", *paths, "-q", "-f", "json", "--no-ignore",
            *extra, "-o", str(out)]  # fmt: skip


def scan_in_place(argv: list[str]) -> None:
    """``simdup scan`` with every reader run in place, not in a child process per file (a
    diagnostic: what the read limits' child processes cost a scan)."""
    import simdup.readers
    from simdup.cli import run

    simdup.readers.read_contained = lambda work, limits: work()  # type: ignore[assignment]
    sys.argv = ["simdup", "scan", *argv]
    run()


def run_checked(command: list[str]) -> dict[str, Any]:
    measured = run_measured(command, cwd=REPO)
    if measured.returncode != 0:
        raise SystemExit(f"failed ({measured.returncode}): {' '.join(command)}\n"
                         f"{measured.stderr[-3000:]}")  # fmt: skip
    return {
        "seconds": measured.seconds,
        "peak_rss_mb": measured.tree_peak_rss_mb,
        "max_rss_mb": measured.max_rss_mb,
        "stdout": measured.stdout,
    }


def load_report(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def comparable(report: dict[str, Any]) -> Any:
    """A report's pairs and clusters (what must not change from run to run)."""
    return {"pairs": report["pairs"], "clusters": report["clusters"]}


class Mapping:
    """Paths of a report (relative to the repository root, or absolute) back to the set's
    documents (``docs/<h>/<id>.md``) and to the files of the mixed tree (or of the tree of
    ``files``: the manifest's ``sources``)."""

    def __init__(
        self, manifest: dict[str, Any], mixed: Path, extracted: Path | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> None:  # fmt: skip
        self.mixed = mixed.resolve()
        self.extracted = extracted.resolve() if extracted else None
        self.files = {f["path"]: f for f in (manifest["files"] if files is None else files)}

    def member(self, path: str) -> str | None:
        """The file of the mixed tree that a report's path names (``docs/3/x.docx``)."""
        full = (REPO / path).resolve()
        for root, suffix in ((self.mixed, ""), (self.extracted, ".txt")):
            if root is None:
                continue
            try:
                inside = full.relative_to(root).as_posix()
            except ValueError:
                continue
            inside = inside.removesuffix(suffix)
            return inside if inside in self.files else None
        return None

    def document(self, path: str) -> str | None:
        """The document of the set a report's path stands for (None: a family member)."""
        found = self.files.get(self.member(path) or "")
        return found["source"] if found and found["source"].startswith("docs/") else None


def predictions(report: dict[str, Any], to_doc: Callable[[str], str | None]) -> dict[str, Any]:
    """A report's pairs and clusters as documents of the set (what is not one left out)."""
    pairs = []
    for p in report["pairs"]:
        a, b = to_doc(p["a"]), to_doc(p["b"])
        if a and b:
            pairs.append((a, b))
    clusters = []
    for c in report["clusters"]:
        members = [m for m in (to_doc(x["path"]) for x in c["members"]) if m]
        if len(members) > 1:
            clusters.append(members)
    return {"pairs": pairs, "clusters": clusters}


def scored(scorer: Any, labels: dict[str, Any], predicted: dict[str, Any]) -> dict[str, Any]:
    """score.py's figures for the pairs and for the clusters (a cluster claims all pairs of
    its members), with the TP and FP pairs of the pairs kept aside (keys ``_tp``, ``_fp``)."""
    cluster_pairs = [
        (c[i], c[j]) for c in predicted["clusters"] for i in range(len(c))
        for j in range(i + 1, len(c))
    ]  # fmt: skip
    pairs = scorer.score(labels, predicted["pairs"])
    clusters = scorer.score(labels, cluster_pairs)
    info = pairs["_info"]
    predicted_set = {tuple(sorted(p)) for p in predicted["pairs"]}
    tp = {k for k in predicted_set if k in info and info[k]["label"] == "pos"}
    public = {k: v for k, v in pairs.items() if not k.startswith("_")}
    public["clusters"] = {k: v for k, v in clusters.items() if not k.startswith("_")}
    public["_tp"], public["_fp"] = tp, set(pairs["_fp"])
    return public


def write_predictions(folder: Path, key: str, predicted: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    data = {"pairs": [{"a": a, "b": b} for a, b in predicted["pairs"]]}
    (folder / f"{key}.pairs.json").write_text(json.dumps(data, ensure_ascii=False))
    data2 = {"clusters": predicted["clusters"]}
    (folder / f"{key}.clusters.json").write_text(json.dumps(data2, ensure_ascii=False))


# ---------------------------------------------------------------- quality


def compared(a: Path, b: Path) -> dict[str, Any]:
    """``simdup.compare`` of two files: what decides a pair."""
    import simdup

    try:
        c = simdup.compare(rel(a), rel(b), top=8)
    except Exception as exc:  # a file that cannot be read
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "distance": c.distance,
        "jaccard": round(c.jaccard, 4),
        "length_ratio": round(c.length_ratio, 4),
        "near_duplicate": c.near_duplicate,
        "reason": c.reason,
        "only_a": [t.term for t in c.only_a],
        "only_b": [t.term for t in c.only_b],
    }


def compared_cell(c: dict[str, Any]) -> str:
    if "error" in c:
        return "unreadable: " + str(c["error"]).rpartition(": ")[2][:60]
    verdict = "yes" if c["near_duplicate"] else "no"
    return f"d={c['distance']} J={c['jaccard']:.3f} len={c['length_ratio']:.3f} {verdict}"


def quality(
    args: argparse.Namespace,
    manifest: dict[str, Any],
    scorer: Any,
    labels: dict[str, Any],
    tmp: Path,
) -> dict[str, Any]:
    """The plain-text scan of the set, the scan of the mixed tree and the plain-text scan of
    the bare libraries' texts, scored; what the mixed scan loses and gains, and why."""
    docs, _ = bench_folders(args.bench)
    mixed = FORMATS_DIR / "mixed"
    out = FORMATS_DIR / "out"
    out.mkdir(parents=True, exist_ok=True)
    extracted = tmp / "extracted"
    log("quality: plain-text scan of the set, scan of the mixed tree, bare extraction ...")
    runs = {
        "plain": run_checked(simdup_scan([rel(docs)], out / "plain.report.json", ["--no-cache"])),
        "mixed": run_checked(simdup_scan([rel(mixed)], out / "mixed.report.json", ["--no-cache"])),
        "sources": run_checked(
            simdup_scan([rel(FORMATS_DIR / "sources")], out / "sources.report.json", ["--no-cache"])
        ),
    }
    started = time.perf_counter()
    bare_extract(mixed, extracted, args.jobs)
    bare_seconds = time.perf_counter() - started
    runs["bare"] = run_checked(
        simdup_scan([str(extracted)], out / "bare.report.json", ["--no-cache"])
    )
    reports = {k: load_report(out / f"{k}.report.json") for k in runs}
    mapping = Mapping(manifest, mixed, extracted)
    with_sources = Mapping(manifest, FORMATS_DIR / "sources", files=manifest["sources"])
    fmt_of = {f["source"]: f["format"] for f in manifest["files"]}
    file_of = {f["source"]: mixed / f["path"] for f in manifest["files"]}
    rendered = {f["source"]: FORMATS_DIR / f["rendered"] for f in manifest["files"]}

    def plain_doc(path: str) -> str | None:
        full = (REPO / path).resolve()
        try:
            return full.relative_to(docs.resolve().parent).as_posix()
        except ValueError:
            return None

    rows: dict[str, Any] = {}
    for key, to_doc in (("plain", plain_doc), ("mixed", mapping.document),
                        ("bare", mapping.document),
                        ("sources", with_sources.document)):  # fmt: skip
        predicted = predictions(reports[key], to_doc)
        write_predictions(out, key, predicted)
        rows[key] = scored(scorer, labels, predicted)
        rows[key]["seconds"] = runs[key]["seconds"]
        rows[key]["summary"] = reports[key]["summary"]
        rows[key]["skipped"] = reports[key]["skipped"]
    rows["bare"]["extraction_seconds"] = bare_seconds

    # What the mixed scan loses and gains against the plain one.
    info = {(p["a"], p["b"]): p for p in labels["pairs"]}
    plain, mix = rows["plain"], rows["mixed"]
    changes = {
        "lost": sorted(plain["_tp"] - mix["_tp"]),
        "gained": sorted(mix["_tp"] - plain["_tp"]),
        "new_fp": sorted(mix["_fp"] - plain["_fp"]),
        "gone_fp": sorted(plain["_fp"] - mix["_fp"]),
    }
    details: dict[str, list[dict[str, Any]]] = {}
    for kind, pairs in changes.items():
        details[kind] = []
        for a, b in pairs[: args.diagnose]:
            label = info.get((a, b))
            details[kind].append({
                "a": a, "b": b, "formats": [fmt_of[a], fmt_of[b]],
                "label_sim": label["sim"] if label else None,
                "label_kind": label["kind"] if label else "negative",
                "plain": compared(args.bench / a, args.bench / b),
                "rendered": compared(rendered[a], rendered[b]),
                "mixed": compared(file_of[a], file_of[b]),
            })  # fmt: skip

    # Positives per format: those with a document in that format, found by each scan.
    by_format: dict[str, list[int]] = {k: [0, 0, 0] for k in FORMATS}
    for (a, b), p in info.items():
        if p["label"] != "pos":
            continue
        for kind in {fmt_of[a], fmt_of[b]}:
            by_format[kind][0] += 1
            by_format[kind][1] += (a, b) in plain["_tp"]
            by_format[kind][2] += (a, b) in mix["_tp"]

    source_pairs = markdown_source_pairs(manifest, reports["sources"], with_sources)

    fidelity: dict[str, Any] = {}
    if args.fidelity:
        log("quality: each file's text against its document rendered as plain text ...")
        per: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for f in manifest["files"]:
            c = compared(FORMATS_DIR / f["rendered"], mixed / f["path"])
            c["source"] = f["source"]
            per[f["format"]].append(c)
        for kind, found in per.items():
            ok = [c for c in found if "error" not in c]
            fidelity[kind] = {
                "files": len(found),
                "errors": len(found) - len(ok),
                "jaccard_median": median([c["jaccard"] for c in ok]),
                "jaccard_min": min((c["jaccard"] for c in ok), default=None),
                "length_ratio_median": median([c["length_ratio"] for c in ok]),
                "length_ratio_min": min((c["length_ratio"] for c in ok), default=None),
                "length_ratio_below_0.97": sum(c["length_ratio"] < 0.97 for c in ok),
                "distance_median": median([c["distance"] for c in ok]),
                "not_near_duplicates": sum(not c["near_duplicate"] for c in ok),
                "worst": sorted(ok, key=lambda c: c["jaccard"] + c["length_ratio"])[:3],
            }
    for r in rows.values():
        r.pop("_tp")
        r.pop("_fp")
    return {
        "rows": rows,
        "changes": {k: len(v) for k, v in changes.items()},
        "details": details,
        "by_format": by_format,
        "source_pairs": source_pairs,
        "fidelity": fidelity,
        "formats": Counter(
            f["format"] for f in manifest["files"] if f["source"].startswith("docs/")
        ),  # fmt: skip
    }


def markdown_source_pairs(
    manifest: dict[str, Any], report: dict[str, Any], mapping: Mapping
) -> dict[str, dict[str, int]]:
    """Per export format, how many documents of the set the scan of the sources tree found as
    one with their Markdown source: the pair reported, and both in one cluster."""
    exports: dict[str, str] = {f["source"]: f["export"] for f in manifest["sources"]}
    paired: set[str] = set()
    for p in report["pairs"]:
        a, b = mapping.member(p["a"]), mapping.member(p["b"])
        if a and b:
            fa, fb = mapping.files[a], mapping.files[b]
            if fa["source"] == fb["source"] and {fa["format"], fb["format"]} >= {"md"}:
                paired.add(fa["source"])
    together: set[str] = set()
    for c in report["clusters"]:
        kinds: dict[str, set[str]] = defaultdict(set)
        for m in c["members"]:
            member = mapping.member(m["path"])
            if member:
                f = mapping.files[member]
                kinds[f["source"]].add("md" if f["format"] == "md" else "export")
        together |= {doc for doc, k in kinds.items() if len(k) == 2}
    out: dict[str, dict[str, int]] = {}
    for doc, kind in exports.items():
        row = out.setdefault(kind, {"documents": 0, "pair": 0, "cluster": 0})
        row["documents"] += 1
        row["pair"] += doc in paired
        row["cluster"] += doc in together
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- families


def families_check(manifest: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """Each family must be exactly one cluster of the mixed scan: all its members, nothing
    else."""
    mapping = Mapping(manifest, FORMATS_DIR / "mixed")
    fmt_of = {f["path"]: f["format"] for f in manifest["files"]}
    clusters = [
        {mapping.member(m["path"]) or m["path"] for m in c["members"]} for c in report["clusters"]
    ]
    pairs = {frozenset((mapping.member(p["a"]), mapping.member(p["b"]))) for p in report["pairs"]}
    out = {}
    for name, members in manifest["families"].items():
        wanted = set(members)
        touching = [c for c in clusters if c & wanted]
        found = set().union(*touching) if touching else set()
        n = len(members)
        out[name] = {
            "members": n,
            "clusters": len(touching),
            "ok": len(touching) == 1 and touching[0] == wanted,
            "missing": sorted(fmt_of[m] for m in wanted - found),
            "extra": sorted(found - wanted),
            "split": [sorted(fmt_of.get(m, m) for m in c & wanted) for c in touching]
            if len(touching) > 1 else [],
            "pairs_reported": sum(
                frozenset((a, b)) in pairs for i, a in enumerate(members) for b in members[i + 1:]
            ),
            "pairs_possible": n * (n - 1) // 2,
            "bytes": manifest["family_bytes"][name],
        }  # fmt: skip
    return out


# ---------------------------------------------------------------- reader times


def reader_times(args: argparse.Namespace, manifest: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """Every document of the mixed set read by each contender in a fresh process per round,
    the contenders alternating; per format, medians."""
    mixed = FORMATS_DIR / "mixed"
    files = [f for f in manifest["files"] if f["source"].startswith("docs/")]
    paths = [rel(mixed / f["path"]) for f in files]
    listing = tmp / "files.json"
    listing.write_text(json.dumps(paths))
    contenders = ["simdup", "in-place", "bare"]
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    for round_no in range(args.repeat):
        for contender in rotated(contenders, round_no):
            log(f"readers {round_no + 1}/{args.repeat}: {contender} ...")
            out = tmp / "times.json"
            run_checked([sys.executable, str(BENCH_DIR / "formats.py"), "--time-files",
                         contender, str(listing), str(out)])  # fmt: skip
            runs[contender].append(json.loads(out.read_text()))
    per: dict[str, Any] = {}
    for kind in FORMATS:
        idx = [i for i, f in enumerate(files) if f["format"] == kind]
        if not idx:
            continue
        size = sum((mixed / files[i]["path"]).stat().st_size for i in idx)
        row: dict[str, Any] = {"files": len(idx), "mb": size / MB}
        for c in contenders:
            per_file = [median([r["seconds"][i] for r in runs[c]]) for i in idx]
            totals = [sum(r["seconds"][i] for i in idx) for r in runs[c]]
            row[c] = {
                "ms_per_file_median": 1000 * median(per_file),
                "seconds_total_median": median(totals),
                "ms_per_mb": 1000 * median(totals) / (size / MB),
                "skipped": sorted(
                    {files[i]["path"] for r in runs[c] for i in idx if r["chars"][i] < 0}
                ),  # fmt: skip
            }
        row["simdup_over_bare"] = row["simdup"]["seconds_total_median"] / max(
            row["bare"]["seconds_total_median"], 1e-9
        )
        row["in_place_over_bare"] = row["in-place"]["seconds_total_median"] / max(
            row["bare"]["seconds_total_median"], 1e-9
        )
        per[kind] = row
    imports = {c: median([r["imports"] for r in runs[c]]) for c in contenders}
    return {"formats": per, "imports_seconds": imports, "runs": runs}


# ---------------------------------------------------------------- whole scans


def scan_times(
    args: argparse.Namespace, manifest: dict[str, Any], tmp: Path, expected: Any
) -> dict[str, Any]:
    """Fresh processes, alternating: the scans of the mixed tree against bare extraction plus
    a plain-text scan of its texts."""
    docs, _ = bench_folders(args.bench)
    mixed = rel(FORMATS_DIR / "mixed")
    extracted = tmp / "scan-extracted"
    cache = tmp / "cache"
    out = tmp / "scan.json"
    bare_cmd = [sys.executable, str(BENCH_DIR / "formats.py"), "--bare-extract", mixed,
                str(extracted), "--jobs", str(args.jobs)]  # fmt: skip
    run_checked(bare_cmd)  # the texts the plain-text scan reads
    contenders = {
        "scan mixed --no-cache": simdup_scan([mixed], out, ["--no-cache"]),
        "scan mixed, empty cache": simdup_scan([mixed], out, ["--cache", str(cache)]),
        "bare extraction": bare_cmd,
        "scan of the extracted texts --no-cache": simdup_scan([str(extracted)], out,
                                                              ["--no-cache"]),
        "scan of the original set --no-cache": simdup_scan([rel(docs)], out, ["--no-cache"]),
        "scan mixed --no-cache, readers in place (diagnostic)": [
            sys.executable, str(BENCH_DIR / "formats.py"), "--scan-in-place",
            *simdup_scan([mixed], out, ["--no-cache"])[4:],
        ],
    }  # fmt: skip
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in contenders}
    for round_no in range(args.repeat):
        for label in rotated(list(contenders), round_no):
            if label == "scan mixed, empty cache":
                shutil.rmtree(cache, ignore_errors=True)
            if label == "bare extraction":
                shutil.rmtree(extracted, ignore_errors=True)
            log(f"scan {round_no + 1}/{args.repeat}: {label} ...")
            measured = run_checked(contenders[label])
            measured.pop("stdout")
            if label.startswith("scan"):
                report = load_report(out)
                measured["stages"] = report["summary"]["seconds"]
                if label.startswith("scan mixed"):
                    measured["identical"] = comparable(report) == expected
            runs[label].append(measured)
            log(f"  {measured['seconds']:.2f} s")
    medians = {k: median([r["seconds"] for r in v]) for k, v in runs.items()}
    baseline = medians["bare extraction"] + medians["scan of the extracted texts --no-cache"]
    per_round = [
        runs["bare extraction"][i]["seconds"]
        + runs["scan of the extracted texts --no-cache"][i]["seconds"]
        for i in range(args.repeat)
    ]
    return {
        "jobs": args.jobs,
        "runs": runs,
        "medians": medians,
        "baseline_seconds": baseline,
        "baseline_per_round": per_round,
        "ratio_no_cache": medians["scan mixed --no-cache"] / baseline,
        "ratio_cold_cache": medians["scan mixed, empty cache"] / baseline,
        "files": len(manifest["files"]),
        "bytes": sum(
            (FORMATS_DIR / "mixed" / f["path"]).stat().st_size for f in manifest["files"]
        ),  # fmt: skip
    }


# ---------------------------------------------------------------- the long PDF


def long_pdf(args: argparse.Namespace, manifest: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """The 300-page PDF read in fresh processes, alternating: by simdup as a scan's worker
    does, by the PDF reader in place, and by bare pypdfium2."""
    path = rel(FORMATS_DIR / manifest["long_pdf"]["path"])
    listing = tmp / "long.json"
    listing.write_text(json.dumps([path]))
    contenders = ["simdup", "in-place", "bare"]
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    for round_no in range(args.repeat):
        for contender in rotated(contenders, round_no):
            out = tmp / "long-times.json"
            run_checked([sys.executable, str(BENCH_DIR / "formats.py"), "--time-files",
                         contender, str(listing), str(out)])  # fmt: skip
            runs[contender].append(json.loads(out.read_text()))
    pages = manifest["long_pdf"]["pages"]
    result: dict[str, Any] = {"pages": pages, "bytes": manifest["long_pdf"]["bytes"]}
    for c in contenders:
        seconds = median([r["seconds"][0] for r in runs[c]])
        result[c] = {
            "seconds": seconds,
            "every_run": [r["seconds"][0] for r in runs[c]],
            "pages_per_second": pages / seconds,
            "chars": runs[c][0]["chars"][0],
            "imports_seconds": median([r["imports"] for r in runs[c]]),
        }
    return result


# ---------------------------------------------------------------- tables


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def quality_tables(q: dict[str, Any]) -> tuple[str, list[str]]:
    rows = q["rows"]
    names = {
        "plain": "plain-text scan of the original set",
        "mixed": "**simdup scan of the mixed-format set**",
        "bare": "plain-text scan of the bare libraries' texts of the mixed set",
        "sources": "**simdup scan of the mixed set with every document's Markdown source**",
    }
    table = []
    for key, label in names.items():
        r = rows[key]
        c = r["clusters"]
        table.append([label, fmt(r["precision"]), fmt(r["recall"]), fmt(r["f1"]),
                      fmt(c["precision"]), fmt(c["recall"]), fmt(c["f1"]),
                      str(r["predicted_pairs"]), str(r["summary"]["files_skipped"]),
                      fmt(r["seconds"], 2)])  # fmt: skip
    lines = [
        "### Quality (score.py; converted files scored as the documents they came from)",
        "",
        markdown_table(["scan", "pairs P", "pairs R", "pairs F1", "clusters P", "clusters R",
                        "clusters F1", "predicted pairs", "files skipped", "seconds"], table),
    ]  # fmt: skip
    delta = rows["mixed"]["f1"] - rows["plain"]["f1"]
    delta_c = rows["mixed"]["clusters"]["f1"] - rows["plain"]["clusters"]["f1"]
    targets = [
        f"pairs F1 of the mixed set − plain = {delta:+.4f} (target: within "
        f"{F1_TOLERANCE}): {met(abs(delta) <= F1_TOLERANCE)}; clusters F1 {delta_c:+.4f}"
    ]
    delta_s = rows["sources"]["f1"] - rows["plain"]["f1"]
    targets.append(
        f"pairs F1 of the mixed set with the Markdown sources − plain = {delta_s:+.4f} (target: "
        f"within {F1_TOLERANCE}): {met(abs(delta_s) <= F1_TOLERANCE)}"
    )
    sp = q["source_pairs"]
    paired = sum(r["pair"] for r in sp.values())
    clustered = sum(r["cluster"] for r in sp.values())
    documents = sum(r["documents"] for r in sp.values())
    targets.append(
        f"documents found as one with their Markdown source: {paired}/{documents} pairs, "
        f"{clustered}/{documents} in one cluster {met(clustered == documents)}"
    )
    table = [[k, HOW[k], str(r["documents"]), str(r["pair"]), str(r["documents"] - r["pair"]),
              str(r["cluster"])] for k, r in sp.items()]  # fmt: skip
    lines += ["", "Each document of the set and its export, scanned together (the sources "
              "tree): the pair between the Markdown source and the export, per export format:",
              "", markdown_table(["export", "made by", "documents", "pair found", "missed",
                                  "one cluster"], table)]  # fmt: skip
    ch = q["changes"]
    lines += ["", f"Against the plain-text scan the mixed scan loses {ch['lost']} true pairs, "
              f"gains {ch['gained']}, adds {ch['new_fp']} false positives and drops "
              f"{ch['gone_fp']}."]  # fmt: skip
    for r in rows.values():
        for s in r["skipped"][:5]:
            lines.append(f"- skipped: `{s.get('path')}`: {s.get('reason')}")
    table = [
        [k, HOW[k], str(q["formats"].get(k, 0)), str(v[0]), str(v[1]), str(v[2])]
        for k, v in q["by_format"].items()
    ]
    lines += ["", "Positives with a document in each format (a pair of two formats counts in "
              "both rows):", "",
              markdown_table(["format", "made by", "documents", "positives", "found (plain)",
                              "found (mixed)"], table)]  # fmt: skip
    for kind, title in (("lost", "True pairs the mixed scan loses"),
                        ("gained", "True pairs the mixed scan gains"),
                        ("new_fp", "False positives the mixed scan adds"),
                        ("gone_fp", "False positives the mixed scan drops")):  # fmt: skip
        found = q["details"][kind]
        if not found:
            continue
        table = [
            [f"`{d['a']}`", f"`{d['b']}`", " × ".join(d["formats"]), str(d["label_sim"]),
             d["label_kind"], compared_cell(d["plain"]), compared_cell(d["rendered"]),
             compared_cell(d["mixed"])]
            for d in found
        ]  # fmt: skip
        lines += ["", f"{title} ({len(found)} shown; `simdup.compare` of the original "
                  "Markdown files, of the documents rendered as plain text (pandoc) and of the "
                  "converted files: Hamming distance, word-set Jaccard, length ratio, "
                  "verdict):", "",
                  markdown_table(["a", "b", "formats", "label sim", "kind", "originals",
                                  "rendered", "converted"], table)]  # fmt: skip
    if q["fidelity"]:
        table = []
        for kind in MEMBERS:
            f = q["fidelity"].get(kind)
            if not f:
                continue
            worst = ", ".join(
                f"`{w['source'].rpartition('/')[2]}` J={w['jaccard']:.3f} "
                f"len={w['length_ratio']:.3f}" for w in f["worst"])  # fmt: skip
            table.append([kind, str(f["files"]), fmt(f["jaccard_median"]), fmt(f["jaccard_min"]),
                          fmt(f["length_ratio_median"]), fmt(f["length_ratio_min"]),
                          str(f["length_ratio_below_0.97"]), fmt(f["distance_median"], 0),
                          str(f["not_near_duplicates"]), worst])  # fmt: skip
        lines += ["", "Each file's text (documents and families) against its document rendered "
                  "as plain text by pandoc (`simdup.compare`; the plain-text files are those "
                  "renderings re-encoded):", "",
                  markdown_table(["format", "files", "word Jaccard median", "min",
                                  "length ratio median", "min", "length ratio < 0.97",
                                  "Hamming median", "not near-duplicates", "furthest"],
                                 table)]  # fmt: skip
    return "\n".join(lines), targets


def families_table(fam: dict[str, Any], manifest: dict[str, Any]) -> tuple[str, list[str]]:
    table = []
    for name, f in fam.items():
        notes = []
        if f["missing"]:
            notes.append("missing: " + ", ".join(f["missing"]))
        if f["extra"]:
            notes.append("extra: " + ", ".join(f"`{x}`" for x in f["extra"][:5]))
        if f["split"]:
            notes.append("split: " + " | ".join(", ".join(s) for s in f["split"]))
        table.append([name, f"{f['bytes']:,}", str(f["members"]), str(f["clusters"]),
                      f"{f['pairs_reported']}/{f['pairs_possible']}",
                      "yes" if f["ok"] else "**no**", "; ".join(notes)])  # fmt: skip
    ok = sum(f["ok"] for f in fam.values())
    text = "\n".join([
        f"### Families: one document in every format ({', '.join(MEMBERS)})",
        "",
        markdown_table(["family", "Markdown bytes", "members", "clusters", "pairs reported",
                        "one cluster, exactly its members", "notes"], table),
    ])  # fmt: skip
    return text, [f"families that are exactly one cluster: {ok}/{len(fam)} "
                  f"{met(ok == len(fam))}"]  # fmt: skip


def readers_table(r: dict[str, Any]) -> str:
    table = []
    for kind, row in r["formats"].items():
        table.append([
            kind, str(row["files"]), fmt(row["mb"], 2),
            fmt(row["simdup"]["ms_per_file_median"], 1),
            fmt(row["in-place"]["ms_per_file_median"], 1),
            fmt(row["bare"]["ms_per_file_median"], 1),
            fmt(row["simdup"]["ms_per_mb"], 0), fmt(row["in-place"]["ms_per_mb"], 0),
            fmt(row["bare"]["ms_per_mb"], 0),
            fmt(row["simdup_over_bare"], 2), fmt(row["in_place_over_bare"], 2),
        ])  # fmt: skip
    imports = r["imports_seconds"]
    return "\n".join([
        "### Reading each format (fresh process per contender and round, medians)",
        "",
        markdown_table(["format", "files", "MB", "simdup ms/file", "in place ms/file",
                        "bare ms/file", "simdup ms/MB", "in place ms/MB", "bare ms/MB",
                        "simdup ÷ bare", "in place ÷ bare"], table),
        "",
        "simdup: `readers.read_document` as a scan's worker calls it (sniffing, a child process "
        "per file within the read limits; the libraries imported where the reader imports "
        "them); in place: the reader's `read` in this process; bare: the library alone. "
        f"In place and bare import the libraries first ({fmt(imports['bare'], 3)} s, not "
        "counted). Per-file medians are medians over files of each file's median over rounds; "
        "ms/MB is the median total over rounds per MB of input.",
    ])  # fmt: skip


def scan_table(s: dict[str, Any]) -> tuple[str, list[str]]:
    table = []
    base = s["baseline_seconds"]
    for label, runs in s["runs"].items():
        stages = [r.get("stages", {}).get("fingerprint") for r in runs]
        table.append([
            label, fmt(s["medians"][label], 2), " ".join(fmt(r["seconds"], 2) for r in runs),
            fmt(median([r["peak_rss_mb"] or 0 for r in runs]), 0),
            fmt(median([x for x in stages if x is not None]), 2) if any(stages) else "—",
            fmt(s["medians"][label] / base, 2),
        ])  # fmt: skip
    same = all(r.get("identical", True) for k, v in s["runs"].items() for r in v)
    text = "\n".join([
        f"### Whole scan of the mixed tree ({s['files']} files, {s['bytes'] / MB:.1f} MB; "
        f"fresh processes, alternating; {s['jobs']} workers / bare processes)",
        "",
        markdown_table(["run", "median s", "every run", "peak tree RSS MB",
                        "fingerprint stage s", "÷ baseline"], table),
        "",
        f"Baseline: bare extraction + plain-text scan of its texts = {base:.2f} s (medians). "
        f"Every mixed scan gave the pairs and clusters of the quality run: {same}.",
    ])  # fmt: skip
    worst = max(s["ratio_no_cache"], s["ratio_cold_cache"])
    targets = [
        f"scan of the mixed set ÷ (bare extraction + plain-text scan): --no-cache "
        f"{s['ratio_no_cache']:.2f}, empty cache {s['ratio_cold_cache']:.2f} (target ≤ "
        f"{SCAN_RATIO_TARGET}): {met(worst <= SCAN_RATIO_TARGET)}"
    ]
    return text, targets


def long_table(r: dict[str, Any]) -> tuple[str, list[str]]:
    names = {"simdup": "simdup (`read_document`, as a scan's worker)",
             "in-place": "PDF reader in place (pypdfium2 imported before)",
             "bare": "bare pypdfium2: page text (imported before)"}  # fmt: skip
    table = [
        [names[c], fmt(r[c]["seconds"], 3), " ".join(fmt(x, 3) for x in r[c]["every_run"]),
         fmt(r[c]["pages_per_second"], 0), f"{r[c]['chars']:,}"]
        for c in ("simdup", "in-place", "bare")
    ]  # fmt: skip
    text = "\n".join([
        f"### A {r['pages']}-page text PDF ({r['bytes'] / MB:.1f} MB)",
        "",
        markdown_table(["reader", "median s", "every run", "pages/s", "characters"], table),
    ])  # fmt: skip
    s = r["simdup"]["seconds"]
    return text, [f"{r['pages']}-page PDF read by simdup in {s:.3f} s (target ≤ "
                  f"{LONG_TARGET_SECONDS:g} s): {met(s <= LONG_TARGET_SECONDS)}"]  # fmt: skip


# ---------------------------------------------------------------- main


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS
        return max(1, os.cpu_count() or 1)


SECTIONS = ("quality", "families", "readers", "scan", "long")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/, labels)")
    ap.add_argument("--score", type=Path, help="score.py (default: next to the set folder)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every timed contender")
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"of {', '.join(SECTIONS)}")
    ap.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        help="bare extraction processes (default: as many as simdup's workers)",
    )
    ap.add_argument("--convert-jobs", type=int, default=2, help="converters run at once")
    ap.add_argument("--rebuild", action="store_true", help="convert everything again")
    ap.add_argument("--build-only", action="store_true", help="make the files, measure nothing")
    ap.add_argument(
        "--diagnose", type=int, default=40, help="pairs of each kind of change compared in detail"
    )
    ap.add_argument(
        "--no-fidelity",
        dest="fidelity",
        action="store_false",
        help="skip comparing every converted document with its original",
    )
    # Internal: what the measured subprocesses run.
    ap.add_argument("--bare-extract", nargs=2, metavar=("SRC", "DST"), help=argparse.SUPPRESS)
    ap.add_argument("--time-files", nargs=3, metavar=("WHO", "LIST", "OUT"), help=argparse.SUPPRESS)
    if argv[:1] == ["--scan-in-place"]:  # internal too: the rest are simdup scan's arguments
        scan_in_place(argv[1:])
        return 0
    args = ap.parse_args(argv)
    if args.bare_extract:
        bare_extract(Path(args.bare_extract[0]), Path(args.bare_extract[1]), args.jobs)
        return 0
    if args.time_files:
        who, listing, out = args.time_files
        result = time_files(who, json.loads(Path(listing).read_text()))
        Path(out).write_text(json.dumps(result))
        return 0

    sections = [s for s in args.sections.split(",") if s]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    try:
        import_libraries()
    except ImportError as exc:
        raise SystemExit(f"{exc}: pip install -e '.[bench,docs]'") from exc
    env = environment()
    manifest = build(args.bench, args.convert_jobs, args.rebuild)
    if args.build_only:
        return 0
    scorer = load_scorer(args.score or default_scorer(args.bench))
    _, labels_path = bench_folders(args.bench)
    labels = scorer.load_labels(str(labels_path))
    command = reproduce_command("formats.py", argv)
    results: dict[str, dict[str, Any]] = {}
    parts = [f"## simdup on documents in other formats\n\n`{command}`\n"]
    targets: list[str] = []
    mixed_report = FORMATS_DIR / "out" / "mixed.report.json"
    with tempfile.TemporaryDirectory(prefix="simdup-bench-formats-") as tmp_name:
        tmp = Path(tmp_name)
        if "quality" in sections or not mixed_report.exists():
            results["quality"] = quality(args, manifest, scorer, labels, tmp)
            text, found = quality_tables(results["quality"])
            parts.append(text)
            targets += found
        report = load_report(mixed_report)
        if "families" in sections:
            results["families"] = {"families": families_check(manifest, report)}
            text, found = families_table(results["families"]["families"], manifest)
            parts.append(text)
            targets += found
        if "readers" in sections:
            results["readers"] = reader_times(args, manifest, tmp)
            parts.append(readers_table(results["readers"]))
        if "scan" in sections:
            results["scan"] = scan_times(args, manifest, tmp, comparable(report))
            text, found = scan_table(results["scan"])
            parts.append(text)
            targets += found
        if "long" in sections:
            results["long"] = long_pdf(args, manifest, tmp)
            text, found = long_table(results["long"])
            parts.append(text)
            targets += found
    parts.append("### Targets (issue 24)\n\n" + "\n".join(f"- {t}" for t in targets))
    markdown = "\n\n".join(parts) + "\n"
    print(markdown)
    if hasattr(os, "getloadavg"):
        env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    env["tools"] = manifest["stamp"]["tools"]
    from simdup.readers import readers_description

    env["readers"] = readers_description()
    write_report(
        RESULTS / "formats.json",
        "formats",
        command=command,
        bench=args.bench,
        environment=env,
        notes=targets,
        sections={**results, "build": {k: v for k, v in manifest.items() if k != "files"}},
        markdown=markdown,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
