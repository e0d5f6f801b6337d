"""Fingerprints are stable: across processes, hash seeds, and releases (pinned values)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

import simdup

CORPUS_ARGS = [
    "sample_corpus/zh",
    "sample_corpus/en",
    "sample_corpus/mixed",
    "sample_corpus/encodings",
]


def hash_in_subprocess(seed: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run(
        [sys.executable, "-m", "simdup", "hash", *CORPUS_ARGS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_hash_output_is_identical_for_every_pythonhashseed() -> None:
    """`python -m simdup hash` prints the same fingerprints with PYTHONHASHSEED 0, 1, 12345
    (Python's salted hash() is never used for fingerprints)."""
    runs = {seed: hash_in_subprocess(seed) for seed in ("0", "1", "12345")}
    for seed, proc in runs.items():
        assert proc.returncode == 0, f"seed {seed}: {proc.stderr}"
    outputs = {proc.stdout for proc in runs.values()}
    assert len(outputs) == 1
    lines = outputs.pop().splitlines()
    assert len(lines) >= 30
    assert all(line[16:18] == "  " for line in lines)


def test_subprocess_fingerprints_equal_in_process_fingerprints() -> None:
    """The CLI in a fresh process agrees with the library in this one."""
    proc = hash_in_subprocess("99")
    assert proc.returncode == 0, proc.stderr
    in_process = {
        f.path: f"{f.fingerprint:016x}"
        for f in simdup.scan([str(REPO / p) for p in CORPUS_ARGS], jobs=1).files
    }
    for line in proc.stdout.splitlines():
        hexdigits, path = line.split("  ", 1)
        assert in_process[str(REPO / path)] == hexdigits, path


# Pinned fingerprints. These values are part of the on-disk/report contract: a change here
# means the same text and settings now give a different fingerprint, which REQUIRES bumping
# simdup.params.ALGORITHM_VERSION (and then updating these values). Computed with
# ALGORITHM_VERSION "simdup-simhash64/1" and unchanged in "/2" (which normalises each word
# instead of the whole text and hashes exact duplicates without case folding: different
# results only for rarer characters than these texts hold) and in "/3" (which removes
# default-ignorable code points such as U+200B first: these texts hold none).
PINNED_TEXTS = {
    "zh": (
        "图书馆今年共接待读者三万二千人次，借阅图书八千六百册，比去年增长百分之十二。"
        "为了改进读者服务，我们延长了周末的开放时间。"
    ),
    "en": (
        "Four score and seven years ago our fathers brought forth on this continent a new "
        "nation, conceived in liberty, and dedicated to the proposition that all men are "
        "created equal."
    ),
    "mixed": (
        "我们使用 Python 3.12 和 NumPy 处理数据，结果写入 report.json 文件，"
        "再用 pandas 做统计分析。"
    ),
}
PINNED = [
    ("zh", "tfidf", 0xAA22461B0183AAD3),
    ("en", "tfidf", 0x7DC7154A25823020),
    ("mixed", "tfidf", 0x7B044C074D96D754),
    ("zh", "logtf", 0x8A2046190147AAD4),
    ("mixed", "logtf", 0x7A004CA241929747),
]


def test_algorithm_version_of_the_pinned_values() -> None:
    """The pinned fingerprints below belong to this algorithm version."""
    assert simdup.ALGORITHM_VERSION == "simdup-simhash64/4"


@pytest.mark.parametrize(("name", "weighting", "expected"), PINNED)
def test_pinned_fingerprints(name: str, weighting: str, expected: int) -> None:
    """Fixed texts keep their fingerprints (see the comment above PINNED)."""
    got = simdup.fingerprint(PINNED_TEXTS[name], weighting=weighting)
    assert f"{got:016x}" == f"{expected:016x}"


def test_pinned_markup_word_hashes() -> None:
    """The hashes of the words of removed markup, which sketches hold, are fixed values too
    (native and Python alike)."""
    from simdup.text.features import markup_word_hashes, markup_word_hashes_python

    expected = [0x862454B7B2A59AC3, 0x1088DDCD1B12C669, 0x62A88C85E172B330, 0x403A4E1BBCD252BD]
    for compute in (markup_word_hashes, markup_word_hashes_python):
        assert compute("https://GitHub.com/页面").tolist() == expected
