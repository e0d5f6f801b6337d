"""Reworded copies (``algorithms.sentences``): sentences compared as bags of words, seeds extended
into one passage per copy, merged with the exact fragments (where sentences end and which are
read together: tests/text/test_sentence_bags.py)."""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from simdup.algorithms.reworded import align_sentences
from simdup.algorithms.sentences import SentenceRule, Side, passages
from simdup.checking import CHECK_VERSION, CheckOptions, Corpus, check_document
from simdup.records import DecodedDocument
from tests.conftest import pseudo_words


def doc(text: str, path: str = "doc.md") -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode()))


def sentences(seed: int, count: int, words: int = 12) -> list[list[str]]:
    flat = pseudo_words(seed, count * words).split()
    return [flat[i : i + words] for i in range(0, len(flat), words)]


def reword(sentence: list[str], rng: random.Random, vocabulary: list[str]) -> list[str]:
    """About a third of the words edited: neighbours swapped, words swapped for others, one
    dropped, one added: few runs of four words survive."""
    words = list(sentence)
    for i in range(0, len(words) - 1, 3):
        words[i], words[i + 1] = words[i + 1], words[i]
    words[rng.randrange(len(words))] = rng.choice(vocabulary)
    del words[rng.randrange(len(words))]
    words.insert(rng.randrange(len(words)), rng.choice(vocabulary))
    return words


def text_of(sentences_: list[list[str]]) -> str:
    return " ".join(" ".join(s) + "." for s in sentences_)


def planted_case(seed: int) -> tuple[str, str, str]:
    """A thesis with a reworded copy of eight sentences of its source in the middle."""
    rng = random.Random(seed)
    source = sentences(seed, 20)
    vocabulary = pseudo_words(seed + 1000, 60).split()
    copied = [reword(s, rng, vocabulary) for s in source[6:14]]
    planted = text_of(copied)
    own_before, own_after = text_of(sentences(seed + 1, 6)), text_of(sentences(seed + 2, 6))
    return f"{own_before}\n\n{planted}\n\n{own_after}", planted, text_of(source)


def test_a_reworded_copy_is_one_reworded_fragment() -> None:
    """Every sentence reworded (words swapped, changed, dropped, added): exact runs find a
    few pieces of it at most; sentence bags find it whole, as one fragment marked reworded."""
    for seed in range(5):
        thesis, planted, source = planted_case(seed)
        start, end = thesis.index(planted), thesis.index(planted) + len(planted)
        corpus = Corpus(CheckOptions().rule, CheckOptions().reworded)
        corpus.add(doc(source, "source.md"))
        found = check_document(doc(thesis), corpus, CheckOptions())
        assert len(found.fragments) == 1, found.fragments
        (fragment,) = found.fragments
        assert fragment.how == "reworded"
        # All the copied text is reworded: the share of it disguised so is the whole ratio.
        assert 0 < found.reworded_ratio == found.copy_ratio
        assert start <= fragment.start < start + 20 and end - 20 < fragment.end <= end
        exact = Corpus(CheckOptions().rule)
        exact.add(doc(source, "source.md"))
        pieces = check_document(doc(thesis), exact, CheckOptions(reworded=None)).fragments
        assert sum(f.end - f.start for f in pieces) < 0.5 * len(planted)
        assert all(f.how == "verbatim" for f in pieces)
    # A verbatim copy is verbatim: nothing of its ratio is reworded.
    verbatim = Corpus(CheckOptions().rule, CheckOptions().reworded)
    verbatim.add(doc(source, "source.md"))
    whole = check_document(doc(source), verbatim, CheckOptions())
    assert whole.copy_ratio == 1.0 and whole.reworded_ratio == 0.0
    assert [f.how for f in whole.fragments] == ["verbatim"]


def test_a_reworded_chinese_copy_is_found() -> None:
    """Clauses reordered and function words added in every sentence of a Chinese passage."""
    source = (
        "长江是中国最长的河流，全长约六千三百公里，流经十一个省级行政区。"
        "它发源于青藏高原的唐古拉山脉，最终在上海附近注入东海。"
        "长江流域的面积约一百八十万平方公里，养育了全国三分之一的人口。"
        "三峡工程建在长江的干流上，是世界上规模最大的水电站之一。"
        "沿江的城市包括重庆、武汉、南京和上海，经济十分发达。"
    )
    reworded = (
        "全长大约六千三百公里的长江是中国最长的河流，一共流经了十一个省级行政区。"
        "它最终在上海附近注入东海，而它的发源地是青藏高原的唐古拉山脉。"
        "长江流域养育了全国三分之一的人口，其面积大约有一百八十万平方公里。"
        "世界上规模最大的水电站之一就是三峡工程，它建在长江的干流上。"
        "重庆、武汉、南京和上海都是沿江的城市，这些城市的经济都十分发达。"
    )
    own = "我们在这一章讨论数据的收集方法和实验设计，包括抽样、问卷和访谈三个部分。" * 2
    thesis = own + "\n\n" + reworded + "\n\n" + own
    corpus = Corpus(CheckOptions().rule, CheckOptions().reworded)
    corpus.add(doc(source, "source.md"))
    found = check_document(doc(thesis), corpus, CheckOptions())
    start = thesis.index(reworded)
    covered = sum(
        min(f.end, start + len(reworded)) - max(f.start, start) for f in found.fragments
    )
    assert covered >= 0.9 * len(reworded)
    assert [f.how for f in found.fragments] == ["reworded"]


def test_texts_that_share_words_here_and_there_are_not_a_passage() -> None:
    """A numbered list whose items differ (only "1、" "2、"... and a stray word alike) and
    two texts of other words: nothing is reported."""
    items = [f"{n}、" + "".join(chr(0x4E00 + (n * 97 + k * 31) % 20000) for k in range(30))
             for n in range(1, 8)]  # fmt: skip
    others = [f"{n}、" + "".join(chr(0x4E00 + (n * 53 + k * 71 + 7000) % 20000) for k in range(30))
              for n in range(1, 8)]  # fmt: skip
    corpus = Corpus(CheckOptions().rule, CheckOptions().reworded)
    corpus.add(doc("\n\n".join(others), "source.md"))
    assert check_document(doc("\n\n".join(items)), corpus, CheckOptions()).fragments == ()
    words = Corpus(CheckOptions().rule, CheckOptions().reworded)
    words.add(doc(text_of(sentences(70, 12)), "source.md"))
    assert check_document(doc(text_of(sentences(71, 12))), words, CheckOptions()).fragments == ()


def _side(sentence_features: list[list[int]]) -> Side:
    feature = np.array([f for s in sentence_features for f in s], dtype=np.uint64)
    sentence = np.array([k for k, s in enumerate(sentence_features) for _ in s], dtype=np.int64)
    return Side(feature, sentence, np.ones(feature.size))


def test_seeds_need_both_thresholds_and_passages_split_at_gaps() -> None:
    """Sentences sharing most features seed; a passage is cut where seeds lie more than
    max_gap sentences apart; the passage's tokens are counted as matched where shared."""
    rule = SentenceRule(min_words=4, min_seeds=1)
    between = [[100 + k, 200 + k, 300 + k] for k in range(6)]
    query = _side([[1, 2, 3, 4, 5], *between, [6, 7, 8, 9]])
    source = _side([[1, 2, 3, 4, 9], [6, 7, 8, 10]])
    found = align_sentences(query, source, rule)
    # Sentences 0 and 7 are 6 sentences apart (> max_gap 4): two passages, one sentence each.
    assert [(m.first, m.last, m.source_first, m.source_last) for m in found] == [
        (0, 4, 0, 4), (23, 26, 5, 8)
    ]  # fmt: skip
    assert all(m.how == "reworded" for m in found) and [m.matched for m in found] == [4, 3]
    # By default a passage needs two seed sentences: one sentence saying the like is not one.
    assert align_sentences(query, source, SentenceRule(min_words=4)) == []
    seeds = np.array([[0, 0], [3, 1], [4, 2], [12, 3]])
    assert [p.tolist() for p in passages(seeds, 4)] == [[[0, 0], [3, 1], [4, 2]], [[12, 3]]]


def _passages_round_by_round(found: np.ndarray, gap: int, across: int) -> list[np.ndarray]:
    """``passages`` as first written: every cluster split again each round until a round
    splits none (the reference its faster form must equal)."""
    def split(c: np.ndarray, column: int, g: int) -> list[np.ndarray]:
        ordered = c[np.argsort(c[:, column], kind="stable")]
        return np.split(ordered, np.flatnonzero(np.diff(ordered[:, column]) > g + 1) + 1)

    clusters = [found] if found.size else []
    while True:
        parts = [p for c in clusters for q in split(c, 0, gap) for p in split(q, 1, across)]
        if len(parts) == len(clusters):
            return parts
        clusters = parts


def test_passages_are_those_of_splitting_every_cluster_round_by_round() -> None:
    """Seeds scattered on both sides (clusters that split again once split on the other
    side) give the same passages, rows in the same order, as the round-by-round clustering."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(0, 60))
        found = rng.integers(0, int(rng.integers(1, 120)), size=(n, 2))
        gap, across = int(rng.integers(0, 5)), int(rng.integers(0, 25))
        got = passages(found, gap, across)
        want = _passages_round_by_round(found, gap, across)
        assert [p.tolist() for p in got] == [p.tolist() for p in want], trial


def test_check_command_says_how_each_fragment_was_copied(tmp_path: Path) -> None:
    """JSON: every fragment's `how` and the document's `reworded_ratio`; text: the reworded
    share; `--exact-only`: verbatim fragments alone, no reworded share."""
    import json

    from click.testing import CliRunner

    from simdup.cli import cli

    thesis, planted, source = planted_case(3)
    (tmp_path / "thesis.txt").write_text(thesis, encoding="utf-8")
    refs = tmp_path / "refs"
    refs.mkdir()
    (refs / "source.txt").write_text(source, encoding="utf-8")
    run = CliRunner().invoke
    got = run(cli, ["check", str(tmp_path / "thesis.txt"), "--against", str(refs), "-f", "json"])
    assert got.exit_code == 0, got.output
    (checked,) = json.loads(got.stdout)["documents"]
    assert [f["how"] for f in checked["fragments"]] == ["reworded"]
    assert checked["reworded_ratio"] == checked["copy_ratio"] > 0.3
    assert json.loads(got.stdout)["settings"]["reworded"]["passage_min_seed_sentences"] == 2
    text = run(cli, ["check", str(tmp_path / "thesis.txt"), "--against", str(refs), "--lang", "en"])
    assert "of which reworded" in text.stdout and "copied, reworded" in text.stdout
    exact = run(cli, ["check", str(tmp_path / "thesis.txt"), "--against", str(refs), "-f", "json",
                      "--exact-only"])  # fmt: skip
    (only,) = json.loads(exact.stdout)["documents"]
    assert all(f["how"] == "verbatim" for f in only["fragments"])
    assert only["reworded_ratio"] == 0.0 and only["copy_ratio"] < 0.5 * checked["copy_ratio"]
    assert json.loads(exact.stdout)["settings"]["reworded"] is None


def test_a_passage_ends_on_strong_seeds() -> None:
    """A seed weaker than min_edge_cosine (0.36 here: five features of nine shared) at a
    passage's end is let go; inside a passage, or with the bound at 0, it stays. Growing the
    passage takes it back when ``grow_min_containment`` of its words are in the source
    sentence beside the passage: five of nine pass at 0.5, not at the default 0.7."""
    query = _side([[1, 2, 3, 4, 5, 6, 7, 8, 70], [11, 12, 13, 14], [21, 22, 23, 24], [31, 32]])
    source = _side([[1, 2, 3, 4, 5, 9, 10, 15, 16], [11, 12, 13, 14], [21, 22, 23, 24], [41]])
    rule = SentenceRule(min_words=4)
    ends = [(m.first, m.last) for m in align_sentences(query, source, rule)]
    assert ends == [(9, 16)]
    kept = align_sentences(query, source, replace(rule, min_edge_cosine=0.0))
    assert [(m.first, m.last) for m in kept] == [(0, 16)]
    grown = align_sentences(query, source, replace(rule, grow_min_containment=0.5))
    assert [(m.first, m.last) for m in grown] == [(0, 16)]


def test_one_long_sentence_that_keeps_most_words_of_another_is_a_passage() -> None:
    """A single seed is a passage when both sentences are 20 words or more and it shares
    half its features (cosine 0.5 too); the same seed of short sentences, or one sharing
    fewer words, is not (one sentence that says the like)."""
    own = [[500 + k for k in range(8)], [600 + k for k in range(8)]]
    kept = list(range(1, 17))
    query = _side([own[0], [*kept, 71, 72, 73, 74, 75, 76], own[1]])
    source = _side([[800 + k for k in range(8)], [*kept, 81, 82, 83, 84], [900, 901, 902]])
    found = align_sentences(query, source, SentenceRule())
    # It ends on its last shared word (six unshared words after it: ``max_end_stretch``).
    assert [(m.first, m.last, m.source_first, m.source_last) for m in found] == [(8, 23, 8, 27)]
    short = _side([own[0], [1, 2, 3, 4, 5, 6, 71, 72], own[1]])
    short_source = _side([[800 + k for k in range(8)], [1, 2, 3, 4, 5, 6, 81], [900, 901]])
    assert align_sentences(short, short_source, SentenceRule(min_words=4)) == []
    half = _side([own[0], [*range(1, 11), *range(71, 83)], own[1]])
    assert align_sentences(half, source, SentenceRule()) == []
    # The source's sentence copied as two, the second too short to seed: one passage over
    # both (the second is taken back for its words being the source's).
    split = _side([own[0], [*kept[:14], 71, 72, 73, 74, 75, 76], kept[14:], own[1]])
    found = align_sentences(split, source, SentenceRule(min_words=4))
    assert [(m.first, m.last) for m in found] == [(8, 29)]


def test_a_passage_grows_by_a_neighbour_whose_words_are_the_sources() -> None:
    """A copied sentence beside a passage that gave no seed (its words moved across the
    sentence end by the rewording) joins the passage when 70% of its words are in the
    source's passage and the sentence beyond it; the author's own sentence there does not."""
    copied = [[1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16]]
    changed = [21, 22, 23, 24, 25, 26, 27, 28, 29, 30]  # nine of ten in two source sentences
    source = _side([[40, 41, 42], [21, 22, 23, 24, 25], *copied, [26, 27, 28, 29, 50, 51]])
    query = _side([[60, 61, 62, 63], [*changed[:9], 99], *copied, [70, 71, 72, 73]])
    rule = SentenceRule(min_words=4)
    found = align_sentences(query, source, rule)
    assert [(m.first, m.last) for m in found] == [(4, 25)]
    own = _side([[60, 61, 62, 63], [80, 81, 82, 83, 84, 85, 86, 87, 88, 89], *copied, [70, 71]])
    assert [(m.first, m.last) for m in align_sentences(own, source, rule)] == [(14, 25)]


def test_a_passage_is_cut_at_a_stretch_with_no_evidence() -> None:
    """Two copied sentences, one of the author's own between them (its words not in the
    source sentences between the two seeds), two more copied: two passages; two sentences of
    the author's own sharing one word with the source's there, too. A reworded
    sentence there that gave no seed but keeps enough of its words joins the two."""
    copied = [[1, 2, 3, 4, 5], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25], [31, 32, 33, 34, 35]]
    own = [60, 61, 62, 63, 64, 65, 66, 67]
    rule = SentenceRule(min_words=4)
    source = _side([*copied[:2], [41, 42, 43, 44, 45, 46, 47, 48], *copied[2:]])
    query = _side([*copied[:2], own, *copied[2:]])
    spans = [(m.first, m.last) for m in align_sentences(query, source, rule)]
    assert spans == [(0, 9), (18, 27)]
    two_own = [[41, 60, 61, 62, 63], [62, 64, 65, 66, 67]]
    query = _side([*copied[:2], *two_own, *copied[2:]])
    assert [(m.first, m.last) for m in align_sentences(query, source, rule)] == [(0, 9), (20, 29)]
    # A quarter of the middle sentence's words kept: too few to seed (Dice 0.3), enough to
    # join (a single sentence: min_gap_containment_one 0.1), not with the bound at a half.
    reworded = [41, 42, 43, 70, 71, 72, 73, 74, 75, 76, 77, 78]
    query = _side([*copied[:2], reworded, *copied[2:]])
    assert [(m.first, m.last) for m in align_sentences(query, source, rule)] == [(0, 31)]
    assert [(m.first, m.last) for m in align_sentences(
        query, source, SentenceRule(min_words=4, min_gap_containment_one=0.5)
    )] == [(0, 9), (22, 31)]  # fmt: skip


def test_a_passage_ends_on_a_seed_whose_words_are_mostly_the_sources() -> None:
    """A long sentence sharing a few words with a source sentence (cosine above the edge
    bound, a third of its words) does not end a passage; a sentence most of whose words are
    the source's does."""
    core = [[11, 12, 13, 14], [21, 22, 23, 24], [31, 32, 33, 34]]
    query = _side([[1, 2, 3, 4, 5, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69], *core])
    source = _side([[1, 2, 3, 4, 5, 6], *core])
    rule = SentenceRule(min_words=4, min_cosine=0.2, min_dice=0.2, min_edge_cosine=0.3)
    assert [(m.first, m.last) for m in align_sentences(query, source, rule)] == [(15, 26)]
    loose = SentenceRule(min_words=4, min_cosine=0.2, min_dice=0.2, min_edge_cosine=0.3,
                         min_edge_containment=0.0)  # fmt: skip
    assert [(m.first, m.last) for m in align_sentences(query, source, loose)] == [(0, 26)]


def summary_case(seed: int) -> tuple[str, str, str, str]:
    """A thesis holding a summary of six paragraphs of its source (four sentences each): the
    first sentence of each, reworded, as one paragraph; the thesis, the summary, the source,
    and the source's stretch from the first paragraph to the sixth's first sentence (its words:
    a fragment ends on a word)."""
    rng = random.Random(seed)
    vocabulary = pseudo_words(seed + 1000, 60).split()
    paragraphs = [sentences(seed * 10 + k, 4) for k in range(8)]
    summary = text_of([reword(p[0], rng, vocabulary) for p in paragraphs[1:7]])
    source = "\n\n".join(text_of(p) for p in paragraphs)
    own_before, own_after = text_of(sentences(seed + 500, 6)), text_of(sentences(seed + 501, 6))
    first, last = " ".join(paragraphs[1][0]), " ".join(paragraphs[6][0])
    stretch = source[source.index(first) : source.index(last) + len(last)]
    return f"{own_before}\n\n{summary}\n\n{own_after}", summary, source, stretch


def test_a_summary_is_one_summarised_fragment() -> None:
    """Each summary sentence seeds with its paragraph's first sentence, four sentences from
    the next one's in the source: found as one fragment, "summarised", from the first summarised
    paragraph to the last one's summarised sentence; without the summary mode, in pieces or
    not at all."""
    options = CheckOptions()
    for seed in range(5):
        thesis, summary, source, stretch = summary_case(seed)
        corpus = Corpus(options.rule, options.reworded)
        corpus.add(doc(source, "source.md"))
        found = check_document(doc(thesis), corpus, options)
        assert [f.how for f in found.fragments] == ["summarised"], found.fragments
        (fragment,) = found.fragments
        start = thesis.index(summary)
        assert start <= fragment.start < start + 20
        assert start + len(summary) - 20 < fragment.end <= start + len(summary)
        assert source[fragment.source_start : fragment.source_end] == stretch
        # Not verbatim: the whole fragment counts in the share copied other than verbatim.
        assert 0 < found.reworded_ratio == found.copy_ratio
        off = CheckOptions(reworded=SentenceRule(summaries=False))
        pieces = Corpus(off.rule, off.reworded)
        pieces.add(doc(source, "source.md"))
        without = check_document(doc(thesis), pieces, off).fragments
        assert "summarised" not in [f.how for f in without]
        assert sum(f.end - f.start for f in without) < 0.9 * len(summary)


def _sides(thesis: str, source: str) -> tuple[Side, Side]:
    from simdup.text.sentence_bags import sentence_side
    from simdup.text.tokens import tokenize

    return sentence_side(thesis, tokenize(thesis)), sentence_side(source, tokenize(source))


def test_a_copy_is_no_summary() -> None:
    """A reworded copy as long as its source is found as without the summary mode, also with
    a sentence beside it that seeds with a source sentence far after the copy (in order, as a
    summary's next sentence would): a copy is never part of a summary."""
    for seed in range(5):
        thesis, planted, source = planted_case(seed)
        query, origin = _sides(thesis, source)
        plain = align_sentences(query, origin, SentenceRule(summaries=False))
        assert align_sentences(query, origin, SentenceRule()) == plain
        assert [m.how for m in plain] == ["reworded"]
        # Source sentences 6..13 are copied; sentence 19 now follows the copy in the thesis.
        far = " ".join(sentences(seed, 20)[19]) + "."
        stray = thesis.replace(planted, f"{planted} {far}")
        query, origin = _sides(stray, source)
        found = align_sentences(query, origin, SentenceRule())
        assert found == align_sentences(query, origin, SentenceRule(summaries=False))
        assert [m.how for m in found] == ["reworded"]


def test_sentences_out_of_order_or_unrelated_are_no_summary() -> None:
    """The first sentences of eight paragraphs seed as a summary's do, but the middle six in
    reverse order: three of eight follow the source's order (the first, one of the middle, the
    last), too few for a summary, which follows its source; unrelated texts give nothing."""
    rng = random.Random(4)
    vocabulary = pseudo_words(1004, 60).split()
    paragraphs = [sentences(40 + k, 4) for k in range(10)]
    order = [1, 7, 6, 5, 4, 3, 2, 8]
    shuffled = text_of([reword(paragraphs[k][0], rng, vocabulary) for k in order])
    source = "\n\n".join(text_of(p) for p in paragraphs)
    query, origin = _sides(shuffled, source)
    assert "summarised" not in [m.how for m in align_sentences(query, origin, SentenceRule())]
    in_order = text_of([reword(paragraphs[k][0], rng, vocabulary) for k in sorted(order)])
    query, origin = _sides(in_order, source)
    assert [m.how for m in align_sentences(query, origin, SentenceRule())] == ["summarised"]
    query, origin = _sides(text_of(sentences(80, 12)), text_of(sentences(81, 30)))
    assert align_sentences(query, origin, SentenceRule()) == []


def test_passages_cluster_with_a_source_gap_of_their_own() -> None:
    """Summary chains cluster with a wider gap on the source side than on the query side."""
    seeds = np.array([[0, 0], [1, 9], [2, 18], [9, 20]])
    assert [p.tolist() for p in passages(seeds, 4)] == [[[0, 0]], [[1, 9]], [[2, 18]], [[9, 20]]]
    assert [p.tolist() for p in passages(seeds, 4, 24)] == [[[0, 0], [1, 9], [2, 18]], [[9, 20]]]


def test_every_report_names_a_summary(tmp_path: Path) -> None:
    """JSON, SARIF, text and HTML say a summary was "summarised" (概括 in Chinese); its
    characters count in the share copied other than verbatim; the settings carry the rule."""
    import json

    from click.testing import CliRunner

    from simdup.cli import cli

    thesis, _, source, _ = summary_case(2)
    (tmp_path / "thesis.txt").write_text(thesis, encoding="utf-8")
    refs = tmp_path / "refs"
    refs.mkdir()
    (refs / "source.txt").write_text(source, encoding="utf-8")
    run = CliRunner().invoke
    base = ["check", str(tmp_path / "thesis.txt"), "--against", str(refs)]
    got = run(cli, [*base, "-f", "json"])
    assert got.exit_code == 0, got.output
    report = json.loads(got.stdout)
    (checked,) = report["documents"]
    assert [f["how"] for f in checked["fragments"]] == ["summarised"]
    assert checked["reworded_ratio"] == checked["copy_ratio"] > 0.2
    assert report["settings"]["algorithm"] == CHECK_VERSION
    assert report["settings"]["reworded"]["summary_min_compression"] == 1.5
    sarif = json.loads(run(cli, [*base, "-f", "sarif"]).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["properties"]["how"] == "summarised" and "summarised" in result["message"]["text"]
    assert "copied, summarised" in run(cli, [*base, "--lang", "en"]).stdout
    assert "复制, 概括" in run(cli, [*base, "--lang", "zh"]).stdout
    html = run(cli, [*base, "-f", "html", "--lang", "en"]).stdout
    assert "summarised, similarity" in html


def test_a_summary_ends_where_the_source_sentence_nearest_it_is() -> None:
    """The source says the first summarised sentence twice, once further back: the summary
    starts on the one next to the rest (it condenses what follows it, not what lies between)."""
    options = CheckOptions()
    thesis, summary, source, stretch = summary_case(1)
    opening = stretch[: stretch.index(".") + 1]
    earlier = source.index("\n\n")  # after the first paragraph, which is not summarised
    repeated = f"{source[:earlier]} {opening}{source[earlier:]}"
    corpus = Corpus(options.rule, options.reworded)
    corpus.add(doc(repeated, "source.md"))
    (fragment,) = check_document(doc(thesis), corpus, options).fragments
    assert fragment.how == "summarised"
    assert repeated[fragment.source_start : fragment.source_end] == stretch


def restated(words: list[str], seed: int) -> str:
    """Sentences of the author's own that use ``words`` two at a time among ten others: each
    shares too few words with any sentence to seed, and together they use all of ``words``."""
    mine = pseudo_words(seed, 200).split()
    rng = random.Random(seed)
    out = []
    for k in range(0, len(words), 2):
        sentence = rng.sample(mine, 10) + words[k : k + 2]
        rng.shuffle(sentence)
        out.append(sentence)
    return text_of(out)


def test_a_reworded_passage_brings_words_of_its_source_the_document_has_nowhere_else() -> None:
    """A reworded copy is a passage while it brings words of its source into the document;
    the same sentences in a document that uses every one of their words elsewhere (the
    author restating what the document says) are none, and are again without the rule
    (``min_drawn_words=0``). Half of their words used elsewhere still leaves a copy, and so
    do the same words in another copy of the source (sentences alike to the source are not
    the author's own text): two rewordings of one source passage are two passages."""
    for seed in range(3):
        thesis, planted, source = planted_case(seed)
        copied = sorted(set(planted.replace(".", "").split()))
        options = CheckOptions()
        corpus = Corpus(options.rule, options.reworded)
        corpus.add(doc(source, "source.md"))
        restating = f"{thesis}\n\n{restated(copied, seed + 300)}"
        assert check_document(doc(restating), corpus, options).fragments == ()
        half = f"{thesis}\n\n{restated(copied[::2], seed + 300)}"
        assert [f.how for f in check_document(doc(half), corpus, options).fragments] == [
            "reworded"
        ]
        rng = random.Random(seed + 900)
        vocabulary = pseudo_words(seed + 901, 60).split()
        again = text_of([reword(p.split(), rng, vocabulary) for p in planted.split(".")[:-1]])
        twice = f"{thesis}\n\n{text_of(sentences(seed + 902, 6))}\n\n{again}"
        assert [f.how for f in check_document(doc(twice), corpus, options).fragments] == [
            "reworded", "reworded"
        ]
        off = CheckOptions(reworded=SentenceRule(min_drawn_words=0))
        without = Corpus(off.rule, off.reworded)
        without.add(doc(source, "source.md"))
        assert [f.how for f in check_document(doc(restating), without, off).fragments] == [
            "reworded"
        ]


def _hashes(words: list[str]) -> np.ndarray:
    digests = [hashlib.blake2b(w.encode(), digest_size=8).digest() for w in words]
    return np.array([int.from_bytes(d) | 1 for d in digests], np.uint64)  # 0 is no feature


def test_seeds_compare_words_as_written_and_stems_extend_a_passage() -> None:
    """Two sentences whose words are the source's only by their stems ("alphas" and
    "alphaing", both "alpha") are no passage: seeds compare words as written, so a text on
    the source's subject in other forms of its words is no copy. The same sentences with the
    source's words as written are one, and so are the first with ``seeds_by_stems``."""
    base = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
            "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]  # fmt: skip
    stems = _hashes(base)  # what both sides' words are by their stems
    sentence = np.repeat(np.arange(2), 8)
    written = _hashes([w + "ing" for w in base[:8]] + [w + "ed" for w in base[8:]])
    source = Side(stems, sentence, np.ones(16), written)
    other_forms = _hashes([w + "s" for w in base[:8]] + [w + "er" for w in base[8:]])
    rule = SentenceRule(min_words=4, summaries=False, min_drawn_words=0)
    in_other_forms = Side(stems, sentence, np.ones(16), other_forms)
    assert align_sentences(in_other_forms, source, rule) == []
    same_forms = Side(stems, sentence, np.ones(16), written)
    assert len(align_sentences(same_forms, source, rule)) == 1
    by_stems = replace(rule, seeds_by_stems=True)
    assert len(align_sentences(in_other_forms, source, by_stems)) == 1
