"""The formats benchmark (``formats.py``): making the mixed-format copy of the set, the
families and the long PDF with pandoc, LibreOffice and Chromium (cached)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from common import (
    bench_folders,
    log,
)
from formats_texts import (
    EXTENSION,
    FAMILY_SIZES,
    FORMATS,
    FORMATS_DIR,
    GENERATOR_VERSION,
    LONG_PAGES,
    LUA_FILTER,
    MEMBERS,
    PANDOC_FORMATS,
    PANDOC_FROM,
    encoded,
    family_texts,
    format_of,
    long_text,
    rel,
    tool_versions,
    true_text,
)


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
