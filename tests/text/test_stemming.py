"""Words by their stems (``text.stemming``), as sentence bags hold them."""

from __future__ import annotations

import numpy as np

from simdup.text.sentence_bags import sentence_side
from simdup.text.stemming import stem, stem_hashes
from simdup.text.tokens import tokenize


def test_words_match_by_their_stems_in_sentence_bags() -> None:
    """A sentence bag holds stems: "developed" and "develops", "studies" and "study" are one
    feature; a CJK character pair is as before."""
    assert stem("developed") == stem("develops") == stem("development") == "develop"
    assert stem("studies") == stem("study") and stem("analysis") == "analysis"
    a = "The students developed careful studies of rivers."
    b = "A student develops a careful study of the river."
    fa, fb = (sentence_side(t, tokenize(t)).feature for t in (a, b))
    shared = np.intersect1d(fa[fa != 0], fb[fb != 0])
    assert shared.size == 5  # student, develop, careful, study, river


def test_a_stem_is_hashed_as_the_word_it_is() -> None:
    """A word whose stem is itself keeps its hash; "Lakes" gets the hash of its stem "lak", and
    tokens not asked for keep theirs."""
    assert stem("lake") == "lak" and stem("lak") == "lak"  # a final e goes
    text = "Lakes and lak lakes"
    tokens = tokenize(text)
    which = np.array([True, False, True, False])
    got = stem_hashes(text, tokens, which)
    assert got[0] == tokens.hashes[2] == got[2]
    assert got[1] == tokens.hashes[1] and got[3] == tokens.hashes[3]
