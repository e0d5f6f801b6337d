"""Named indexes: a corpus of fingerprinted documents kept in one SQLite file, to check new
documents against (``simdup.Index``; ``simdup index``, ``simdup query``, ``scan --against``).

Layout. One ``docs`` row per key: the key (UTF-8 bytes, ``surrogateescape`` for names that are
not valid UTF-8), the fingerprint as a signed 64-bit integer (SQLite's integer type), and, for
documents added from files, what the scan's verification needs (character count, content
hash, bottom-k sketch, counts, encoding). Four covering indexes on the fingerprint's 16-bit
blocks, ``((fingerprint >> 16 j) & 65535, fingerprint)``, answer "which stored fingerprints are
within k bits of q" exactly (``probe_plan``): each probe is an indexed lookup that reads only
index pages, and the candidates' exact distances are checked in numpy. A query never holds
the corpus in Python objects (where scanning every row is cheaper, it streams the fingerprints
in chunks of 65,536).

Why this layout (``benchmarks/index.py``, 10^6 random fingerprints, 2 cores): a query at
threshold 3 takes 0.45 ms (4 lookups, ~60 candidates), at 6 1.2 ms, at 12 14 ms (1,108 lookups,
~17,000 candidates); reading every fingerprint into numpy instead takes 680 ms, so that is done
only where the probes would cost more (``choose_strategy``: thresholds from 26 up at 10^6, or
small indexes). Without the fingerprint in the block indexes every candidate costs a table
lookup: 1.8x slower queries for 27% less space. An index takes ~154 bytes a bare fingerprint
(with a 12-character key) and ~1.5 kB a document (the 1 kB sketch). Adding is bounded by the
four index insertions: ~22,000 fingerprints a second at 10^6 (65,000 at 10^5), far above the
rate at which files can be fingerprinted.

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

from ..algorithms import edit_join
from ..algorithms.index import MAX_THRESHOLD
from ..algorithms.simhash import hamming
from ..engines import Engine, Progress, make_engine
from ..engines.work import fingerprint_file
from ..errors import ConfigError, InputError, StoreError
from ..join.verify import Verifier, short_form
from ..options import ScanOptions
from ..params import ALGORITHM_VERSION, SHORT_TEXT_CHARS, FeatureParams
from ..readers import readers_description, readers_key
from ..readers.discovery import DEFAULT_MAX_SIZE, DiscoveryOptions, discover
from ..records import FingerprintedDocument, SkippedFile, SourceFile
from ..text.processor import processor_for
from .database import Migration, check_integrity, open_database
from .sentence_vectors import SentenceVectors, create_table

if TYPE_CHECKING:
    from types import TracebackType

BLOCKS = 4
BLOCK_BITS = 16
_BLOCK_VALUES = 1 << BLOCK_BITS
# Rows written per transaction by add_many (bare fingerprints) and add_files / add_documents.
DEFAULT_BATCH_SIZE = 10_000
DEFAULT_FILE_BATCH_SIZE = 256
# Measured costs (microseconds) that decide between probing the block indexes and reading
# every fingerprint: one probed block value, one candidate row it returns, one scanned row.
_PROBE_COST = 0.5
_CANDIDATE_COST = 0.8
_SCAN_COST = 0.63
# Literal ids per "id IN (...)" statement when fetching keys and records.
_ID_CHUNK = 10_000

# Every 16-bit value, fewest bits set first: block value b's neighbours within r bits are
# b ^ _FLIPS[: _WITHIN[r]].
_FLIPS = np.argsort(np.bitwise_count(np.arange(_BLOCK_VALUES, dtype=np.uint32)), kind="stable")
_WITHIN = np.cumsum(np.bincount(np.bitwise_count(_FLIPS.astype(np.uint32)), minlength=17))

_COLUMNS = (
    "key, fingerprint, encoding, encoding_source, size, token_count, feature_count, "
    "content_hash, chars, sketch, minhash"
)
# A key added again replaces its entry (and its stored document, if the new one has none).
_INSERT = f"INSERT OR REPLACE INTO docs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
Row = tuple[Any, ...]


def _block_expr(block: int) -> str:
    """SQL for the fingerprint's 16-bit ``block``; the queries must spell it exactly as the
    index does, or SQLite will not use the index."""
    shift = BLOCK_BITS * block
    return f"((fingerprint >> {shift}) & 65535)" if shift else "(fingerprint & 65535)"


def _schema_1(params_key: str, description: str) -> Migration:
    def migrate(conn: sqlite3.Connection) -> None:
        conn.execute(
            """CREATE TABLE docs (
                id INTEGER PRIMARY KEY,
                key BLOB NOT NULL UNIQUE,
                fingerprint INTEGER NOT NULL,  -- the unsigned 64 bits, two's complement
                encoding TEXT,                 -- the rest: NULL for a bare fingerprint
                encoding_source TEXT,
                size INTEGER,
                token_count INTEGER,
                feature_count INTEGER,
                content_hash TEXT,
                chars INTEGER,
                sketch BLOB,
                minhash BLOB
            )"""
        )
        for block in range(BLOCKS):
            conn.execute(
                f"CREATE INDEX docs_block{block} ON docs ({_block_expr(block)}, fingerprint)"
            )
        # Lets stats() count the verifiable entries without reading every row.
        conn.execute("CREATE INDEX docs_documents ON docs (id) WHERE content_hash IS NOT NULL")
        conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("params", params_key), ("params_description", description)],
        )

    return migrate


def _schema_2(conn: sqlite3.Connection) -> None:
    """Documents of one comparison form, and the short texts, found without reading every row
    (algorithm 5: exact duplicates and short texts are matched apart from the SimHash blocks).
    """
    conn.execute("CREATE INDEX docs_content ON docs (content_hash) WHERE content_hash IS NOT NULL")
    conn.execute(
        f"CREATE INDEX docs_short ON docs (chars) WHERE content_hash IS NOT NULL "
        f"AND chars < {SHORT_TEXT_CHARS}"
    )


def _schema_3(readers: str) -> Migration:
    """The readers that make the texts of the files read into the index (``readers_key``):
    recorded while it holds no document. An index that already holds some records none: which
    readers read them is not known."""

    def migrate(conn: sqlite3.Connection) -> None:
        if conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is None:
            conn.execute("INSERT INTO meta VALUES (?, ?)", ("readers", readers))

    return migrate


def _identity(params: FeatureParams) -> str:
    """The parameters an index's fingerprints and sketches depend on. MinHash signatures are
    not among them: index queries never use them (candidates come from the SimHash blocks)."""
    return replace(params, minhash_perms=0).cache_key()


def _describe(params: FeatureParams) -> dict[str, Any]:
    data = replace(params, minhash_perms=0).describe()
    data.pop("segmenter")  # a backend: both give identical tokens
    return data


def _check_fingerprint(fingerprint: int) -> int:
    if isinstance(fingerprint, bool) or not isinstance(fingerprint, int | np.integer):
        raise ConfigError(f"fingerprint must be an integer, not {fingerprint!r}")
    value = int(fingerprint)
    if not 0 <= value < 1 << 64:
        raise ConfigError(f"fingerprint {value!r} is not a 64-bit unsigned integer")
    return value


def _check_threshold(threshold: int) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int | np.integer):
        raise ConfigError(f"threshold must be an integer, not {threshold!r}")
    if not 0 <= threshold <= MAX_THRESHOLD:
        raise ConfigError(f"threshold must be between 0 and {MAX_THRESHOLD}, got {threshold}")
    return int(threshold)


def _check_key(key: str) -> bytes:
    if not isinstance(key, str):
        raise ConfigError(f"an index key must be a string, not {type(key).__name__}")
    return key.encode("utf-8", "surrogateescape")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _key_text(blob: bytes) -> str:
    return bytes(blob).decode("utf-8", "surrogateescape")


def probe_plan(threshold: int) -> list[tuple[int, int]]:
    """``(block, radius)`` probes that together find every fingerprint within ``threshold``.

    With ``threshold = 4 r + a`` (``0 <= a < 4``), a fingerprint within the threshold is within
    ``r`` bits of the query in one of blocks ``0..a``, or within ``r - 1`` bits in one of the
    others: if not, the four blocks would differ by at least (a + 1)(r + 1) + (3 - a) r =
    4 r + a + 1 bits (the pigeonhole principle as multi-index hashing uses it, Norouzi et al.
    2012). Threshold 3 probes each block's own value; 4 probes 17 values of block 0 and one of
    each other block, where the plain "floor(k/4) in every block" would probe 68.
    """
    r, a = divmod(threshold, BLOCKS)
    plan = [(block, r if block <= a else r - 1) for block in range(BLOCKS)]
    return [(block, radius) for block, radius in plan if radius >= 0]


def probe_count(threshold: int) -> int:
    """How many block values ``probe_plan(threshold)`` looks up."""
    return sum(int(_WITHIN[radius]) for _, radius in probe_plan(threshold))


def choose_strategy(threshold: int, documents: int) -> str:
    """``"probe"`` the block indexes, or ``"scan"`` every fingerprint: whichever the measured
    costs say is cheaper for an index of about ``documents`` entries."""
    probes = probe_count(threshold)
    probe = probes * (_PROBE_COST + _CANDIDATE_COST * documents / _BLOCK_VALUES)
    return "scan" if _SCAN_COST * documents < probe else "probe"


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
        identity = _identity(self.params)
        description = json.dumps(_describe(self.params), sort_keys=True)
        self._conn: sqlite3.Connection | None = open_database(
            self.path, "index", [_schema_1(identity, description), _schema_2,
                                 _schema_3(readers_key()), create_table],
            create=create, rebuild=rebuild
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

    def _check_readers(self) -> None:
        """Refuse to read files for an index whose documents other readers read (another
        version of the Markdown or PDF reader, of its library): their texts, and so their
        fingerprints, would not compare with those of the files read now."""
        stored = self._meta.get("readers")
        if stored is None or stored == readers_key():
            return
        try:
            old = json.loads(stored)
        except ValueError:
            old = {}
        now = readers_description()
        differ = [
            f"{name} {old.get(name, 'none')} (here {now.get(name, 'none')})"
            for name in sorted(set(old) | set(now))
            if old.get(name) != now.get(name)
        ]
        raise StoreError(
            self.path,
            f"holds documents read by other readers: {', '.join(differ)}; files read now would "
            "not compare with them: rebuild it from the files (--rebuild)",
        )

    def _check_params(self, params: FeatureParams) -> None:
        """Refuse fingerprints of other parameters than the index's."""
        if self._meta.get("params") == _identity(params):
            return
        try:
            stored = json.loads(self._meta.get("params_description", "{}"))
        except ValueError:
            stored = {}
        wanted = _describe(params)
        differ = [
            f"{name}={stored.get(name)!r} (here {wanted[name]!r})"
            for name in sorted(wanted)
            if stored.get(name) != wanted[name]
        ]
        detail = ", ".join(differ) if differ else "the stopword additions or user dictionary"
        raise StoreError(
            self.path,
            f"holds fingerprints made with other parameters: {detail}; they cannot be mixed "
            "(use the same options, or rebuild it)",
        )

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
            conn.executemany(_INSERT, rows)
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
        row = (_check_key(key), _signed(_check_fingerprint(fingerprint))) + (None,) * 9
        with self._guard():
            self._begin()
            self._db.execute(_INSERT, row)

    def add_many(
        self, items: Iterable[tuple[str, int]], *, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> int:
        """``add`` every ``(key, fingerprint)``, committing every ``batch_size``; returns how
        many. An invalid item raises ``ConfigError``; the batches before it stay committed."""
        blank = (None,) * 9
        rows: list[Row] = []
        count = 0
        with self._guard():
            self.commit()
            for key, fingerprint in items:
                rows.append((_check_key(key), _signed(_check_fingerprint(fingerprint))) + blank)
                if len(rows) >= batch_size:
                    self._write(rows)
                    count += len(rows)
                    rows = []
            if rows:
                self._write(rows)
                count += len(rows)
        return count

    def _document_row(self, key: str, doc: FingerprintedDocument) -> Row:
        return (
            _check_key(key),
            _signed(_check_fingerprint(doc.fingerprint)),
            doc.encoding,
            doc.encoding_source,
            doc.size,
            doc.token_count,
            doc.feature_count,
            doc.content_hash,
            doc.chars,
            doc.sketch,
            doc.minhash or None,
        )

    def add_documents(
        self,
        docs: Iterable[FingerprintedDocument],
        *,
        batch_size: int = DEFAULT_FILE_BATCH_SIZE,
    ) -> int:
        """Store fingerprinted documents (made with the index's parameters) under their paths,
        with what verified queries need; committing every ``batch_size``. Returns how many."""
        self._check_params(self.params)
        rows: list[Row] = []
        count = 0
        with self._guard():
            self.commit()
            for doc in docs:
                rows.append(self._document_row(doc.path, doc))
                if len(rows) >= batch_size:
                    self._write(rows)
                    count += len(rows)
                    rows = []
            if rows:
                self._write(rows)
                count += len(rows)
        return count

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
            row = self._document_row(result.path if key is None else key, result)
            with self._guard():
                self._begin()
                self._db.execute(_INSERT, row)
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
        elif _identity(engine.params) != _identity(self.params):
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
        blob = _check_key(key)
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
            row = self._db.execute("SELECT 1 FROM docs WHERE key = ?", (_check_key(key),))
            return row.fetchone() is not None

    def get(self, key: str) -> int | None:
        """The fingerprint stored under ``key``, or None."""
        with self._guard():
            row = self._db.execute(
                "SELECT fingerprint FROM docs WHERE key = ?", (_check_key(key),)
            ).fetchone()
        return None if row is None else int(row[0]) & ((1 << 64) - 1)

    def document(self, key: str) -> FingerprintedDocument | None:
        """The document stored under ``key`` (None: no such key, or a bare fingerprint)."""
        with self._guard():
            row = self._db.execute(
                f"SELECT id, {_COLUMNS} FROM docs WHERE key = ?", (_check_key(key),)
            ).fetchone()
        return None if row is None else _document(row)

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
                yield _key_text(blob)
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
        """Row ids of the stored fingerprints within ``threshold`` and their distances."""
        conn = self._db
        query = np.uint64(fingerprint)
        found_ids: list[np.ndarray] = []
        found_distances: list[np.ndarray] = []

        def take(rows: list[tuple[int, int]]) -> None:
            if not rows:
                return
            pairs = np.array(rows, dtype=np.int64)
            distances = np.bitwise_count(pairs[:, 1].astype(np.uint64) ^ query)
            keep = distances <= threshold
            found_ids.append(pairs[keep, 0])
            found_distances.append(distances[keep])

        # max(id) bounds the number of entries and is one B-tree descent, unlike count(*).
        documents = int(conn.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0])
        if choose_strategy(threshold, documents) == "scan":
            cursor = conn.execute("SELECT id, fingerprint FROM docs")
            while rows := cursor.fetchmany(65536):
                take(rows)
        else:
            for block, radius in probe_plan(threshold):
                value = (fingerprint >> (BLOCK_BITS * block)) & (_BLOCK_VALUES - 1)
                values = ",".join(map(str, (_FLIPS[: _WITHIN[radius]] ^ value).tolist()))
                sql = f"SELECT id, fingerprint FROM docs WHERE {_block_expr(block)} IN ({values})"
                take(conn.execute(sql).fetchall())
        if not found_ids:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint8)
        ids = np.concatenate(found_ids)
        distances = np.concatenate(found_distances)
        # A fingerprint close in several blocks was found by each: once is enough.
        ids, first = np.unique(ids, return_index=True)
        return ids, distances[first]

    def query(self, fingerprint: int, threshold: int = 3) -> list[tuple[str, int]]:
        """Every stored ``(key, distance)`` whose fingerprint is within ``threshold`` bits
        (0 to 31) of ``fingerprint``: exactly those, nearest first, then by key."""
        value = _check_fingerprint(fingerprint)
        k = _check_threshold(threshold)
        with self._guard(), self._snapshot():
            ids, distances = self._near(value, k)
            keys = self._keys_of(ids)
        found = [(keys[i], d) for i, d in zip(ids.tolist(), distances.tolist(), strict=True)]
        found.sort(key=lambda item: (item[1], item[0]))
        return found

    def _keys_of(self, ids: np.ndarray) -> dict[int, str]:
        keys: dict[int, str] = {}
        for start in range(0, ids.size, _ID_CHUNK):
            chunk = ",".join(map(str, ids[start : start + _ID_CHUNK].tolist()))
            for row_id, blob in self._db.execute(f"SELECT id, key FROM docs WHERE id IN ({chunk})"):
                keys[row_id] = _key_text(blob)
        return keys

    def _rows_of(self, ids: np.ndarray) -> list[Row]:
        rows: list[Row] = []
        for start in range(0, ids.size, _ID_CHUNK):
            chunk = ",".join(map(str, ids[start : start + _ID_CHUNK].tolist()))
            rows += self._db.execute(f"SELECT id, {_COLUMNS} FROM docs WHERE id IN ({chunk})")
        return rows

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
        """The stored near-duplicates of ``doc``: its candidates are the fingerprints within
        the search radius, the stored documents of its comparison form and, for a short text,
        the stored short texts within the edit similarity (``short``: their ids, when the
        caller joined them already; else they are read and compared here)."""
        ids, distances = self._near(doc.fingerprint, options.search_radius)
        distance_of = dict(zip(ids.tolist(), distances.tolist(), strict=True))
        others = [row_id for (row_id,) in self._db.execute(
            "SELECT id FROM docs WHERE content_hash = ?", (doc.content_hash,)
        )]  # fmt: skip
        if doc.chars < SHORT_TEXT_CHARS and options.verify:
            others += short if short is not None else self._short_near([doc], options)[0]
        extra = np.array(sorted(set(others) - set(distance_of)), dtype=np.int64)
        found: list[IndexMatch] = []
        for row in self._rows_of(np.concatenate((ids, extra))):
            key = _key_text(row[1])
            stored = _document(row)
            distance = distance_of.get(row[0])
            if distance is None:
                distance = hamming(doc.fingerprint, int(row[2]) & ((1 << 64) - 1))
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

    def _short_near(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> list[list[int]]:
        """For each of ``docs`` (short texts), the ids of the stored short texts whose forms
        are within the edit similarity of its form: one edit join of them all
        (``algorithms.edit_join``), exact."""
        rows = self._db.execute(
            f"SELECT id, sketch FROM docs WHERE content_hash IS NOT NULL "
            f"AND chars < {SHORT_TEXT_CHARS}"
        ).fetchall()
        near: list[list[int]] = [[] for _ in docs]
        if not rows:
            return near
        forms = [short_form(bytes(d.sketch)) for d in docs]
        forms += [short_form(bytes(sketch or b"")) for _, sketch in rows]
        i, j, _ = edit_join.join(forms, options.min_edit_similarity)
        new = len(docs)
        for a, b in zip(i.tolist(), j.tolist(), strict=True):
            if a < new <= b:  # a new document and a stored one (i < j: the new one first)
                near[a].append(int(rows[b - new][0]))
        return near

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
                zip((d.path for d in shorts), self._short_near(shorts, options), strict=True)
            ) if shorts and options.verify else {}  # fmt: skip
            for doc in docs:
                matches = self._matches(doc, options, verifier, short_ids.get(doc.path, []))
                found += [m for m in matches if m.key != doc.path]
        found.sort(key=lambda m: (m.path, m.distance, m.key))
        return found


def _document(row: Row) -> FingerprintedDocument | None:
    """The stored document of a ``SELECT id, <_COLUMNS>`` row, None for a bare fingerprint."""
    (_, key, fingerprint, encoding, source, size, tokens, features, content, chars, sketch,
     minhash) = row  # fmt: skip
    if content is None:
        return None
    return FingerprintedDocument(
        path=_key_text(key),
        fingerprint=int(fingerprint) & ((1 << 64) - 1),
        encoding=encoding,
        encoding_source=source,
        size=size,
        token_count=tokens,
        feature_count=features,
        content_hash=content,
        chars=chars,
        sketch=bytes(sketch or b""),
        minhash=bytes(minhash or b""),
    )


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
