"""simdup.text.processor: ``simdup.fingerprint``, the 64-bit fingerprint of one text."""

from __future__ import annotations

import pytest

import simdup
from simdup.params import SHORT_TEXT_CHARS, FeatureParams

TEXTS = [
    "图书馆今年共接待读者三万二千人次，借阅图书八千六百册。",
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "我们使用 Python 3.12 和 NumPy 处理数据。",
]


@pytest.mark.parametrize("text", TEXTS)
def test_fingerprint_is_deterministic_and_64_bit(text: str) -> None:
    """The same text always gives the same 64-bit fingerprint."""
    fp = simdup.fingerprint(text)
    assert 0 <= fp < 1 << 64
    assert simdup.fingerprint(text) == fp
    assert simdup.fingerprint(text, FeatureParams()) == fp


def test_fingerprint_ignores_layout_case_and_width() -> None:
    """Case, full-width forms, re-wrapping and extra blank lines do not change a fingerprint."""
    base = "图书馆今年共接待读者三万二千人次，借阅图书八千六百册。Library Report 2024"
    variant = (
        "图书馆今年共接待读者\n三万二千人次，借阅图书\n\n八千六百册。"
        "ＬＩＢＲＡＲＹ  report ２０２４"
    )
    assert simdup.fingerprint(variant) == simdup.fingerprint(base)


LONG_TEXT = (
    "The quick brown fox jumps over the lazy dog near the river bank, and the dog, who had "
    "been asleep in the warm afternoon sun, barely lifts his head to watch it go. Later the "
    "fox comes back along the same path with two of her cubs, and the three of them drink "
    "from the river while a heron stands very still in the reeds on the far side. The farmer "
    "who owns the field beside the bank says that the fox has lived there for years and that "
    "the dog has never once chased her, the fox, the cubs or the heron."
)


def test_fingerprint_options_change_the_fingerprint() -> None:
    """Weighting and stopword options are part of the fingerprint of a text judged by its
    words; a short text is judged by its characters, which they do not touch."""
    text = LONG_TEXT + " the the the fox fox"
    assert len(text) >= SHORT_TEXT_CHARS
    fps = {simdup.fingerprint(text, weighting=w) for w in ("tf", "binary", "logtf", "tfidf")}
    assert len(fps) >= 2
    assert simdup.fingerprint(text, stopwords=False) != simdup.fingerprint(text)
    short = TEXTS[1] + " the the the fox fox"
    assert len(short) < SHORT_TEXT_CHARS
    fps = {simdup.fingerprint(short, weighting=w) for w in ("tf", "binary", "logtf", "tfidf")}
    assert fps == {simdup.fingerprint(short)}
    assert simdup.fingerprint(short, stopwords=False) == simdup.fingerprint(short)


def test_nothing_to_judge_has_one_fingerprint_and_punctuation_is_a_text() -> None:
    """Every text with nothing in it (empty, whitespace alone) has the fingerprint 0 (scan
    and compare skip such a text); a text of punctuation alone is a text of its own."""
    nothing = simdup.fingerprint("")
    assert nothing == 0
    assert simdup.fingerprint(" \n\t\u3000 ") == nothing
    punctuation = simdup.fingerprint("，。！")
    assert punctuation != nothing
    assert simdup.fingerprint("，。！\n") == punctuation
    assert simdup.fingerprint("？？？") not in (nothing, punctuation)


def test_swapping_paragraphs_keeps_the_fingerprint() -> None:
    """Two paragraphs in either order have the same words and counts: a text judged by its
    words (at least SHORT_TEXT_CHARS characters) keeps its fingerprint. A short text is judged
    by its characters in order: swapping its paragraphs changes its fingerprint."""
    p1 = " ".join(f"pepper{i} candle{i} velvet{i}" for i in range(12)) + "."
    p2 = " ".join(f"ladder{i} tunnel{i} barrel{i}" for i in range(12)) + "."
    assert len(p1) + len(p2) >= SHORT_TEXT_CHARS
    assert simdup.fingerprint(f"{p1}\n\n{p2}") == simdup.fingerprint(f"{p2}\n\n{p1}")
    s1, s2 = "pepper candle velvet castle lamp.", "ladder tunnel barrel stone saddle."
    assert simdup.fingerprint(f"{s1}\n\n{s2}") != simdup.fingerprint(f"{s2}\n\n{s1}")


# Rows deduplicated in this process (one job): which of them load the segmenter's dictionary.
_ROWS_LOAD = """
import sys
from simdup.rows.dedup import dedup_records
texts = sys.argv[1].split("|")
decided = dedup_records(texts, jobs=1)
print(decided.removed, "rjieba" in sys.modules or "jieba" in sys.modules)
"""


def test_short_rows_never_load_the_segmenter_and_a_long_row_loads_it_when_met() -> None:
    """A dataset of rows under SHORT_TEXT_CHARS characters is judged by its characters: its
    deduplication never loads the segmenter's dictionary (~0.13 s). A long row, after a first
    chunk of short ones, has it loaded then; its fingerprint is the one a processor loaded
    from the start gives."""
    import subprocess
    import sys

    from simdup.text.processor import DocumentProcessor

    short = ["今天天气很好，我们去公园散步吧", "今天天气很好，我们去公园散步吧！", "a short line"]
    found = subprocess.run([sys.executable, "-c", _ROWS_LOAD, "|".join(short)],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert found.stdout.split() == ["1", "False"]
    long = "图书馆今年共接待读者三万二千人次，借阅图书八千六百册。" * 20
    rows = short * 400 + [long, long + "。"]  # the long rows in the second chunk
    found = subprocess.run([sys.executable, "-c", _ROWS_LOAD, "|".join(rows)],
                           capture_output=True, text=True, check=True)  # fmt: skip
    # Three forms kept (the two short ones, the long one): every other row removed.
    assert found.stdout.split() == [str(len(rows) - 3), "True"]
    lazy = DocumentProcessor(FeatureParams(), words=False)
    assert lazy.features(short[0], words_from=SHORT_TEXT_CHARS).form
    eager = DocumentProcessor(FeatureParams())
    assert lazy.features(long).hashes.tolist() == eager.features(long).hashes.tolist()
    assert simdup.fingerprint(long) == eager.record_parts(eager.features(long))[0]
