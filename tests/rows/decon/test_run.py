"""``simdup decon``: evaluation items found in training rows, the report and the clean output."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.algorithms.containment import ContainmentRule
from simdup.cli import cli
from simdup.errors import StoreError
from simdup.rows.decon.items import EvalIndex, EvalItem, read_items
from simdup.rows.decon.run import decontaminate
from simdup.rows.decon.store import load_evals, save_evals
from simdup.text.tokens import tokenize

EN = (
    "The committee reviewed every proposal submitted during the spring session and decided "
    "that only projects with a clear plan for public outreach would receive funding next year."
)
ZH = (
    "研究人员在高原地区连续观测了三年，发现冰川退缩的速度明显加快，这与当地气温升高的趋势基本一致。"
)
OTHER_EN = (
    "A lighthouse keeper wrote letters to distant relatives about storms, ships and the slow "
    "passing of winter evenings on the rocky island far from the mainland harbour."
)
OTHER_ZH = "这家小店每天清晨六点开门，老板亲手做的豆浆和油条吸引了附近许多上班族前来排队购买。"


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def _evals(tmp_path: Path) -> EvalIndex:
    path = _jsonl(tmp_path / "evals.jsonl", [{"id": "en", "q": EN}, {"id": "zh", "q": ZH},
                                             {"id": "tiny", "q": "yes"}])  # fmt: skip
    return EvalIndex.build(read_items([str(path)], ["q"]))


def _rewrap(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


TRAIN = [
    OTHER_EN,  # 0 clean
    EN,  # 1 verbatim
    "Intro words here. " + EN.replace(" and ", "\n and ") + " Closing words follow.",  # 2
    OTHER_ZH + _rewrap(ZH, 9) + OTHER_ZH,  # 3 embedded, re-wrapped inside words
    EN.replace("reviewed", "examined").replace("clear", "solid"),  # 4 lightly edited
    ZH.replace("三年", "两年").replace("明显", "显著"),  # 5 lightly edited Chinese
    OTHER_ZH,  # 6 clean
    EN.upper().replace("SPRING", "ＳＰＲＩＮＧ"),  # 7 case and width folded
]


@pytest.fixture
def train(tmp_path: Path) -> Path:
    return _jsonl(tmp_path / "train.jsonl", [{"id": f"r{n}", "text": t} for n, t in
                                             enumerate(TRAIN)])  # fmt: skip


def test_finds_verbatim_rewrapped_embedded_edited_in_both_languages(
    tmp_path: Path, train: Path
) -> None:
    evals = _evals(tmp_path)
    result = decontaminate([str(train)], evals, jobs=1)
    by_item = {evals.items[n].id: sorted(h.row for h in hits) for n, hits in result.hits.items()}
    assert by_item == {"en": [1, 2, 4, 7], "zh": [3, 5]}
    assert result.rows_contaminated == 6 and result.rows_read == len(TRAIN)
    assert evals.unindexed == [2]  # "yes": too short to be matched, and reported
    records = list(result.records())
    assert records[0]["type"] == "header" and records[0]["settings"]["exact"] is True
    assert records[0]["settings"]["containment"]["k"] == 8
    assert [r["type"] for r in records[1:]] == ["item", "item", "unindexed"]


def test_report_spans_are_the_item_text(tmp_path: Path, train: Path) -> None:
    """Every span's row characters are the item characters they claim, token for token."""
    evals = _evals(tmp_path)
    texts = {"en": EN, "zh": ZH}
    result = decontaminate([str(train)], evals, jobs=1)
    for n, hits in result.hits.items():
        item_text = texts[evals.items[n].id]
        for hit in hits:
            assert 0.5 <= hit.contains.coverage <= 1.0
            for s in hit.contains.spans:
                row_tokens = tokenize(TRAIN[hit.row][s.row_start : s.row_end])
                item_tokens = tokenize(item_text[s.item_start : s.item_end])
                assert np.array_equal(row_tokens.hashes, item_tokens.hashes)
            if hit.row == 1:  # verbatim: one span, the whole item, at the same place
                (span,) = hit.contains.spans
                assert (span.row_start, span.row_end) == (
                    0,
                    len(EN) - 1,
                )  # the full stop is no token
                assert (span.item_start, span.item_end) == (0, len(EN) - 1)
                assert hit.contains.coverage == 1.0


def test_clean_output_is_byte_identical_for_kept_rows(tmp_path: Path, train: Path) -> None:
    evals = _evals(tmp_path)
    raw = train.read_bytes().replace(b'"r0"', b'"r0" ').replace(b"\n", b"\n", 1)
    train.write_bytes(raw + b"not json\n")
    out = tmp_path / "clean.jsonl"
    result = decontaminate([str(train)], evals, output=str(out), jobs=1)
    lines = raw.splitlines(keepends=True)
    assert out.read_bytes() == lines[0] + lines[6]
    assert result.written == 2 and len(result.skipped) == 1


def test_annotate_keeps_every_row(tmp_path: Path, train: Path) -> None:
    evals = _evals(tmp_path)
    out = tmp_path / "annotated.jsonl"
    decontaminate([str(train)], evals, output=str(out), annotate=True, jobs=1)
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"r{n}" for n in range(len(TRAIN))]
    assert [r["contaminated"] for r in rows] == [False, True, True, True, True, True, False, True]
    assert rows[3]["contains"] == ["zh"] and rows[0]["contains"] == []


def test_csv_and_parquet_written_as_dedup_writes(tmp_path: Path) -> None:
    evals = _evals(tmp_path)
    csv_in = tmp_path / "train.csv"
    csv_in.write_bytes(b'id;text\r\n1;"' + OTHER_EN.encode() + b'"\r\n2;"' + EN.encode()
                       + b'"\r\n')  # fmt: skip
    out = tmp_path / "clean.csv"
    decontaminate([str(csv_in)], evals, output=str(out), jobs=1)
    assert out.read_bytes() == b'id;text\r\n1;"' + OTHER_EN.encode() + b'"\r\n'
    annotated = tmp_path / "annotated.csv"
    decontaminate([str(csv_in)], evals, output=str(annotated), annotate=True, jobs=1)
    lines = annotated.read_bytes().split(b"\r\n")
    assert lines[0] == b"id;text;contaminated;contains"
    assert lines[2].endswith(b";true;en")
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    table = pa.table({"text": [OTHER_ZH, ZH, OTHER_EN], "n": [1, 2, 3]})
    pq.write_table(table, tmp_path / "train.parquet")
    out_pq = tmp_path / "clean.parquet"
    decontaminate([str(tmp_path / "train.parquet")], evals, output=str(out_pq), jobs=1)
    assert pq.read_table(out_pq).column("n").to_pylist() == [1, 3]


def test_db_is_reused_and_versioned(tmp_path: Path, train: Path) -> None:
    evals = _evals(tmp_path)
    db = tmp_path / "evals.simdup"
    save_evals(str(db), evals)
    again = load_evals(str(db))
    assert [i.id for i in again.items] == [i.id for i in evals.items]
    first = decontaminate([str(train)], evals, jobs=1)
    second = decontaminate([str(train)], again, jobs=1)
    assert list(first.records())[1:] == list(second.records())[1:]
    (tmp_path / "not.db").write_text("hello")
    with pytest.raises(StoreError):
        load_evals(str(tmp_path / "not.db"))


def test_cli_exit_codes_report_and_db(tmp_path: Path, train: Path) -> None:
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "en", "q": EN}])
    runner = CliRunner()
    report, out, db = tmp_path / "r.jsonl", tmp_path / "c.jsonl", tmp_path / "e.simdup"
    args = ["decon", str(train), "--evals", str(evals), "--eval-field", "q", "-j", "1", "-q"]
    done = runner.invoke(cli, [*args, "-o", str(out), "--report", str(report), "--db", str(db)])
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert records[1]["item"] == "en" and [r["row"] for r in records[1]["rows"]] == [1, 2, 4, 7]
    done = runner.invoke(cli, ["decon", str(train), "--db", str(db), "--fail-on-contamination",
                                "-q", "-j", "1"])  # fmt: skip
    assert done.exit_code == 1
    done = runner.invoke(cli, ["decon", str(train), "-q"])
    assert done.exit_code == 2  # no items given
    clean = _jsonl(tmp_path / "clean-train.jsonl", [{"text": OTHER_EN}])
    done = runner.invoke(cli, ["decon", str(clean), "--db", str(db), "--fail-on-contamination",
                                "-q", "-j", "1"])  # fmt: skip
    assert done.exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    done = runner.invoke(cli, ["decon", str(bad), "--db", str(db), "--strict", "-q", "-j", "1"])
    assert done.exit_code == 3


def test_documents_as_items_and_workers(tmp_path: Path, train: Path) -> None:
    folder = tmp_path / "passages"
    folder.mkdir()
    (folder / "a.txt").write_text(_rewrap(ZH, 12), "utf-8")
    evals = EvalIndex.build(read_items([str(folder)]))
    assert [i.id for i in evals.items] == [str(folder / "a.txt")]
    big = _jsonl(tmp_path / "big.jsonl", [{"text": TRAIN[n % len(TRAIN)]} for n in range(3000)])
    result = decontaminate([str(big)], evals, jobs=2)
    expected = [n for n in range(3000) if n % len(TRAIN) in (3, 5)]
    assert sorted(h.row for h in result.hits[0]) == expected


WORDS = ["river", "stone", "cloud", "market", "paper", "engine", "garden", "silver", "window",
         "lantern", "harbor", "meadow", "violin", "castle", "planet", "bridge"]  # fmt: skip
HANZI = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.integers(0, 40), st.integers(0, 40))
def test_an_item_planted_anywhere_is_found(
    seed: int, chinese: bool, before: int, after: int
) -> None:
    """An item planted verbatim anywhere in a random row, with any line breaks, is contained
    with coverage 1; the rows around it do not matter."""
    rng = random.Random(seed)
    if chinese:
        item = "".join(rng.choice(HANZI) for _ in range(rng.randint(8, 60)))
        pad = "".join(rng.choice(HANZI) for _ in range(before + after))
        sep = ""
    else:
        item = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        pad = " ".join(rng.choice(WORDS) for _ in range(before + after))
        sep = " "
    wrapped = "".join(ch if ch != " " or rng.random() > 0.2 else "\n" for ch in item)
    row = pad[: len(pad) // 2] + sep + wrapped + sep + pad[len(pad) // 2 :]
    evals = EvalIndex(ContainmentRule())
    evals.add(EvalItem("x", "-", None, None, None, item))
    found = evals.index.contained(tokenize(row).hashes)
    assert [c.item for c in found] == [0]
    assert found[0].coverage == 1.0


def test_same_report_and_output_with_and_without_the_extension(tmp_path: Path) -> None:
    """The native passes (JSON text fields, tokens, the k-gram probe and lookup) give the report
    and output of the pure-Python run, byte for byte, on plain lines and on lines left to
    Python's json (escapes, a surrogate escape, NaN, ids of every kind, rows that are no
    documents)."""
    ascii_en = json.dumps({"id": 7, "text": "Before. " + EN}).encode()  # \\u escapes: ASCII
    lines = [
        *(json.dumps({"id": f"r{n}", "text": t}, ensure_ascii=False).encode() for n, t in
          enumerate(TRAIN)),
        ascii_en,
        b'{"text": "' + EN.encode() + b' \\ud800", "id": null}',  # a lone surrogate: skipped
        b'{"id": {"a": [1, 2.5]}, "meta": NaN, "text": "' + ZH.encode() + b'"}',
        b'{"text": "' + ZH.encode() + b'", "text": "' + OTHER_ZH.encode() + b'"}',  # the last
        b'{"id": "x"}', b"[1, 2]", b"not json", b'{"text": 5}', b'  {"text": "' + EN.encode()
        + b'"}  ', b"\xff\xfe", b'{"id": true, "text": "' + _rewrap(ZH, 7).encode()
        .replace(b"\n", b"\\n") + b'"}\r',
    ]  # fmt: skip
    train = tmp_path / "train.jsonl"
    train.write_bytes(b"\n".join(lines) + b"\n")
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "en", "q": EN}, {"id": "zh", "q": ZH}])
    outputs = {}
    for pure in ("0", "1"):
        report, out = tmp_path / f"report{pure}.jsonl", tmp_path / f"clean{pure}.jsonl"
        args = ["decon", str(train), "--evals", str(evals), "--eval-field", "q", "-o", str(out),
                "--report", str(report), "-q", "-j", "1"]  # fmt: skip
        code = "import sys; from simdup.cli import cli; cli(sys.argv[1:])"
        env = {**os.environ, "SIMDUP_PURE_PYTHON": pure}
        subprocess.run([sys.executable, "-c", code, *args], env=env, check=True)
        records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
        records[0]["summary"].pop("seconds")
        outputs[pure] = (records, out.read_bytes())
    assert outputs["0"] == outputs["1"]
    records, _ = outputs["0"]
    found = {r["item"]: [row["row"] for row in r["rows"]] for r in records if r["type"] == "item"}
    assert found == {"en": [1, 2, 4, 7, 8, 16], "zh": [3, 5, 10, 18]}
    assert records[0]["summary"]["rows_skipped"] == 6


COUNTRIES = ["France", "Spain", "Italy", "Germany", "Poland", "Norway", "Sweden", "Finland",
             "Greece", "Portugal", "Austria", "Hungary", "Ireland", "Belgium", "Denmark",
             "Croatia", "Romania", "Bulgaria", "Latvia", "Estonia"]  # fmt: skip
TEMPLATE = ("Question: read the passage carefully and answer. What is the capital city of {}, "
            "and which river or coast is it known for? Give the name of the city first, then "
            "one sentence about the river or coast.")  # fmt: skip


def test_templated_items_do_not_credit_each_other(tmp_path: Path) -> None:
    """Issue 47: 20 items share a template and differ in one word; 8 are planted in training
    rows (one lightly edited outside its distinctive word, one planted twice). Each planted
    item is reported leaked once, for its own rows, not for its 19 siblings' (190 items were
    "found" for 160 planted rows); a row holding only the template (a country not asked
    about) is contaminated by the rule but credits no item; an item listed twice in the
    evaluation set is leaked twice."""
    items = [{"id": f"q{n}", "q": TEMPLATE.format(c)} for n, c in enumerate(COUNTRIES)]
    items.append({"id": "q0-again", "q": items[0]["q"]})  # a duplicate item
    evals = _jsonl(tmp_path / "evals.jsonl", items)
    planted = [0, 3, 5, 7, 11, 13, 17, 19]
    rows = [{"id": f"clean{n}", "text": f"{OTHER_EN} Row {n}."} for n in range(6)]
    rows += [{"id": f"p{n}", "text": f"{OTHER_EN} {items[n]['q']} {OTHER_EN}"} for n in planted]
    rows.append({"id": "p3-again", "text": items[3]["q"]})
    rows.append({"id": "p5-edited", "text": items[5]["q"].replace("carefully", "slowly")})
    rows.append({"id": "japan", "text": f"{OTHER_EN} {TEMPLATE.format('Japan')}"})
    train = _jsonl(tmp_path / "train.jsonl", rows)
    report = tmp_path / "report.jsonl"
    done = CliRunner().invoke(cli, ["decon", str(train), "--evals", str(evals), "--eval-field",
                                    "q", "-j", "1", "--report", str(report)])  # fmt: skip
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    summary = records[0]["summary"]
    found = {r["item"]: [row["key"] for row in r["rows"]] for r in records[1:]
             if r["type"] == "item"}  # fmt: skip
    assert found == {
        "q0": ["p0"], "q0-again": ["p0"], "q3": ["p3", "p3-again"], "q5": ["p5", "p5-edited"],
        "q7": ["p7"], "q11": ["p11"], "q13": ["p13"], "q17": ["p17"], "q19": ["p19"],
    }  # fmt: skip
    assert summary["items_found"] == len(planted) + 1  # the duplicate item, leaked too
    assert summary["rows_contaminated"] == len(planted) + 3 and summary["rows_template_only"] == 1
    assert "9 found in training rows" in done.stderr
    assert "11 contaminated (1 holding only text their items share)" in done.stderr


def test_an_unreadable_training_row_is_keyed_by_its_id(tmp_path: Path) -> None:
    """Issue 47: a training row that is no document is reported keyed by its readable id,
    with its file, row and line."""
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "en", "q": EN}])
    train = tmp_path / "train.jsonl"
    train.write_text("\n".join([json.dumps({"id": "r0", "text": EN}),
                                json.dumps({"id": "r1", "text": 7}), "not json"]) + "\n",
                     "utf-8")  # fmt: skip
    report = tmp_path / "r.jsonl"
    done = CliRunner().invoke(cli, ["decon", str(train), "--evals", str(evals), "--eval-field",
                                    "q", "-j", "1", "--report", str(report)])  # fmt: skip
    assert done.exit_code == 0, done.output
    skipped = [json.loads(line) for line in report.read_text("utf-8").splitlines()
               if '"skipped"' in line]  # fmt: skip
    assert [(s["path"], s["file"], s["row"], s["line"]) for s in skipped] == [
        ("r1", str(train), 1, 2), (f"{train}#2", str(train), 2, 3)
    ]  # fmt: skip


# -- markup (issue 50): rows and items are read as written unless --markup names their markup --

GENERIC_ITEM = "const child = ref<ComponentPublicInstance | null>(null)"
GENERIC_ROW = "In the setup function: const child = ref(null) and nothing more."
LINK_ITEM = "[组件文档](https://vue-loader.vuejs.org/zh/)"
LINK_ROW = "见 [组件文档](https://github.com/vuejs/core/blob/main/README.md)。"


@pytest.mark.parametrize(
    ("markup", "found"),
    [(None, []), ("none", []), ("markdown", ["generic", "link"]), ("html", ["generic"])],
)
def test_markup_is_left_out_only_when_named(
    tmp_path: Path, markup: str | None, found: list[str]
) -> None:
    """A generic in angle brackets and a link target are tokens of items and rows unless
    ``--markup`` says they are markup; the spans reported are still offsets in the row."""
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "generic", "text": GENERIC_ITEM},
                                              {"id": "link", "text": LINK_ITEM}])  # fmt: skip
    train = _jsonl(tmp_path / "train.jsonl", [{"id": "g", "text": GENERIC_ROW},
                                              {"id": "l", "text": LINK_ROW}])  # fmt: skip
    report = tmp_path / "report.jsonl"
    args = ["decon", str(train), "--evals", str(evals), "--report", str(report), "-j", "1", "-q"]
    done = CliRunner().invoke(cli, [*args, *(["--markup", markup] if markup else [])])
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert records[0]["settings"]["markup"] == (markup or "none")
    items = {r["item"]: r for r in records if r["type"] == "item"}
    assert sorted(items) == found
    if "link" in items:
        (span,) = items["link"]["rows"][0]["spans"]
        assert LINK_ROW[span["row_start"] : span["row_end"]] == "组件文档"


def test_a_db_is_used_with_the_markup_its_items_were_read_with(tmp_path: Path) -> None:
    """Stored items say how they were read; rows read otherwise are refused, not mixed. A
    database made before the setting was stored holds items read as written."""
    items = [EvalItem("link", "evals", 0, 1, "text", LINK_ITEM)]
    db = tmp_path / "evals.simdup"
    save_evals(str(db), EvalIndex.build(items, markup="markdown"))
    assert load_evals(str(db), markup="markdown").markup == "markdown"
    with pytest.raises(StoreError, match="read with --markup markdown .here --markup none."):
        load_evals(str(db))
    train = _jsonl(tmp_path / "train.jsonl", [{"text": LINK_ROW}])
    refused = CliRunner().invoke(cli, ["decon", str(train), "--db", str(db), "-q"])
    assert refused.exit_code == 4 and "use --markup markdown" in refused.stderr
    save_evals(str(db), EvalIndex.build(items))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'markup'")
    assert len(load_evals(str(db))) == 1
    with pytest.raises(StoreError):
        load_evals(str(db), markup="html")


def test_lightly_edited_short_items_are_found_and_same_topic_rows_are_not(
    tmp_path: Path,
) -> None:
    """Issue 50: a short item with a few characters changed keeps too few k-grams of 8 tokens;
    it is found by edit similarity, and a row on the same subject in other words is not."""
    zh = "具体包含哪些属性，标准没有规定，由各个运行环境自行决定。"
    zh_edited = "具体包括哪些属性，标准并没有规定，由各个运行平台自行决定。"  # 4 edits of 24
    en = "The expressions are evaluated from left to right."
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "zh", "text": zh}, {"id": "en", "text": en}])
    train = _jsonl(tmp_path / "train.jsonl", [
        {"id": "zh-edited", "text": OTHER_ZH + zh_edited},
        {"id": "en-edited", "text": OTHER_EN + " The expresions are evaluated from left to right."},
        {"id": "zh-topic", "text": "具体包含哪些方法，规范同样没有说明，交给浏览器自行实现。"},
        {"id": "en-topic", "text": "The arguments of a call are evaluated from left to right."},
    ])  # fmt: skip
    report = tmp_path / "r.jsonl"
    args = ["decon", str(train), "--evals", str(evals), "-j", "1", "-q", "--report", str(report)]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert records[0]["settings"]["containment"]["min_edit_similarity"] == 0.8
    found = {r["item"]: [row["key"] for row in r["rows"]] for r in records[1:]
             if r["type"] == "item"}  # fmt: skip
    assert found == {"zh": ["zh-edited"], "en": ["en-edited"]}
    (en_row,) = next(r for r in records if r.get("item") == "en")["rows"]
    assert en_row["coverage"] == 0.875  # 8 tokens, 1 of them edited
    (span,) = en_row["spans"]  # the stretch of the row, and the whole item
    row_text = OTHER_EN + " The expresions are evaluated from left to right."
    assert row_text[span["row_start"] : span["row_end"]] == (
        "The expresions are evaluated from left to right"
    )
    assert en[span["item_start"] : span["item_end"]] == en[:-1]
    # Without the edit rule (the k-gram rule alone, as before) neither is found.
    report.unlink()
    done = CliRunner().invoke(cli, [*args, "--max-edit-tokens", "0"])
    assert done.exit_code == 0, done.output
    assert [json.loads(line)["type"] for line in report.read_text("utf-8").splitlines()] == [
        "header"
    ]


def test_an_english_sentence_with_typos_is_found_by_its_letters(tmp_path: Path) -> None:
    """Issue 50: three words of an 8-word sentence mistyped (one of them two letters swapped)
    leave it 5/8 alike by tokens; its letters are 0.94 alike. Found by the letter rule, from a
    database of the items too, its span the row's mistyped words; not with the rule off, nor
    a sentence on the same subject."""
    en = "The expressions are evaluated from left to right."
    typed = "The expresions are evaluted form left to right"
    evals = _jsonl(tmp_path / "evals.jsonl", [{"id": "en", "text": en}])
    train = _jsonl(tmp_path / "train.jsonl", [
        {"id": "typos", "text": f"{OTHER_EN} {typed}, as usual."},
        {"id": "topic", "text": "The arguments of a call are evaluated from left to right."},
        {"id": "clean", "text": OTHER_EN},
    ])  # fmt: skip
    report, db = tmp_path / "r.jsonl", tmp_path / "evals.simdup"
    args = ["decon", str(train), "-j", "1", "-q", "--report", str(report)]
    for source in (["--evals", str(evals), "--db", str(db)], ["--db", str(db)]):
        done = CliRunner().invoke(cli, [*args, *source])
        assert done.exit_code == 0, done.output
        records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
        rule = records[0]["settings"]["containment"]
        assert (rule["min_letter_similarity"], rule["max_letter_edits"]) == (0.9, 6)
        (item,) = [r for r in records if r["type"] == "item"]
        (row,) = item["rows"]
        assert row["key"] == "typos"
        (span,) = row["spans"]
        assert f"{OTHER_EN} {typed}, as usual."[span["row_start"] : span["row_end"]] == typed
    report.unlink()
    done = CliRunner().invoke(cli, [*args, "--db", str(db), "--max-letter-edits", "0"])
    assert done.exit_code == 0, done.output
    assert [json.loads(line)["type"] for line in report.read_text("utf-8").splitlines()] == [
        "header"
    ]
