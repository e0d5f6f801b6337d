"""``compare``: how close two documents are, and why (the scan's rule, with exact measures).

Both files are read through the one open function and fingerprinted like a scan's; the verdict
is ``Verifier.judge`` with the exact word-set Jaccard instead of its estimate; TF-IDF cosine and
the terms that are shared or differ most explain it.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .algorithms.simhash import BITS, hamming
from .errors import InputError
from .join.verify import Verifier
from .options import ScanOptions
from .readers import read_named, set_limits_of
from .records import (
    Comparison,
    DiffHunk,
    FeatureVector,
    FileText,
    FingerprintedDocument,
    Locations,
    Place,
    SharedTerm,
)
from .text.file_offsets import FileOffsets, file_offsets
from .text.particles import split_term, written_in_hiragana
from .text.processor import NOTHING_TO_JUDGE, processor_for


def _as_words(
    weights: dict[str, float], stopwords: frozenset[str], hiragana: bool
) -> dict[str, float]:
    """A document's weighted terms read as words (Japanese and Korean particles parted,
    ``text.particles``), stopwords left out, and words of hiragana alone unless ``hiragana``:
    they are Japanese grammar (a stretch between two function words is mostly an ending cut
    from its kanji: "える", "まれ"), which no dictionary here tells from the few content
    words so written. A word's weight is the sum of its terms'."""
    words: dict[str, float] = {}
    for term, weight in weights.items():
        for word in split_term(term):
            if word not in stopwords and (hiragana or not written_in_hiragana(word)):
                words[word] = words.get(word, 0.0) + weight
    return words


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    dot = sum(w * b[t] for t, w in a.items() if t in b)
    na = math.sqrt(sum(w * w for w in a.values()))
    nb = math.sqrt(sum(w * w for w in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def compare(
    path_a: str | os.PathLike[str],
    path_b: str | os.PathLike[str],
    options: ScanOptions | None = None,
    *,
    top: int = 10,
    explain: bool = False,
    stdin: bytes | None = None,
    **overrides: Any,
) -> Comparison:
    """How close two documents are, and why. Raises ``InputError`` if one cannot be read.

    ``explain``: also the changed passages (``Comparison.diff``). ``stdin``: the bytes of the
    document named ``-`` (standard input, read by the caller).
    """

    options = (
        replace(options or ScanOptions(), **overrides) if overrides else options or ScanOptions()
    )
    params = options.features
    set_limits_of(options.discovery)
    proc = processor_for(params)
    docs: list[FingerprintedDocument] = []
    vectors: list[FeatureVector] = []
    texts: list[str] = []
    where: list[Locations | None] = []
    origins: list[FileText | None] = []
    for path in (os.fspath(path_a), os.fspath(path_b)):
        decoded = read_named(path, options.discovery.max_size, stdin)
        texts.append(decoded.text)
        where.append(decoded.locations)
        origins.append(decoded.origin)
        fv = proc.features(decoded.text)
        if not fv.form:  # what scan cannot judge, compare cannot either
            raise InputError(path, NOTHING_TO_JUDGE)
        fp, sketch, _, feature_count = proc.record_parts(fv)
        vectors.append(fv)
        docs.append(
            FingerprintedDocument(
                path,
                fp,
                decoded.encoding,
                decoded.encoding_source,
                decoded.size,
                fv.token_count,
                feature_count,
                fv.content_hash,
                fv.chars,
                sketch,
            )
        )
    a, b = docs
    va, vb = vectors
    if params.weighting != "tfidf":
        tfidf_proc = processor_for(replace(params, weighting="tfidf"))
        va, vb = (tfidf_proc.features(t) for t in texts)
    tfidf_a, tfidf_b = va.as_dict(), vb.as_dict()
    cosine = _cosine(tfidf_a, tfidf_b)
    # The terms listed are words: a Japanese or Korean term may hold particles ("はとても").
    stopwords, hiragana = proc.vocabulary.stopwords, not params.stopwords
    tfidf_a = _as_words(tfidf_a, stopwords, hiragana)
    tfidf_b = _as_words(tfidf_b, stopwords, hiragana)
    sa, sb = set(tfidf_a), set(tfidf_b)
    # The word sets a scan's sketches hold: the terms and the words of the markup removed
    # (as their 64-bit hashes: the markup words are not terms).
    wa, wb = set(va.word_hashes.tolist()), set(vb.word_hashes.tolist())
    jaccard = len(wa & wb) / len(wa | wb) if wa | wb else 0.0
    distance = hamming(a.fingerprint, b.fingerprint)
    length_ratio = min(a.chars, b.chars) / max(a.chars, b.chars, 1)
    verdict = Verifier(options).judge(a, b, distance, similarity=jaccard)
    shared = sorted(sa & sb, key=lambda t: (-min(tfidf_a[t], tfidf_b[t]), t))[:top]
    only_a = sorted(sa - sb, key=lambda t: (-tfidf_a[t], t))[:top]
    only_b = sorted(sb - sa, key=lambda t: (-tfidf_b[t], t))[:top]

    def term(t: str) -> SharedTerm:
        return SharedTerm(t, round(tfidf_a.get(t, 0.0), 4), round(tfidf_b.get(t, 0.0), 4))

    return Comparison(
        a=a,
        b=b,
        distance=distance,
        simhash_similarity=1.0 - distance / BITS,
        cosine=round(cosine, 6),
        jaccard=round(jaccard, 6),
        threshold=options.threshold,
        near_duplicate=verdict.near,
        reason=verdict.reason,
        length_ratio=round(length_ratio, 4),
        shared_terms=tuple(term(t) for t in shared),
        only_a=tuple(term(t) for t in only_a),
        only_b=tuple(term(t) for t in only_b),
        settings=options.describe(proc.segmenter.backend),
        **(_explained(texts, where, origins) if explain else {}),
    )


def _explained(
    texts: list[str], where: list[Locations | None], origins: list[FileText | None]
) -> dict[str, Any]:
    """``changed_passages`` of the two texts, a Markdown or HTML file's lines given as the
    file's (``text.file_offsets``: an HTML page's text has lines of its own)."""
    offsets = [
        file_offsets(text, origin, locations) if origin is not None else None
        for text, origin, locations in zip(texts, origins, where, strict=True)
    ]
    return changed_passages(texts[0], texts[1], where[0], where[1], offsets[0], offsets[1])


# At most this many changed passages, each of at most MAX_HUNK_LINES lines a side, are kept.
MAX_HUNKS = 50
MAX_HUNK_LINES = 40


def changed_passages(
    text_a: str,
    text_b: str,
    where_a: Locations | None = None,
    where_b: Locations | None = None,
    offsets_a: FileOffsets | None = None,
    offsets_b: FileOffsets | None = None,
) -> dict[str, Any]:
    """The passages that differ between two texts, line by line (``difflib``: in the standard
    library, deterministic, and its matching blocks are the longest common runs, which reads
    well for prose; junk heuristics off so that repeated lines are not ignored); each with
    its place in a paged document (``where_a``, ``where_b``: its reader's locations). With
    ``offsets_a``/``offsets_b`` (a Markdown or HTML file's), the lines are the file's."""
    a, b = text_a.splitlines(), text_b.splitlines()
    place_a, place_b = _line_places(text_a, where_a), _line_places(text_b, where_b)
    lines_a, lines_b = _file_lines(text_a, offsets_a), _file_lines(text_b, offsets_b)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hunks: list[DiffHunk] = []
    truncated = False
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if len(hunks) == MAX_HUNKS:
            truncated = True
            break
        cut = i2 - i1 > MAX_HUNK_LINES or j2 - j1 > MAX_HUNK_LINES
        truncated = truncated or cut
        (a_start, a_end, a_place), (b_start, b_end, b_place) = (
            lines_a(i1, i2) or (i1 + 1, i2, place_a(i1, i2)),
            lines_b(j1, j2) or (j1 + 1, j2, place_b(j1, j2)),
        )
        hunks.append(
            DiffHunk(
                a_start,
                a_end,
                b_start,
                b_end,
                tuple(a[i1 : min(i2, i1 + MAX_HUNK_LINES)]),
                tuple(b[j1 : min(j2, j1 + MAX_HUNK_LINES)]),
                a_place,
                b_place,
            )
        )
    return {"diff": tuple(hunks), "diff_truncated": truncated}


def _line_places(text: str, locations: Locations | None) -> Callable[[int, int], Place | None]:
    """The place of lines ``lo:hi`` (0-based, as ``str.splitlines`` counts them) of ``text``
    (None: no locations, or no lines)."""
    if locations is None:
        return lambda lo, hi: None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def place(lo: int, hi: int) -> Place | None:
        if hi <= lo or hi >= len(starts):
            return None
        return locations.place(starts[lo], starts[hi])

    return place


def _file_lines(
    text: str, offsets: FileOffsets | None
) -> Callable[[int, int], tuple[int, int, Place | None] | None]:
    """The file's first and last line (1-based; last = first - 1: none) and place of lines
    ``lo:hi`` (0-based, as ``str.splitlines`` counts them) of ``text`` (None: no offsets)."""
    if offsets is None:
        return lambda lo, hi: None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def lines(lo: int, hi: int) -> tuple[int, int, Place | None] | None:
        begin = starts[min(lo, len(starts) - 1)]
        if hi <= lo:
            first = offsets.lines(*offsets.span(begin, begin))[0]
            return first, first - 1, None
        end = starts[min(hi, len(starts) - 1)]
        while end > begin and text[end - 1] in "\r\n":
            end -= 1  # the last line's break is no character of its own
        first, last = offsets.lines(*offsets.span(begin, max(end, begin + 1)))
        return first, last, Place("line", str(first), str(last))

    return lines
