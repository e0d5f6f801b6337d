"""How a named index (``store.index``) finds the stored documents near a new one: the stored
fingerprints within k bits of a query, by probing the block indexes (``probe_plan``) or by
reading every fingerprint (``choose_strategy`` says which is cheaper), and the other
candidates of a document (the stored documents of its comparison form; for a short text, the
stored short texts within the edit similarity). A query never holds the corpus in Python
objects: the candidates' exact distances are checked in numpy, and where reading every row is
cheaper the fingerprints are streamed in chunks of 65,536.

Why (``benchmarks/index.py``, 10^6 random fingerprints, 2 cores): a query at threshold 3
takes 0.45 ms (4 lookups, ~60 candidates), at 6 1.2 ms, at 12 14 ms (1,108 lookups, ~17,000
candidates); reading every fingerprint into numpy instead takes 680 ms, so that is done only
where the probes would cost more (thresholds from 26 up at 10^6, or small indexes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

import numpy as np

from ..algorithms.index import MAX_THRESHOLD
from ..algorithms.simhash import hamming
from ..errors import ConfigError
from ..join.short import short_blocks, short_join
from ..options import ScanOptions
from ..params import SHORT_TEXT_CHARS
from ..records import FingerprintedDocument
from .index_layout import (
    BLOCK_BITS,
    BLOCK_VALUES,
    BLOCKS,
    COLUMNS,
    Row,
    block_expr,
    key_text,
    stored_document,
)

# Measured costs (microseconds) that decide between probing the block indexes and reading
# every fingerprint: one probed block value, one candidate row it returns, one scanned row.
_PROBE_COST = 0.5
_CANDIDATE_COST = 0.8
_SCAN_COST = 0.63
# Literal ids per "id IN (...)" statement when fetching keys and records.
_ID_CHUNK = 10_000

# Every 16-bit value, fewest bits set first: block value b's neighbours within r bits are
# b ^ _FLIPS[: _WITHIN[r]].
_FLIPS = np.argsort(np.bitwise_count(np.arange(BLOCK_VALUES, dtype=np.uint32)), kind="stable")
_WITHIN = np.cumsum(np.bincount(np.bitwise_count(_FLIPS.astype(np.uint32)), minlength=17))


def check_threshold(threshold: int) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int | np.integer):
        raise ConfigError(f"threshold must be an integer, not {threshold!r}")
    if not 0 <= threshold <= MAX_THRESHOLD:
        raise ConfigError(f"threshold must be between 0 and {MAX_THRESHOLD}, got {threshold}")
    return int(threshold)


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
    probe = probes * (_PROBE_COST + _CANDIDATE_COST * documents / BLOCK_VALUES)
    return "scan" if _SCAN_COST * documents < probe else "probe"


def size_bound(conn: sqlite3.Connection) -> int:
    """At least the number of entries: max(id), one B-tree descent, unlike count(*)."""
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0])


def near(
    conn: sqlite3.Connection, fingerprint: int, threshold: int, strategy: str
) -> tuple[np.ndarray, np.ndarray]:
    """Row ids of the stored fingerprints within ``threshold`` and their distances, found by
    ``strategy`` (``"probe"`` or ``"scan"``)."""
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

    if strategy == "scan":
        cursor = conn.execute("SELECT id, fingerprint FROM docs")
        while rows := cursor.fetchmany(65536):
            take(rows)
    else:
        for block, radius in probe_plan(threshold):
            value = (fingerprint >> (BLOCK_BITS * block)) & (BLOCK_VALUES - 1)
            values = ",".join(map(str, (_FLIPS[: _WITHIN[radius]] ^ value).tolist()))
            sql = f"SELECT id, fingerprint FROM docs WHERE {block_expr(block)} IN ({values})"
            take(conn.execute(sql).fetchall())
    if not found_ids:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint8)
    ids = np.concatenate(found_ids)
    distances = np.concatenate(found_distances)
    # A fingerprint close in several blocks was found by each: once is enough.
    ids, first = np.unique(ids, return_index=True)
    return ids, distances[first]


def keys_of(conn: sqlite3.Connection, ids: np.ndarray) -> dict[int, str]:
    """The keys of the rows ``ids``, by row id."""
    keys: dict[int, str] = {}
    for start in range(0, ids.size, _ID_CHUNK):
        chunk = ",".join(map(str, ids[start : start + _ID_CHUNK].tolist()))
        for row_id, blob in conn.execute(f"SELECT id, key FROM docs WHERE id IN ({chunk})"):
            keys[row_id] = key_text(blob)
    return keys


def _rows_of(conn: sqlite3.Connection, ids: np.ndarray) -> list[Row]:
    rows: list[Row] = []
    for start in range(0, ids.size, _ID_CHUNK):
        chunk = ",".join(map(str, ids[start : start + _ID_CHUNK].tolist()))
        rows += conn.execute(f"SELECT id, {COLUMNS} FROM docs WHERE id IN ({chunk})")
    return rows


def candidates(
    conn: sqlite3.Connection,
    doc: FingerprintedDocument,
    options: ScanOptions,
    found: tuple[np.ndarray, np.ndarray],
    short: Sequence[int] | None = None,
) -> Iterator[tuple[str, FingerprintedDocument | None, int]]:
    """The stored candidates of ``doc`` as ``(key, stored document or None for a bare
    fingerprint, distance)``: the fingerprints within the search radius (``found``: their
    row ids and distances), the stored documents of its comparison form and, for a short
    text, the stored short texts within the edit similarity (``short``: their ids, when the
    caller joined them already; else they are read and compared here)."""
    ids, distances = found
    distance_of = dict(zip(ids.tolist(), distances.tolist(), strict=True))
    others = [row_id for (row_id,) in conn.execute(
        "SELECT id FROM docs WHERE content_hash = ?", (doc.content_hash,)
    )]  # fmt: skip
    if doc.chars < SHORT_TEXT_CHARS and options.verify:
        others += short if short is not None else short_near(conn, [doc], options)[0]
    extra = np.array(sorted(set(others) - set(distance_of)), dtype=np.int64)
    for row in _rows_of(conn, np.concatenate((ids, extra))):
        distance = distance_of.get(row[0])
        if distance is None:
            distance = hamming(doc.fingerprint, int(row[2]) & ((1 << 64) - 1))
        yield key_text(row[1]), stored_document(row), distance


def short_near(
    conn: sqlite3.Connection, docs: Sequence[FingerprintedDocument], options: ScanOptions
) -> list[list[int]]:
    """For each of ``docs`` (short texts), the ids of the stored short texts whose forms
    are within the edit or block-move similarity of its form: one join of them all
    (``join.verify.short_join``), exact."""
    rows = conn.execute(
        f"SELECT id, sketch FROM docs WHERE content_hash IS NOT NULL "
        f"AND chars < {SHORT_TEXT_CHARS}"
    ).fetchall()
    near: list[list[int]] = [[] for _ in docs]
    if not rows:
        return near
    forms = [short_blocks(bytes(d.sketch)) for d in docs]
    forms += [short_blocks(bytes(sketch or b"")) for _, sketch in rows]
    i, j = short_join(forms, options.min_edit_similarity)
    new = len(docs)
    for a, b in zip(i.tolist(), j.tolist(), strict=True):
        if a < new <= b:  # a new document and a stored one (i < j: the new one first)
            near[a].append(int(rows[b - new][0]))
    return near
