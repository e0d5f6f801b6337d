"""Opening simdup's SQLite databases (the scan cache, named indexes) the same safe way.

Every database has a ``meta`` table of key/value text: ``kind`` (``cache`` or ``index``),
``schema_version`` (migrated forward in order, one transaction each) and ``algorithm_version``
(the fingerprints it holds; a database of another version is refused, never mixed).
Connections use WAL journaling (readers never block the writer, a killed writer loses at most
its open transaction), ``synchronous=NORMAL`` (durable at each checkpoint, safe against
corruption), and wait up to ``BUSY_TIMEOUT`` seconds for another process's write.
A file that is not a SQLite database, or is damaged, raises ``StoreError`` naming it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence

from ..errors import StoreError
from ..params import ALGORITHM_VERSION

BUSY_TIMEOUT = 60.0  # seconds another simdup process may hold the write lock
Migration = Callable[[sqlite3.Connection], None]


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    rows = conn.execute("SELECT key, value FROM meta").fetchall()
    return {str(k): str(v) for k, v in rows}


def refuse_non_file(path: str) -> None:
    """Raise ``StoreError`` when ``path`` exists and is not a regular file: a store is deleted
    (``--rebuild``), replaced atomically or given journals beside it, which would replace a
    device such as ``/dev/null`` or a FIFO, or litter its folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise StoreError(path, "not a regular file (a store is a file of its own)")


def open_database(
    path: str,
    kind: str,
    migrations: Sequence[Migration],
    *,
    create: bool = True,
    rebuild: bool = False,
    algorithm_version: str = ALGORITHM_VERSION,
) -> sqlite3.Connection:
    """Open (or create) the database at ``path`` holding ``kind``, migrated to the latest
    schema: ``migrations[n]`` takes schema version ``n`` to ``n + 1``.

    ``rebuild`` deletes the file first (with its WAL and shared-memory files). Raises
    ``StoreError`` when the file is not a simdup database of this kind, is damaged, or holds
    fingerprints of another algorithm version.
    """
    refuse_non_file(path)
    if rebuild:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path + suffix)
    exists = os.path.exists(path)
    if not exists and not create:
        raise StoreError(path, "no such database")
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(path, f"cannot open it: {exc}") from exc
    deadline = time.monotonic() + BUSY_TIMEOUT
    try:
        while True:
            try:
                # Look before changing anything: switching to WAL rewrites the header of
                # whatever database this is, and someone else's must be left as it was.
                _refuse_other_kinds(conn, path, kind)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                _prepare(conn, path, kind, migrations, algorithm_version)
                break
            except sqlite3.OperationalError as exc:
                # Two processes creating the same database: switching the journal mode takes
                # an exclusive lock and SQLite answers "locked" at once, without waiting.
                if not is_busy(exc):
                    raise
                if time.monotonic() > deadline:
                    raise StoreError(path, f"busy: another process holds it ({exc})") from exc
                time.sleep(0.02)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(path, f"not a simdup {kind} database, or damaged ({exc})") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds a lock: try again later (not damage)."""
    code = getattr(exc, "sqlite_errorcode", None)
    busy_codes = {getattr(sqlite3, "SQLITE_BUSY", 5), getattr(sqlite3, "SQLITE_LOCKED", 6)}
    return (code is not None and code & 0xFF in busy_codes) or "locked" in str(exc)


def _refuse_other_kinds(conn: sqlite3.Connection, path: str, kind: str) -> None:
    """Raise ``StoreError`` if the file is a database but not a simdup ``kind`` (a read only;
    ``_prepare`` checks again under the write lock)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" in tables:
        row = conn.execute("SELECT value FROM meta WHERE key = 'kind'").fetchone()
        if row is None or row[0] != kind:
            raise StoreError(path, f"a simdup {row[0] if row else '?'} database, not a {kind}")
    elif tables:
        raise StoreError(path, f"not a simdup {kind} database")


def _check_meta(
    meta: dict[str, str], path: str, kind: str, schema_version: int, algorithm_version: str
) -> None:
    """Raise ``StoreError`` unless ``meta`` is that of a ``kind`` database of this algorithm
    version at a schema version this simdup knows (at most ``schema_version``)."""
    if meta.get("kind") != kind:
        raise StoreError(path, f"a simdup {meta.get('kind', '?')} database, not a {kind}")
    if meta.get("algorithm_version") != algorithm_version:
        raise StoreError(
            path,
            f"holds fingerprints of algorithm {meta.get('algorithm_version')}, this simdup "
            f"computes {algorithm_version}: they cannot be mixed (rebuild it)",
        )
    version = int(meta.get("schema_version", "0"))
    if version > schema_version:
        raise StoreError(path, f"schema version {version} is newer than this simdup knows")


def _prepare(
    conn: sqlite3.Connection,
    path: str,
    kind: str,
    migrations: Sequence[Migration],
    algorithm_version: str,
) -> None:
    # Usually the database is ready: check that with a read only, so that opening one never
    # waits for another process's open write transaction (readers need not, in WAL mode).
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" in tables:
        meta = _meta(conn)
        if meta.get("schema_version") == str(len(migrations)):
            _check_meta(meta, path, kind, len(migrations), algorithm_version)
            return
    conn.execute("BEGIN IMMEDIATE")  # one process creates or migrates; the other waits
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables:
            if tables:
                raise StoreError(path, f"not a simdup {kind} database")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [("kind", kind), ("schema_version", "0"), ("algorithm_version", algorithm_version)],
            )
        meta = _meta(conn)
        _check_meta(meta, path, kind, len(migrations), algorithm_version)
        version = int(meta.get("schema_version", "0"))
        for step in range(version, len(migrations)):
            migrations[step](conn)
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(step + 1),))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def check_integrity(conn: sqlite3.Connection, path: str) -> None:
    """Raise ``StoreError`` unless SQLite's quick check passes."""
    try:
        result = conn.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StoreError(path, f"damaged ({exc})") from exc
    if not result or result[0] != "ok":
        raise StoreError(path, f"damaged ({result[0] if result else 'no answer'})")
