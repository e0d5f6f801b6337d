"""Fingerprint records as data: pandas frames and Parquet files.

``--write-fingerprints DIR`` stores a scan's step 1, one row per file: its documents
(``kind`` "document": path, size, content hash, fingerprint, sketch, MinHash signature,
encoding...), the files the engine skipped (``kind`` "skipped": stage and reason) and those
discovery passed over (``kind`` "discovery"). Every file of the set carries, in its Parquet
key-value metadata, the schema name, the simdup and algorithm versions, the fingerprint
parameters (``FeatureParams.cache_key()``, and their readable ``describe()``) and the counts of
discovery. ``--fingerprints DIR`` reads them back, so a later scan skips step 1; a set written
by another algorithm version or with other parameters is refused (``StaleFingerprints``).

Paths are stored as UTF-8 bytes (with surrogates passed through), so that file names that are
not valid UTF-8 survive the trip exactly. Fingerprints are ``uint64``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..__about__ import __version__
from ..engines import Progress, Result, Sink, TextTask
from ..errors import ConfigError
from ..options import ScanOptions, resolve_options
from ..params import ALGORITHM_VERSION, MARKUPS, FeatureParams, described_markup
from ..readers.discovery import Discovery, DiscoveryOptions
from ..records import FingerprintedDocument, ScanResult, SkippedFile, SourceFile
from . import require_parquet

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = "simdup-fingerprints/1"
# Rows per Parquet file: ~2.5 kB a row with MinHash signatures, so files of ~250 MB at most.
ROWS_PER_FILE = 100_000
_META = "simdup."

DOCUMENT_COLUMNS = (
    "path", "size", "fingerprint", "encoding", "encoding_source", "token_count",
    "feature_count", "content_hash", "chars", "sketch", "minhash",
)  # fmt: skip


_COLUMNS = (
    "kind", "path", "size", "fingerprint", "encoding", "encoding_source", "token_count",
    "feature_count", "content_hash", "chars", "sketch", "minhash", "stage", "reason", "failure",
)  # fmt: skip


class StaleFingerprints(ConfigError):
    """Stored fingerprints that this scan cannot use (other version or parameters)."""


def encode_path(path: str) -> bytes:
    return path.encode("utf-8", "surrogatepass")


def decode_path(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogatepass")


def documents_frame(docs: Sequence[FingerprintedDocument], first_id: int = 0) -> pd.DataFrame:
    """One row per document, with ``id`` its position (from ``first_id``)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "id": np.arange(first_id, first_id + len(docs), dtype=np.int64),
            "path": pd.Series([encode_path(d.path) for d in docs], dtype=object),
            "size": np.array([d.size for d in docs], dtype=np.int64),
            "fingerprint": np.array([d.fingerprint for d in docs], dtype=np.uint64),
            "encoding": pd.Series([d.encoding for d in docs], dtype=object),
            "encoding_source": pd.Series([d.encoding_source for d in docs], dtype=object),
            "token_count": np.array([d.token_count for d in docs], dtype=np.int64),
            "feature_count": np.array([d.feature_count for d in docs], dtype=np.int64),
            "content_hash": pd.Series([d.content_hash for d in docs], dtype=object),
            "chars": np.array([d.chars for d in docs], dtype=np.int64),
            "sketch": pd.Series([d.sketch for d in docs], dtype=object),
            "minhash": pd.Series([d.minhash for d in docs], dtype=object),
        }
    )


def documents_of(frame: pd.DataFrame) -> list[FingerprintedDocument]:
    """The records of ``documents_frame`` rows, in row order."""
    columns = [frame[c].tolist() for c in DOCUMENT_COLUMNS]
    return [
        FingerprintedDocument(
            decode_path(path),
            int(fp),
            enc,
            src,
            int(size),
            int(tokens),
            int(features),
            digest,
            int(chars),
            bytes(sketch),
            bytes(minhash),
        )  # fmt: skip
        for path, size, fp, enc, src, tokens, features, digest, chars, sketch, minhash in zip(
            *columns, strict=True
        )
    ]


@dataclass(frozen=True)
class StoredScan:
    """Step 1 of a scan as stored: the engine's records in discovery order, what discovery
    passed over, and how many files it found and how many the ignore rules left out."""

    results: list[Result]
    discovery_skipped: list[SkippedFile]
    files_found: int
    files_ignored: int


def metadata(params: FeatureParams, files_found: int, files_ignored: int) -> dict[str, str]:
    return {
        _META + "schema": SCHEMA,
        _META + "version": __version__,
        _META + "algorithm": ALGORITHM_VERSION,
        _META + "params": params.cache_key(),
        _META + "params_readable": json.dumps(params.describe(), sort_keys=True),
        _META + "files_found": str(files_found),
        _META + "files_ignored": str(files_ignored),
    }


def _table(results: Sequence[Result], kind: Sequence[str], meta: dict[str, str]) -> Any:
    import pyarrow as pa

    docs = [r if isinstance(r, FingerprintedDocument) else None for r in results]
    skips = [r if isinstance(r, SkippedFile) else None for r in results]

    def column(get: Callable[[Any], Any], kind_of: type, typ: Any) -> Any:
        source = docs if kind_of is FingerprintedDocument else skips
        return pa.array([get(r) if r is not None else None for r in source], type=typ)

    D, S = FingerprintedDocument, SkippedFile
    columns = {
        "kind": pa.array(kind, type=pa.string()),
        "path": pa.array([encode_path(r.path) for r in results], type=pa.binary()),
        "size": column(lambda d: d.size, D, pa.int64()),
        "fingerprint": column(lambda d: d.fingerprint, D, pa.uint64()),
        "encoding": column(lambda d: d.encoding, D, pa.string()),
        "encoding_source": column(lambda d: d.encoding_source, D, pa.string()),
        "token_count": column(lambda d: d.token_count, D, pa.int64()),
        "feature_count": column(lambda d: d.feature_count, D, pa.int64()),
        "content_hash": column(lambda d: d.content_hash, D, pa.string()),
        "chars": column(lambda d: d.chars, D, pa.int64()),
        "sketch": column(lambda d: d.sketch, D, pa.binary()),
        "minhash": column(lambda d: d.minhash, D, pa.binary()),
        "stage": column(lambda s: s.stage, S, pa.string()),
        "reason": column(lambda s: s.reason.encode("utf-8", "surrogatepass"), S, pa.binary()),
        "failure": column(lambda s: s.failure, S, pa.bool_()),
    }
    table = pa.table(columns)
    return table.replace_schema_metadata({k.encode(): v.encode() for k, v in meta.items()})


def write_fingerprints(
    directory: str | os.PathLike[str],
    stored: StoredScan,
    params: FeatureParams,
    rows_per_file: int = ROWS_PER_FILE,
) -> list[str]:
    """Write ``stored`` as ``part-NNNNN.parquet`` files in ``directory`` (created; files of an
    earlier set there are replaced). Returns the paths written."""
    require_parquet("--write-fingerprints")
    import pyarrow.parquet as pq

    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.startswith("part-") and name.endswith(".parquet"):
            os.remove(os.path.join(directory, name))
    rows: list[Result] = list(stored.results) + list(stored.discovery_skipped)
    kinds = [
        "document" if isinstance(r, FingerprintedDocument) else "skipped" for r in stored.results
    ] + ["discovery"] * len(stored.discovery_skipped)
    meta = metadata(params, stored.files_found, stored.files_ignored)
    written = []
    for n, start in enumerate(range(0, max(len(rows), 1), rows_per_file)):
        chunk = rows[start : start + rows_per_file]
        path = os.path.join(directory, f"part-{n:05d}.parquet")
        temporary = path + ".tmp"
        pq.write_table(_table(chunk, kinds[start : start + rows_per_file], meta), temporary)
        os.replace(temporary, path)  # a reader never sees half a file
        written.append(path)
    return written


def stored_scan_of(result: ScanResult) -> StoredScan:
    """Step 1 of a finished scan, as ``write_fingerprints`` stores it."""
    docs = {d.path: d for d in result.files}
    engine_skips = {s.path: s for s in result.skipped if s.stage != "discovery"}
    results: list[Result] = [*docs.values(), *engine_skips.values()]
    results.sort(key=lambda r: r.path)  # discovery order
    return StoredScan(
        results,
        [s for s in result.skipped if s.stage == "discovery"],
        int(result.stats["files_found"]),
        int(result.stats.get("files_ignored", 0)),
    )


def write_scan(
    directory: str | os.PathLike[str], result: ScanResult, options: ScanOptions
) -> list[str]:
    """``write_fingerprints`` of a finished scan run with ``options`` (the parameters as the
    scan resolved them: ``method="auto"`` decided by the number of files)."""
    resolved = resolve_options(options, {}, files=int(result.stats["files_found"]))
    return write_fingerprints(directory, stored_scan_of(result), resolved.features)


def _parts(directory: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".parquet"))
    except OSError as exc:
        raise ConfigError(f"--fingerprints {directory}: {exc.strerror or exc}") from exc
    if not names:
        raise ConfigError(f"--fingerprints {directory}: no Parquet files there")
    return [os.path.join(directory, n) for n in names]


def check_metadata(
    path: str, meta: dict[bytes, bytes] | None, params: FeatureParams | None
) -> None:
    """Raise ``StaleFingerprints`` unless ``meta`` says: this schema, this algorithm version
    and (unless None) these parameters."""
    found = {k.decode(): v.decode() for k, v in (meta or {}).items()}
    if found.get(_META + "schema") != SCHEMA:
        raise StaleFingerprints(f"{path}: not a simdup fingerprint file ({SCHEMA})")
    if found.get(_META + "algorithm") != ALGORITHM_VERSION:
        raise StaleFingerprints(
            f"{path}: written by algorithm {found.get(_META + 'algorithm')} (simdup "
            f"{found.get(_META + 'version')}); this is {ALGORITHM_VERSION}: fingerprint the files "
            "again"
        )
    if params is not None and found.get(_META + "params") != params.cache_key():
        raise StaleFingerprints(
            f"{path}: written with other fingerprint parameters ("
            f"{found.get(_META + 'params_readable')}): give the same options, or fingerprint the "
            "files again"
        )


def stored_markup(directory: str | os.PathLike[str]) -> str | None:
    """The markup setting the fingerprints in ``directory`` were made with (``none`` for the
    rows of a dataset, ``markdown`` for files, unless named), None when it cannot be told:
    reading them says why."""
    try:
        import pyarrow.parquet as pq

        meta = pq.read_schema(_parts(os.fspath(directory))[0]).metadata or {}
        described = json.loads(meta.get((_META + "params_readable").encode(), b"{}"))
    except Exception:  # a missing extra, no part, a damaged file: read_fingerprints says
        return None
    markup = described_markup(described.get("markup"))
    return markup if markup in MARKUPS else None


def read_fingerprints(
    directory: str | os.PathLike[str], params: FeatureParams | None
) -> StoredScan:
    """The ``StoredScan`` in ``directory``; ``StaleFingerprints`` when it was written by
    another algorithm version or with other ``params`` (None: parameters not checked)."""
    require_parquet("--fingerprints")
    import pyarrow.parquet as pq

    directory = os.fspath(directory)
    results: list[Result] = []
    passed: list[SkippedFile] = []
    found: dict[str, str] = {}
    for path in _parts(directory):
        schema = pq.read_schema(path)
        check_metadata(path, schema.metadata, params)
        found = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
        # Column by column in Python values: through pandas, a uint64 column with nulls (the
        # skipped files' rows) would become float64 and lose the fingerprints' low bits.
        table = pq.read_table(path)
        for row in zip(*(table.column(c).to_pylist() for c in _COLUMNS), strict=True):
            kind, raw, size, fp, enc, src, tokens, features, digest, chars = row[:10]
            sketch, minhash, stage, reason, failure = row[10:]
            name = decode_path(raw)
            if kind == "document":
                results.append(
                    FingerprintedDocument(
                        name,
                        fp,
                        enc,
                        src,
                        size,
                        tokens,
                        features,
                        digest,
                        chars,
                        sketch,
                        minhash,
                    )  # fmt: skip
                )
            else:
                skip = SkippedFile(
                    name, stage, reason.decode("utf-8", "surrogatepass"), bool(failure)
                )
                (results if kind == "skipped" else passed).append(skip)
    return StoredScan(
        results,
        passed,
        int(found[_META + "files_found"]),
        int(found[_META + "files_ignored"]),
    )


class StoredFingerprints:
    """A scan's step 1 answered from ``--fingerprints DIR``: the files are those stored
    (``find``, for ``scan(finder=...)``) and their records come from the store (``engine``,
    which refuses a store of other parameters)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        require_parquet("--fingerprints")
        self.directory = os.fspath(directory)
        self.parts = _parts(self.directory)  # a usage error now, before the scan starts
        self._stored: StoredScan | None = None

    def stored(self) -> StoredScan:
        """What the store holds (schema and algorithm version checked, not parameters)."""
        if self._stored is None:
            self._stored = read_fingerprints(self.directory, None)
        return self._stored

    def find(self, paths: list[str], options: DiscoveryOptions) -> Discovery:
        """The stored files (``paths`` must be empty: the store replaces them), with the
        counts of the discovery that wrote it."""
        if paths:
            raise ConfigError("--fingerprints replaces PATHS: give one or the other")
        stored = self.stored()
        files = [
            SourceFile(r.path, r.size if isinstance(r, FingerprintedDocument) else 0)
            for r in stored.results
        ]
        return Discovery(files, list(stored.discovery_skipped), stored.files_ignored)

    def engine(self, params: FeatureParams) -> StoredEngine:
        """The engine giving the stored records; ``StaleFingerprints`` unless they were made
        with ``params``."""
        import pyarrow.parquet as pq

        for path in self.parts:
            check_metadata(path, pq.read_schema(path).metadata, params)
        return StoredEngine(self, params)


class StoredEngine:
    """The records stored for the files, by path."""

    def __init__(self, store: StoredFingerprints, params: FeatureParams) -> None:
        self.store = store
        self.params = params

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        by_path = {r.path: r for r in self.store.stored().results}
        for done, source in enumerate(files, 1):
            yield by_path[source.path]
            if progress:
                progress(done, len(files))

    def with_task(self, task: TextTask, sink: Sink) -> None:
        """None: stored records have no texts."""
        return None
