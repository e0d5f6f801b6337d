"""Servers of ``simdup.serving`` started on 127.0.0.1 (a free port) in a thread of the test,
stopped at the test's end; a multipart body as a browser or curl sends it; a class to check."""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, pseudo_words

pytest.importorskip("starlette", reason='the serve extra: pip install "simdup[serve]"')
pytest.importorskip("uvicorn", reason='the serve extra: pip install "simdup[serve]"')
pytest.importorskip("lxml", reason='the docs extra (Word files): pip install "simdup[docs]"')

import uvicorn  # noqa: E402

from simdup.serving.app import ServeSettings, make_app  # noqa: E402

FORMATS = DATA / "formats"


class Running:
    """A server of ``settings`` answering on ``self.port`` of 127.0.0.1."""

    def __init__(self, settings: ServeSettings) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.app = make_app(settings)
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        # uvicorn leaves signals alone outside the main thread.
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]})
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        self.app.state.executor.shutdown(wait=True)
        self.sock.close()

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            answer = conn.getresponse()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        finally:
            conn.close()

    def check(self, files: list[tuple[str, str, bytes]], query: str = "",
              headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        body, kind = multipart(files)
        return self.request("POST", f"/api/check{query}", body,
                            {"Content-Type": kind, **(headers or {})})  # fmt: skip

    def check_json(self, files: list[tuple[str, str, bytes]], query: str = "") -> Any:
        status, _, body = self.check(files, query)
        assert status == 200, body[:500]
        return json.loads(body)


@pytest.fixture
def serve() -> Iterator[Any]:
    """``serve(settings)``: a running server, stopped at the end of the test."""
    running: list[Running] = []

    def start(settings: ServeSettings | None = None) -> Running:
        running.append(Running(settings or ServeSettings()))
        return running[-1]

    yield start
    for server in running:
        server.stop()


def multipart(files: list[tuple[str, str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body of ``(field, file name, bytes)``, as curl -F sends it."""
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for field, name, data in files:
        out.write(f"--{boundary}\r\n".encode())
        out.write(f'Content-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                  .encode())  # fmt: skip
        out.write(b"Content-Type: application/octet-stream\r\n\r\n")
        out.write(data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


SOURCE = (FORMATS / "source.md").read_text("utf-8")


def class_files(folder: Path) -> dict[str, Path]:
    """A class of four: a Word thesis (copied from source.md), a Markdown essay with one
    paragraph of the source, a text of the student's own words, and a ZIP of two more (one
    copying the source's second half, one unrelated); and the source."""
    paragraphs = [p for p in SOURCE.split("\n\n") if len(p) > 200]
    own = "\n\n".join(pseudo_words(seed, 150) for seed in range(3))
    essay = f"# Essay\n\n{pseudo_words(7, 200)}\n\n{paragraphs[1]}\n\n{pseudo_words(8, 200)}\n"
    files = {
        "thesis.docx": FORMATS / "thesis.docx",
        "essay.md": folder / "essay.md",
        "own.txt": folder / "own.txt",
        "class.zip": folder / "class.zip",
        "source.md": FORMATS / "source.md",
    }
    files["essay.md"].write_text(essay, "utf-8")
    files["own.txt"].write_text(own, "utf-8")
    half = "\n\n".join(paragraphs[len(paragraphs) // 2:])
    with zipfile.ZipFile(files["class.zip"], "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("class/张三.md", f"# 作业\n\n{half}\n")
        archive.writestr("class/lisi.txt", pseudo_words(11, 300))
        archive.writestr("__MACOSX/class/._lisi.txt", b"\x00\x05\x16\x07")
    return files
