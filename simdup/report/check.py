"""The duplicate check's reports: text for a person, JSON for programs, SARIF for CI (the HTML
report for a teacher is ``check_html``). Each renders one ``CheckResult``."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import Any, TextIO

from ..checking.results import CheckResult, CopiedFragment, DocumentCheck
from ..names import display_path, escape_path
from .check_words import Words
from .sarif import physical_location, sarif_run_log

# Fragments listed per document in the text report (JSON has all of them).
TEXT_FRAGMENTS = 20
CHECK_RULE = "simdup/copied-fragment"
CHECK_RULES: tuple[dict[str, Any], ...] = (
    {
        "id": CHECK_RULE,
        "name": "CopiedFragment",
        "shortDescription": {"text": "A fragment of the document is found in a source."},
        "fullDescription": {
            "text": "A run of at least the minimum match (words, or CJK "
            "characters) found in a source, small edits bridged."
        },
    },
)

Write = Callable[[str], Any]


def percent(ratio: float) -> str:
    return f"{100 * ratio:.1f}%"


def _class_table(documents: tuple[DocumentCheck, ...], w: Words, write: Write) -> None:
    """One line per document, in the report's order: its rank, copy ratio, path, and its
    largest source with that source's share and category."""
    write(f"{w['class_title']}{'：' if w.lang == 'zh' else ':'}\n")
    paths = [display_path(doc.path) for doc in documents]
    width = min(max(map(len, paths)), 60)
    for rank, (doc, path) in enumerate(zip(documents, paths, strict=True), 1):
        line = f"  {rank:>3}  {percent(doc.copy_ratio):>6}  {path:<{width}}"
        largest = doc.largest_share()
        if largest is not None:
            category = w.get(f"category_{largest.category}", largest.category)
            line += (
                f"  {w['largest']} {percent(largest.ratio)} "
                f"{display_path(largest.source)} ({category})"
            )
        write(line.rstrip() + "\n")
    write("\n")


def render_check_text(result: CheckResult, stream: TextIO, lang: str = "en") -> None:
    """A summary per checked document, in ``lang`` ("zh" or "en", ``check_words``): the
    ratios, the sections, the sources, what was left out and where, the first fragments; then
    what was skipped and the rule. Several documents (a class) are listed first, one line
    each, and reported in that order: the highest copy ratio first."""
    w = Words(lang)
    write = stream.write
    sep = "：" if lang == "zh" else ": "
    documents = result.ranked()
    if len(documents) > 1:
        _class_table(documents, w, write)
    for doc in documents:
        write(f"{display_path(doc.path)}\n")
        write(
            f"  {w['copy_ratio']} {percent(doc.copy_ratio)}"
            f"   {w['no_quotes']} {percent(doc.ratio_without_quotes)}"
            f"   {w['no_own']} {percent(doc.ratio_without_own)}\n"
        )
        if doc.reworded_ratio:
            write(f"  {w['reworded_ratio']} {percent(doc.reworded_ratio)}\n")
        if doc.largest_source:
            write(
                f"  {w['largest']} {percent(doc.largest_source_ratio)}{sep}"
                f"{display_path(doc.largest_source)}\n"
            )
        write(f"  {w('counted', units=f'{doc.units:,}', copied=f'{doc.copied_units:,}')}\n")
        if len(doc.sections) > 1:
            write(f"  {w['sections']}{sep.rstrip()}\n")
            for section in doc.sections:
                bar = "#" * round(20 * section.ratio)
                title = section.title or w["before_first"]
                write(f"    {percent(section.ratio):>6}  {bar:<20}  {title}\n")
        if doc.sources:
            write(f"  {w['sources']}{sep.rstrip()}\n")
            for share in doc.sources:
                write(
                    f"    {percent(share.ratio):>6}  {display_path(share.source)}"
                    f"  {w.n(share.fragments, 'fragment_n')}"
                    f"  ({w.get(f'category_{share.category}', share.category)})\n"
                )
        for excluded in doc.excluded:
            if excluded.reason != "marker":
                why = w[f"why_{excluded.reason}"]
                where = w.place(excluded.place, excluded.start, excluded.end)
                write(f"  {w('left_out', why=why, where=where)}\n")
        for warning in doc.warnings:
            message = w.warning(warning.kind, warning.message, warning.count)
            write(f"  {w['warning']}{sep}{message} ({w.place(warning.place)})\n")
        if doc.fragments:
            write(f"  {w['fragments']}{sep.rstrip()}\n")
            for fragment in doc.fragments[:TEXT_FRAGMENTS]:
                here = w.place(fragment.place, fragment.start, fragment.end)
                there = w.place(fragment.source_place, fragment.source_start, fragment.source_end)
                kind = w[f"kind_{fragment.kind}"]
                how = w.how(fragment.how, fragment.units, fragment.verbatim_units)
                if how:  # reworded, summarised, translated, paraphrased (and its verbatim share)
                    kind = f"{kind}, {how}"
                write(
                    f"    [{kind}] {here} = {display_path(fragment.source)} {there}\n"
                    f"      {fragment.text}\n"
                )
            if len(doc.fragments) > TEXT_FRAGMENTS:
                write(f"    {w('more_fragments', n=len(doc.fragments) - TEXT_FRAGMENTS)}\n")
        write("\n")
    for skip in result.skipped:
        write(f"{w('skipped', path=display_path(skip.path), reason=skip.reason)}\n")
    settings = result.settings
    write(
        w(
            "summary",
            documents=w.n(len(result.documents), "document"),
            sources=w.n(result.source_count, "source_n"),
            words=settings.get("min_match_words"),
            cjk=settings.get("min_match_cjk_chars"),
            algorithm=settings.get("algorithm"),
        )
        + "\n"
    )


def _offsets_kind(extracted: bool) -> str:
    return "extracted" if extracted else "file"


def _fragment_record(fragment: CopiedFragment, doc: DocumentCheck) -> dict[str, Any]:
    start, end = fragment.in_file()
    source_start, source_end = fragment.source_in_file()
    return {
        "source": escape_path(fragment.source),
        "kind": fragment.kind,
        "start_char": start,
        "end_char": end,
        "source_start_char": source_start,
        "source_end_char": source_end,
        "source_offsets": _offsets_kind(fragment.source_extracted),
        # The same, in the texts as read (a Markdown or HTML file's rendering).
        "read_start": fragment.start,
        "read_end": fragment.end,
        "source_read_start": fragment.source_start,
        "source_read_end": fragment.source_end,
        "units": fragment.units,
        "similarity": fragment.similarity,
        "how": fragment.how,
        "verbatim_units": fragment.verbatim_units,
        # How each stretch was copied (offsets as the fragment's, and in the text as read).
        "parts": [
            {**_span(doc, p.start, p.end), "read_start": p.start, "read_end": p.end,
             "how": p.how, "units": p.units}
            for p in fragment.parts
        ],  # fmt: skip
        "place": fragment.place.label() if fragment.place else None,
        "source_place": fragment.source_place.label() if fragment.source_place else None,
        "text": fragment.text,
        "source_text": fragment.source_text,
    }


def _span(doc: DocumentCheck, start: int, end: int) -> dict[str, int]:
    file_start, file_end = doc.in_file(start, end)
    return {"start_char": file_start, "end_char": file_end}


def document_record(doc: DocumentCheck) -> dict[str, Any]:
    """One checked document as JSON (its text is not repeated). Offsets (``start_char``,
    ``end_char``) count the file's decoded characters, a Markdown or HTML file's too
    (``offsets``: "file"), or the text extracted from a PDF, Word, ODT, EPUB or RTF file
    (``offsets``: "extracted")."""
    return {
        "path": escape_path(doc.path),
        "offsets": _offsets_kind(doc.extracted),
        "units": doc.units,
        "copied_units": doc.copied_units,
        "copy_ratio": doc.copy_ratio,
        "ratio_without_quotes": doc.ratio_without_quotes,
        "ratio_without_own": doc.ratio_without_own,
        "reworded_ratio": doc.reworded_ratio,
        "largest_source_ratio": doc.largest_source_ratio,
        "largest_source": escape_path(doc.largest_source) if doc.largest_source else None,
        "sources": [
            {
                "source": escape_path(s.source),
                "own": s.own,
                "units": s.units,
                "ratio": s.ratio,
                "fragments": s.fragments,
                "category": s.category,
            }
            for s in doc.sources
        ],
        "sections": [
            {
                "title": s.title,
                **_span(doc, s.start, s.end),
                "units": s.units,
                "copied_units": s.copied_units,
                "ratio": s.ratio,
                "own_units": s.own_units,
                "quoted_units": s.quoted_units,
            }
            for s in doc.sections
        ],
        "fragments": [_fragment_record(f, doc) for f in doc.fragments],
        "quoted": [_span(doc, a, b) for a, b in doc.quoted],
        "excluded": [{**_span(doc, e.start, e.end), "reason": e.reason} for e in doc.excluded],
        "warnings": [
            {"kind": w.kind, "message": w.message, **_span(doc, w.start, w.end)}
            for w in doc.warnings
        ],
    }


def ranking_record(result: CheckResult) -> list[dict[str, Any]]:
    """The class list: one row per document, in the order of ``documents`` (the highest copy
    ratio first), with its largest source."""
    rows = []
    for rank, doc in enumerate(result.ranked(), 1):
        largest = doc.largest_share()
        rows.append(
            {
                "rank": rank,
                "path": escape_path(doc.path),
                "copy_ratio": doc.copy_ratio,
                "ratio_without_quotes": doc.ratio_without_quotes,
                "ratio_without_own": doc.ratio_without_own,
                "largest_source": escape_path(largest.source) if largest else None,
                "largest_source_ratio": largest.ratio if largest else 0.0,
                "largest_source_category": largest.category if largest else None,
            }
        )
    return rows


def render_check_json(result: CheckResult, stream: TextIO) -> None:
    """The check as one JSON object: ``documents`` (the highest copy ratio first), the
    class list ``ranking`` (one row per document, in that order), the sources' count, the
    skipped files and the settings."""
    record = {
        "documents": [document_record(d) for d in result.ranked()],
        "ranking": ranking_record(result),
        "source_count": result.source_count,
        "skipped": [
            {"path": escape_path(s.path), "stage": s.stage, "reason": s.reason}
            for s in result.skipped
        ],
        "settings": result.settings,
    }
    json.dump(record, stream, ensure_ascii=False, indent=2)
    stream.write("\n")


def _sarif_result(doc: DocumentCheck, fragment: CopiedFragment, cwd: str) -> dict[str, Any]:
    english = Words("en")
    here = english.place(fragment.place, fragment.start, fragment.end)
    there = english.place(fragment.source_place, fragment.source_start, fragment.source_end)
    region: dict[str, Any] | None = None
    if not doc.extracted:
        # Plain text, Markdown, HTML: the region is exact, in the file's characters.
        start, end = fragment.in_file()
        first, last = doc.file_lines(fragment.start, fragment.end)
        region = {
            "startLine": first,
            "endLine": last,
            "charOffset": start,
            "charLength": end - start,
        }
    fingerprint = hashlib.sha256(
        "\n".join([fragment.text, fragment.source_text]).encode("utf-8")
    ).hexdigest()[:32]
    return {
        "ruleId": CHECK_RULE,
        "level": "note" if fragment.kind in ("quoted", "own") else "warning",
        "message": {
            "text": f"{fragment.kind} fragment, {fragment.how} ({here}) found in "
            f"{escape_path(fragment.source)} ({there}): {fragment.text}"
        },
        "locations": [{"physicalLocation": physical_location(doc.path, cwd, region)}],
        "relatedLocations": [
            {"id": 1, "physicalLocation": physical_location(fragment.source, cwd)}
        ],
        "partialFingerprints": {"simdupFragment/v1": fingerprint},
        "properties": {
            "kind": fragment.kind,
            "how": fragment.how,
            "units": fragment.units,
            "verbatim_units": fragment.verbatim_units,
        },
    }


def render_check_sarif(result: CheckResult, stream: TextIO, cwd: str | None = None) -> None:
    """One SARIF result per copied fragment (quoted and own-work ones as notes); each checked
    document's ratios in the run's properties."""
    cwd = os.getcwd() if cwd is None else cwd
    documents = result.ranked()
    log = sarif_run_log(
        cwd,
        rules=CHECK_RULES,
        algorithm_version=result.settings.get("algorithm"),
        notifications=[
            {
                "descriptor": {"id": f"simdup/skipped/{s.stage}"},
                "level": "warning",
                "message": {"text": f"{escape_path(s.path)} skipped: {s.reason}"},
            }
            for s in result.skipped
        ],
        results=[_sarif_result(doc, f, cwd) for doc in documents for f in doc.fragments],
        properties={
            "settings": result.settings,
            "documents": [
                {
                    "path": escape_path(d.path),
                    "copy_ratio": d.copy_ratio,
                    "ratio_without_quotes": d.ratio_without_quotes,
                    "ratio_without_own": d.ratio_without_own,
                    "reworded_ratio": d.reworded_ratio,
                    "largest_source_ratio": d.largest_source_ratio,
                }
                for d in documents
            ],
        },
    )
    json.dump(log, stream, ensure_ascii=False, indent=2)
    stream.write("\n")
