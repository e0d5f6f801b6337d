"""``simdup dedup --spans``: repeated paragraphs, lines and sentence runs removed from every row
but the first, at unit boundaries, each removal recorded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from simdup.cli import cli
from simdup.readers import chunking
from simdup.rows.spans import dedup_spans
from simdup.rows.spans.run import first_occurrences, twins
from simdup.rows.spans.units import (
    text_spans,
    unit_bounds,
)

LICENCE = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this "
    "software, to deal in the software without restriction."
)
ZH_BLOCK = "本网站所有内容均受版权保护，未经书面许可，任何单位和个人不得转载、摘编或以其他方式使用。"  # noqa: E501
PARAS = [
    "The committee reviewed every proposal submitted during the spring session and decided "
    "that only projects with a clear plan would receive funding.",
    "A lighthouse keeper wrote letters to distant relatives about storms, ships and the slow "
    "passing of winter evenings on the island.",
    "研究人员在高原地区连续观测了三年，发现冰川退缩的速度明显加快，这与当地气温升高的趋势基本一致。",
    "这家小店每天清晨六点开门，老板亲手做的豆浆和油条吸引了附近许多上班族前来排队购买。",
    "Rivers carry sediment from the mountains to the sea, building wide deltas where farmers "
    "grow rice on the fertile ground.",
    "The orchestra rehearsed the symphony for six weeks before the premiere, and the conductor "
    "changed the tempo of the second movement twice.",
]


def _jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text(
        "".join(json.dumps({"id": f"r{n}", "text": t}, ensure_ascii=False) + "\n"
                for n, t in enumerate(texts)),
        "utf-8",
    )  # fmt: skip
    return path


def _texts(path: Path) -> dict[str, str]:
    return {
        r["id"]: r["text"]
        for r in (json.loads(line) for line in path.read_text("utf-8").splitlines())
    }


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["dedup", *args])
    return result.exit_code, result.output


def test_a_paragraph_in_three_rows_is_kept_in_the_first_only(tmp_path: Path) -> None:
    texts = [
        f"{PARAS[0]}\n\n{LICENCE}\n\n{PARAS[1]}",
        f"{PARAS[4]}\n\n{LICENCE}",
        f"{LICENCE}\n\n{PARAS[5]}",
        PARAS[2],
    ]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    out, removed = tmp_path / "out.jsonl", tmp_path / "removed.jsonl"
    code, _ = _run(str(source), "-o", str(out), "--spans", "paragraph", "--removed", str(removed),
                   "-j", "1")  # fmt: skip
    assert code == 0
    got = _texts(out)
    assert got == {"r0": texts[0], "r1": PARAS[4], "r2": PARAS[5], "r3": PARAS[2]}
    records = _records(removed)
    assert [(r["key"], r["row"]) for r in records] == [("r1", 1), ("r2", 2)]
    for r in records:
        original = texts[int(str(r["row"]))]
        start, end = int(str(r["start"])), int(str(r["end"]))
        # The offsets are the characters cut: the original without them is the output.
        assert original[:start] + original[end:] == got[str(r["key"])]
        assert original[int(str(r["span_start"])) : int(str(r["span_end"]))] == LICENCE
        assert r["text"] == LICENCE
        kept = r["kept"]
        assert isinstance(kept, dict)
        assert (kept["key"], kept["row"]) == ("r0", 0)
        assert texts[0][kept["span_start"] : kept["span_end"]] == LICENCE


def test_rewrapped_recased_and_full_width_copies_count(tmp_path: Path) -> None:
    rewrapped = LICENCE.replace(", ", ",\n").upper()
    wide = ZH_BLOCK.replace("，", ",").replace("。", ".")
    texts = [f"{PARAS[0]}\n\n{LICENCE}\n\n{ZH_BLOCK}", f"{rewrapped}\n\n{PARAS[1]}\n\n{wide}"]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    result = dedup_spans([str(source)], str(tmp_path / "o.jsonl"), jobs=1, min_chars=30)
    assert result.spans_removed == 2
    assert _texts(tmp_path / "o.jsonl")["r1"] == PARAS[1]


def test_cuts_fall_on_boundaries_never_inside_words_or_characters(tmp_path: Path) -> None:
    # The repeated Chinese sentence run sits inside different paragraphs: substring mode cuts
    # whole sentences only; the neighbouring sentences stay whole.
    zh_run = "第一句话讲的是天气变化对农业生产的影响很大。第二句话讲的是农民如何应对持续的干旱天气。"  # noqa: E501
    texts = [
        "开头的句子在这里出现。" + zh_run + "结尾的句子也在这里。",
        "另一个开头完全不同的句子。" + zh_run + "另一个结尾。",
        "Some words before. " + LICENCE + " Some words after.",
        "Other words before! " + LICENCE + "\n\nA new paragraph after.",
    ]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    dedup_spans([str(source)], str(tmp_path / "o.jsonl"), unit="substring", min_chars=20, jobs=1)
    got = _texts(tmp_path / "o.jsonl")
    assert got["r0"] == texts[0]
    assert got["r1"] == "另一个开头完全不同的句子。另一个结尾。"
    assert got["r3"] == "Other words before!\n\nA new paragraph after."
    # Every unit of an output text is a unit of its input, whole.
    for key, text in got.items():
        original = texts[int(key[1:])]
        before = {original[a:b] for a, b in zip(*unit_bounds(original, "substring"),
                                                 strict=True)}  # fmt: skip
        after = {text[a:b] for a, b in zip(*unit_bounds(text, "substring"), strict=True)}
        assert after <= before


def test_short_spans_are_never_removed_alone(tmp_path: Path) -> None:
    texts = [f"Home\n\n{PARAS[0]}", f"Home\n\n{PARAS[1]}", f"Home\n\n{PARAS[4]}"]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    result = dedup_spans([str(source)], str(tmp_path / "o.jsonl"), jobs=1)
    assert result.spans_removed == 0
    assert (tmp_path / "o.jsonl").read_bytes() == source.read_bytes()
    result = dedup_spans([str(source)], str(tmp_path / "o.jsonl"), jobs=1, min_chars=4)
    assert result.spans_removed == 2
    assert _texts(tmp_path / "o.jsonl")["r2"] == PARAS[4]


def test_a_run_of_short_lines_counts_together(tmp_path: Path) -> None:
    nav = "Home\nProducts\nServices\nAbout us\nContact\nPrivacy policy\nTerms of use"
    texts = [f"{nav}\n{PARAS[0]}", f"{nav}\n{PARAS[1]}", f"Home\nContact\n{PARAS[4]}"]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    dedup_spans([str(source)], str(tmp_path / "o.jsonl"), unit="line", min_chars=40, jobs=1)
    got = _texts(tmp_path / "o.jsonl")
    assert got == {"r0": texts[0], "r1": PARAS[1], "r2": texts[2]}  # "Home\nContact": too short


def test_a_short_unit_next_to_a_repeated_paragraph_stays(tmp_path: Path) -> None:
    texts = [f"{PARAS[0]}\n\n{LICENCE}\n\nRead more", f"{PARAS[1]}\n\n{LICENCE}\n\nRead more"]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    dedup_spans([str(source)], str(tmp_path / "o.jsonl"), jobs=1)
    assert _texts(tmp_path / "o.jsonl")["r1"] == f"{PARAS[1]}\n\nRead more"


def test_a_repeat_inside_one_row_keeps_the_first(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "in.jsonl", [f"{LICENCE}\n\n{PARAS[0]}\n\n{LICENCE}"])
    dedup_spans([str(source)], str(tmp_path / "o.jsonl"), jobs=1)
    assert _texts(tmp_path / "o.jsonl")["r0"] == f"{LICENCE}\n\n{PARAS[0]}"


def test_unchanged_rows_are_byte_identical(tmp_path: Path) -> None:
    lines = [
        '{"text":"' + LICENCE + '\\n\\n' + PARAS[0] + '" ,  "id":"r0","x":[1, 2]}',
        '{ "id" : "r1", "text" : "\\u6211 ' + PARAS[1] + '" }',
        '{"id":"r2","text":"' + LICENCE + '\\n\\n' + PARAS[4] + '", "keep": "this"}',
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "o.jsonl"
    dedup_spans([str(source)], str(out), jobs=1)
    written = out.read_text("utf-8").splitlines()
    assert written[:2] == lines[:2]
    assert json.loads(written[2]) == {"id": "r2", "text": PARAS[4], "keep": "this"}


def test_same_output_whatever_the_number_of_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chunking, "CHUNK_ROWS", 7)  # many chunks, out of order in the pool
    texts = []
    for n in range(120):
        parts = [PARAS[n % len(PARAS)], f"Row {n} says something of its own, long enough to be "
                 f"a span of its own number {n * 7919}."]  # fmt: skip
        if n % 3 == 0:
            parts.append(LICENCE)
        if n % 5 == 0:
            parts.insert(0, ZH_BLOCK)
        texts.append("\n\n".join(parts))
    source = _jsonl(tmp_path / "in.jsonl", texts)
    outputs = []
    for jobs in ("1", "2"):
        out, removed = tmp_path / f"o{jobs}.jsonl", tmp_path / f"r{jobs}.jsonl"
        code, _ = _run(str(source), "-o", str(out), "--spans", "paragraph", "--removed",
                       str(removed), "-j", jobs, "-q")  # fmt: skip
        assert code == 0
        outputs.append((out.read_bytes(), removed.read_bytes()))
    assert outputs[0] == outputs[1]
    got = _texts(tmp_path / "o1.jsonl")
    # Each planted paragraph survives exactly once, in the first row that had it.
    for planted in [*PARAS, LICENCE, ZH_BLOCK]:
        holders = [k for k, t in got.items() if planted in t]
        first = next(f"r{n}" for n, t in enumerate(texts) if planted in t)
        assert holders == [first]


def test_emptied_rows_are_removed_and_recorded_or_annotated(tmp_path: Path) -> None:
    texts = [f"{PARAS[0]}\n\n{LICENCE}", f"{LICENCE}\n\n{PARAS[0]}", PARAS[1]]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    out, removed = tmp_path / "o.jsonl", tmp_path / "removed.jsonl"
    result = dedup_spans([str(source)], str(out), removed=str(removed), jobs=1)
    assert result.rows_emptied == 1 and result.written == 2
    assert list(_texts(out)) == ["r0", "r2"]
    # Two spans (their kept twins are not in order: two records), then the row emptied.
    assert [r.get("emptied") for r in _records(removed)] == [None, None, True]
    result = dedup_spans([str(source)], str(out), annotate=True, jobs=1)
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["text"] for r in rows] == texts
    assert rows[0]["repeated_spans"] == [] and rows[2]["repeated_spans"] == []
    assert rows[1]["repeated_spans"] == [f"0:{len(texts[1])}"]


def test_csv_and_parquet(tmp_path: Path) -> None:
    texts = [f"{PARAS[0]}\n\n{LICENCE}", f"{PARAS[1]}\n\n{LICENCE}", PARAS[4]]
    source = tmp_path / "in.csv"
    with source.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "text", "score"])
        for n, t in enumerate(texts):
            writer.writerow([f"r{n}", t, n])
    out = tmp_path / "o.csv"
    dedup_spans([str(source)], str(out), jobs=1)
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows == [["id", "text", "score"], ["r0", texts[0], "0"], ["r1", PARAS[1], "1"],
                    ["r2", PARAS[4], "2"]]  # fmt: skip
    assert out.read_text("utf-8").splitlines()[0] == source.read_text("utf-8").splitlines()[0]
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"id": ["r0", "r1", "r2"], "text": texts, "n": [0, 1, 2]})
    pq.write_table(table, tmp_path / "in.parquet")
    dedup_spans([str(tmp_path / "in.parquet")], str(tmp_path / "o.parquet"), jobs=1)
    got = pq.read_table(tmp_path / "o.parquet")
    assert got.column("text").to_pylist() == [texts[0], PARAS[1], PARAS[4]]
    assert got.schema.equals(table.schema, check_metadata=False)


def test_row_options_are_refused_with_spans(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "in.jsonl", [PARAS[0]])
    out = str(tmp_path / "o.jsonl")
    assert _run(str(source), "-o", out, "--spans", "line", "--keep", "longest")[0] == 2
    assert _run(str(source), "-o", out, "--min-span-chars", "10")[0] == 2
    code, output = _run(str(source), "-o", out, "--spans", "line")
    assert code == 0 and "0 repeated line spans removed" in output


def test_a_repeated_run_is_removed_to_its_last_unit(tmp_path: Path) -> None:
    # Units of 30, 30 and 5 characters repeat together: the short last one goes too.
    a = "alpha " * 5
    b = "bravo " * 5
    c = "cat."
    texts = [f"{a}\n{b}\n{c}\nfirst row's own long line, unique and long enough",
             f"second row's own long line, unique and long enough\n{a}\n{b}\n{c}"]  # fmt: skip
    source = _jsonl(tmp_path / "in.jsonl", texts)
    dedup_spans([str(source)], str(tmp_path / "o.jsonl"), unit="line", jobs=1)
    got = _texts(tmp_path / "o.jsonl")["r1"]
    assert got == "second row's own long line, unique and long enough"


def test_first_occurrences_and_twins() -> None:
    import numpy as np

    hashes = np.array([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]], dtype=np.uint64)
    assert first_occurrences(hashes).tolist() == [0, 1, 0, 3, 1]
    first = np.array([0, 1, 3, 4, 5])
    last = np.array([0, 2, 3, 4, 6])
    assert twins(first, last, hashes, 7).tolist() == [-1, -1, -1, 0, -1, 1, 2]


def test_span_length_counts_a_cjk_character_three() -> None:
    short_zh = "版权所有，转载必究"  # 8 characters: 24
    texts = [f"{PARAS[0]}\n\n{short_zh}", f"{PARAS[1]}\n\n{short_zh}"]
    assert len(text_spans(texts[0], "paragraph", 24).first) == 2
    assert len(text_spans(texts[0], "paragraph", 25).first) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, len(PARAS) - 1), min_size=1, max_size=5), min_size=1,
                max_size=8))  # fmt: skip
def test_every_paragraph_survives_once_where_it_first_occurs(
    tmp_path_factory: pytest.TempPathFactory, picks: list[list[int]]
) -> None:
    folder = tmp_path_factory.mktemp("spans")
    texts = ["\n\n".join(PARAS[k] for k in row) for row in picks]
    source = _jsonl(folder / "in.jsonl", texts)
    dedup_spans([str(source)], str(folder / "o.jsonl"), jobs=1)
    got = _texts(folder / "o.jsonl")
    seen: set[int] = set()
    for n, row in enumerate(picks):
        expected = []
        for k in row:
            if k not in seen:
                expected.append(PARAS[k])
                seen.add(k)
        if expected:
            assert got[f"r{n}"] == "\n\n".join(expected)
        else:
            assert f"r{n}" not in got


def test_an_unreadable_row_is_keyed_by_its_id_with_its_line(tmp_path: Path) -> None:
    """Issue 47: in --removed, a row that is no document is keyed by its readable id, as in
    dedup, and gives the line its reason names."""
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join([json.dumps({"id": "a", "text": LICENCE}), "",
                               json.dumps({"id": "b", "text": None}), "{cut"]) + "\n",
                    "utf-8")  # fmt: skip
    removed = tmp_path / "removed.jsonl"
    code, output = _run(str(data), "-o", str(tmp_path / "o.jsonl"), "--spans", "paragraph",
                        "--removed", str(removed), "--id-field", "id")  # fmt: skip
    assert code == 0, output
    got = [(r["key"], r["row"], r["line"]) for r in _records(removed) if r.get("unreadable")]
    assert got == [("b", 1, 3), (f"{data}#2", 2, 4)]
    assert "d.jsonl#1 (id b): text field 'text' is null" in output


# A paragraph of each issue-50 example: the same words, a generic or a link target apart.
GENERIC_PARAS = [
    "In the setup function we write const child = ref(null) and read it after mount.",
    "In the setup function we write const child = ref<ComponentPublicInstance | null>(null) "
    "and read it after mount.",
]
LINK_PARAS = [
    "Read [the loader guide](https://github.com/vuejs/core/blob/main/README.md) before you "
    "configure single file components.",
    "Read [the loader guide](https://vue-loader.vuejs.org/zh/) before you configure single "
    "file components.",
]


@pytest.mark.parametrize(
    ("markup", "cut"),
    [(None, set()), ("markdown", {"r1", "r3"}), ("html", {"r1"})],
)
def test_units_are_compared_as_written_unless_markup_is_named(
    tmp_path: Path, markup: str | None, cut: set[str]
) -> None:
    """A paragraph that differs from an earlier one only in a generic or a link target is not
    a repeat, unless ``--markup`` says the rows hold that markup; then the whole paragraph, its
    markup included, is cut."""
    texts = [f"{PARAS[n]}\n\n{p}" for n, p in enumerate([*GENERIC_PARAS, *LINK_PARAS])]
    source = _jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / "out.jsonl"
    extra = ["--markup", markup] if markup else []
    code, output = _run(str(source), "-o", str(out), "--spans", "paragraph", "-j", "1", *extra)
    assert code == 0, output
    got = _texts(out)
    assert {key for key, text in got.items() if text != texts[int(key[1:])]} == cut
    for key in cut:
        assert got[key] == PARAS[int(key[1:])]
    summary = dedup_spans([str(source)], str(out), markup=markup or "none", jobs=1).summary()
    assert summary["markup"] == (markup or "none")
