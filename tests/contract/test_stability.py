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
# "/6" (issue 47) drops the bundled Japanese and Korean stopwords: the texts above hold
# neither script and kept their values; "ja-long" and "ko-long" were pinned then. "/7" (issue
# 50) changes what a short text's record keeps (its form with its blocks marked), not its
# fingerprint: every value below kept.
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
    "ja-long": (
        "図書館は今年、三万二千人の読者を迎え、八千六百冊の本を貸し出しました。"
        "読者へのサービスを良くするために、週末の開館時間を延ばし、"
        "二階には静かな自習室を新しく作りました。"
        "子ども向けの読み聞かせ会は一年に四十回開かれ、"
        "千を超える家族が参加しました。多くの子どもたちは、"
        "そこで初めて図書カードを作りました。古い本の部門では、"
        "地域の資料三百冊あまりを修理してデジタル化し、"
        "読者はウェブサイトで全文を無料で読むことができます。"
        "また、近くの五つの中学校と協力して、毎月本を学校に届け、"
        "作家や研究者を招いて講演会を開いています。"
        "ボランティアは百二十人に増え、お年寄りの読者が自動貸出機や電子書籍リーダーを使うのを"
        "手伝っています。新しい図書館の設計案は専門家の審査を通り、"
        "来年の春に工事が始まり、再来年の秋に開館する予定です。"
        "新館ができると、蔵書の容量は二倍になり、"
        "座席は千五百席になります。マルチメディアセンターやメイカースペース、"
        "町の記憶を伝える展示室も作られます。来年も、"
        "新しい本を棚に並べるまでの時間を短くし、"
        "アンケートや座談会で読者の意見を広く聞いていきます。"
    ),
    "ko-long": (
        "도서관은 올해 삼만 이천 명의 독자를 맞이했고 팔천육백 권의 책을 빌려주었습니다. "
        "독자 서비스를 개선하기 위해 주말 개관 시간을 늘렸고, 이층에는 조용한 "
        "자습실을 새로 만들었습니다. 어린이 열람실에서는 일 년 동안 이야기 "
        "모임을 마흔 번 열었고, 천 가구가 넘는 가족이 참여했습니다. 많은 아이들이 "
        "그곳에서 처음으로 도서 카드를 만들었습니다. 고서 부서는 지역 문헌 "
        "삼백여 권을 수리하고 디지털화했으며, 독자들은 웹사이트에서 전문을 "
        "무료로 볼 수 있습니다. 우리는 또한 근처의 다섯 중학교와 협력하여 매달 "
        "학교에 책을 보내고, 작가와 학자를 초청하여 강연회를 엽니다. 자원봉사자는 "
        "백이십 명으로 늘었고, 그들은 노인 독자들이 자동 대출기와 전자책 단말기를 "
        "사용하도록 돕습니다. 새 도서관의 설계안은 전문가 심사를 통과했으며, "
        "내년 봄에 공사를 시작하여 후년 가을에 문을 열 예정입니다. 새 도서관이 "
        "완성되면 장서 용량은 두 배로 늘어나고 좌석은 천오백 개가 됩니다. 멀티미디어 "
        "센터와 메이커 공간, 도시의 기억을 전하는 전시실도 만들어집니다. 내년에도 "
        "우리는 새 책이 서가에 오르기까지의 시간을 줄이고, 설문과 간담회를 "
        "통해 독자의 의견을 널리 듣겠습니다."
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
    ("ja-long", "tfidf", 0x9121EF31CBFE223E),
    ("ja-long", "logtf", 0x1121EF39CBBEA23E),
    ("ko-long", "tfidf", 0x3FA7015572B5663C),
]


def test_algorithm_version_of_the_pinned_values() -> None:
    """The pinned fingerprints below belong to this algorithm version."""
    assert simdup.ALGORITHM_VERSION == "simdup-simhash64/7"


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
