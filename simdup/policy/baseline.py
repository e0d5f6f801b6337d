"""Baselines: the near-duplicate pairs a project has accepted.

A CI job writes the duplicates it accepts once (``simdup scan docs --write-baseline
.simdup-baseline.json``), commits the file and runs ``simdup scan docs --baseline
.simdup-baseline.json --fail-on-duplicates``: only pairs the baseline does not accept fail the
build. The format (``simdup-baseline/1``, see docs/baseline.md) keys each side of a pair by
what does not change when a file moves: its content hash and fingerprint, with its path kept
for people and stored relative to the baseline file's folder.

A side of an entry matches a scanned document

* by content: the same content hash (the same normalised text);
* by path: the same file once both are made absolute (stored paths relative to the baseline
  file's folder), so ``docs``, ``./docs`` and ``/abs/docs`` are one folder;
* by fingerprint: Hamming distance within the scan's ``threshold`` -- only while no scanned
  document matches that side by content or path (the accepted file was edited *and* moved);
  otherwise a new near-copy of an accepted file would be accepted with it.

Content hashes and fingerprints are only compared when the baseline was written under the same
algorithm version and fingerprint parameters as the scan; otherwise paths alone decide. A
``--format json``/``jsonl`` report used as a baseline (paths relative to the current folder)
carries each file's content hash and fingerprint and its settings, so a file renamed since (a
``git mv``) is matched as in a baseline file; a report without its file records (an older one)
is matched by path only.
A pair is accepted when its two documents match the two sides of one entry, in either order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from ..algorithms.simhash import hamming
from ..errors import ConfigError
from ..names import escape_path
from ..options import ScanOptions
from ..params import ALGORITHM_VERSION, FeatureParams
from ..records import DuplicatePair, FingerprintedDocument, ScanResult

SCHEMA = "simdup-baseline/1"

Pair = tuple[str, str]


def _key(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object" if isinstance(value, dict) else "a list"


def _jsonl_pairs(path: str, text: str) -> list[object]:
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ConfigError(f"baseline {path}: neither JSON nor JSON Lines ({exc})") from exc
    if not any(isinstance(r, dict) and r.get("type") == "header" for r in lines):
        raise ConfigError(f"baseline {path}: not a simdup JSON Lines report (no header record)")
    return [r for r in lines if isinstance(r, dict) and r.get("type") == "pair"]


def load_baseline(path: str) -> frozenset[Pair]:
    """Accepted pairs from a ``simdup scan --format json`` or ``--format jsonl`` report.

    Anything else, an empty file included, raises ``ConfigError`` naming the file: a baseline
    that silently accepted nothing would let every pair fail, or hide a typo in CI.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"baseline {path}: cannot read it ({exc})") from exc
    if not text.strip():
        raise ConfigError(f"baseline {path}: empty file, not a simdup JSON or JSON Lines report")
    records: list[object]
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        records = _jsonl_pairs(path, text)
    else:
        if isinstance(data, dict) and data.get("type") == "header":
            records = _jsonl_pairs(path, text)  # JSON Lines of one line: the header alone
        elif not isinstance(data, dict) or "pairs" not in data:
            raise ConfigError(f"baseline {path}: not a simdup JSON report (no 'pairs')")
        elif not isinstance(data["pairs"], list):
            what = _json_type(data["pairs"])
            raise ConfigError(f"baseline {path}: 'pairs' must be a list, not {what}")
        else:
            records = data["pairs"]
    accepted = set()
    for record in records:
        if not isinstance(record, dict) or not {"a", "b"} <= record.keys():
            raise ConfigError(f"baseline {path}: a pair without 'a' and 'b'")
        a, b = record["a"], record["b"]
        if not isinstance(a, str) or not isinstance(b, str):
            raise ConfigError(f"baseline {path}: a pair whose 'a' or 'b' is not a string")
        accepted.add(_key(a, b))
    return frozenset(accepted)


# Fingerprint settings that do not change a fingerprint or a content hash.
_NOT_FINGERPRINT = ("segmenter", "sketch_size", "minhash_perms")


def report_key(algorithm_version: str, features: Mapping[str, Any]) -> str:
    """What a report says of the fingerprints it holds (its algorithm version and fingerprint
    settings as it describes them): a report used as a baseline is matched by content and
    fingerprint only under the same."""
    kept = {k: v for k, v in features.items() if k not in _NOT_FINGERPRINT}
    return "report:" + json.dumps([algorithm_version, kept], sort_keys=True, ensure_ascii=False)


def fingerprint_key(params: FeatureParams) -> str:
    """What must agree for stored content hashes and fingerprints to be comparable with a
    scan's: the algorithm version and every parameter that can change a fingerprint (not the
    sketch size or MinHash length, which only serve verification)."""
    return replace(params, minhash_perms=0, sketch_size=FeatureParams().sketch_size).cache_key()


@dataclass(frozen=True, slots=True)
class Side:
    """One side of an accepted pair. ``path``: absolute and escaped (``escape_path``), the
    form matched; ``shown``: as written in the baseline, for messages. ``content_hash`` and
    ``fingerprint`` are None when the baseline does not have them (an old report)."""

    path: str
    shown: str
    content_hash: str | None = None
    fingerprint: int | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """An accepted pair."""

    a: Side
    b: Side


def _absolute(path: str) -> str:
    """The escaped absolute form of a scanned document's path."""
    return escape_path(os.path.normpath(os.path.abspath(path)))


def _stored(folder: str, path: str) -> str:
    """The escaped absolute form of a path stored relative to ``folder`` (POSIX separators)."""
    return os.path.normpath(os.path.join(escape_path(folder), path.replace("/", os.sep)))


class _Scan:
    """What a scan offers to match against: its documents by path, and which baseline sides
    are still present by content or path (see ``Side`` matching in the module docstring)."""

    def __init__(
        self,
        docs_by_path: Mapping[str, FingerprintedDocument],
        options: ScanOptions,
        hashes_comparable: bool,
    ) -> None:
        self.docs = docs_by_path
        self.threshold = options.threshold
        self.comparable = hashes_comparable
        self.paths = {_absolute(p) for p in docs_by_path}
        self.hashes = {d.content_hash for d in docs_by_path.values()}

    def present(self, side: Side) -> bool:
        if side.path in self.paths:
            return True
        return self.comparable and side.content_hash in self.hashes

    def matches(self, path: str, side: Side) -> bool:
        if _absolute(path) == side.path:
            return True
        doc = self.docs.get(path)
        if doc is None or not self.comparable:
            return False
        if side.content_hash is not None and doc.content_hash == side.content_hash:
            return True
        return (
            side.fingerprint is not None
            and not self.present(side)
            and hamming(doc.fingerprint, side.fingerprint) <= self.threshold
        )

    def accepts(self, entry: Entry, pair: DuplicatePair) -> bool:
        a, b = entry.a, entry.b
        return (self.matches(pair.a, a) and self.matches(pair.b, b)) or (
            self.matches(pair.a, b) and self.matches(pair.b, a)
        )


@dataclass(frozen=True)
class Baseline:
    """Accepted pairs, read from a ``simdup-baseline/1`` file or an old JSON/JSONL report.

    ``key``: ``fingerprint_key`` of the parameters the baseline was written with (None for a
    report, which is matched by path only)."""

    path: str
    entries: tuple[Entry, ...]
    key: str | None = None

    @classmethod
    def load(cls, path: str) -> Baseline:
        """Read ``path``. Raises ``ConfigError`` naming the file for anything that is neither a
        simdup baseline nor a simdup JSON or JSON Lines report."""
        data = _read_json(path)
        if isinstance(data, dict) and str(data.get("schema", "")).startswith("simdup-baseline/"):
            return _parse_baseline(path, data)
        # A report: paths as the scan printed them, relative to the current folder; its file
        # records (content hash, fingerprint) when it has them.
        pairs = load_baseline(path)
        records, key = _report_files(data, path)
        if not records:
            return cls.from_pairs(path, pairs)
        here = os.getcwd()

        def side(shown: str) -> Side:
            found = records.get(shown)
            if found is None:
                return Side(_stored(here, shown), shown)
            return Side(_stored(here, shown), shown, found[0], found[1])

        entries = tuple(Entry(side(a), side(b)) for a, b in sorted(pairs))
        return cls(path, entries, key)

    @classmethod
    def from_pairs(cls, path: str, pairs: Iterable[Pair]) -> Baseline:
        """A path-only baseline of escaped path pairs relative to the current folder."""
        here = os.getcwd()
        entries = tuple(
            Entry(Side(_stored(here, a), a), Side(_stored(here, b), b)) for a, b in sorted(pairs)
        )
        return cls(path, entries)

    def _scan(
        self, docs_by_path: Mapping[str, FingerprintedDocument], options: ScanOptions
    ) -> _Scan:
        params = options.features
        scan_keys = (fingerprint_key(params), report_key(ALGORITHM_VERSION, params.describe()))
        return _Scan(docs_by_path, options, self.key is not None and self.key in scan_keys)

    def accepts(
        self,
        pair: DuplicatePair,
        docs_by_path: Mapping[str, FingerprintedDocument],
        options: ScanOptions,
    ) -> bool:
        """Whether some entry accepts ``pair`` of a scan of ``docs_by_path`` under ``options``."""
        scan = self._scan(docs_by_path, options)
        return any(scan.accepts(e, pair) for e in self.entries)

    def judge(
        self,
        pairs: Sequence[DuplicatePair],
        docs_by_path: Mapping[str, FingerprintedDocument],
        options: ScanOptions,
    ) -> tuple[tuple[DuplicatePair, ...], tuple[Entry, ...]]:
        """``(new, stale)``: the pairs no entry accepts, and the entries that accept no pair."""
        scan = self._scan(docs_by_path, options)
        used: set[int] = set()
        new = []
        for pair in pairs:
            hits = [n for n, e in enumerate(self.entries) if scan.accepts(e, pair)]
            used.update(hits)
            if not hits:
                new.append(pair)
        stale = tuple(e for n, e in enumerate(self.entries) if n not in used)
        return tuple(new), stale

    def stale(
        self,
        pairs: Sequence[DuplicatePair],
        docs_by_path: Mapping[str, FingerprintedDocument],
        options: ScanOptions,
    ) -> tuple[Entry, ...]:
        """The entries that accept none of ``pairs``: duplicates since removed or resolved."""
        return self.judge(pairs, docs_by_path, options)[1]


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"baseline {path}: cannot read it ({exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None  # JSON Lines, or not JSON: load_baseline says which


def _report_files(
    data: Any, path: str
) -> tuple[dict[str, tuple[str | None, int | None]], str | None]:
    """The content hash and fingerprint of each file of a JSON or JSON Lines report, by the
    path it printed, and its ``report_key`` (empty and None for a report without them)."""
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        header, files = data, data["files"]
    else:  # JSON Lines: a header record, then a record per file
        try:
            with open(path, encoding="utf-8") as handle:
                lines = [json.loads(line) for line in handle if line.strip()]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return {}, None
        header = next((r for r in lines if isinstance(r, dict) and r.get("type") == "header"), {})
        files = [r for r in lines if isinstance(r, dict) and r.get("type") == "file"]
    settings = header.get("settings") if isinstance(header, dict) else None
    version = header.get("algorithm_version") if isinstance(header, dict) else None
    features = settings.get("features") if isinstance(settings, dict) else None
    if not isinstance(version, str) or not isinstance(features, dict):
        return {}, None
    found: dict[str, tuple[str | None, int | None]] = {}
    for record in files:
        if not isinstance(record, dict) or not isinstance(record.get("path"), str):
            continue
        digest, fingerprint = record.get("content_hash"), record.get("fingerprint")
        try:
            fp = int(fingerprint, 16) if isinstance(fingerprint, str) else None
        except ValueError:
            fp = None
        found[record["path"]] = (digest if isinstance(digest, str) else None, fp)
    return found, report_key(version, features)


def _parse_side(path: str, folder: str, raw: object) -> Side:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise ConfigError(f"baseline {path}: a side without a 'path' string")
    content_hash, fingerprint = raw.get("content_hash"), raw.get("fingerprint")
    if content_hash is not None and not isinstance(content_hash, str):
        raise ConfigError(f"baseline {path}: a 'content_hash' that is not a string")
    try:
        fp = None if fingerprint is None else int(fingerprint, 16)
    except (TypeError, ValueError):
        raise ConfigError(f"baseline {path}: a 'fingerprint' that is not hexadecimal") from None
    return Side(_stored(folder, raw["path"]), raw["path"], content_hash, fp)


def _parse_baseline(path: str, data: dict[str, Any]) -> Baseline:
    if data.get("schema") != SCHEMA:
        raise ConfigError(
            f"baseline {path}: schema {data.get('schema')!r} is not {SCHEMA!r} "
            "(written by a newer simdup?)"
        )
    pairs = data.get("pairs")
    if not isinstance(pairs, list):
        raise ConfigError(f"baseline {path}: 'pairs' must be a list, not {_json_type(pairs)}")
    folder = os.path.dirname(os.path.abspath(path))
    entries = []
    for record in pairs:
        if not isinstance(record, dict) or not {"a", "b"} <= record.keys():
            raise ConfigError(f"baseline {path}: a pair without 'a' and 'b'")
        entries.append(
            Entry(_parse_side(path, folder, record["a"]), _parse_side(path, folder, record["b"]))
        )
    key = data.get("fingerprint_key")
    if data.get("algorithm_version") != ALGORITHM_VERSION or not isinstance(key, str):
        key = None  # another algorithm: its hashes mean nothing here, paths still do
    return Baseline(path, tuple(entries), key)


def _side_record(path: str, doc: FingerprintedDocument | None, folder: str) -> dict[str, Any]:
    absolute = os.path.abspath(path)
    try:
        shown = os.path.relpath(absolute, folder)
    except ValueError:  # another drive (Windows): no relative path exists
        shown = absolute
    return {
        "path": escape_path(shown.replace(os.sep, "/")),
        "content_hash": doc.content_hash if doc else None,
        "fingerprint": f"{doc.fingerprint:016x}" if doc else None,
    }


def baseline_record(result: ScanResult, path: str, params: FeatureParams) -> dict[str, Any]:
    """The ``simdup-baseline/1`` document accepting every pair of ``result``, for a baseline
    file to be written at ``path`` by a scan under ``params``."""
    folder = os.path.dirname(os.path.abspath(path))
    docs = {d.path: d for d in result.files}
    # Pairs of documents sharing a duplicated passage (scan --passages) are accepted too.
    pairs = [(p.a, p.b) for p in result.pairs]
    pairs += sorted({(p.a.path, p.b.path) for p in result.passages} - set(pairs))
    return {
        "schema": SCHEMA,
        "algorithm_version": ALGORITHM_VERSION,
        "fingerprint_key": fingerprint_key(params),
        "pairs": [
            {
                "a": _side_record(a, docs.get(a), folder),
                "b": _side_record(b, docs.get(b), folder),
            }
            for a, b in pairs
        ],
    }


def write_baseline(result: ScanResult, path: str, params: FeatureParams, stream: TextIO) -> None:
    """Write the baseline of ``result`` meant for ``path`` to ``stream`` (the caller opens the
    file, atomically: ``simdup.writers.output.OutputTarget``)."""
    json.dump(baseline_record(result, path, params), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
