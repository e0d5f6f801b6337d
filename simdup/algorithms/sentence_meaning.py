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
        }


@dataclass(frozen=True)
class MeaningSeeds:
    """For each query sentence, its closest sentence of one source and their cosine."""

    closest: np.ndarray  # int64, one per query sentence
    strength: np.ndarray  # float32

    def chosen(self, rule: MeaningRule) -> np.ndarray:
        """The query sentences whose closest source sentence is a seed."""
        return np.flatnonzero(self.strength >= rule.min_cosine)


def meaning_seeds(
    query_vectors: np.ndarray, sources: Sequence[np.ndarray], rule: MeaningRule,
    block: int = 16_384,
) -> dict[int, MeaningSeeds]:
    """The seeds of each source (numbers in ``sources``: each one's sentence vectors) that
    ``align_meaning`` could find a passage in: those holding, for at least ``min_seeds`` query
    sentences, a sentence within ``min_cosine`` (the others cannot give a seed cluster, so no
    passage is missed). One matrix product per ``block`` source sentences, not one a source."""
    found: dict[int, MeaningSeeds] = {}
    if not query_vectors.size or not sources:
        return found
    sizes = [len(v) for v in sources]
    start = 0
    while start < len(sources):
        stop, rows = start, 0
        while stop < len(sources) and (rows == 0 or rows + sizes[stop] <= block):
            rows += sizes[stop]
            stop += 1
        if rows:
            stacked = np.concatenate([v for v in sources[start:stop] if len(v)])
            similarity = query_vectors @ stacked.T
            at = 0
            for number in range(start, stop):
                size = sizes[number]
                part = similarity[:, at : at + size]
                at += size
                if not size or int((part.max(axis=1) >= rule.min_cosine).sum()) < rule.min_seeds:
                    continue
                closest = part.argmax(axis=1)
                strength = part[np.arange(closest.size), closest]
                found[number] = MeaningSeeds(closest.astype(np.int64), strength)
        start = stop
    return found


def align_meaning(query: Side, source: Side, seeds: MeaningSeeds, rule: MeaningRule) -> list[Match]:
    """Passages of ``query`` that say what passages of ``source`` say (translated, or written
    anew): each query sentence's closest source sentence by embedding cosine (``seeds``, from
    ``meaning_seeds``) is a seed when it reaches ``min_cosine``; seeds are clustered and kept as
    ``align_sentences`` keeps them, with the mean cosine of a passage's seeds in place of its
    bags' (``matched``: the passage's query tokens; ``how``: "meaning", which the caller
    names)."""
    chosen = seeds.chosen(rule)
    if not chosen.size:
        return []
    strength = seeds.strength
    found = np.stack([chosen, seeds.closest[chosen]], axis=1).astype(np.int64)
    spans = Spans(query, source)
    out: list[Match] = []
    for whole in passages(found, rule.max_gap):
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
