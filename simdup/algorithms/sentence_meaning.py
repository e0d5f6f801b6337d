"""Passages said alike: seeds found by the cosine of sentence embeddings (in any languages:
``check --semantic``, translated or paraphrased passages), extended with the clustering of
reworded passages (``sentences``). ``meaning_seeds`` finds each query sentence's closest
sentence in many sources with one matrix product a block; ``align_meaning`` keeps the seed
clusters that make passages. Arrays in, ``fragments.Match`` out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .fragments import Match
from .sentences import Side, Spans, dense_ends, passages


@dataclass(frozen=True)
class MeaningRule:
    """When two sentences mean the same (the cosine of their embeddings, in any languages)
    and when such seeds are a passage (``align_meaning``)."""

    min_cosine: float = 0.7  # a seed: a query sentence and its closest source sentence
    max_gap: int = 4
    min_seeds: int = 2
    min_density: float = 0.5
    min_passage_cosine: float = 0.75  # the mean cosine of a passage's seeds
    min_words: float = 16.0
    # A seed this alike is a sentence said as the source says it (copied as it was): the
    # seeds beside the first and last of them must make a passage alone (``_said_alike_ends``).
    same_cosine: float = 0.95
    # A passage said in other words in the document's own language ("paraphrased") brings
    # this many words of its source that the document's own text has nowhere, as a reworded
    # one does (``sentences.brings_source_words``; the document's own text: what gives no
    # seed of words with the source): the author restating on the subject what the document
    # says elsewhere, or a class's bylines and openings, mean alike and bring none. A
    # translation shares no words with its source, and is not asked to. Chapters on one
    # subject (English, benchmarks/same_subject.py): character precision 0.73 -> 0.78.
    paraphrase_min_drawn_words: int = 2
    # A query paragraph and its closest source paragraph (a paragraph's vector: its
    # sentences' mean, ``paragraph_vectors``) are a passage alone when their cosine reaches
    # this (0: paragraphs are not compared) and both weigh ``paragraph_min_words``
    # (``_paragraphs_alike``); the caller keeps it where it is a translation. Bounds chosen
    # on the dev half of benchmarks/translation.py (translated paragraphs against paragraphs
    # of the host chapters): cosine 0.60-0.70 with the margin and support below found 47-54
    # of 60 paragraphs; 0.65 with a margin of 0.1, 50 and none false.
    paragraph_min_cosine: float = 0.65
    paragraph_min_words: float = 24.0
    # ... and it is closer than the next closest source paragraph by this: a translation says
    # what one paragraph says; a paragraph on the source's subject is as near to several.
    paragraph_min_margin: float = 0.1
    # ... and each of its sentences says part of that paragraph: the mean of their closest
    # sentence cosines there reaches this (``_paragraph_seeds``; not the other way: a
    # translator's merged sentence says two of the source's, each of them only in part). 0.5
    # and 0.55 found as many on the dev half of benchmarks/translation.py; at 0.55, two of four
    # paragraphs of Python's documentation on other subjects (Emacs named in both) are no
    # longer called translations of one another (benchmarks/semantic.py's clean theses).
    paragraph_min_support: float = 0.55

    def describe(self) -> dict[str, float | int]:
        return {
            "sentence_min_cosine": self.min_cosine,
            "passage_max_gap_sentences": self.max_gap,
            "passage_min_seed_sentences": self.min_seeds,
            "passage_min_density": self.min_density,
            "passage_min_mean_cosine": self.min_passage_cosine,
            "passage_min_words": self.min_words,
            "same_sentence_min_cosine": self.same_cosine,
            "paraphrase_min_words_drawn_from_source": self.paraphrase_min_drawn_words,
            "paragraph_min_cosine": self.paragraph_min_cosine,
            "paragraph_min_words": self.paragraph_min_words,
            "paragraph_min_margin": self.paragraph_min_margin,
            "paragraph_min_support": self.paragraph_min_support,
        }


def paragraph_vectors(vectors: np.ndarray, side: Side) -> np.ndarray:
    """A unit vector per paragraph of ``side`` (``Side.paragraphs``): the mean of its
    sentences' vectors (``vectors``, one per sentence), made unit. What a paragraph says is
    what its sentences say together, however a translator cut it into sentences; embedding
    each paragraph again would cost as much as its sentences (measured on the dev half of
    benchmarks/translation.py: paragraphs found 53 of 60 embedded whole, 50 as means, none
    false either way, at the rule's bounds for each)."""
    spans = side.paragraphs
    if not len(spans):
        return np.zeros((0, vectors.shape[1]), dtype=vectors.dtype)
    sums = np.add.reduceat(vectors, spans[:, 0], axis=0)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    unit: np.ndarray = (sums / np.maximum(norms, 1e-12)).astype(vectors.dtype)
    return unit


@dataclass(frozen=True)
class MeaningSeeds:
    """For each query sentence, its closest sentence of one source and their cosine; for each
    query paragraph, its closest paragraph of the source and theirs."""

    closest: np.ndarray  # int64, one per query sentence
    strength: np.ndarray  # float32
    paragraph_closest: np.ndarray | None = None  # int64, one per query paragraph
    paragraph_strength: np.ndarray | None = None  # float32
    # How much closer than the next closest source paragraph, and the mean over the query
    # paragraph's sentences of each one's closest sentence of that source paragraph.
    paragraph_margin: np.ndarray | None = None  # float32
    paragraph_support: np.ndarray | None = None  # float32
    # Whether the query paragraph is also the closest of the query's to that paragraph: a
    # paragraph is translated once; the author's opening on its subject comes second to it.
    paragraph_mutual: np.ndarray | None = None  # bool

    def chosen(self, rule: MeaningRule) -> np.ndarray:
        """The query sentences whose closest source sentence is a seed."""
        return np.flatnonzero(self.strength >= rule.min_cosine)

    def chosen_paragraphs(self, rule: MeaningRule) -> np.ndarray:
        """The query paragraphs whose closest source paragraph says what they say
        (``MeaningRule.paragraph_min_cosine`` and the rules beside it)."""
        if self.paragraph_strength is None or not rule.paragraph_min_cosine:
            return np.zeros(0, dtype=np.int64)
        assert self.paragraph_margin is not None and self.paragraph_support is not None
        assert self.paragraph_mutual is not None
        return np.flatnonzero(
            self.paragraph_mutual
            & (self.paragraph_strength >= rule.paragraph_min_cosine)
            & (self.paragraph_margin >= rule.paragraph_min_margin)
            & (self.paragraph_support >= rule.paragraph_min_support)
        )


def meaning_seeds(
    query_vectors: np.ndarray, query: Side, sources: Sequence[tuple[np.ndarray, Side]],
    rule: MeaningRule, block: int = 16_384,
) -> dict[int, MeaningSeeds]:  # fmt: skip
    """The seeds of each source (numbers in ``sources``: each one's sentence vectors and its
    side) that ``align_meaning`` could find a passage in: those holding, for at least
    ``min_seeds`` query sentences, a sentence within ``min_cosine``, or a paragraph within
    ``paragraph_min_cosine`` of a query paragraph (``paragraph_vectors``; the others cannot
    give a passage, so none is missed). One matrix product per ``block`` source sentences,
    and one per block of their paragraphs, not one a source."""
    found: dict[int, MeaningSeeds] = {}
    if not query_vectors.size or not sources:
        return found
    query_paragraphs = paragraph_vectors(query_vectors, query)
    sizes = [len(v) for v, _ in sources]
    start = 0
    while start < len(sources):
        stop, rows = start, 0
        while stop < len(sources) and (rows == 0 or rows + sizes[stop] <= block):
            rows += sizes[stop]
            stop += 1
        if rows:
            stacked = np.concatenate([v for v, _ in sources[start:stop] if len(v)])
            similarity = query_vectors @ stacked.T
            by_paragraphs = [paragraph_vectors(v, side) for v, side in sources[start:stop]]
            paragraph_similarity = query_paragraphs @ np.concatenate(by_paragraphs).T
            at = at_paragraph = 0
            for number in range(start, stop):
                size, side = sizes[number], sources[number][1]
                sentences = similarity[:, at : at + size]
                paragraphs = len(by_paragraphs[number - start])
                by_paragraph = paragraph_similarity[:, at_paragraph : at_paragraph + paragraphs]
                at += size
                at_paragraph += paragraphs
                if not size:
                    continue
                paragraph_best = by_paragraph.max(axis=1)
                seeded = int((sentences.max(axis=1) >= rule.min_cosine).sum()) >= rule.min_seeds
                paragraph_seeded = bool(rule.paragraph_min_cosine) and bool(
                    (paragraph_best >= rule.paragraph_min_cosine).any()
                )
                if not seeded and not paragraph_seeded:
                    continue
                closest = sentences.argmax(axis=1)
                strength = sentences[np.arange(closest.size), closest]
                found[number] = MeaningSeeds(
                    closest.astype(np.int64), strength,
                    *_paragraph_seeds(by_paragraph, sentences, query, side, rule),
                )  # fmt: skip
        start = stop
    return found


def _paragraph_seeds(
    by_paragraph: np.ndarray, sentences: np.ndarray, query: Side, source: Side,
    rule: MeaningRule,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For each query paragraph: its closest source paragraph, their cosine, the margin over
    the next closest, the mean of its sentences' closest cosines in that paragraph (only
    where the cosine reaches ``paragraph_min_cosine``; elsewhere 0), and whether it is the
    query paragraph closest to that source paragraph."""
    closest = by_paragraph.argmax(axis=1).astype(np.int64)
    rows = np.arange(closest.size)
    best = by_paragraph[rows, closest]
    support = np.zeros(closest.size, dtype=np.float32)
    if by_paragraph.shape[1] > 1:
        margin = best - np.partition(by_paragraph, -2, axis=1)[:, -2]
    else:
        margin = best.copy()
    near: list[int] = (
        np.flatnonzero(best >= rule.paragraph_min_cosine).tolist()
        if rule.paragraph_min_cosine else []
    )  # fmt: skip
    for p in near:
        qa, qb = (int(x) for x in query.paragraphs[p])
        sa, sb = (int(x) for x in source.paragraphs[int(closest[p])])
        support[p] = float(sentences[qa : qb + 1, sa : sb + 1].max(axis=1).mean())
    mutual = by_paragraph.argmax(axis=0)[closest] == rows
    return closest, best, margin.astype(np.float32), support, mutual


def align_meaning(query: Side, source: Side, seeds: MeaningSeeds, rule: MeaningRule) -> list[Match]:
    """Passages of ``query`` that say what passages of ``source`` say (translated, or written
    anew): each query sentence's closest source sentence by embedding cosine (``seeds``, from
    ``meaning_seeds``) is a seed when it reaches ``min_cosine``; seeds are clustered and kept as
    ``align_sentences`` keeps them, with the mean cosine of a passage's seeds in place of its
    bags' (``matched``: the passage's query tokens; ``how``: "meaning", which the caller
    names)."""
    chosen = seeds.chosen(rule)
    strength = seeds.strength
    found = np.stack([chosen, seeds.closest[chosen]], axis=1).astype(np.int64)
    spans = Spans(query, source)
    out: list[Match] = []
    for whole in passages(found, rule.max_gap) if chosen.size else []:
        cluster = _said_alike_ends(whole, strength, rule)
        ends = dense_ends(cluster, rule.min_seeds, rule.min_density)
        if ends is None:
            continue
        qa, qb, sa, sb = ends
        if float(strength[cluster[:, 0]].mean()) < rule.min_passage_cosine:
            continue
        first, last, source_first, source_last = spans.tokens(qa, qb, sa, sb)
        if not spans.long_enough(first, last, source_first, source_last, rule.min_words):
            continue
        out.append(Match(first, last, source_first, source_last, last - first + 1, "meaning"))
    return out + _paragraphs_alike(query, source, seeds, rule, spans, out)


# ``Match.how`` of a passage found as a whole paragraph (``_paragraphs_alike``), which the
# caller keeps only where it is a translation.
PARAGRAPH = "meaning of a paragraph"


def _paragraphs_alike(
    query: Side, source: Side, seeds: MeaningSeeds, rule: MeaningRule, spans: Spans,
    found: list[Match],
) -> list[Match]:  # fmt: skip
    """Query paragraphs that say what a source paragraph says, as wholes: a translator
    merges and splits sentences as the other language reads best, so that one sentence of a
    translated paragraph says two of its source, or half of one, and the sentences of a
    translation seed too seldom to make a passage; the paragraph, which translators keep,
    still says what its source paragraph says. Passages found by sentences (``found``) stand;
    a paragraph adds what they do not hold (``how``: ``PARAGRAPH``)."""
    out: list[Match] = []
    for p in seeds.chosen_paragraphs(rule).tolist():
        qa, qb = (int(x) for x in query.paragraphs[p])
        assert seeds.paragraph_closest is not None
        sa, sb = (int(x) for x in source.paragraphs[int(seeds.paragraph_closest[p])])
        first, last, source_first, source_last = spans.tokens(qa, qb, sa, sb)
        if not spans.long_enough(first, last, source_first, source_last, rule.paragraph_min_words):
            continue
        if any(m.first <= first and last <= m.last for m in found):
            continue
        out.append(Match(first, last, source_first, source_last, last - first + 1, PARAGRAPH))
    return out


def _said_alike_ends(cluster: np.ndarray, strength: np.ndarray, rule: MeaningRule) -> np.ndarray:
    """``cluster`` (in query order) without the seeds at either end, before its first (after
    its last) sentence said as the source says it (``same_cosine``: a sentence copied as it
    was), that would be no passage alone (fewer than ``min_seeds``, or their mean cosine
    under ``min_passage_cosine``): a title, a byline or the author's own sentence on the
    same subject next to a pasted paragraph is not paraphrased for standing beside it."""
    ordered = cluster[np.argsort(cluster[:, 0], kind="stable")]
    cosine = strength[ordered[:, 0]]
    same = np.flatnonzero(cosine >= rule.same_cosine)
    if not same.size:
        return ordered

    def alone(part: np.ndarray) -> bool:
        return len(part) >= rule.min_seeds and float(part.mean()) >= rule.min_passage_cosine

    first, last = int(same[0]), int(same[-1]) + 1
    if alone(cosine[:first]):
        first = 0
    if alone(cosine[last:]):
        last = len(ordered)
    return ordered[first:last]
