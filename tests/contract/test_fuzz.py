"""Fuzz targets: arbitrary bytes and text never crash a stage, and every stage is deterministic.

Targets: decoding (``decode_bytes``), features (``extract_features``: markup removal, words,
their normalisation), segmentation (``Segmenter.tokens``), fingerprinting
(``simdup.fingerprint``), the whole chain from bytes to a fingerprinted document, and the
escaping of file names in reports. Every call is also timed: one
example taking 2 s or more fails (a pathological input must not stall a scan).

Examples per target: ``SIMDUP_FUZZ_EXAMPLES`` (default 200). ``make fuzz`` runs this module with
20000; any other count works the same way, e.g.
``SIMDUP_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest -q tests/contract/test_fuzz.py``.

What is *not* asserted, because it does not hold: ``normalize_term`` is not idempotent (case
folding after NFKC can leave combining marks out of canonical order, ``"İ\\u0347"``). The
pipeline normalises each word once, so it never changes a fingerprint.
"""

from __future__ import annotations

import codecs
import os
import re
import time
import unicodedata
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simdup
from simdup.names import display_path, escape_path
from simdup.params import MARKUPS, FeatureParams
from simdup.readers.decoding import DecodeFailure, decode_bytes
from simdup.records import DecodedDocument, FingerprintedDocument, SkippedFile
from simdup.text.features import extract_features
from simdup.text.normalize import DEFAULT_IGNORABLE
from simdup.text.processor import DocumentProcessor
from simdup.text.segmentation import get_segmenter, resolve_backend

EXAMPLES = int(os.environ.get("SIMDUP_FUZZ_EXAMPLES", "200"))
TIME_LIMIT = 2.0  # seconds per call
SOURCES = ("bom", "utf-8", "detected", "fallback")

fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

T = TypeVar("T")


def timed(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, failing if the call takes ``TIME_LIMIT`` seconds or more."""
    start = time.perf_counter()
    try:
        return fn(*args, **kwargs)
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < TIME_LIMIT, f"{fn.__name__} took {elapsed:.2f} s"


# ---------------------------------------------------------------- strategies

# Text without control characters other than whitespace, and not starting with a magic
# number: what a text file holds.
printable_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), whitelist_characters="\n\t"),
    min_size=1,
    max_size=300,
).map(lambda s: "x" + s)

_PREFIXES = [
    b"",
    codecs.BOM_UTF8,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    b"%PDF-",
    b"PK\x03\x04",
    b"\x00",
    b"\x1f\x8b",
]
_CODECS = [
    "utf-8",
    "utf-16-le",
    "utf-16-be",
    "utf-32-le",
    "gb18030",
    "big5",
    "shift_jis",
    "euc-kr",
    "cp1252",
    "koi8-r",
    "utf-7",
]


@st.composite
def file_bytes(draw: st.DrawFn) -> bytes:
    """Bytes shaped like real files: text in some codec, maybe a BOM or magic number in front,
    maybe cut at any byte, maybe with garbage appended."""
    data = draw(st.text(max_size=400)).encode(draw(st.sampled_from(_CODECS)), errors="replace")
    if draw(st.booleans()):
        data += draw(st.binary(max_size=64))
    if data and draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return draw(st.sampled_from(_PREFIXES)) + data


any_bytes = st.one_of(st.binary(max_size=4000), file_bytes())

# Mostly CJK (common characters, so jieba has real words to find), with Latin words,
# digits, punctuation and whitespace mixed in.
_COMMON_HAN = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
    "同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自"
    "二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日"
    "那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变"
    "条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总"
    "次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指"
    "几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器"
    "压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安"
    "场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集"
    "温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连"
    "断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精"
    "值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属"
    "圆包火住调满县局照参红细引听该铁价严"
)
mixed_text = st.text(
    st.one_of(
        st.sampled_from(_COMMON_HAN),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FD5),
        st.sampled_from(list("abcXYZ019 _-,.;!?\n\t\u3000，。、《》（）ａＢ１")),
        st.characters(),
    ),
    max_size=300,
)
any_text = st.one_of(st.text(max_size=300), mixed_text)
ascii_words = st.lists(st.from_regex(r"[A-Za-z0-9]{1,12}", fullmatch=True), min_size=1, max_size=60)


# ---------------------------------------------------------------- decoding


def _decode(data: bytes) -> tuple[str, str, str, float] | str:
    """``decode_bytes(data)``, or the DecodeFailure message; any other exception propagates."""
    try:
        return timed(decode_bytes, data)
    except DecodeFailure as exc:
        return f"DecodeFailure: {exc}"


@fuzz
@given(any_bytes)
def test_decode_bytes_returns_text_or_a_decode_failure(data: bytes) -> None:
    """Any bytes: a 4-tuple or DecodeFailure with a reason, nothing else; always the same."""
    outcome = _decode(data)
    assert _decode(data) == outcome  # deterministic
    if isinstance(outcome, str):
        assert outcome != "DecodeFailure: "  # a reason is given
        return
    assert isinstance(outcome, tuple) and len(outcome) == 4
    text, encoding, source, confidence = outcome
    assert isinstance(text, str) and isinstance(encoding, str) and encoding
    assert source in SOURCES
    assert isinstance(confidence, float) and 0.0 <= confidence <= 1.0
    text.encode("utf-8")  # no lone surrogates: later stages hash UTF-8 bytes
    codecs.lookup(encoding.removesuffix("-bom").replace("utf-8-sig", "utf-8"))


@fuzz
@given(printable_text)
def test_utf8_text_round_trips(text: str) -> None:
    """Valid UTF-8 text decodes to itself, as certain UTF-8."""
    assert timed(decode_bytes, text.encode("utf-8")) == (text, "utf-8", "utf-8", 1.0)


@fuzz
@given(printable_text, st.sampled_from(["utf-8-sig", "utf-16", "utf-16-be", "utf-32"]))
def test_bom_text_round_trips(text: str, codec: str) -> None:
    """Text with a BOM (UTF-8, UTF-16 LE/BE, UTF-32) decodes to itself."""
    data = text.encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data
    decoded, _, source, _ = timed(decode_bytes, data)
    assert (decoded, source) == (text, "bom")


@fuzz
@given(
    st.text(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.just("\n"),
        min_size=2,
        max_size=300,
    ),
    st.sampled_from(["utf-16-le", "utf-16-be"]),
)
def test_ascii_utf16_without_bom_is_detected(text: str, codec: str) -> None:
    """ASCII text in UTF-16 without a BOM is recognised by where its NUL bytes fall."""
    assert timed(decode_bytes, text.encode(codec)) == (text, codec, "detected", 0.9)


# ---------------------------------------------------------------- features

_FULL_WIDTH_ASCII = re.compile("[\uff01-\uff5e]")
_NO_STOPWORDS: frozenset[str] = frozenset()


@fuzz
@given(any_text, st.sampled_from(MARKUPS))
def test_features_of_any_text_are_deterministic_and_folded(text: str, markup: str) -> None:
    """Any text: the same terms every time, case-folded, half-width, no spaces inside."""
    fv = timed(extract_features, text, get_segmenter(), _NO_STOPWORDS, markup=markup)
    again = extract_features(text, get_segmenter(), _NO_STOPWORDS, markup=markup)
    assert fv.as_dict() == again.as_dict()
    assert (fv.content_hash, fv.chars, fv.token_count) == (
        again.content_hash, again.chars, again.token_count,
    )  # fmt: skip
    for term in fv.terms:
        assert term and not any(ch.isspace() for ch in term), term
        assert not re.search("[A-Z]", term), term
        assert not _FULL_WIDTH_ASCII.search(term), term


@fuzz
@given(st.text(st.characters(max_codepoint=0x7F), max_size=300))
def test_ascii_terms_are_the_lowercased_words(text: str) -> None:
    fv = timed(extract_features, text, get_segmenter(), _NO_STOPWORDS, markup="none",
               weighting="tf")  # fmt: skip
    want: dict[str, float] = {}
    for word in re.findall(r"[A-Za-z0-9]+", text):
        want[word.lower()] = want.get(word.lower(), 0.0) + 1.0
    assert fv.as_dict() == want


# ---------------------------------------------------------------- segmentation


@fuzz
@given(any_text)
def test_tokens_of_any_text_are_words(text: str) -> None:
    """Tokens are non-empty substrings of the text of letters, digits and marks only."""
    tokens = timed(get_segmenter().tokens, text)
    assert isinstance(tokens, list)
    for token in tokens:
        assert isinstance(token, str) and token
        assert not any(ch.isspace() for ch in token), token
        assert all(unicodedata.category(ch)[0] in "LNM" for ch in token), token
        assert token in text
    assert get_segmenter().tokens(text) == tokens


def _has_rjieba() -> bool:
    try:
        return resolve_backend("rjieba") == "rjieba"
    except simdup.SimdupError:
        return False


@pytest.mark.skipif(not _has_rjieba(), reason="rjieba is not installed")
@fuzz
@given(any_text)
def test_jieba_and_rjieba_give_the_same_tokens(text: str) -> None:
    """Both backends produce identical tokens, so fingerprints do not depend on the backend."""
    python = timed(get_segmenter("jieba").tokens, text)
    assert timed(get_segmenter("rjieba").tokens, text) == python


# ---------------------------------------------------------------- fingerprinting


@fuzz
@given(any_text)
def test_fingerprint_of_any_text(text: str) -> None:
    """Any text has a deterministic 64-bit fingerprint."""
    fp = timed(simdup.fingerprint, text)
    assert isinstance(fp, int) and 0 <= fp < 1 << 64
    assert simdup.fingerprint(text) == fp


@fuzz
@given(
    ascii_words,
    st.lists(st.sampled_from([" ", "\n", "\t", "  ", "\r\n", "\u3000"]), min_size=60, max_size=60),
)
def test_fingerprint_ignores_case_width_and_layout(words: list[str], gaps: list[str]) -> None:
    """Upper case, full-width letters and the whitespace between words do not count."""
    plain = " ".join(words)
    relaid = "".join(w + g for w, g in zip(words, gaps, strict=False))
    full_width = " ".join("".join(chr(ord(c) + 0xFEE0) for c in w) for w in words)
    fp = timed(simdup.fingerprint, plain)
    assert simdup.fingerprint(plain.upper()) == fp
    assert simdup.fingerprint(relaid) == fp
    assert simdup.fingerprint(full_width) == fp


# Any default-ignorable code point, the zero-width ones most often.
ignorable = st.one_of(
    st.sampled_from(list("\u200b\u200c\u200d\u2060\ufeff\u00ad")),
    st.sampled_from(DEFAULT_IGNORABLE).flatmap(lambda r: st.integers(*r)).map(chr),
)
english_text = ascii_words.map(" ".join)
chinese_text = st.text(st.sampled_from(_COMMON_HAN + "，。、！？\n "), min_size=1, max_size=300)


@st.composite
def sprinkled(draw: st.DrawFn, text: str) -> str:
    """``text`` with default-ignorable code points inserted: after every character, or runs of
    them at arbitrary positions."""
    if draw(st.booleans()):
        return "".join(ch + draw(ignorable) for ch in text)
    marks = st.text(ignorable, min_size=1, max_size=3)
    inserts = draw(st.lists(st.tuples(st.integers(0, len(text)), marks), min_size=1, max_size=20))
    for at, run in sorted(inserts, reverse=True):
        text = text[:at] + run + text[at:]
    return text


sprinkled_copies = st.one_of(english_text, chinese_text, any_text).flatmap(
    lambda t: st.tuples(st.just(t), sprinkled(t))
)


@fuzz
@given(sprinkled_copies)
def test_default_ignorables_change_no_fingerprint(pair: tuple[str, str]) -> None:
    """Default-ignorable code points (zero-width space and joiners, BOM, soft hyphen, variation
    selectors, ...) inserted anywhere change no term, content hash, count or fingerprint."""
    text, copy = pair
    a = extract_features(text, get_segmenter(), _NO_STOPWORDS)
    b = timed(extract_features, copy, get_segmenter(), _NO_STOPWORDS)
    assert b.as_dict() == a.as_dict()
    assert (b.content_hash, b.chars, b.token_count) == (a.content_hash, a.chars, a.token_count)
    assert timed(simdup.fingerprint, copy) == simdup.fingerprint(text)


_PROCESSOR = DocumentProcessor(FeatureParams())


@fuzz
@given(any_bytes)
def test_any_bytes_become_a_fingerprint_or_a_skip(data: bytes) -> None:
    """The chain decode -> normalise -> segment -> fingerprint, on any bytes, never raises."""
    outcome = _decode(data)
    if isinstance(outcome, str):
        return
    text, encoding, source, confidence = outcome
    doc = DecodedDocument("fuzz.txt", text, encoding, source, confidence, len(data))
    result = timed(_PROCESSOR.document, doc)
    if isinstance(result, SkippedFile):
        assert result.stage == "features" and result.reason
    else:
        assert isinstance(result, FingerprintedDocument)
        assert 0 <= result.fingerprint < 1 << 64
        assert result.encoding_source == source
        assert _PROCESSOR.document(doc) == result


# ---------------------------------------------------------------- file names in reports


@fuzz
@given(st.binary(min_size=1, max_size=200))
def test_escaped_names_are_valid_utf8(raw: bytes) -> None:
    """Any file name (bytes, as os.fsdecode gives it to simdup) can be written as UTF-8."""
    name = os.fsdecode(raw)
    escape_path(name).encode("utf-8")
    display_path(name).encode("utf-8")


@fuzz
@given(st.text(max_size=100) | st.binary(max_size=100).map(os.fsdecode))
def test_displayed_names_are_printable(name: str) -> None:
    """Text output: no control, format, separator or surrogate character survives."""
    shown = timed(display_path, name)
    assert shown.isprintable(), repr(shown)
    assert "\n" not in shown and "\x1b" not in shown


@fuzz
@given(
    st.text(
        st.characters(
            blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"),
            # A backslash is written doubled on POSIX (unambiguous next to \\xNN escapes).
            blacklist_characters="\u00a0\\",
        ),
        max_size=100,
    )
)
def test_printable_utf8_names_are_shown_unchanged(name: str) -> None:
    assert escape_path(name) == name
    if name.isprintable():
        assert display_path(name) == name
