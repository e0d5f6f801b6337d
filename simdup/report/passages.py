"""The ``passages`` section of every format (``scan --passages``, ``compare --passages``).

A region is written ``path:12-40`` (1-based, inclusive lines of the file as stored), or, in a
document whose reader found pages or paragraphs (PDF, Word, e-books), by those:
``thesis.pdf p. 12 (iv)``, ``draft.docx ¶ 41-43``; there the lines and characters are those of
the text read from it (``offsets``: "extracted"). A Markdown or HTML file's are the file's
(``offsets``: "file", as a plain text's; ``read_start``/``read_end``: the characters of the
text its reader made). JSON and JSON Lines records hold line and character ranges (and the
``place``: its kind and first and last labels) and never any text of the documents; text and
HTML show a short preview of each region's first line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from ..names import display_path, escape_path
from ..records import PassagePair, PassageSpan, Place, RepeatedPassage, ScanResult

# Occurrences of a repeated passage listed in text output (JSON lists them all).
LISTED_OCCURRENCES = 5


def has_passages(result: ScanResult) -> bool:
    """Whether the scan looked for passages (then every format has a passages section)."""
    return "passages" in result.settings


def span_record(span: PassageSpan) -> dict[str, Any]:
    return {
        "path": escape_path(span.path),
        "start_line": span.start_line,
        "end_line": span.end_line,
        "start_char": span.start_char,
        "end_char": span.end_char,
        # "file": the file's decoded characters (plain text, Markdown, HTML); "extracted":
        # the text extracted from a PDF, Word, ODT, EPUB or RTF file (its place says where).
        "offsets": "file" if span.place is None or span.place.kind == "line" else "extracted",
        **(
            {"read_start": span.read_start, "read_end": span.read_end}
            if span.read_start is not None
            else {}
        ),
        "words": span.words,
        **({"place": place_record(span.place)} if span.place is not None else {}),
    }


def place_record(place: Place) -> dict[str, str]:
    """A place in JSON: ``{"kind": "page", "first": "12 (iv)", "last": "13"}``."""
    return {"kind": place.kind, "first": place.first, "last": place.last}


def passage_record(pair: PassagePair) -> dict[str, Any]:
    return {
        "a": span_record(pair.a),
        "b": span_record(pair.b),
        "similarity": pair.similarity,
        "how": pair.how,
    }


def repeated_record(rp: RepeatedPassage) -> dict[str, Any]:
    return {"count": rp.count, "occurrences": [span_record(s) for s in rp.occurrences]}


def span_label(span: PassageSpan) -> str:
    """'docs/a.md:12-40' ('docs/a.md:12' for one line); 'thesis.pdf p. 12 (iv)' where its
    reader found pages (paragraphs, chapters)."""
    if span.place is not None:
        return f"{display_path(span.path)} {span.place.label()}"
    lines = (
        str(span.start_line)
        if span.start_line == span.end_line
        else f"{span.start_line}-{span.end_line}"
    )
    return f"{display_path(span.path)}:{lines}"


def _preview(span: PassageSpan) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in span.preview)
    return f'  "{text}…"' if text else ""


def render_passages_text(
    pairs: Sequence[PassagePair], repeated: Sequence[RepeatedPassage], stream: TextIO
) -> None:
    """The passages section of text output."""
    w = stream.write
    noun = "passage" if len(pairs) == 1 else "passages"
    w(f"Duplicated passages: {len(pairs)} {noun}\n")
    for p in pairs:
        w(
            f"  {span_label(p.a)} ≈ {span_label(p.b)}  similarity {p.similarity:.2f}"
            f"{'' if p.how == 'verbatim' else f'  ({p.how})'}{_preview(p.a)}\n"
        )
    if repeated:
        w(f"\nRepeated passages (boilerplate): {len(repeated)}\n")
        for rp in repeated:
            first = rp.occurrences[0]
            w(f"  in {rp.count} documents{_preview(first)}\n")
            for span in rp.occurrences[:LISTED_OCCURRENCES]:
                w(f"    {span_label(span)}\n")
            if len(rp.occurrences) > LISTED_OCCURRENCES:
                w(f"    ... and {len(rp.occurrences) - LISTED_OCCURRENCES} more\n")
    w("\n")
