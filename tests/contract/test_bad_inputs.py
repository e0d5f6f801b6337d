"""Reliability catalogue: hostile, broken and unusual inputs through the real command line.

Every entry of ``CASES`` builds files under ``tmp_path`` (the working directory while the case
runs, so paths in the report are short and relative), runs ``simdup <command> ...`` through
click's ``CliRunner`` in a thread with a time limit (a blocked open or read fails the case
instead of hanging the suite), and asserts:

* nothing crashed: no traceback on stderr, ``result.exception`` is ``None`` or ``SystemExit``;
* the exit code;
* for ``scan`` runs that produce a report: the JSON parses, the exact set of skip records
  ``(path, stage)`` with a reason substring each, the exact set of fingerprinted files, the
  exact clusters and, where given, the encoding that was recorded.

Most cases also plant an exact-duplicate pair (``d/a.txt``, ``d/b.txt``) so each one shows that
the bad input does not disturb the rest of the scan.

``docs/reliability.md`` lists every case; ``test_every_case_is_documented`` keeps the two in
step. Adding a case is one ``Case(...)`` entry here and one row in that table.

``SIMDUP_MANY_FILES`` (default 5000) sets the size of the ``many_tiny_files`` case. The issue
asks for 100 000 files, which takes about half a minute:
``SIMDUP_MANY_FILES=100000 .venv/bin/python -m pytest tests/contract/test_bad_inputs.py -k many``.

Permission cases are simulated (``os.scandir`` / ``os.open`` raise ``PermissionError``) so that
they also run as root, where file modes are not enforced.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import gzip
import hashlib
import io
import json
import os
import signal
import socket
import sqlite3
import stat
import struct
import subprocess
import sys
import threading
import time
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import simdup.cli
import simdup.cli.compare
import simdup.cli.hash
import simdup.cli.scan
import simdup.readers.pdf
from simdup import engines
from simdup.cli import cli
from simdup.engines.backend import Backend
from simdup.params import FeatureParams
from simdup.policy.exitcodes import ExitCode
from simdup.readers.discovery import DiscoveryOptions, discover, find_files
from simdup.records import SkippedFile
from simdup.text import processor
from tests.conftest import DATA, REPO
from tests.conftest import pseudo_words as words
from tests.pdfs import IMAGE_CONTENT, stream_bomb, text_content, write_pdf

MANY_FILES = int(os.environ.get("SIMDUP_MANY_FILES", "5000"))
# Seconds; a case that blocks (e.g. on a FIFO) fails instead of hanging the suite.
RUN_TIMEOUT = 60.0 + MANY_FILES / 500
DOCS = REPO / "docs" / "reliability.md"

# ---------------------------------------------------------------- texts

DOC = words(1)
ZH = (
    "中华人民共和国是一个位于东亚的国家，首都是北京。这个国家有着悠久的历史和灿烂的文化，"
    "人口众多，经济发展迅速。长江和黄河是两条最重要的河流，沿岸城市繁荣，交通发达。\n"
    "春节是最隆重的传统节日，家家户户贴春联、吃饺子、放鞭炮。近年来，科技创新不断涌现，"
    "高速铁路、移动支付和电子商务改变了人们的生活方式。\n"
    "许多年轻人喜欢在周末去图书馆读书，或者和朋友一起爬山、骑自行车、看电影。"
    "传统的茶文化也重新受到欢迎，新的茶馆在大城市里越开越多。\n"
)
ZH_RARE = ZH + "𠮷野家的牛肉饭在这里也很有名。\n"  # 𠮷 (U+20BB7) is a four-byte GB18030 sequence
TW = (
    "臺灣位於東亞，首都是臺北。這裡的夜市文化非常豐富，小吃種類繁多，例如滷肉飯、牛肉麵和珍珠奶茶。\n"
    "中央山脈縱貫南北，玉山是東北亞最高的山峰。每年春天，阿里山的櫻花吸引許多遊客前來觀賞。\n"
    "臺灣的科技產業發達，半導體製造在全球市場佔有重要地位。\n"
)


def put(path: str | bytes, data: str | bytes) -> None:
    """Write ``data`` (str as UTF-8) to ``path`` (str or bytes), creating parent folders."""
    raw = os.fsencode(path)
    parent = os.path.dirname(raw)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(raw, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def baseline() -> None:
    """The exact-duplicate pair that every case with ``BASE`` expects to be clustered."""
    put("d/a.txt", DOC)
    put("d/b.txt", DOC)


BASE_FILES = ("d/a.txt", "d/b.txt")
BASE = frozenset(BASE_FILES)


def png_bytes() -> bytes:
    """A real 1x1 PNG image."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


# ---------------------------------------------------------------- monkeypatch helpers

Build = Callable[[Path, pytest.MonkeyPatch], list[str]]


def after_discovery(mp: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run ``action`` between discovery and reading (a file changes under simdup's feet)."""
    original = find_files

    def wrapped(paths: Any, options: Any = None) -> Any:
        found = original(paths, options)
        action()
        return found

    # The command's backend: a listing of its own is walked as it says, never in a child.
    mp.setattr(simdup.cli.scan, "LOCAL", Backend(find=wrapped))


def deny(mp: pytest.MonkeyPatch, function: str, basename: str) -> None:
    """Make ``os.<function>`` raise EACCES for paths ending in ``basename`` (works as root)."""
    real = getattr(os, function)

    def fake(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.path.basename(os.fsdecode(path)) == basename:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real(path, *args, **kwargs)

    mp.setattr(os, function, fake)


def nested_dirs(root: str, names: list[str]) -> str:
    """Create ``root/names[0]/names[1]/...`` with dir fds (beyond PATH_MAX); return the path."""
    os.mkdir(root)
    fd = os.open(root, os.O_RDONLY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        out = os.open("x.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(out, DOC.encode())
        os.close(out)
    finally:
        os.close(fd)
    return root + "/" + "/".join(names)


# ---------------------------------------------------------------- running simdup


def invoke(args: list[str], timeout: float = RUN_TIMEOUT, **kwargs: Any) -> Result:
    """``CliRunner().invoke(cli, args)`` in a thread; fail (never hang) if it does not finish."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = CliRunner().invoke(cli, args, **kwargs)
        except BaseException as exc:  # re-raised in the test thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        # Release a reader blocked on a FIFO, so the thread ends and stdout is restored.
        for dirpath, _, filenames in os.walk("."):
            for name in filenames:
                path = os.path.join(dirpath, name)
                if stat.S_ISFIFO(os.lstat(path).st_mode):
                    with contextlib.suppress(OSError):
                        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail(f"simdup {' '.join(args)} did not finish within {timeout:.0f} s (blocked?)")
    if "error" in box:
        raise box["error"]
    return box["result"]


def assert_no_crash(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"simdup raised {result.exception!r}\n{result.stderr}"
    )
    assert "Traceback" not in result.stderr, result.stderr


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    exit_code: int = 0
    # (path as reported, stage, reason substring); the (path, stage) set must match exactly.
    skipped: tuple[tuple[str, str, str], ...] | None = ()
    # Exactly these paths are fingerprinted (None: not checked).
    files: tuple[str, ...] | None = BASE_FILES
    # Exactly these clusters, as sets of member paths (None: not checked).
    clusters: tuple[frozenset[str], ...] | None = (BASE,)
    # (path, encoding, encoding_source) recorded for fingerprinted files.
    encodings: tuple[tuple[str, str, str], ...] = ()
    stderr: str = ""  # substring expected on stderr
    check: Callable[[dict[str, Any]], None] | None = None  # more assertions on the report
    command: str = "scan"
    check_stdout: tuple[str, ...] = ()  # substrings expected on stdout (commands other than scan)
    bug: str | None = None  # a known simdup bug: the case is a strict xfail


# ---------------------------------------------------------------- builders


def b_internal_error(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """A bug that strikes one file only (simulated in DocumentProcessor.document)."""
    baseline()
    put("d/bug.txt", words(3))
    real = processor.DocumentProcessor.document

    def document(self: Any, doc: Any) -> Any:
        if doc.path.endswith("bug.txt"):
            raise RuntimeError("a bug")
        return real(self, doc)

    mp.setattr(processor.DocumentProcessor, "document", document)
    return ["d"]


def b_empty(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/empty.txt", b"")
    return ["d"]


def b_whitespace(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/blank.txt", " \n\t\r\n   \u3000\u00a0\n" * 100)
    return ["d"]


def b_punctuation(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/punct.txt", "!?.,;:-()[]{}'\"…—！？。，、（）《》“”\n" * 100)
    return ["d"]


def b_nul(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/blob.dat", bytes(range(256)) * 16)
    return ["d"]


def b_stray_nul(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """Chinese text and a copy with one NUL byte in the middle (PAN corpus files have one)."""
    baseline()
    put("d/zh.txt", ZH)
    data = ZH.encode("utf-8")
    put("d/zh-nul.txt", data[:99] + b"\x00" + data[99:])
    return ["d"]


def b_png(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/pixel.png", png_bytes())
    return ["d"]


def b_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/doc.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n" + DOC.encode() + b"%%EOF\n")
    return ["d"]


def b_zip(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.makedirs("d", exist_ok=True)
    with zipfile.ZipFile("d/archive.zip", "w") as archive:
        archive.writestr("notes/readme.txt", DOC)
    return ["d"]


def b_docx_not_xml(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.makedirs("d", exist_ok=True)
    with zipfile.ZipFile("d/archive.docx", "w") as archive:
        archive.writestr("word/document.xml", DOC)  # text, not XML
    return ["d"]


# Documents of other formats (issue 24): each hostile file is a skip with a stable reason, in
# bounded time and memory. Real writers' files are in data/formats
# (tests/readers/test_formats.py).
FORMATS = DATA / "formats"
W_MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _docx_replacing(document_xml: Callable[[zipfile.ZipFile], None], target: str) -> None:
    """The pandoc fixture as ``target``, its ``word/document.xml`` written by
    ``document_xml`` (given the archive being written)."""
    os.makedirs(os.path.dirname(target), exist_ok=True)
    source = zipfile.ZipFile(FORMATS / "thesis.docx")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in source.infolist():
            if item.filename == "word/document.xml":
                document_xml(archive)
            else:
                archive.writestr(item, source.read(item))


def b_encrypted_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    pypdf = pytest.importorskip("pypdf")
    baseline()
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(write_pdf([text_content([DOC[:80]] * 5)])))
    writer.encrypt("secret", algorithm="RC4-128")  # AES needs the cryptography package
    out = io.BytesIO()
    writer.write(out)
    put("d/locked.pdf", out.getvalue())
    return ["d"]


def b_scanned_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/scan.pdf", write_pdf([IMAGE_CONTENT, IMAGE_CONTENT]))
    return ["d"]


def b_truncated_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    data = (FORMATS / "thesis.pdf").read_bytes()
    put("d/cut.pdf", data[: len(data) // 2])
    return ["d"]


def b_looping_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/loop.pdf", write_pdf([text_content([DOC[:80]])], loop=True))
    return ["d"]


def b_pdf_stream_bomb(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """A content stream of 400 MB in 400 KB, read within 256 MB."""
    baseline()
    put("d/bomb.pdf", stream_bomb(400 << 20))
    return ["--read-memory", "256M", "d"]


def b_slow_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """A PDF whose reading never ends (simulated: the extractor sleeps)."""
    baseline()
    put("d/slow.pdf", write_pdf([text_content([DOC[:80]] * 5)]))
    mp.setattr(simdup.readers.pdf, "pdf_text", lambda data: time.sleep(60))
    return ["--read-timeout", "0.5", "d"]


def b_pdf_reader_crash(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """The native PDF library crashes the process reading a file (simulated: SIGSEGV)."""
    baseline()
    put("d/crash.pdf", write_pdf([text_content([DOC[:80]] * 5)]))
    mp.setattr(simdup.readers.pdf, "pdf_text", lambda data: os.kill(os.getpid(), signal.SIGSEGV))
    return ["d"]


def b_huge_pdf(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """A 200 MB PDF (sparse), over the default --max-size."""
    baseline()
    put("d/huge.pdf", b"%PDF-1.7\n")
    with open("d/huge.pdf", "r+b") as handle:
        handle.truncate(200 << 20)
    return ["d"]


def b_truncated_docx(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    data = (FORMATS / "thesis.docx").read_bytes()
    put("d/cut.docx", data[: len(data) // 2])
    return ["d"]


def b_docx_zip_bomb(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """``word/document.xml`` inflating to 200 MB from 200 KB."""
    baseline()

    def bomb(archive: zipfile.ZipFile) -> None:
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(f'<w:document xmlns:w="{W_MAIN}"><w:body>'.encode())
            block = b" " * (1 << 20)
            for _ in range(200):
                member.write(block)
            member.write(b"</w:body></w:document>")

    _docx_replacing(bomb, "d/bomb.docx")
    return ["d"]


def b_docx_entity_bomb(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """"Billion laughs": entities nested ten deep, ten times each."""
    baseline()
    entities = "".join(
        f'<!ENTITY lol{n} "{(f"&lol{n - 1};" if n > 1 else "lol") * 10}">\n' for n in range(1, 10)
    )
    document = (
        f'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n{entities}]>\n'
        f'<w:document xmlns:w="{W_MAIN}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>'
        "</w:body></w:document>"
    )
    _docx_replacing(lambda a: a.writestr("word/document.xml", document), "d/laughs.docx")
    return ["d"]


def b_epub_many_members(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    """An e-book of 20,000 members (over the 10,000 an archive may hold)."""
    baseline()
    os.makedirs("d", exist_ok=True)
    with zipfile.ZipFile("d/many.epub", "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        for n in range(20_000):
            archive.writestr(f"OEBPS/p{n}.xhtml", "")
    return ["d"]


def b_sqlite(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    connection = sqlite3.connect("d/notes.db")
    with connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.execute("INSERT INTO notes VALUES (?)", (DOC,))
    connection.close()
    return ["d"]


def b_gzip(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/a.txt.gz", gzip.compress(DOC.encode()))
    return ["d"]


def b_control(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/control.txt", b"data\x01\x02\x03\x04\x05\x06 field\x1c\x1d\x1e\n" * 200)
    return ["d"]


def b_bad_utf8_ascii(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/damaged.txt", words(7).encode() + b"\xff\xfe\x80\xc3(" + words(8).encode())
    return ["d"]


def decided_or_skipped(path: str) -> Callable[[dict[str, Any]], None]:
    """``path`` either decoded with a recorded guess, or skipped at decoding; never both."""

    def check(report: dict[str, Any]) -> None:
        files = {f["path"]: f for f in report["files"]}
        skips = {s["path"]: s for s in report["skipped"]}
        assert (path in files) != (path in skips), (files.keys(), skips)
        if path in files:
            assert files[path]["encoding_source"] in {"detected", "fallback"}, files[path]
        else:
            assert skips[path]["stage"] == "decode", skips[path]
        assert set(files) - {path} == set(BASE_FILES)
        assert set(skips) <= {path}

    return check


def b_bad_utf8_chinese(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    raw = ZH.encode()
    put("d/zh.txt", raw)
    put("d/zh-damaged.txt", raw[:150] + b"\xff" + raw[150:])  # one stray byte between characters
    return ["d"]


def b_mixed(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/mixed.txt", ZH.encode("utf-8") + ZH.encode("gbk"))
    return ["d"]


def b_utf16_english(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/le.txt", DOC.encode("utf-16-le"))
    put("d/be.txt", DOC.encode("utf-16-be"))
    return ["d"]


def b_utf16_chinese(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/zh.txt", ZH)
    put("d/zh-utf16.txt", ZH.encode("utf-16-le"))
    return ["d"]


def b_boms(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/zh.txt", ZH)
    put("d/zh-u8bom.txt", ZH.encode("utf-8-sig"))
    put("d/zh-u16le.txt", b"\xff\xfe" + ZH.encode("utf-16-le"))
    put("d/zh-u16be.txt", b"\xfe\xff" + ZH.encode("utf-16-be"))
    put("d/zh-u32le.txt", b"\xff\xfe\x00\x00" + ZH.encode("utf-32-le"))
    return ["d"]


def b_gb18030(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/zh.txt", ZH_RARE)
    put("d/zh-gb.txt", ZH_RARE.encode("gb18030"))
    return ["d"]


def b_big5(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/tw.txt", TW)
    put("d/tw-big5.txt", TW.encode("big5"))
    return ["d"]


def b_huge_line(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/huge.txt", b"word " * (4 * 1024 * 1024))  # 20 MiB, one line
    return ["--max-size", "1M", "d"]


def b_long_line(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/line.txt", words(9, 250_000).replace("\n", " "))  # ~1.7 MB, no line break
    return ["d"]


def b_grows(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/log.txt", words(5))

    def grow() -> None:
        with open("d/log.txt", "ab") as handle:
            handle.write(b"more words " * 200_000)

    after_discovery(mp, grow)
    return ["--max-size", "1M", "d"]


def b_fifo_in_folder(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.mkfifo("d/pipe")
    return ["d"]


def b_fifo_named(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.mkfifo("d/pipe")
    return ["d/pipe", "d/a.txt", "d/b.txt"]


def b_fifo_swapped_in(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/soon-a-pipe.txt", words(5))

    def swap() -> None:
        os.unlink("d/soon-a-pipe.txt")
        os.mkfifo("d/soon-a-pipe.txt")

    after_discovery(mp, swap)
    return ["d"]


def b_socket(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("d/sock")  # relative: no AF_UNIX path-length limit on deep tmp dirs
    return ["d"]


def b_mknod(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    try:
        os.mknod("d/null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    return ["d"]


def b_device_link(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink(os.devnull, "d/null")
    return ["--follow-symlinks", "d"]


def b_device_link_unfollowed(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink(os.devnull, "d/null")
    return ["d"]


def b_loop(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink(".", "d/loop")
    return ["--follow-symlinks", "d"]


def b_two_folder_loop(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put("d/x/a.txt", DOC)
    put("d/y/b.txt", DOC)
    os.symlink("../y", "d/x/to-y")
    os.symlink("../x", "d/y/to-x")
    return ["--follow-symlinks", "d"]


def b_self_link(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink("self", "d/self")
    return ["--follow-symlinks", "d"]


def b_link_out(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("outside/secret.txt", words(3))
    os.symlink("../outside/secret.txt", "d/out.txt")
    return ["d"]


def b_link_out_followed(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("outside/a-copy.txt", DOC)
    os.symlink("../outside/a-copy.txt", "d/out.txt")
    return ["--follow-symlinks", "d"]


def b_dangling(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink("nowhere.txt", "d/dangling.txt")
    return ["--follow-symlinks", "d"]


def b_dangling_root(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.symlink("nowhere.txt", "dangling.txt")
    return ["dangling.txt", "d"]


def b_locked_dir(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/locked/hidden-copy.txt", DOC)
    deny(mp, "scandir", "locked")
    return ["d"]


def b_locked_file(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/secret.txt", DOC)
    deny(mp, "open", "secret.txt")
    return ["d"]


def b_deleted(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/gone.txt", DOC)
    after_discovery(mp, lambda: os.unlink("d/gone.txt"))
    return ["d"]


def b_truncated(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/shrunk.txt", DOC)
    after_discovery(mp, lambda: put("d/shrunk.txt", b""))
    return ["d"]


def b_non_utf8_name(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put(b"d/caf\xe9.txt", DOC)
    return ["d"]


def b_non_utf8_name_arg(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put(b"caf\xe9.txt", DOC)
    put("copy.txt", DOC)
    # What Python puts in sys.argv for the byte 0xE9 (surrogateescape).
    return ["--", os.fsdecode(b"caf\xe9.txt"), "copy.txt"]


def b_newline_name(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/new\nline.txt", DOC)
    return ["d"]


def b_dash_name(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put("-rf.txt", DOC)
    put("copy.txt", DOC)
    return ["--", "-rf.txt", "copy.txt"]


def b_dash_name_no_separator(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put("-rf.txt", DOC)
    put("copy.txt", DOC)
    return ["-rf.txt", "copy.txt"]


def b_many(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    os.mkdir("many")
    for i in range(MANY_FILES):
        with open(f"many/{i:06d}.txt", "w", encoding="utf-8") as handle:
            handle.write(words(10_000 + i, 48))
    put("many/dup.txt", words(10_000, 48))
    return ["many"]


def check_many(report: dict[str, Any]) -> None:
    assert report["summary"]["files_found"] == MANY_FILES + 1
    assert report["summary"]["files_fingerprinted"] == MANY_FILES + 1
    assert len({f["path"] for f in report["files"]}) == MANY_FILES + 1


DEEP = "deep/" + "/".join(["a"] * 300) + "/x.txt"


def b_deep(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put(DEEP, DOC)
    put("deep/top.txt", DOC)
    return ["deep"]


def b_beyond_path_max(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    nested_dirs("d/long", [chr(ord("a") + i) * 250 for i in range(18)])  # > 4096 bytes deep
    return ["d"]


def check_beyond_path_max(report: dict[str, Any]) -> None:
    (skip,) = report["skipped"]
    assert skip["path"].startswith("d/long/")
    assert len(skip["path"].encode()) > 4096
    assert skip["stage"] == "discovery"
    assert "too long" in skip["reason"].lower()


def b_twice(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["d/a.txt", "d/a.txt", "d/b.txt", "d/a.txt"]


def b_overlap(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/sub/c.txt", DOC)
    return ["d", "d/sub", "d/sub/c.txt"]


def b_overlap_spelled(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/sub/c.txt", DOC)
    return ["d", "./d/sub"]


def b_hard_link(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.link("d/a.txt", "d/hard.txt")
    return ["d"]


def b_hard_link_strict(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return ["--strict", *b_hard_link(tmp, mp)]


def b_bad_freq(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("dict.txt", "# user words\n云计算 5 n\n大数据 lots n\n")
    return ["--user-dict", "dict.txt", "d"]


def b_bad_fields(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("dict.txt", "云计算 5 n\n\n大数据 3 n extra\n")
    return ["--user-dict", "dict.txt", "d"]


def b_dict_gbk(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("dict.txt", "云计算 5 n\n".encode("gbk"))
    return ["--user-dict", "dict.txt", "d"]


STOPWORDS = ("快速", "狐狸", "kalomi")


ZERO_WIDTH_GROUPS = (
    frozenset({"d/en.txt", "d/en-zwsp.txt", "d/en-mixed.txt"}),
    frozenset({"d/zh.txt", "d/zh-zwsp.txt"}),
)


def b_zero_width(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    english = words(11)
    marks = "\u200c\u200d\u2060\ufeff"
    put("d/en.txt", english)
    put("d/en-zwsp.txt", "".join(ch + "\u200b" for ch in english))
    put("d/en-mixed.txt", "".join(ch + marks[i % len(marks)] for i, ch in enumerate(english)))
    put("d/zh.txt", ZH)
    put("d/zh-zwsp.txt", "".join(ch + "\u200b" for ch in ZH))
    return ["d"]


def check_zero_width(report: dict[str, Any]) -> None:
    """Each copy is an exact duplicate of its original: same content hash and fingerprint."""
    files = {f["path"]: f for f in report["files"]}
    for group in ZERO_WIDTH_GROUPS:
        assert len({(files[p]["content_hash"], files[p]["fingerprint"]) for p in group}) == 1
    assert all(pair["exact"] and pair["distance"] == 0 for pair in report["pairs"])


def b_stopwords_gbk(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("stop.txt", ("\n".join(STOPWORDS) + "\n# comment\n").encode("gbk"))
    return ["--stopwords", "stop.txt", "d"]


def check_stopwords(report: dict[str, Any]) -> None:
    extra = report["settings"]["features"]["extra_stopwords"]
    digest = hashlib.sha256("\n".join(sorted(STOPWORDS)).encode()).hexdigest()[:16]
    assert extra == {"count": len(STOPWORDS), "sha256": digest}  # decoded right, not mojibake


def b_stopwords_missing(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--stopwords", "no-such-stopwords.txt", "d"]


def b_format(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--format", "xml", "d"]


def b_threshold_low(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--threshold=-1", "d"]


def b_threshold_high(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--threshold", "32", "d"]


def b_bad_size(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--max-size", "12Q", "d"]


def b_missing(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["d", "no-such-dir"]


def b_missing_strict(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return ["--strict", *b_missing(tmp, mp)]


def b_binary_strict(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return ["--strict", *b_png(tmp, mp)]


def b_no_paths(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return []


def b_files_from_nul(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    put("new\nline.txt", DOC)
    put("-dash.txt", DOC)
    put(" lead space.txt", DOC)
    put("list.bin", b"new\nline.txt\0-dash.txt\0 lead space.txt\0")
    return ["--files-from", "list.bin", "-0"]


def b_symlink_swapped_in(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/note.txt", words(5))
    put("outside/secret.txt", words(3))

    def swap() -> None:
        os.unlink("d/note.txt")
        os.symlink("../outside/secret.txt", "d/note.txt")

    after_discovery(mp, swap)
    return ["d"]


def b_symlink_swapped_in_followed(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return ["--follow-symlinks", *b_symlink_swapped_in(tmp, mp)]


def b_replaced(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/report.txt", words(5))
    put("report.new", words(3))  # outside the scanned folder
    after_discovery(mp, lambda: os.replace("report.new", "d/report.txt"))
    return ["d"]


def b_files_from_nul_without_dash_0(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("list.bin", b"d/a.txt\0d/b.txt\0")  # find d -print0, without -0
    return ["--files-from", "list.bin"]


def b_files_from_utf16(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/中文.txt", DOC)
    # Windows PowerShell 5: `Get-ChildItem -Name > list.txt` writes UTF-16-LE with a BOM.
    put("list.txt", "\ufeffd/a.txt\r\nd/b.txt\r\nd/中文.txt\r\n".encode("utf-16-le"))
    return ["--files-from", "list.txt"]


def b_files_from_utf8_bom(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("list.txt", "\ufeffd/a.txt\nd/b.txt\n".encode())
    return ["--files-from", "list.txt"]


def b_max_size_infinite(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["--max-size", "inf", "d"]


def b_baseline_pairs_null(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("base.json", '{"pairs": null}')
    return ["--baseline", "base.json", "d"]


def b_baseline_pairs_not_a_list(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("base.json", '{"pairs": 5}')
    return ["--baseline", "base.json", "d"]


def b_baseline_empty(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("base.json", b"")
    return ["--baseline", "base.json", "--fail-on-duplicates", "d"]


def b_files_from_missing(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    return ["--files-from", "no-such-list.txt"]


def b_output_missing_dir(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["-o", "no-such-dir/report.json", "d"]


def b_output_empty(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["-o", "", "d"]


def b_output_slash(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    return ["-o", "out/", "d"]


def b_empty_dir(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    os.mkdir("d")
    return ["d"]


def b_empty_dir_minhash(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    os.mkdir("d")
    return ["--method", "minhash", "d"]


def b_hidden(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/.hidden.txt", DOC)
    put("d/.git/objects/copy.txt", DOC)
    put("d/node/.cache/copy.txt", DOC)
    return ["d"]


def b_hash_fifo(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.mkfifo("d/pipe")
    return ["d/pipe", "d/a.txt"]


def b_hash_hard_link(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.link("d/a.txt", "d/hard.txt")
    return ["d/a.txt", "d/hard.txt"]


def b_compare_fifo(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    os.mkfifo("d/pipe")
    return ["d/a.txt", "d/pipe"]


def b_compare_binary(tmp: Path, mp: pytest.MonkeyPatch) -> list[str]:
    baseline()
    put("d/pixel.png", png_bytes())
    return ["d/a.txt", "d/pixel.png"]


# ---------------------------------------------------------------- the catalogue

TOO_SHORT = "too short to judge"
NOT_FOLLOWED = "symbolic link (use --follow-symlinks"
USAGE = int(ExitCode.USAGE)

CASES: list[Case] = [
    # --- contents
    Case("empty_file", b_empty, skipped=(("d/empty.txt", "read", "empty file"),)),
    Case("whitespace_only", b_whitespace, skipped=(("d/blank.txt", "features", TOO_SHORT),)),
    # Punctuation alone is a text all the same: its own form, found again by an exact copy.
    Case(
        "punctuation_only", b_punctuation, skipped=(), files=("d/a.txt", "d/b.txt", "d/punct.txt")
    ),
    Case("nul_bytes", b_nul, skipped=(("d/blob.dat", "decode", "binary file (contains NUL"),)),
    Case(
        "stray_nul_byte",
        b_stray_nul,
        files=(*BASE_FILES, "d/zh.txt", "d/zh-nul.txt"),
        clusters=(BASE, frozenset({"d/zh.txt", "d/zh-nul.txt"})),
        encodings=(("d/zh-nul.txt", "utf-8", "fallback"),),
        stderr="1 file read with a repair",
    ),
    Case("png_image", b_png, skipped=(("d/pixel.png", "decode", "binary file (PNG image)"),)),
    Case("damaged_pdf", b_pdf, skipped=(("d/doc.pdf", "decode", "PDF: not a readable PDF"),)),
    Case("zip_archive", b_zip, skipped=(("d/archive.zip", "decode", "binary file (ZIP archive)"),)),
    Case(
        "docx_whose_xml_is_damaged",
        b_docx_not_xml,
        skipped=(("d/archive.docx", "decode", "DOCX: damaged XML"),),
    ),
    Case(
        "encrypted_pdf",
        b_encrypted_pdf,
        skipped=(("d/locked.pdf", "decode", "PDF: encrypted (password-protected)"),),
    ),
    Case("scanned_pdf", b_scanned_pdf, skipped=(("d/scan.pdf", "decode", "no text layer"),)),
    Case(
        "truncated_pdf",
        b_truncated_pdf,
        skipped=(("d/cut.pdf", "decode", "PDF: not a readable PDF"),),
    ),
    Case(
        "pdf_page_tree_loop",
        b_looping_pdf,
        skipped=(("d/loop.pdf", "decode", "PDF: page 2 cannot be read"),),
    ),
    Case(
        "pdf_compressed_stream_bomb",
        b_pdf_stream_bomb,
        skipped=(("d/bomb.pdf", "decode", "PDF: its reader crashed"),),
    ),
    Case(
        "pdf_that_never_ends",
        b_slow_pdf,
        skipped=(("d/slow.pdf", "decode", "PDF: took longer than the read time limit (0.5 s)"),),
    ),
    Case(
        "pdf_reader_crashes",
        b_pdf_reader_crash,
        skipped=(("d/crash.pdf", "decode", "PDF: its reader crashed (SIGSEGV)"),),
    ),
    Case("pdf_of_200_mb", b_huge_pdf, skipped=(("d/huge.pdf", "discovery", "larger than"),)),
    Case(
        "truncated_docx",
        b_truncated_docx,
        skipped=(("d/cut.docx", "decode", "DOCX: not a readable ZIP container"),),
    ),
    Case(
        "docx_zip_bomb",
        b_docx_zip_bomb,
        skipped=(("d/bomb.docx", "decode", "inflates to more than 64 MB (a ZIP bomb?)"),),
    ),
    Case(
        "docx_entity_bomb",
        b_docx_entity_bomb,
        skipped=(("d/laughs.docx", "decode", "DOCX: damaged XML"),),
    ),
    Case(
        "epub_of_20000_members",
        b_epub_many_members,
        skipped=(("d/many.epub", "decode", "EPUB: a ZIP container of 20,001 members"),),
    ),
    Case(
        "sqlite_database",
        b_sqlite,
        skipped=(("d/notes.db", "decode", "binary file (SQLite database)"),),
    ),
    Case("gzip_archive", b_gzip, skipped=(("d/a.txt.gz", "decode", "binary file (gzip archive)"),)),
    Case(
        "control_characters",
        b_control,
        skipped=(("d/control.txt", "decode", "binary file (control characters)"),),
    ),
    # --- encodings
    Case(
        "invalid_utf8_in_middle",
        b_bad_utf8_ascii,
        skipped=None,
        files=None,
        check=decided_or_skipped("d/damaged.txt"),
    ),
    Case(
        "invalid_utf8_in_middle_chinese",
        b_bad_utf8_chinese,
        files=(*BASE_FILES, "d/zh.txt", "d/zh-damaged.txt"),
        clusters=(BASE, frozenset({"d/zh.txt", "d/zh-damaged.txt"})),
        encodings=(("d/zh-damaged.txt", "utf-8", "fallback"),),
    ),
    Case(
        "mixed_encodings",
        b_mixed,
        skipped=None,
        files=None,
        check=decided_or_skipped("d/mixed.txt"),
    ),
    Case(
        "utf16_without_bom",
        b_utf16_english,
        files=(*BASE_FILES, "d/le.txt", "d/be.txt"),
        clusters=(frozenset({*BASE_FILES, "d/le.txt", "d/be.txt"}),),
        encodings=(("d/le.txt", "utf-16-le", "detected"), ("d/be.txt", "utf-16-be", "detected")),
    ),
    Case(
        "utf16_without_bom_chinese",
        b_utf16_chinese,
        files=(*BASE_FILES, "d/zh.txt", "d/zh-utf16.txt"),
        clusters=(BASE, frozenset({"d/zh.txt", "d/zh-utf16.txt"})),
        encodings=(("d/zh-utf16.txt", "utf-16-le", "detected"),),
    ),
    Case(
        "byte_order_marks",
        b_boms,
        files=(
            *BASE_FILES,
            "d/zh.txt",
            "d/zh-u8bom.txt",
            "d/zh-u16le.txt",
            "d/zh-u16be.txt",
            "d/zh-u32le.txt",
        ),
        clusters=(
            frozenset(
                {"d/zh.txt", "d/zh-u8bom.txt", "d/zh-u16le.txt", "d/zh-u16be.txt", "d/zh-u32le.txt"}
            ),
            BASE,
        ),
        encodings=(
            ("d/zh-u8bom.txt", "utf-8-sig", "bom"),
            ("d/zh-u16le.txt", "utf-16-le-bom", "bom"),
            ("d/zh-u16be.txt", "utf-16-be-bom", "bom"),
            ("d/zh-u32le.txt", "utf-32-le-bom", "bom"),
        ),
    ),
    Case(
        "gb18030",
        b_gb18030,
        files=(*BASE_FILES, "d/zh.txt", "d/zh-gb.txt"),
        clusters=(BASE, frozenset({"d/zh.txt", "d/zh-gb.txt"})),
        encodings=(("d/zh-gb.txt", "gb18030", "detected"), ("d/zh.txt", "utf-8", "utf-8")),
    ),
    Case(
        "big5",
        b_big5,
        files=(*BASE_FILES, "d/tw.txt", "d/tw-big5.txt"),
        clusters=(BASE, frozenset({"d/tw.txt", "d/tw-big5.txt"})),
        encodings=(("d/tw-big5.txt", "big5hkscs", "detected"),),
    ),
    # --- sizes
    Case(
        "huge_single_line_over_max_size",
        b_huge_line,
        skipped=(("d/huge.txt", "discovery", "larger than --max-size"),),
    ),
    Case("long_single_line", b_long_line, files=(*BASE_FILES, "d/line.txt")),
    Case(
        "grew_past_max_size_after_discovery",
        b_grows,
        skipped=(("d/log.txt", "read", "larger than --max-size"),),
    ),
    # --- special files (must never block)
    Case(
        "fifo_in_folder",
        b_fifo_in_folder,
        skipped=(("d/pipe", "discovery", "not a regular file (FIFO)"),),
    ),
    Case(
        "fifo_named_on_command_line",
        b_fifo_named,
        skipped=(("d/pipe", "discovery", "not a regular file (FIFO)"),),
    ),
    Case(
        "fifo_swapped_in_after_discovery",
        b_fifo_swapped_in,
        skipped=(("d/soon-a-pipe.txt", "read", "not a regular file"),),
    ),
    Case(
        "unix_socket", b_socket, skipped=(("d/sock", "discovery", "not a regular file (socket)"),)
    ),
    Case("device_node", b_mknod, skipped=(("d/null", "discovery", "not a regular file (device)"),)),
    Case(
        "device_via_followed_symlink",
        b_device_link,
        skipped=(("d/null", "discovery", "not a regular file (device)"),),
    ),
    Case(
        "device_symlink_not_followed",
        b_device_link_unfollowed,
        skipped=(("d/null", "discovery", NOT_FOLLOWED),),
    ),
    # --- symbolic links
    Case("symlink_loop", b_loop, skipped=(("d/loop", "discovery", "symbolic link loop"),)),
    Case(
        "symlink_loop_two_folders",
        b_two_folder_loop,
        skipped=(("d/x/to-y/to-x", "discovery", "symbolic link loop"),),
        files=("d/x/a.txt", "d/x/to-y/b.txt"),
        clusters=(frozenset({"d/x/a.txt", "d/x/to-y/b.txt"}),),
    ),
    Case("symlink_to_itself", b_self_link, skipped=(("d/self", "discovery", "symbolic link"),)),
    Case("symlink_out_of_root", b_link_out, skipped=(("d/out.txt", "discovery", NOT_FOLLOWED),)),
    Case(
        "symlink_out_of_root_followed",
        b_link_out_followed,
        files=(*BASE_FILES, "d/out.txt"),
        clusters=(frozenset({*BASE_FILES, "d/out.txt"}),),
    ),
    Case(
        "dangling_symlink",
        b_dangling,
        skipped=(("d/dangling.txt", "discovery", "dangling symbolic link"),),
    ),
    Case(
        "dangling_symlink_as_root",
        b_dangling_root,
        skipped=(("dangling.txt", "discovery", "dangling symbolic link"),),
    ),
    # --- permissions (simulated, so they run as root too)
    Case(
        "unreadable_directory",
        b_locked_dir,
        skipped=(("d/locked", "discovery", "Permission denied"),),
    ),
    Case(
        "unreadable_file", b_locked_file, skipped=(("d/secret.txt", "read", "Permission denied"),)
    ),
    # --- files that change between discovery and reading
    Case(
        "deleted_after_discovery",
        b_deleted,
        skipped=(("d/gone.txt", "read", "No such file or directory"),),
    ),
    Case(
        "truncated_after_discovery", b_truncated, skipped=(("d/shrunk.txt", "read", "empty file"),)
    ),
    # --- file names
    Case(
        "non_utf8_name",
        b_non_utf8_name,
        files=(*BASE_FILES, "d/caf\\xe9.txt"),
        clusters=(frozenset({*BASE_FILES, "d/caf\\xe9.txt"}),),
    ),
    Case(
        "non_utf8_name_as_argument",
        b_non_utf8_name_arg,
        files=("caf\\xe9.txt", "copy.txt"),
        clusters=(frozenset({"caf\\xe9.txt", "copy.txt"}),),
    ),
    Case(
        "newline_in_name",
        b_newline_name,
        files=(*BASE_FILES, "d/new\nline.txt"),
        clusters=(frozenset({*BASE_FILES, "d/new\nline.txt"}),),
    ),
    Case(
        "leading_dash_after_double_dash",
        b_dash_name,
        files=("-rf.txt", "copy.txt"),
        clusters=(frozenset({"-rf.txt", "copy.txt"}),),
    ),
    Case(
        "leading_dash_without_double_dash",
        b_dash_name_no_separator,
        exit_code=USAGE,
        stderr="No such option",
    ),
    Case(
        "files_from_nul_separated",
        b_files_from_nul,
        files=("new\nline.txt", "-dash.txt", " lead space.txt"),
        clusters=(frozenset({"new\nline.txt", "-dash.txt", " lead space.txt"}),),
    ),
    Case(
        "files_from_missing_list", b_files_from_missing, exit_code=USAGE, stderr="no-such-list.txt"
    ),
    Case(
        "symlink_swapped_in_after_discovery",
        b_symlink_swapped_in,
        skipped=(("d/note.txt", "read", "replaced by a symbolic link after discovery"),),
    ),
    Case(
        "symlink_swapped_in_after_discovery_followed",
        b_symlink_swapped_in_followed,
        skipped=(("d/note.txt", "read", "changed after discovery (another file is now at"),),
    ),
    Case(
        "file_replaced_after_discovery",
        b_replaced,
        skipped=(("d/report.txt", "read", "changed after discovery (another file is now at"),),
    ),
    Case(
        "files_from_nul_without_dash_0",
        b_files_from_nul_without_dash_0,
        exit_code=USAGE,
        stderr="list.bin: the list holds NUL bytes",
    ),
    Case(
        "files_from_utf16_with_bom",
        b_files_from_utf16,
        files=(*BASE_FILES, "d/中文.txt"),
        clusters=(frozenset({*BASE_FILES, "d/中文.txt"}),),
    ),
    Case("files_from_utf8_with_bom", b_files_from_utf8_bom),
    Case("max_size_infinite", b_max_size_infinite, exit_code=USAGE, stderr="'inf' is not a size"),
    Case(
        "baseline_pairs_null",
        b_baseline_pairs_null,
        exit_code=USAGE,
        stderr="baseline base.json: 'pairs' must be a list, not null",
    ),
    Case(
        "baseline_pairs_not_a_list",
        b_baseline_pairs_not_a_list,
        exit_code=USAGE,
        stderr="baseline base.json: 'pairs' must be a list, not a number",
    ),
    Case(
        "baseline_empty_file",
        b_baseline_empty,
        exit_code=USAGE,
        stderr="baseline base.json: empty file",
    ),
    # --- scale and shape
    Case(
        "many_tiny_files",
        b_many,
        files=None,
        check=check_many,
        clusters=(frozenset({"many/000000.txt", "many/dup.txt"}),),
    ),
    Case(
        "deep_nesting_300",
        b_deep,
        files=(DEEP, "deep/top.txt"),
        clusters=(frozenset({DEEP, "deep/top.txt"}),),
    ),
    Case("nesting_beyond_path_max", b_beyond_path_max, skipped=None, check=check_beyond_path_max),
    Case("empty_directory", b_empty_dir, files=(), clusters=()),
    Case("empty_directory_minhash", b_empty_dir_minhash, files=(), clusters=()),
    Case("hidden_files_and_vcs_folders", b_hidden),
    # --- the same file more than once
    Case("path_given_twice", b_twice),
    Case(
        "overlapping_roots",
        b_overlap,
        files=(*BASE_FILES, "d/sub/c.txt"),
        clusters=(frozenset({*BASE_FILES, "d/sub/c.txt"}),),
    ),
    Case(
        "overlapping_roots_spelled_differently",
        b_overlap_spelled,
        skipped=(("./d/sub/c.txt", "discovery", "same file as d/sub/c.txt"),),
        files=(*BASE_FILES, "d/sub/c.txt"),
        clusters=(frozenset({*BASE_FILES, "d/sub/c.txt"}),),
    ),
    Case("hard_link", b_hard_link, skipped=(("d/hard.txt", "discovery", "same file as d/a.txt"),)),
    Case(
        "hard_link_strict",
        b_hard_link_strict,
        skipped=(("d/hard.txt", "discovery", "same file as d/a.txt"),),
    ),
    # --- options and their files
    Case("user_dict_bad_frequency", b_bad_freq, exit_code=USAGE, stderr="dict.txt:3"),
    Case("user_dict_too_many_fields", b_bad_fields, exit_code=USAGE, stderr="dict.txt:3"),
    Case("user_dict_not_utf8", b_dict_gbk, exit_code=USAGE, stderr="not UTF-8"),
    Case("stopwords_in_gbk", b_stopwords_gbk, check=check_stopwords),
    Case(
        "zero_width_characters",
        b_zero_width,
        files=(*BASE_FILES, *sorted(ZERO_WIDTH_GROUPS[0] | ZERO_WIDTH_GROUPS[1])),
        clusters=(BASE, *ZERO_WIDTH_GROUPS),
        check=check_zero_width,
    ),
    Case(
        "stopwords_file_missing",
        b_stopwords_missing,
        exit_code=USAGE,
        stderr="no-such-stopwords.txt",
    ),
    Case("unknown_format", b_format, exit_code=USAGE, stderr="xml"),
    Case("threshold_negative", b_threshold_low, exit_code=USAGE, stderr="-1"),
    Case("threshold_too_large", b_threshold_high, exit_code=USAGE, stderr="32"),
    Case("max_size_not_a_size", b_bad_size, exit_code=USAGE, stderr="12Q"),
    Case("no_paths", b_no_paths, exit_code=USAGE, stderr="no PATHS"),
    Case(
        "missing_path",
        b_missing,
        skipped=(("no-such-dir", "discovery", "No such file or directory"),),
    ),
    Case(
        "missing_path_strict",
        b_missing_strict,
        exit_code=int(ExitCode.FILES_SKIPPED),
        skipped=(("no-such-dir", "discovery", "No such file or directory"),),
    ),
    Case(
        "binary_file_strict",
        b_binary_strict,
        exit_code=int(ExitCode.FILES_SKIPPED),
        skipped=(("d/pixel.png", "decode", "binary file (PNG image)"),),
    ),
    Case(
        "output_folder_missing",
        b_output_missing_dir,
        exit_code=int(ExitCode.ERROR),
        stderr="cannot write report",
    ),
    Case("output_empty_name", b_output_empty, exit_code=USAGE, stderr="does not name a file"),
    Case("output_folder_name", b_output_slash, exit_code=USAGE, stderr="does not name a file"),
    # --- the other commands
    Case(
        "hash_with_fifo",
        b_hash_fifo,
        command="hash",
        exit_code=int(ExitCode.FILES_SKIPPED),
        stderr="d/pipe: not a regular file (FIFO)",
    ),
    Case(
        "hash_hard_link",
        b_hash_hard_link,
        command="hash",
        check_stdout=("  d/a.txt\n", "  d/hard.txt\n"),
    ),
    Case(
        "compare_with_fifo",
        b_compare_fifo,
        command="compare",
        exit_code=int(ExitCode.FILES_SKIPPED),
        stderr="not a regular file",
    ),
    Case(
        "compare_with_binary",
        b_compare_binary,
        command="compare",
        exit_code=int(ExitCode.FILES_SKIPPED),
        stderr="binary file (PNG image)",
    ),
    Case(
        "internal_error_in_one_file",
        b_internal_error,
        skipped=(("d/bug.txt", "internal", "internal error: RuntimeError: a bug"),),
    ),
]

assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"


def _params() -> list[Any]:
    marks = {
        c.name: [pytest.mark.xfail(reason=f"BUG: {c.bug}", strict=True)] if c.bug else []
        for c in CASES
    }
    return [pytest.param(c, id=c.name, marks=marks[c.name]) for c in CASES]


def _reported(report: dict[str, Any]) -> dict[str, Any]:
    assert report["schema"] == "simdup-scan/1"
    for key in ("files", "skipped", "clusters", "pairs"):
        assert isinstance(report[key], list), key
    return report


@pytest.mark.parametrize("case", _params())
def test_catalogue(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = case.build(tmp_path, monkeypatch)
    options = ["--format", "json", "--jobs", "1"] if case.command == "scan" else []
    result = invoke([case.command, *options, *args])

    assert_no_crash(result)
    assert result.exit_code == case.exit_code, (result.exit_code, result.stderr, result.stdout)
    assert case.stderr in result.stderr, result.stderr
    for expected in case.check_stdout:
        assert expected in result.stdout, result.stdout
    if case.command != "scan":
        return
    if case.exit_code in (ExitCode.USAGE, ExitCode.ERROR):
        assert result.stdout == "", "no report (not even a partial one) on a usage error"
        return

    report = _reported(json.loads(result.stdout))
    if case.skipped is not None:
        got = {(s["path"], s["stage"]): s["reason"] for s in report["skipped"]}
        assert set(got) == {(p, stage) for p, stage, _ in case.skipped}, report["skipped"]
        for path, stage, reason in case.skipped:
            assert reason in got[path, stage], (path, got[path, stage])
    if case.files is not None:
        assert sorted(f["path"] for f in report["files"]) == sorted(case.files)
    if case.clusters is not None:
        got_clusters = {frozenset(m["path"] for m in c["members"]) for c in report["clusters"]}
        assert got_clusters == set(case.clusters)
        assert len(report["clusters"]) == len(case.clusters)
    files = {f["path"]: f for f in report["files"]}
    for path, encoding, source in case.encodings:
        assert path in files, (path, sorted(files))
        assert (files[path]["encoding"], files[path]["encoding_source"]) == (encoding, source)
    if case.check is not None:
        case.check(report)


def test_catalogue_is_large_enough() -> None:
    assert len(CASES) >= 30


def test_every_case_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    missing = [c.name for c in CASES if f"`{c.name}`" not in text]
    assert not missing, f"add these cases to {DOCS.name}: {missing}"


# ---------------------------------------------------------------- races, at the library level


def test_file_deleted_between_discovery_and_fingerprinting(tmp_path: Path) -> None:
    for name in ("keep.txt", "gone.txt"):
        (tmp_path / name).write_text(DOC, encoding="utf-8")
    files, skipped = discover([str(tmp_path)], DiscoveryOptions())
    assert [os.path.basename(f.path) for f in files] == ["gone.txt", "keep.txt"] and not skipped
    (tmp_path / "gone.txt").unlink()
    results = list(engines.fingerprint_files(files, FeatureParams(), max_size=1 << 20, jobs=1))
    gone, keep = results
    assert isinstance(gone, SkippedFile)
    assert (gone.stage, gone.reason) == ("read", "No such file or directory")
    assert not isinstance(keep, SkippedFile) and 0 <= keep.fingerprint < 2**64


def test_discovery_cost_is_linear_in_depth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    depth = 300
    monkeypatch.chdir(tmp_path)
    put("deep/" + "/".join(["a"] * depth) + "/x.txt", DOC)
    calls = {"n": 0}
    for name in ("stat", "lstat"):
        real = getattr(os, name)

        def counting(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            calls["n"] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, counting)
    files, _ = discover(["deep"])
    monkeypatch.undo()
    assert len(files) == 1
    assert calls["n"] <= 10 * depth, f"{calls['n']} stat/lstat calls for {depth} folders"


# ---------------------------------------------------------------- names in every output format


def _no_raw_controls(text: str) -> list[str]:
    """Characters a terminal would act on or that would forge lines (all but the newline)."""
    return [
        repr(ch)
        for ch in text
        if ch != "\n" and (unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"))
    ]


@pytest.fixture
def named_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Exact duplicates whose names are not UTF-8, or hold control and layout characters."""
    monkeypatch.chdir(tmp_path)
    for name in (
        b"caf\xe9.txt",
        b"new\nline.txt",
        b"esc\x1b[2Jx.txt",
        b"tab\tx.txt",
        "ls\u2028x.txt".encode(),
        "c1\x85x.txt".encode(),
        "rtl\u202etxt.exe".encode(),
        b"plain.txt",
    ):
        put(b"d/" + name, DOC)
    put(b"d/empty\x1b]0;title\x07.txt", b"")  # skipped: its name goes to the stderr summary
    return tmp_path


NAMED = {
    "d/caf\\xe9.txt",
    "d/new\nline.txt",
    "d/esc\x1b[2Jx.txt",
    "d/tab\tx.txt",
    "d/ls\u2028x.txt",
    "d/c1\x85x.txt",
    "d/rtl\u202etxt.exe",
    "d/plain.txt",
}


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_names_survive_machine_formats(named_tree: Path, fmt: str) -> None:
    result = invoke(["scan", "--jobs", "1", "--format", fmt, "d"])
    assert_no_crash(result)
    assert result.exit_code == 0
    out = result.stdout_bytes.decode("utf-8")  # strict: every format is valid UTF-8
    if fmt == "json":
        report = json.loads(out)
        files = {f["path"] for f in report["files"]}
        skipped = {s["path"] for s in report["skipped"]}
        pairs = {p["a"] for p in report["pairs"]} | {p["b"] for p in report["pairs"]}
    elif fmt == "jsonl":
        records = [json.loads(line) for line in out.split("\n") if line]  # "\n" only, as JSONL
        assert records[0]["type"] == "header"
        files = {r["path"] for r in records if r["type"] == "file"}
        skipped = {r["path"] for r in records if r["type"] == "skipped"}
        pairs = {r[k] for r in records if r["type"] == "pair" for k in ("a", "b")}
    else:
        rows = list(csv.reader(io.StringIO(out, newline="")))
        assert rows[0] == ["a", "b", "distance", "similarity", "exact", "cluster_a", "cluster_b"]
        assert all(len(row) == 7 for row in rows)
        files = skipped = set()
        pairs = {cell for row in rows[1:] for cell in row[:2]}
        assert len(rows) - 1 == len(NAMED) * (len(NAMED) - 1) // 2
    assert pairs == NAMED
    if fmt != "csv":
        assert files == NAMED
        assert skipped == {"d/empty\x1b]0;title\x07.txt"}


def test_text_output_escapes_control_characters(named_tree: Path) -> None:
    # color=True: click would otherwise strip ANSI sequences itself and hide a raw ESC.
    result = invoke(["scan", "--jobs", "1", "d"], color=True)
    assert_no_crash(result)
    assert result.exit_code == 0
    assert _no_raw_controls(result.stdout) == []
    assert _no_raw_controls(result.stderr) == []
    lines = result.stdout.splitlines()
    member_lines = [line for line in lines if line.startswith("    ") or line.startswith("  * ")]
    assert len(member_lines) == len(NAMED)  # a name with a newline did not add a line
    for expected in (
        "d/caf\\xe9.txt",
        "d/new\\nline.txt",
        "d/esc\\x1b[2Jx.txt",
        "d/tab\\tx.txt",
        "d/ls\\u2028x.txt",
        "d/c1\\x85x.txt",
        "d/rtl\\u202etxt.exe",
    ):
        assert sum(expected in line for line in member_lines) == 1, expected
    assert "d/empty\\x1b]0;title\\x07.txt: empty file" in result.stderr


def test_hash_output_escapes_control_characters(named_tree: Path) -> None:
    result = invoke(["hash", "d"], color=True)
    assert_no_crash(result)
    assert result.exit_code == ExitCode.OK  # the empty file, found in a folder: reported
    assert _no_raw_controls(result.stdout) == [] and _no_raw_controls(result.stderr) == []
    assert len(result.stdout.splitlines()) == len(NAMED)
    assert "d/new\\nline.txt" in result.stdout
    assert "d/empty\\x1b]0;title\\x07.txt: empty file" in result.stderr


def test_compare_output_escapes_control_characters(named_tree: Path) -> None:
    result = invoke(["compare", "d/new\nline.txt", "d/esc\x1b[2Jx.txt"], color=True)
    assert_no_crash(result)
    assert result.exit_code == 0
    assert _no_raw_controls(result.stdout) == []
    assert "A: d/new\\nline.txt" in result.stdout and "B: d/esc\\x1b[2Jx.txt" in result.stdout


def test_compare_error_escapes_control_characters(named_tree: Path) -> None:
    result = invoke(["compare", "d/plain.txt", "d/empty\x1b]0;title\x07.txt"], color=True)
    assert_no_crash(result)
    assert result.exit_code == ExitCode.FILES_SKIPPED
    assert "empty file" in result.stderr
    assert _no_raw_controls(result.stderr) == []


def test_escaped_names_are_unambiguous(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    put(b"d/caf\xe9.txt", words(1))
    put(b"d/caf\\xe9.txt", words(2))
    result = invoke(["scan", "--jobs", "1", "--format", "json", "d"])
    assert result.exit_code == 0
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert len(paths) == 2
    assert len(set(paths)) == 2, paths


# ---------------------------------------------------------------- security


FORMULA_NAMES = ("=cmd.txt", "+x.txt", "@x.txt", "-x.txt", "\tx.txt")


def test_csv_formula_injection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in (*FORMULA_NAMES, "plain.txt"):
        put(name, DOC)
    names = ["--", *FORMULA_NAMES, "plain.txt"]
    result = invoke(["scan", "--jobs", "1", "--format", "csv", *names])
    assert_no_crash(result)
    assert result.exit_code == 0
    rows = list(csv.reader(io.StringIO(result.stdout, newline="")))
    cells = [cell for row in rows[1:] for cell in row[:2]]
    assert len(rows) - 1 == 15  # every pair among six exact duplicates
    assert set(cells) == {"'" + n for n in FORMULA_NAMES} | {"plain.txt"}
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row

    # The prefix is a CSV-only defence: JSON keeps the real names.
    report = json.loads(invoke(["scan", "--jobs", "1", "--format", "json", *names]).stdout)
    assert {f["path"] for f in report["files"]} == {*FORMULA_NAMES, "plain.txt"}


TRICKY = (
    'q"uote.txt',
    "back\\slash.txt",
    'both\\"x.txt',
    "brace}{.txt",
    "ls\u2028x.txt",
    "nel\x85x.txt",
    "cr\rx.txt",
)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_escapes_quotes_and_backslashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in TRICKY:
        put("d/" + name, DOC)
    result = invoke(["scan", "--jobs", "1", "--format", fmt, "d"])
    assert_no_crash(result)
    assert result.exit_code == 0
    if fmt == "json":
        files = {f["path"] for f in json.loads(result.stdout)["files"]}
    else:
        lines = [line for line in result.stdout.split("\n") if line]
        records = [json.loads(line) for line in lines]  # each record on exactly one line
        assert len(records) == 1 + len(TRICKY) + len(TRICKY) * (len(TRICKY) - 1) // 2 + 1
        files = {r["path"] for r in records if r["type"] == "file"}
    # On POSIX a literal backslash is written doubled, so names stay unambiguous next to the
    # \\xNN escapes of undecodable bytes (see simdup/report/paths.py).
    assert files == {"d/" + name.replace("\\", "\\\\") for name in TRICKY}


# ---------------------------------------------------------------- the edges of a real process
#
# Where the report goes, closed standard streams, dead workers and signals: each case runs
# ``python -m simdup`` as a real process (``sh -c`` sets up the redirections), because
# CliRunner replaces the standard streams and cannot fork workers or take signals. Device
# nodes are made with ``os.mknod`` inside the test's folder (never a real system path).

EDGES: dict[str, Callable[[Path, Callable[[], Path]], None]] = {}


def edge(function: Callable[[Path, Callable[[], Path]], None]) -> Callable[..., None]:
    EDGES[function.__name__.removeprefix("edge_")] = function
    return function


def simdup_process(
    args: list[str], redirect: str = "", prelude: str = "", timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """``python -m simdup ARGS`` run by ``sh -c 'PRELUDE exec ... REDIRECT'``."""
    script = f'{prelude} exec "$0" -m simdup "$@" {redirect}'
    return subprocess.run(
        ["sh", "-c", script, sys.executable, *args], capture_output=True, timeout=timeout
    )


def assert_clean(proc: subprocess.CompletedProcess[bytes], code: int, stderr: str = "") -> None:
    err = proc.stderr.decode(errors="replace")
    assert "Traceback" not in err, err
    assert proc.returncode == code, (proc.returncode, err)
    assert stderr in err, err


def mknod_char(path: str, major: int, minor: int) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except PermissionError:
        pytest.skip("mknod is not permitted here")


def report_files(text: bytes | str) -> set[str]:
    return {f["path"] for f in json.loads(text)["files"]}


@edge
def edge_output_null_device(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    mknod_char("null", 1, 3)
    rdev = os.stat("null").st_rdev
    assert_clean(simdup_process(["scan", "d", "-f", "json", "-o", "null"]), 0)
    st = os.lstat("null")
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == rdev, "the device node was replaced"


@edge
def edge_output_full_device(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    mknod_char("full", 1, 7)
    proc = simdup_process(["scan", "d", "-q", "-f", "json", "-o", "full"])
    assert_clean(proc, ExitCode.ERROR, "full: No space left on device")
    assert stat.S_ISCHR(os.lstat("full").st_mode)


@edge
def edge_output_symlink_to_device(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    mknod_char("null", 1, 3)
    os.symlink("null", "report-link")
    assert_clean(simdup_process(["scan", "d", "-o", "report-link"]), 0)
    assert os.path.islink("report-link") and os.readlink("report-link") == "null"
    assert stat.S_ISCHR(os.lstat("null").st_mode)


@edge
def edge_output_fifo_with_reader(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    os.mkfifo("pipe")
    received: list[bytes] = []

    def reader() -> None:
        with open("pipe", "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    proc = simdup_process(["scan", "d", "-f", "json", "-o", "pipe"], timeout=60)
    thread.join(30)
    assert_clean(proc, 0)
    assert received and report_files(received[0]) == set(BASE_FILES)
    assert stat.S_ISFIFO(os.lstat("pipe").st_mode)


@edge
def edge_output_socket(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("sock")
        proc = simdup_process(["scan", "d", "-o", "sock"])
    finally:
        server.close()
    assert_clean(proc, ExitCode.ERROR, "sock: is a socket")
    assert proc.stdout == b""
    assert stat.S_ISSOCK(os.lstat("sock").st_mode)


@edge
def edge_output_existing_file_keeps_mode_and_owner(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    put("r.json", "old\n")
    os.chmod("r.json", 0o600)
    owner = (os.getuid(), os.getgid())
    if os.getuid() == 0:
        owner = (65534, 65534)  # as root, a file of another user's, which must stay theirs
        os.chown("r.json", *owner)
    assert_clean(simdup_process(["scan", "d", "-f", "json", "-o", "r.json"]), 0)
    st = os.stat("r.json")
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert (st.st_uid, st.st_gid) == owner
    assert report_files(Path("r.json").read_bytes()) == set(BASE_FILES)


@edge
def edge_output_file_size_limit_keeps_old_report(tmp: Path, big: Callable[[], Path]) -> None:
    for n in range(30):
        put(f"d/{n:02}.txt", DOC)  # a report of ~10 KB
    put("r.json", "old\n")
    # A file-size limit of 1 KB (what a full disk or quota looks like to a writer: EFBIG).
    proc = simdup_process(["scan", "d", "-q", "-o", "r.json"], prelude="trap '' XFSZ; ulimit -f 2;")
    assert_clean(proc, ExitCode.ERROR, "File too large")
    assert Path("r.json").read_text() == "old\n"
    assert not [p for p in os.listdir(".") if p.startswith(".simdup-")]


@edge
def edge_stdout_closed(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    proc = simdup_process(["scan", "d"], redirect=">&-")
    assert_clean(proc, ExitCode.ERROR, "standard output is closed")


@edge
def edge_stdout_closed_hash(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    proc = simdup_process(["hash", "d/a.txt"], redirect=">&-")
    assert_clean(proc, ExitCode.ERROR, "standard output is closed")


@edge
def edge_stderr_closed(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    proc = simdup_process(["scan", "d", "-f", "json", "-o", "r.json"], redirect="2>&-")
    assert_clean(proc, 0)
    assert report_files(Path("r.json").read_bytes()) == set(BASE_FILES)


@edge
def edge_stderr_closed_fail_on_duplicates(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()
    args = ["scan", "d", "-f", "json", "-o", "r.json", "--fail-on-duplicates"]
    proc = simdup_process(args, redirect="2>&-")
    assert_clean(proc, ExitCode.DUPLICATES_FOUND)
    assert report_files(Path("r.json").read_bytes()) == set(BASE_FILES)


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(c) for c in path.read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return not Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except OSError:
        return False


def _default_hangup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _scan_and(action: Callable[[subprocess.Popen[bytes], list[int]], None], corpus: Path,
              report: Path) -> tuple[subprocess.Popen[bytes], bytes, list[int]]:  # fmt: skip
    """Start a ``-j2`` scan of ``corpus``, wait for its workers, then ``action(proc, workers)``
    (while the scan is running); return the process, its stderr and every worker seen."""
    args = ["scan", str(corpus), "-j", "2", "-f", "json", "-o", str(report), "--no-cache"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "simdup", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # The scan's own disposition of SIGHUP, whatever the test runner's: under nohup it
        # would inherit "ignored", which simdup rightly keeps.
        preexec_fn=_default_hangup,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.01)
    time.sleep(0.3)  # fingerprinting is under way
    assert proc.poll() is None, "the scan ended before the test could act: make the corpus larger"
    action(proc, workers)
    seen = set(workers) | set(_children(proc.pid))
    _, err = proc.communicate(timeout=120)
    return proc, err, sorted(seen)


def _no_orphans(workers: list[int]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "a worker outlived the scan"


@edge
def edge_worker_killed_mid_scan(tmp: Path, big: Callable[[], Path]) -> None:
    corpus = big()
    reference = tmp / "reference.json"
    args = ["scan", str(corpus), "-j", "2", "-f", "json", "-o", str(reference), "--no-cache"]
    assert_clean(simdup_process(args), 0)
    report = tmp / "report.json"
    killed: list[int] = []

    def kill_one(proc: subprocess.Popen[bytes], workers: list[int]) -> None:
        os.kill(workers[0], signal.SIGKILL)  # as the kernel's OOM killer does
        killed.append(workers[0])

    started = time.monotonic()
    proc, err, workers = _scan_and(kill_one, corpus, report)
    assert "Traceback" not in err.decode(), err
    assert proc.returncode == 0, err
    assert time.monotonic() - started < 60
    ours, theirs = json.loads(report.read_bytes()), json.loads(reference.read_bytes())
    for key in ("files", "skipped", "pairs", "clusters"):
        assert ours[key] == theirs[key], key
    _no_orphans(workers)


def _stopped_by(signum: int, code: int, tmp: Path, corpus: Path) -> None:
    report = tmp / "report.json"
    proc, err, workers = _scan_and(lambda p, _: p.send_signal(signum), corpus, report)
    assert proc.returncode == code, err
    name = signal.Signals(signum).name
    assert err.decode().strip() == f"simdup: stopped by {name}; no report written"
    assert not report.exists()
    assert not [p for p in tmp.iterdir() if p.name.startswith(".simdup-")]
    _no_orphans(workers)


@edge
def edge_sigterm_mid_scan(tmp: Path, big: Callable[[], Path]) -> None:
    _stopped_by(signal.SIGTERM, ExitCode.TERMINATED, tmp, big())


@edge
def edge_sighup_mid_scan(tmp: Path, big: Callable[[], Path]) -> None:
    _stopped_by(signal.SIGHUP, ExitCode.HANGUP, tmp, big())


@edge
def edge_parent_killed_mid_scan(tmp: Path, big: Callable[[], Path]) -> None:
    proc, _, workers = _scan_and(lambda p, _: p.kill(), big(), tmp / "report.json")
    assert proc.returncode == -signal.SIGKILL
    _no_orphans(workers)  # the kernel stops them with their parent (PR_SET_PDEATHSIG)


@edge
def edge_internal_error(tmp: Path, big: Callable[[], Path]) -> None:
    baseline()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simdup.cli.scan, "scan", broken)
        result = invoke(["scan", "d"])
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.strip() == "simdup: internal error: RuntimeError: a bug"


_BIG: dict[str, Path] = {}


@pytest.fixture
def big_corpus_factory(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Path]:
    """A corpus that takes a ``-j2`` scan a few seconds (built once per session, on demand)."""

    def build() -> Path:
        if "root" not in _BIG:
            import random

            root = tmp_path_factory.mktemp("big")
            rng = random.Random(9)
            vocabulary = [f"w{i}" for i in range(20000)]
            for n in range(1500):
                lines = (" ".join(rng.choices(vocabulary, k=12)) for _ in range(500))
                (root / f"{n}.txt").write_text("\n".join(lines))
            for n in range(0, 1500, 100):  # some near-duplicates to report
                (root / f"{n}-copy.txt").write_text((root / f"{n}.txt").read_text() + " extra")
            _BIG["root"] = root
        return _BIG["root"]

    return build


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    big_corpus_factory: Callable[[], Path],
) -> None:
    monkeypatch.chdir(tmp_path)
    EDGES[name](tmp_path, big_corpus_factory)


def test_every_edge_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    missing = [name for name in EDGES if f"`{name}`" not in text]
    assert not missing, f"add these cases to {DOCS.name}: {missing}"
