"""HTML renderer: one self-contained page (no scripts, no external resources).

The page has a summary (counts, settings, versions), a histogram of pair distances (inline
SVG), a list of clusters linking to each cluster, and per cluster a table of its members (with
the encoding each was decoded as) followed by, for every member, a side-by-side diff against the
representative. Skipped files are listed last with the stage and reason.

Like every renderer this is a function of ``(ScanResult, stream)``, with one addition: a
``ScanResult`` holds fingerprints, not texts, so the diffs need the files read again, and the
caller hands in ``read`` (a path to its decoded document or a skip record: the CLI gives the
scan's own reader and decoder, bounded by the scan's ``max_size``). A renderer reads nothing
itself. A file that can no longer be read or decoded, or is too large to diff, gets a note in
place of its diff; without ``read`` every diff is such a note. Diffs are line diffs (``difflib``) of
the decoded texts showing changed lines with ``DIFF_CONTEXT`` lines of context, at most
``MAX_DIFF_ROWS`` rows per member (the page says when a diff was cut); a changed line pair is
also diffed character by character so the edit inside a long paragraph stands out.

Everything taken from the scan or the files (texts, file names, reasons, settings) is escaped
with ``html.escape``; file names are first written with ``display_path``.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Iterator
from html import escape
from typing import TextIO

from ..__about__ import __version__
from ..names import display_path
from ..params import ALGORITHM_VERSION
from ..records import (
    Cluster,
    DecodedDocument,
    FingerprintedDocument,
    PassagePair,
    ScanResult,
    SkippedFile,
)
from ..text.lines import split_lines
from .page import (
    PAGE_STYLE,
    Write,
    html_page,
    inline_diff,
    path_html,
    setting_text,
    settings_details,
    skipped_section,
)
from .passages import has_passages, span_label

DIFF_CONTEXT = 3  # unchanged lines shown around each change
MAX_DIFF_ROWS = 120  # rows of one member's diff; the rest is cut with a note
MAX_LINE_CHARS = 2000  # characters of one line shown; longer lines are cut with a note
# Beyond this many characters in either text the line diff itself gets slow: note, no diff.
MAX_DIFF_CHARS = 2_000_000

# The page's rules after those of every report page (``PAGE_STYLE``).
_STYLE = (
    PAGE_STYLE
    + """.rep{font-weight:bold}
code,.diff td{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.summary td:first-child{color:#555}
nav ol{columns:2;column-gap:2em}nav li{margin:.15em 0}
details{margin:.5em 0}summary{cursor:pointer}
.note{color:#555;font-style:italic}.warn{color:#8a4b00}
.diff{width:100%;table-layout:fixed}
.diff td{white-space:pre-wrap;overflow-wrap:anywhere;border-color:#e3e3e3}
.diff .ln{width:3.5em;text-align:right;color:#888;background:#fafafa;user-select:none}
.diff th{font-weight:normal;font-family:ui-monospace,monospace;font-size:12px}
.diff tr.gap td{background:#eef3fb;color:#667;text-align:center}
.diff td.old{background:#fff1f0}.diff td.new{background:#effbef}
.diff td.none{background:#f6f6f6}
del{background:#ffc4c0;text-decoration:none}ins{background:#b8f0bd;text-decoration:none}
.hist text{font:11px system-ui,sans-serif;fill:#333}.hist rect.bar{fill:#4a78b5}
.top{font-size:12px}
.diff td.psg{background:#fff6cc}.diff td.ln.psg{background:#ffe88a;color:#333}
"""
)
# Passages drawn side by side (the rest are listed); lines of context around each region.
MAX_PASSAGES_SHOWN = 200
PASSAGE_CONTEXT = 2


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _encoding(doc: FingerprintedDocument | None) -> str:
    if doc is None:
        return ""
    return f"{escape(doc.encoding)} <span class=note>({escape(doc.encoding_source)})</span>"


def _summary(result: ScanResult, w: Write) -> None:
    s = result.stats
    rows = [
        ("documents found", s.get("files_found")),
        ("documents fingerprinted", s.get("files_fingerprinted", len(result.files))),
        ("files skipped", s.get("files_skipped", len(result.skipped))),
        ("files ignored", s.get("files_ignored")),
        ("near-duplicate pairs", len(result.pairs)),
        ("clusters", len(result.clusters)),
        ("bytes read", s.get("bytes_read")),
        ("seconds", (s.get("seconds") or {}).get("total")),
        ("simdup version", __version__),
        ("algorithm version", ALGORITHM_VERSION),
    ]
    w("<h2 id=summary>Summary</h2>\n<table class=summary>\n")
    for label, value in rows:
        if value is not None:
            shown = escape(setting_text(value))
            w(f"<tr><td>{escape(label)}</td><td class=num>{shown}</td></tr>\n")
    w("</table>\n")
    settings_details(result.settings, w)


def _histogram(result: ScanResult, w: Write) -> None:
    """Inline SVG bar chart of how many pairs lie at each Hamming distance."""
    w("<h2 id=histogram>Pair distances</h2>\n")
    if not result.pairs:
        w("<p class=note>No near-duplicate pairs.</p>\n")
        return
    counts = Counter(p.distance for p in result.pairs)
    top = max(counts)
    threshold = result.settings.get("threshold")
    if isinstance(threshold, int) and 0 <= threshold <= 256:
        top = max(top, threshold)
    peak = max(counts.values())
    bar, gap, height, left, bottom = 26, 6, 120, 34, 34
    width = left + (top + 1) * (bar + gap) + 10
    total = height + bottom + 16
    label = ", ".join(f"distance {d}: {counts[d]}" for d in sorted(counts))
    w(
        f"<svg class=hist width={width} height={total} viewBox='0 0 {width} {total}' "
        f"role=img aria-label='{escape(label)}' xmlns='http://www.w3.org/2000/svg'>\n"
    )
    base = 16 + height
    w(f"<line x1={left} y1={base} x2={width - 6} y2={base} stroke='#999'/>\n")
    w(f"<text x={left - 6} y={base} text-anchor=end>0</text>")
    w(f"<text x={left - 6} y=24 text-anchor=end>{peak}</text>\n")
    for d in range(top + 1):
        x = left + d * (bar + gap) + gap // 2
        n = counts.get(d, 0)
        h = round(height * n / peak)
        if n:
            w(
                f"<rect class=bar x={x} y={base - h} width={bar} height={h}>"
                f"<title>distance {d}: {_n(n, 'pair')}</title></rect>"
                f"<text x={x + bar // 2} y={base - h - 3} text-anchor=middle>{n}</text>"
            )
        w(f"<text x={x + bar // 2} y={base + 14} text-anchor=middle>{d}</text>\n")
    mid = left + (top + 1) * (bar + gap) // 2
    w(f"<text x={mid} y={base + 30} text-anchor=middle>Hamming distance</text>\n")
    if isinstance(threshold, int) and threshold <= top:
        x = left + (threshold + 1) * (bar + gap)
        w(
            f"<line x1={x} y1=10 x2={x} y2={base} stroke='#c33' stroke-dasharray='4 3'>"
            f"<title>threshold {threshold}</title></line>\n"
        )
    w("</svg>\n")
    beyond = sum(n for d, n in counts.items() if isinstance(threshold, int) and d > threshold)
    w(f"<p class=note>{_n(len(result.pairs), 'pair')}; the dashed line is the threshold")
    w(f" ({escape(setting_text(threshold))})")
    if beyond:
        w(f"; {_n(beyond, 'pair')} beyond it accepted by verification")
    w(".</p>\n")


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS]


def _cell(number: int | None, html: str, kind: str, cut: int) -> str:
    if number is None:
        return "<td class=ln></td><td class=none></td>"
    more = f"<span class=note> [… {cut} more characters]</span>" if cut > 0 else ""
    return f"<td class=ln>{number}</td><td class={kind}>{html}{more}</td>"


def _diff_rows(old: list[str], new: list[str]) -> Iterator[str]:
    """Side-by-side rows of changed lines with context; a ``gap`` row between hunks."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for n, group in enumerate(matcher.get_grouped_opcodes(DIFF_CONTEXT)):
        if n or group[0][1] or group[0][3]:
            i, j = group[0][1] + 1, group[0][3] + 1
            yield f"<tr class=gap><td colspan=4>⋯ line {i} ↔ line {j}</td></tr>"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    a, b = old[i1 + k], new[j1 + k]
                    ca, cb = _cut(a), _cut(b)
                    yield (
                        f"<tr>{_cell(i1 + k + 1, escape(ca), 'ctx', len(a) - len(ca))}"
                        f"{_cell(j1 + k + 1, escape(cb), 'ctx', len(b) - len(cb))}</tr>"
                    )
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                la: str | None = old[i1 + k] if i1 + k < i2 else None
                lb: str | None = new[j1 + k] if j1 + k < j2 else None
                ca, cb = _cut(la or ""), _cut(lb or "")
                if la is not None and lb is not None:
                    ha, hb = inline_diff(ca, cb)
                else:
                    ha, hb = escape(ca), escape(cb)
                na = None if la is None else i1 + k + 1
                nb = None if lb is None else j1 + k + 1
                left = _cell(na, ha, "old", len(la or "") - len(ca))
                right = _cell(nb, hb, "new", len(lb or "") - len(cb))
                yield f"<tr class=chg>{left}{right}</tr>"


# A path to its decoded document, or the record of why it cannot be read (the caller's reader).
Read = Callable[[str], DecodedDocument | SkippedFile]


def _read(path: str, read: Read | None) -> DecodedDocument | str:
    """The decoded text of ``path``, or why it cannot be shown."""
    if read is None:
        return "not read again (no reader given to the report)"
    decoded = read(path)
    if not isinstance(decoded, DecodedDocument):
        return f"cannot be read again ({decoded.reason})"
    if len(decoded.text) > MAX_DIFF_CHARS:
        return f"too large to diff ({len(decoded.text)} characters, limit {MAX_DIFF_CHARS})"
    return decoded


def _diff(
    rep_path: str, rep: DecodedDocument | str, path: str, read: Read | None, w: Write
) -> None:
    doc = _read(path, read)
    if isinstance(rep, str):
        w(
            f"<p class='note warn'>No diff: the representative {path_html(rep_path)} "
            f"{escape(rep)}.</p>\n"
        )
        return
    if isinstance(doc, str):
        w(f"<p class='note warn'>No diff: {path_html(path)} {escape(doc)}.</p>\n")
        return
    old, new = rep.text.splitlines(), doc.text.splitlines()
    w(
        "<table class=diff><colgroup><col class=ln><col><col class=ln><col></colgroup>\n"
        f"<tr><th colspan=2>{escape(display_path(rep_path))} ({escape(rep.encoding)})</th>"
        f"<th colspan=2>{escape(display_path(path))} ({escape(doc.encoding)})</th></tr>\n"
    )
    rows = 0
    cut = 0
    for row in _diff_rows(old, new):
        if rows >= MAX_DIFF_ROWS:
            cut += 1
            continue
        w(row + "\n")
        rows += 1
    if not rows:
        w("<tr><td colspan=4 class=note>No line differs in the decoded texts.</td></tr>\n")
    w("</table>\n")
    if cut:
        w(
            f"<p class='note warn'>Diff truncated: {rows} of {rows + cut} rows shown "
            f"(limit {MAX_DIFF_ROWS} per document).</p>\n"
        )


def _cluster(
    c: Cluster, files: dict[str, FingerprintedDocument], read: Read | None, w: Write
) -> None:
    w(f"<section id=cluster-{c.id}>\n")
    w(
        f"<h2>Cluster {c.id}: {_n(len(c.members), 'document')}, "
        f"max distance {c.max_distance}</h2>\n"
        "<p class=top><a href='#clusters'>↑ all clusters</a></p>\n"
        "<table class=members><tr><th>document</th><th>encoding</th><th>distance</th>"
        "<th>similarity</th><th>exact</th></tr>\n"
    )
    for k, m in enumerate(c.members):
        rep = m.path == c.representative
        sim = "" if m.similarity is None else f"{m.similarity:.2f}"
        row, label = (" class=rep", " (representative)") if rep else ("", "")
        name = (
            path_html(m.path)
            if rep
            else f"<a href='#cluster-{c.id}-member-{k}'>{path_html(m.path)}</a>"
        )
        w(
            f"<tr{row}><td>{name}{label}</td><td>{_encoding(files.get(m.path))}</td>"
            f"<td class=num>{m.distance}</td><td class=num>{sim}</td>"
            f"<td>{'yes' if m.exact_duplicate and not rep else ''}</td></tr>\n"
        )
    w("</table>\n")
    others = [(k, m) for k, m in enumerate(c.members) if m.path != c.representative]
    rep_text = _read(c.representative, read) if others else ""
    for k, m in others:
        w(
            f"<h3 id=cluster-{c.id}-member-{k}>{path_html(m.path)} against "
            f"{path_html(c.representative)} <span class=note>(distance {m.distance})</span></h3>\n"
        )
        _diff(c.representative, rep_text, m.path, read, w)
    w("</section>\n")


def _passage_side(lines: list[str], start: int, end: int) -> list[tuple[int, str, bool]]:
    """(line number, text, in the region) for the region's lines and some context."""
    first = max(1, start - PASSAGE_CONTEXT)
    last = min(len(lines), end + PASSAGE_CONTEXT, start + MAX_DIFF_ROWS - 1)
    return [(n, lines[n - 1], start <= n <= end) for n in range(first, last + 1)]


def _passage(
    k: int, p: PassagePair, texts: dict[str, list[str] | str], read: Read | None, w: Write
) -> None:
    """One passage: the two regions side by side, their lines highlighted (``td.psg``), the
    lines of the files (a Markdown or HTML file's as written, as its line numbers count)."""
    w(
        f"<h3 id=passage-{k}>{escape(span_label(p.a))} ≈ {escape(span_label(p.b))} "
        f"<span class=note>(similarity {p.similarity:.2f})</span></h3>\n"
    )
    sides = []
    for span in (p.a, p.b):
        if span.path not in texts:
            doc = _read(span.path, read)
            # A Markdown or HTML file's own lines: those the passage's line numbers count.
            lines = doc if isinstance(doc, str) else [
                x for x, _ in split_lines(doc.origin.text if doc.origin else doc.text)
            ]  # fmt: skip
            texts[span.path] = lines
        lines = texts[span.path]
        if isinstance(lines, str):
            w(f"<p class='note warn'>Not shown: {path_html(span.path)} {escape(lines)}.</p>\n")
            return
        sides.append(_passage_side(lines, span.start_line, span.end_line))
    w(
        "<table class='diff passage'><colgroup><col class=ln><col><col class=ln><col>"
        f"</colgroup>\n<tr><th colspan=2>{path_html(p.a.path)}</th>"
        f"<th colspan=2>{path_html(p.b.path)}</th></tr>\n"
    )
    left, right = sides
    for row in range(max(len(left), len(right))):
        cells = []
        for side in (left, right):
            if row >= len(side):
                cells.append("<td class=ln></td><td class=none></td>")
                continue
            number, text, inside = side[row]
            mark = " psg" if inside else ""
            cut = _cut(text)
            more = len(text) - len(cut)
            extra = f"<span class=note> [… {more} more characters]</span>" if more else ""
            cells.append(
                f"<td class='ln{mark}'>{number}</td><td class='{mark.strip() or 'ctx'}'>"
                f"{escape(cut)}{extra}</td>"
            )
        w(f"<tr>{''.join(cells)}</tr>\n")
    w("</table>\n")


def _passages(result: ScanResult, read: Read | None, w: Write) -> None:
    """The passages section (scan --passages): each region pair side by side, highlighted,
    and the repeated passages (boilerplate) listed with their places."""
    w("<h2 id=passages>Duplicated passages</h2>\n")
    if not result.passages:
        w("<p class=note>No duplicated passages.</p>\n")
    texts: dict[str, list[str] | str] = {}
    for k, p in enumerate(result.passages[:MAX_PASSAGES_SHOWN]):
        _passage(k, p, texts, read, w)
        if len(texts) > 64:  # memory stays bounded on a large report
            texts.clear()
    if len(result.passages) > MAX_PASSAGES_SHOWN:
        w("<p class='note warn'>Only the first passages are drawn:</p>\n<ul>\n")
        for p in result.passages[MAX_PASSAGES_SHOWN:]:
            w(f"<li>{escape(span_label(p.a))} ≈ {escape(span_label(p.b))}</li>\n")
        w("</ul>\n")
    if result.repeated_passages:
        w("<h3 id=repeated-passages>Repeated passages (boilerplate)</h3>\n<ul>\n")
        for rp in result.repeated_passages:
            places = ", ".join(escape(span_label(s)) for s in rp.occurrences)
            w(f"<li>in {_n(rp.count, 'document')}: {places}</li>\n")
        w("</ul>\n")


def render_html(result: ScanResult, stream: TextIO, read: Read | None = None) -> None:
    """Write the report page of ``result`` to ``stream``; the diffs show the clustered files as
    ``read`` gives them again."""
    w = stream.write
    files = {f.path: f for f in result.files}
    with html_page(w, title="simdup report", style=_STYLE):
        w("<h1>Near-duplicate documents</h1>\n")
        w(
            f"<p>{_n(len(result.clusters), 'cluster')} of near-duplicate documents among "
            f"{_n(len(result.files), 'document')}; {_n(len(result.skipped), 'file')} skipped.</p>\n"
        )
        _summary(result, w)
        _histogram(result, w)
        w("<h2 id=clusters>Clusters</h2>\n")
        if result.clusters:
            w("<nav><ol>\n")
            for c in result.clusters:
                w(
                    f"<li><a href='#cluster-{c.id}'>Cluster {c.id}</a>: "
                    f"{path_html(c.representative)} "
                    f"<span class=note>({_n(len(c.members), 'document')}, max distance "
                    f"{c.max_distance})</span></li>\n"
                )
            w("</ol></nav>\n")
        else:
            w("<p class=note>No clusters.</p>\n")
        for c in result.clusters:
            _cluster(c, files, read, w)
        if has_passages(result):
            _passages(result, read, w)
        skipped_section(result.skipped, w, title="Skipped files")
