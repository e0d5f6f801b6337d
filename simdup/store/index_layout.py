"""How a named index (``store.index``) lays its documents out in SQLite: the ``docs`` table and
its indexes, the migrations that make them, what its meta table records (the fingerprint
parameters and the readers, and why others are refused), and how keys, fingerprints and
documents become rows and back.

One ``docs`` row per key: the key (UTF-8 bytes, ``surrogateescape`` for names that are not
valid UTF-8), the fingerprint as a signed 64-bit integer (SQLite's integer type), and, for
documents added from files, what the scan's verification needs (character count, content
hash, bottom-k sketch, counts, encoding). Four covering indexes on the fingerprint's 16-bit
blocks, ``((fingerprint >> 16 j) & 65535, fingerprint)``, answer "which stored fingerprints are
within k bits of q" exactly (``index_query.probe_plan``): each probe is an indexed lookup that
reads only index pages. Without the fingerprint in the block indexes every candidate costs a
table lookup: 1.8x slower queries for 27% less space. An index takes ~154 bytes a bare
fingerprint (with a 12-character key) and ~1.5 kB a document (the 1 kB sketch). Adding is
bounded by the four index insertions: ~22,000 fingerprints a second at 10^6 (65,000 at 10^5),
far above the rate at which files can be fingerprinted (``benchmarks/index.py``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..params import MARKUPS, SHORT_TEXT_CHARS, FeatureParams, described_markup
from ..records import FingerprintedDocument
from .database import Migration
from .sentence_vectors import create_table

BLOCKS = 4
BLOCK_BITS = 16
BLOCK_VALUES = 1 << BLOCK_BITS

COLUMNS = (
    "key, fingerprint, encoding, encoding_source, size, token_count, feature_count, "
    "content_hash, chars, sketch, minhash"
)
# A key added again replaces its entry (and its stored document, if the new one has none).
INSERT = f"INSERT OR REPLACE INTO docs ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
Row = tuple[Any, ...]


def block_expr(block: int) -> str:
    """SQL for the fingerprint's 16-bit ``block``; the queries must spell it exactly as the
    index does, or SQLite will not use the index."""
    shift = BLOCK_BITS * block
    return f"((fingerprint >> {shift}) & 65535)" if shift else "(fingerprint & 65535)"


def migrations(params: FeatureParams, readers: str) -> list[Migration]:
    """The schemas of an index in order: the table and its block indexes, recording the
    fingerprint parameters ``params`` (1); the content and short-text indexes (2); the readers
    that read its files, ``readers`` (3); the sentence vectors (4, ``sentence_vectors``)."""
    description = json.dumps(describe(params), sort_keys=True)
    return [_schema_1(identity(params), description), _schema_2, _schema_3(readers),
            create_table]  # fmt: skip


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
                f"CREATE INDEX docs_block{block} ON docs ({block_expr(block)}, fingerprint)"
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


def identity(params: FeatureParams) -> str:
    """The parameters an index's fingerprints and sketches depend on. MinHash signatures are
    not among them: index queries never use them (candidates come from the SimHash blocks)."""
    return replace(params, minhash_perms=0).cache_key()


def describe(params: FeatureParams) -> dict[str, Any]:
    """The parameters ``identity`` depends on, by name (said when an index refuses others)."""
    data = replace(params, minhash_perms=0).describe()
    data.pop("segmenter")  # a backend: both give identical tokens
    return data


def params_mismatch(meta: Mapping[str, str], params: FeatureParams) -> str | None:
    """Why fingerprints made with ``params`` cannot join an index of ``meta`` (its meta table),
    saying which parameters differ; None when they can."""
    if meta.get("params") == identity(params):
        return None
    try:
        stored = json.loads(meta.get("params_description", "{}"))
    except ValueError:
        stored = {}
    wanted = describe(params)
    if "markup" in stored:
        stored["markup"] = described_markup(stored["markup"])
    differ = [
        f"{name}={stored.get(name)!r} (here {wanted[name]!r})"
        for name in sorted(wanted)
        if stored.get(name) != wanted[name]
    ]
    detail = ", ".join(differ) if differ else "the stopword additions or user dictionary"
    # Rows are compared as written unless their markup is named: an index of rows read as
    # Markdown (as every row was before) is used by naming it.
    same = "the same options"
    if stored.get("markup") in MARKUPS and stored["markup"] != wanted["markup"]:
        same = f"--markup {stored['markup']}"
    return (
        f"holds fingerprints made with other parameters: {detail}; they cannot be mixed "
        f"(use {same}, or rebuild it)"
    )


def readers_mismatch(stored: str, now: Mapping[str, str]) -> str:
    """Why files read now (by the readers ``now`` describes) cannot join an index whose
    documents the readers ``stored`` (its meta's ``readers``) read, saying which differ."""
    try:
        old = json.loads(stored)
    except ValueError:
        old = {}
    differ = [
        f"{name} {old.get(name, 'none')} (here {now.get(name, 'none')})"
        for name in sorted(set(old) | set(now))
        if old.get(name) != now.get(name)
    ]
    return (
        f"holds documents read by other readers: {', '.join(differ)}; files read now would "
        "not compare with them: rebuild it from the files (--rebuild)"
    )


def check_fingerprint(fingerprint: int) -> int:
    if isinstance(fingerprint, bool) or not isinstance(fingerprint, int | np.integer):
        raise ConfigError(f"fingerprint must be an integer, not {fingerprint!r}")
    value = int(fingerprint)
    if not 0 <= value < 1 << 64:
        raise ConfigError(f"fingerprint {value!r} is not a 64-bit unsigned integer")
    return value


def check_key(key: str) -> bytes:
    if not isinstance(key, str):
        raise ConfigError(f"an index key must be a string, not {type(key).__name__}")
    return key.encode("utf-8", "surrogateescape")


def signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def key_text(blob: bytes) -> str:
    return bytes(blob).decode("utf-8", "surrogateescape")


def fingerprint_row(key: str, fingerprint: int) -> Row:
    """The row of a bare fingerprint (matched by distance alone: nothing to verify it with)."""
    return (check_key(key), signed(check_fingerprint(fingerprint))) + (None,) * 9


def document_row(key: str, doc: FingerprintedDocument) -> Row:
    """The row of a document stored under ``key``, with what verified queries need."""
    return (
        check_key(key),
        signed(check_fingerprint(doc.fingerprint)),
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


def stored_document(row: Row) -> FingerprintedDocument | None:
    """The stored document of a ``SELECT id, <COLUMNS>`` row, None for a bare fingerprint."""
    (_, key, fingerprint, encoding, source, size, tokens, features, content, chars, sketch,
     minhash) = row  # fmt: skip
    if content is None:
        return None
    return FingerprintedDocument(
        path=key_text(key),
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
