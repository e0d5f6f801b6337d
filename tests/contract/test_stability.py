"""Fingerprints are stable: across processes, hash seeds, and releases (pinned values)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import simdup
from tests.conftest import REPO

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
# simdup.params.ALGORITHM_VERSION (and then updating these values). The first values were
# computed with ALGORITHM_VERSION "simdup-simhash64/1" and unchanged through "/4". "/5" (issue
# 32, short texts) fingerprints a text shorter than simdup.params.SHORT_TEXT_CHARS (400
# characters, whitespace collapsed) by the character bigrams of its comparison form, whatever
# the weighting: "zh", "en" and "mixed" are such texts and were re-pinned then; the "-long"
# texts (over 400 characters) are fingerprinted by their weighted words and pin that path.
# Each value was computed in fresh processes with PYTHONHASHSEED 0 and 12345, with and without
# SIMDUP_PURE_PYTHON=1, and all agreed.
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
    "zh-long": (
        "图书馆今年共接待读者三万二千人次，借阅图书八千六百册，比去年增长百分之十二。"
        "为了改进读者服务，我们延长了周末的开放时间，并在二楼新设了安静的自习区。"
        "少儿阅览室全年举办故事会四十场，参加的家庭超过一千户，许多孩子第一次办了借书证。"
        "古籍部完成了三百多册地方文献的修复和数字化，读者可以在网站上免费浏览全文。"
        "我们还与附近的五所中学合作，每月送书进校园，并邀请作家和学者来馆开设讲座。"
        "志愿者队伍扩大到一百二十人，他们帮助老年读者使用自助借还机和电子阅读器。"
        "新馆的设计方案已经通过专家评审，预计明年春天开工，后年秋天正式对外开放。"
        "新馆建成以后，藏书容量将增加一倍，座位数量将达到一千五百个，"
        "还将设立多媒体中心、创客空间和城市记忆展厅。"
        "明年我们计划继续优化服务流程，缩短新书上架时间，提高馆藏利用率，"
        "并通过问卷调查和座谈会广泛听取读者的意见和建议。"
        "在过去的一年里，图书馆的工作得到了社会各界的关心和支持，"
        "许多市民捐赠了珍贵的图书和资料，在此我们表示衷心的感谢。"
        "我们也清楚地认识到，馆舍面积不足、专业人员缺乏、数字资源更新不够及时等问题依然存在，"
        "需要在今后的工作中认真加以解决。"
    ),
    "en-long": (
        "Four score and seven years ago our fathers brought forth on this continent a new "
        "nation, conceived in liberty, and dedicated to the proposition that all men are "
        "created equal. Now we are engaged in a great civil war, testing whether that nation, "
        "or any nation so conceived and so dedicated, can long endure. We are met on a great "
        "battle-field of that war. We have come to dedicate a portion of that field, as a final "
        "resting place for those who here gave their lives that that nation might live. It is "
        "altogether fitting and proper that we should do this."
    ),
    "mixed-long": (
        "我们使用 Python 3.12 和 NumPy 处理数据，结果写入 report.json 文件，"
        "再用 pandas 做统计分析。原始日志先由 Kafka 收集，每小时落到 S3 上的 Parquet 文件里，"
        "然后用 Spark 作业清洗和去重。清洗规则写在 rules.yaml 中，包括时间格式统一、"
        "缺失字段补齐和异常值过滤。统计结果保存到 PostgreSQL 数据库，"
        "前端用 React 和 ECharts 画出每天的访问量曲线和地区分布图。"
        "所有代码都放在 GitLab 上，每次提交都会触发 CI 流水线，先运行 pytest 单元测试，"
        "再用 ruff 和 mypy 做静态检查，最后构建 Docker 镜像并部署到 Kubernetes 集群。"
        "如果任务失败，Prometheus 会发出告警，值班同学通过 Grafana 面板查看指标，"
        "并在 Slack 频道里记录处理过程。下个季度我们计划把部分计算迁移到 DuckDB，"
        "以减少集群的开销，同时试用 Polars 替代 pandas 处理较大的表格。"
    ),
}
PINNED = [
    ("zh", "tfidf", 0xC228E4041A27999C),
    ("en", "tfidf", 0x01BC2967A0EF4117),
    ("mixed", "tfidf", 0x20FEBF8BF1ADEE51),
    # A short text's fingerprint does not depend on the weighting (no words are weighed).
    ("zh", "logtf", 0xC228E4041A27999C),
    ("mixed", "logtf", 0x20FEBF8BF1ADEE51),
    ("zh-long", "tfidf", 0x2AB2CA15208F81F6),
    ("en-long", "tfidf", 0x3C4C1502208B34E1),
    ("mixed-long", "tfidf", 0x2F7A08AA8AA697B7),
    ("zh-long", "logtf", 0x28B2DA0330878176),
    ("mixed-long", "logtf", 0x2D7E02AA8E2697A7),
]


def test_algorithm_version_of_the_pinned_values() -> None:
    """The pinned fingerprints below belong to this algorithm version."""
    assert simdup.ALGORITHM_VERSION == "simdup-simhash64/5"


@pytest.mark.parametrize(("name", "weighting", "expected"), PINNED)
def test_pinned_fingerprints(name: str, weighting: str, expected: int) -> None:
    """Fixed texts keep their fingerprints (see the comment above PINNED)."""
    got = simdup.fingerprint(PINNED_TEXTS[name], weighting=weighting)
    assert f"{got:016x}" == f"{expected:016x}"


def test_pinned_texts_are_on_either_side_of_the_short_text_limit() -> None:
    """The pins cover both paths: the plain texts are short (character bigrams), the "-long"
    ones are not (weighted words)."""
    from simdup.params import SHORT_TEXT_CHARS
    from simdup.text.features import collapse

    for name, text in PINNED_TEXTS.items():
        assert (len(collapse(text)) >= SHORT_TEXT_CHARS) == name.endswith("-long"), name


def test_pinned_markup_word_hashes() -> None:
    """The hashes of the words of removed markup, which sketches hold, are fixed values too
    (native and Python alike)."""
    from simdup.text.features import markup_word_hashes, markup_word_hashes_python

    expected = [0x862454B7B2A59AC3, 0x1088DDCD1B12C669, 0x62A88C85E172B330, 0x403A4E1BBCD252BD]
    for compute in (markup_word_hashes, markup_word_hashes_python):
        assert compute("https://GitHub.com/页面").tolist() == expected
