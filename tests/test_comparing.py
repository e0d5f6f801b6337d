"""simdup.comparing: ``simdup.compare``, how close two documents are and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import simdup
from simdup.cli import cli
from tests.conftest import DocWriter


def test_compare_near_duplicates(sample_corpus: Path) -> None:
    """Two near-duplicates: verdict True, small distance, similarities in [0, 1]."""
    c = simdup.compare(
        sample_corpus / "en" / "backup-essay.txt", sample_corpus / "en" / "backup-essay-trimmed.txt"
    )
    assert c.near_duplicate is True
    assert c.distance <= 12
    assert c.distance == simdup.hamming(c.a.fingerprint, c.b.fingerprint)
    assert c.simhash_similarity == pytest.approx(1 - c.distance / 64)
    for value in (c.cosine, c.jaccard, c.length_ratio):
        assert 0.0 <= value <= 1.0
    assert c.jaccard >= 0.8
    assert c.shared_terms
    assert c.reason


def test_compare_reencoded_copy_is_identical_text(sample_corpus: Path) -> None:
    """A GBK copy compares as identical normalised text at distance 0."""
    c = simdup.compare(
        sample_corpus / "zh" / "library-report.txt",
        sample_corpus / "encodings" / "library-report-gbk.txt",
    )
    assert c.near_duplicate is True
    assert c.distance == 0
    assert c.cosine == pytest.approx(1.0)
    assert c.jaccard == 1.0
    assert c.a.encoding == "utf-8" and c.b.encoding == "gb18030"
    assert c.only_a == () and c.only_b == ()


def test_compare_unrelated_documents(sample_corpus: Path) -> None:
    """Two newsletter issues sharing a template are not near-duplicates."""
    c = simdup.compare(
        sample_corpus / "zh" / "newsletter" / "weekly-012.txt",
        sample_corpus / "zh" / "newsletter" / "weekly-013.txt",
    )
    assert c.near_duplicate is False
    assert 0.0 <= c.cosine <= 1.0 and 0.0 <= c.jaccard < 0.8


def test_compare_is_symmetric_in_its_measures(sample_corpus: Path) -> None:
    """compare(a, b) and compare(b, a) agree on distance, cosine, Jaccard and verdict."""
    a = sample_corpus / "zh" / "essay-rain.txt"
    b = sample_corpus / "zh" / "essay-rain-edited.txt"
    ab, ba = simdup.compare(a, b), simdup.compare(b, a)
    assert (ab.distance, ab.cosine, ab.jaccard, ab.near_duplicate) == (
        ba.distance, ba.cosine, ba.jaccard, ba.near_duplicate
    )  # fmt: skip


def test_compare_binary_file_is_an_input_error(sample_corpus: Path) -> None:
    """A binary (or empty, or missing) file given to compare raises InputError."""
    good = sample_corpus / "en" / "fable-crow.txt"
    for bad in ("misc/image.bin", "misc/empty.txt", "misc/does-not-exist.txt"):
        with pytest.raises(simdup.InputError) as info:
            simdup.compare(good, sample_corpus / bad)
        assert isinstance(info.value, OSError)
        assert bad.split("/")[-1] in str(info.value)


def test_compare_text_with_nothing_in_it_is_an_input_error(write_doc: DocWriter) -> None:
    """A file of whitespace alone has nothing to compare, as scan says; a file of punctuation
    alone is a (short) text, compared and found unlike a long one."""
    words = write_doc("a.txt", " ".join(f"word{i}" for i in range(120)))
    blank = write_doc("b.txt", " \n\t\u3000\n ")
    with pytest.raises(simdup.InputError, match="b.txt: too short to judge: no text"):
        simdup.compare(words, blank)
    punctuation = write_doc("c.txt", "，。！？ ... ---")
    c = simdup.compare(words, punctuation)
    assert c.near_duplicate is False


def test_explain_gives_an_html_page_its_own_lines(tmp_path: Path) -> None:
    """compare --explain of two HTML pages: a changed paragraph is at the page's line of its
    words (not the line of the rendered text, nor of the tag opening the paragraph), in JSON
    and once in the text report."""
    pytest.importorskip("lxml")
    page = "<html><head><title>t</title></head>\n<body>\n<p>\n{}\n</p>\n<p>\n{}\n</p>\n</body>\n"
    first = "Alpha beta gamma delta epsilon zeta eta theta iota kappa."
    (tmp_path / "a.html").write_text(page.format(first, "Same paragraph here."), "utf-8")
    (tmp_path / "b.html").write_text(page.format(first, "Changed paragraph here now."), "utf-8")
    args = ["compare", str(tmp_path / "a.html"), str(tmp_path / "b.html"), "--explain"]
    out = CliRunner().invoke(cli, [*args, "-f", "json"])
    (hunk,) = json.loads(out.stdout)["diff"]
    assert hunk["a_lines"] == hunk["b_lines"] == [7, 7]
    assert hunk["a_place"] == {"kind": "line", "first": "7", "last": "7"}
    assert "@@ A line 7  B line 7\n" in CliRunner().invoke(cli, args).stdout
