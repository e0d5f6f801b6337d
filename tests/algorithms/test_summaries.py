"""Summaries of a whole source (``algorithms.summaries``, document-level evidence): a block of
the checked document whose words are drawn from all over one source, and from it alone, is one
"summarised" fragment; copies, text on the source's subject and a document that is nothing but
the block are not (summaries found by their seeds in the source's order:
tests/algorithms/test_sentences.py)."""

from __future__ import annotations

import random

from simdup.algorithms.sentences import SentenceRule
from simdup.checking import CheckOptions, Corpus, check_document
from simdup.checking.results import DocumentCheck
from tests.algorithms.test_sentences import doc, restated, reword, text_of
from tests.conftest import pseudo_words

# Source sentences condensed, two by two, in an order other than the source's: no three of
# them in order, so no summary is found by seeds in order.
PICKS = [34, 17, 26, 0, 9]


def article(seed: int, count: int, words: int = 12) -> list[list[str]]:
    """``count`` sentences in paragraphs of four, each word from the article's vocabulary or
    its paragraph's: a text on one subject repeats its words, and each part has its own."""
    rng = random.Random(seed)
    common = pseudo_words(seed, 40).split()
    out: list[list[str]] = []
    for first in range(0, count, 4):
        part = pseudo_words(seed * 100 + first + 7, 40).split()
        for _ in range(min(4, count - first)):
            out.append([rng.choice(common if rng.random() < 0.4 else part) for _ in range(words)])
    return out


def paragraphs(sentences: list[list[str]]) -> str:
    return "\n\n".join(text_of(sentences[k : k + 4]) for k in range(0, len(sentences), 4))


def condensed(source: list[list[str]], picks: list[int], seed: int) -> str:
    """Each pick and the sentence after it condensed into one (half of each), reworded."""
    rng = random.Random(seed)
    vocabulary = pseudo_words(seed + 1000, 60).split()
    return text_of([reword(source[k][:6] + source[k + 1][6:], rng, vocabulary) for k in picks])


def checked(thesis: str, source: str, rule: SentenceRule | None = None) -> DocumentCheck:
    options = CheckOptions() if rule is None else CheckOptions(reworded=rule)
    corpus = Corpus(options.rule, options.reworded)
    corpus.add(doc(source, "source.md"))
    return check_document(doc(thesis), corpus, options)


def own(seed: int) -> str:
    return text_of(article(seed, 8))


def test_a_summary_of_a_whole_document_is_one_fragment_over_it() -> None:
    """Five sentences each condensing two of a source's forty, from its first paragraph to its
    ninth, out of the source's order, between paragraphs of the author's own: one fragment,
    "summarised", the summary on one side and the source from its start to (about) its end on
    the other; without summaries of documents, nothing."""
    for seed in range(5):
        sentences = article(seed, 40)
        source = paragraphs(sentences)
        summary = condensed(sentences, PICKS, seed)
        thesis = f"{own(seed + 500)}\n\n{summary}\n\n{own(seed + 501)}"
        (fragment,) = checked(thesis, source).fragments
        assert fragment.how == "summarised"
        start = thesis.index(summary)
        assert (fragment.start, fragment.end) == (start, start + len(summary) - 1)
        assert fragment.source_start == 0 and fragment.source_end > 0.9 * len(source)
        off = checked(thesis, source, SentenceRule(summary_of_documents=False))
        assert off.fragments == ()


def test_a_summary_of_part_of_a_source_claims_that_part() -> None:
    """Six sentences condensing paragraphs two to eight of twenty: the source side is the
    stretch the summary's words come from, not the whole source."""
    for seed in range(3):
        sentences = article(seed, 80)
        source = paragraphs(sentences)
        summary = condensed(sentences, [26, 10, 18, 6, 14, 22], seed)
        thesis = f"{own(seed + 500)}\n\n{summary}\n\n{own(seed + 501)}"
        (fragment,) = checked(thesis, source).fragments
        assert fragment.how == "summarised"
        first, last = text_of(sentences[4:5]), text_of(sentences[31:32])
        assert source.index(first) <= fragment.source_start
        assert fragment.source_end <= source.index(last) + len(last)


def test_a_copy_amid_text_on_its_subject_is_no_summary() -> None:
    """Four sentences copied as they are, between four of the author's own on the source's
    subject (two thirds of their words the source's): a verbatim copy of those four sentences,
    not a summary of the source (a copy of three sentences in a row is a copied passage)."""
    for seed in range(5):
        rng = random.Random(seed)
        sentences = article(seed, 40)
        source = paragraphs(sentences)
        vocabulary = sorted({w for s in sentences for w in s})
        mine = pseudo_words(seed + 700, 60).split()
        subject = [[rng.choice(vocabulary if k % 3 else mine) for k in range(12)] for _ in range(4)]
        copy = text_of(sentences[20:24])
        block = f"{text_of(subject[:2])} {copy} {text_of(subject[2:])}"
        thesis = f"{own(seed + 500)}\n\n{block}\n\n{own(seed + 501)}"
        (fragment,) = checked(thesis, source).fragments
        assert fragment.how == "verbatim"
        assert thesis[fragment.start : fragment.end + 1] == copy


def test_a_source_drawn_on_in_two_places_or_by_all_of_a_document_has_no_summary() -> None:
    """Document-level evidence is a block that stands out: two blocks drawing on the source (a
    document on its subject) give none, and neither does a block that is most of its document
    (nothing for it to stand out from)."""
    for seed in range(5):
        sentences = article(seed, 40)
        source = paragraphs(sentences)
        one = condensed(sentences, PICKS, seed)
        two = condensed(sentences, [30, 5, 21, 13, 1], seed + 1)
        both = f"{own(seed + 500)}\n\n{one}\n\n{own(seed + 501)}\n\n{two}\n\n{own(seed + 502)}"
        assert checked(both, source).fragments == ()
        alone = f"{one}\n\n{text_of(article(seed + 500, 2))}"
        assert checked(alone, source).fragments == ()


def test_a_block_in_the_words_the_document_uses_elsewhere_is_no_summary() -> None:
    """A summary brings its source's words into the document: the same five sentences in a
    document that uses their words elsewhere too (the author on the source's subject, in the
    words of the subject) are no summary, and are again with ``summary_max_own_words=1``."""
    for seed in range(3):
        sentences = article(seed, 40)
        source = paragraphs(sentences)
        summary = condensed(sentences, PICKS, seed)
        words = sorted(set(summary.replace(".", "").split()))
        thesis = f"{own(seed + 500)}\n\n{summary}\n\n{restated(words, seed + 300)}"
        assert checked(thesis, source).fragments == ()
        lenient = checked(thesis, source, SentenceRule(summary_max_own_words=1.0))
        assert [f.how for f in lenient.fragments] == ["summarised"]
