"""simdup.report.sarif: SARIF 2.1.0 output, checked against the official OASIS schema."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import CliRunner

import simdup
from simdup.cli import cli
from simdup.names import escape_path
from simdup.params import ALGORITHM_VERSION
from simdup.report import render
from simdup.report.sarif import EXACT_RULE, FINGERPRINT_KEY, NEAR_RULE, artifact_uri, sarif_log
from tests.conftest import DATA, SAMPLE_CORPUS

SCHEMA_FILE = DATA / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
# RFC 3986 path of a relative reference: unreserved characters, "/" and %XX only (quote()
# with safe="/" leaves nothing else).
URI_PATH = re.compile(r"^(?:[A-Za-z0-9._~/-]|%[0-9A-F]{2})+$")

ESSAY = (SAMPLE_CORPUS / "en" / "backup-essay.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def sarif_of(*paths: str | Path) -> dict[str, Any]:
    out = io.StringIO()
    render(simdup.scan(list(paths), jobs=1), "sarif", out)
    log: dict[str, Any] = json.loads(out.getvalue())
    return log


def fingerprints(log: dict[str, Any]) -> list[str]:
    return sorted(r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"])


def test_vendored_schema_is_the_official_one() -> None:
    """The vendored file is OASIS's SARIF 2.1.0 schema (errata 01), a draft-04 JSON schema,
    byte for byte as published."""
    data = SCHEMA_FILE.read_bytes().replace(b"\r\n", b"\n")  # a checkout with autocrlf
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256, "see tests/data/README.md"
    schema = json.loads(data)
    assert schema["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"


def test_sample_corpus_sarif_validates_against_the_schema(
    sample_corpus: Path, validator: jsonschema.protocols.Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`simdup scan sample_corpus -f sarif` is valid SARIF 2.1.0, with the tool, version, rules
    and algorithm version filled in."""
    monkeypatch.chdir(sample_corpus.parent)
    result = CliRunner().invoke(
        cli, ["scan", "sample_corpus", "-f", "sarif", "-j", "1"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    log = json.loads(result.stdout)
    validator.validate(log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "simdup" and driver["version"] == simdup.__version__
    assert [r["id"] for r in driver["rules"]] == [NEAR_RULE, EXACT_RULE]
    assert all(r["help"]["markdown"] and r["fullDescription"]["text"] for r in driver["rules"])
    assert driver["properties"]["algorithm_version"] == ALGORITHM_VERSION
    assert run["results"], "the sample corpus has near-duplicates"
    for r in run["results"]:
        assert r["level"] == "warning"
        location = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%"
        assert location["uri"].startswith("sample_corpus/")
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    # Skipped files are tool execution notifications, not results.
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("empty.txt" in n["message"]["text"] for n in notes)


def test_one_result_per_pair(sample_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each reported pair is one result: file a the location, file b the related location;
    exact pairs use the exact-duplicate rule."""
    monkeypatch.chdir(sample_corpus.parent)
    scan = simdup.scan(["sample_corpus"], jobs=1)
    results = sarif_log(scan)["runs"][0]["results"]
    assert len(results) == len(scan.pairs)
    for pair, r in zip(scan.pairs, results, strict=True):
        assert unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) == pair.a
        related = r["relatedLocations"][0]
        assert unquote(related["physicalLocation"]["artifactLocation"]["uri"]) == pair.b
        assert r["ruleId"] == (EXACT_RULE if pair.exact else NEAR_RULE)
        assert f"[{pair.b}]({related['id']})" in r["message"]["text"]
        assert f"Hamming distance {pair.distance}" in r["message"]["text"]


def test_fingerprints_are_stable_across_runs_renames_and_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """partialFingerprints are the same on a second run and after both files of each pair are
    renamed and moved to another folder, and differ between different pairs."""
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_CORPUS / "en", docs)
    monkeypatch.chdir(tmp_path)
    first = fingerprints(sarif_of("docs"))
    assert first and first == fingerprints(sarif_of("docs"))
    moved = tmp_path / "elsewhere" / "deeper"
    moved.mkdir(parents=True)
    for n, path in enumerate(sorted(docs.iterdir())):
        path.rename(moved / f"renamed-{n:02d}{path.suffix}")
    assert fingerprints(sarif_of("elsewhere")) == first
    # Exact copies of one text share a fingerprint; distinct texts do not collide otherwise.
    log = sarif_of("elsewhere")
    by_print: dict[str, set[bool]] = {}
    for r in log["runs"][0]["results"]:
        by_print.setdefault(r["partialFingerprints"][FINGERPRINT_KEY], set()).add(
            r["properties"]["exact"]
        )
    assert all(len(kinds) == 1 for kinds in by_print.values())


HOSTILE = ["with space.txt", "hash#frag.txt", "per%25cent.txt", "q?uery:colon[1].txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
def test_hostile_names_give_valid_uris(
    tmp_path: Path, validator: jsonschema.protocols.Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spaces, '#', '%', '?', ':', brackets and undecodable bytes in names are percent-encoded:
    every URI is an RFC 3986 path that decodes back to the name as other formats write it."""
    docs = tmp_path / "hostile docs"
    docs.mkdir()
    names = [*HOSTILE, os.fsdecode(b"bad\xff\xfename.txt"), "中文 名.txt"]
    for name in names:
        (docs / name).write_text(ESSAY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    log = sarif_of("hostile docs")
    validator.validate(log)
    uris = set()
    for r in log["runs"][0]["results"]:
        for loc in (*r["locations"], *r["relatedLocations"]):
            uris.add(loc["physicalLocation"]["artifactLocation"]["uri"])
    assert len(uris) == len(names)
    for uri in uris:
        assert URI_PATH.match(uri), uri
    expected = {escape_path(os.path.join("hostile docs", n)) for n in names}
    assert {unquote(u) for u in uris} == expected
    assert "hostile%20docs/hash%23frag.txt" in uris
    assert "hostile%20docs/per%2525cent.txt" in uris
    assert "hostile%20docs/bad%5Cxff%5Cxfename.txt" in uris
    # '[' and ']' in a name cannot break the message's embedded link.
    messages = [r["message"]["text"] for r in log["runs"][0]["results"]]
    assert any("colon\\[1\\].txt](1)" in m for m in messages)


def test_paths_outside_the_working_folder_are_file_uris(tmp_path: Path) -> None:
    """A relative name is a %SRCROOT% reference with './' dropped; a file outside the current
    folder is an absolute file: URI without a base."""
    cwd = str(tmp_path / "repo")
    assert artifact_uri("./docs/a b.md", cwd) == ("docs/a%20b.md", "%SRCROOT%")
    assert artifact_uri(os.path.join(cwd, "docs", "x.md"), cwd) == ("docs/x.md", "%SRCROOT%")
    uri, base = artifact_uri("../other/y.md", cwd)
    assert base is None and uri == (tmp_path / "other" / "y.md").as_uri()


def test_a_baseline_marks_results_new_or_unchanged_and_suppresses_the_accepted(
    tmp_path: Path, validator: jsonschema.protocols.Validator
) -> None:
    """With --baseline, each result says whether the pair is new, and an accepted one is
    suppressed (code scanning shows it dismissed, not open); the text output marks the
    accepted clusters (issue 33)."""
    from click.testing import CliRunner

    from simdup.cli import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    text, other = " ".join(f"term{i}" for i in range(80)), " ".join(f"other{i}" for i in range(80))
    (docs / "a.txt").write_text(text)
    (docs / "b.txt").write_text(text + " extra")
    baseline = tmp_path / "baseline.json"
    runner = CliRunner()
    assert runner.invoke(cli, ["scan", str(docs), "--write-baseline", str(baseline)]).exit_code == 0
    (docs / "c.txt").write_text(other)
    (docs / "d.txt").write_text(other + " more")
    args = ["scan", str(docs), "--baseline", str(baseline), "-j", "1"]
    sarif = json.loads(runner.invoke(cli, [*args, "-f", "sarif"]).stdout)
    validator.validate(sarif)
    results = sarif["runs"][0]["results"]
    states = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1]:
              (r["baselineState"], bool(r.get("suppressions"))) for r in results}  # fmt: skip
    assert states == {"a.txt": ("unchanged", True), "c.txt": ("new", False)}
    (accepted,) = [r for r in results if r.get("suppressions")]
    assert accepted["suppressions"][0]["kind"] == "external"
    text_out = runner.invoke(cli, args).stdout
    clusters = [line for line in text_out.splitlines() if line.startswith("Cluster")]
    assert len(clusters) == 2
    assert sum("(accepted in the baseline)" in line for line in clusters) == 1
    assert "2 near-duplicate pairs (1 accepted in the baseline)" in text_out
    # Without a baseline: no baselineState, no suppression, no marks.
    plain = json.loads(runner.invoke(cli, ["scan", str(docs), "-f", "sarif"]).stdout)
    assert all("baselineState" not in r and "suppressions" not in r
               for r in plain["runs"][0]["results"])  # fmt: skip


def _passage_pair(folder: Path, wrap: str) -> None:
    """a and b: different paragraphs around six copied lines (a's lines 12-17, b's 27-32
    as Markdown); ``wrap`` "md" writes them as Markdown, "html" as an HTML page of <p>s."""
    import random

    rnd = random.Random(5)
    vocabulary = [f"w{i}" for i in range(3000)]

    def paragraph(n: int = 40) -> str:
        return " ".join(rnd.choice(vocabulary) for _ in range(n))

    copied = [paragraph(16) for _ in range(6)]
    a = [paragraph() for _ in range(10)] + [""] + copied + [""] + [paragraph() for _ in range(5)]
    b = [paragraph() for _ in range(25)] + [""] + copied + [""] + [paragraph() for _ in range(3)]
    folder.mkdir()
    for name, lines in (("a", a), ("b", b)):
        if wrap == "md":
            text = "\n".join(lines) + "\n"
        else:
            body = "\n".join(f"<p>\n{line}\n</p>" for line in lines if line)
            text = f"<html>\n<head><title>t</title></head>\n<body>\n{body}\n</body></html>\n"
        (folder / f"{name}.{wrap}").write_text(text, encoding="utf-8")


def _passage_results(folder: Path, validator: jsonschema.protocols.Validator) -> list[Any]:
    result = CliRunner().invoke(cli, ["scan", str(folder), "--passages", "-f", "sarif",
                                      "--no-cache", "-j", "1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    log = json.loads(result.stdout)
    validator.validate(log)
    return [r for r in log["runs"][0]["results"] if r["ruleId"] == "simdup/duplicated-passage"]


def test_a_passage_message_names_each_place_once(
    tmp_path: Path, validator: jsonschema.protocols.Validator
) -> None:
    """A Markdown passage's SARIF message says its lines once ("Lines 12-17 are a near-copy
    of lines 27-32 of b.md"), not "Lines 12-17 (lines 12-17) ..." (issue 47); its regions are
    those lines, and the characters of the files that hold the copy (issue 48)."""
    _passage_pair(tmp_path / "docs", "md")
    (found,) = _passage_results(tmp_path / "docs", validator)
    assert found["message"]["text"] == (
        f"Lines 12-17 are a near-copy of lines 27-32 of [{tmp_path / 'docs' / 'b.md'}](1): "
        "word-set similarity 1.00."
    )
    region = found["locations"][0]["physicalLocation"]["region"]
    related = found["relatedLocations"][0]["physicalLocation"]["region"]
    lines = [(r["startLine"], r["endLine"]) for r in (region, related)]
    assert lines == [(12, 17), (27, 32)]
    pieces = [
        (tmp_path / "docs" / name).read_text("utf-8")[r["charOffset"] :][: r["charLength"]]
        for name, r in (("a.md", region), ("b.md", related))
    ]
    assert pieces[0] == pieces[1] and len(pieces[0].split()) == 6 * 16


def test_an_html_passage_is_placed_at_the_lines_of_the_page(
    tmp_path: Path, validator: jsonschema.protocols.Validator
) -> None:
    """An HTML page's text is not its file: the message and the regions give the page's
    lines and characters (the copied paragraphs' words, from the first to the last), once,
    as the text report does."""
    pytest.importorskip("lxml")
    _passage_pair(tmp_path / "docs", "html")
    (found,) = _passage_results(tmp_path / "docs", validator)
    page = (tmp_path / "docs" / "a.html").read_text(encoding="utf-8").splitlines()
    other = (tmp_path / "docs" / "b.html").read_text(encoding="utf-8").splitlines()
    region = found["locations"][0]["physicalLocation"]["region"]
    first, last = region["startLine"], region["endLine"]
    # Lines `first` and `last` are the first and the last copied paragraph, shared with b.
    assert page[first - 2] == "<p>" and page[last] == "</p>"
    assert page[first - 1] in other and page[last - 1] in other and page[first - 4] not in other
    piece = "\n".join(page)[region["charOffset"] :][: region["charLength"]]
    assert piece.startswith(page[first - 1]) and piece.endswith(page[last - 1])
    assert found["message"]["text"].startswith(f"Lines {first}-{last} are a near-copy of lines ")
    assert "(" not in found["message"]["text"].split(" of [")[0]
    text = CliRunner().invoke(cli, ["scan", str(tmp_path / "docs"), "--passages", "--no-cache"])
    assert f"a.html lines {first}-{last} " in text.stdout
