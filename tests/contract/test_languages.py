"""Japanese and Korean documents (issue 36): a lightly edited revision of a page is a
near-duplicate of it (edit similarity >= 0.9, the project's definition); two different pages on
related topics are not. ``benchmarks/languages.py`` measures the same on real pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from rapidfuzz.distance import Levenshtein

import simdup

JA_LISTS = """\
# リスト

リストは Python で最もよく使われるデータ型の一つです。角括弧の中に値をカンマで区切って書くと、
新しいリストが作られます。リストの要素は異なる型でも構いませんが、通常は同じ型の値をまとめて保持します。

文字列と同じように、リストもインデックスで要素を取り出したり、スライスで一部を切り出したりできます。
スライス操作は新しいリストを返すので、元のリストは変更されません。負のインデックスを使うと、
末尾から数えた位置の要素を取り出せます。

文字列とは違い、リストは変更可能な型です。つまり、要素を後から置き換えたり、追加したり、
削除したりできます。末尾に要素を追加するには `append()` メソッドを使います。複数の要素を
一度に追加したい場合は `extend()` メソッドが便利です。要素を取り除くには `remove()` か `pop()`
を使い、`pop()` は取り除いた要素を返します。

組み込み関数 `len()` はリストの長さを返します。リストを入れ子にして、リストの中に別のリストを
持たせることもできます。このような構造は表や行列を表現するときに役立ちますが、深く入れ子に
しすぎるとコードが読みにくくなるので注意してください。

リストを並べ替えるには `sort()` メソッドか組み込み関数 `sorted()` を使います。前者は元の
リストをその場で並べ替え、後者は並べ替えた新しいリストを返します。どちらも `key` 引数に関数を
渡すと、比較に使う値を指定できます。`reverse=True` を渡すと降順になります。
"""

# The same page revised: a few words changed, one sentence added, one clause dropped.
JA_LISTS_REVISED = (
    JA_LISTS.replace("最もよく使われる", "特によく使われる")
    .replace(
        "通常は同じ型の値をまとめて保持します。",
        "通常は同じ型の値をまとめて保持します。空のリストは `[]` と書きます。",
    )  # fmt: skip
    .replace("末尾から数えた位置", "後ろから数えた位置")
    .replace("、深く入れ子に\nしすぎるとコードが読みにくくなるので注意してください", "")
)

JA_FILES = """\
# ファイルの読み書き

ファイルを開くには組み込み関数 `open()` を使います。最初の引数はファイル名で、二番目の引数は
ファイルをどのように使うかを示すモード文字列です。読み込みだけを行う場合は `'r'`、書き込みには
`'w'`、追記には `'a'` を指定します。モードを省略すると読み込みになります。

テキストモードでは、ファイルから読み込んだデータは文字列として返されます。エンコーディングを
指定しない場合はプラットフォームに依存するので、`encoding="utf-8"` のように明示することを
お勧めします。画像のようなデータを扱うときは、モードに `'b'` を加えてバイナリモードで開きます。

ファイルを扱うときは `with` 文を使うのがよい習慣です。`with` ブロックを抜けると、途中で例外が
発生した場合でも、ファイルは自動的に閉じられます。`with` を使わない場合は、必ず `close()` を
呼び出してファイルを閉じてください。閉じ忘れるとデータが書き込まれないことがあります。

ファイルの内容を読むには `read()` を呼び出します。引数を省略するとファイル全体を読み込みます。
`readline()` は一行ずつ読み込み、ファイルの終わりに達すると空文字列を返します。ファイル
オブジェクトに対してループを回すと、各行を順に取り出せるので、メモリ効率がよく簡潔です。

書き込みには `write()` を使います。このメソッドは書き込んだ文字数を返します。文字列以外の
オブジェクトを書き込むには、先に文字列かバイト列に変換する必要があります。
"""

KO_LISTS = """\
# 리스트

리스트는 파이썬에서 가장 많이 쓰이는 자료형 중 하나입니다. 대괄호 안에 값들을 쉼표로 구분해서
적으면 새 리스트가 만들어집니다. 리스트의 항목들은 서로 다른 형일 수도 있지만, 보통은 같은 형의
값들을 모아서 담습니다.

문자열과 마찬가지로 리스트도 인덱스로 항목을 꺼내거나 슬라이스로 일부를 잘라낼 수 있습니다.
슬라이스 연산은 새 리스트를 돌려주기 때문에 원래 리스트는 바뀌지 않습니다. 음수 인덱스를 쓰면
끝에서부터 센 위치의 항목을 꺼낼 수 있습니다.

문자열과는 달리 리스트는 가변 자료형입니다. 즉, 항목을 나중에 바꾸거나 추가하거나 삭제할 수
있습니다. 끝에 항목을 추가하려면 `append()` 메서드를 사용합니다. 여러 항목을 한 번에 추가하고
싶다면 `extend()` 메서드가 편리합니다. 항목을 제거하려면 `remove()` 나 `pop()` 을 사용하는데,
`pop()` 은 제거한 항목을 돌려줍니다.

내장 함수 `len()` 은 리스트의 길이를 돌려줍니다. 리스트를 중첩해서 리스트 안에 다른 리스트를
넣을 수도 있습니다. 이런 구조는 표나 행렬을 나타낼 때 쓸모가 있지만, 너무 깊이 중첩하면 코드를
읽기 어려워지므로 주의해야 합니다.

리스트를 정렬하려면 `sort()` 메서드나 내장 함수 `sorted()` 를 사용합니다. 앞의 것은 원래
리스트를 제자리에서 정렬하고, 뒤의 것은 정렬된 새 리스트를 돌려줍니다. 둘 다 `key` 인자에 함수를
전달하면 비교에 쓸 값을 지정할 수 있습니다. `reverse=True` 를 전달하면 내림차순이 됩니다.
"""

# Revised as translators do: a word changed, a sentence added, endings of two sentences changed
# (the words of Korean carry their endings, so each such edit changes a whole word).
KO_LISTS_REVISED = (
    KO_LISTS.replace("가장 많이 쓰이는", "특히 자주 쓰이는")
    .replace("값들을 모아서 담습니다.", "값들을 모아서 담습니다. 빈 리스트는 `[]` 로 적습니다.")
    .replace("편리합니다.", "편리하다.")
    .replace("주의해야 합니다.", "주의해야 한다.")
)

KO_FILES = """\
# 파일 읽고 쓰기

파일을 열려면 내장 함수 `open()` 을 사용합니다. 첫 번째 인자는 파일 이름이고, 두 번째 인자는
파일을 어떻게 사용할지를 나타내는 모드 문자열입니다. 읽기만 할 때는 `'r'`, 쓰기에는 `'w'`,
덧붙이기에는 `'a'` 를 지정합니다. 모드를 생략하면 읽기가 됩니다.

텍스트 모드에서는 파일에서 읽은 데이터가 문자열로 돌려집니다. 인코딩을 지정하지 않으면 플랫폼에
따라 달라지므로 `encoding="utf-8"` 처럼 명시하는 것이 좋습니다. 이미지 같은 데이터를 다룰 때는
모드에 `'b'` 를 덧붙여 바이너리 모드로 엽니다.

파일을 다룰 때는 `with` 문을 사용하는 것이 좋은 습관입니다. `with` 블록을 벗어나면 도중에 예외가
발생하더라도 파일이 자동으로 닫힙니다. `with` 를 사용하지 않는다면 반드시 `close()` 를 호출해서
파일을 닫아야 합니다. 닫는 것을 잊으면 데이터가 기록되지 않을 수도 있습니다.

파일의 내용을 읽으려면 `read()` 를 호출합니다. 인자를 생략하면 파일 전체를 읽어 들입니다.
`readline()` 은 한 줄씩 읽고, 파일의 끝에 도달하면 빈 문자열을 돌려줍니다. 파일 객체에 대해
루프를 돌면 각 줄을 차례로 꺼낼 수 있어서 메모리 효율이 좋고 간결합니다.

쓰기에는 `write()` 를 사용합니다. 이 메서드는 기록한 문자 수를 돌려줍니다. 문자열이 아닌 객체를
기록하려면 먼저 문자열이나 바이트열로 변환해야 합니다.
"""


def edit_similarity(a: str, b: str) -> float:
    """The project's definition, on whitespace-collapsed texts."""
    a, b = " ".join(a.split()), " ".join(b.split())
    return 1 - Levenshtein.distance(a, b) / max(len(a), len(b))


@pytest.mark.parametrize(
    ("page", "revised", "other"),
    [(JA_LISTS, JA_LISTS_REVISED, JA_FILES), (KO_LISTS, KO_LISTS_REVISED, KO_FILES)],
    ids=["japanese", "korean"],
)
def test_a_revised_page_is_a_pair_and_another_page_is_not(
    tmp_path: Path, page: str, revised: str, other: str
) -> None:
    # The texts are what the test means: long texts (not the short-text rule), a revision
    # within the definition, another page far outside it.
    assert min(len(" ".join(t.split())) for t in (page, revised, other)) >= 600
    assert 0.9 <= edit_similarity(page, revised) < 0.98
    assert edit_similarity(page, other) < 0.6
    for name, text in (("page.md", page), ("revised.md", revised), ("other.md", other)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = simdup.scan([str(tmp_path)], jobs=1)
    found = {frozenset(Path(p).name for p in (pair.a, pair.b)) for pair in result.pairs}
    assert found == {frozenset({"page.md", "revised.md"})}
    assert [sorted(Path(m.path).name for m in c.members) for c in result.clusters] == [
        ["page.md", "revised.md"]
    ]
