"""The formats benchmark (``formats.py``): the bare libraries' extraction it compares
simdup's readers with, and the scans, predictions and scores of its trees."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from common import (
    REPO,
)
from measured import (
    run_measured,
)

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
