"""The scan cache: fingerprint records of files already seen, kept in one SQLite file.

An entry is stored per (fingerprint parameters, path): the file's size, modification time and
inode as discovery saw them, an xxh3-128 hash of its bytes, the record (a
``FingerprintedDocument``, or the ``SkippedFile`` of a file whose *content* cannot be
fingerprinted: binary, undecodable, too short) and when it was last used. The parameters are
one key (``FeatureParams.cache_key()``: every option, the stopword and user-dictionary
contents, the algorithm version), so an option change never reuses a wrong fingerprint.

A file is looked up in two steps (``FingerprintCache.lookup``):

1. same path, size, modification time and inode, and a time more than ``RACY_NS`` before the
   bytes were hashed (else a change within the same clock tick could hide): the stored record
   is reused and the file is not opened;
2. otherwise its bytes are read (``readers.files.read_bytes``, simdup's one open function) and
   hashed, and an entry of the same parameters with that hash (the same file touched, renamed
   or copied) is reused under the current path, and stored again with its new size and time.

Anything else is a miss for the engine to fingerprint; ``add`` stores the result, and writes go
in one transaction per ``batch_size`` records. The file holds at most ``max_entries`` entries:
past that, the least recently used are evicted. A damaged or truncated cache is emptied and
rebuilt with a warning, and any other database trouble (a lock held too long, a full disk)
turns the cache off for the rest of the run with a warning: a cache never fails a scan. The
library never prints; warnings go to the ``warn`` callback.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import xxhash

from ..errors import StoreError
from ..readers import files as file_io
from ..records import FingerprintedDocument, SkippedFile, SourceFile
from ..text import decoding
from .database import open_database

if TYPE_CHECKING:
    from types import TracebackType

Result = FingerprintedDocument | SkippedFile
Warn = Callable[[str], None]

CACHE_FILE_NAME = "fingerprints.sqlite"
CACHE_DIR_ENV = "SIMDUP_CACHE_DIR"
# About 1.5 kB an entry at the default sketch size (2.5 kB with MinHash signatures): ~300 MB.
DEFAULT_MAX_ENTRIES = 200_000
# Records written per transaction: a killed run loses at most this many.
DEFAULT_BATCH_SIZE = 256
# A file modified this close to the moment its bytes were hashed may have been modified again
# within the same timestamp tick (2 s on FAT, a clock tick elsewhere) with the same size: its
# size and time prove nothing, so it is checked by content ("racy git"), until it is older.
RACY_NS = 2_000_000_000
# Last-use stamps are refreshed at most this often (seconds): an unchanged rescan writes nothing.
USED_RESOLUTION = 3600
# Which records are worth keeping: those that depend on the file's bytes and the parameters
# only (and an empty file). A read failure or an internal error may not happen next time.
CACHED_STAGES = frozenset({"decode", "features"})
# Entries evicted past the bound, as a share of it, so that eviction is not needed every batch.
EVICT_SLACK = 0.1
_SQL_VARIABLES = 500  # per IN (...) list; SQLite's oldest limit is 999
_SQLITE_MAGIC = b"SQLite format 3\x00"
# Entries keep the algorithm version inside their parameter key, so one file can hold entries
# of several simdup versions side by side (two installations sharing the user's cache folder).
_ALGORITHM = "per entry (in each parameter key)"
# SQLite errors that mean the file is damaged, not merely busy, read-only or on a full disk;
# and the messages of a schema that is not what its version says (tables dropped by hand).
_DAMAGE_CODES = frozenset(
    getattr(sqlite3, name) for name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") if hasattr(sqlite3, name)
)
_DAMAGE_MESSAGES = ("malformed", "no such table", "no such column")


def _schema_1(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE params (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE)")
    # path: file-system bytes (names need not be valid UTF-8); record: see _pack.
    conn.execute(
        """CREATE TABLE entries (
            id INTEGER PRIMARY KEY,
            params INTEGER NOT NULL,
            path BLOB NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            checked_ns INTEGER NOT NULL,
            file_hash BLOB NOT NULL,
            record BLOB NOT NULL,
            used INTEGER NOT NULL,
            UNIQUE (params, path)
        )"""
    )
    conn.execute("CREATE INDEX entries_by_hash ON entries (params, file_hash)")
    # Eviction takes the oldest stamps without reading every record (stamps change at most
    # once an hour per entry, so keeping this index costs little).
    conn.execute("CREATE INDEX entries_by_use ON entries (used)")


MIGRATIONS = (_schema_1,)


def default_cache_path() -> str:
    """``$SIMDUP_CACHE_DIR/fingerprints.sqlite``, else the file in the user's cache folder
    (``platformdirs.user_cache_dir("simdup")``, e.g. ``~/.cache/simdup`` on Linux)."""
    folder = os.environ.get(CACHE_DIR_ENV)
    if not folder:
        import platformdirs

        folder = platformdirs.user_cache_dir("simdup", appauthor=False)
    return os.path.join(folder, CACHE_FILE_NAME)


def cache_inside(cache_path: str | os.PathLike[str], roots: Iterable[str]) -> str | None:
    """The first of ``roots`` (files or folders to be scanned) that holds the cache file (or
    would hold it: it need not exist yet), else None. Symbolic links are resolved."""
    cache = os.path.realpath(cache_path)
    names = {cache, cache + "-wal", cache + "-shm", cache + "-journal"}
    for root in roots:
        real = os.path.realpath(root)
        if real in names:
            return root
        with contextlib.suppress(ValueError):  # another drive (Windows)
            if os.path.commonpath([real, cache]) == real:
                return root
    return None


# ---------------------------------------------------------------- records as compact bytes

_DOC = struct.Struct("<BQQQQQHHHII")  # tag, 5 integers, lengths of 3 strings and 2 blobs
_SKIP = struct.Struct("<BBHI")  # tag, failure, lengths of stage and reason
_DOC_TAG, _SKIP_TAG = 1, 2


def _text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def _pack(result: Result) -> bytes:
    """A record without its path (the path is the entry's key, and a reused record gets the
    path of the file it is reused for)."""
    if isinstance(result, SkippedFile):
        stage, reason = _text(result.stage), _text(result.reason)
        header = _SKIP.pack(_SKIP_TAG, result.failure, len(stage), len(reason))
        return b"".join((header, stage, reason))
    encoding, source, digest = (
        _text(result.encoding),
        _text(result.encoding_source),
        _text(result.content_hash),
    )
    header = _DOC.pack(
        _DOC_TAG,
        result.fingerprint,
        result.size,
        result.token_count,
        result.feature_count,
        result.chars,
        len(encoding),
        len(source),
        len(digest),
        len(result.sketch),
        len(result.minhash),
    )
    return b"".join((header, encoding, source, digest, result.sketch, result.minhash))


def _unpack(blob: bytes, path: str) -> Result:
    """The record ``_pack`` made, for ``path``; ``ValueError`` if the bytes are not one."""
    try:
        if blob[0] == _SKIP_TAG:
            _, failure, n_stage, n_reason = _SKIP.unpack_from(blob)
            at = _SKIP.size
            stage = blob[at : at + n_stage].decode("utf-8", "surrogatepass")
            reason = blob[at + n_stage : at + n_stage + n_reason].decode("utf-8", "surrogatepass")
            if at + n_stage + n_reason != len(blob):
                raise ValueError("length mismatch")
            return SkippedFile(path, stage, reason, bool(failure))
        if blob[0] != _DOC_TAG:
            raise ValueError(f"unknown record tag {blob[0]}")
        _, fp, size, tokens, features, chars, n_enc, n_src, n_hash, n_sketch, n_minhash = (
            _DOC.unpack_from(blob)
        )
        a = _DOC.size
        b = a + n_enc
        c = b + n_src
        d = c + n_hash
        e = d + n_sketch
        if e + n_minhash != len(blob):
            raise ValueError("length mismatch")
        return FingerprintedDocument(
            path,
            fp,
            blob[a:b].decode("utf-8", "surrogatepass"),
            blob[b:c].decode("utf-8", "surrogatepass"),
            size,
            tokens,
            features,
            blob[c:d].decode("utf-8", "surrogatepass"),
            chars,
            blob[d:e],
            blob[e:],
        )
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"damaged record ({exc})") from exc


def cacheable(result: Result) -> bool:
    """Whether a result depends only on the file's bytes and the parameters (so it can be
    reused for the same bytes): every fingerprint, and skips for content reasons."""
    return (
        not isinstance(result, SkippedFile)
        or result.stage in CACHED_STAGES
        or (result.stage == "read" and result.reason == decoding.EMPTY)
    )


def _signed(value: int) -> int:
    """SQLite integers are signed 64-bit; inode numbers may use all 64 bits."""
    return value - (1 << 64) if value >= 1 << 63 else value


# ---------------------------------------------------------------- the cache


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """The state of a cache file, and what this ``FingerprintCache`` did with it so far."""

    path: str
    entries: int
    bytes: int  # on disk: the database and its write-ahead log
    max_entries: int
    hits: int  # files whose record was reused (``reread`` of them after reading the file)
    reread: int  # hits found by the hash of the file's bytes (touched, renamed, copied)
    misses: int  # files left to the engine


@dataclass(frozen=True, slots=True)
class CacheLookup:
    """What ``FingerprintCache.lookup`` found for a list of files.

    ``results[i]`` is the stored record for ``files[i]`` (with its current path), or None for
    a miss; ``hashes[i]`` is the xxh3-128 of a missed file's bytes with the time it was read
    (what ``add`` stores), when the file could be read.
    """

    results: list[Result | None]
    hashes: dict[int, tuple[bytes, int]]


# id, path, size, mtime_ns, inode, checked_ns, file_hash, used, record
_Row = tuple[int, bytes, int, int, int, int, bytes, int, bytes]


class FingerprintCache:
    """Fingerprint records of files already seen, in the SQLite file at ``path`` (default:
    ``default_cache_path()``), created if needed. Use it as a context manager, or ``close()``.

    ``warn`` receives one line for each problem worked around (a damaged file rebuilt, the
    cache turned off for the run). Raises ``StoreError`` when ``path`` cannot be used as a
    cache and must not be replaced: a file that is not a SQLite database, or a healthy database
    that is not a scan cache (a named index, someone else's data). A file at the default
    location belongs to simdup, and is rebuilt whatever it holds.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        batch_size: int = DEFAULT_BATCH_SIZE,
        warn: Warn | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._owned = path is None
        self.path = default_cache_path() if path is None else os.fspath(path)
        self.max_entries = max_entries
        self.batch_size = batch_size
        self._warn = warn or (lambda message: None)
        self._clock = clock
        self.hits = self.reread = self.misses = 0
        self._pending: list[tuple[object, ...]] = []
        self._touched: list[tuple[int, int]] = []  # (used, id) of hits to re-stamp
        self._params: dict[str, int] = {}
        self._count: int | None = None  # entries, as last counted plus rows written since
        self._conn: sqlite3.Connection | None = self._open()

    # ------------------------------------------------------------ opening and trouble

    def _open(self) -> sqlite3.Connection:
        folder = os.path.dirname(os.path.abspath(self.path))
        try:
            # The user's cache folder is private (paths of their documents); a folder given
            # explicitly keeps whatever mode the user's umask gives it.
            os.makedirs(folder, mode=0o700 if self._owned else 0o777, exist_ok=True)
        except OSError as exc:
            raise StoreError(self.path, f"cannot create its folder: {exc.strerror or exc}") from exc
        try:
            return open_database(self.path, "cache", MIGRATIONS, algorithm_version=_ALGORITHM)
        except StoreError as exc:
            # Rebuilt only when damaged or not understood (another schema, another kind: see
            # _may_replace); a file that is merely read-only, locked or on a full disk stays.
            cause = exc.__cause__
            damaged = cause is None or getattr(cause, "sqlite_errorcode", None) in _DAMAGE_CODES
            if not (damaged and os.path.isfile(self.path) and self._may_replace()):
                raise
            self._warn(f"scan cache {self.path}: {exc.reason}; emptied and rebuilt")
        try:
            return open_database(
                self.path, "cache", MIGRATIONS, rebuild=True, algorithm_version=_ALGORITHM
            )
        except OSError as exc:
            raise StoreError(self.path, f"cannot rebuild it: {exc.strerror or exc}") from exc

    def _may_replace(self) -> bool:
        """Whether a file that failed to open as a cache may be deleted and rebuilt: always at
        the default location; elsewhere only an empty file, or a SQLite database that is
        damaged or is a simdup cache (another schema): never someone else's file."""
        if self._owned:
            return True
        try:
            with open(self.path, "rb") as handle:
                head = handle.read(len(_SQLITE_MAGIC))
        except OSError:
            return False  # cannot even read it: rebuilding would fail the same way
        if not head:
            return True
        if head != _SQLITE_MAGIC:
            return False
        try:
            uri = "file:" + os.path.abspath(self.path).replace("?", "%3f").replace("#", "%23")
            probe = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=1.0)
        except sqlite3.Error:
            return True
        try:
            tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master")}
            if "meta" not in tables:
                return False  # a healthy database of something else
            row = probe.execute("SELECT value FROM meta WHERE key = 'kind'").fetchone()
            return bool(row) and row[0] == "cache"
        except sqlite3.DatabaseError:
            return True  # damaged
        finally:
            probe.close()

    def _trouble(self, exc: Exception, doing: str, damaged: bool = False) -> None:
        """Rebuild a damaged cache (it stays on, empty); otherwise turn it off for this run."""
        self._pending.clear()
        self._touched.clear()
        self._params.clear()
        self._count = None
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        code = getattr(exc, "sqlite_errorcode", None)
        if damaged or code in _DAMAGE_CODES or any(m in str(exc) for m in _DAMAGE_MESSAGES):
            try:
                self._conn = open_database(
                    self.path, "cache", MIGRATIONS, rebuild=True, algorithm_version=_ALGORITHM
                )
                self._warn(f"scan cache {self.path} is damaged ({exc}): emptied and rebuilt")
                return
            except (StoreError, OSError) as again:
                exc = again
        self._warn(f"scan cache {self.path}: {exc} while {doing}; not used for the rest of the run")

    # ------------------------------------------------------------ lookups

    def _params_id(self, key: str, create: bool) -> int | None:
        found = self._params.get(key)
        if found is not None:
            return found
        assert self._conn is not None
        row = self._conn.execute("SELECT id FROM params WHERE key = ?", (key,)).fetchone()
        if row is None and create:
            self._conn.execute("INSERT OR IGNORE INTO params (key) VALUES (?)", (key,))
            row = self._conn.execute("SELECT id FROM params WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self._params[key] = int(row[0])
            return int(row[0])
        return None

    def lookup(self, key: str, files: Sequence[SourceFile], max_size: int) -> CacheLookup:
        """Stored records for ``files`` under the parameter key ``key``; see the module's
        docstring for the two steps. Files whose size, time or inode changed (and files new to
        the cache) are read, at most ``max_size`` bytes, with ``readers.files.read_bytes``."""
        results: list[Result | None] = [None] * len(files)
        hashes: dict[int, tuple[bytes, int]] = {}
        if self._conn is None or not files:
            self.misses += len(files)
            return CacheLookup(results, hashes)
        reread = self.reread
        for attempt in (1, 2):
            try:
                self._lookup(key, files, max_size, results, hashes)
                break
            except (sqlite3.Error, ValueError) as exc:  # ValueError: a record that won't unpack
                self._trouble(exc, "looking files up", damaged=isinstance(exc, ValueError))
                results[:] = [None] * len(files)
                hashes.clear()
                self.reread = reread
                if self._conn is None or attempt == 2:
                    break
                # Rebuilt, empty: look again, so that the files are hashed and stored.
        found = sum(r is not None for r in results)
        self.hits += found
        self.misses += len(files) - found
        if len(self._pending) >= self.batch_size:  # records reused under new paths or times
            self.flush()
        return CacheLookup(results, hashes)

    def _lookup(
        self,
        key: str,
        files: Sequence[SourceFile],
        max_size: int,
        results: list[Result | None],
        hashes: dict[int, tuple[bytes, int]],
    ) -> None:
        conn = self._conn
        assert conn is not None
        params = self._params_id(key, create=False)
        names = [os.fsencode(f.path) for f in files]
        stored: dict[bytes, _Row] = {}
        if params is not None:
            for start in range(0, len(names), _SQL_VARIABLES):
                chunk = names[start : start + _SQL_VARIABLES]
                marks = ",".join("?" * len(chunk))
                stored.update(
                    (row[1], row)
                    for row in conn.execute(
                        "SELECT id, path, size, mtime_ns, inode, checked_ns, file_hash, used, "
                        f"record FROM entries WHERE params = ? AND path IN ({marks})",
                        (params, *chunk),
                    )
                )
        now = int(self._clock())
        stale = now - USED_RESOLUTION
        unsure: list[int] = []
        for i, (source, name) in enumerate(zip(files, names, strict=True)):
            row = stored.get(name)
            if (
                row is not None
                and source.mtime_ns
                and row[2] == source.size
                and row[3] == source.mtime_ns
                and row[4] == _signed(source.inode)
                and source.mtime_ns < row[5] - RACY_NS
            ):
                results[i] = _unpack(row[8], source.path)
                if row[7] < stale:
                    self._touched.append((now, row[0]))
            else:
                unsure.append(i)
        if not unsure:
            return
        # Step 2: read and hash; the same bytes under this path or any other.
        by_hash: dict[bytes, list[int]] = {}
        for i in unsure:
            source = files[i]
            checked = time.time_ns()
            try:
                data = file_io.read_bytes(source, max_size)
            except (OSError, file_io.ReadFailure):
                continue  # the engine meets the same trouble and records it
            digest = xxhash.xxh3_128_digest(data)
            hashes[i] = (digest, checked)
            row = stored.get(names[i])
            if row is not None and row[6] == digest:
                results[i] = _unpack(row[8], source.path)
                self.reread += 1
                # Stored again with the current size and time: next time it is not read.
                self._queue((params, names[i], source, digest, checked, row[8], now))
            else:
                by_hash.setdefault(digest, []).append(i)
        if not by_hash or params is None:
            return
        digests = list(by_hash)
        for start in range(0, len(digests), _SQL_VARIABLES):
            chunk = digests[start : start + _SQL_VARIABLES]
            marks = ",".join("?" * len(chunk))
            for digest, record in conn.execute(
                "SELECT file_hash, record FROM entries "
                f"WHERE params = ? AND file_hash IN ({marks})",
                (params, *chunk),
            ):
                for i in by_hash.pop(digest, ()):
                    results[i] = _unpack(record, files[i].path)
                    self.reread += 1
                    self._queue((params, names[i], files[i], digest, hashes[i][1], record, now))

    # ------------------------------------------------------------ writes

    def _queue(self, entry: tuple[int | None, bytes, SourceFile, bytes, int, bytes, int]) -> None:
        """Queue ``(params id, path bytes, source, file hash, checked_ns, record, used)``."""
        params, name, source, digest, checked, record, used = entry
        assert params is not None
        inode = _signed(source.inode)
        self._pending.append(
            (params, name, source.size, source.mtime_ns, inode, checked, digest, record, used)
        )

    def add(
        self, key: str, source: SourceFile, file_hash: bytes, checked_ns: int, result: Result
    ) -> None:
        """Remember ``result`` for ``source`` under the parameter key ``key``: ``file_hash`` is
        the xxh3-128 of the bytes it was computed from, read at ``checked_ns`` (``lookup``'s
        ``hashes``). Results that are not ``cacheable`` are ignored. Written with the next
        batch (``flush``)."""
        if self._conn is None or not cacheable(result):
            return
        try:
            params = self._params_id(key, create=True)
        except sqlite3.Error as exc:
            self._trouble(exc, "storing fingerprints")
            return
        entry = (params, os.fsencode(source.path), source, file_hash, checked_ns, _pack(result))
        self._queue((*entry, int(self._clock())))
        if len(self._pending) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        """Write the queued records and last-use stamps in one transaction, then evict the
        least recently used entries past ``max_entries``."""
        if self._conn is None or not (self._pending or self._touched):
            return
        pending, touched = self._pending, self._touched
        self._pending, self._touched = [], []
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    """INSERT INTO entries (params, path, size, mtime_ns, inode, checked_ns,
                           file_hash, record, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT (params, path) DO UPDATE SET size = excluded.size,
                           mtime_ns = excluded.mtime_ns, inode = excluded.inode,
                           checked_ns = excluded.checked_ns, file_hash = excluded.file_hash,
                           record = excluded.record, used = excluded.used""",
                    pending,
                )
                conn.executemany("UPDATE entries SET used = ? WHERE id = ?", touched)
                if pending:
                    self._evict(conn, len(pending))
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self._trouble(exc, "storing fingerprints")

    def _evict(self, conn: sqlite3.Connection, written: int) -> None:
        # Counting costs a scan of an index, so it is done once per run and then estimated
        # (each upsert counted as a new row) until the estimate passes the bound.
        if self._count is None:
            self._count = int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
        else:
            self._count += written
            if self._count <= self.max_entries:
                return
            self._count = int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
        if self._count <= self.max_entries:
            return
        keep = self.max_entries - int(self.max_entries * EVICT_SLACK)
        conn.execute(
            "DELETE FROM entries WHERE id IN (SELECT id FROM entries ORDER BY used, id LIMIT ?)",
            (self._count - keep,),
        )
        self._count = keep

    # ------------------------------------------------------------ maintenance

    def info(self) -> CacheInfo:
        """Entries and size on disk of the cache file, and this object's hits and misses."""
        entries = 0
        count = "SELECT COUNT(*) FROM entries"
        if self._conn is not None:
            try:
                entries = int(self._conn.execute(count).fetchone()[0])
            except sqlite3.Error as exc:
                self._trouble(exc, "counting entries")
        elif os.path.exists(self.path):  # closed, or turned off for the run
            with contextlib.suppress(sqlite3.Error), contextlib.closing(
                sqlite3.connect(self.path, timeout=1.0)
            ) as conn:
                entries = int(conn.execute(count).fetchone()[0])
        size = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                size += os.path.getsize(self.path + suffix)
        return CacheInfo(
            self.path, entries, size, self.max_entries, self.hits, self.reread, self.misses
        )

    def clear(self) -> None:
        """Remove every entry and give the space back to the file system."""
        self._pending.clear()
        self._touched.clear()
        if self._conn is None:
            return
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM entries")
            self._conn.execute("DELETE FROM params")
            self._conn.execute("COMMIT")
            self._params.clear()
            self._count = 0
            with contextlib.suppress(sqlite3.OperationalError):  # another process reading
                self._conn.execute("VACUUM")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            self._trouble(exc, "clearing it")

    def close(self) -> None:
        """Write what is queued and close the file."""
        try:
            self.flush()
        finally:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None

    def __enter__(self) -> FingerprintCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
