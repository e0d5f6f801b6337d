"""What the scan cache remembers of a scan: one row per file, as columns.

A row holds what discovery saw of a file (path, size, modification time, inode), when the scan
looked (``checked_ns``), the xxh3-128 of its bytes, and its record: a fingerprinted document
(fingerprint, counts, content hash, encoding, bottom-k sketch and, for a MinHash scan, its LSH
band keys) or the skip record of a file whose *content* cannot be fingerprinted (binary,
undecodable, too short, empty). Failures that may not happen again (a read error, an internal
error) are not remembered. ``Rows`` are written as one frame (``store.columns``) and read back
without copying: a column is touched only when a scan needs it.

``Remembered`` adds the result of the scan (pairs and clusters) when the scan completed, so
that a rescan of an unchanged tree with the same settings reuses it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from ..document_table import DocumentTable, FingerprintBatch
from ..join.verify import VerifiedPair
from ..records import Cluster, ClusterMember, FingerprintedDocument, SkippedFile, SourceFiles
from .columns import Chunks, Column, Frame

DOC, SKIP = 1, 2
_HASH = 16
# Which skip records are worth keeping: those that depend on the file's bytes and the
# parameters only (and an empty file). A read failure or an internal error may not happen next
# time.
CACHED_STAGES = frozenset({"decode", "features"})
EMPTY_FILE = "empty file"


def cacheable(result: FingerprintedDocument | SkippedFile) -> bool:
    """Whether a result depends only on the file's bytes and the parameters (so it can be
    reused for the same bytes): every fingerprint, and skips for content reasons."""
    return (
        not isinstance(result, SkippedFile)
        or result.stage in CACHED_STAGES
        or (result.stage == "read" and result.reason == EMPTY_FILE)
    )


class Blobs(Sequence[bytes]):
    """Byte strings stored end to end in ``data``, item ``i`` being ``data[starts[i]:ends[i]]``:
    ``blobs[i]`` is a new ``bytes``, made when asked for (a snapshot's sketches stay in its
    memory map until something reads them)."""

    def __init__(
        self,
        data: np.ndarray | Callable[[], np.ndarray],
        ends: np.ndarray,
        starts: np.ndarray | None = None,
    ) -> None:
        # ``data`` may be a function that reads it: a snapshot's sketches are read (and
        # checked) only if something asks for one.
        self._data = data
        self.ends = ends
        if starts is None:
            starts = np.zeros(ends.size, dtype=np.int64)
            starts[1:] = ends[:-1]
        self.starts = starts

    @property
    def data(self) -> np.ndarray:
        if callable(self._data):
            self._data = self._data()
        return self._data

    @classmethod
    def of(cls, items: Sequence[bytes]) -> Blobs:
        ends = np.cumsum([len(b) for b in items], dtype=np.int64) if items else np.empty(0, "<i8")
        return cls(np.frombuffer(b"".join(items), dtype=np.uint8), ends)

    def __len__(self) -> int:
        return int(self.ends.size)

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        if isinstance(index, slice):
            rows = np.arange(len(self))[index]
            return self.take(rows)
        if index < 0:
            index += len(self)
        return self.data[int(self.starts[index]) : int(self.ends[index])].tobytes()

    def take(self, rows: np.ndarray) -> list[bytes]:
        """Items ``rows`` as a list."""
        data = self.data
        return [
            data[a:b].tobytes()
            for a, b in zip(self.starts[rows].tolist(), self.ends[rows].tolist(), strict=True)
        ]

    def subset(self, rows: np.ndarray) -> Blobs:
        """Items ``rows``, still in place."""
        return Blobs(self._data if callable(self._data) else self.data, self.ends[rows],
                     self.starts[rows])  # fmt: skip

    def packed(self) -> Blobs:
        """The same items with nothing between them (what a frame stores)."""
        if not len(self) or bool(
            self.starts[0] == 0 and (self.starts[1:] == self.ends[:-1]).all()
        ):
            return self
        return Blobs.of(self.take(np.arange(len(self))))


_PATH_SLICE = 1 << 16


def _paths_blob(paths: Sequence[str]) -> Chunks:
    # NUL cannot occur in a path: the names joined by it decode and split in two C calls.
    # Encoded a slice at a time (one copy of all the names at once would be ~60 MB at 10^6).
    pieces = [
        ("\0" if start else "") + "\0".join(paths[start : start + _PATH_SLICE])
        for start in range(0, len(paths), _PATH_SLICE)
    ]
    return Chunks(p.encode("utf-8", "surrogateescape") for p in pieces)


def _paths_of(blob: np.ndarray, count: int) -> list[str]:
    if count == 0:
        return []
    paths = blob.tobytes().decode("utf-8", "surrogateescape").split("\0")
    if len(paths) != count:
        raise ValueError("path column does not hold one name per row")
    return paths


@dataclass
class Rows:
    """Remembered files, one row each (see the module docstring)."""

    paths: list[str]
    size: np.ndarray  # int64
    mtime_ns: np.ndarray  # int64
    inode: np.ndarray  # uint64
    checked_ns: np.ndarray  # int64: no modification before this time can hide from the stat
    file_hash: np.ndarray  # uint8 (n, 16)
    kind: np.ndarray  # uint8: DOC or SKIP
    fingerprint: np.ndarray  # uint64
    doc_size: np.ndarray  # int64
    token_count: np.ndarray  # int64
    feature_count: np.ndarray  # int64
    chars: np.ndarray  # int64
    digest: np.ndarray  # uint8 (n, 16)
    encoding: np.ndarray  # int32: encodings[encoding[i]]
    sketch: Sequence[bytes]
    skip: np.ndarray  # int32: skips[skip[i]], -1 for documents
    encodings: list[tuple[str, str]]
    skips: list[tuple[str, str, bool]]
    odd_digests: dict[int, str] = field(default_factory=dict)
    band_keys: np.ndarray | None = None  # uint64 (n, bands) of a MinHash scan: see keys()
    frame: Frame | None = None  # what the rows were read from (their band keys, when asked)
    _index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.paths)

    def keys(self) -> np.ndarray | None:
        """The band keys of a MinHash scan (read from the frame the first time: a rescan of
        an unchanged tree never needs them), or None."""
        if self.band_keys is None and self.frame is not None and "band_keys" in self.frame:
            keys = self.frame.column("band_keys")
            if keys.ndim != 2 or keys.shape[0] != len(self):
                raise ValueError("band keys do not hold one row per file")
            self.band_keys = keys
        return self.band_keys

    # ------------------------------------------------------------ made by a scan

    @classmethod
    def of_scan(
        cls,
        files: SourceFiles,
        table: DocumentTable,
        positions: np.ndarray,
        skipped: Iterable[tuple[int, SkippedFile]],
        file_hash: np.ndarray,
        checked_ns: int,
        band_keys: np.ndarray | None = None,
    ) -> Rows:
        """The rows of a scan's files: ``table`` holds the documents of ``files[positions]``
        (in that order), ``skipped`` the other files' records by index; ``file_hash`` is
        ``(len(files), 16)``; ``band_keys`` belong to the table's documents. Files whose
        record is not ``cacheable`` are left out."""
        n = len(files)
        kind = np.zeros(n, dtype=np.uint8)
        kind[positions] = DOC
        skip = np.full(n, -1, dtype=np.int32)
        skips: list[tuple[str, str, bool]] = []
        codes: dict[tuple[str, str, bool], int] = {}
        for index, record in skipped:
            if cacheable(record):
                key = (record.stage, record.reason, record.failure)
                code = codes.get(key)
                if code is None:
                    code = codes[key] = len(skips)
                    skips.append(key)
                kind[index] = SKIP
                skip[index] = code
        keep = np.flatnonzero(kind)
        doc_of = np.full(n, -1, dtype=np.int64)
        doc_of[positions] = np.arange(positions.size)
        docs = doc_of[keep]
        is_doc = docs >= 0
        take = np.where(is_doc, docs, 0)
        # Every file a document, in order (the usual case): the table's columns as they are
        # (a million files' band keys alone are 168 MB).
        whole = keep.size == n and positions.size == n

        def column(values: np.ndarray) -> np.ndarray:
            if whole:
                return values
            out = values[take] if values.size else np.zeros((keep.size, *values.shape[1:]),
                                                            values.dtype)  # fmt: skip
            out[~is_doc] = 0
            return out

        if whole:
            sketches = table.sketch
        else:
            sketches = [table.sketch[d] if d >= 0 else b"" for d in docs.tolist()]
        odd: dict[int, str] = {}
        if table.odd_digests:  # rarely any: a content hash not in canonical hex
            row_of_doc = np.full(len(table), -1, dtype=np.int64)
            row_of_doc[docs[is_doc]] = np.flatnonzero(is_doc)
            odd = {int(row_of_doc[d]): t for d, t in table.odd_digests.items()
                   if row_of_doc[d] >= 0}  # fmt: skip
        keys = None
        if band_keys is not None:
            keys = column(band_keys)
        paths = files.paths
        return cls(
            paths=paths if whole else [paths[i] for i in keep.tolist()],
            size=files.size[keep].astype(np.int64),
            mtime_ns=files.mtime_ns[keep].astype(np.int64),
            inode=files.inode[keep].astype(np.uint64),
            checked_ns=np.full(keep.size, checked_ns, dtype=np.int64),
            file_hash=file_hash if whole else file_hash[keep],
            kind=kind[keep],
            fingerprint=column(table.fingerprint),
            doc_size=column(table.size),
            token_count=column(table.token_count),
            feature_count=column(table.feature_count),
            chars=column(table.chars),
            digest=column(table.digest),
            encoding=column(table.encoding.astype(np.int32, copy=False)),
            sketch=sketches,
            skip=skip[keep],
            encodings=list(table.encodings),
            skips=skips,
            odd_digests=odd,
            band_keys=keys,
        )

    # ------------------------------------------------------------ as a frame

    def columns(self) -> dict[str, Column]:
        sketch_data: Column
        if isinstance(self.sketch, Blobs):
            packed = self.sketch.packed()
            sketch_data, sketch_end = packed.data, packed.ends
        else:
            items = self.sketch
            sketch_data = Chunks(items)
            sketch_end = np.cumsum([len(b) for b in items], dtype=np.int64)
        out: dict[str, Column] = {
            "path": _paths_blob(self.paths),
            "size": self.size, "mtime_ns": self.mtime_ns, "inode": self.inode,
            "checked_ns": self.checked_ns, "file_hash": self.file_hash, "kind": self.kind,
            "fingerprint": self.fingerprint, "doc_size": self.doc_size,
            "token_count": self.token_count, "feature_count": self.feature_count,
            "chars": self.chars, "digest": self.digest, "encoding": self.encoding,
            "sketch": sketch_data, "sketch_end": sketch_end, "skip": self.skip,
        }  # fmt: skip
        keys = self.keys()
        if keys is not None:
            out["band_keys"] = keys
        return out

    def meta(self) -> dict[str, Any]:
        return {
            "rows": len(self),
            "encodings": [list(e) for e in self.encodings],
            "skips": [list(s) for s in self.skips],
            "odd_digests": {str(k): v for k, v in self.odd_digests.items()},
        }

    @classmethod
    def of_frame(cls, frame: Frame) -> Rows:
        """The rows a frame holds (``ValueError`` when they do not fit together)."""
        meta = frame.meta
        n = int(meta["rows"])
        c = frame.column
        rows = cls(
            paths=_paths_of(c("path"), n),
            size=c("size"), mtime_ns=c("mtime_ns"), inode=c("inode"),
            checked_ns=c("checked_ns"), file_hash=c("file_hash"), kind=c("kind"),
            fingerprint=c("fingerprint"), doc_size=c("doc_size"),
            token_count=c("token_count"), feature_count=c("feature_count"), chars=c("chars"),
            digest=c("digest"), encoding=c("encoding"),
            sketch=Blobs(lambda: c("sketch"), c("sketch_end")), skip=c("skip"),
            encodings=[(str(a), str(b)) for a, b in meta["encodings"]],
            skips=[(str(a), str(b), bool(f)) for a, b, f in meta["skips"]],
            odd_digests={int(k): str(v) for k, v in meta["odd_digests"].items()},
            frame=frame,
        )  # fmt: skip
        rows.check()
        return rows

    def check(self) -> None:
        """``ValueError`` unless every column has a row per file and every code is valid."""
        n = len(self.paths)
        for name in ("size", "mtime_ns", "inode", "checked_ns", "file_hash", "kind",
                     "fingerprint", "doc_size", "token_count", "feature_count", "chars",
                     "digest", "encoding", "skip"):  # fmt: skip
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"column {name} does not hold one value per row")
        if len(self.sketch) != n or (self.band_keys is not None and len(self.band_keys) != n):
            raise ValueError("sketches or band keys do not hold one value per row")
        if isinstance(self.sketch, Blobs) and self.sketch.ends.size and (
            int(self.sketch.ends[-1]) != self._sketch_bytes()
        ):
            raise ValueError("sketch ends do not fit the sketches")
        docs = self.kind == DOC
        if not bool(np.isin(self.kind, (DOC, SKIP)).all()):
            raise ValueError("unknown row kind")
        if n and docs.any() and int(self.encoding[docs].max()) >= len(self.encodings):
            raise ValueError("encoding code out of range")
        skip = self.skip[~docs]
        if skip.size and (int(skip.min()) < 0 or int(skip.max()) >= len(self.skips)):
            raise ValueError("skip code out of range")

    def verify(self) -> None:
        """Check the columns read only when asked for (sketches, band keys) against their
        checksums, so that a damaged snapshot is found when it is opened, never halfway
        through a scan; their pages are given back (``Frame.check``)."""
        frame = self.frame
        if frame is None:
            return
        for name in ("sketch", "band_keys"):
            if name in frame:
                frame.check(name)
        self.keys()  # their shape

    def _sketch_bytes(self) -> int:
        sketch = self.sketch
        assert isinstance(sketch, Blobs)
        if self.frame is not None and callable(sketch._data):
            return self.frame.nbytes("sketch")
        return int(sketch.data.size)

    # ------------------------------------------------------------ lookups

    def index(self) -> dict[str, int]:
        """Row by path (the last row wins: rows appended later are newer)."""
        if self._index is None:
            self._index = {p: r for r, p in enumerate(self.paths)}
        return self._index

    def rows_of(self, paths: Sequence[str]) -> np.ndarray:
        """The row of each path (-1 where it has none), int64."""
        # Discovery never lists a path twice, so the same list is the same rows in order.
        if len(paths) == len(self.paths) and paths == self.paths:
            return np.arange(len(paths), dtype=np.int64)
        index = self.index()
        return np.array([index.get(p, -1) for p in paths], dtype=np.int64)

    def batch(self, rows: np.ndarray, paths: Sequence[str]) -> FingerprintBatch:
        """The remembered records of ``rows``, under ``paths`` (the files' current paths),
        as a batch in that order, with the files' hashes and (if remembered) band keys."""
        kinds = self.kind[rows]
        at = np.flatnonzero(kinds == DOC)
        docs = rows[at]
        pairs = [self.encodings[c] for c in self.encoding[docs].tolist()]
        skipped = []
        for k in np.flatnonzero(kinds != DOC).tolist():
            stage, reason, failure = self.skips[int(self.skip[rows[k]])]
            skipped.append((k, SkippedFile(paths[k], stage, reason, failure)))
        odd = {}
        if self.odd_digests:
            for r, row in enumerate(docs.tolist()):
                text = self.odd_digests.get(row)
                if text is not None:
                    odd[r] = text
        sketch = self.sketch
        sketches = sketch.take(docs) if isinstance(sketch, Blobs) else [sketch[r] for r in docs]
        return FingerprintBatch(
            at=at.astype(np.int64),
            fingerprint=self.fingerprint[docs].astype(np.uint64),
            size=self.doc_size[docs].astype(np.int64),
            token_count=self.token_count[docs].astype(np.int64),
            feature_count=self.feature_count[docs].astype(np.int64),
            chars=self.chars[docs].astype(np.int64),
            digest=np.array(self.digest[docs], dtype=np.uint8),
            encoding=[p[0] for p in pairs],
            encoding_source=[p[1] for p in pairs],
            sketch=sketches,
            signature=None,
            skipped=skipped,
            odd_digests=odd,
            band_keys=None if (keys := self.keys()) is None else np.array(keys[docs]),
            file_hash=np.array(self.file_hash[rows], dtype=np.uint8),
        )

    @classmethod
    def joined(cls, parts: Sequence[Rows]) -> Rows:
        """Rows of ``parts`` one after the other (a later row of a path wins in lookups)."""
        if len(parts) == 1:
            return parts[0]
        encodings: list[tuple[str, str]] = []
        skips: list[tuple[str, str, bool]] = []
        enc_codes: dict[tuple[str, str], int] = {}
        skip_codes: dict[tuple[str, str, bool], int] = {}
        encoding_parts: list[np.ndarray] = []
        skip_parts: list[np.ndarray] = []
        sketches: list[bytes] = []
        odd: dict[int, str] = {}
        offset = 0
        for part in parts:
            remap_e = np.array(
                [enc_codes.setdefault(e, len(enc_codes)) for e in part.encodings] or [0],
                dtype=np.int32,
            )
            for e in part.encodings:
                if e not in encodings:
                    encodings.append(e)
            remap_s = np.array(
                [skip_codes.setdefault(s, len(skip_codes)) for s in part.skips] or [0],
                dtype=np.int32,
            )
            for s in part.skips:
                if s not in skips:
                    skips.append(s)
            docs = part.kind == DOC
            encoding_parts.append(np.where(docs, remap_e[np.where(docs, part.encoding, 0)], 0))
            skip_parts.append(np.where(docs, -1, remap_s[np.where(docs, 0, part.skip)]))
            sketches.extend(part.sketch[i] for i in range(len(part)))
            odd.update({offset + k: v for k, v in part.odd_digests.items()})
            offset += len(part)
        keys = None
        found = [p.keys() for p in parts]
        if all(k is not None for k in found):
            widths = {k.shape[1] for k in found if k is not None}
            if len(widths) == 1:
                keys = np.concatenate([k for k in found if k is not None])

        def cat(name: str) -> np.ndarray:
            return np.concatenate([getattr(p, name) for p in parts])

        return cls(
            paths=[path for p in parts for path in p.paths],
            size=cat("size"), mtime_ns=cat("mtime_ns"), inode=cat("inode"),
            checked_ns=cat("checked_ns"), file_hash=cat("file_hash"), kind=cat("kind"),
            fingerprint=cat("fingerprint"), doc_size=cat("doc_size"),
            token_count=cat("token_count"), feature_count=cat("feature_count"),
            chars=cat("chars"), digest=cat("digest"),
            encoding=np.concatenate(encoding_parts).astype(np.int32), sketch=sketches,
            skip=np.concatenate(skip_parts).astype(np.int32), encodings=encodings,
            skips=skips, odd_digests=odd, band_keys=keys,
        )  # fmt: skip


# ---------------------------------------------------------------- a scan's result


@dataclass
class SavedJoin:
    """The pairs and clusters of a completed scan, over its documents in file order (the
    rows of kind ``DOC``), and what its report said besides."""

    settings: dict[str, Any]
    stats: dict[str, Any]
    pair_i: np.ndarray
    pair_j: np.ndarray
    pair_distance: np.ndarray
    pair_similarity: np.ndarray  # NaN: none computed
    pair_exact: np.ndarray
    cluster_rep: np.ndarray  # document of each cluster's representative
    cluster_spread: np.ndarray
    cluster_end: np.ndarray  # end of each cluster's members in the member columns
    member_doc: np.ndarray
    member_distance: np.ndarray
    member_similarity: np.ndarray
    member_exact: np.ndarray

    @classmethod
    def of(
        cls,
        settings: dict[str, Any],
        stats: dict[str, Any],
        paths: Sequence[str],
        pairs: Sequence[VerifiedPair],
        clusters: Sequence[Cluster],
    ) -> SavedJoin:
        """The verified ``pairs`` (numbered over the documents, whose ``paths`` these are) and
        the ``clusters`` of a scan."""

        def sim(value: float | None) -> float:
            return math.nan if value is None else value

        # Every member of a cluster is in a pair: number only the documents of the pairs.
        paired = {k for p in pairs for k in (p.i, p.j)}
        doc_of_path = {paths[k]: k for k in paired}
        members = [m for c in clusters for m in c.members]
        return cls(
            settings=settings,
            stats=stats,
            pair_i=np.array([p.i for p in pairs], dtype=np.int64),
            pair_j=np.array([p.j for p in pairs], dtype=np.int64),
            pair_distance=np.array([p.distance for p in pairs], dtype=np.int64),
            pair_similarity=np.array([sim(p.similarity) for p in pairs], dtype=np.float64),
            pair_exact=np.array([p.exact for p in pairs], dtype=np.bool_),
            cluster_rep=np.array([doc_of_path[c.representative] for c in clusters], np.int64),
            cluster_spread=np.array([c.max_distance for c in clusters], dtype=np.int64),
            cluster_end=np.cumsum([len(c.members) for c in clusters], dtype=np.int64)
            if clusters else np.empty(0, np.int64),
            member_doc=np.array([doc_of_path[m.path] for m in members], dtype=np.int64),
            member_distance=np.array([m.distance for m in members], dtype=np.int64),
            member_similarity=np.array([sim(m.similarity) for m in members], np.float64),
            member_exact=np.array([m.exact_duplicate for m in members], dtype=np.bool_),
        )

    _COLUMNS = ("pair_i", "pair_j", "pair_distance", "pair_similarity", "pair_exact",
                "cluster_rep", "cluster_spread", "cluster_end", "member_doc",
                "member_distance", "member_similarity", "member_exact")  # fmt: skip

    def columns(self) -> dict[str, np.ndarray]:
        return {f"outcome_{name}": getattr(self, name) for name in self._COLUMNS}

    def meta(self) -> dict[str, Any]:
        return {"settings": self.settings, "stats": self.stats}

    @classmethod
    def of_frame(cls, frame: Frame, meta: dict[str, Any]) -> SavedJoin:
        found = {name: frame.column(f"outcome_{name}") for name in cls._COLUMNS}
        return cls(settings=meta["settings"], stats=meta["stats"], **found)

    def verified(self) -> Iterator[VerifiedPair]:
        """The verified pairs, numbered over the remembered documents."""
        for i, j, d, s, e in zip(
            self.pair_i.tolist(), self.pair_j.tolist(), self.pair_distance.tolist(),
            self.pair_similarity.tolist(), self.pair_exact.tolist(), strict=True,
        ):  # fmt: skip
            yield VerifiedPair(i, j, d, None if s != s else s, bool(e))

    def clusters(self, paths: Sequence[str]) -> Iterator[Cluster]:
        start = 0
        docs = self.member_doc.tolist()
        distance = self.member_distance.tolist()
        similarity = self.member_similarity.tolist()
        exact = self.member_exact.tolist()
        for n, (rep, spread, end) in enumerate(
            zip(self.cluster_rep.tolist(), self.cluster_spread.tolist(),
                self.cluster_end.tolist(), strict=True), 1,
        ):  # fmt: skip
            members = tuple(
                ClusterMember(paths[docs[k]], distance[k],
                              None if similarity[k] != similarity[k] else similarity[k],
                              bool(exact[k]))  # fmt: skip
                for k in range(start, end)
            )
            yield Cluster(n, paths[rep], members, spread)
            start = end
