"""Where a passage begins and ends: a copy is found on exact runs of a k-gram or more, so its
first or last few tokens past an edit near its edge, and its lines without words (a code
fence, a closing brace), are found here, after it.

- ``extended``: a copy's ends moved out over one more edit, as its runs are chained inside it
  (at most ``gap`` differing tokens on each side), to the equal tokens after it, too few to
  seed ("``name: 'my-module'``" between two edited words) or left out of the copy's
  stretch;
- ``widened``: its regions with the lines next to them that have characters but no word and
  are the same on both sides.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

import numpy as np

from ..algorithms.fragments import Match
from ..records import PassagePair, PassageSpan
from .documents import DocumentPassages

# A run beyond a copy's end is taken into it when it weighs at least this many words (a CJK
# character 8/13): one equal word after a few differing ones is as often chance (two texts'
# "the", a newsletter's standing label) as a copy.
MIN_EDGE_RUN = 2.0


def _reach(a: list[int], weights: np.ndarray, b: list[int], gap: int) -> list[tuple[int, int, int]]:
    """How far a copy may go on into ``a`` (its tokens' ``weights`` in words) and ``b``
    (tokens from its end, in reading order): each run of equal tokens weighing at least
    ``MIN_EDGE_RUN`` words reached with at most ``gap`` differing tokens on each side in all,
    as (tokens of ``a``, of ``b``, equal tokens) up to its end, nearest first."""
    from rapidfuzz.distance import Indel

    reached: list[tuple[int, int, int]] = []
    taken = differ_a = differ_b = 0
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            size = op.src_end - op.src_start
            if float(weights[op.src_start : op.src_end].sum()) >= MIN_EDGE_RUN - 1e-9:
                taken += size
                reached.append((op.src_end, op.dest_end, taken))
                continue
            differ_a += size
            differ_b += size
        else:
            differ_a += op.src_end - op.src_start
            differ_b += op.dest_end - op.dest_start
        if differ_a > gap or differ_b > gap:
            break
    return reached


def _fills(doc: DocumentPassages, edge: int, was: int, first: int, last: int, share: float) -> bool:
    """Whether a copy's new end ``edge`` (its end was ``was``) is on the same line, or on a
    line of ``doc`` of whose tokens the copy, tokens ``first..last``, holds at least
    ``share``."""
    lo, hi = doc.tokens_of_line(edge)
    if lo <= was < hi:
        return True
    return min(hi - 1, last) - max(lo, first) + 1 >= share * (hi - lo)


def extended(
    m: Match, doc_a: DocumentPassages, doc_b: DocumentPassages, kgram: int, gap: int, share: float
) -> Match:
    """``m`` (tokens of ``doc_a`` and of ``doc_b``) with its ends moved out to the furthest
    equal run within one edit (``_reach``) and two k-grams and gaps beyond them that stays on
    the line of the end, or reaches a line the copy then fills (``share`` of its tokens, on
    each side, as ``options.LINE_SHARE`` asks of a whole copy's lines): a copy does not end on
    a line of which it holds a word or two."""
    window = 2 * (kgram + gap)
    a, b, weights = doc_a.tokens.hashes, doc_b.tokens.hashes, doc_a.tokens.weights
    after = slice(m.last + 1, m.last + 1 + window)
    after_b = b[m.source_last + 1 : m.source_last + 1 + window].tolist()
    on_a = on_b = more = 0
    for x, y, equal in reversed(_reach(a[after].tolist(), weights[after], after_b, gap)):
        last_a, last_b = m.last + x, m.source_last + y
        if _fills(doc_a, last_a, m.last, m.first, last_a, share) and _fills(
            doc_b, last_b, m.source_last, m.source_first, last_b, share
        ):
            on_a, on_b, more = x, y, equal
            break
    before = slice(max(0, m.first - window), m.first)
    before_b = b[max(0, m.source_first - window) : m.source_first].tolist()[::-1]
    back_a = back_b = earlier = 0
    for x, y, equal in reversed(
        _reach(a[before].tolist()[::-1], weights[before][::-1], before_b, gap)
    ):
        first_a, first_b = m.first - x, m.source_first - y
        if _fills(doc_a, first_a, m.first, first_a, m.last, share) and _fills(
            doc_b, first_b, m.source_first, first_b, m.source_last, share
        ):
            back_a, back_b, earlier = x, y, equal
            break
    if not (more or earlier):
        return m
    return replace(
        m,
        first=m.first - back_a,
        last=m.last + on_a,
        source_first=m.source_first - back_b,
        source_last=m.source_last + on_b,
        matched=m.matched + more + earlier,
    )


def widened(
    doc_a: DocumentPassages, a: PassageSpan, doc_b: DocumentPassages, b: PassageSpan
) -> tuple[PassageSpan, PassageSpan]:
    """Two regions of a copy with the lines next to them that have characters but no word
    (``DocumentPassages.bare``: a code fence, a closing brace, a comment's ``*/``) and are the
    same on both sides: a copy is found on words, so a code block's last lines (``}`` and the
    closing fence) were left out of it, though they were copied with it."""
    while a.start_line > 1 and b.start_line > 1:
        x, y = doc_a.bare_line(a.start_line - 1), doc_b.bare_line(b.start_line - 1)
        if x is None or y is None or x[0] != y[0]:
            break
        a = replace(a, start_line=a.start_line - 1, start_char=x[1])
        b = replace(b, start_line=b.start_line - 1, start_char=y[1])
    while a.end_line < doc_a.line_count and b.end_line < doc_b.line_count:
        x, y = doc_a.bare_line(a.end_line + 1), doc_b.bare_line(b.end_line + 1)
        if x is None or y is None or x[0] != y[0]:
            break
        a = replace(a, end_line=a.end_line + 1, end_char=x[2])
        b = replace(b, end_line=b.end_line + 1, end_char=y[2])
    return a, b


# Two lines of the files next to a copy that are not the same are taken into it when they are
# this alike (normalised Indel similarity of their whitespace-collapsed text: one or two
# edited characters in a line of code), or differ in one word only (``_one_word_changed``),
# or neither holds a word (``],`` and ``]``: punctuation edited in a line of brackets), at most
# ``ALIKE_IN_A_ROW`` in a row between lines that are the same; a renamed heading
# (``_heading_renamed``) next to the copy is taken in at its edge too.
ALIKE_FILE_LINE = 0.8
# A lightly edited copy can have two edited lines next to each other (a container's title
# changed, a full stop in the line after it), and a line that is the same after them. On the
# dev half of the collection of documentation pages with planted copies (issue 48), 1 -> 2
# found one copy more as .md and changed nothing else; 2 -> any number changed nothing on
# either half: the smallest kept.
ALIKE_IN_A_ROW = 2

# A line's words and its runs of other characters, in order.
_PIECES = re.compile(r"\w+|[^\w\s]+")


def _one_word_changed(x: str, y: str) -> bool:
    """Whether lines ``x`` and ``y`` differ in one word, another word in its place, and share
    a word or a run of other characters besides: an edited word in a short line that shows
    little or nothing when rendered (a fence's info string ``vue-html`` edited to ``vue-We``,
    ``</div>`` to ``</T>``, ``firstName,`` to ``description,`` in a code block), too short for
    the characters left to be ``ALIKE_FILE_LINE``. A line is only taken in so between lines
    the same on both sides (``_reach_lines``)."""
    a, b = _PIECES.findall(x), _PIECES.findall(y)
    if len(a) != len(b) or len(a) < 2:
        return False
    changed = [k for k in range(len(a)) if a[k] != b[k]]
    if len(changed) != 1:
        return False
    k = changed[0]
    return _is_word(a[k]) and _is_word(b[k])


# A Markdown ATX heading: its level's marks, then its title.
_HEADING = re.compile(r"(#{1,6})\s+(\S.*)")


def _heading_renamed(x: str, y: str) -> bool:
    """Whether lines ``x`` and ``y`` are headings of the same level whose titles differ in one
    word (``## vmForks`` and ``## redirection``, ``### useHead`` and ``### related``): a
    section copied with its heading renamed. Next to a copy (blank lines aside) such a line is
    taken into it even at its edge, where another line alike is not: a heading is the title of
    the section it stands at, so the same place and level is what a copied section shows when
    its title, often a single word, was changed."""
    a, b = _HEADING.fullmatch(x), _HEADING.fullmatch(y)
    if a is None or b is None or a.group(1) != b.group(1):
        return False
    return _one_word_changed(x, y)  # the level's marks are what the lines share besides


def _same_words(x: str, y: str) -> bool:
    """Whether lines ``x`` and ``y`` hold the same words in the same order (folded as tokens
    are, NFKC and case) and differ in punctuation only (``webpack。config.js``, ``},`` and
    ``}，``): a copy is found on its words, so such lines are the same to it."""
    a = [p for p in _PIECES.findall(_folded(x)) if _is_word(p)]
    b = [p for p in _PIECES.findall(_folded(y)) if _is_word(p)]
    if a or b:
        return a == b
    return _folded(x).replace(" ", "") == _folded(y).replace(" ", "")


def _folded(line: str) -> str:
    return unicodedata.normalize("NFKC", line).casefold()


def _is_word(piece: str) -> bool:
    return piece[0].isalnum() or piece[0] == "_"


FileLines = list[tuple[int, int, str, str]]


def file_lines(text: str) -> FileLines:
    """The lines of a file's characters: where each starts and ends (without its line break),
    its text with whitespace collapsed, and its text."""
    out: list[tuple[int, int, str, str]] = []
    at = 0
    for line in text.split("\n"):
        out.append((at, at + len(line), " ".join(line.split()), line))
        at += len(line) + 1
    return out


def _reach_lines(
    a: FileLines, at_a: int, b: FileLines, at_b: int, step: int
) -> tuple[int, int] | None:
    """The furthest lines (0-based) of ``a`` and ``b``, going from lines ``at_a`` and ``at_b``
    by ``step``, up to which the lines with characters are the same on both sides (empty
    lines skipped on each side alone; up to ``ALIKE_IN_A_ROW`` lines alike but not the same,
    ``ALIKE_FILE_LINE``, between two the same; a renamed heading right after the same lines
    too), or None."""
    from rapidfuzz.distance import Indel

    reached: tuple[int, int] | None = None
    loose = 0  # lines alike but not the same since the last the same
    i, j = at_a, at_b
    while 0 <= i < len(a) and 0 <= j < len(b):
        x, y = a[i][2], b[j][2]
        if not x or not y:
            i += step if not x else 0
            j += step if not y else 0
            continue
        if x == y or _same_words(x, y):
            reached, loose = (i, j), 0
        elif loose == ALIKE_IN_A_ROW or (
            Indel.normalized_similarity(x, y) < ALIKE_FILE_LINE
            and not _one_word_changed(x, y)
            and not (_WORD.search(x) is None and _WORD.search(y) is None)
        ):
            break
        else:
            if loose == 0 and _heading_renamed(x, y):
                reached = (i, j)
            loose += 1
        i, j = i + step, j + step
    return reached


def reached_in_files(
    a: PassageSpan, lines_a: FileLines, b: PassageSpan, lines_b: FileLines, whole: bool = False
) -> tuple[PassageSpan, PassageSpan]:
    """Two regions of a copy, in their files' lines (``lines_a``, ``lines_b``: ``file_lines``
    of the files' characters), with the lines of the files next to them that are the same on
    both sides: a Markdown file's lines that show nothing when rendered (a comment, front
    matter, a fence's info line, a ``<script setup>`` block, a ``:::`` container line) hold no
    word its passages are found on, nor does a line of code whose tags one side reads as
    HTML, yet they were copied with the words around them. ``whole`` (a Markdown file's
    region): its first and last lines whole where the rest of them is the same on both sides
    (``_whole_ends``), as the lines reached are; a plain text's copy runs from its first word
    to its last."""
    if a.end_line > len(lines_a) or b.end_line > len(lines_b):
        return a, b
    before = _reach_lines(lines_a, a.start_line - 2, lines_b, b.start_line - 2, -1)
    if before is not None:
        i, j = before
        a = replace(a, start_line=i + 1, start_char=lines_a[i][0])
        b = replace(b, start_line=j + 1, start_char=lines_b[j][0])
    after = _reach_lines(lines_a, a.end_line, lines_b, b.end_line, 1)
    if after is not None:
        i, j = after
        a = replace(a, end_line=i + 1, end_char=lines_a[i][1])
        b = replace(b, end_line=j + 1, end_char=lines_b[j][1])
    if whole:
        a, b = _whole_ends(a, lines_a, b, lines_b)
    return _placed(a), _placed(b)


def _whole_ends(
    a: PassageSpan, lines_a: FileLines, b: PassageSpan, lines_b: FileLines
) -> tuple[PassageSpan, PassageSpan]:
    """Two regions with the characters of their first and last lines before their first word
    and after their last taken in, where those are no word and the same on both sides (a
    comment's ``<!--`` and ``-->``, a tag's ``<`` and ``>``, a list's ``- ``): a copy is
    found from its first word to its last, yet its lines were copied whole."""
    la, lb = lines_a[a.start_line - 1], lines_b[b.start_line - 1]
    head = _same_rest(la, a.start_char, lb, b.start_char, before=True)
    if head is not None:
        a, b = (
            replace(a, start_char=a.start_char - head[0]),
            replace(b, start_char=b.start_char - head[1]),
        )
    la, lb = lines_a[a.end_line - 1], lines_b[b.end_line - 1]
    tail = _same_rest(la, a.end_char, lb, b.end_char, before=False)
    if tail is not None:
        a, b = replace(a, end_char=a.end_char + tail[0]), replace(b, end_char=b.end_char + tail[1])
    return a, b


def _same_rest(
    x: tuple[int, int, str, str], at_x: int, y: tuple[int, int, str, str], at_y: int, before: bool
) -> tuple[int, int] | None:
    """How many characters of lines ``x`` and ``y`` lie before (or after) offsets ``at_x`` and
    ``at_y``, to their first (or last) character that is not a space, when those are no word
    and the same on both sides; else None."""
    if not (x[0] <= at_x <= x[1] and y[0] <= at_y <= y[1]):
        return None
    if before:
        rest_x, rest_y = x[3][: at_x - x[0]], y[3][: at_y - y[0]]
        if rest_x.strip() != rest_y.strip() or _WORD.search(rest_x):
            return None
        return len(rest_x.lstrip()), len(rest_y.lstrip())
    rest_x, rest_y = x[3][at_x - x[0] :], y[3][at_y - y[0] :]
    if rest_x.strip() != rest_y.strip() or _WORD.search(rest_x):
        return None
    return len(rest_x.rstrip()), len(rest_y.rstrip())


# A word (of any script), as tokens are made of them.
_WORD = re.compile(r"[^\W_]")


def _placed(span: PassageSpan) -> PassageSpan:
    """``span`` with its place (the file's lines, for a rendered file) its lines again."""
    if span.place is None or span.place.kind != "line":
        return span
    return replace(span, place=replace(span.place, first=str(span.start_line),
                                       last=str(span.end_line)))  # fmt: skip


def _touch(x: PassageSpan, y: PassageSpan) -> bool:
    """Whether ``y``, later in the same file than ``x``, overlaps it or starts on the line
    after it."""
    return x.path == y.path and y.start_line <= x.end_line + 1 and y.end_line >= x.start_line


def _union(x: PassageSpan, y: PassageSpan) -> PassageSpan:
    """One region of a file spanning ``x`` and ``y``."""
    read = None
    if x.read_start is not None and y.read_start is not None:
        read = (min(x.read_start, y.read_start), max(x.read_end or 0, y.read_end or 0))
    return _placed(
        replace(
            x,
            start_line=min(x.start_line, y.start_line),
            end_line=max(x.end_line, y.end_line),
            start_char=min(x.start_char, y.start_char),
            end_char=max(x.end_char, y.end_char),
            words=max(x.words, y.words, x.words + y.words - _shared_words(x, y)),
            read_start=read[0] if read else x.read_start,
            read_end=read[1] if read else x.read_end,
        )
    )


def _shared_words(x: PassageSpan, y: PassageSpan) -> int:
    """About how many of the words of ``x`` and ``y`` are in both (by their characters)."""
    overlap = min(x.end_char, y.end_char) - max(x.start_char, y.start_char)
    size = max(1, x.end_char - x.start_char)
    return max(0, round(x.words * overlap / size))


def joined(pairs: list[PassagePair]) -> list[PassagePair]:
    """``pairs`` (in the order of their files and first regions) with two regions of one
    pair of files that overlap or touch, in the same order, on both sides, made one: a copy
    split by lines one side reads as text and the other as markup (the tail of a code block
    cut inside it, its tags hidden in one file only), its lines in between then reached
    (``reached_in_files``)."""
    out: list[PassagePair] = []
    for pair in pairs:
        last = out[-1] if out else None
        if last is not None and _touch(last.a, pair.a) and _touch(last.b, pair.b):
            out[-1] = replace(
                last,
                a=_union(last.a, pair.a),
                b=_union(last.b, pair.b),
                similarity=max(last.similarity, pair.similarity),
            )
            continue
        out.append(pair)
    return out


def with_written(pairs: list[PassagePair], written: list[PassagePair]) -> list[PassagePair]:
    """``pairs`` (found in the text as read) with the copies of the files' lines as written
    (``matching._as_written``), in the order of their files and first regions: a region of
    ``written`` that overlaps one of ``pairs`` of the same two files, on both sides, widens
    it (the two found the same copy); the others are added."""
    out = list(pairs)
    by_files: dict[tuple[str, str], list[int]] = {}
    for n, p in enumerate(out):
        by_files.setdefault((p.a.path, p.b.path), []).append(n)
    for w in written:
        places = by_files.get((w.a.path, w.b.path), [])
        hit = next((k for k in places if _overlap(out[k].a, w.a) and _overlap(out[k].b, w.b)), None)
        if hit is None:
            out.append(w)
        else:
            out[hit] = replace(out[hit], a=_union(out[hit].a, w.a), b=_union(out[hit].b, w.b))
    return sorted(out, key=lambda p: (p.a.path, p.b.path, p.a.start_line, p.b.start_line))


def _overlap(x: PassageSpan, y: PassageSpan) -> bool:
    return x.start_line <= y.end_line and y.start_line <= x.end_line
