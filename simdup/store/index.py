"""Named indexes: a corpus of fingerprinted documents kept in one SQLite file, to check new
documents against (``simdup.Index``; ``simdup index``, ``simdup query``, ``scan --against``).

The index is three modules: this one (``Index``: the connection, its transactions, and adding,
reading and querying), how it is laid out in SQLite (``index_layout``: the table, its block
indexes and migrations, rows to documents and back), and how a query finds its candidates
(``index_query``: probing the block indexes or reading every fingerprint, whichever its
measured costs say is cheaper, and why).

Writes: ``add``/``add_file``/``remove`` join one open transaction, committed by ``commit()``,
``close()`` or leaving the ``with`` block; ``add_many``, ``add_documents`` and ``add_files``
commit one transaction per batch, so a killed writer loses at most its open batch, and another
process waits (up to ``BUSY_TIMEOUT``) only while a batch is being written; readers never wait
(WAL), and each query reads one committed state. An index remembers
the algorithm version and the fingerprint parameters it was built with and refuses others.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engines import Engine, Progress, make_engine
from ..engines.work import fingerprint_file
from ..errors import ConfigError, InputError, StoreError
from ..join.verify import Verifier
from ..options import ScanOptions
from ..params import ALGORITHM_VERSION, SHORT_TEXT_CHARS, FeatureParams, described_markup
from ..readers import readers_description, readers_key
from ..readers.discovery import DEFAULT_MAX_SIZE, DiscoveryOptions, discover
from ..records import FingerprintedDocument, SkippedFile, SourceFile
from ..text.processor import processor_for
from .database import check_integrity, open_database
from .index_layout import BLOCK_BITS as BLOCK_BITS
from .index_layout import BLOCKS as BLOCKS
from .index_layout import (
    COLUMNS,
    INSERT,
    Row,
    check_fingerprint,
    check_key,
    document_row,
    fingerprint_row,
    identity,
    key_text,
    migrations,
    params_mismatch,
    readers_mismatch,
    stored_document,
)
from .index_query import (
    candidates,
    check_threshold,
    keys_of,
    near,
    short_near,
    size_bound,
)
from .index_query import choose_strategy as choose_strategy
from .index_query import probe_count as probe_count
from .index_query import probe_plan as probe_plan
from .sentence_vectors import SentenceVectors

if TYPE_CHECKING:
    from types import TracebackType

# Rows written per transaction by add_many (bare fingerprints) and add_files / add_documents.
DEFAULT_BATCH_SIZE = 10_000
DEFAULT_FILE_BATCH_SIZE = 256


@dataclass(frozen=True, slots=True)
class IndexMatch:
    """A stored document that is a near-duplicate of a new one (``path``), and why."""

    path: str  # the new document (the file queried, or a new document of a scan)
    key: str  # the stored one
    distance: int  # Hamming distance of the two fingerprints
    similarity: float | None  # word-set Jaccard, when verification computed it
    exact: bool  # the same normalised text
    reason: str


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What ``simdup index stats`` shows."""

    path: str
    documents: int  # stored keys
    verifiable: int  # of which stored with their document (added from files): verified queries
    database_bytes: int  # pages in use, the write-ahead log's included
    algorithm_version: str
    schema_version: int
    params: dict[str, Any]  # the fingerprint parameters it was built with
    # Sentence embeddings stored by ``index add --semantic``: documents, sentences, models.
    embedded_documents: int = 0
    embedded_sentences: int = 0
    sentence_models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AddResult:
    """What ``add_files`` did: documents stored, files that could not be fingerprinted."""

    added: int
    skipped: tuple[SkippedFile, ...]


class Index:
    """A named index: keyed fingerprints (and documents) in the SQLite file at ``path``.

    ``create``: make the file if it does not exist (else ``StoreError``); ``rebuild``: delete
    it first. ``params``: the ``FeatureParams`` its fingerprints are made with. An index made
    with other parameters, or by another algorithm version, raises ``StoreError`` (never
    mixed). When ``params`` is omitted an existing index is opened whatever its parameters,
    for the operations on bare fingerprints and keys; the default parameters are then used,
    and checked, when files are fingerprinted (``add_file(s)``, ``query_file``). A file that
    is not a simdup index, or is damaged, raises ``StoreError`` naming it, here or in the
    first operation that meets the damage.

    Writes by ``add``, ``add_file`` and ``remove`` go into one transaction (holding the
    database's write lock) until ``commit()``, ``close()`` or the end of a ``with`` block
    (rolled back if the block raises); ``add_many``, ``add_documents`` and ``add_files`` commit
    what is pending and then one transaction per batch.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        rebuild: bool = False,
        params: FeatureParams | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self._explicit = params is not None
        self.params = params if params is not None else FeatureParams()
        self._conn: sqlite3.Connection | None = open_database(
            self.path, "index", migrations(self.params, readers_key()), create=create,
            rebuild=rebuild
        )
        try:
            with self._guard():
                # The page cache holds the upper levels of the five B-trees that every write
                # and probe walks (the rows themselves come from the OS's file cache).
                self._conn.execute("PRAGMA cache_size=-65536")
                meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
            self._meta: dict[str, str] = {str(k): str(v) for k, v in meta.items()}
            if self._explicit:
                self._check_params(self.params)
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    # ------------------------------------------------------------ plumbing

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None and self._conn is not None:
            self.rollback()
        self.close()

    def __repr__(self) -> str:
        return f"Index({self.path!r})"

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(self.path, "the index is closed")
        return self._conn

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """SQLite's errors as ``StoreError`` naming the file, saying what went wrong."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            name = getattr(exc, "sqlite_errorname", "")
            if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc):
                reason = f"damaged ({exc}): rebuild it"
            elif name == "SQLITE_BUSY" or "locked" in str(exc):
                reason = f"another process kept it locked for too long ({exc})"
            else:
                reason = f"cannot use it ({exc})"
            if self._conn is not None and self._conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise StoreError(self.path, reason) from exc

    def built_markup(self) -> str | None:
        """The ``markup`` setting the index's fingerprints were made with (``none``,
        ``markdown``, ``html``), from its meta alone; None when it does not say."""
        try:
            described = json.loads(self._meta.get("params_description", "{}"))
        except ValueError:
            return None
        if not isinstance(described, dict) or "markup" not in described:
            return None
        markup = described_markup(described["markup"])
        return markup if isinstance(markup, str) else None

    def _check_readers(self) -> None:
        """Refuse to read files for an index whose documents other readers read (another
        version of the Markdown or PDF reader, of its library): their texts, and so their
        fingerprints, would not compare with those of the files read now."""
        stored = self._meta.get("readers")
        if stored is None or stored == readers_key():
            return
        raise StoreError(self.path, readers_mismatch(stored, readers_description()))

    def _check_params(self, params: FeatureParams) -> None:
        """Refuse fingerprints of other parameters than the index's."""
        mismatch = params_mismatch(self._meta, params)
        if mismatch is not None:
            raise StoreError(self.path, mismatch)

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction around a query's statements, so that they all see the same
        committed state even while another process writes (readers never block writers)."""
        db = self._db
        if db.in_transaction:  # our own pending writes: read within them
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    def _begin(self) -> None:
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")

    def _write(self, rows: Sequence[Row]) -> None:
        """One batch, in its own transaction."""
        conn = self._db
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(INSERT, rows)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    def commit(self) -> None:
        """Write what ``add``, ``add_file`` and ``remove`` have done since the last commit."""
        with self._guard():
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    def rollback(self) -> None:
        """Forget what ``add``, ``add_file`` and ``remove`` have done since the last commit."""
        with self._guard():
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def close(self) -> None:
        """Commit and close (again: nothing). The index cannot be used afterwards."""
        if self._conn is None:
            return
        try:
            self.commit()
        finally:
            self._conn.close()
            self._conn = None

    # ------------------------------------------------------------ writing

    def add(self, key: str, fingerprint: int) -> None:
        """Store ``fingerprint`` (an unsigned 64-bit integer) under ``key``, replacing what was
        stored under it. It is matched by distance alone (nothing to verify it with)."""
        row = fingerprint_row(key, fingerprint)
        with self._guard():
            self._begin()
            self._db.execute(INSERT, row)

    def add_many(
        self, items: Iterable[tuple[str, int]], *, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> int:
        """``add`` every ``(key, fingerprint)``, committing every ``batch_size``; returns how
        many. An invalid item raises ``ConfigError``; the batches before it stay committed."""
        rows = (fingerprint_row(key, fingerprint) for key, fingerprint in items)
        return self._write_batches(rows, batch_size)

    def _write_batches(self, rows: Iterable[Row], batch_size: int) -> int:
        """What is pending committed, then ``rows`` (made as they are taken) in one
        transaction per ``batch_size``; returns how many."""
        batch: list[Row] = []
        count = 0
        with self._guard():
            self.commit()
            for row in rows:
                batch.append(row)
                if len(batch) >= batch_size:
                    self._write(batch)
                    count += len(batch)
                    batch = []
            if batch:
                self._write(batch)
                count += len(batch)
        return count

    def add_documents(
        self,
        docs: Iterable[FingerprintedDocument],
        *,
        batch_size: int = DEFAULT_FILE_BATCH_SIZE,
    ) -> int:
        """Store fingerprinted documents (made with the index's parameters) under their paths,
        with what verified queries need; committing every ``batch_size``. Returns how many."""
        self._check_params(self.params)
        return self._write_batches((document_row(doc.path, doc) for doc in docs), batch_size)

    def add_file(
        self,
        path: str | os.PathLike[str],
        *,
        key: str | None = None,
        max_size: int = DEFAULT_MAX_SIZE,
    ) -> FingerprintedDocument | SkippedFile:
        """Fingerprint the file at ``path`` and store it, with what verified queries need,
        under ``key`` (default: ``path`` as given). A file that cannot be fingerprinted is not
        stored (an earlier entry under its key stays); its ``SkippedFile`` says why."""
        self._check_params(self.params)
        self._check_readers()
        result = _fingerprint_file(os.fspath(path), self.params, max_size)
        if isinstance(result, FingerprintedDocument):
            row = document_row(result.path if key is None else key, result)
            with self._guard():
                self._begin()
                self._db.execute(INSERT, row)
        return result

    def add_files(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        discovery: DiscoveryOptions | None = None,
        jobs: int | None = None,
        progress: Progress | None = None,
        engine: Engine | None = None,
        batch_size: int = DEFAULT_FILE_BATCH_SIZE,
    ) -> AddResult:
        """Add every file under ``paths`` (files and folders, found as a scan finds them) under
        its path, fingerprinted by ``engine`` (default: the local engine for ``jobs``, whose
        parameters must be the index's); one transaction per ``batch_size`` documents."""
        self._check_params(self.params)
        self._check_readers()
        discovery = discovery or DiscoveryOptions()
        if engine is None:
            engine = make_engine(self.params, max_size=discovery.max_size, jobs=jobs)
        elif identity(engine.params) != identity(self.params):
            raise ConfigError("the engine's parameters are not the index's")
        files, skipped = discover([os.fspath(p) for p in paths], discovery)
        skips = list(skipped)

        def documents() -> Iterator[FingerprintedDocument]:
            for result in engine.run(files, progress):
                if isinstance(result, SkippedFile):
                    skips.append(result)
                else:
                    yield result

        added = self.add_documents(documents(), batch_size=batch_size)
        return AddResult(added, tuple(sorted(skips, key=lambda s: s.path)))

    def remove(self, key: str) -> bool:
        """Remove ``key``'s entry; False if there was none."""
        blob = check_key(key)
        with self._guard():
            self._begin()
            self.sentence_vectors().remove(key)
            return self._db.execute("DELETE FROM docs WHERE key = ?", (blob,)).rowcount > 0

    def sentence_vectors(self) -> SentenceVectors:
        """The sentence embeddings stored beside the documents (``index add --semantic``)."""
        return SentenceVectors(self._db, self.path)

    # ------------------------------------------------------------ reading

    def __len__(self) -> int:
        with self._guard():
            return int(self._db.execute("SELECT count(*) FROM docs").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self._guard():
            row = self._db.execute("SELECT 1 FROM docs WHERE key = ?", (check_key(key),))
            return row.fetchone() is not None

    def get(self, key: str) -> int | None:
        """The fingerprint stored under ``key``, or None."""
        with self._guard():
            row = self._db.execute(
                "SELECT fingerprint FROM docs WHERE key = ?", (check_key(key),)
            ).fetchone()
        return None if row is None else int(row[0]) & ((1 << 64) - 1)

    def document(self, key: str) -> FingerprintedDocument | None:
        """The document stored under ``key`` (None: no such key, or a bare fingerprint)."""
        with self._guard():
            row = self._db.execute(
                f"SELECT id, {COLUMNS} FROM docs WHERE key = ?", (check_key(key),)
            ).fetchone()
        return None if row is None else stored_document(row)

    def keys(self) -> Iterator[str]:
        """Every key, in code-point order. Read a page at a time: iterating never holds the
        database's read snapshot between pages, so writers are not held back."""
        last = b""
        while True:
            with self._guard():
                rows = self._db.execute(
                    "SELECT key FROM docs WHERE key > ? ORDER BY key LIMIT 1000", (last,)
                ).fetchall()
            if not rows:
                return
            for (blob,) in rows:
                yield key_text(blob)
            last = rows[-1][0]

    def stats(self) -> IndexStats:
        """Counts, size, algorithm version and parameters."""
        conn = self._db
        with self._guard(), self._snapshot():
            documents = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
            with_documents = "SELECT count(*) FROM docs WHERE content_hash IS NOT NULL"
            verifiable = int(conn.execute(with_documents).fetchone()[0])
            pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
            page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            vectors = self.sentence_vectors().stats()
            models = tuple(str(m) for (m,) in conn.execute(
                "SELECT DISTINCT model FROM sentence_vectors ORDER BY model"))  # fmt: skip
        try:
            params = json.loads(meta.get("params_description", "{}"))
        except ValueError:
            params = {}
        return IndexStats(
            path=self.path,
            documents=documents,
            verifiable=verifiable,
            database_bytes=pages * page_size,
            algorithm_version=str(meta.get("algorithm_version", ALGORITHM_VERSION)),
            schema_version=int(meta.get("schema_version", 0)),
            params=params,
            embedded_documents=vectors.documents,
            embedded_sentences=vectors.sentences,
            sentence_models=models,
        )

    def check(self) -> None:
        """Raise ``StoreError`` unless SQLite's integrity check of the whole file passes
        (reads every page: seconds for millions of entries)."""
        check_integrity(self._db, self.path)

    # ------------------------------------------------------------ queries

    def _near(self, fingerprint: int, threshold: int) -> tuple[np.ndarray, np.ndarray]:
        """Row ids of the stored fingerprints within ``threshold`` and their distances, found
        the way ``choose_strategy`` says is cheaper for this index's size."""
        conn = self._db
        return near(conn, fingerprint, threshold, choose_strategy(threshold, size_bound(conn)))

    def query(self, fingerprint: int, threshold: int = 3) -> list[tuple[str, int]]:
        """Every stored ``(key, distance)`` whose fingerprint is within ``threshold`` bits
        (0 to 31) of ``fingerprint``: exactly those, nearest first, then by key."""
        value = check_fingerprint(fingerprint)
        k = check_threshold(threshold)
        with self._guard(), self._snapshot():
            ids, distances = self._near(value, k)
            keys = keys_of(self._db, ids)
        found = [(keys[i], d) for i, d in zip(ids.tolist(), distances.tolist(), strict=True)]
        found.sort(key=lambda item: (item[1], item[0]))
        return found

    def _query_options(self, options: ScanOptions | None) -> ScanOptions:
        """The scan's options for index queries: the index's parameters, and the SimHash
        method (the candidates are the stored fingerprints within the search radius)."""
        if options is None:
            options = ScanOptions(features=self.params)
        self._check_params(options.features)
        return replace(options, method="simhash")

    def _matches(
        self,
        doc: FingerprintedDocument,
        options: ScanOptions,
        verifier: Verifier,
        short: Sequence[int] | None = None,
    ) -> list[IndexMatch]:
        """The stored near-duplicates of ``doc`` among its candidates (``index_query``): a
        stored document that ``verifier`` accepts, a bare fingerprint within the threshold."""
        found: list[IndexMatch] = []
        nearby = self._near(doc.fingerprint, options.search_radius)
        for key, stored, distance in candidates(self._db, doc, options, nearby, short):
            if stored is None:
                # A bare fingerprint: the classic SimHash rule is all there is to apply.
                if distance <= options.threshold:
                    reason = f"distance {distance} <= threshold {options.threshold} (unverified)"
                    found.append(IndexMatch(doc.path, key, distance, None, False, reason))
                continue
            verdict = verifier.judge(doc, stored, distance)
            if verdict.near:
                found.append(
                    IndexMatch(
                        doc.path, key, distance, verdict.similarity, verdict.exact, verdict.reason
                    )
                )
        found.sort(key=lambda m: (m.distance, m.key))
        return found

    def query_file(
        self, path: str | os.PathLike[str], options: ScanOptions | None = None
    ) -> list[IndexMatch]:
        """The stored documents that are near-duplicates of the file at ``path`` under the
        scan's rules (``options``; its features must be the index's), nearest first: those
        within the search radius that ``Verifier`` accepts, and bare fingerprints within
        ``options.threshold``. Raises ``InputError`` if the file cannot be fingerprinted."""
        options = self._query_options(options)
        self._check_readers()
        result = _fingerprint_file(os.fspath(path), options.features, options.discovery.max_size)
        if isinstance(result, SkippedFile):
            raise InputError(result.path, result.reason)
        with self._guard(), self._snapshot():
            return self._matches(result, options, Verifier(options))

    def match_documents(
        self, docs: Iterable[FingerprintedDocument], options: ScanOptions | None = None
    ) -> list[IndexMatch]:
        """For ``scan NEW... --against``: every (new document, stored document) pair that is a
        near-duplicate under the scan's rules, by new path, then nearest first. A stored entry
        under the new document's own path is the same document, not a duplicate: skipped."""
        options = self._query_options(options)
        verifier = Verifier(options)
        found: list[IndexMatch] = []
        docs = list(docs)
        with self._guard(), self._snapshot():
            shorts = [d for d in docs if d.chars < SHORT_TEXT_CHARS]
            short_ids = dict(
                zip((d.path for d in shorts), short_near(self._db, shorts, options), strict=True)
            ) if shorts and options.verify else {}  # fmt: skip
            for doc in docs:
                matches = self._matches(doc, options, verifier, short_ids.get(doc.path, []))
                found += [m for m in matches if m.key != doc.path]
        found.sort(key=lambda m: (m.path, m.distance, m.key))
        return found


def _source(path: str, max_size: int) -> SourceFile | SkippedFile:
    """The file named ``path``, found as a scan would find a file named on its command line."""
    if os.path.isdir(path):
        return SkippedFile(path, "discovery", "a folder, not a file")
    files, skipped = discover([path], DiscoveryOptions(max_size=max_size))
    if files:
        return files[0]
    return skipped[0] if skipped else SkippedFile(path, "discovery", "not found")


def _fingerprint_file(
    path: str, params: FeatureParams, max_size: int
) -> FingerprintedDocument | SkippedFile:
    source = _source(path, max_size)
    if isinstance(source, SkippedFile):
        return source
    return fingerprint_file(processor_for(params), source, max_size)
