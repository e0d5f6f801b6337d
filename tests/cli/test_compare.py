"""simdup compare: the terms two documents share or not, and --explain's changed passages."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from simdup.cli import cli
from simdup.text.stopwords import bundled_stopwords

JA_A = (
    "東京の春はとても美しいです。桜の花が咲き、多くの人々は公園で花見を楽しみます。"
    "日本の文化には季節を大切にする心があります。私たちは友達や家族と一緒に弁当を食べます。"
)
JA_B = (
    "京都の春はとても美しいです。桜の花が咲き、多くの人々は寺で花見を楽しみます。"
    "日本の文化には自然を大切にする心があります。私たちは友達や家族と一緒に料理を食べます。"
)
KO_A = (
    "서울의 봄은 정말 아름답습니다. 벚꽃이 피면 많은 사람들이 공원에서 꽃구경을 즐깁니다. "
    "한국의 문화에는 계절을 소중히 여기는 마음이 있습니다. 우리는 친구와 가족과 함께 "
    "도시락을 먹습니다."
)
KO_B = (
    "부산의 봄은 정말 아름답습니다. 벚꽃이 피면 많은 사람들이 학교에서 꽃구경을 즐깁니다. "
    "한국의 문화에는 자연을 소중히 여기는 마음이 있습니다. 우리는 친구와 가족과 함께 "
    "음식을 먹습니다."
)


def compare_json(tmp_path: Path, a: str, b: str, *options: str) -> dict:
    (tmp_path / "a.txt").write_text(a, encoding="utf-8")
    (tmp_path / "b.txt").write_text(b, encoding="utf-8")
    args = ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "-f", "json", *options]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report: dict = json.loads(result.stdout)
    return report


def listed(report: dict, key: str) -> list[str]:
    return [t["term"] for t in report[key]]


def test_japanese_terms_are_words_without_particles(tmp_path: Path) -> None:
    """A Japanese pair's shared terms are its content words: no particle (の, を, や, には),
    no kana run holding one ("はとても", "々は"), no ending cut from its kanji ("しいです")."""
    report = compare_json(tmp_path, JA_A, JA_B, "--top", "100")
    shared = listed(report, "shared_terms")
    assert {"桜", "花", "文化", "日本", "家族"} <= set(shared)
    stopwords = bundled_stopwords()
    for term in shared:
        assert term not in stopwords, term
        assert not any("\u3041" <= ch <= "\u309f" for ch in term), term  # no hiragana
    assert "自然" in listed(report, "only_in_b") and "料理" in listed(report, "only_in_b")


def test_japanese_shared_terms_in_the_text_report(tmp_path: Path) -> None:
    """The text report leads with content words, not particles (what issue 47 saw: の, を)."""
    (tmp_path / "a.txt").write_text(JA_A, encoding="utf-8")
    (tmp_path / "b.txt").write_text(JA_B, encoding="utf-8")
    result = CliRunner().invoke(cli, ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    assert result.exit_code == 0, result.output
    block = result.stdout.split("shared terms (weight in A / B):\n")[1].split("\n\n")[0]
    terms = [line.split()[0] for line in block.splitlines()]
    assert len(terms) == 10
    assert not {"の", "を", "や", "には", "はとても", "々は", "が", "き"} & set(terms)


def test_korean_terms_are_words_without_their_particles(tmp_path: Path) -> None:
    """A Korean pair's terms are its words with the particles written on them cut off:
    "봄", not "봄은"; "학교", not "학교에서"; no particle listed alone."""
    report = compare_json(tmp_path, KO_A, KO_B, "--top", "100")
    shared = set(listed(report, "shared_terms"))
    assert {"봄", "벚꽃", "꽃구경", "문화", "가족", "친구", "마음", "한국"} <= shared
    assert not {"봄은", "벚꽃이", "꽃구경을", "문화에는", "가족과", "우리는", "은", "는"} & shared
    assert set(listed(report, "only_in_a")) == {"서울", "공원", "계절", "도시락"}
    assert set(listed(report, "only_in_b")) == {"부산", "학교", "자연", "음식"}


def test_no_stopwords_lists_the_particles_as_words(tmp_path: Path) -> None:
    """With --no-stopwords the particles are listed, as words of their own."""
    shared = set(listed(compare_json(tmp_path, JA_A, JA_B, "--top", "100", "--no-stopwords"),
                        "shared_terms"))  # fmt: skip
    assert {"の", "を", "は", "とても", "桜"} <= shared and "はとても" not in shared


def explain_text(tmp_path: Path, a: str, b: str) -> str:
    (tmp_path / "a.txt").write_text(a, encoding="utf-8")
    (tmp_path / "b.txt").write_text(b, encoding="utf-8")
    args = ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--explain"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.stdout.split("changed passages (1 passage):\n")[1]


def test_explain_marks_the_changes_inside_a_one_line_japanese_paragraph(tmp_path: Path) -> None:
    """A paragraph on one line, edited in four places: shown once, each change marked inside
    it (what was removed [-...-], what was added {+...+}), not as the line twice."""
    shown = explain_text(tmp_path, JA_A, JA_B)
    assert shown.splitlines()[0] == "@@ A line 1  B line 1"
    (line,) = shown.splitlines()[1:]
    assert line.startswith("~ ")
    for removed, added in (("公園", "寺"), ("季節", "自然"), ("弁当", "料理")):
        assert f"[-{removed}-]{{+{added}+}}" in line
    assert "の春はとても美しいです。" in line  # what is unchanged is shown as it is


def test_explain_marks_the_changes_inside_a_one_line_chinese_paragraph(tmp_path: Path) -> None:
    """The same for Chinese, changed character by character."""
    a = "图书馆今年共接待读者三万二千人次，借阅图书八千六百册，比去年增长百分之十二。"
    b = "图书馆今年共接待读者三万五千人次，借阅图书八千六百册，比去年增长百分之十五。"
    line = explain_text(tmp_path, a, b).splitlines()[1]
    assert line == (
        "~ 图书馆今年共接待读者三万[-二-]{+五+}千人次，借阅图书八千六百册，比去年增长百分之十"
        "[-二-]{+五+}。"
    )


def test_explain_shows_lines_with_little_in_common_apart(tmp_path: Path) -> None:
    """A line rewritten whole reads better as the old line and the new one."""
    common = "\n".join(f"line {i} of the text that stays the same" for i in range(30))
    shown = explain_text(tmp_path, f"{common}\nthe old ending", f"{common}\nanother one, new")
    assert "- the old ending\n+ another one, new\n" in shown
    assert "[-" not in shown
