"""Weighted features of one document: its terms (and optionally word bigrams), stopwords dropped.

A per-process ``Vocabulary`` gives every surface form (a word as written in a text) a code:
the slot of its term after NFKC and case folding (``normalize_term``), or "no term" for a
stopword. Terms have their 64-bit hash and IDF value stored by slot. ``textscan.digest`` counts a
text's tokens by code, remembering the codes of each unit (line) it has seen. Most words and
lines recur across documents, so normalising, hashing and segmenting happen once per process,
not once per occurrence.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

import numpy as np

from ..algorithms.hashing import content_hash, token_hash
from ..algorithms.minhash import mix64
from ..native import speedups
from ..params import SHORT_TEXT_CHARS
from ..records import FeatureVector
from .idf import jieba_table
from .normalize import (
    MARK_URL,
    MARKUP_MASKS,
    block_form,
    comparison_form,
    markup_marks,
    normalize_term,
    strip_ignorables,
    strip_markup,
    strip_urls,
)
from .segmentation import Segmenter
from .textscan import (
    CJK_RANGE,
    RUN_SEPARATOR,
    Memo,
    collapse,
    digest,
    memo_handle,
    new_memo,
    scan,
)

# A normalised form that is still one word (not split, no ideographs to segment).
_ONE_WORD = re.compile(rf"[^\W_{CJK_RANGE}]+")
_NOTHING = -1  # code of a surface form that stands for no term (a stopword, a separator)


class Vocabulary:
    """Per-process memo: surface form -> code, term -> (slot, 64-bit hash, IDF), unit -> codes.

    ``codes[surface]`` is the slot of its one term (>= 0), ``_NOTHING`` (-1: a stopword or a
    separator), or ``-2 - k`` for a surface form standing for several terms (``expansions[k]``:
    slots, repeated as often as the term occurs; NFKC can split a word, "½" -> "1", "2").
    Slot numbers depend on the order the process met the terms in; nothing reported does.
    ``memo`` maps a unit of text to the codes of its tokens (``textscan.digest``).
    """

    LIMIT = 1 << 21  # distinct surface forms kept before starting afresh (bounded memory)
    # The memo of units is started afresh past this many units or characters (~100 MB), and
    # never holds a unit longer than MEMO_MAX_UNIT characters (such lines rarely recur).
    MEMO_LIMIT = 1 << 17
    MEMO_CHARS = 1 << 24
    MEMO_MAX_UNIT = 1 << 14
    NEW_TERMS_PER_TEXT = 1 << 16

    def __init__(self, segmenter: Segmenter, stopwords: frozenset[str]) -> None:
        self.segmenter = segmenter
        self.stopwords = frozenset(normalize_term(strip_ignorables(w)) for w in stopwords)
        self._reset()

    def _reset(self) -> None:
        # unit of text -> int32 codes of its tokens (textscan.digest_python), held natively
        # where the extension is built (textscan.UnitMemo)
        self.memo: Memo = new_memo()
        self._memo_handle = memo_handle(self.memo)
        self.memo_chars = 0
        self.codes: dict[str, int] = {RUN_SEPARATOR: _NOTHING}
        self.expansions: list[list[int]] = []
        self.terms: list[str] = []
        self.slots: dict[str, int] = {}
        self.hashes = np.empty(1 << 14, dtype=np.uint64)
        self.idf = np.empty(1 << 14, dtype=np.float64)
        self._stored = 0  # slots whose hash and IDF are in the arrays (the rest: pending)
        self._pending_hashes: list[int] = []

    def ensure_room(self) -> None:
        """Start afresh when full; called between documents, never inside one."""
        if len(self.codes) > self.LIMIT or len(self.terms) > self.LIMIT:
            self._reset()
        elif len(self.memo) > self.MEMO_LIMIT or self.memo_chars > self.MEMO_CHARS:
            self.memo.clear()
            self.memo_chars = 0

    def slot(self, term: str) -> int:
        """The slot of a normalised term, added on first sight."""
        slot = self.slots.get(term)
        if slot is None:
            slot = self.slots[term] = len(self.terms)
            self.terms.append(term)
            self._pending_hashes.append(token_hash(term))
        return slot

    def _store_pending(self) -> None:
        """Move the hashes and IDF values of new terms into the arrays (once per document)."""
        if not self._pending_hashes:
            return
        end = len(self.terms)
        if end > self.hashes.size:
            size = max(end, 2 * self.hashes.size)
            self.hashes = np.resize(self.hashes, size)
            self.idf = np.resize(self.idf, size)
        new = np.array(self._pending_hashes, dtype=np.uint64)
        self.hashes[self._stored : end] = new
        self.idf[self._stored : end] = jieba_table().lookup(new)
        self._stored = end
        self._pending_hashes.clear()

    def terms_of(self, surface: str) -> list[str]:
        """The normalised terms a surface form stands for, stopwords included."""
        term = normalize_term(surface)
        if term == surface or _ONE_WORD.fullmatch(term):
            return [term]
        # NFKC can turn one word into several ("½" -> "1⁄2") or into ideographs (compatibility
        # forms): split the normalised form the way a text is split.
        counts, cjk = scan(term)
        pieces = [w for w, n in counts.items() for _ in range(n)]
        if cjk:
            pieces.extend(t for t in self.segmenter.cut(cjk) if t != RUN_SEPARATOR)
        return [normalize_term(p) for p in pieces]

    def code(self, surface: str) -> int:
        """The code of a surface form (see the class), computed on first sight."""
        code = self.codes.get(surface)
        if code is not None:
            return code
        slots = [self.slot(t) for t in self.terms_of(surface) if t not in self.stopwords]
        if not slots:
            code = _NOTHING
        elif len(slots) == 1:
            code = slots[0]
        else:
            code = -2 - len(self.expansions)
            self.expansions.append(slots)
        self.codes[surface] = code
        return code

    def _digest(self, text: str) -> tuple[bytes, bytes, dict[int, int], int]:
        """``textscan.digest`` of ``text`` with this vocabulary: slots and term frequencies (as
        bytes), the terms the dense tally had no room for (``other``), the token count."""
        # Room in the dense tally for the terms this text can add (more go to ``other``).
        n_slots = len(self.terms) + min(len(text), self.NEW_TERMS_PER_TEXT)
        slots_bytes, tf_bytes, other, tokens, stored = digest(
            text, self._memo_handle, self.codes, self.code, self.segmenter.cut, n_slots,
            self.MEMO_MAX_UNIT,
        )  # fmt: skip
        self.memo_chars += stored
        return slots_bytes, tf_bytes, other, tokens

    def features(self, text: str) -> tuple[np.ndarray, np.ndarray, int]:
        """Slots (distinct), term frequencies and token count of a text."""
        slots_bytes, tf_bytes, other, tokens = self._digest(text)
        self._store_pending()
        slots = np.frombuffer(slots_bytes, dtype=np.int64)
        tf = np.frombuffer(tf_bytes, dtype=np.float64)
        if not other:
            return slots, tf, tokens
        # Words that stand for several terms, and new terms beyond the room given above.
        extra_slots: list[int] = []
        extra_tf: list[float] = []
        for code, n in other.items():
            expanded = [code] if code >= 0 else self.expansions[-2 - code]
            extra_slots.extend(expanded)
            extra_tf.extend([float(n)] * len(expanded))
        every = np.concatenate([slots, np.array(extra_slots, dtype=np.int64)])
        unique, at = np.unique(every, return_inverse=True)
        # A surface form can share its term with another ("Word", "word", "ＷＯＲＤ").
        weights = np.concatenate([tf, extra_tf])
        return unique, np.bincount(at, weights=weights, minlength=unique.size), tokens


_VOCABULARIES: dict[tuple[int, frozenset[str]], Vocabulary] = {}


def forget_vocabularies() -> None:
    """Drop this process's vocabularies and memos (the next document starts from nothing)."""
    _VOCABULARIES.clear()


def vocabulary(segmenter: Segmenter, stopwords: frozenset[str]) -> Vocabulary:
    """The process's vocabulary for this segmenter and stopword list."""
    key = (id(segmenter), stopwords)
    vocab = _VOCABULARIES.get(key)
    if vocab is None or vocab.segmenter is not segmenter:
        vocab = _VOCABULARIES[key] = Vocabulary(segmenter, stopwords)
    return vocab


def term_info(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """64-bit hashes and jieba IDF values of normalised ``terms``."""
    hashes = np.array([token_hash(t) for t in terms], dtype=np.uint64)
    return hashes, jieba_table().lookup(hashes)


def weigh(tf: np.ndarray, idf: np.ndarray, weighting: str) -> np.ndarray:
    """Term weights from term frequencies (and IDF for ``tfidf``)."""
    if weighting == "tf":
        return tf
    if weighting == "binary":
        return np.ones_like(tf)
    logtf: np.ndarray = 1.0 + np.log(tf)
    return logtf if weighting == "logtf" else logtf * idf


def weighted_terms_python(
    slots: np.ndarray, tf: np.ndarray, hashes: np.ndarray, idf: np.ndarray, weighting: str
) -> tuple[np.ndarray, np.ndarray]:
    """The hashes and weights of the terms in ``slots`` with frequencies ``tf``, from the
    vocabulary's ``hashes`` and ``idf`` by slot (the reference definition)."""
    return hashes[slots], weigh(tf, idf[slots], weighting)


# The log-tf weight of each count below _LOG_TF.size as numpy computes it (1 + log k): the
# native weighting looks counts up here, so both give the same weights to the last bit (a
# libm's log may round otherwise than numpy's). Index 0 is never read (counts start at 1).
with np.errstate(divide="ignore"):
    _LOG_TF = 1.0 + np.log(np.arange(1 << 12, dtype=np.float64))
_WEIGHTING_CODES = {"tf": 0, "binary": 1, "logtf": 2, "tfidf": 3}


def weighted_terms(
    slots: np.ndarray, tf: np.ndarray, hashes: np.ndarray, idf: np.ndarray, weighting: str
) -> tuple[np.ndarray, np.ndarray]:
    """``weighted_terms_python``, in one native call where the accelerator is built (the two
    lookups and the weighting cost ~7 us a document in numpy calls, ~1 us so)."""
    if speedups is not None and sys.byteorder == "little":
        made = speedups.weighted_terms(
            slots, tf, hashes, idf, _LOG_TF, _WEIGHTING_CODES[weighting]
        )
        if made is not None:
            return np.frombuffer(made[0], dtype=np.uint64), np.frombuffer(made[1], np.float64)
    return weighted_terms_python(slots, tf, hashes, idf, weighting)


def _with_bigrams(
    text: str, segmenter: Segmenter, vocab: Vocabulary
) -> tuple[dict[str, int], int]:
    """Term counts with word bigrams (of neighbouring non-stopword terms), and token count."""
    words: list[str] = []
    tokens = segmenter.tokens(text)
    for surface in tokens:
        words.extend(t for t in vocab.terms_of(surface) if t not in vocab.stopwords)
    counts = Counter(words)
    counts.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
    return counts, len(tokens)


def extract_features(
    text: str,
    segmenter: Segmenter,
    stopwords: frozenset[str],
    *,
    markup: str = "markdown",
    weighting: str = "tfidf",
    ngram: int = 1,
    words_from: int = 0,
) -> FeatureVector:
    """The weighted words of ``text`` and its comparison form, without the markup the setting
    ``markup`` names (``params.MARKUPS``; ``auto`` is ``markdown``). A text shorter than
    ``words_from`` characters (whitespace collapsed) gets its form only, no words (a short
    text is judged by its characters: segmenting it would be wasted), and counts as tokens the
    ideographs and the other runs of its form."""
    # Before anything looks at the words: a zero-width character must not split one.
    text = strip_ignorables(text)
    collapsed = collapse(text)
    removed: list[str] = []
    # What a reader sees: no tags, link targets or front matter; a bare URL is shown, so it is
    # kept here and removed only from the words that weigh (its path fragments would make
    # unrelated documents collide).
    marks = markup_marks(text) & MARKUP_MASKS[markup] if markup != "none" else 0
    visible = strip_markup(text, removed, urls=False, marks=marks) if marks else text
    # A removal never makes a mark: the visible text can hold a URL only if the text did.
    urls = marks & MARK_URL and markup_marks(visible) & MARK_URL
    cleaned = strip_urls(visible, removed) if urls else visible
    # Exact duplicates are judged on the comparison form: the same words in the same order,
    # whatever the case, width, punctuation and spacing. A text of punctuation or markup alone
    # is its own form, as written.
    form = comparison_form(visible) or collapsed
    # A short text's paragraphs, list items and headings, marked in its form: a moved one is a
    # move.
    blocks = block_form(visible, form) if len(collapsed) < SHORT_TEXT_CHARS else form
    if len(collapsed) < words_from:
        return FeatureVector(
            (), _NO_SLOTS, _NO_HASHES, _NO_WEIGHTS, form_token_count(form),
            len(collapsed), content_hash(form), _NO_HASHES, form, blocks,
        )  # fmt: skip
    vocab = vocabulary(segmenter, stopwords)
    vocab.ensure_room()
    if ngram == 2:
        term_counts, token_count = _with_bigrams(cleaned, segmenter, vocab)
        table: list[str] = list(term_counts)
        slots = np.arange(len(table), dtype=np.int64)
        tf = np.fromiter(term_counts.values(), dtype=np.float64, count=len(table))
        hashes, idf = term_info(table)
        weights = weigh(tf, idf, weighting)
    else:
        slots, tf, token_count = vocab.features(cleaned)
        table = vocab.terms
        hashes, weights = weighted_terms(slots, tf, vocab.hashes, vocab.idf, weighting)
    return FeatureVector(
        table, slots, hashes, weights, token_count, len(collapsed),
        content_hash(form), markup_word_hashes("\n".join(removed)) if removed else _NO_HASHES,
        form, blocks,
    )  # fmt: skip


_NO_HASHES = np.empty(0, dtype=np.uint64)
_NO_SLOTS = np.empty(0, dtype=np.int64)
_NO_WEIGHTS = np.empty(0, dtype=np.float64)
# A short text's tokens: each ideograph or kana, each other run of its form.
_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FORM_TOKEN = re.compile(f"[{_IDEOGRAPHS}]|[^\\s{_IDEOGRAPHS}]+")


def form_token_count_python(form: str) -> int:
    """How many tokens a short text's form counts (``_FORM_TOKEN``; the reference
    implementation)."""
    return len(_FORM_TOKEN.findall(form))


def form_token_count(form: str) -> int:
    """``form_token_count_python``, natively where the accelerator is built (~0.3 us a short
    row; ~6 us through the pattern)."""
    if speedups is None:
        return form_token_count_python(form)
    return int(speedups.form_token_count(form))

# The words of the markup are hashed on their own, not as terms: most are URL fragments (ids,
# paths) seen once, which would fill the vocabulary and its memo (~40% of the characters of a
# short Markdown document; through the vocabulary they cost ~20 us a document, this ~1.5 us).
# A word is a maximal run of alphanumeric characters, compared as written but for ASCII case;
# its hash is FNV-1a over its code points, seeded and mixed, so never a term's hash.
_MARKUP_WORD = re.compile(r"[^\W_]+")
MARKUP_SEED = 0x6D61726B75702121  # "markup!!"
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def markup_word_hashes_python(text: str) -> np.ndarray:
    """``uint64`` hash of each word of ``text`` (markup removed from a document), in order,
    repeats kept (the reference implementation)."""
    out: list[int] = []
    for word in _MARKUP_WORD.findall(text):
        h = _FNV_OFFSET
        for ch in word:
            code = ord(ch)
            if 0x41 <= code <= 0x5A:  # A-Z
                code += 0x20
            h = ((h ^ code) * _FNV_PRIME) & _MASK
        out.append(h ^ MARKUP_SEED)
    return mix64(np.array(out, dtype=np.uint64))


def markup_word_hashes(text: str) -> np.ndarray:
    """``markup_word_hashes_python``, natively where the accelerator is built."""
    if speedups is None or sys.byteorder != "little":
        return markup_word_hashes_python(text)
    return np.frombuffer(speedups.markup_word_hashes(text), dtype=np.uint64)
