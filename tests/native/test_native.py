"""The C accelerator (simdup.native._speedups) against its pure-Python definitions.

Every native function must return exactly what its Python twin returns. The twins are named in
one place, ``simdup.native.TWINS``: the first tests here check that it names every native
function and that each twin imports, and the equivalence tests below take their twins from it.
The whole suite can also be run on the Python versions alone: ``SIMDUP_PURE_PYTHON=1 make test``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simdup import native
from simdup.algorithms.minhash import signature, signature_bytes, signature_python
from simdup.algorithms.simhash import scaled_weights, simhash_of_weights_python
from simdup.algorithms.sketch import (
    bottom_k,
    bottom_k_bytes,
    estimate_jaccard,
    sketch_jaccard,
    sketch_jaccard_pairs,
)
from simdup.readers.markdown_lines import markdown_lines_python
from simdup.readers.rows import RowOptions, parse_jsonl_line
from simdup.text import textscan
from simdup.text.features import (
    _LOG_TF,
    _WEIGHTING_CODES,
    weighted_terms,
    weighted_terms_python,
)
from simdup.text.normalize import DEFAULT_IGNORABLE, INERT_LETTERS, letter_table
from simdup.text.segmentation import get_segmenter
from simdup.text.textscan import (
    RUN_SEPARATOR,
    UnitMemo,
    memo_handle,
    scan,
    units,
)

# The Python twins, from the one registry of them.
count_controls_python = native.twin("count_controls")
markup_word_hashes_python = native.twin("markup_word_hashes")
markup_marks_python = native.twin("markup_marks")
strip_ignorables_python = native.twin("strip_ignorables")
word_runs_python = native.twin("word_runs")
folded_word_runs_python = native.twin("folded_word_runs")
bigram_hashes_python = native.twin("bigram_hashes")
bigram_features_python = native.twin("bigram_features")
strip_link_targets_python = native.twin("strip_link_targets")
strip_urls_python = native.twin("strip_urls")
document_parts_python = native.twin("document_parts")
simhash_python = native.twin("simhash")
collapse_python = native.twin("collapse")
digest_python = native.twin("digest")

PURE = os.environ.get("SIMDUP_PURE_PYTHON", "") not in ("", "0")


def comparison_form_long_way(text: str) -> str:
    """The comparison form by its definition: NFKC and case folding until they hold, then the
    runs of letters and digits."""
    form = word_runs_python(text.casefold())
    while not unicodedata.is_normalized("NFKC", form) or form.casefold() != form:
        form = word_runs_python(unicodedata.normalize("NFKC", form).casefold())
    return form

# `make fuzz` raises this (SIMDUP_FUZZ_EXAMPLES) for the C code's sake.
EXAMPLES = int(os.environ.get("SIMDUP_FUZZ_EXAMPLES", "150"))
many = settings(max_examples=EXAMPLES, deadline=None)
BACKENDS = [b for b in ("jieba", "rjieba") if b == "jieba" or importlib.util.find_spec(b)]
needs_native = pytest.mark.skipif(PURE, reason="SIMDUP_PURE_PYTHON is set")

_ALPHABET = st.sampled_from(
    list("中文分词测试数据图书馆读者我们的了是和")
    + list("abcXYZ019éßＡＢ½\ufb01\uf90a")
    + list(" \n\n\t\r\u3000,.;:!?，。！？、（）_-")
)
texts = st.text(alphabet=_ALPHABET, max_size=120)


def test_native_extension_is_built() -> None:
    """The accelerator was built (CI has a C compiler), unless the Python path is asked for."""
    assert native.NATIVE is not PURE
    assert (textscan.digest is digest_python) is PURE


def test_pure_python_switch() -> None:
    """SIMDUP_PURE_PYTHON=1 makes simdup use the Python versions."""
    code = (
        "import simdup.native as n, simdup.text.textscan as t; "
        "print(n.NATIVE, t.digest.__module__)"
    )
    env = {**os.environ, "SIMDUP_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "simdup.text.textscan"]


def _stub_names() -> set[str]:
    """The functions the extension declares (its ``.pyi``: there even when it is not built)."""
    import ast
    from pathlib import Path

    stub = Path(native.__file__).with_name("_speedups.pyi")
    tree = ast.parse(stub.read_text("utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_native_function_has_a_registered_twin() -> None:
    """TWINS names exactly the extension's functions: those of its stub, and (where it is
    built) those it exports; a function added in C without a twin fails here."""
    assert set(native.TWINS) == _stub_names()
    if native.speedups is not None:
        exported = {name for name in dir(native.speedups) if not name.startswith("_")}
        assert exported == set(native.TWINS)


@pytest.mark.parametrize("name", sorted(native.TWINS))
def test_each_twin_imports(name: str) -> None:
    """Each twin is a callable Python definition (not the native function itself)."""
    found = native.twin(name)
    assert callable(found)
    assert getattr(found, "__module__", "").startswith("simdup.")
    if native.speedups is not None:
        assert found is not getattr(native.speedups, name)


@needs_native
@many
@given(st.text(max_size=200))
def test_collapse_matches_python(text: str) -> None:
    assert textscan.collapse(text) == collapse_python(text) == " ".join(text.split())


Result = tuple[bytes, bytes, dict[int, int], int, int]
BIG = 1 << 30  # max_unit: every unit is remembered


class Codes:
    """A codes dict and its register callback, as a Vocabulary keeps them (stopword: -1)."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {RUN_SEPARATOR: -1, "的": -1, "the": -1}
        self.terms: list[str] = []

    def register(self, surface: str) -> int:
        code = self.codes[surface] = len(self.terms)
        self.terms.append(surface)
        return code

    def counts(self, result: Result) -> Counter[str]:
        slots, tf, other, _, _ = result
        out: Counter[str] = Counter()
        for slot, n in zip(array("q", slots), array("d", tf), strict=True):
            out[self.terms[slot]] += int(n)
        for code, n in other.items():
            out[self.terms[code]] += n
        return out


def run(
    fn: Callable[..., Result], docs: list[str], backend: str, max_unit: int = BIG,
    memo: Any = None,
) -> tuple[list[tuple[Counter[str], int, int]], Any, Codes]:  # fmt: skip
    """Each document through ``fn`` with one memo (a dict unless given) and one vocabulary, as
    a worker does: (term counts, tokens, characters stored in the memo) per document."""
    cut = get_segmenter(backend).cut
    state = Codes()
    memo = {} if memo is None else memo
    handle = memo_handle(memo)
    out = []
    for doc in docs:
        result = fn(doc, handle, state.codes, state.register, cut, len(state.terms) // 2,
                    max_unit)  # fmt: skip
        out.append((state.counts(result), result[3], result[4]))
    return out, memo, state


def expected(text: str, backend: str) -> tuple[Counter[str], int]:
    """Term counts straight from scan() and the segmenter, without units or memo."""
    words, runs = scan(text)
    tokens = Counter(words) + Counter(t for t in get_segmenter(backend).cut(runs) if t != "\n")
    return Counter({t: n for t, n in tokens.items() if t not in ("的", "the")}), sum(
        tokens.values()
    )


@many
@given(st.lists(texts, max_size=6), st.sampled_from(BACKENDS))
def test_digest_python_counts_every_token_with_or_without_memo(docs: list[str],
                                                              backend: str) -> None:  # fmt: skip
    """The reference digest: units recalled from the memo count exactly as scanned ones, and
    the counts are those of scan() + segmentation of the whole text."""
    docs = docs + docs[::-1]  # later documents hit the memo
    got, memo, _ = run(digest_python, docs, backend)
    for doc, (counts, tokens, _) in zip(docs, got, strict=True):
        assert (counts, tokens) == expected(doc, backend)
    assert set(memo) == {u for doc in docs for u in units(doc)}
    assert sum(stored for _, _, stored in got) >= sum(len(u) for u in memo)


@many
@given(st.lists(texts, max_size=4), st.integers(0, 30))
def test_digest_remembers_only_units_up_to_max_unit(docs: list[str], max_unit: int) -> None:
    """Longer units are counted but not remembered; ``stored`` counts what was remembered."""
    got, memo, _ = run(digest_python, docs, "jieba", max_unit)
    for doc, (counts, tokens, _) in zip(docs, got, strict=True):
        assert (counts, tokens) == expected(doc, "jieba")
    assert set(memo) == {u for doc in docs for u in units(doc) if len(u) <= max_unit}


@needs_native
@many
@given(st.lists(texts, max_size=6), st.sampled_from(BACKENDS),
       st.sampled_from([0, 5, 20, BIG]))  # fmt: skip
def test_digest_native_matches_python(docs: list[str], backend: str, max_unit: int) -> None:
    """Same counts, same token totals, same memo (units and codes), same characters stored,
    same registration order."""
    docs = docs + docs[::-1]
    native_out, native_memo, native_state = run(textscan.digest, docs, backend, max_unit)
    python_out, python_memo, python_state = run(digest_python, docs, backend, max_unit)
    assert native_out == python_out
    assert native_memo == python_memo
    # Same slots in the same order (first met), not only the same counts.
    for doc in docs[:3]:
        a = textscan.digest(doc, native_memo, native_state.codes, native_state.register,
                            get_segmenter(backend).cut, 10, max_unit)  # fmt: skip
        b = digest_python(doc, python_memo, python_state.codes, python_state.register,
                          get_segmenter(backend).cut, 10, max_unit)  # fmt: skip
        assert a == b
    assert native_state.terms == python_state.terms


# Texts whose units are stored in every width: ASCII, Latin-1, BMP and astral characters.
wide_texts = st.text(
    alphabet=st.sampled_from(list("ab1 中文图书 é\u00ff\u0100\U00020bb7\U0001f600\n\n\t")),
    max_size=60,
)


@needs_native
@many
@given(st.lists(texts | wide_texts, max_size=6), st.sampled_from(BACKENDS),
       st.sampled_from([0, 5, 20, BIG]))  # fmt: skip
def test_digest_with_the_native_memo_matches_python(
    docs: list[str], backend: str, max_unit: int
) -> None:
    """The native memo (UnitMemo) gives the counts, token totals and characters stored of the
    dict, and ends holding the same units with the same codes, whatever width of str a unit
    came from (a unit of ASCII lies in a text of ideographs as in one of ASCII)."""
    docs = docs + docs[::-1]  # later documents hit the memo
    native_out, memo, native_state = run(textscan.digest, docs, backend, max_unit, UnitMemo())
    python_out, python_memo, python_state = run(digest_python, docs, backend, max_unit)
    assert native_out == python_out
    assert {unit: memo.get(unit) for unit in memo} == python_memo
    assert len(memo) == len(python_memo)
    assert all(unit in memo for unit in python_memo) and 5 not in memo
    assert native_state.terms == python_state.terms


@needs_native
def test_unit_memo_grows_and_clears() -> None:
    """Past its first 1,024 slots the memo grows and still finds every unit; clear forgets
    them all."""
    memo, state = UnitMemo(), Codes()
    lines = [f"line {n} 中文{n % 7}" for n in range(5000)]
    text = "\n".join(lines)
    cut = get_segmenter().cut
    first = textscan.digest(text, memo.handle, state.codes, state.register, cut, 0, BIG)
    assert len(memo) == len(set(lines)) and set(memo) == set(lines)
    again = textscan.digest(text, memo.handle, state.codes, state.register, cut, 0, BIG)
    assert again[:4] == first[:4] and again[4] == 0  # every unit recalled, none stored
    memo.clear()
    assert len(memo) == 0 and not memo and memo.get(lines[0]) is None


@needs_native
def test_digest_refuses_a_memo_of_another_kind() -> None:
    state = Codes()
    with pytest.raises(TypeError, match="memo"):
        textscan.digest("text", [], state.codes, state.register, get_segmenter().cut, 0, BIG)


@needs_native
@many
@given(texts)
def test_native_units_are_the_python_units(text: str) -> None:
    """The memo keys the C code makes are exactly units(text)."""
    memo: dict[str, bytes] = {}
    state = Codes()
    textscan.digest(text, memo, state.codes, state.register, get_segmenter().cut, 0, BIG)
    assert set(memo) == set(units(text))


@pytest.mark.parametrize("fn", [digest_python, textscan.digest])
def test_digest_refuses_segmenter_output_that_does_not_fit_the_runs(
    fn: Callable[..., object],
) -> None:
    """A segmenter that swallows run separators is an error, not silently wrong counts."""
    state = Codes()

    def merging_cut(text: str) -> list[str]:
        return [text.replace("\n", "")]

    with pytest.raises(RuntimeError, match="segmenter output"):
        fn("中文\n\nabc\n\n文本", {}, state.codes, state.register, merging_cut, 0, BIG)


def test_units_cut_at_line_breaks_no_token_crosses() -> None:
    assert units("a b\n c") == ["a b", "c"]
    assert units("中文\n文本 x\n\ny") == ["中文\n文本 x", "y"]
    assert units("  \n 中 \n\n 文 ") == ["中 \n\n 文"]
    assert units("abc\n中\n") == ["abc", "中"]
    assert units("\n \t\n") == []


@needs_native
@many
@given(
    st.lists(
        st.tuples(st.integers(0, 2**64 - 1), st.integers(-(2**24) + 1, 2**24 - 1)), max_size=300
    )  # fmt: skip
)
def test_simhash_matches_python(items: list[tuple[int, int]]) -> None:
    """Native SimHash equals the numpy definition bit for bit (ties included)."""
    hashes = np.array([h for h, _ in items], dtype=np.uint64)
    weights = np.array([w for _, w in items], dtype=np.float64)
    assert native.speedups is not None
    assert native.speedups.simhash(hashes, weights) == simhash_python(hashes, weights)


@needs_native
@many
@given(st.lists(st.floats(0.01, 1e6), min_size=1, max_size=50), st.integers(0, 2**32))
def test_simhash_of_scaled_weights_matches_python(weights: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    hashes = rng.integers(0, 2**64, size=len(weights), dtype=np.uint64)
    scaled = scaled_weights(np.array(weights))
    assert native.speedups is not None
    assert native.speedups.simhash(hashes, scaled) == simhash_python(hashes, scaled)


@needs_native
@many
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=60),
    st.integers(0, 2**32),
)
@example([5e-324, 1e-320], 1)  # subnormal: 2**shift is no double
@example([1.7e308, -1.0, 3e-300], 2)
def test_simhash_of_weights_scales_as_python(weights: list[float], seed: int) -> None:
    """The native scaling (a multiplication by a power of two, ldexp where that power is no
    double) gives the twin's fingerprint for weights of every magnitude."""
    rng = np.random.default_rng(seed)
    hashes = rng.integers(0, 2**64, size=len(weights), dtype=np.uint64)
    w = np.array(weights, dtype=np.float64)
    assert native.speedups is not None
    assert native.speedups.simhash_of_weights(hashes, w) == simhash_of_weights_python(hashes, w)


@needs_native
@many
@given(
    st.integers(1, 400),
    st.lists(st.integers(1, 5000) | st.floats(0.5, 50.0), max_size=80),
    st.sampled_from(["tf", "binary", "logtf", "tfidf"]),
    st.integers(0, 2**32),
)
def test_weighted_terms_match_python(
    vocabulary: int, counts: list[float], weighting: str, seed: int
) -> None:
    """Hashes and weights of a document's terms, natively, equal the numpy definition bit for
    bit; a count the table of logarithms does not hold (a fraction, 4096 or more) falls back
    to numpy."""
    rng = np.random.default_rng(seed)
    hashes = rng.integers(0, 2**64, size=vocabulary, dtype=np.uint64)
    idf = rng.random(vocabulary) * 20
    n = min(len(counts), vocabulary)
    slots = rng.choice(vocabulary, size=n, replace=False).astype(np.int64)
    tf = np.array(counts[:n], dtype=np.float64)
    got = weighted_terms(slots, tf, hashes, idf, weighting)
    want = weighted_terms_python(slots, tf, hashes, idf, weighting)
    assert got[0].tobytes() == want[0].tobytes()
    assert got[1].tobytes() == want[1].tobytes()
    whole = bool(np.all((tf == np.floor(tf)) & (tf < 4096)))
    assert native.speedups is not None
    answered = native.speedups.weighted_terms(
        slots, tf, hashes, idf, _LOG_TF, _WEIGHTING_CODES[weighting]
    )
    assert (answered is not None) == (whole or weighting in ("tf", "binary"))


_MARKDOWN_PIECES = [
    "# ", "## x ##", "---", "===", "* * *", "```", "~~~", "```rust", "> ", "- ", "1. ", "|",
    "|---|", ":-:", ":::", "{{x}}", "{%y%}", "[a]", "[a](b)", "[a][b]", "[a][]", "![i](s 't')",
    "[^1]", "[^n]:", "[x]: /u", "<b>", "</b>", "<a href=\"x>y\">", "<!--", "-->", "<script>",
    "</script>", "<STYLE x>", "</style >", "<http://x.y>", "&amp;", "&#x4e2d;", "&#12;", "&bogus;",
    "`", "``", "\\", "\\*", "\n", "\r\n", "\n\n", " ", "\t", "text", "中文", "(", ")", "\"",
    "    ```", "- ```js", "12) ~~~", "+ ", "::: tip A", "{#id}", " {.c}", "# h {#x}", "</SCRIPT>",
]  # fmt: skip
_MARKDOWN = st.lists(
    st.sampled_from(_MARKDOWN_PIECES) | st.text(alphabet="ab<>[]()`&;#!-=|:{}%^ \n", max_size=4),
    max_size=60,
).map("".join)


@needs_native
@many
@given(_MARKDOWN)
def test_markdown_lines_match_python(text: str) -> None:
    """Markdown as rendered, natively, equals its twin character for character (callbacks
    that say which references and labels were met)."""
    def decode(reference: str) -> str:
        return f"<{reference[1:-1]}>"

    def defined(label: str) -> bool:
        return len(label) % 2 == 0

    assert native.speedups is not None
    got = native.speedups.markdown_lines(text, decode, defined)
    assert got == markdown_lines_python(text, decode, defined)
    shown, starts = got
    assert shown.count("\n") == text.count("\n")
    assert len(starts) == 8 * (text.count("\n") + 1)


# Lines shaped as YAML, and lines that are not (prose, a fence, a URL, an unclosed quote).
_YAML_LINES = [
    "title: x", "key:", "'k': v", '"o:t": v', "- item", "-", "  indented", "\t- x", "# note",
    "", " ", "标题: 中", "_k: v", "9: v", "k:\tv",
]  # fmt: skip
_NOT_YAML = ["a:b", "http://x", "Two words: x", "```", "'open", "-x", "<div>", ":", "Prose."]


@needs_native
@many
@given(
    st.lists(st.sampled_from(_YAML_LINES), max_size=8),
    st.none() | st.tuples(st.integers(0, 8), st.sampled_from(_NOT_YAML)),
    st.sampled_from(["---", "--- ", "...", "", "----"]),
    _MARKDOWN,
)
def test_markdown_front_matter_matches_python(
    lines: list[str], breaker: tuple[int, str] | None, closing: str, body: str
) -> None:
    """A first ``---``, lines shaped as YAML or one that is not, a closing line or none:
    natively, the same front matter (or none) as the twin reads."""
    if breaker is not None:
        lines.insert(breaker[0], breaker[1])
    text = "\n".join(["---", *lines, closing, body])

    def decode(reference: str) -> str:
        return reference

    def defined(label: str) -> bool:
        return False

    assert native.speedups is not None
    assert native.speedups.markdown_lines(text, decode, defined) == markdown_lines_python(
        text, decode, defined
    )


@needs_native
@pytest.mark.parametrize("opener,closer", [
    ("`", "`"), ("``", "``"), ("[^", "]"), ("][", "]"), ("{{", "}}"), ("{%", "%}"),
    ("](<", ">)"), ('](x "', '")'), ('<a b="', '">'),
])  # fmt: skip
@pytest.mark.parametrize("distance", [997, 998, 999, 1000, 1001, 1002])
def test_markdown_lines_look_as_far_ahead_as_python(
    opener: str, closer: str, distance: int
) -> None:
    """Where the end of a construct lies about LOOKAHEAD characters ahead, both stop alike."""
    from simdup.readers.markdown_lines import LOOKAHEAD

    assert LOOKAHEAD == 1000
    text = f"a {opener}{'x' * distance}{closer} b\n[x]: /y\n"

    def decode(reference: str) -> str:
        return reference

    def defined(label: str) -> bool:
        return True

    assert native.speedups is not None
    assert native.speedups.markdown_lines(text, decode, defined) == markdown_lines_python(
        text, decode, defined
    )


sketches = st.lists(st.integers(0, 2**32 - 1), max_size=40, unique=True).map(sorted)


@needs_native
@many
@given(sketches, sketches, st.integers(1, 48))
def test_bottom_k_jaccard_matches_python(a: list[int], b: list[int], k: int) -> None:
    """The merge-based estimate equals estimate_jaccard on the same sketches, bit for bit."""
    a_arr, b_arr = np.array(a[:k], dtype=np.uint32), np.array(b[:k], dtype=np.uint32)
    assert native.speedups is not None
    got = native.speedups.bottom_k_jaccard(a_arr.astype("<u4").tobytes(),
                                           b_arr.astype("<u4").tobytes(), k)  # fmt: skip
    assert got == estimate_jaccard(a_arr, b_arr, k)
    assert sketch_jaccard(a_arr.astype("<u4").tobytes(), b_arr.astype("<u4").tobytes(), k) == got


@needs_native
@many
@given(st.text(max_size=300), st.integers(0, 400))
def test_count_controls_matches_python(text: str, limit: int) -> None:
    assert native.speedups is not None
    assert native.speedups.count_controls(text, limit) == count_controls_python(text, limit)


@needs_native
def test_long_texts_are_segmented_in_groups_with_the_same_result() -> None:
    """A text of many new lines (more than SEGMENT_CHUNK characters) is segmented in several
    calls; counts, memo and codes are those of the Python definition."""
    # Each line ends with "。": no CJK run crosses the line breaks, so every line is a unit.
    lines = [f"第{i}行的内容是图书馆读者借阅数据 line {i % 97} 文本。" for i in range(24_000)]
    text = "\n".join(lines)
    assert len(text) > 2 * textscan.SEGMENT_CHUNK
    calls: list[int] = []

    def counting_cut(runs: str) -> list[str]:
        calls.append(len(runs))
        return get_segmenter().cut(runs)

    results = []
    for fn in (textscan.digest, digest_python):
        state, memo = Codes(), {}
        calls.clear()
        result = fn(text, memo, state.codes, state.register, counting_cut, 0, BIG)
        results.append((state.counts(result), result[3], result[4], memo, state.terms))
        assert len(calls) >= 3 and max(calls) < 2 * textscan.SEGMENT_CHUNK
    assert results[0] == results[1]


@needs_native
@many
@given(st.text(alphabet=st.sampled_from(list("hHtTpPsSfFwW:/.ſKk x\n\t<>()[]\"'中é")), max_size=80))
def test_strip_urls_matches_the_regex(text: str) -> None:
    assert native.speedups is not None
    _same_stripping(native.speedups.strip_urls, strip_urls_python, text)


def _same_stripping(
    native_strip: Callable[..., str], python_strip: Callable[..., str], text: str
) -> None:
    """The same text, and the same pieces removed when asked for them."""
    assert native_strip(text) == python_strip(text)
    removed: list[str] = []
    expected: list[str] = []
    assert native_strip(text, removed) == python_strip(text, expected)
    assert removed == expected


@needs_native
@many
@given(st.text(alphabet=st.sampled_from(list("]()\" \t\nx中\u3000\u2028")), max_size=80))
def test_strip_link_targets_matches_the_regex(text: str) -> None:
    assert native.speedups is not None
    _same_stripping(native.speedups.strip_link_targets, strip_link_targets_python, text)


@needs_native
@many
@given(st.text(alphabet=st.sampled_from(list("aZz_09 -/.\n中页ǄǆÉé\u00b2\U0001d400")), max_size=40))
def test_markup_word_hashes_match_python(text: str) -> None:
    assert native.speedups is not None
    raw = native.speedups.markup_word_hashes(text)
    assert np.frombuffer(raw, dtype=np.uint64).tolist() == markup_word_hashes_python(text).tolist()


@needs_native
@many
@given(st.text(alphabet=st.sampled_from(list("-<]():/.wWx \n中")), max_size=40))
def test_markup_marks_match_python(text: str) -> None:
    assert native.speedups is not None
    assert native.speedups.markup_marks(text) == markup_marks_python(text)


# Word characters and separators of every width, the edges of the ideograph and kana ranges.
_WORD_RUN_CHARS = list("aZ9_ -,，。\n\t½²ǅ\u0301\U00020bb7") + [
    chr(cp) for lo, hi in ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
    for cp in (lo - 1, lo, hi, hi + 1)
]


@needs_native
@many
@given(st.text(max_size=200) | st.text(st.sampled_from(_WORD_RUN_CHARS), max_size=200))
def test_word_runs_match_python(text: str) -> None:
    """Runs of letters and digits joined by one space, none between two ideographs or kana:
    the native pass gives what the regular expressions give, for any text."""
    assert native.speedups is not None
    assert native.speedups.word_runs(text) == word_runs_python(text)


# Letters that take the one-pass way and letters that send a text the long way ("É", "ß", "Ａ",
# "ゟ", the compatibility ideographs, U+0345), separators of every width, the ranges' edges.
_FOLDED_CHARS = _WORD_RUN_CHARS + list("AbZÉéßĳǅΣς\u0345ＡＢ１ゟヿ가힣ﬁ™") + [
    chr(cp) for lo, hi in INERT_LETTERS for cp in (lo - 1, lo, hi, hi + 1)
]


# Letters of other alphabets: Latin with accents, Greek (final sigma, tonos), Cyrillic,
# modifier letters (NFKC changes them), full-width and compatibility forms, Hangul jamo.
_OTHER_LETTERS = list(
    "àÀéÉñÑüÜøØÿßẞµªº¹½ΣσςΆάΐΰЯяЁёҺһʱʵˣǅǆǈĲĳŉſﬁＡａ１ｶｧㄱꥠힰ"
    "\u3099\u0301\u0308\u1100\u1161\u11a8\u0345\U00010400\U0001d400"
)
_ALPHABETS = st.text(st.sampled_from(_FOLDED_CHARS + _OTHER_LETTERS), max_size=120)


@needs_native
@many
@given(st.text(max_size=200) | st.text(st.sampled_from(_FOLDED_CHARS), max_size=200)
       | _ALPHABETS)  # fmt: skip
def test_folded_word_runs_match_python(text: str) -> None:
    """The one-pass comparison form: the same form, or the same refusal, as the twin, with and
    without the letter table."""
    assert native.speedups is not None
    assert native.speedups.folded_word_runs(text) == folded_word_runs_python(text)
    table = letter_table()
    assert native.speedups.folded_word_runs(text, table) == folded_word_runs_python(text, table)


@many
@given(st.text(max_size=200) | st.text(st.sampled_from(_FOLDED_CHARS), max_size=200)
       | _ALPHABETS)  # fmt: skip
def test_folded_word_runs_is_the_comparison_form_when_it_answers(text: str) -> None:
    """Where the one pass answers, its answer is the long way's: case folded, NFKC, runs."""
    for table in (None, letter_table()):
        folded = folded_word_runs_python(text, table)
        if folded is not None:
            assert folded == comparison_form_long_way(text)


def test_every_letter_of_the_table_folds_as_the_long_way_folds_it() -> None:
    """Each letter the table folds, alone and between two others of the table, is what case
    folding and NFKC make of it (the property the native pass relies on)."""
    table = array("H", letter_table())
    folded = [(code, table[code]) for code in range(0x10000) if table[code]]
    assert len(folded) > 40_000
    for code, letter in folded:
        assert comparison_form_long_way(chr(code)) == chr(letter), hex(code)
    for (a, fa), (b, fb) in zip(folded, folded[1:] + folded[:1], strict=True):
        pair = chr(a) + chr(b)
        assert comparison_form_long_way(pair) == chr(fa) + chr(fb), (hex(a), hex(b))


@needs_native
@many
@given(st.text(max_size=200))
def test_bigram_hashes_match_python(text: str) -> None:
    assert native.speedups is not None
    raw = native.speedups.bigram_hashes(text)
    assert np.frombuffer(raw, dtype=np.uint64).tolist() == bigram_hashes_python(text).tolist()


@needs_native
@many
@given(st.one_of(st.text(max_size=200), st.text(st.sampled_from("ab的"), max_size=1200)))
@example("")
@example("abababababababababababababababababababab")
def test_bigram_features_match_python(text: str) -> None:
    """The native distinct bigrams of a short text are numpy's: ascending, each with its count
    (texts with many repeats, and longer than the native stack buffer, too)."""
    assert native.speedups is not None
    hashes, counts = native.speedups.bigram_features(text)
    want_hashes, want_counts = bigram_features_python(text)
    assert np.frombuffer(hashes, dtype=np.uint64).tolist() == want_hashes.tolist()
    assert np.frombuffer(counts, dtype=np.float64).tolist() == want_counts.tolist()


_IGNORABLE_EDGES = [chr(cp) for lo, hi in DEFAULT_IGNORABLE for cp in (lo - 1, lo, hi, hi + 1)]


@needs_native
@many
@given(
    st.text(max_size=300)
    | st.text(st.sampled_from(_IGNORABLE_EDGES + list("a中é\U00020bb7 \n")), max_size=300)
)
def test_strip_ignorables_matches_python(text: str) -> None:
    """Any text, and texts of the table's edges (first, last and neighbouring code points, in
    every string width): the native scan removes what the regex removes."""
    assert native.speedups is not None
    assert native.speedups.strip_ignorables(text) == strip_ignorables_python(text)


@needs_native
def test_strip_ignorables_returns_a_text_without_any_unchanged() -> None:
    """A text holding no default-ignorable character is returned as it is (no copy)."""
    assert native.speedups is not None
    for text in ("", "plain", "caf\u00e9", "中文图书馆", "\U00020bb7野家", "\u00ac\u00ae"):
        assert native.speedups.strip_ignorables(text) is text
    assert native.speedups.strip_ignorables("a\u200b" * 100) == "a" * 100


u64s = st.integers(0, 2**64 - 1)
# Arbitrary values, and values near the edges and near the seeds (x ^ seed small or all ones).
hash_arrays = st.lists(
    u64s | st.sampled_from([0, 1, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]), max_size=400
).map(lambda xs: np.array(xs, dtype=np.uint64))


@needs_native
@many
@given(hash_arrays, st.integers(16, 1024))
def test_minhash_signature_matches_python(hashes: np.ndarray, perms: int) -> None:
    """The native signature equals the numpy definition for any uint64 hashes (empty,
    duplicated, extreme) and any allowed signature length."""
    assert native.speedups is not None
    raw = native.speedups.minhash_signature(hashes, perms)
    expected_sig = signature_python(hashes, perms)
    assert raw == expected_sig.tobytes()
    got = signature(hashes, perms)
    assert got.dtype == expected_sig.dtype and got.shape == expected_sig.shape == (perms,)
    assert np.array_equal(got, expected_sig)
    assert signature_bytes(hashes, perms) == expected_sig.astype("<u8").tobytes()


@needs_native
@many
@given(hash_arrays, st.integers(16, 256))
def test_minhash_signature_is_that_of_the_set(hashes: np.ndarray, perms: int) -> None:
    """Order and repetition of the hashes change nothing (the signature is of the set); a
    strided or differently typed view gives the values of its uint64 copy."""
    assert native.speedups is not None
    base = native.speedups.minhash_signature(hashes, perms)
    shuffled = np.concatenate([hashes[::-1], hashes])
    assert native.speedups.minhash_signature(shuffled, perms) == base
    strided = shuffled[::2]
    assert signature(strided, perms).tobytes() == signature_python(strided, perms).tobytes()
    as_int64 = hashes.view(np.int64)
    assert np.array_equal(signature(as_int64, perms), signature_python(as_int64, perms))


@needs_native
def test_minhash_signature_edge_cases() -> None:
    """Empty input: all ones; perms 0 and beyond the seed table; wrong arguments refused."""
    assert native.speedups is not None
    empty = np.array([], dtype=np.uint64)
    for perms in (0, 16, 128, 1024):
        assert native.speedups.minhash_signature(empty, perms) == b"\xff" * 8 * perms
        assert np.array_equal(signature(empty, perms), signature_python(empty, perms))
    one = np.array([2**64 - 1], dtype=np.uint64)
    assert native.speedups.minhash_signature(one, 0) == b""
    # Beyond the 1024 precomputed seeds the rest are computed per call, with the same values.
    rng = np.random.default_rng(12)
    hashes = rng.integers(0, 2**64, size=50, dtype=np.uint64, endpoint=False)
    wide = native.speedups.minhash_signature(hashes, 1500)
    assert wide == signature_python(hashes, 1500).tobytes()
    with pytest.raises(ValueError, match="perms"):
        native.speedups.minhash_signature(hashes, -1)
    with pytest.raises(ValueError, match="uint64"):
        native.speedups.minhash_signature(b"1234567", 16)
    with pytest.raises(TypeError):
        native.speedups.minhash_signature(hashes)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        native.speedups.minhash_signature("text", 16)


@needs_native
@many
@given(hash_arrays, st.integers(0, 300))
def test_bottom_k_matches_python(hashes: np.ndarray, k: int) -> None:
    """The native sketch equals the numpy definition (k smallest distinct top-32-bit values,
    ascending) for any uint64 hashes and k, including values that differ only in their low
    32 bits (one sketch value) and k beyond the number of distinct values."""
    assert native.speedups is not None
    expected = bottom_k(hashes, k).astype("<u4").tobytes()
    assert native.speedups.bottom_k(hashes, k) == expected
    assert bottom_k_bytes(hashes, k) == expected
    shuffled = np.concatenate([hashes[::-1], hashes])
    assert native.speedups.bottom_k(shuffled, k) == expected


@needs_native
def test_bottom_k_edge_cases() -> None:
    """Empty input and k = 0 give no values; wrong arguments are refused."""
    assert native.speedups is not None
    empty = np.array([], dtype=np.uint64)
    assert native.speedups.bottom_k(empty, 256) == b""
    assert native.speedups.bottom_k(np.array([7], dtype=np.uint64), 0) == b""
    with pytest.raises(ValueError, match="k >= 0"):
        native.speedups.bottom_k(empty, -1)
    with pytest.raises(ValueError, match="uint64"):
        native.speedups.bottom_k(b"1234567", 4)


@needs_native
@many
@given(
    st.lists(st.lists(st.integers(0, 2**32 - 1), max_size=40), min_size=1, max_size=8),
    st.integers(1, 48),
    st.data(),
)
def test_bottom_k_jaccard_pairs_is_the_pairwise_estimate(
    sets: list[list[int]], k: int, data: st.DataObject
) -> None:
    """The batch estimate over index pairs equals ``sketch_jaccard`` pair by pair (exact
    sketches and truncated ones), and bad indexes or sketches are refused, not read."""
    assert native.speedups is not None
    sketches = [np.unique(np.array(s, dtype=np.uint32))[:k].astype("<u4").tobytes() for s in sets]
    index = st.integers(0, len(sketches) - 1)
    pairs = data.draw(st.lists(st.tuples(index, index), max_size=20))
    i = np.array([a for a, _ in pairs], dtype=np.int64)
    j = np.array([b for _, b in pairs], dtype=np.int64)
    got = sketch_jaccard_pairs(sketches, i, j, k)
    assert got.tolist() == [sketch_jaccard(sketches[a], sketches[b], k) for a, b in pairs]
    beyond = np.array([len(sketches)], dtype=np.int64)
    with pytest.raises(IndexError):
        native.speedups.bottom_k_jaccard_pairs(sketches, beyond, np.zeros(1, np.int64), k)
    with pytest.raises(TypeError):
        native.speedups.bottom_k_jaccard_pairs([1, 2], np.array([0]), np.array([1]), k)


@needs_native
@many
@given(
    st.lists(st.tuples(u64s, st.floats(-1e6, 1e6)), max_size=200),
    hash_arrays,
    st.integers(0, 300),
    st.sampled_from([0, 16, 128, 1100]),
)
def test_document_parts_match_their_python_definitions(
    features: list[tuple[int, float]], markup: np.ndarray, sketch_size: int, perms: int
) -> None:
    """One native call gives what the three definitions give: the SimHash of the scaled
    weights, the bottom-k sketch of the features' and the markup's hashes together, and the
    MinHash signature of the features only (none when perms is 0)."""
    hashes = np.array([h for h, _ in features], dtype=np.uint64)
    weights = np.array([w for _, w in features], dtype=np.float64)
    assert native.speedups is not None
    fp, sketch, sig = native.speedups.document_parts(hashes, weights, markup, sketch_size, perms)
    assert fp == (simhash_python(hashes, scaled_weights(weights)) if hashes.size else 0)
    words = np.concatenate((hashes, markup))
    assert sketch == bottom_k(words, sketch_size).astype("<u4").tobytes()
    assert sig == (signature_python(hashes, perms).astype("<u8").tobytes() if perms else b"")
    assert document_parts_python(hashes, weights, markup, sketch_size, perms) == (fp, sketch, sig)


@needs_native
def test_document_parts_refuse_what_the_definitions_refuse() -> None:
    assert native.speedups is not None
    one = np.ones(1, dtype=np.uint64)
    with pytest.raises(ValueError, match="finite"):
        native.speedups.document_parts(one, np.array([np.nan]), one, 4, 16)
    with pytest.raises(ValueError, match="n uint64 hashes"):
        native.speedups.document_parts(one, np.ones(2), one, 4, 16)
    with pytest.raises(ValueError, match=">= 0"):
        native.speedups.document_parts(one, np.ones(1), one, -1, 16)


# Fragment tokens (text/tokens.py) and decon's k-gram probe (algorithms/containment.py).
_TOKEN_CHARS = (
    list("中文图书館這個問題漢字臺灣") + ["\U00020000", "\U0002f800", "\U00020bb7"]  # CJK, astral
    + list("あいうアイウーｱｲ")  # kana, half-width kana
    + list("abcXYZ019éßİﬁＡＢ１½") + ["\U0001d400", "\U0001d7ce"]  # full-width, math letters
    + list("авекорсуАВЕКМНОРСТΑΒΕαβο")  # Cyrillic and Greek look-alikes
    + ["\u200b", "\u200d", "\u00ad", "\ufeff", "\u2060", "\U000e0041"]  # invisible
    + list(" \n\t\u3000,.，。!-_'") + ["\U0001f600", "\ud800", "\udfff"]  # separators, lone
)
token_texts = st.text(alphabet=st.sampled_from(_TOKEN_CHARS), max_size=120) | st.text(
    max_size=60
)


def _same_tokens(a: Any, b: Any) -> None:
    for name in ("starts", "ends", "hashes", "cjk", "units"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x, y), name


@needs_native
@many
@given(token_texts)
def test_fragment_tokens_match_python(text: str) -> None:
    """The native tokeniser gives the arrays of the numpy one: offsets, hashes, CJK flags and
    units, on CJK, kana, full-width, look-alike, invisible and astral characters alike."""
    from simdup.text.tokens import tokenize

    tokenize_python = native.twin("fragment_tokens")
    _same_tokens(tokenize(text), tokenize_python(text))


def test_fragment_tokens_fold_what_hides_a_copy() -> None:
    """Width, case, look-alike letters, invisible characters and traditional characters do
    not change a token's hash; the offsets are those of the text as given."""
    from simdup.text.tokens import tokenize

    plain, hidden = tokenize("abc 中国"), tokenize("ＡＢ\u200bС 中國")
    assert np.array_equal(plain.hashes, hidden.hashes)
    assert hidden.starts.tolist() == [0, 5, 6] and hidden.ends.tolist() == [4, 6, 7]
    assert hidden.units.tolist() == [3, 1, 1] and hidden.cjk.tolist() == [False, True, True]


@needs_native
@many
@given(st.lists(token_texts, max_size=8))
def test_row_token_hashes_match_python(texts: list[str]) -> None:
    """Many texts' hashes in one call are each text's ``tokenize`` hashes, one after the other,
    with their text numbers."""
    from simdup.text.tokens import row_token_hashes, tokenize_python

    hashes, rows = row_token_hashes(texts)
    python_hashes, python_rows = native.twin("row_token_hashes")(texts)
    assert hashes.dtype == python_hashes.dtype and rows.dtype == python_rows.dtype
    assert np.array_equal(hashes, python_hashes) and np.array_equal(rows, python_rows)
    each = [tokenize_python(t).hashes for t in texts]
    assert hashes.tolist() == [h for a in each for h in a.tolist()]
    assert rows.tolist() == [r for r, a in enumerate(each) for _ in range(a.size)]


@needs_native
def test_native_tokens_refuse_what_is_no_text() -> None:
    from simdup.text.tokens import _native_tables

    assert native.speedups is not None
    with pytest.raises(TypeError):
        native.speedups.row_token_hashes(["a", b"b"], *_native_tables())
    with pytest.raises(ValueError, match="65536"):
        native.speedups.fragment_tokens("a", b"", {})


@needs_native
@many
@given(
    st.lists(st.integers(0, 7), max_size=300),  # tokens drawn from a small vocabulary
    st.lists(st.integers(0, 40), max_size=30),  # row lengths
    st.integers(1, 12),  # k
    st.integers(0, 2**32),
    st.booleans(),  # a tiny presence table (most grams pass it)
)
def test_gram_rows_match_python(
    tokens: list[int], lengths: list[int], k: int, seed: int, tiny: bool
) -> None:
    """The native probe finds the rows the array operations find: grams inside one row only,
    each row once, ascending; its rolling gram is the XOR of rotated hashes."""
    from simdup.algorithms.containment import _Table, gram_rows
    from simdup.algorithms.winnowing import kgram_hashes

    rng = np.random.default_rng(seed)
    vocabulary = rng.integers(0, 2**63, size=8, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    hashes = vocabulary[np.array(tokens, dtype=np.int64)] if tokens else np.empty(0, np.uint64)
    rows = np.repeat(np.arange(len(lengths) + 1), [*lengths, 10**6])[: hashes.size]
    rows = np.sort(rows).astype(np.int64)
    # Keys: some grams of the sequence itself (hits), and random ones.
    grams = kgram_hashes(hashes, k)
    picked = grams[rng.integers(0, grams.size, size=min(grams.size, 3))] if grams.size else grams
    keys = np.sort(np.concatenate([picked, rng.integers(0, 2**63, 20, dtype=np.uint64)]))
    table = _Table(k, keys, np.zeros(keys.size, np.int64), np.zeros(keys.size, np.int64))
    present = np.ones(8, np.uint8) * 255 if tiny else table.present
    assert present is not None
    got = gram_rows(hashes, rows, k, present, keys)
    want = native.twin("gram_rows")(hashes, rows, k, present, keys)
    assert got.dtype == want.dtype == np.int64
    assert got.tolist() == want.tolist()


@needs_native
@many
@given(
    st.lists(st.lists(st.integers(0, 5), max_size=30), max_size=8),  # items
    st.lists(st.integers(0, 5), max_size=200),  # the row
    st.integers(1, 10),  # k
    st.booleans(),  # a tiny presence table (most grams pass it)
)
def test_gram_hits_match_python(items: list[list[int]], row: list[int], k: int, tiny: bool) -> None:
    """The native lookup finds the hits the array operations find, in their order: every gram
    of the row that is a gram of an item, checked token by token (a few distinct tokens make
    repeated grams, so one gram has many places)."""
    from simdup.algorithms.containment import ContainmentRule, ItemIndex, gram_hits

    vocabulary = np.array([3, 5, 2**63 + 7, 11, 2**40 + 1, 13], dtype=np.uint64)
    index = ItemIndex(
        [vocabulary[np.array(it, dtype=np.int64)] for it in items],
        ContainmentRule(k=k, min_tokens=1, max_items=1000),
    )
    hashes = vocabulary[np.array(row, dtype=np.int64)]
    for table in index.tables:
        if tiny:
            table.present = np.full(8, 255, dtype=np.uint8)
        got = gram_hits(hashes, table, index.flat, index.offsets)
        want = native.twin("gram_hits")(hashes, table, index.flat, index.offsets)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype == np.int64
            assert a.tolist() == b.tolist()


@needs_native
@many
@given(st.lists(token_texts, max_size=8))
def test_row_letter_hashes_match_python(texts: list[str]) -> None:
    """Many texts' letter hashes in one call are each text's ``letters`` hashes, one after the
    other, with their text numbers."""
    from simdup.text.letters import letters, row_letter_hashes

    hashes, rows = row_letter_hashes(texts)
    python_hashes, python_rows = native.twin("row_letter_hashes")(texts)
    assert hashes.dtype == python_hashes.dtype and rows.dtype == python_rows.dtype
    assert np.array_equal(hashes, python_hashes) and np.array_equal(rows, python_rows)
    each = [letters(t).hashes for t in texts]
    assert hashes.tolist() == [h for a in each for h in a.tolist()]
    assert rows.tolist() == [r for r, a in enumerate(each) for _ in range(a.size)]


@needs_native
@many
@given(
    st.lists(st.integers(0, 3), max_size=8),
    st.lists(st.integers(0, 3), max_size=30),
    st.integers(-1, 5),
    st.lists(st.booleans(), min_size=31, max_size=31) | st.none(),
    st.booleans(),
)
def test_best_window_matches_python(
    item: list[int], row: list[int], edits: int, bounds: list[bool] | None, swaps: bool
) -> None:
    from simdup.algorithms.containment import best_window

    mine, theirs = np.array(item, np.uint64), np.array(row, np.uint64)
    cuts = None
    if bounds is not None:
        cuts = (np.array(bounds[: len(row) + 1]), np.array(bounds[::-1][: len(row) + 1]))
    got = best_window(mine, theirs, edits, cuts, swaps=swaps)
    assert got == native.twin("best_window")(mine, theirs, edits, cuts, swaps=swaps)


@needs_native
@many
@given(
    st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=12), min_size=1, max_size=4),
    st.lists(st.lists(st.integers(0, 3), max_size=30), min_size=1, max_size=5),
    st.lists(st.integers(-1, 3), min_size=4, max_size=4),
    st.integers(1, 4),
)
def test_near_groups_match_python(
    items: list[list[int]], rows: list[list[int]], edits: list[int], q: int
) -> None:
    """The runs of hits the native pass keeps are those the array operations keep: hits of
    every q-gram of every item in every row (many, on many diagonals)."""
    from simdup.algorithms.containment import near_groups

    flat = np.array([t for it in items for t in it], np.uint64)
    offsets = np.cumsum([0, *map(len, items)]).astype(np.int64)
    hashes = np.array([t for r in rows for t in r], np.uint64)
    first = np.cumsum([0, *map(len, rows)]).astype(np.int64)
    hits = [(r, n, i, int(first[r]) + j)
            for r, row in enumerate(rows) for n, it in enumerate(items)
            for i in range(len(it) - q + 1) for j in range(len(row) - q + 1)
            if it[i : i + q] == row[j : j + q]]  # fmt: skip
    hit_row, item, ip, rp = (np.array(a, np.int64).reshape(-1) for a in zip(*hits, strict=True)) \
        if hits else (np.empty(0, np.int64),) * 4
    per_item = np.array(edits[: len(items)], np.int64)
    got = near_groups(hashes, first, hit_row, item, ip, rp, flat, offsets, per_item)
    want = native.twin("near_groups")(hashes, first, hit_row, item, ip, rp, flat, offsets,
                                      per_item)  # fmt: skip
    assert got.dtype == want.dtype == np.int64
    assert got.tolist() == want.tolist()


_JSON_PIECES = st.sampled_from(
    ['{"text": ', '{"id": 1, "text": ', '"', '"abc', "中文", "\\n", "\\u4e2d", "\\ud83d",
     "\\ude00", "\\\\", '\\"', "\\x", "é", "\t", " ", ",", "}", "]", "[", "{", ":", "1", "-0.5e3",
     "01", "1.", "true", "nul", "null", "NaN", '"text"', '"te\\u0078t"', "\n", "\r\n", "\x00"]
)
_JSON_BYTES = st.sampled_from(  # not UTF-8, a surrogate, an overlong form, cut, an emoji
    [b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\xe4\xb8", b"\xf0\x9f\x98\x80"]
)


@st.composite
def json_lines(draw: Any) -> bytes:
    """Lines that are mostly JSON objects with a text field, and some that are nearly so."""
    if draw(st.booleans()):
        record = draw(st.dictionaries(st.sampled_from(["text", "id", "meta"]),
                                      st.text(max_size=30) | st.integers() | st.none()
                                      | st.lists(st.integers(), max_size=3)))  # fmt: skip
        if draw(st.booleans()):
            record["text"] = draw(st.text(max_size=40))
        line = json.dumps(record, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    else:
        line = "".join(draw(st.lists(_JSON_PIECES, max_size=12))).encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(_JSON_BYTES) + line[at:]
    return line + draw(st.sampled_from([b"\n", b"", b" \n", b"\r\n"]))


@needs_native
@many
@given(st.lists(json_lines(), max_size=8), st.sampled_from(["text", "id", "te xt"]))
def test_jsonl_texts_give_the_python_text_or_none(lines: list[bytes], field: str) -> None:
    """The native reader gives, for each line, the text Python's json gives, or None (then the
    caller parses the line itself); never another text."""
    assert native.speedups is not None
    got = native.speedups.jsonl_texts(lines, field)
    want = native.twin("jsonl_texts")(lines, field)
    options = RowOptions(text_field=field)
    for line, g, w in zip(lines, got, want, strict=True):
        assert g is None or g == w
        if g is not None:  # what the decon worker relies on: the line is that document
            parsed = parse_jsonl_line(line, 1, options)
            assert not isinstance(parsed, str) and parsed[0] == g


@needs_native
def test_jsonl_texts_read_the_usual_lines_and_leave_the_rest() -> None:
    """Ordinary lines are read natively (escapes, non-ASCII, nested values, a repeated field:
    the last one); what json could read otherwise, or refuse, is left to Python."""
    assert native.speedups is not None
    lines = [
        b'{"id": "r1", "text": "a\\nb \\u4e2d \xe4\xb8\xad \\"q\\" \\\\ \\/"}\n',
        b'{"meta": {"a": [1, -2.5e-3, true, false, null, {}, []]}, "text": "x"} \r\n',
        b'{"text": "first", "text": "last"}',
        b'{"text": 3}', b'{"id": 1}', b"[]", b'{"text": "\\ud83d\\ude00"}', b'{"text": NaN}',
        b'{"text": "x"} extra', b'{"text": "\xff"}', b'{"text": "\t"}', b'{"text": "x",}',
        b'\xef\xbb\xbf{"text": "x"}', b" " + b'{"text": "x"}', b'{"text": 01}',
    ]  # fmt: skip
    got = native.speedups.jsonl_texts(lines, "text")
    assert got[:3] == ["a\nb 中 中 \"q\" \\ /", "x", "last"]
    assert got[3:] == [None] * (len(lines) - 3)
    want = native.twin("jsonl_texts")(lines, "text")
    assert want[:3] == got[:3] and want[6] == "\U0001f600"


# ---------------------------------------------------------------------------------------------
# The exact runs and chains of copied fragments (simdup/algorithms/fragments.py)

# k-gram hashes from a few values (many repeats, long equal runs), some far apart.
_GRAMS = st.lists(st.sampled_from([0, 1, 2, 3, 7, 2**63, 2**64 - 1]), max_size=120)


@needs_native
@many
@given(
    _GRAMS,
    _GRAMS,
    st.integers(1, 5),
    st.integers(1, 9),
    st.integers(1, 12),
    st.floats(0.0, 30.0),
    st.data(),
)
def test_fragment_chains_match_python(
    query: list[int],
    source: list[int],
    k: int,
    max_occurrences: int,
    reach: int,
    min_match: float,
    data: st.DataObject,
) -> None:
    """The native seeds, runs, clusters and chains are the twin's, row for row (a shared run
    of the source, copied into the query with edits, makes long runs and chains too)."""
    assert native.speedups is not None
    if source and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(source) - 1))
        query = query[: len(query) // 2] + source[start:] + query[len(query) // 2 :]
    qk, sk = np.array(query, dtype=np.uint64), np.array(source, dtype=np.uint64)
    arguments = (qk, sk, k, max_occurrences, reach, min_match)
    got = native.speedups.fragment_chains(*arguments)
    want = native.twin("fragment_chains")(*arguments)
    assert [np.frombuffer(g, dtype=np.int64).tolist() for g in got] == [w.tolist() for w in want]


@needs_native
def test_fragment_chains_edge_cases() -> None:
    s = native.speedups
    assert s is not None
    one, empty = np.array([5], dtype=np.uint64), np.zeros(0, dtype=np.uint64)
    assert s.fragment_chains(empty, one, 4, 8, 5, 8.0) == (b"", b"", b"")
    assert s.fragment_chains(one, one, 4, 8, 5, 8.0) == (b"", b"", b"")  # too few tokens
    runs, chains, chain_of = s.fragment_chains(one, one, 4, 8, 5, 4.0)
    assert np.frombuffer(runs, np.int64).tolist() == [0, 0, 0]
    assert np.frombuffer(chains, np.int64).tolist() == [0, 3, 0, 3, 4]
    assert np.frombuffer(chain_of, np.int64).tolist() == [0]
    with pytest.raises(ValueError, match="k must be"):
        s.fragment_chains(one, one, 0, 8, 5, 4.0)
    with pytest.raises(ValueError, match="uint64"):
        s.fragment_chains(b"123", one, 4, 8, 5, 4.0)
    with pytest.raises(TypeError):
        s.fragment_chains(one, one, 4)  # type: ignore[call-arg]


@needs_native
@many
@given(_GRAMS, st.integers(1, 30))
def test_winnow_matches_python(grams: list[int], w: int) -> None:
    """The native winnowing keeps the twin's positions: the rightmost smallest hash of every
    window, each once (runs of equal hashes, sequences shorter than a window, w = 1)."""
    assert native.speedups is not None
    kgrams = np.array(grams, dtype=np.uint64)
    got = np.frombuffer(native.speedups.winnow(kgrams, w), dtype=np.int64).tolist()
    assert got == native.twin("winnow")(kgrams, w).tolist()
    with pytest.raises(ValueError, match="w must be"):
        native.speedups.winnow(kgrams, 0)


@needs_native
@many
@given(
    st.lists(st.text(st.sampled_from("ab的c"), max_size=30), min_size=2, max_size=40),
    st.sampled_from([0.7, 0.8, 0.9, 1.0]),
    st.data(),
)
def test_edit_window_pairs_match_python(
    texts: list[str], threshold: float, data: st.DataObject
) -> None:
    """The native candidate step of the edit join keeps the pairs the array operations keep,
    in their order, for any run of pivots (small alphabets: long windows, many rejections by
    length, position and bag distance)."""
    from simdup.algorithms import edit_join

    assert native.speedups is not None
    sig = edit_join.signatures(texts, threshold)
    first = data.draw(st.integers(0, len(sig.pivots)))
    stop = data.draw(st.integers(first, len(sig.pivots)))
    i, j = native.speedups.edit_window_pairs(*sig, first, stop)
    want_i, want_j = native.twin("edit_window_pairs")(sig, first, stop)
    assert np.frombuffer(i, dtype=np.int64).tolist() == want_i.tolist()
    assert np.frombuffer(j, dtype=np.int64).tolist() == want_j.tolist()


@needs_native
def test_edit_window_pairs_refuse_tables_that_do_not_fit() -> None:
    """A table of the wrong shape or an index out of range is a ValueError, never a read
    past the memory the tables hold."""
    from simdup.algorithms import edit_join

    assert native.speedups is not None
    sig = edit_join.signatures(["abcdefghij", "abcdefghik", "zzzz"], 0.9)
    with pytest.raises(ValueError, match="Signatures"):
        native.speedups.edit_window_pairs(sig.pivots[:, :3].copy(), *sig[1:], 0, 1)
    with pytest.raises(ValueError, match="out of range"):
        native.speedups.edit_window_pairs(*sig, 0, len(sig.pivots) + 1)
    broken = sig.pivots.copy()
    broken[0, 3] = len(sig.prefix) + 5
    with pytest.raises(ValueError, match="out of range"):
        native.speedups.edit_window_pairs(broken, *sig[1:], 0, 1)


@needs_native
@many
@given(
    st.lists(st.text(st.sampled_from("ab的c\U00020bb7"), max_size=40), min_size=1, max_size=30),
    st.sampled_from([0.7, 0.8, 0.9, 1.0]),
    st.integers(0, 24),
)
def test_edit_prefixes_match_python(texts: list[str], threshold: float, count_bits: int) -> None:
    """The native prefixes and pivots of the edit join are the array operations' ones: the
    same q-gram ids (marks, polynomial hash, mixed), the same last rank of each prefix (a
    selection natively, a sort in numpy), the same leftmost disjoint pivots, in every string
    width and with counts capped at any number of bits."""
    from simdup.algorithms import edit_join

    assert native.speedups is not None
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    q = edit_join.gram_length(threshold, int(lengths.max()))
    edits = edit_join.max_edits(lengths, threshold)
    span = int(lengths.max()) + q + 2 * int(edits.max()) + 2
    got = native.speedups.edit_prefixes(texts, edits, q, span, count_bits)
    want = native.twin("edit_prefixes")(texts, edits, q, span, count_bits)
    for raw, rows in zip(got, want, strict=True):
        assert np.frombuffer(raw, dtype=np.int64).tolist() == rows.ravel().tolist()


@needs_native
def test_edit_prefixes_refuse_what_does_not_fit() -> None:
    """Edits a text is too short for, a span too small, or no list of str: a clear error."""
    assert native.speedups is not None
    edits = np.array([1, 0], dtype=np.int64)
    with pytest.raises(ValueError, match="too short"):
        native.speedups.edit_prefixes(["ab", "abc"], np.array([9, 0]), 3, 50, 8)
    with pytest.raises(ValueError, match="span"):
        native.speedups.edit_prefixes(["abcdefghij", "abc"], edits, 3, 5, 8)
    with pytest.raises(TypeError, match="str"):
        native.speedups.edit_prefixes(["abcdefghij", b"abc"], edits, 3, 50, 8)
    with pytest.raises(ValueError, match="one int64"):
        native.speedups.edit_prefixes(["abcdefghij"], edits, 3, 50, 8)


@needs_native
def test_edit_join_steps_on_every_core_match_python() -> None:
    """Inputs large enough for the native steps to split across threads (texts, prefix rows
    and candidate slots cut into runs, put together in order) give exactly the twins'
    tables and pairs, for any run of pivots: the same on any number of cores."""
    import random

    from simdup.algorithms import edit_join

    assert native.speedups is not None
    rng = random.Random(50)
    # Two thousand texts of 30-120 characters over a small alphabet with an ideograph and a
    # wide character: ~150,000 q-grams, ~180,000 candidate slots at 0.9.
    texts = ["".join(rng.choice("abc的\U00020bb7") for _ in range(rng.randint(30, 120)))
             for _ in range(2000)]  # fmt: skip
    texts += [t[:-1] + "x" for t in texts[:200]]
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    for threshold in (0.8, 0.9):
        q = edit_join.gram_length(threshold, int(lengths.max()))
        edits = edit_join.max_edits(lengths, threshold)
        span = int(lengths.max()) + q + 2 * int(edits.max()) + 2
        got = native.speedups.edit_prefixes(texts, edits, q, span, 24)
        want = native.twin("edit_prefixes")(texts, edits, q, span, 24)
        for raw, rows in zip(got, want, strict=True):
            assert np.frombuffer(raw, dtype=np.int64).tolist() == rows.ravel().tolist()
        prefix, pivots, _ = want
        windows = native.speedups.edit_windows(pivots, prefix, edits)
        want_windows = native.twin("edit_windows")(pivots, prefix, edits)
        assert np.frombuffer(windows, dtype=np.int64).tolist() == want_windows.ravel().tolist()
    sig = edit_join.signatures(texts, 0.9)
    assert int((sig.pivots[:, 3] - sig.pivots[:, 2]).sum()) > 1 << 17
    for first, stop in ((0, len(sig.pivots)), (7, len(sig.pivots) // 2)):
        i, j = native.speedups.edit_window_pairs(*sig, first, stop)
        want_i, want_j = native.twin("edit_window_pairs")(sig, first, stop)
        assert np.frombuffer(i, dtype=np.int64).tolist() == want_i.tolist()
        assert np.frombuffer(j, dtype=np.int64).tolist() == want_j.tolist()


@needs_native
@many
@given(st.lists(st.text(st.sampled_from("ab的c \U00020bb7\x00"), max_size=60), max_size=20))
def test_edit_histograms_match_python(texts: list[str]) -> None:
    """The native character histograms of the edit join (code modulo 32, 32 a text) are the
    array operations' ones, in every string width; lengths that do not add up to the text's
    are a ValueError, never a read past it."""
    assert native.speedups is not None
    joined = "".join(texts)
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    got = np.frombuffer(native.speedups.edit_histograms(joined, lengths), dtype=np.uint16)
    assert got.tolist() == native.twin("edit_histograms")(joined, lengths).tolist()
    with pytest.raises(ValueError, match="add up"):
        native.speedups.edit_histograms(joined + "x", lengths)
    with pytest.raises(ValueError, match="add up"):
        native.speedups.edit_histograms(joined, np.append(lengths, -1))
    with pytest.raises(TypeError, match="str"):
        native.speedups.edit_histograms(b"abc", lengths)


@needs_native
@many
@given(st.text(st.sampled_from("ab 的は\u3040\u30ff\uf900\ufaff\u3000\x1c\x85\ud800,。"),
               max_size=60) | st.text(max_size=60))
def test_form_token_count_matches_python(form: str) -> None:
    """A short text's token count natively is the pattern's: each ideograph or kana one token,
    each other run of what is not whitespace one (Unicode whitespace as ``\\s`` has it)."""
    assert native.speedups is not None
    assert native.speedups.form_token_count(form) == native.twin("form_token_count")(form)


@needs_native
@many
@given(
    st.lists(st.text(st.sampled_from("ab的c"), min_size=1, max_size=40), min_size=1, max_size=30),
    st.sampled_from([0.7, 0.8, 0.9, 1.0]),
)
def test_edit_windows_match_python(texts: list[str], threshold: float) -> None:
    """Each pivot's window of prefix entries natively (galloping searches from where the last
    one began) is numpy's ``searchsorted`` pair; a pivot of a text that is not there is a
    ValueError, never a read past the edits."""
    from simdup.algorithms import edit_join

    assert native.speedups is not None
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    q = edit_join.gram_length(threshold, int(lengths.max()))
    edits = edit_join.max_edits(lengths, threshold)
    span = int(lengths.max()) + q + 2 * int(edits.max()) + 2
    prefix, pivots, _ = native.twin("edit_prefixes")(texts, edits, q, span, 24)
    got = np.frombuffer(native.speedups.edit_windows(pivots, prefix, edits), dtype=np.int64)
    assert got.tolist() == native.twin("edit_windows")(pivots, prefix, edits).ravel().tolist()
    with pytest.raises(ValueError, match="out of range"):
        native.speedups.edit_windows(pivots, prefix, edits[:0])
