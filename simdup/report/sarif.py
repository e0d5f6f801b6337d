"""SARIF 2.1.0 renderer (``--format sarif``), for GitHub code scanning and other SARIF viewers.

One result per reported pair: the location is file ``a``, the related location file ``b`` (a
cluster is a presentation of pairs; a pair is the fact a reviewer accepts or fixes). Exact
duplicates get their own rule, so a viewer can filter them apart.

File names become URI references relative to ``%SRCROOT%``, the folder simdup ran in, with
``/`` separators and every character outside RFC 3986's unreserved set percent-encoded (UTF-8).
Names with undecodable bytes are first written as ``simdup.names.escape_path`` writes them in
every other format. A file outside the current folder gets an absolute ``file:`` URI.

``partialFingerprints["simdupContentPair/v1"]`` is a hash of the two files' content hashes in
sorted order: it does not change when either file is renamed or moved, or when the pair's
order flips, so GitHub code scanning tracks the finding across commits. Exact copies of one
text therefore share a fingerprint (they are one duplicated text).

The log around the results (the tool and its rules, ``%SRCROOT%``, the invocation with the
skipped files) is ``sarif_run_log``, and a file's place ``physical_location``: the duplicate
check's SARIF (``report.check``) is built by the same two, so the two logs cannot drift apart.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from ..__about__ import __version__
from ..names import escape_path
from ..params import ALGORITHM_VERSION
from ..records import DuplicatePair, PassagePair, PassageSpan, ScanResult, SkippedFile

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
INFORMATION_URI = "https://pypi.org/project/simdup/"
FINGERPRINT_KEY = "simdupContentPair/v1"

NEAR_RULE = "simdup/near-duplicate"
EXACT_RULE = "simdup/exact-duplicate"
PASSAGE_RULE = "simdup/duplicated-passage"
PASSAGE_FINGERPRINT_KEY = "simdupPassage/v1"

_PAIR_HELP = (
    "simdup reports a pair when the two texts are identical apart from whitespace and "
    "encoding, or when their 64-bit SimHash fingerprints are within the verification radius, "
    "the shorter text is at least the minimum length ratio of the longer, and the estimated "
    "Jaccard similarity of their word sets reaches the minimum similarity.\n\n"
    "To resolve it, keep one document and delete or rewrite the other, or accept the pair: "
    "write a baseline of the accepted pairs (`simdup scan PATHS --write-baseline "
    ".simdup-baseline.json`, outside the scanned folders), commit it, and scan with "
    "`--baseline .simdup-baseline.json`: pairs match by content, so renames keep matching."
)


def _rule(
    rule_id: str, name: str, *, short: str, full: str, title: str, help_text: str, level: str
) -> dict[str, Any]:
    """A rule of the scan as a SARIF viewer shows it: its descriptions, its help (as text, and
    as Markdown under the bold ``title``), its level, and the tags a viewer filters by."""
    return {
        "id": rule_id,
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": f"**{title}** {help_text}"},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["duplication", "documentation"]},
    }


RULES: tuple[dict[str, Any], ...] = (
    _rule(
        NEAR_RULE,
        "NearDuplicateDocument",
        short="Two documents are near-duplicates.",
        full="The two documents are the same text after small edits, re-formatting, "
        "re-ordering or re-encoding: their SimHash fingerprints are close and their word "
        "sets overlap beyond the scan's minimum similarity.",
        title="Near-duplicate documents.",
        help_text=_PAIR_HELP,
        level="warning",
    ),
    _rule(
        EXACT_RULE,
        "ExactDuplicateDocument",
        short="Two documents hold the same text.",
        full="The two documents' texts are identical apart from whitespace layout "
        "(line breaks, indentation, runs of spaces) and encoding.",
        title="Exact duplicate documents.",
        help_text=_PAIR_HELP,
        level="warning",
    ),
)
_RULE_INDEX = {rule["id"]: n for n, rule in enumerate(RULES)}
_PASSAGE_HELP = (
    "Keep the passage in one place and link to it, or accept the pair of documents in a "
    "baseline (--write-baseline, then --baseline)."
)
# Listed after RULES only when the scan looked for passages (scan --passages), so the log of a
# scan without them is unchanged.
PASSAGE_RULES: tuple[dict[str, Any], ...] = (
    _rule(
        PASSAGE_RULE,
        "DuplicatedPassage",
        short="Lines of a document are a near-copy of lines of another.",
        full="The region's lines are a near-copy of the related location's lines "
        "(scan --passages): a paragraph or section copied with small edits.",
        title="Duplicated passage.",
        help_text=_PASSAGE_HELP,
        level="note",
    ),
)
_RULE_INDEX[PASSAGE_RULE] = len(RULES)


def artifact_uri(path: str, cwd: str | None = None) -> tuple[str, str | None]:
    """``(uri, uriBaseId)`` for a file name as simdup reports it.

    Relative to ``%SRCROOT%`` (``cwd``, default the current folder) when the file is inside it,
    else an absolute ``file:`` URI (base ``None``).
    """
    cwd = os.getcwd() if cwd is None else cwd
    absolute = os.path.normpath(os.path.join(cwd, path))
    relative = os.path.relpath(absolute, cwd)
    inside = relative != os.pardir and not relative.startswith(os.pardir + os.sep)
    if os.sep != "/":
        relative, absolute = relative.replace(os.sep, "/"), absolute.replace(os.sep, "/")
    if inside:
        return quote(escape_path(relative), safe="/"), SRCROOT
    if not absolute.startswith("/"):
        absolute = "/" + absolute  # a Windows drive: file:///C:/...
    return "file://" + quote(escape_path(absolute), safe="/"), None


def physical_location(path: str, cwd: str, region: dict[str, Any] | None = None) -> dict[str, Any]:
    """A SARIF ``physicalLocation``: the file (``artifact_uri``) and, when there is one, the
    region in it (an empty region is left out: the whole file)."""
    uri, base = artifact_uri(path, cwd)
    artifact: dict[str, Any] = {"uri": uri}
    if base is not None:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if region:
        physical["region"] = region
    return physical


def sarif_run_log(
    cwd: str,
    *,
    rules: Sequence[dict[str, Any]],
    algorithm_version: Any,
    notifications: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    properties: dict[str, Any],
) -> dict[str, Any]:
    """The SARIF log of one simdup run, as a JSON-ready dict: the tool (simdup, its version
    and ``rules``), ``%SRCROOT%`` as the folder ``cwd``, one invocation with its
    ``notifications`` (the files skipped), the ``results`` and the run's ``properties``. The
    scan's log and the check's are both this, so a SARIF viewer reads them alike."""
    root = Path(cwd).resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "simdup",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": list(rules),
                        "properties": {"algorithm_version": algorithm_version},
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": root}},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": list(notifications),
                    }
                ],
                "results": list(results),
                "columnKind": "unicodeCodePoints",
                "properties": properties,
            }
        ],
    }


def _location(
    path: str, cwd: str, id_: int | None = None, lines: tuple[int, int] = (1, 0)
) -> dict[str, Any]:
    """``lines``: the region's first and last line (last 0: the region is the first line)."""
    location: dict[str, Any] = {} if id_ is None else {"id": id_}
    region: dict[str, Any] = {"startLine": lines[0]}
    if lines[1]:
        region["endLine"] = lines[1]
    location["physicalLocation"] = physical_location(path, cwd, region)
    return location


def _link_text(text: str) -> str:
    """``text`` safe inside the ``[text](id)`` of a SARIF message (SARIF 3.11.6)."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def pair_fingerprint(pair: DuplicatePair, content: dict[str, str]) -> str:
    """A hash of the two sides' content hashes in sorted order; a side simdup has no content
    hash for (a stored document of ``--against``) counts by its name."""
    sides = sorted(content.get(p) or "path:" + escape_path(p) for p in (pair.a, pair.b))
    return hashlib.sha256("\n".join(sides).encode("utf-8")).hexdigest()[:32]


def _message(pair: DuplicatePair) -> str:
    kind = "Exact duplicate" if pair.exact else "Near-duplicate"
    similarity = (
        "similarity not computed"
        if pair.similarity is None
        else f"estimated word-set similarity {pair.similarity:.2f}"
    )
    other = _link_text(escape_path(pair.b))
    return f"{kind} of [{other}](1): Hamming distance {pair.distance}, {similarity}."


Accepted = frozenset[tuple[str, str]] | None


def _baseline_state(pair: DuplicatePair, accepted: Accepted) -> dict[str, Any]:
    """With a baseline: whether the pair is ``new`` or ``unchanged`` (accepted), and an
    accepted pair's suppression (SARIF 3.27.24, 3.35), so that code scanning shows it as
    dismissed, not open."""
    if accepted is None:
        return {}
    if (pair.a, pair.b) not in accepted:
        return {"baselineState": "new"}
    return {
        "baselineState": "unchanged",
        "suppressions": [
            {"kind": "external", "status": "accepted",
             "justification": "accepted in the baseline (--baseline)"}
        ],
    }  # fmt: skip


def _result(
    pair: DuplicatePair, content: dict[str, str], cwd: str,
    accepted: Accepted = None,
) -> dict[str, Any]:  # fmt: skip
    rule = EXACT_RULE if pair.exact else NEAR_RULE
    return {
        "ruleId": rule,
        "ruleIndex": _RULE_INDEX[rule],
        "level": "warning",
        "message": {"text": _message(pair)},
        "locations": [_location(pair.a, cwd)],
        "relatedLocations": [_location(pair.b, cwd, 1)],
        "partialFingerprints": {FINGERPRINT_KEY: pair_fingerprint(pair, content)},
        "properties": {
            "distance": pair.distance,
            "similarity": pair.similarity,
            "exact": pair.exact,
        },
        **_baseline_state(pair, accepted),
    }


def _file_lines(span: PassageSpan) -> tuple[int, int]:
    """The first and last line of ``span`` in its file: the place's where it is lines of the
    file (a Markdown or HTML file's, whose text is not the file's), else the text's."""
    place = span.place
    if span.read_start is None and place is not None and place.kind == "line" and (
        place.first.isdigit() and place.last.isdigit()
    ):  # a passage stored before its lines were the file's
        return int(place.first), int(place.last)
    return span.start_line, span.end_line


def _span_location(span: PassageSpan, cwd: str, id_: int | None = None) -> dict[str, Any]:
    """The region of ``span``: its lines, and its characters where they are the file's (not
    a PDF's or a Word file's extracted text)."""
    location = _location(span.path, cwd, id_, lines=_file_lines(span))
    if span.place is None or span.read_start is not None:
        location["physicalLocation"]["region"].update(
            charOffset=span.start_char, charLength=span.end_char - span.start_char
        )
    return location


def _where(span: PassageSpan) -> str:
    """'lines 12-40' ('line 12' for one), or the place in a paged document: 'lines 12-40 (p.
    3)'. The lines of a PDF or a Word file are those of the text read from it; those of a
    Markdown or HTML file are the file's, and said once."""
    first, last = _file_lines(span)
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    place = span.place
    if place is None or place.kind == "line":
        return lines
    return f"{lines} ({place.label()})"


def _passage_message(pair: PassagePair) -> str:
    """'Lines 32-41 are a near-copy of lines 153-162 of [b.md](1): ...' (SARIF message)."""
    here = _where(pair.a)
    first, last = _file_lines(pair.a)
    other = _link_text(escape_path(pair.b.path))
    return (f"{here[0].upper()}{here[1:]} {'is' if first == last else 'are'} a "
            f"{_COPY_KIND.get(pair.how, 'copy')} of {_where(pair.b)} of [{other}](1): "
            f"word-set similarity {pair.similarity:.2f}.")  # fmt: skip


def _passage_result(pair: PassagePair, content: dict[str, str], cwd: str) -> dict[str, Any]:
    """A duplicated passage: the region of side ``a``, related to the region of side ``b``.
    Its fingerprint is the two documents' content hashes and the two regions' first lines,
    so two passages of one pair of documents stay two findings."""
    sides = sorted(
        f"{content.get(s.path) or 'path:' + escape_path(s.path)}:{s.start_line}"
        for s in (pair.a, pair.b)
    )
    return {
        "ruleId": PASSAGE_RULE,
        "ruleIndex": _RULE_INDEX[PASSAGE_RULE],
        "level": "note",
        "message": {"text": _passage_message(pair)},
        "locations": [_span_location(pair.a, cwd)],
        "relatedLocations": [_span_location(pair.b, cwd, 1)],
        "partialFingerprints": {
            PASSAGE_FINGERPRINT_KEY: hashlib.sha256("\n".join(sides).encode()).hexdigest()[:32]
        },
        "properties": {"similarity": pair.similarity, "how": pair.how},
    }


# How a passage was copied, as its SARIF message says it.
_COPY_KIND = {"verbatim": "near-copy", "reworded": "reworded copy", "summarised": "summary"}


def _notification(skip: SkippedFile, cwd: str) -> dict[str, Any]:
    return {
        "descriptor": {"id": f"simdup/skipped/{skip.stage}"},
        "level": "warning" if skip.failure else "note",
        "message": {"text": f"{escape_path(skip.path)} skipped ({skip.stage}): {skip.reason}"},
        "locations": [_location(skip.path, cwd)],
    }


def sarif_log(result: ScanResult, cwd: str | None = None) -> dict[str, Any]:
    """The SARIF log of ``result`` as a JSON-ready dict."""
    cwd = os.getcwd() if cwd is None else cwd
    content = {doc.path: doc.content_hash for doc in result.files}
    return sarif_run_log(
        cwd,
        rules=RULES + (PASSAGE_RULES if "passages" in result.settings else ()),
        algorithm_version=ALGORITHM_VERSION,
        notifications=[_notification(s, cwd) for s in result.skipped],
        results=[_result(p, content, cwd, result.accepted) for p in result.pairs]
        + [_passage_result(p, content, cwd) for p in result.passages],
        properties={"algorithm_version": ALGORITHM_VERSION, "settings": result.settings},
    )


def render_sarif(result: ScanResult, stream: TextIO) -> None:
    json.dump(sarif_log(result), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
