"""Passages remembered: ``scan --passages`` of an unchanged tree reuses the last scan's passages.

Passages are a function of the files' bytes, the scan's settings (which files, how they are
read, which pairs are near-duplicates as a whole) and the passage options. ``passage_key``
hashes all of them (sha256 of a canonical JSON): simdup's version, the readers' versions, the
shape of the passage records, the settings, each file's path and the xxh3-128 of its bytes
(``file_identities``) and the near-duplicate pairs. Under that key the scan cache's folder
holds one small file, ``KEY.passages``: JSON (never pickle: a cache folder must not be a way
to run code) with the passage pairs, the repeated passages and the passage stats, written
atomically (``writers.output.atomic_file``).

A file's bytes are known without reading it where the scan cache's snapshot (``store.snapshot``)
remembers them and the file's size, modification time and inode are those remembered, older
than when they were looked at (the scan cache's own rule, ``scanning.cache.RACY_NS``); any other
file is read and hashed here. Only the ``KEEP`` most recently used entries stay: a folder
scanned with many settings cannot grow without bound (their bytes count against the cache's
bound too, and ``cache clear`` removes them). An entry that cannot be read or does not hold what
it should is ignored (the passages are found again and the entry rewritten): never an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xxhash

from ..__about__ import __version__
from ..readers import readers_key
from ..records import PassagePair, PassageSpan, Place, RepeatedPassage
from ..scanning import RACY_NS
from ..store.cache import FORMAT as CACHE_FORMAT
from ..store.cache import PASSAGES, ScanCache
from ..store.columns import FrameError, read_frame_file
from ..store.snapshot import Rows
from ..writers.output import atomic_file

FORMAT = 1
# Entries kept per cache folder: a few settings of a few trees (each is small: a few kB to a
# few MB for a large collection's passages).
KEEP = 8
_READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class StoredPassages:
    """What an entry holds: a scan's passage pairs, repeated passages and passage stats."""

    pairs: tuple[PassagePair, ...]
    repeated: tuple[RepeatedPassage, ...]
    stats: dict[str, Any]


def _record_shape() -> list[list[str]]:
    """The fields of the stored records: an entry written before one changed is not read as
    the new record (the key differs)."""
    return [[f.name for f in dataclasses.fields(t)]
            for t in (PassagePair, PassageSpan, Place, RepeatedPassage)]  # fmt: skip


def passage_key(
    settings: dict[str, Any],
    files: Sequence[tuple[str, str]],
    near_duplicates: Iterable[tuple[str, str]],
) -> str:
    """The key of a scan's passages: ``settings`` (everything else they depend on), ``files``
    (each document's path and the hex xxh3-128 of its bytes, in the scan's order) and the
    ``near_duplicates`` pairs (left out of the passages unless ``all_pairs``)."""
    text = json.dumps(
        [FORMAT, __version__, readers_key(), _record_shape(), settings, [list(f) for f in files],
         sorted([a, b] for a, b in near_duplicates)],
        sort_keys=True, ensure_ascii=False, default=str,
    )  # fmt: skip
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


# ---------------------------------------------------------------- what the files hold


def _remembered_rows(cache: ScanCache, scan_key: str) -> dict[str, tuple[int, int, int, int, str]]:
    """path -> (size, mtime_ns, inode, checked_ns, hex hash of its bytes) of the rows of the
    snapshot under ``scan_key`` whose bytes were read (empty when there is none or it cannot
    be read: the files are then hashed here)."""
    try:
        frame = read_frame_file(os.path.join(cache.path, scan_key + ".snapshot"))
        if frame.meta.get("format") != CACHE_FORMAT or frame.meta.get("key") != scan_key:
            return {}
        rows = Rows.of_frame(frame)
    except (OSError, FrameError, ValueError, KeyError, TypeError):
        return {}
    known = np.flatnonzero(rows.file_hash.any(axis=1)).tolist()
    size, mtime, inode, checked = (rows.size.tolist(), rows.mtime_ns.tolist(),
                                   rows.inode.tolist(), rows.checked_ns.tolist())  # fmt: skip
    return {
        rows.paths[r]: (size[r], mtime[r], inode[r], checked[r], rows.file_hash[r].tobytes().hex())
        for r in known
    }


def _hash_of_file(path: str) -> str:
    digest = xxhash.xxh3_128()
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def file_identities(cache: ScanCache, scan_key: str, paths: Sequence[str]) -> list[str] | None:
    """The hex xxh3-128 of the bytes of each of ``paths``: remembered by the snapshot under
    ``scan_key`` where the file is unchanged by the scan cache's rule (see the module
    docstring), else read here; None when a file cannot be read (its passages are not kept)."""
    remembered = _remembered_rows(cache, scan_key)
    found: list[str] = []
    for path in paths:
        row = remembered.get(path)
        try:
            if row is not None:
                st = os.stat(path)
                size, mtime_ns, inode, checked_ns, known = row
                if (st.st_size, st.st_mtime_ns, st.st_ino) == (size, mtime_ns, inode) and (
                    0 != mtime_ns < checked_ns - RACY_NS
                ):
                    found.append(known)
                    continue
            found.append(_hash_of_file(path))
        except OSError:
            return None
    return found


# ---------------------------------------------------------------- entries


def _span_record(span: PassageSpan) -> dict[str, Any]:
    record = {f.name: getattr(span, f.name) for f in dataclasses.fields(span)}
    place = span.place
    record["place"] = None if place is None else [place.kind, place.first, place.last]
    return record


def _plain(value: Any) -> Any:
    """A numpy number as the plain one JSON writes (the matcher's numbers may be numpy's)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not stored in a passage entry")


def _span_of(record: dict[str, Any]) -> PassageSpan:
    place = record.get("place")
    fields = {**record, "place": None if place is None else Place(*place)}
    span = PassageSpan(**fields)
    if not isinstance(span.path, str) or not isinstance(span.words, int):
        raise TypeError("not a passage span")
    return span


def _entry_of(data: Any) -> StoredPassages:
    """The passages an entry's JSON holds (``KeyError``, ``TypeError``, ``ValueError`` when
    it does not hold them)."""
    if data["format"] != FORMAT:
        raise ValueError("another format")
    pairs = tuple(
        PassagePair(_span_of(p["a"]), _span_of(p["b"]), float(p["similarity"]), str(p["how"]))
        for p in data["pairs"]
    )
    repeated = tuple(
        RepeatedPassage(int(r["count"]), tuple(_span_of(s) for s in r["occurrences"]))
        for r in data["repeated"]
    )
    stats = data["stats"]
    if not isinstance(stats, dict):
        raise TypeError("stats are not a mapping")
    return StoredPassages(pairs, repeated, stats)


class PassageStore:
    """The passage entries of the scan cache ``cache`` (its folder; nothing when it is off)."""

    def __init__(self, cache: ScanCache) -> None:
        self.cache = cache

    def _file(self, key: str) -> str:
        return os.path.join(self.cache.path, key + PASSAGES)

    def load(self, key: str) -> StoredPassages | None:
        """The passages stored under ``key``; None when there are none, or the entry is
        damaged (removed: it is rewritten once they are found again)."""
        if not self.cache.usable:
            return None
        path = self._file(key)
        try:
            with open(path, "rb") as handle:
                data = json.loads(handle.read())
            if data.get("key") != key:
                raise ValueError("written for another key")
            stored = _entry_of(data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            with contextlib.suppress(OSError):
                os.unlink(path)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # its last use, for ``KEEP``
        return stored

    def save(
        self,
        key: str,
        pairs: Sequence[PassagePair],
        repeated: Sequence[RepeatedPassage],
        stats: dict[str, Any],
    ) -> None:
        """Store the passages of a scan under ``key``, then drop all but the ``KEEP`` most
        recently used entries. Trouble writing is ignored: the passages are found again next
        time."""
        if not self.cache.usable:
            return
        record = {
            "format": FORMAT,
            "key": key,
            "pairs": [
                {"a": _span_record(p.a), "b": _span_record(p.b), "similarity": p.similarity,
                 "how": p.how}
                for p in pairs
            ],
            "repeated": [
                {"count": r.count, "occurrences": [_span_record(s) for s in r.occurrences]}
                for r in repeated
            ],
            "stats": stats,
        }  # fmt: skip
        try:
            # ASCII: a path or preview that is not valid UTF-8 (surrogates) round-trips.
            data = json.dumps(record, default=_plain).encode("ascii")
            with atomic_file(self._file(key), compress=False) as stream:
                # The owner's alone, as the cache's snapshots are: previews are the documents'
                # own text.
                os.fchmod(stream.fileno(), 0o600)
                stream.write(data)
        except (OSError, TypeError, ValueError):
            return
        self._evict()

    def _evict(self) -> None:
        try:
            names = [n for n in os.listdir(self.cache.path) if n.endswith(PASSAGES)]
        except OSError:
            return
        entries = []
        for name in names:
            path = os.path.join(self.cache.path, name)
            with contextlib.suppress(OSError):
                entries.append((os.stat(path).st_mtime_ns, path))
        for _, path in sorted(entries, reverse=True)[KEEP:]:
            with contextlib.suppress(OSError):
                os.unlink(path)
