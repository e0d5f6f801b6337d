"""The HTML report: one self-contained page with a summary, a histogram of pair distances, a
linked list of clusters, a side-by-side diff of every member against its representative, the
encodings and the skipped files; all content escaped.

The unit tests parse the page with ``html.parser``. The last test renders the page of
``sample_corpus`` (plus a folder of hostile names and texts) in headless Chromium and reads back
the DOM Chromium built; Chromium is installed by the ``chromium`` fixture when missing (as root,
with apt-get), and the test is skipped, saying why, only where it cannot be installed.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

import simdup
import simdup.report.html as html_report
from simdup.readers import read_document
from simdup.records import ScanResult
from simdup.report import render
from tests.conftest import SAMPLE_CORPUS, DocWriter, pseudo_words

SCRIPT_LINE = '<script>alert("pwned")</script> and <b>bold</b> &amp; more'
HOSTILE_NAME = "<img src=x onerror=alert(1)>.txt"


@dataclass
class Page:
    """What a parsed page holds: element ids, links, tags and, in document order, the member
    headings (``h3`` ids) each followed by the diff tables and notes under it."""

    ids: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)
    text: str = ""
    member_diffs: list[tuple[str, int]] = field(default_factory=list)

    def tag_count(self, name: str) -> int:
        return sum(1 for tag, _ in self.tags if tag == name)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._text: list[str] = []
        self._h3: str | None = None
        self._diffs: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.page.tags.append((tag, a))
        if a.get("id"):
            self.page.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.page.links.add(str(a["href"]))
        if tag == "h3":
            self._h3 = str(a.get("id"))
            self._diffs[self._h3] = 0
        if tag == "table" and "diff" in (a.get("class") or "").split() and self._h3:
            self._diffs[self._h3] += 1

    def handle_data(self, data: str) -> None:
        self._text.append(data)

    def result(self) -> Page:
        self.page.text = "".join(self._text)
        self.page.member_diffs = list(self._diffs.items())
        return self.page


def parse(page: str) -> Page:
    parser = _Parser()
    parser.feed(page)
    parser.close()
    return parser.result()


def page_of(result: ScanResult) -> str:
    out = io.StringIO()
    render(result, "html", out, read=functools.partial(read_document, max_size=1 << 26))
    return out.getvalue()


def write_hostile(write_doc: DocWriter, folder: str = "hostile") -> None:
    """A document with markup in its text and a near copy whose file name is an ``img`` tag."""
    body = pseudo_words(7, 240)
    write_doc(f"{folder}/markup.txt", f"{SCRIPT_LINE}\n{body}")
    write_doc(f"{folder}/{HOSTILE_NAME}", f"{SCRIPT_LINE} edited\n{body}")


def check_members(page: Page, result: ScanResult) -> None:
    """Every cluster has its anchor and a link to it; every member other than the
    representative has a heading followed by exactly one diff table."""
    diffs = dict(page.member_diffs)
    for c in result.clusters:
        assert f"cluster-{c.id}" in page.ids
        assert f"#cluster-{c.id}" in page.links
        for k, m in enumerate(c.members):
            anchor = f"cluster-{c.id}-member-{k}"
            if m.path == c.representative:
                assert anchor not in page.ids
            else:
                assert diffs.get(anchor) == 1, (anchor, m.path)
    members = sum(len(c.members) - 1 for c in result.clusters)
    assert len(page.member_diffs) == members
    assert page.tag_count("table") >= members


def test_every_cluster_is_linked_and_every_member_has_a_diff(write_doc: DocWriter) -> None:
    """The cluster list links to an anchor per cluster, and each non-representative member
    has a diff table against its representative, with changed words marked ``del``/``ins``."""
    base = pseudo_words(1, 240)
    write_doc("a/one.txt", base)
    write_doc("a/two.txt", base.replace("\n", " zzedit\n", 2))
    write_doc("a/three.txt", base + "tail words here\n")
    other = pseudo_words(2, 240)
    write_doc("b/x.txt", other)
    write_doc("b/y.txt", other)
    result = simdup.scan([write_doc.root], jobs=1)
    assert len(result.clusters) == 2
    page_text = page_of(result)
    page = parse(page_text)
    check_members(page, result)
    assert page.tag_count("del") + page.tag_count("ins") > 0
    assert "zzedit" in page.text
    assert page_text.startswith("<!DOCTYPE html>")


def test_summary_histogram_and_settings(write_doc: DocWriter) -> None:
    """The page states counts, settings and the algorithm version, and draws one histogram bar
    per distinct pair distance as inline SVG; it loads nothing and runs no script."""
    base = pseudo_words(3, 240)
    write_doc("one.txt", base)
    write_doc("two.txt", base)
    write_doc("three.txt", base.replace("\n", " extra\n", 1))
    result = simdup.scan([write_doc.root], jobs=1)
    page_text = page_of(result)
    page = parse(page_text)
    assert {"summary", "histogram", "clusters", "skipped"} <= page.ids
    assert simdup.ALGORITHM_VERSION in page.text
    assert "features.weighting" in page.text and "threshold" in page.text
    bars = [a for tag, a in page.tags if tag == "rect" and a.get("class") == "bar"]
    assert len(bars) == len({p.distance for p in result.pairs}) > 0
    assert page.tag_count("svg") == 1
    assert page.tag_count("script") == 0
    external = [a for _, a in page.tags if "//" in str(a.get("src", "")) + str(a.get("href", ""))]
    assert not external
    assert "http" not in page_text.replace("http://www.w3.org/2000/svg", "")


def test_encodings_and_skipped_files_are_shown(write_doc: DocWriter) -> None:
    """Each member's encoding is in its row and in its diff header; skipped files are listed
    with stage and reason."""
    text = (SAMPLE_CORPUS / "zh" / "library-report.txt").read_text("utf-8")
    write_doc("report-gbk.txt", text, "gbk")
    write_doc("report-utf16.txt", text, "utf-16")
    write_doc("report.txt", text)
    write_doc("empty.txt", "")
    result = simdup.scan([write_doc.root], jobs=1)
    assert len(result.clusters) == 1
    page = parse(page_of(result))
    check_members(page, result)
    encodings = {tag for tag in ("gbk", "gb18030", "utf-16", "utf-16-le") if tag in page.text}
    assert encodings & {"gbk", "gb18030"} and encodings & {"utf-16", "utf-16-le"}
    assert "utf-8" in page.text
    assert "empty.txt" in page.text and "empty file" in page.text
    assert page.tag_count("del") + page.tag_count("ins") == 0  # same text, three encodings


def test_hostile_text_and_file_names_stay_text(write_doc: DocWriter) -> None:
    """A ``<script>`` in a document and an ``<img onerror>`` file name appear as text: the
    parsed page has no script or img element and no event-handler attribute."""
    write_hostile(write_doc)
    result = simdup.scan([write_doc.root], jobs=1)
    assert len(result.clusters) == 1
    page_text = page_of(result)
    page = parse(page_text)
    check_members(page, result)
    assert page.tag_count("script") == 0 and page.tag_count("img") == 0 and page.tag_count("b") == 0
    assert not [a for _, a in page.tags if any(k.startswith("on") for k in a)]
    assert HOSTILE_NAME in page.text
    assert '<script>alert("pwned")</script>' in page.text
    assert "1 cluster of near-duplicate documents among 2 documents; 0 files" in page.text
    assert "&amp;amp;" in page_text  # the document's own "&amp;" shown as typed


def test_long_diffs_are_cut_and_say_so(
    write_doc: DocWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member's diff shows at most ``MAX_DIFF_ROWS`` rows and then says it was truncated."""
    lines = pseudo_words(4, 1200).splitlines()
    write_doc("one.txt", "\n".join(lines) + "\n")
    edited = [f"{line} q" if i % 5 == 0 else line for i, line in enumerate(lines)]
    write_doc("two.txt", "\n".join(edited) + "\n")
    monkeypatch.setattr(html_report, "MAX_DIFF_ROWS", 10)
    result = simdup.scan([write_doc.root], jobs=1)
    assert len(result.clusters) == 1
    page_text = page_of(result)
    page = parse(page_text)
    check_members(page, result)
    assert "Diff truncated: 10 of" in page.text
    assert page_text.count("<tr class=chg>") + page_text.count("<tr><td class=ln>") <= 10


def test_a_file_gone_since_the_scan_gets_a_note(write_doc: DocWriter) -> None:
    """Diffs re-read the files; a member deleted since the scan gets a note instead of a diff,
    and the other members still get theirs."""
    base = pseudo_words(5, 240)
    write_doc("one.txt", base)
    write_doc("two.txt", base)
    write_doc("three.txt", base)
    result = simdup.scan([write_doc.root], jobs=1)
    (c,) = result.clusters
    gone = next(m.path for m in c.members if m.path != c.representative)
    os.unlink(gone)
    page = parse(page_of(result))
    diffs = dict(page.member_diffs)
    assert sorted(diffs.values()) == [0, 1]
    assert "No diff:" in page.text and "cannot be read again" in page.text


def test_rendering_reads_but_never_writes(write_doc: DocWriter) -> None:
    """Rendering leaves the scanned files' content and modification times as they were."""
    base = pseudo_words(6, 240)
    paths = [write_doc("one.txt", base), write_doc("two.txt", base + "more\n")]
    result = simdup.scan([write_doc.root], jobs=1)
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in paths]
    page_of(result)
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in paths] == before


# --- headless Chromium -------------------------------------------------------------------------


def _install_chromium() -> str | None:
    """Install Debian's ``chromium`` when running as root with apt-get; the reason it cannot
    be installed otherwise."""
    if os.name != "posix" or os.geteuid() != 0:
        return "chromium is not installed and the tests do not run as root to install it"
    if not shutil.which("apt-get"):
        return "chromium is not installed and apt-get is not available to install it"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            return f"installing chromium timed out ({' '.join(cmd)})"
        if done.returncode:
            return f"could not install chromium: {' '.join(cmd)}: {done.stderr.strip()[-300:]}"
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path of the ``chromium`` binary, installed first if missing and possible."""
    found = shutil.which("chromium")
    if not found:
        reason = _install_chromium()
        found = shutil.which("chromium")
        if not found:
            pytest.skip(reason or "chromium could not be installed")
    return found


def run_chromium(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            chromium, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
            "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
            *args,
        ],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def test_sample_corpus_page_in_headless_chromium(
    chromium: str, write_doc: DocWriter, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Chromium renders the page of ``sample_corpus`` (plus hostile files): the DOM it builds
    holds every cluster and a diff per member, no script error is logged, hostile content and
    names stay text (no img or script element, no event handler), and a screenshot is
    written."""
    write_hostile(write_doc)
    result = simdup.scan([SAMPLE_CORPUS, write_doc.root], jobs=1)
    assert len(result.clusters) >= 11 and result.skipped
    out = tmp_path_factory.mktemp("html") / "report.html"
    out.write_text(page_of(result), "utf-8")
    profile = tmp_path_factory.mktemp("chromium-profile")

    dumped = run_chromium(chromium, profile, "--dump-dom", out.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    assert "Uncaught" not in dumped.stderr, dumped.stderr[-2000:]
    dom = parse(dumped.stdout)
    check_members(dom, result)
    assert dom.tag_count("script") == 0 and dom.tag_count("img") == 0
    assert not [a for _, a in dom.tags if any(k.startswith("on") for k in a)]
    assert HOSTILE_NAME in dom.text and '<script>alert("pwned")</script>' in dom.text
    for s in result.skipped:
        assert os.path.basename(s.path) in dom.text

    shot = out.with_suffix(".png")
    shown = run_chromium(chromium, profile, "--window-size=1280,2000", f"--screenshot={shot}",
                         out.as_uri())  # fmt: skip
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "Uncaught" not in shown.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_report_lists_every_cluster_member_and_escapes_names(tmp_path: Path) -> None:
    """The HTML page names every member of every cluster and every skipped file, with markup in
    file names escaped (a name cannot inject tags)."""
    from simdup.report import render

    docs = tmp_path / "docs"
    docs.mkdir()
    text = " ".join(f"word{i}" for i in range(60))
    (docs / "<b>x.txt").write_text(text)
    (docs / "copy.txt").write_text(text)
    (docs / "empty.txt").write_text("")
    result = simdup.scan([docs], jobs=1)
    out = io.StringIO()
    render(result, "html", out, read=functools.partial(read_document, max_size=1 << 26))
    page = out.getvalue()
    assert page.startswith("<!DOCTYPE html>")
    assert "&lt;b&gt;x.txt" in page and "<b>x.txt" not in page
    assert "copy.txt" in page and "empty.txt" in page
    assert page.count("<h2>Cluster ") == len(result.clusters) == 1
