"""Human-readable renderers (scan clusters, skip summary, comparisons)."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from typing import TextIO

import numpy as np

from ..document_table import DocumentTable
from ..names import display_path, display_width, pad
from ..params import SHORT_TEXT_CHARS
from ..records import Comparison, Place, ScanResult
from .passages import has_passages, render_passages_text


def render_text(result: ScanResult, stream: TextIO) -> None:
    w = stream.write
    accepted = accepted_clusters(result)
    for c in result.clusters:
        mark = "  (accepted in the baseline)" if c.id in accepted else ""
        w(f"Cluster {c.id}: {plural(len(c.members), 'document')}, max distance "
          f"{c.max_distance}{mark}\n")  # fmt: skip
        width = max(display_width(display_path(m.path)) for m in c.members)
        for m in c.members:
            path = pad(display_path(m.path), width)
            if m.path == c.representative:
                w(f"  * {path}  representative\n")
                continue
            sim = "" if m.similarity is None else f"  similarity {m.similarity:.2f}"
            exact = "  exact duplicate" if m.exact_duplicate else ""
            w(f"    {path}  distance {m.distance:2d}{sim}{exact}\n")
        w("\n")
    if has_passages(result):
        render_passages_text(result.passages, result.repeated_passages, stream)
    s = result.stats
    in_clusters = sum(len(c.members) for c in result.clusters)
    # Only when nonzero: most scans ignore nothing, and the line is long enough.
    ignored = s.get("files_ignored", 0)
    ignored_text = f", {ignored} ignored" if ignored else ""
    w(
        f"{plural(s['files_fingerprinted'], 'document')} fingerprinted, "
        f"{s['files_skipped']} skipped{ignored_text}; "
        f"{plural(len(result.clusters), 'cluster')} holding {plural(in_clusters, 'document')}, "
        f"{plural(len(result.pairs), 'near-duplicate pair')}"
        + (f" ({len(result.accepted)} accepted in the baseline)" if result.accepted else "")
        + ".\n"
    )


def accepted_clusters(result: ScanResult) -> set[int]:
    """The ids of the clusters whose every pair the baseline accepts (none without one)."""
    if result.accepted is None:
        return set()
    open_pairs: set[tuple[str, str]] = {
        (p.a, p.b) for p in result.pairs if (p.a, p.b) not in result.accepted
    }
    found = set()
    for c in result.clusters:
        members = {m.path for m in c.members}
        if not any(a in members and b in members for a, b in open_pairs):
            found.add(c.id)
    return found


def plural(n: int, noun: str) -> str:
    """'1 file', '2 files'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# How a skip record says an optional dependency is missing (``errors.MissingExtraError``).
_NEEDS_EXTRA = "needs an optional dependency: "


def repaired_paths(result: ScanResult) -> list[str]:
    """The files whose text needed a repair to be read (encoding source "fallback": a few
    undecodable bytes replaced, or stray NUL bytes dropped)."""
    files = result.files
    if isinstance(files, DocumentTable):
        codes = [k for k, (_, source) in enumerate(files.encodings) if source == "fallback"]
        if not codes:
            return []
        rows = np.flatnonzero(np.isin(files.encoding, codes)).tolist()
        return [files.paths[r] for r in rows]
    return [f.path for f in files if f.encoding_source == "fallback"]


def render_repair_summary(result: ScanResult, stream: TextIO, limit: int = 20) -> None:
    """The files read with a repair (to stderr): they were scanned, but not as they stand."""
    repaired = repaired_paths(result)
    if not repaired:
        return
    stream.write(
        f"simdup: warning: {plural(len(repaired), 'file')} read with a repair (a few "
        "undecodable bytes replaced, or stray NUL bytes dropped; encoding_source "
        '"fallback"):\n'
    )
    for path in repaired[:limit]:
        stream.write(f"  {display_path(path)}\n")
    if len(repaired) > limit:
        stream.write(f"  ... and {len(repaired) - limit} more (see --format json)\n")


def render_skip_summary(result: ScanResult, stream: TextIO, limit: int = 20) -> None:
    """The skipped files (to stderr): counts per reason kind; one line per missing optional
    dependency (the files of formats it reads: how many, which formats, the install line);
    then the first ``limit`` others."""
    if not result.skipped:
        return
    by_stage = Counter(s.stage for s in result.skipped)
    stages = ", ".join(f"{n} at {stage}" for stage, n in sorted(by_stage.items()))
    stream.write(f"simdup: skipped {plural(len(result.skipped), 'file')} ({stages}):\n")
    needing: dict[str, Counter[str]] = {}
    listed = []
    for s in result.skipped:
        before, found, install = s.reason.partition(_NEEDS_EXTRA)
        if found:
            needing.setdefault(install, Counter())[before.partition(":")[0]] += 1
        else:
            listed.append(s)
    for install, formats in needing.items():
        names = ", ".join(sorted(formats))
        count = sum(formats.values())
        verb = "needs" if count == 1 else "need"
        stream.write(
            f"  {plural(count, 'file')} ({names}) {verb} an optional dependency: {install}\n"
        )
    for s in listed[:limit]:
        stream.write(f"  {display_path(s.path)}: {s.reason}\n")
    if len(listed) > limit:
        stream.write(f"  ... and {len(listed) - limit} more (see --format json)\n")


def render_comparison_text(c: Comparison, stream: TextIO) -> None:
    w = stream.write
    verdict = "near-duplicates" if c.near_duplicate else "not near-duplicates"
    for side, doc in (("A", c.a), ("B", c.b)):
        # A short text's features are its character bigrams (params.SHORT_TEXT_CHARS).
        kind = "character bigrams" if doc.chars < SHORT_TEXT_CHARS else "words"
        counted = f"{doc.feature_count} distinct {kind}"
        w(f"{side}: {display_path(doc.path)}  ({doc.encoding}, {counted})\n")
    w(f"fingerprints       {c.a.fingerprint:016x}  {c.b.fingerprint:016x}\n")
    s = c.settings
    if s.get("verify", True):
        radius = max(c.threshold, s.get("verify_radius") or 0)
        rule = f"verified up to distance {radius}"
    else:
        rule = f"threshold {c.threshold}"
    w(f"hamming distance   {c.distance} ({rule})\n")
    w(f"simhash similarity {c.simhash_similarity:.4f}\n")
    w(f"tf-idf cosine      {c.cosine:.4f}\n")
    w(f"jaccard (words)    {c.jaccard:.4f}\n")
    w(f"length ratio       {c.length_ratio:.4f}\n")
    w(f"verdict            {verdict} ({c.reason})\n")
    if c.shared_terms:
        w("\nshared terms (weight in A / B):\n")
        for t in c.shared_terms:
            w(f"  {t.term}  {t.weight_a:.2f} / {t.weight_b:.2f}\n")
    for label, terms, pick in (("only in A", c.only_a, 0), ("only in B", c.only_b, 1)):
        if terms:
            w(f"\n{label}:\n")
            for t in terms:
                w(f"  {t.term}  {(t.weight_a, t.weight_b)[pick]:.2f}\n")
    if c.diff:
        w(f"\nchanged passages ({plural(len(c.diff), 'passage')}):\n")
        for h in c.diff:
            w(
                f"@@ A {_span(h.a_start, h.a_end)}{_place(h.a_place)}"
                f"  B {_span(h.b_start, h.b_end)}{_place(h.b_place)}\n"
            )
            if len(h.a_lines) == len(h.b_lines):
                # Lines changed in place (a paragraph is often one line): each once, with its
                # changes marked, unless the two have little left in common.
                for line_a, line_b in zip(h.a_lines, h.b_lines, strict=True):
                    marked = marked_changes(line_a, line_b)
                    if marked is None:
                        w(f"- {_printable(line_a)}\n+ {_printable(line_b)}\n")
                    else:
                        w(f"~ {marked}\n")
                continue
            for line in h.a_lines:
                w(f"- {_printable(line)}\n")
            for line in h.b_lines:
                w(f"+ {_printable(line)}\n")
        if c.diff_truncated:
            w("(more changes not shown)\n")


# What a change inside a line is measured in: a CJK character (Chinese and Japanese are
# written without spaces), a word, a run of spaces, a punctuation mark; in a line too long to
# match so finely, its clauses first, then the pieces of the clauses that changed.
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PIECE = re.compile(f"[{_CJK_CHARS}]|[^\\W{_CJK_CHARS}]+|\\s+|.", re.S)
_STOPS = "。！？；，、.!?;,"
_CLAUSE = re.compile(f"[^{_STOPS}]*[{_STOPS}]+\\s*|[^{_STOPS}]+", re.S)
# Lines whose pieces multiply past this are matched by clauses first: matching costs up to
# the product (two lines of 2,000 characters of Chinese: ~0.3 s).
MAX_MARKED_WORK = 4_000_000
# Two lines with less than this share of their characters in common are shown as two lines.
MIN_MARKED_SIMILARITY = 0.5


def marked_changes(a: str, b: str) -> str | None:
    """Line ``a`` edited into ``b`` as one line, what was removed marked ``[-...-]`` and what
    was added ``{+...+}`` (as ``git diff --word-diff`` marks them); None when the two have less
    than ``MIN_MARKED_SIMILARITY`` of their characters in common (they read better apart)."""
    segments = _segments(a, b, clauses=True)
    same = sum(len(text) for tag, text, _ in segments if tag == "equal")
    if 2 * same < MIN_MARKED_SIMILARITY * (len(a) + len(b)):
        return None
    out: list[str] = []
    for tag, removed, added in segments:
        if tag == "equal":
            out.append(_printable(removed))
            continue
        if removed:
            out.append(f"[-{_printable(removed)}-]")
        if added:
            out.append(f"{{+{_printable(added)}+}}")
    return "".join(out)


def _segments(a: str, b: str, clauses: bool) -> list[tuple[str, str, str]]:
    """``a`` into ``b`` as (``difflib`` tag, text of a, text of b), by pieces where the work
    allows, else (``clauses``) by clauses and then by the pieces of each changed stretch."""
    pieces_a, pieces_b = _PIECE.findall(a), _PIECE.findall(b)
    coarse = len(pieces_a) * len(pieces_b) > MAX_MARKED_WORK
    if coarse:
        pieces_a, pieces_b = _CLAUSE.findall(a), _CLAUSE.findall(b)
        if not clauses or len(pieces_a) * len(pieces_b) > MAX_MARKED_WORK:
            return [("replace", a, b)]
    matcher = difflib.SequenceMatcher(None, pieces_a, pieces_b, autojunk=False)
    out: list[tuple[str, str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        removed, added = "".join(pieces_a[i1:i2]), "".join(pieces_b[j1:j2])
        if coarse and tag == "replace":
            out.extend(_segments(removed, added, clauses=False))
        else:
            out.append((tag, removed, added))
    return out


def _span(start: int, end: int) -> str:
    """'12-14', '12', or 'none before 12' for an insertion point."""
    if end < start:
        return f"after line {start - 1}" if start > 1 else "at the start"
    return f"line {start}" if end == start else f"lines {start}-{end}"


def _place(place: Place | None) -> str:
    """' (p. 12 (iv))' for lines of a paged document, else '' (a Markdown or HTML file's
    place is its lines, said already)."""
    return "" if place is None or place.kind == "line" else f" ({place.label()})"


def _printable(line: str) -> str:
    """A line of a document for the terminal: control characters escaped."""
    if line.isprintable():
        return line
    return "".join(ch if ch.isprintable() or ch == "\t" else f"\\x{ord(ch):02x}" for ch in line)
