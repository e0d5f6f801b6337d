"""JSON (one document) and JSON Lines (one record per line) renderers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice, repeat
from typing import Any, TextIO

from ..__about__ import __version__
from ..document_table import DocumentTable
from ..names import escape_path
from ..params import ALGORITHM_VERSION
from ..records import (
    Cluster,
    Comparison,
    DuplicatePair,
    FingerprintedDocument,
    PassagePair,
    RowPlace,
    ScanResult,
    SkippedFile,
    SkippedRow,
)
from .passages import has_passages, passage_record, place_record, repeated_record

SCHEMA = "simdup-scan/1"
COMPARE_SCHEMA = "simdup-compare/1"


def fingerprint_hex(fp: int) -> str:
    return f"{fp:016x}"


def file_record(doc: FingerprintedDocument) -> dict[str, Any]:
    return {
        "path": escape_path(doc.path),
        "fingerprint": fingerprint_hex(doc.fingerprint),
        "encoding": doc.encoding,
        "encoding_source": doc.encoding_source,
        "size": doc.size,
        "tokens": doc.token_count,
        "features": doc.feature_count,
        "content_hash": doc.content_hash,
    }


def row_place_record(place: RowPlace) -> dict[str, Any]:
    """Where a row is: ``file``, ``row`` (0-based), ``line`` (1-based; null in Parquet)."""
    return {"file": escape_path(place.file), "row": place.row, "line": place.line}


def _place_fields(place: RowPlace) -> str:
    return ", " + json.dumps(row_place_record(place), ensure_ascii=False)[1:-1]


def skip_record(skip: SkippedFile) -> dict[str, Any]:
    """A skipped file, or a skipped row (``path``: its key) with where it is."""
    found = {"path": escape_path(skip.path), "stage": skip.stage, "reason": skip.reason}
    if isinstance(skip, SkippedRow) and skip.file:
        found.update(row_place_record(RowPlace(skip.file, skip.row, skip.line)))
    return found


def pair_record(pair: DuplicatePair) -> dict[str, Any]:
    return {
        "a": escape_path(pair.a),
        "b": escape_path(pair.b),
        "distance": pair.distance,
        "similarity": pair.similarity,
        "exact": pair.exact,
    }


def cluster_record(c: Cluster) -> dict[str, Any]:
    return {
        "id": c.id,
        "representative": escape_path(c.representative),
        "size": len(c.members),
        "max_distance": c.max_distance,
        "members": [
            {
                "path": escape_path(m.path),
                "distance": m.distance,
                "similarity": m.similarity,
                "exact_duplicate": m.exact_duplicate,
            }
            for m in c.members
        ],
    }


def header(result: ScanResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "simdup_version": __version__,
        "algorithm_version": ALGORITHM_VERSION,
        "settings": result.settings,
        "summary": result.stats,
    }


class Records:
    """A list of records in a JSON document, made one at a time as it is written (a million
    file records held as dicts at once would take more memory than the scan itself). Each
    item is a dict, or already its JSON text (``file_lines``)."""

    def __init__(self, items: Iterable[dict[str, Any] | str]) -> None:
        self.items = items


# ``json.dumps(item, ensure_ascii=False)``, without making an encoder for every record.
_encode = json.JSONEncoder(ensure_ascii=False).encode
_string = json.encoder.encode_basestring  # a str as JSON, as _encode writes it


def file_lines(
    files: Iterable[FingerprintedDocument], places: Sequence[RowPlace] | None = None
) -> Iterator[str]:
    """``_encode(file_record(doc))`` of each document, written out directly: the files are
    most of a large report (10^6 records), and a dict per record, encoded, cost 2.5x more.
    A scan's table is read column by column, with no record made per document. With
    ``places`` (rows of datasets), each record also says where its row is."""
    if places is not None:
        for line, place in zip(file_lines(files), places, strict=True):
            yield line[:-1] + _place_fields(place) + "}"
        return
    if isinstance(files, DocumentTable):
        yield from _table_lines(files)
        return
    for d in files:
        yield _file_line(
            d.path, d.fingerprint, _string(d.encoding), _string(d.encoding_source), d.size,
            d.token_count, d.feature_count, _string(d.content_hash),
        )  # fmt: skip


def _file_line(
    path: str, fp: int, encoding: str, source: str, size: int, tokens: int, features: int,
    content_hash: str,
) -> str:  # fmt: skip
    """One file record; the strings but ``path`` are JSON already."""
    return (
        f'{{"path": {_string(escape_path(path))}, "fingerprint": "{fp:016x}", '
        f'"encoding": {encoding}, "encoding_source": {source}, "size": {size}, '
        f'"tokens": {tokens}, "features": {features}, "content_hash": {content_hash}}}'
    )


def _table_lines(table: DocumentTable) -> Iterator[str]:
    encodings = [(_string(e), _string(s)) for e, s in table.encodings]
    odd = table.odd_digests
    for start in range(0, len(table), _LINE_SLICE):
        stop = min(start + _LINE_SLICE, len(table))
        hexes = table.digest[start:stop].tobytes().hex()
        columns = zip(
            table.paths[start:stop],
            table.fingerprint[start:stop].tolist(),
            table.encoding[start:stop].tolist(),
            table.size[start:stop].tolist(),
            table.token_count[start:stop].tolist(),
            table.feature_count[start:stop].tolist(),
            strict=True,
        )
        for k, (path, fp, code, size, tokens, features) in enumerate(columns):
            text = odd.get(start + k)
            digest = f'"{hexes[32 * k : 32 * k + 32]}"' if text is None else _string(text)
            encoding, source = encodings[code]
            yield _file_line(path, fp, encoding, source, size, tokens, features, digest)


_LINE_SLICE = 4096


def render_json(result: ScanResult, stream: TextIO) -> None:
    doc: dict[str, Any] = header(result)
    doc["files"] = Records(file_lines(result.files, result.places))
    doc["skipped"] = Records(map(skip_record, result.skipped))
    doc["clusters"] = Records(map(cluster_record, result.clusters))
    doc["pairs"] = Records(map(pair_record, result.pairs))
    if has_passages(result):
        doc["passages"] = Records(map(passage_record, result.passages))
        doc["repeated_passages"] = Records(map(repeated_record, result.repeated_passages))
    write_indented(doc, stream)


def write_indented(doc: dict[str, Any], stream: TextIO) -> None:
    """``doc`` as indented JSON, except that each item of a list of records (``Records``) is
    one line.

    Easy to read and to grep (one file, pair or cluster per line), and 5x faster to write than
    ``indent=2`` all the way down, which the json module can only do in pure Python.
    """
    stream.write("{")
    for n, (key, value) in enumerate(doc.items()):
        stream.write(",\n  " if n else "\n  ")
        stream.write(json.dumps(key, ensure_ascii=False) + ": ")
        if isinstance(value, Records):
            stream.write("[")
            empty = True
            # A slice of records a write: one write call per line cost ~0.6 s at 10^6 files.
            lines = (item if isinstance(item, str) else _encode(item) for item in value.items)
            while chunk := list(islice(lines, _LINE_SLICE)):
                stream.write(("\n    " if empty else ",\n    ") + ",\n    ".join(chunk))
                empty = False
            stream.write("]" if empty else "\n  ]")
        else:
            text = json.dumps(value, ensure_ascii=False, indent=2)
            stream.write(text.replace("\n", "\n  "))
    stream.write("\n}\n")


def jsonl_records(result: ScanResult) -> Iterator[dict[str, Any]]:
    yield {"type": "header", **header(result)}
    places = result.places if result.places is not None else repeat(None)
    for f, place in zip(result.files, places):  # noqa: B905 (repeat() has no end)
        yield {"type": "file", **file_record(f), **(row_place_record(place) if place else {})}
    for s in result.skipped:
        yield {"type": "skipped", **skip_record(s)}
    for p in result.pairs:
        yield {"type": "pair", **pair_record(p)}
    for c in result.clusters:
        yield {"type": "cluster", **cluster_record(c)}
    for passage in result.passages:
        yield {"type": "passage", **passage_record(passage)}
    for repeated in result.repeated_passages:
        yield {"type": "repeated_passage", **repeated_record(repeated)}


def render_jsonl(result: ScanResult, stream: TextIO) -> None:
    for record in jsonl_records(result):
        stream.write(_encode(record))
        stream.write("\n")


def comparison_record(c: Comparison) -> dict[str, Any]:
    def doc(d: FingerprintedDocument) -> dict[str, Any]:
        return file_record(d)

    def terms(items: Any) -> list[dict[str, Any]]:
        return [{"term": t.term, "weight_a": t.weight_a, "weight_b": t.weight_b} for t in items]

    return {
        "schema": COMPARE_SCHEMA,
        "simdup_version": __version__,
        "algorithm_version": ALGORITHM_VERSION,
        "settings": c.settings,
        "a": doc(c.a),
        "b": doc(c.b),
        "distance": c.distance,
        "simhash_similarity": c.simhash_similarity,
        "tfidf_cosine": c.cosine,
        "jaccard": c.jaccard,
        "threshold": c.threshold,
        "near_duplicate": c.near_duplicate,
        "reason": c.reason,
        "length_ratio": c.length_ratio,
        "shared_terms": terms(c.shared_terms),
        "only_in_a": terms(c.only_a),
        "only_in_b": terms(c.only_b),
        # Only with --explain: the changed passages, 1-based inclusive line ranges.
        **(
            {
                "diff": [
                    {
                        "a_lines": [h.a_start, h.a_end],
                        "b_lines": [h.b_start, h.b_end],
                        "a": list(h.a_lines),
                        "b": list(h.b_lines),
                        **{
                            f"{side}_place": place_record(place)
                            for side, place in (("a", h.a_place), ("b", h.b_place))
                            if place is not None
                        },
                    }
                    for h in c.diff
                ],
                "diff_truncated": c.diff_truncated,
            }
            if c.diff or c.diff_truncated
            else {}
        ),
    }


def render_comparison_json(
    c: Comparison, stream: TextIO, passages: Sequence[PassagePair] | None = None
) -> None:
    """``passages``: the matching regions (``compare --passages``), as a ``passages`` list."""
    record = comparison_record(c)
    if passages is not None:
        record["passages"] = [passage_record(p) for p in passages]
    json.dump(record, stream, ensure_ascii=False, indent=2)
    stream.write("\n")
