"""One source's copies as one set (``algorithms.merging``): exact fragments taken into the
passages around them, pieces of one copy joined, stock phrases shared alone left out."""

from __future__ import annotations

import numpy as np

from simdup.algorithms.fragments import Match
from simdup.algorithms.merging import JoinRule, joined, merged, without_lone
from simdup.algorithms.sentences import Side


def test_merged_takes_in_the_exact_fragments_of_a_passage() -> None:
    """An exact fragment inside a reworded passage (on both sides) is part of it; one
    elsewhere stays; the passage grows to cover what it takes in."""
    passage = Match(10, 50, 100, 140, 30, "reworded")
    inside = Match(8, 20, 98, 110, 13)
    elsewhere = Match(70, 80, 10, 20, 11)
    got = merged([inside, elsewhere], [passage])
    assert got == [Match(8, 50, 98, 140, 43, "reworded"), elsewhere]
    # A passage its exact fragments cover (90%) is the verbatim copy they are, and ends
    # where they end on both sides (not at the end of the sentences its seeds are in).
    whole = Match(10, 48, 100, 138, 37)
    assert merged([whole], [passage]) == [whole]


def side(features: list[int]) -> Side:
    """A side whose tokens have these features (0: none), one sentence, a word each."""
    n = len(features)
    return Side(np.array(features, np.uint64), np.zeros(n, np.int64), np.ones(n))


def test_pieces_of_one_copy_with_a_reworded_stretch_between_are_joined() -> None:
    """Two pieces 10 words apart on both sides (their gaps alike: a reworded stretch that gave
    no seed) are one passage, spanning both on each side, even when the pieces lie in the
    other order in the source (a rewording that moved a sentence)."""
    query, source = side(list(range(1, 101))), side(list(range(201, 301)))
    a = Match(0, 29, 50, 79, 30, "reworded")
    b = Match(40, 69, 0, 39, 30)
    assert joined([a, b], query, source, JoinRule()) == [Match(0, 69, 0, 79, 60, "reworded")]
    touching = Match(30, 39, 80, 89, 10)
    assert joined([Match(0, 29, 50, 79, 30), touching], query, source, JoinRule()) == [
        Match(0, 39, 50, 89, 40)
    ]  # nothing between two verbatim pieces: one verbatim copy


def test_the_authors_own_sentence_between_two_copies_stays_out() -> None:
    """Two copies of adjacent source text with 20 words of the author's own between them
    (no counterpart in the source, none of its words there) stay two; the same gap whose
    words are in the source is a piece of the copy, and joins them."""
    rule = JoinRule()
    source = side(list(range(1, 61)))
    own = list(range(1000, 1020))
    query = side(list(range(1, 31)) + own + list(range(31, 61)))
    a, b = Match(0, 29, 0, 29, 30), Match(50, 79, 30, 59, 30)
    assert joined([a, b], query, source, rule) == [a, b]
    reworded = side(list(range(1, 31)) + list(range(5, 25)) + list(range(31, 61)))
    assert joined([a, b], reworded, source, rule) == [Match(0, 79, 0, 59, 60, "reworded")]
    # Too far apart (more than twice the shorter piece and join_max_gap_words) on one side.
    far = Match(200, 229, 30, 59, 30)
    assert joined([a, far], side(list(range(1, 231))), source, rule) == [a, far]


def test_a_short_verbatim_fragment_alone_is_a_stock_phrase() -> None:
    """A verbatim fragment of fewer than 16 words with no other match of its source within
    30 words is left out; beside another match, or long enough, or reworded, it stays."""
    rule = JoinRule()
    weights = np.ones(500)
    short = Match(100, 111, 0, 11, 12)
    assert without_lone([short], weights, rule) == []
    long = Match(100, 119, 0, 19, 20)
    assert without_lone([long], weights, rule) == [long]
    near = Match(130, 160, 40, 70, 31)
    assert without_lone([short, near], weights, rule) == [short, near]
    far = Match(300, 340, 40, 80, 41)
    assert without_lone([short, far], weights, rule) == [far]
    reworded = Match(100, 111, 0, 11, 12, "reworded")
    assert without_lone([reworded], weights, rule) == [reworded]


def test_a_mostly_verbatim_passage_keeps_only_evidenced_text_beyond_its_runs() -> None:
    """A reworded passage whose verbatim run spans most of it ends at the run, on each side,
    where the text beyond it has few of its words in the other side's text beyond the run
    (the host's own sentence on the subject, sharing words with the pasted paragraph only);
    a reworded sentence there, half of whose words are the source's beside the run, stays."""
    rule = JoinRule()
    # Source: 10 words before the copied paragraph (features 1-10), the paragraph (11-50),
    # 10 words after it (51-60).
    source = side(list(range(1, 61)))
    run = Match(20, 59, 10, 49, 40)
    passage = Match(0, 59, 0, 59, 50, "reworded")
    # The host's sentence before the paste uses the paragraph's words, none of the source's
    # around it: out, and so are the source's words beyond the run on both ends.
    host = side(list(range(11, 31)) + list(range(11, 51)))
    assert merged([run], [passage], (host, source), rule) == [Match(20, 59, 10, 49, 50, "reworded")]
    # A reworded first sentence: half of its words are the source's first sentence's.
    reworded = side(list(range(1, 11)) + list(range(1001, 1011)) + list(range(11, 51)))
    assert merged([run], [passage], (reworded, source), rule) == [
        Match(0, 59, 0, 49, 60, "reworded")
    ]
    # Without the sides (or with few verbatim runs), the passage's ends stay as they were.
    assert merged([run], [passage]) == [Match(0, 59, 0, 59, 60, "reworded")]
    few = Match(50, 59, 40, 49, 10)
    assert merged([few], [passage], (host, source), rule) == [Match(0, 59, 0, 59, 60, "reworded")]
