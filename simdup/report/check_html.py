"""HTML report of a duplicate check (查重): one self-contained page a teacher opens from a file
(inline CSS, no scripts, no external resources).

The page says how the ratios were measured (the fragment rule, the versions of the algorithm and
the readers), then for every checked document: its ratios as big percentages (the total copy
ratio 总文字复制比, without quotations, without the author's own work, the largest single
source), its warnings, a bar per section, the table of its sources, and its full text with
every fragment marked: copied text red (``mark.copied``), quoted text yellow (``mark.quoted``),
the author's own earlier work blue (``mark.own``) and text left out of the count grey
(``mark.excluded``, its title says why). A marked piece names its sources, their places and
their text in its title (shown on hover) and links to its fragment in the list of fragments
below the text, which links to the source. Skipped files are listed last.

Fragments of several sources may overlap, and overlap quotations and excluded text: the text is
cut at every boundary and each piece is one ``mark`` carrying the classes of everything covering
it, so the marks never nest or overlap; the colour follows the order excluded > copied > own >
quoted (the order of the rules in the style sheet).

Everything taken from the check (texts, paths, messages, settings) is escaped with
``html.escape``; paths are first written with ``display_path``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from html import escape
from typing import Any, TextIO

from ..__about__ import __version__
from ..checking.records import CheckResult, CopiedFragment, DocumentCheck, SectionRatio
from ..names import display_path
from ..records import Place

Write = Callable[[str], Any]

# Fragments described in the title of one marked piece; the rest are counted.
MAX_TITLE_FRAGMENTS = 5

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222}
h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.num{text-align:right}
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
.bar .track{background:#eee;height:.9em}
.badge{font-size:11px;border-radius:3px;padding:0 .4em;background:#eee;white-space:nowrap}
.badge.own,.badge.kind-own{background:#cfe2ff}.badge.kind-copied{background:#ffc4c0}
.badge.kind-quoted{background:#fff0a0}
.legend mark{padding:0 .3em}
.doctext{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #e3e3e3;padding:1em;
background:#fcfcfc;font-size:15px;line-height:1.7}
mark{color:inherit}mark a{color:inherit;text-decoration:none}
mark.quoted{background:#fff0a0}
mark.own{background:#cfe2ff}
mark.copied{background:#ffc4c0}
mark.excluded{background:#eee;color:#888}
ol.fragments li{margin:.6em 0}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:.6em;margin-top:.2em}
.pair div{border:1px solid #e3e3e3;padding:.3em .6em;background:#fafafa;overflow-wrap:anywhere}
.pair .side{color:#555;font-size:12px;display:block}
"""

# Colour order, lowest first (the style sheet's order, so the last class listed wins).
_KINDS = ("quoted", "own", "copied", "excluded")
_KIND_LABEL = {
    "copied": "copied from",
    "quoted": "quoted from",
    "own": "the author's own work,",
}
_EXCLUDED_LABEL = {
    "references": "the reference list",
    "marker": "a citation marker",
    "template": "text of an --ignore template",
}
_WARNING_LABEL = {
    "long-quotation": "long quotation",
    "invisible": "invisible characters",
    "look-alike": "look-alike letters",
}


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _pct(ratio: float) -> str:
    return f"{ratio * 100:.1f}%"


def _p(path: str) -> str:
    return f"<code>{escape(display_path(path))}</code>"


def _text(text: str) -> str:
    """Escaped document text; a carriage return as a reference (HTML parsing drops it)."""
    return escape(text, quote=False).replace("\r", "&#13;")


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _flatten(settings: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for key, value in settings.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", _value(value)


def _where(place: Place | None, start: int, end: int) -> str:
    """A place label, else character offsets."""
    return place.label() if place is not None else f"chars {start}–{end}"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, min(offset, len(text)))) + 1


def _measured(result: CheckResult, w: Write) -> None:
    """How this was measured: the rule behind every ratio, the versions, the readers."""
    s = result.settings
    w("<h2 id=measured>How this was measured</h2>\n")
    words, cjk, gap = s.get("min_match_words"), s.get("min_match_cjk_chars"), s.get("gap")
    if words is not None and cjk is not None:
        w(
            f"<p>A copied fragment shares at least {escape(_value(words))} words or "
            f"{escape(_value(cjk))} Chinese characters with a source"
        )
        if gap is not None:
            w(f", allowing up to {escape(_value(gap))} differing words between exact runs")
        w(
            ". Ratios are shares of the document's counted characters: a Chinese character "
            "counts 1, a word its letters and digits; spaces and punctuation count nothing"
        )
        left_out = []
        if s.get("exclude_references"):
            left_out.append("reference lists")
        if s.get("exclude_markers"):
            left_out.append("citation markers")
        if left_out:
            w(f"; {' and '.join(left_out)} are left out")
        w(".</p>\n")
    rows = [
        ("algorithm", s.get("algorithm")),
        ("simdup version", s.get("simdup", __version__)),
        ("min_match_words", words),
        ("min_match_cjk_chars", cjk),
        ("gap", gap),
        ("min_density", s.get("min_density")),
        ("sources checked against", result.source_count),
    ]
    w("<table class=measured>\n")
    for label, value in rows:
        if value is not None:
            w(f"<tr><td>{escape(label)}</td><td><code>{escape(_value(value))}</code></td></tr>\n")
    readers = s.get("readers")
    if isinstance(readers, dict) and readers:
        listed = "; ".join(f"{k} {_value(v)}" for k, v in readers.items())
        w(f"<tr><td>readers</td><td><code>{escape(listed)}</code></td></tr>\n")
    w("</table>\n")
    if s:
        w("<details><summary>All settings</summary>\n<table class=settings>\n")
        for key, value in _flatten(s):
            key, value = escape(key), escape(value)
            w(f"<tr><td><code>{key}</code></td><td><code>{value}</code></td></tr>\n")
        w("</table>\n</details>\n")


def _ratios(doc: DocumentCheck, d: str, ranks: dict[str, int], w: Write) -> None:
    boxes = [
        ("total", "总文字复制比", "copy ratio", doc.copy_ratio, ""),
        ("no-quotes", "去除引用文献复制比", "without quotations", doc.ratio_without_quotes, ""),
        ("no-own", "去除本人文献复制比", "without own work", doc.ratio_without_own, ""),
    ]
    which = ""
    if doc.largest_source is not None:
        name = _p(doc.largest_source)
        rank = ranks.get(doc.largest_source)
        which = f"<a href='#{d}-src-{rank}'>{name}</a>" if rank else name
    boxes.append(
        ("largest", "单篇最大文字复制比", "largest single source", doc.largest_source_ratio, which)
    )
    w("<div class=ratios>\n")
    for cls, zh, en, ratio, extra in boxes:
        w(
            f"<div class='ratio {cls}'><div class=label><span lang=zh>{zh}</span> · {en}</div>"
            f"<div class=pct>{_pct(ratio)}</div>"
        )
        if extra:
            w(f"<div class=which>{extra}</div>")
        w("</div>\n")
    w("</div>\n")
    w(
        f"<p class=note>{doc.copied_units} of {doc.units} counted characters are in copied "
        f"fragments; {_n(len(doc.fragments), 'fragment')} from "
        f"{_n(len(doc.sources), 'source')}.</p>\n"
    )


def _warnings(doc: DocumentCheck, d: str, w: Write) -> None:
    if not doc.warnings:
        return
    w(f"<div class=warnings role=note><h3>⚠ {_n(len(doc.warnings), 'warning')}</h3>\n<ul>\n")
    for k, warning in enumerate(doc.warnings):
        kind = _WARNING_LABEL.get(warning.kind, warning.kind)
        w(
            f"<li><strong>{escape(kind)}</strong>: {escape(warning.message)} "
            f"<a href='#{d}-at-w{k}'>(line {_line(doc.text, warning.start)}, chars "
            f"{warning.start}–{warning.end})</a></li>\n"
        )
    w("</ul></div>\n")


def _section_title(section: SectionRatio) -> str:
    return escape(section.title) if section.title else "<i>(before the first heading)</i>"


def _sections(doc: DocumentCheck, d: str, w: Write) -> None:
    w(f"<h3 id={d}-sections>Sections</h3>\n")
    if not doc.sections:
        w("<p class=note>No sections.</p>\n")
        return
    w(
        "<table class=sections><tr><th>section</th><th>copy ratio</th><th class=num>%</th>"
        "<th class=num>copied / counted</th></tr>\n"
    )
    for k, section in enumerate(doc.sections):
        width = max(0.0, min(1.0, section.ratio)) * 100
        w(
            f"<tr><td><a href='#{d}-at-s{k}'>{_section_title(section)}</a></td>"
            f"<td class=bar><div class=track><span style='width:{width:.1f}%'></span></div></td>"
            f"<td class=num>{_pct(section.ratio)}</td>"
            f"<td class=num>{section.copied_units} / {section.units}</td></tr>\n"
        )
    w("</table>\n")


def _sources(doc: DocumentCheck, d: str, w: Write) -> None:
    w(f"<h3 id={d}-sources>Sources</h3>\n")
    if not doc.sources:
        w("<p class=note>No source shares text with this document.</p>\n")
        return
    w(
        "<table class=sources><tr><th class=num>#</th><th>source</th><th>kind</th>"
        "<th class=num>share</th><th class=num>characters</th><th class=num>fragments</th>"
        "</tr>\n"
    )
    for rank, share in enumerate(doc.sources, 1):
        badge = "<span class='badge own'>own work</span>" if share.own else ""
        w(
            f"<tr id={d}-src-{rank}><td class=num>{rank}</td><td>{_p(share.source)}</td>"
            f"<td>{badge}</td><td class=num>{_pct(share.ratio)}</td>"
            f"<td class=num>{share.units}</td><td class=num>{share.fragments}</td></tr>\n"
        )
    w("</table>\n")


def _fragment_title(f: CopiedFragment) -> str:
    label = _KIND_LABEL.get(f.kind, f.kind)
    return (
        f"{label} {display_path(f.source)} ({_where(f.source_place, f.source_start, f.source_end)})"
        f"; here {_where(f.place, f.start, f.end)}; similarity {f.similarity:.0%}\n"
        f"source: {f.source_text}"
    )


def _spans(doc: DocumentCheck) -> list[tuple[int, int, str, int]]:
    """Everything marked in the text as (start, end, kind, index): fragments by their kind
    and index in ``doc.fragments``, quotations ("quoted", -1), excluded ranges ("excluded",
    index in ``doc.excluded``); clamped to the text, empty ones left out."""
    size = len(doc.text)
    found = []
    for k, f in enumerate(doc.fragments):
        kind = f.kind if f.kind in _KIND_LABEL else "copied"
        found.append((f.start, f.end, kind, k))
    found += [(a, b, "quoted", -1) for a, b in doc.quoted]
    found += [(r.start, r.end, "excluded", k) for k, r in enumerate(doc.excluded)]
    clamped = []
    for start, end, kind, k in found:
        a, b = max(0, min(start, size)), max(0, min(end, size))
        if a < b:
            clamped.append((a, b, kind, k))
    return clamped


def _marked_text(doc: DocumentCheck, d: str, w: Write) -> None:
    """The document's text cut at every boundary, each piece one ``mark`` with the classes of
    all that covers it (or plain text), and empty anchors where fragments, sections and
    warnings start."""
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
    starting: dict[int, list[int]] = {}
    ending: dict[int, list[int]] = {}
    for n, (a, b, _kind, _k) in enumerate(spans):
        cuts.update((a, b))
        starting.setdefault(a, []).append(n)
        ending.setdefault(b, []).append(n)
    active: set[int] = set()
    bounds = sorted(cuts)
    w(f"<div class=doctext id={d}-text>")
    for a, b in zip(bounds, bounds[1:] + [size], strict=True):
        active.difference_update(ending.get(a, ()))
        active.update(starting.get(a, ()))
        for name in anchors.get(a, ()):
            w(f"<span id={name}></span>")
        if a >= b:
            continue
        piece = _text(text[a:b])
        if not active:
            w(piece)
            continue
        w(_piece(doc, d, [spans[n] for n in sorted(active)], piece))
    w("</div>\n")


def _piece(doc: DocumentCheck, d: str, covering: list[tuple[int, int, str, int]], html: str) -> str:
    """One marked piece: its classes, a title naming what covers it, a link to its fragment."""
    kinds = {kind for _a, _b, kind, _k in covering}
    classes = " ".join(kind for kind in _KINDS if kind in kinds)
    lines = []
    for k in sorted({k for _a, _b, kind, k in covering if kind == "excluded"}):
        why = doc.excluded[k].reason
        lines.append(f"left out of the count: {_EXCLUDED_LABEL.get(why, why)}")
    fragments = [k for _a, _b, kind, k in covering if kind != "excluded" and k >= 0]
    # The link goes to the fragment that gives the colour: copied, then own, then quoted.
    fragments.sort(key=lambda k: (-_KINDS.index(_spans_kind(doc.fragments[k])), k))
    for k in fragments[:MAX_TITLE_FRAGMENTS]:
        lines.append(_fragment_title(doc.fragments[k]))
    if len(fragments) > MAX_TITLE_FRAGMENTS:
        lines.append(f"… and {_n(len(fragments) - MAX_TITLE_FRAGMENTS, 'more fragment')}")
    if any(k < 0 for _a, _b, kind, k in covering if kind == "quoted"):
        lines.append("inside a quotation: not counted in the ratio without quotations")
    title = escape("\n".join(lines), quote=True)
    if fragments:
        html = f"<a href='#{d}-f{fragments[0]}'>{html}</a>"
    return f'<mark class="{classes}" title="{title}">{html}</mark>'


def _spans_kind(f: CopiedFragment) -> str:
    return f.kind if f.kind in _KIND_LABEL else "copied"


def _legend(w: Write) -> None:
    w(
        "<p class=legend><mark class=copied>copied</mark> <mark class=own>own earlier work"
        "</mark> <mark class=quoted>quoted (inside quotation marks)</mark> "
        "<mark class=excluded>left out of the count</mark> "
        "<span class=note>Hover over a mark for its source and the source's text; click it "
        "for the fragment.</span></p>\n"
    )


def _fragments(doc: DocumentCheck, d: str, ranks: dict[str, int], w: Write) -> None:
    w(f"<h3 id={d}-fragments>Fragments</h3>\n")
    if not doc.fragments:
        w("<p class=note>No copied fragments.</p>\n")
        return
    w("<ol class=fragments>\n")
    for k, f in enumerate(doc.fragments):
        kind = _spans_kind(f)
        rank = ranks.get(f.source)
        source = f"<a href='#{d}-src-{rank}'>{_p(f.source)}</a>" if rank else _p(f.source)
        w(
            f"<li id={d}-f{k}><span class='badge kind-{kind}'>{escape(f.kind)}</span> "
            f"<a href='#{d}-at-f{k}'>{escape(_where(f.place, f.start, f.end))}</a> "
            f"<span class=note>(chars {f.start}–{f.end})</span> ← {source} "
            f"{escape(_where(f.source_place, f.source_start, f.source_end))} "
            f"<span class=note>(chars {f.source_start}–{f.source_end}; {f.units} characters, "
            f"similarity {f.similarity:.0%})</span>"
            f"<div class=pair><div><span class=side>this document</span>{_text(f.text)}</div>"
            f"<div><span class=side>source</span>{_text(f.source_text)}</div></div></li>\n"
        )
    w("</ol>\n")


def _excluded_note(doc: DocumentCheck, w: Write) -> None:
    if not doc.excluded:
        return
    counts: dict[str, int] = {}
    for r in doc.excluded:
        counts[r.reason] = counts.get(r.reason, 0) + 1
    parts = [f"{_EXCLUDED_LABEL.get(k, k)} ({v})" for k, v in sorted(counts.items())]
    w(f"<p class=note>Left out of the count: {escape(', '.join(parts))}.</p>\n")


def _document(doc: DocumentCheck, i: int, w: Write) -> None:
    d = f"d{i}"
    ranks = {share.source: rank for rank, share in enumerate(doc.sources, 1)}
    w(f"<section id=doc-{i}>\n<h2>{_p(doc.path)}</h2>\n")
    w("<p class=top><a href='#top'>↑ top</a></p>\n")
    _ratios(doc, d, ranks, w)
    _warnings(doc, d, w)
    _sections(doc, d, w)
    _sources(doc, d, w)
    w(f"<h3 id={d}-body>Text</h3>\n")
    _legend(w)
    _excluded_note(doc, w)
    _marked_text(doc, d, w)
    _fragments(doc, d, ranks, w)
    w("</section>\n")


def render_check_html(result: CheckResult, stream: TextIO) -> None:
    """Write the report page of the duplicate check ``result`` to ``stream``."""
    w = stream.write
    w("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>")
    w("<meta name=viewport content='width=device-width,initial-scale=1'>")
    w(f"<title>simdup duplicate check</title><style>{_STYLE}</style></head><body>\n")
    w("<h1 id=top>Duplicate check <span lang=zh>查重</span></h1>\n")
    w(
        f"<p>{_n(len(result.documents), 'document')} checked against "
        f"{_n(result.source_count, 'source')}; {_n(len(result.skipped), 'file')} skipped.</p>\n"
    )
    if len(result.documents) > 1:
        w("<nav><ol>\n")
        for i, doc in enumerate(result.documents):
            w(
                f"<li><a href='#doc-{i}'>{_p(doc.path)}</a> "
                f"<span class=note>({_pct(doc.copy_ratio)})</span></li>\n"
            )
        w("</ol></nav>\n")
    _measured(result, w)
    if not result.documents:
        w("<p class=note>No document was checked.</p>\n")
    for i, doc in enumerate(result.documents):
        _document(doc, i, w)
    w("<h2 id=skipped>Skipped files</h2>\n")
    if result.skipped:
        w("<table class=skipped><tr><th>file</th><th>stage</th><th>reason</th></tr>\n")
        for s in result.skipped:
            passed = "" if s.failure else " <span class=note>(passed over)</span>"
            w(
                f"<tr><td>{_p(s.path)}</td><td>{escape(s.stage)}</td>"
                f"<td>{escape(s.reason)}{passed}</td></tr>\n"
            )
        w("</table>\n")
    else:
        w("<p class=note>None.</p>\n")
    w("</body></html>\n")
