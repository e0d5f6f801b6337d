"""simdup.join.verify: the one near-duplicate rule."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import simdup.join.verify
from simdup.algorithms.edit_join import edit_similarity
from simdup.algorithms.move_join import move_similarity
from simdup.algorithms.sketch import bottom_k
from simdup.join.verify import Candidates, Verifier, candidate_pairs
from simdup.options import ScanOptions
from simdup.records import FingerprintedDocument


def doc(
    path: str, terms: range, *, chars: int = 1000, content: str | None = None
) -> FingerprintedDocument:
    hashes = np.array([(t * 0x9E3779B97F4A7C15) % (1 << 64) for t in terms], dtype=np.uint64)
    sketch = bottom_k(hashes, 256).astype("<u4").tobytes()
    return FingerprintedDocument(
        path, 0, "utf-8", "utf-8", chars, len(terms), len(terms), content or path, chars, sketch
    )


A = doc("a", range(0, 1000))
B_SIMILAR = doc("b", range(50, 1050))  # Jaccard 950/1050 = 0.90
C_DIFFERENT = doc("c", range(500, 1500))  # Jaccard 0.33
D_SAME_TEXT = doc("d", range(0, 1000), content="a")
E_SHORT = doc("e", range(50, 1050), chars=500)


def test_same_text_is_always_a_near_duplicate() -> None:
    """Identical normalised text: near-duplicate whatever the distance or options."""
    for options in (ScanOptions(), ScanOptions(verify=False, threshold=0)):
        verdict = Verifier(options).judge(A, D_SAME_TEXT, 40)
        assert (verdict.near, verdict.exact, verdict.similarity) == (True, True, 1.0)


def test_without_verification_the_threshold_decides() -> None:
    """--no-verify: within --threshold is a near-duplicate, beyond is not."""
    verifier = Verifier(ScanOptions(verify=False, threshold=3))
    assert verifier.judge(A, C_DIFFERENT, 3).near
    verdict = verifier.judge(A, B_SIMILAR, 4)
    assert not verdict.near and verdict.reason == "distance 4 > threshold 3"


def test_verification_needs_radius_length_and_similarity() -> None:
    """With verification: beyond the radius no; a much shorter text no; a low estimated
    Jaccard no; otherwise yes, with the estimate reported."""
    verifier = Verifier(ScanOptions())
    assert verifier.judge(A, B_SIMILAR, 13).reason == "distance 13 > verify radius 12"
    assert verifier.judge(A, E_SHORT, 5).reason.startswith("length ratio 0.50 < 0.9")
    assert not verifier.judge(A, C_DIFFERENT, 5).near
    verdict = verifier.judge(A, B_SIMILAR, 5)
    assert verdict.near and not verdict.exact
    assert verdict.similarity == pytest.approx(0.905, abs=0.06)


def test_a_known_similarity_replaces_the_estimate() -> None:
    """compare passes the exact Jaccard: it decides instead of the sketch estimate."""
    verifier = Verifier(ScanOptions())
    assert not verifier.judge(A, B_SIMILAR, 5, similarity=0.5).near
    assert verifier.judge(A, C_DIFFERENT, 5, similarity=0.85).near


def test_pairs_keeps_only_near_duplicates_as_typed_records() -> None:
    """Verifier.pairs turns candidate arrays into VerifiedPair records."""
    docs = [A, B_SIMILAR, C_DIFFERENT]
    candidates = Candidates(np.array([0, 0]), np.array([1, 2]), np.array([5, 6]))
    (pair,) = Verifier(ScanOptions()).pairs(docs, candidates)
    assert (pair.i, pair.j, pair.distance, pair.exact) == (0, 1, 5, False)


@pytest.mark.parametrize(
    "options",
    [
        ScanOptions(),
        ScanOptions(method="minhash"),
        ScanOptions(verify=False, threshold=5),
        ScanOptions(min_length_ratio=0.4, min_similarity=0.3),
    ],
    ids=["default", "minhash", "no-verify", "lenient"],
)
@pytest.mark.parametrize("slice_size", [3, 1 << 20])
def test_pairs_decides_every_candidate_as_judge_does(
    options: ScanOptions, slice_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pairs`` (array operations on slices of candidates, no reasons worded) keeps exactly
    the candidates ``judge`` calls near, with the same similarity and exactness."""
    monkeypatch.setattr(simdup.join.verify, "_VERIFY_SLICE", slice_size)
    docs = [A, B_SIMILAR, C_DIFFERENT, D_SAME_TEXT, E_SHORT]
    ii, jj = np.triu_indices(len(docs), 1)
    distances = np.array([(3 * i + 5 * j) % 16 for i, j in zip(ii, jj, strict=True)])
    verifier = Verifier(options)
    got = verifier.pairs(docs, Candidates(ii, jj, distances))
    want = []
    for i, j, d in zip(ii.tolist(), jj.tolist(), distances.tolist(), strict=True):
        verdict = verifier.judge(docs[i], docs[j], d)
        if verdict.near:
            want.append((i, j, d, verdict.similarity, verdict.exact))
    assert [(p.i, p.j, p.distance, p.similarity, p.exact) for p in got] == want
    assert want  # the case is not vacuous


@pytest.mark.parametrize("method", ["simhash", "minhash"])
def test_no_documents_give_no_candidates(method: str) -> None:
    """An empty tree (or one whose every file was skipped) has no candidate pairs with either
    method; MinHash once failed on an empty signature matrix."""
    candidates = candidate_pairs([], replace(ScanOptions(), method=method))
    assert len(candidates) == 0


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_scan_and_compare_judge_the_words_of_links_alike(tmp_path: Path, suffix: str) -> None:
    """Two long texts that differ only in a link target read the same (a reader does not see
    the target): the same comparison form, an exact duplicate in scan and compare alike. In a
    plain text the markup is stripped from the words and the sketches' word set still counts
    the link's words (compare's exact Jaccard); a Markdown file is read as rendered, where the
    target is no text at all."""
    import simdup
    from simdup.comparing import compare

    words = " ".join(f"word{k}" for k in range(80))
    a, b = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    a.write_text(f"{words} [see](https://example.com/alpha)\n", "utf-8")
    b.write_text(f"{words} [see](https://example.com/omega)\n", "utf-8")
    result = simdup.scan([str(tmp_path)], jobs=1)
    [pair] = result.pairs
    comparison = compare(a, b)
    assert comparison.a.chars >= 400  # long texts: judged by their words
    assert pair.distance == comparison.distance == 0 and pair.exact
    assert comparison.reason == "identical normalised text"
    # In the plain text, 84 words of 86 in common: all but "alpha" and "omega" ("https",
    # "example", "com" too).
    want = 84 / 86 if suffix == ".txt" else 1.0
    assert comparison.jaccard == pytest.approx(want, abs=1e-6)
    assert comparison.near_duplicate


def _short(path: str, marked: str) -> FingerprintedDocument:
    """A short text's record: its form with its blocks marked in place of a sketch."""
    return FingerprintedDocument(
        path, 0, "utf-8", "utf-8", 100, 10, 10, marked, len(marked), marked.encode()
    )


SHORTS = [
    _short("s0", "the kettle boils fast\nthe lid closes properly\nhappy with it overall"),
    _short("s1", "happy with it overal\nthe kettle boils fast\nthe lid closes properly"),  # moved
    _short("s2", "the kettle boils fast the lid closes properly happy with it overall"),  # same
    _short("s3", "the kettle boils fast the lid closes properly happy with it overal"),  # an edit
    _short("s4", "the toaster burns the bread\nthe lid closes properly"),
]


@pytest.mark.parametrize("verify", [True, False])
def test_short_texts_near_by_their_moves_are_judged_alike_everywhere(verify: bool) -> None:
    """Two short texts below the edit similarity are near by their block-move similarity
    (``moves``, in ``judge``, in ``pairs`` on arrays and one by one, and in ``rule_of``);
    without verification the threshold decides as before."""
    options = ScanOptions(verify=verify, threshold=3)
    verifier = Verifier(options)
    ii, jj = np.triu_indices(len(SHORTS), 1)
    got = verifier.pairs(SHORTS, Candidates(ii, jj, np.zeros(ii.size, dtype=np.int64)))
    want = []
    for i, j in zip(ii.tolist(), jj.tolist(), strict=True):
        verdict = verifier.judge(SHORTS[i], SHORTS[j], 0)
        if verdict.near:
            moved = "with moved blocks" in verdict.reason
            want.append((i, j, verdict.similarity, moved))
    assert [(p.i, p.j, p.similarity, p.moved) for p in got] == want
    if not verify:
        return
    near = {(i, j): moved for i, j, _, moved in want}
    assert near == {(0, 1): True, (0, 2): False, (0, 3): False, (2, 3): False}
    verdict = verifier.judge(SHORTS[0], SHORTS[1], 0)
    assert verdict.reason.startswith("short texts: edit similarity 0.")
    assert verdict.reason.endswith(f"; with moved blocks {verdict.similarity:.2f} >= 0.9")
    assert verifier.rule_of(100, 100, False, moved=True) == "moves"
    # Not near by either: the higher of the two similarities, both in the reason.
    far = verifier.judge(SHORTS[0], SHORTS[4], 0)
    assert not far.near and "< 0.9; with moved blocks" in far.reason
    edit = edit_similarity(SHORTS[0].sketch.decode().replace("\n", " "),
                           SHORTS[4].sketch.decode().replace("\n", " "))  # fmt: skip
    moved = move_similarity(SHORTS[0].sketch.decode(), SHORTS[4].sketch.decode())
    assert far.similarity == round(edit, 4) and moved < edit  # the higher: not the moves
    assert verifier.estimate(SHORTS[0], SHORTS[1]) == pytest.approx(verdict.similarity, abs=1e-4)


def test_the_short_join_finds_moves_between_texts_with_blocks_only() -> None:
    """``short_join``: pairs within the edit similarity, and pairs of texts that both have
    blocks within the block-move similarity; a text of one block has nothing to move."""
    from simdup.join.short import short_join

    marked = [
        "the kettle boils fast\nthe lid closes properly",
        "the lid closes properly\nthe kettle boils fast",  # moved: near by moves
        "the lid closes properly the kettle boils fast",  # one block: its edit similarity only
        "the kettle boils fast the lid closes properly",  # the same form as 0
    ]
    i, j = short_join(marked, 0.9)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == {(0, 1), (0, 3), (1, 2)}
