"""HTML report of a duplicate check (查重): one self-contained page a teacher opens from a file
(inline CSS, no scripts, no external resources), in Chinese or English (``check --lang``,
``check_words``).

The page leads with the result. Several documents (a class) open with a table, one line per
document, the highest copy ratio first, with its largest source and that source's share and
category; the documents' reports follow in that order. For every checked document: its ratios
as big percentages (the total copy ratio 总文字复制比, without quotations, without the author's
own work, the largest single source), its warnings, a bar per section (its copied, own and
quoted parts in their colours), the table of its sources (each with its category: file, index,
checked in this run, own work), and its full text as the document shows it (its headings as
headings, emphasis without its marks) with every fragment marked:
copied text red (``mark.copied``), quoted text yellow (``mark.quoted``), the author's own
earlier work blue (``mark.own``) and text left out of the count grey (``mark.excluded``, its
title says why). A marked piece names its sources, their places and their text in its title
(shown on hover) and links to its fragment in the list of fragments below the text, where each
fragment sits beside its source's text with the words that differ marked (``inline_diff``, as
in the scan report; a translated, paraphrased or summarised one beside its source as it is).
Places are pages, paragraphs, chapters and lines, as the reader found them. How the ratios were
measured (the rule, the versions of the algorithm and the readers, every setting) comes after
the documents; skipped files last.

Fragments of several sources may overlap, and overlap quotations and excluded text: the text is
cut at every boundary and each piece is one ``mark`` carrying the classes of everything covering
it, so the marks never nest or overlap; the colour follows the order excluded > quoted > copied >
own (the order of the rules in the style sheet), as the ratios count. Heading lines are cut the
same way: each piece of one is inside a heading ``span``, its ``#`` marks hidden, and is not
marked as copied (a heading is not counted). Emphasis marks (``**``) are hidden too. A
fragment's text beside its source is its excerpt (``checking.excerpts``): as the reader sees it,
never cut inside a word or a citation marker.

Everything taken from the check (texts, paths, messages, settings) is escaped with
``html.escape``; paths are first written with ``display_path``.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from html import escape
from sys import maxsize as size_max
from typing import TextIO

from ..__about__ import __version__
from ..checking.excerpts import emphasis_marks
from ..checking.results import CheckResult, CopiedFragment, DocumentCheck, SectionRatio
from ..checking.rules import headings, markdown_headings
from ..names import display_path
from .check_words import Words
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

# Fragments described in the title of one marked piece; the rest are counted.
MAX_TITLE_FRAGMENTS = 5

# The page's rules after those of every report page (``PAGE_STYLE``).
_STYLE = (
    PAGE_STYLE
    + """
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}h2 code{font-size:17px}
.measured td:first-child{color:#555}
nav ol{columns:2;column-gap:2em}nav li{margin:.15em 0}
details{margin:.5em 0}summary{cursor:pointer}
.note{color:#555;font-style:italic}.warn{color:#8a4b00}.top{font-size:12px}
.ratios{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.ratio{border:1px solid #ccc;border-radius:4px;padding:.5em 1em;min-width:12em}
.ratio .label{color:#555;font-size:12px}.ratio .pct{font-size:2.2em;font-weight:bold}
.ratio.total{border-color:#c33}.ratio.total .pct{color:#b3261e}
.ratio .which{font-size:12px;overflow-wrap:anywhere}
.warnings{border:2px solid #e0a000;background:#fff8e1;border-radius:4px;padding:.3em 1em;
margin:1em 0}
.warnings h3{margin-top:.4em;color:#8a4b00}
.sections td.bar{width:22em}
.bar span{display:block;height:.9em;background:#d9534f;min-width:1px}
.bar .track{background:#eee;height:.9em;display:flex}
.bar span.own{background:#4a86e8}.bar span.quoted{background:#e0b000}
.swatch{display:inline-block;width:.9em;height:.9em;vertical-align:-.1em;margin:0 .3em 0 .8em}
.swatch.copied{background:#d9534f}.swatch.own{background:#4a86e8}
.swatch.quoted{background:#e0b000}
.badge{font-size:11px;border-radius:3px;padding:0 .4em;background:#eee;white-space:nowrap}
.badge.own,.badge.kind-own{background:#cfe2ff}.badge.kind-copied{background:#ffc4c0}
.badge.kind-quoted{background:#fff0a0}.badge.cat-checked{background:#e6dcf5}
.ranking td.doc{overflow-wrap:anywhere}
.legend mark{padding:0 .3em}
.doctext{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #e3e3e3;padding:1em;
background:#fcfcfc;font-size:15px;line-height:1.7}
mark{color:inherit}mark a{color:inherit;text-decoration:none}
mark.own{background:#cfe2ff}
mark.copied{background:#ffc4c0}
mark.quoted{background:#fff0a0}
mark.excluded{background:#eee;color:#888}
ol.fragments li{margin:.6em 0}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:.6em;margin-top:.2em}
.pair div{border:1px solid #e3e3e3;padding:.3em .6em;background:#fafafa;overflow-wrap:anywhere}
.pair .side{color:#555;font-size:12px;display:block}
.pair del{background:#ffc4c0;text-decoration:none}.pair ins{background:#c8f0c8;text-decoration:none}
.doctext .h{font-weight:bold}.doctext .h1{font-size:1.5em}.doctext .h2{font-size:1.3em}
.doctext .h3{font-size:1.15em}.doctext .hm{display:none}
"""
)

# Colour order, lowest first (the style sheet's order, so the last class listed wins), as the
# ratios count: text found in another source besides own work is copied (it counts in the
# ratio without own work), quoted text is quoted (left out of the ratio without quotations).
_KINDS = ("own", "copied", "quoted", "excluded")
_FROM = {"copied": "copied_from", "quoted": "quoted_from", "own": "own_from"}


def _pct(ratio: float) -> str:
    return f"{ratio * 100:.1f}%"


def _text(text: str) -> str:
    """Escaped document text; a carriage return as a reference (HTML parsing drops it)."""
    return escape(text, quote=False).replace("\r", "&#13;")


def _measured(result: CheckResult, t: Words, w: Write) -> None:
    """How this was measured: the rule behind every ratio, the versions, the readers, every
    setting (after the documents: a reader looks at the result first)."""
    s = result.settings
    w(f"<h2 id=measured>{escape(t['measured'])}</h2>\n")
    words, cjk, gap = s.get("min_match_words"), s.get("min_match_cjk_chars"), s.get("gap")
    if words is not None and cjk is not None:
        rule = t(
            "measured_rule", words=setting_text(words), cjk=setting_text(cjk), gap=setting_text(gap)
        )
        if s.get("exclude_references") or s.get("exclude_markers"):
            rule += t["measured_left_out"]
        w(f"<p>{escape(rule)}</p>\n")
    rows = [
        ("algorithm", s.get("algorithm")),
        ("simdup", s.get("simdup", __version__)),
        ("min_match_words", words),
        ("min_match_cjk_chars", cjk),
        ("gap", gap),
        ("min_density", s.get("min_density")),
        ("sources", result.source_count),
    ]
    w("<table class=measured>\n")
    for label, value in rows:
        if value is not None:
            shown = escape(setting_text(value))
            w(f"<tr><td>{escape(label)}</td><td><code>{shown}</code></td></tr>\n")
    readers = s.get("readers")
    if isinstance(readers, dict) and readers:
        listed = "; ".join(f"{k} {setting_text(v)}" for k, v in readers.items())
        w(f"<tr><td>readers</td><td><code>{escape(listed)}</code></td></tr>\n")
    w("</table>\n")
    if s:
        settings_details(s, w, t["all_settings"])


def _ratios(doc: DocumentCheck, d: str, ranks: dict[str, int], t: Words, w: Write) -> None:
    boxes = [
        ("total", "copy_ratio", doc.copy_ratio, ""),
        ("no-quotes", "no_quotes", doc.ratio_without_quotes, ""),
        ("no-own", "no_own", doc.ratio_without_own, ""),
    ]
    if doc.reworded_ratio:
        boxes.append(("reworded", "reworded_ratio", doc.reworded_ratio, ""))
    which = ""
    if doc.largest_source is not None:
        name = path_html(doc.largest_source)
        rank = ranks.get(doc.largest_source)
        which = f"<a href='#{d}-src-{rank}'>{name}</a>" if rank else name
    boxes.append(("largest", "largest", doc.largest_source_ratio, which))
    w("<div class=ratios>\n")
    for cls, key, ratio, extra in boxes:
        w(
            f"<div class='ratio {cls}'><div class=label>{escape(t[key])}</div>"
            f"<div class=pct>{_pct(ratio)}</div>"
        )
        if extra:
            w(f"<div class=which>{extra}</div>")
        w("</div>\n")
    w("</div>\n")
    note = t(
        "counted_note",
        copied=doc.copied_units,
        units=doc.units,
        fragments=t.n(len(doc.fragments), "fragment_n"),
        sources=t.n(len(doc.sources), "source_n"),
    )
    w(f"<p class=note>{escape(note)}</p>\n")


def _warnings(doc: DocumentCheck, d: str, t: Words, w: Write) -> None:
    if not doc.warnings:
        return
    w(f"<div class=warnings role=note><h3>⚠ {escape(t['warnings'])}</h3>\n<ul>\n")
    for k, warning in enumerate(doc.warnings):
        message = t.warning(warning.kind, warning.message, warning.count)
        label = t.get(f"label_{warning.kind}", warning.kind)
        where = t.place(warning.place, warning.start, warning.end)
        w(
            f"<li><strong>{escape(label)}</strong>: {escape(message)} "
            f"<a href='#{d}-at-w{k}'>({escape(where)})</a></li>\n"
        )
    w("</ul></div>\n")


def _section_title(section: SectionRatio, t: Words) -> str:
    return escape(section.title) if section.title else f"<i>{escape(t['before_first'])}</i>"


def _sections(doc: DocumentCheck, d: str, t: Words, w: Write) -> None:
    w(f"<h3 id={d}-sections>{escape(t['sections'])}</h3>\n")
    w(
        f"<table class=sections><tr><th>{escape(t['section'])}</th>"
        f"<th>{escape(t['copy_ratio'])}</th><th class=num>%</th>"
        f"<th class=num>{escape(t['characters'])}</th></tr>\n"
    )
    for k, section in enumerate(doc.sections):
        w(
            f"<tr><td><a href='#{d}-at-s{k}'>{_section_title(section, t)}</a></td>"
            f"<td class=bar><div class=track>{_bar(section)}</div></td>"
            f"<td class=num>{_pct(section.ratio)}</td>"
            f"<td class=num>{section.copied_units} / {section.units}</td></tr>\n"
        )
    w("</table>\n")
    if any(s.own_units or s.quoted_units for s in doc.sections):
        swatches = "".join(
            f"<span class='swatch {kind}'></span>{escape(t['kind_' + kind])}"
            for kind in ("copied", "own", "quoted")
        )
        w(f"<p class=note>{swatches}</p>\n")


def _bar(section: SectionRatio) -> str:
    """A section's copied characters as a bar: copied from others red, the author's own work
    blue, quoted yellow, each as long as its share of the section; nothing for none."""
    if not section.units:
        return ""
    copied = max(0, section.copied_units - section.own_units - section.quoted_units)
    bar = []
    for kind, units in (("copied", copied), ("own", section.own_units),
                        ("quoted", section.quoted_units)):  # fmt: skip
        width = max(0.0, min(1.0, units / section.units)) * 100
        if units and width:
            cls = "" if kind == "copied" else f" class={kind}"
            bar.append(f"<span{cls} style='width:{width:.1f}%'></span>")
    return "".join(bar)


def _sources(doc: DocumentCheck, d: str, t: Words, w: Write) -> None:
    w(f"<h3 id={d}-sources>{escape(t['sources'])}</h3>\n")
    if not doc.sources:
        w(f"<p class=note>{escape(t['no_sources'])}</p>\n")
        return
    w(
        f"<table class=sources><tr><th class=num>#</th><th>{escape(t['source'])}</th>"
        f"<th>{escape(t['kind'])}</th><th class=num>{escape(t['share'])}</th>"
        f"<th class=num>{escape(t['characters'])}</th>"
        f"<th class=num>{escape(t['fragments_col'])}</th></tr>\n"
    )
    for rank, share in enumerate(doc.sources, 1):
        own = " own" if share.own else ""
        category = t.get(f"category_{share.category}", share.category)
        badge = f"<span class='badge cat-{escape(share.category)}{own}'>{escape(category)}</span>"
        w(
            f"<tr id={d}-src-{rank}><td class=num>{rank}</td><td>{path_html(share.source)}</td>"
            f"<td>{badge}</td><td class=num>{_pct(share.ratio)}</td>"
            f"<td class=num>{share.units}</td><td class=num>{share.fragments}</td></tr>\n"
        )
    w("</table>\n")


def _fragment_title(f: CopiedFragment, t: Words) -> str:
    there = t.place(f.source_place, f.source_start, f.source_end)
    here = t.place(f.place, f.start, f.end)
    similarity = t("similarity", pct=f"{f.similarity:.0%}")
    how = t.how(f.how, f.units, f.verbatim_units)
    if how:  # reworded, summarised, translated, paraphrased (and its verbatim share)
        similarity = f"{how}, {similarity}"
    return (
        f"{t[_FROM.get(f.kind, 'copied_from')]} {display_path(f.source)} ({there}); "
        f"{t['here']} {here}; {similarity}\n{t['source']}: {f.source_text}"
    )


def _spans(doc: DocumentCheck) -> list[tuple[int, int, str, int]]:
    """Everything marked in the text as (start, end, kind, index): fragments by their kind
    and index in ``doc.fragments``, quotations ("quoted", -1), excluded ranges ("excluded",
    index in ``doc.excluded``); clamped to the text, empty ones left out."""
    size = len(doc.text)
    found = []
    for k, f in enumerate(doc.fragments):
        found.append((f.start, f.end, _spans_kind(f), k))
    found += [(a, b, "quoted", -1) for a, b in doc.quoted]
    found += [(r.start, r.end, "excluded", k) for k, r in enumerate(doc.excluded)]
    clamped = []
    for start, end, kind, k in found:
        a, b = max(0, min(start, size)), max(0, min(end, size))
        if a < b:
            clamped.append((a, b, kind, k))
    return clamped


def _marked_text(doc: DocumentCheck, d: str, t: Words, w: Write) -> None:
    """The document's text cut at every boundary, each piece one ``mark`` with the classes of
    all that covers it (or plain text), inside a heading ``span`` on a heading line (its ``#``
    marks hidden); empty anchors where fragments, sections and warnings start."""
    text = doc.text
    spans = _spans(doc)
    anchors: dict[int, list[str]] = {}
    size = len(text)

    def anchor(offset: int, name: str) -> None:
        anchors.setdefault(max(0, min(offset, size)), []).append(name)

    for k, f in enumerate(doc.fragments):
        anchor(f.start, f"{d}-at-f{k}")
    for k, s in enumerate(doc.sections):
        anchor(s.start, f"{d}-at-s{k}")
    for k, warning in enumerate(doc.warnings):
        anchor(warning.start, f"{d}-at-w{k}")
    cuts = {0, size, *anchors}
    # Heading lines: the "#" marks (hidden) and the title (shown as a heading).
    heading_at: list[tuple[int, int, int, int]] = []  # (start, title start, end, level)
    for h in markdown_headings(text):
        marks_end = h.start + len(text[h.start : h.end]) - len(text[h.start : h.end].lstrip(" \t#"))
        heading_at.append((h.start, marks_end, h.end, min(h.level, 3)))
        cuts.update((h.start, marks_end, h.end))
    # Headings that count nothing (Markdown ones, or lines that look like headings).
    uncounted = [(h.start, h.end) for h in headings(text)]
    cuts.update(x for bounds in uncounted for x in bounds)
    hidden = emphasis_marks(text)
    cuts.update(x for bounds in hidden for x in bounds)
    starting: dict[int, list[int]] = {}
    ending: dict[int, list[int]] = {}
    for n, (a, b, _kind, _k) in enumerate(spans):
        cuts.update((a, b))
        starting.setdefault(a, []).append(n)
        ending.setdefault(b, []).append(n)
    active: set[int] = set()
    bounds = sorted(cuts)
    heads = iter(heading_at)
    head = next(heads, None)
    w(f"<div class=doctext id={d}-text>")
    for a, b in zip(bounds, bounds[1:] + [size], strict=True):
        active.difference_update(ending.get(a, ()))
        active.update(starting.get(a, ()))
        for name in anchors.get(a, ()):
            w(f"<span id={name}></span>")
        if a >= b:
            continue
        while head is not None and head[2] <= a:
            head = next(heads, None)
        piece = _text(text[a:b])
        covering = [spans[n] for n in sorted(active)]
        if _inside(uncounted, a):
            # Not counted, so not copied: only a quotation or a left-out range shows.
            covering = [c for c in covering if c[2] in ("quoted", "excluded")]
        if covering:
            piece = _piece(doc, d, covering, piece, t)
        if _inside(hidden, a):
            piece = f"<span class=hm>{piece}</span>"
        if head is not None and head[0] <= a < head[2]:
            piece = (
                f"<span class=hm>{piece}</span>"
                if a < head[1]
                else f"<span class='h h{head[3]}'>{piece}</span>"
            )
        w(piece)
    w("</div>\n")


def _inside(ranges: list[tuple[int, int]], offset: int) -> bool:
    """Whether ``offset`` lies in one of ``ranges`` (sorted by start, disjoint)."""
    n = bisect_right(ranges, (offset, size_max)) - 1
    return n >= 0 and ranges[n][0] <= offset < ranges[n][1]


def _piece(
    doc: DocumentCheck, d: str, covering: list[tuple[int, int, str, int]], html: str, t: Words
) -> str:
    """One marked piece: its classes, a title naming what covers it, a link to its fragment."""
    kinds = {kind for _a, _b, kind, _k in covering}
    classes = " ".join(kind for kind in _KINDS if kind in kinds)
    lines = []
    for k in sorted({k for _a, _b, kind, k in covering if kind == "excluded"}):
        lines.append(f"{t['kind_excluded']}: {t['why_' + doc.excluded[k].reason]}")
    fragments = [k for _a, _b, kind, k in covering if kind != "excluded" and k >= 0]
    # The link goes to the fragment that gives the colour: copied, then own, then quoted.
    fragments.sort(key=lambda k: (-_KINDS.index(_spans_kind(doc.fragments[k])), k))
    for k in fragments[:MAX_TITLE_FRAGMENTS]:
        lines.append(_fragment_title(doc.fragments[k], t))
    if len(fragments) > MAX_TITLE_FRAGMENTS:
        lines.append(t("and_more", n=len(fragments) - MAX_TITLE_FRAGMENTS))
    if any(k < 0 for _a, _b, kind, k in covering if kind == "quoted"):
        lines.append(t["quotation_note"])
    title = escape("\n".join(lines), quote=True)
    if fragments:
        html = f"<a href='#{d}-f{fragments[0]}'>{html}</a>"
    return f'<mark class="{classes}" title="{title}">{html}</mark>'


def _spans_kind(f: CopiedFragment) -> str:
    return f.kind if f.kind in _FROM else "copied"


def _legend(t: Words, w: Write) -> None:
    marks = {
        kind: f"<mark class={kind}>{escape(t['kind_' + kind])}</mark>"
        for kind in ("copied", "own", "quoted", "excluded")
    }
    legend = escape(t["legend"]).format(**marks)
    w(f"<p class=legend>{legend}</p>\n")


def _fragments(doc: DocumentCheck, d: str, ranks: dict[str, int], t: Words, w: Write) -> None:
    w(f"<h3 id={d}-fragments>{escape(t['fragments'])}</h3>\n")
    if not doc.fragments:
        w(f"<p class=note>{escape(t['no_fragments'])}</p>\n")
        return
    w("<ol class=fragments>\n")
    for k, f in enumerate(doc.fragments):
        kind = _spans_kind(f)
        rank = ranks.get(f.source)
        source = (
            f"<a href='#{d}-src-{rank}'>{path_html(f.source)}</a>" if rank else path_html(f.source)
        )
        here = t.place(f.place, f.start, f.end)
        there = t.place(f.source_place, f.source_start, f.source_end)
        if f.how in ("translated", "paraphrased", "summarised"):
            # Other words, another language, or a source stretch several times longer (most of
            # it left out by the summary): side by side, no word-by-word differences.
            mine, theirs = escape(f.text), escape(f.source_text)
        else:
            mine, theirs = inline_diff(f.text, f.source_text)
        similarity = t("similarity", pct=f"{f.similarity:.0%}")
        how = t.how(f.how, f.units, f.verbatim_units)
        if how:
            similarity = f"{how}, {similarity}"
        w(
            f"<li id={d}-f{k}><span class='badge kind-{kind}'>{escape(t['kind_' + kind])}"
            f"</span> <a href='#{d}-at-f{k}'>{escape(here)}</a> ← {source} {escape(there)} "
            f"<span class=note>({f.units} {escape(t['characters'])}, {escape(similarity)})</span>"
            f"<div class=pair><div><span class=side>{escape(t['this_document'])}</span>{mine}"
            f"</div><div><span class=side>{escape(t['source'])}</span>{theirs}</div></div></li>\n"
        )
    w("</ol>\n")


def _excluded_note(doc: DocumentCheck, t: Words, w: Write) -> None:
    if not doc.excluded:
        return
    parts = []
    for r in doc.excluded:
        if r.reason != "marker":
            parts.append(f"{t['why_' + r.reason]} ({t.place(r.place, r.start, r.end)})")
    markers = sum(1 for r in doc.excluded if r.reason == "marker")
    if markers:
        parts.append(f"{t['why_marker']} ×{markers}")
    w(f"<p class=note>{escape(t('left_out_note', what='; '.join(parts)))}</p>\n")


def _document(doc: DocumentCheck, i: int, t: Words, w: Write) -> None:
    d = f"d{i}"
    ranks = {share.source: rank for rank, share in enumerate(doc.sources, 1)}
    w(f"<section id=doc-{i}>\n<h2>{path_html(doc.path)}</h2>\n")
    _ratios(doc, d, ranks, t, w)
    _warnings(doc, d, t, w)
    _sections(doc, d, t, w)
    _sources(doc, d, t, w)
    w(f"<h3 id={d}-body>{escape(t['text'])}</h3>\n")
    _legend(t, w)
    _excluded_note(doc, t, w)
    _marked_text(doc, d, t, w)
    _fragments(doc, d, ranks, t, w)
    w(f"<p class=top><a href='#top'>↑ {escape(t['top'])}</a></p>\n</section>\n")


def _class_table(documents: tuple[DocumentCheck, ...], t: Words, w: Write) -> None:
    """One line per document, in the order of the reports below (the highest copy ratio
    first): its copy ratio, its ratio without own work, and its largest source with that
    source's share and category; each document links to its report."""
    w(f"<nav><h2 id=ranking>{escape(t['class_title'])}</h2>\n<table class=ranking>\n")
    w(
        f"<tr><th class=num>#</th><th>{escape(t['document_col'])}</th>"
        f"<th class=num>{escape(t['copy_ratio'])}</th><th class=num>{escape(t['no_own'])}</th>"
        f"<th>{escape(t['largest'])}</th><th class=num>{escape(t['share'])}</th>"
        f"<th>{escape(t['kind'])}</th></tr>\n"
    )
    for i, doc in enumerate(documents):
        largest = doc.largest_share()
        source = share = category = ""
        if largest is not None:
            source, share = path_html(largest.source), _pct(largest.ratio)
            category = escape(t.get(f"category_{largest.category}", largest.category))
        w(
            f"<tr><td class=num>{i + 1}</td><td class=doc>"
            f"<a href='#doc-{i}'>{path_html(doc.path)}</a></td>"
            f"<td class=num>{_pct(doc.copy_ratio)}</td>"
            f"<td class=num>{_pct(doc.ratio_without_own)}</td><td>{source}</td>"
            f"<td class=num>{share}</td><td>{category}</td></tr>\n"
        )
    w("</table></nav>\n")


def _page_title(result: CheckResult, t: Words) -> str:
    """The page's title: the report and the document it is of (or how many)."""
    if len(result.documents) == 1:
        name = os.path.basename(display_path(result.documents[0].path))
        return t("report_of", name=name)
    return f"{t['report']} ({t.n(len(result.documents), 'document')})"


def render_check_html(result: CheckResult, stream: TextIO, lang: str = "en") -> None:
    """Write the report page of the duplicate check ``result`` to ``stream``, in ``lang``
    ("zh" or "en")."""
    t = Words(lang)
    w = stream.write
    title = _page_title(result, t)
    with html_page(w, title=title, style=_STYLE, lang="zh-CN" if lang == "zh" else "en"):
        w(f"<h1 id=top>{escape(title)}</h1>\n")
        checked = t(
            "checked",
            documents=t.n(len(result.documents), "document"),
            sources=t.n(result.source_count, "source_n"),
            skipped=t.n(len(result.skipped), "file_n"),
        )
        w(f"<p>{escape(checked)}</p>\n")
        documents = result.ranked()
        if len(documents) > 1:
            _class_table(documents, t, w)
        if not documents:
            w(f"<p class=note>{escape(t['no_document'])}</p>\n")
        for i, doc in enumerate(documents):
            _document(doc, i, t, w)
        _measured(result, t, w)
        skipped_section(
            result.skipped,
            w,
            title=t["skipped_title"],
            file=t["file"],
            stage=t["stage"],
            reason=t["reason"],
            passed_over=t["passed_over"],
            none=t["none"],
        )
