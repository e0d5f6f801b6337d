"""Evaluation items tokenised once and kept in a file (``decon --db``), reused by later runs.

One SQLite database of kind ``decon`` (``store.database``: a ``meta`` table with the schema and
algorithm versions; a database of another version is refused, never mixed): per item its id,
where it comes from, its tokens (folded hashes and character offsets, as arrays) and its
letters (``text.letters``); and in
``meta`` the markup left out of them (``markup``: rows are read the same way, so a run with
another setting is refused; a database without it holds items read as written). The
tokens are what costs; the k-gram index is made from them when a run starts, so the
containment settings (``--k``, ``--min-coverage``...) may differ from run to run. A database is
written whole to a temporary file beside its path and moved into place when complete: a
stopped run leaves the previous one, never half of a new one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile

import numpy as np

from ...algorithms.containment import CONTAINMENT_VERSION, ContainmentRule
from ...errors import StoreError
from ...params import ALGORITHM_VERSION
from ...records import SkippedFile
from ...store.database import open_database, refuse_non_file
from .items import EvalIndex, EvalItem

KIND = "decon"
# The tokens stored depend on the tokeniser (its folding) as well as on the fingerprints.
TOKENS_VERSION = "fragment-tokens/1"
VERSION = f"{ALGORITHM_VERSION} {TOKENS_VERSION} {CONTAINMENT_VERSION}"


def _create(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE items (n INTEGER PRIMARY KEY, id TEXT NOT NULL, source TEXT NOT NULL, "
        "row INTEGER, line INTEGER, field TEXT, hashes BLOB NOT NULL, starts BLOB NOT NULL, "
        "ends BLOB NOT NULL)"
    )
    conn.execute("CREATE TABLE skipped (path TEXT NOT NULL, stage TEXT NOT NULL, reason TEXT)")


def _add_letters(conn: sqlite3.Connection) -> None:
    # Each item's letters (``text.letters``: folded code points, uint32), for the letter rule.
    conn.execute("ALTER TABLE items ADD COLUMN letters BLOB NOT NULL DEFAULT x''")


MIGRATIONS = (_create, _add_letters)


def save_evals(path: str, evals: EvalIndex) -> None:
    """Write ``evals`` (items, tokens and the eval rows skipped) to the database ``path``,
    replacing it atomically."""
    refuse_non_file(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise StoreError(path, f"no such folder: {directory}")
    fd, tmp = tempfile.mkstemp(prefix=".simdup-", suffix=".tmp", dir=directory)
    os.close(fd)
    os.unlink(tmp)  # SQLite creates it
    try:
        conn = open_database(tmp, KIND, MIGRATIONS, algorithm_version=VERSION)
        try:
            conn.execute("BEGIN")
            conn.execute("INSERT INTO meta VALUES ('markup', ?)", (evals.markup,))
            conn.executemany(
                "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (n, it.id, it.source, it.row, it.line, it.field,
                     np.ascontiguousarray(evals.hashes[n], "<u8").tobytes(),
                     np.ascontiguousarray(evals.starts[n], "<i4").tobytes(),
                     np.ascontiguousarray(evals.ends[n], "<i4").tobytes(),
                     np.ascontiguousarray(evals.letters[n], "<u4").tobytes())
                    for n, it in enumerate(evals.items)
                ),
            )  # fmt: skip
            conn.executemany(
                "INSERT INTO skipped VALUES (?, ?, ?)",
                ((s.path, s.stage, s.reason) for s in evals.skipped),
            )
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=DELETE")  # one file, nothing beside it
        finally:
            conn.close()
        os.replace(tmp, path)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path + suffix)
    finally:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def load_evals(
    path: str, rule: ContainmentRule | None = None, *, markup: str = "none"
) -> EvalIndex:
    """The items stored in ``path`` (``save_evals``), to be matched by ``rule`` in rows of
    ``markup``; raises ``StoreError`` for a missing, damaged or foreign database, one of
    another version, or one whose items were read with other markup left out."""
    conn = open_database(path, KIND, MIGRATIONS, create=False, algorithm_version=VERSION)
    evals = EvalIndex(rule or ContainmentRule(), markup=markup)
    try:
        # A database made before the setting was stored holds items read as written.
        row = conn.execute("SELECT value FROM meta WHERE key = 'markup'").fetchone()
        stored = row[0] if row is not None else "none"
        if stored != markup:
            raise StoreError(
                path,
                f"holds items read with --markup {stored} (here --markup {markup}): rows and "
                f"items are read alike; use --markup {stored}, or store the items again "
                "with --evals",
            )
        for row in conn.execute(
            "SELECT id, source, row, line, field, hashes, starts, ends, letters FROM items "
            "ORDER BY n"
        ):
            item = EvalItem(row[0], row[1], row[2], row[3], row[4], "")
            evals.add_tokens(
                item, np.frombuffer(row[5], "<u8").astype(np.uint64),
                np.frombuffer(row[6], "<i4"), np.frombuffer(row[7], "<i4"),
                np.frombuffer(row[8], "<u4").astype(np.uint32),
            )  # fmt: skip
        for p, stage, reason in conn.execute("SELECT path, stage, reason FROM skipped"):
            evals.skipped.append(SkippedFile(p, stage, reason))
    except sqlite3.DatabaseError as exc:
        raise StoreError(path, f"damaged ({exc})") from exc
    finally:
        conn.close()
    return evals
