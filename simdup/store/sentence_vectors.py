"""Sentence embeddings kept so that a source is embedded once (``check --semantic``).

Embedding is the slow step of a semantic check (~800 sentences a second on two cores, against
~10^5 sentences a second for everything else a check does): 1,000 stored papers hold ~60,000
sentences, a minute of embedding. So the vectors of a source's sentences are kept, in two
places with one table:

* a named index (``index add --semantic``): beside the fingerprints of the documents it holds,
  one row per key, replaced when the key is added again and removed with it;
* the sentence cache (``SentenceCache``, ``sentences.sqlite`` in simdup's cache folder): the
  vectors of the sources of ``check --semantic --against FOLDER``, kept for the next check.

A row is found by the text it was made from (``text_digest``: XXH3-128 of the text as read)
and by the model that made it (``model_key``: the model's name and version, the check's
algorithm, which cuts the sentences, and the character folding applied before embedding), and
used only when it holds as many vectors as the text has sentences now. A changed file, another
model or another way of cutting sentences is embedded again, never mixed.

Vectors are stored as int8 with one float32 scale per sentence (each component rounded to the
nearest 1/127 of the sentence's largest): 516 bytes a 512-dimension sentence against 2,048 as
float32; a cosine moves by less than 0.003 (``tests/store/test_sentence_vectors.py``), against
thresholds of 0.7 and 0.75.

``cache info`` says what the sentence cache holds (``sentence_cache_info``) and ``cache clear``
removes it (``clear_sentence_cache``): the file with its ``-wal`` and ``-shm`` companions.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import xxhash

from ..errors import StoreError
from .database import open_database

SENTENCE_CACHE_FILE = "sentences.sqlite"
# The files SQLite keeps for it (WAL journaling: ``store.database``).
_COMPANIONS = ("", "-wal", "-shm")
# The sentence cache keeps at most this much; past it the rows used longest ago go.
DEFAULT_CACHE_BYTES = 1 << 30
_SCALE = 127.0
# The sentence cache's own version (its rows say which model and check made them).
FORMAT = "sentence-vectors/1"

_TABLE = """CREATE TABLE IF NOT EXISTS sentence_vectors (
    key BLOB PRIMARY KEY,          -- the document's key (an index) or its path (the cache)
    text_hash BLOB NOT NULL,       -- text_digest of the text the sentences were cut from
    model TEXT NOT NULL,           -- model_key
    sentences INTEGER NOT NULL,
    dimensions INTEGER NOT NULL,
    scales BLOB NOT NULL,          -- float32, one a sentence
    vectors BLOB NOT NULL,         -- int8, sentences x dimensions
    used REAL NOT NULL             -- seconds since the epoch, last written or read
)"""


def create_table(conn: sqlite3.Connection) -> None:
    """The table and its lookup index (a migration of the databases that hold them)."""
    conn.execute(_TABLE)
    conn.execute(
        "CREATE INDEX IF NOT EXISTS sentence_vectors_text ON sentence_vectors (text_hash, model)"
    )


def text_digest(text: str) -> bytes:
    """Which text a row was made from (also how ``Corpus`` knows two sources hold one text)."""
    return xxhash.xxh3_128_digest(text.encode("utf-8", "surrogatepass"))


def quantized(vectors: np.ndarray) -> tuple[bytes, bytes]:
    """``vectors`` (rows of float) as (float32 scales, int8 components)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors), np.float32)
    scales = np.where(peak > 0, peak / _SCALE, 1.0).astype(np.float32)
    codes = np.rint(vectors / scales[:, None]).clip(-127, 127).astype(np.int8)
    return scales.tobytes(), codes.tobytes()


def restored(scales: bytes, codes: bytes, sentences: int, dimensions: int) -> np.ndarray:
    """The float32 vectors of ``quantized``'s bytes."""
    s = np.frombuffer(scales, dtype=np.float32)
    v = np.frombuffer(codes, dtype=np.int8).reshape(sentences, dimensions)
    return v.astype(np.float32) * s[:, None]


@dataclass(frozen=True)
class VectorStats:
    documents: int
    sentences: int
    bytes: int


class SentenceVectors:
    """The ``sentence_vectors`` table of an open database (an index's, the cache's)."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if self._conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise StoreError(self.path, f"cannot use its sentence vectors ({exc})") from exc

    def get(self, digest: bytes, model: str, sentences: int) -> np.ndarray | None:
        """The vectors of the text ``digest`` made by ``model``, if they are for
        ``sentences`` sentences; else None."""
        with self._guard():
            row = self._conn.execute(
                "SELECT sentences, dimensions, scales, vectors FROM sentence_vectors "
                "WHERE text_hash = ? AND model = ? AND sentences = ? LIMIT 1",
                (digest, model, sentences),
            ).fetchone()
        if row is None:
            return None
        return restored(row[2], row[3], int(row[0]), int(row[1]))

    def put(self, items: Iterable[tuple[str, bytes, str, np.ndarray]]) -> int:
        """Store ``(key, text digest, model, vectors)`` rows in one transaction, each
        replacing what its key held; returns how many."""
        now = time.time()
        rows = []
        for key, digest, model, vectors in items:
            scales, codes = quantized(vectors)
            rows.append((
                key.encode("utf-8", "surrogateescape"), digest, model, int(vectors.shape[0]),
                int(vectors.shape[1]) if vectors.ndim == 2 else 0, scales, codes, now,
            ))  # fmt: skip
        if not rows:
            return 0
        with self._guard():
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
            self._conn.execute("COMMIT")
        return len(rows)

    def remove(self, key: str) -> None:
        """Forget ``key``'s vectors (within the caller's transaction, if one is open)."""
        with self._guard():
            self._conn.execute(
                "DELETE FROM sentence_vectors WHERE key = ?",
                (key.encode("utf-8", "surrogateescape"),),
            )

    def stats(self) -> VectorStats:
        with self._guard():
            row = self._conn.execute(
                "SELECT count(*), coalesce(sum(sentences), 0), "
                "coalesce(sum(length(scales) + length(vectors)), 0) FROM sentence_vectors"
            ).fetchone()
        return VectorStats(int(row[0]), int(row[1]), int(row[2]))


def cache_file(folder: str) -> str:
    """Where the sentence cache lives in simdup's cache folder (``$SIMDUP_CACHE_DIR``)."""
    return os.path.join(folder, SENTENCE_CACHE_FILE)


class SentenceCache(SentenceVectors):
    """The sentence cache: a SQLite file of its own (``open_sentence_cache``). Reading a row
    marks it used; past ``max_bytes`` the rows used longest ago are removed. Any trouble
    (a full disk, a damaged file) turns it off for the rest of the run: a cache never fails a
    check."""

    def __init__(self, path: str, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        conn = open_database(path, "sentence cache", [create_table], algorithm_version=FORMAT)
        super().__init__(conn, path)
        self.max_bytes = max_bytes
        self.usable = True

    def get(self, digest: bytes, model: str, sentences: int) -> np.ndarray | None:
        if not self.usable:
            return None
        try:
            found = super().get(digest, model, sentences)
            if found is not None:
                self._conn.execute(
                    "UPDATE sentence_vectors SET used = ? WHERE text_hash = ? AND model = ?",
                    (time.time(), digest, model),
                )
        except (StoreError, sqlite3.Error):
            self.usable = False
            return None
        return found

    def put(self, items: Iterable[tuple[str, bytes, str, np.ndarray]]) -> int:
        if not self.usable:
            return 0
        try:
            count = super().put(items)
            self._evict()
        except (StoreError, sqlite3.Error):
            self.usable = False
            return 0
        return count

    def _evict(self) -> None:
        total = self.stats().bytes
        if total <= self.max_bytes:
            return
        rows = self._conn.execute(
            "SELECT key, length(scales) + length(vectors) FROM sentence_vectors ORDER BY used"
        ).fetchall()
        gone = []
        for key, size in rows:
            if total <= self.max_bytes:
                break
            gone.append((key,))
            total -= int(size)
        self._conn.execute("BEGIN IMMEDIATE")
        self._conn.executemany("DELETE FROM sentence_vectors WHERE key = ?", gone)
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()


def open_sentence_cache(
    folder: str, roots: Iterable[str], max_bytes: int = DEFAULT_CACHE_BYTES
) -> SentenceCache | None:
    """The sentence cache in ``folder``, or None when it would sit inside one of ``roots``
    (what is checked is never written into) or cannot be opened."""
    from .cache import cache_inside

    path = cache_file(folder)
    if cache_inside(path, list(roots)) is not None:
        return None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return SentenceCache(path, max_bytes)
    except (OSError, StoreError):
        return None


@dataclass(frozen=True)
class SentenceCacheInfo:
    """What the sentence cache holds (``cache info``): its file, the sources whose vectors it
    keeps, their sentences, the models that made them and its size on disk (``-wal`` and
    ``-shm`` included). ``exists`` False: no cache yet; ``error``: a file that cannot be read
    (damaged, another format), which ``clear_sentence_cache`` removes all the same."""

    path: str
    exists: bool
    sources: int = 0
    sentences: int = 0
    bytes: int = 0
    max_bytes: int = DEFAULT_CACHE_BYTES
    models: tuple[str, ...] = ()
    error: str | None = None


def _bytes_on_disk(path: str) -> int:
    total = 0
    for suffix in _COMPANIONS:
        with contextlib.suppress(OSError):
            total += os.lstat(path + suffix).st_size
    return total


def sentence_cache_info(folder: str, max_bytes: int = DEFAULT_CACHE_BYTES) -> SentenceCacheInfo:
    """What the sentence cache in ``folder`` holds; it is read, never created."""
    path = cache_file(folder)
    size = _bytes_on_disk(path)  # before opening: opening makes the -wal and -shm files
    if not os.path.lexists(path):
        return SentenceCacheInfo(path, False, bytes=size, max_bytes=max_bytes)
    try:
        conn = open_database(path, "sentence cache", [create_table], create=False,
                             algorithm_version=FORMAT)  # fmt: skip
    except StoreError as exc:
        return SentenceCacheInfo(path, True, bytes=size, max_bytes=max_bytes, error=exc.reason)
    try:
        stats = SentenceVectors(conn, path).stats()
        models = tuple(str(m) for (m,) in conn.execute(
            "SELECT DISTINCT model FROM sentence_vectors ORDER BY model"))  # fmt: skip
    except (StoreError, sqlite3.Error) as exc:
        reason = exc.reason if isinstance(exc, StoreError) else f"damaged ({exc})"
        return SentenceCacheInfo(path, True, bytes=size, max_bytes=max_bytes, error=reason)
    finally:
        conn.close()
    return SentenceCacheInfo(path, True, stats.documents, stats.sentences, size, max_bytes,
                             models)  # fmt: skip


def clear_sentence_cache(folder: str) -> int:
    """Remove the sentence cache in ``folder`` (its file, ``-wal`` and ``-shm``); returns the
    bytes freed. Raises ``StoreError``, removing nothing, when one of them is not a regular
    file (a folder, a device: not simdup's). A check running meanwhile keeps the file it has
    open; the next check starts a new one. The journal goes first and the database last: a
    journal left beside no database would be replayed into the next one."""
    path = cache_file(folder)
    found = []
    for name in (path + "-wal", path + "-shm", path):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StoreError(name, f"cannot remove it: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(name, "not a regular file (not touched)")
        found.append((name, st.st_size))
    freed = 0
    for name, size in found:
        try:
            os.unlink(name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StoreError(name, f"cannot remove it: {exc.strerror or exc}") from exc
        freed += size
    return freed
