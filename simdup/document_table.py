"""Many fingerprinted documents held as columns: what a scan keeps of each of 10^6 documents.

A ``FingerprintedDocument`` object per document costs the parent ~1.1 KB at a million short
documents: the object, an int object per number, the content digest as a hex string, the
sketch. A ``DocumentTable`` holds the same facts in numpy columns, with only the sketch (and,
when asked, the MinHash signature) a bytes object of its own: ~0.75 KB. It is a
``Sequence[FingerprintedDocument]``: ``table[i]`` makes the record of document ``i`` when
something asks for one (a renderer, a pair's paths); the join reads the columns.

``FingerprintBatch`` is the form in which results travel from a worker process to the parent:
a few arrays and lists per batch of files, not one pickled record per file.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from .records import FingerprintedDocument, SkippedFile

Result = FingerprintedDocument | SkippedFile  # what an engine gives for one file
_DIGEST_BYTES = 16  # xxh3-128, the content hash in hex everywhere a record shows it
_ITER_SLICE = 4096


def _digest_bytes(hex_digest: str) -> bytes | None:
    """The 16 bytes of a content hash, or None when it is not in the canonical form (32
    lowercase hex digits), which the table then keeps as given."""
    if len(hex_digest) != 2 * _DIGEST_BYTES:
        return None
    try:
        raw = bytes.fromhex(hex_digest)
    except ValueError:
        return None
    return raw if raw.hex() == hex_digest else None


@dataclass(frozen=True, slots=True)
class FingerprintBatch:
    """The results of a run of files, as columns. ``at[r]`` is the position, among the
    batch's results, of the ``r``-th fingerprinted document; ``skipped`` holds the others with
    their positions. ``digest`` holds each content hash's 16 bytes (``odd_digests``: any hash
    not in canonical hex, by row). ``signature`` is ``(rows, perms)`` uint64, or None when the
    documents have no MinHash signature; ``band_keys``, when a scan asked for them, is
    ``(rows, bands)`` uint64: the LSH band keys of the signatures, which then travel instead
    of them (168 bytes a document instead of 1 KB; ``engines.batching.keyed``). ``file_hash``,
    when the engine read the files itself, is ``(count, 16)`` uint8: the xxh3-128 of each
    result's file bytes in the batch's order, zeros where they could not be read (the scan
    cache knows a file again by it)."""

    at: np.ndarray  # int64
    fingerprint: np.ndarray  # uint64
    size: np.ndarray  # int64
    token_count: np.ndarray  # int64
    feature_count: np.ndarray  # int64
    chars: np.ndarray  # int64
    digest: np.ndarray  # uint8 (rows, 16)
    encoding: list[str]
    encoding_source: list[str]
    sketch: list[bytes]
    signature: np.ndarray | None
    skipped: list[tuple[int, SkippedFile]]
    odd_digests: dict[int, str]
    band_keys: np.ndarray | None = None
    file_hash: np.ndarray | None = None

    @property
    def count(self) -> int:
        """How many results the batch holds (fingerprinted and skipped)."""
        return int(self.at.size) + len(self.skipped)

    @classmethod
    def pack(
        cls, results: Sequence[Result], file_hashes: Sequence[bytes] | None = None
    ) -> FingerprintBatch:
        """The batch of ``results`` (records of one run of files, in its order), with the
        hashes of their files' bytes when given (``b""``: not read)."""
        docs = [r for r in results if isinstance(r, FingerprintedDocument)]
        at = [k for k, r in enumerate(results) if isinstance(r, FingerprintedDocument)]
        skipped = [(k, r) for k, r in enumerate(results) if isinstance(r, SkippedFile)]
        n = len(docs)
        digest = np.zeros((n, _DIGEST_BYTES), dtype=np.uint8)
        odd: dict[int, str] = {}
        raw = [_digest_bytes(d.content_hash) for d in docs]
        for row, value in enumerate(raw):
            if value is None:
                odd[row] = docs[row].content_hash
        if n:
            digest[:] = np.frombuffer(
                b"".join(b if b is not None else bytes(_DIGEST_BYTES) for b in raw), np.uint8
            ).reshape(n, _DIGEST_BYTES)
        signed = [d.minhash for d in docs if d.minhash]
        signature = None
        if n and len(signed) == n and len({len(s) for s in signed}) == 1:
            signature = np.frombuffer(b"".join(signed), dtype="<u8").reshape(n, -1)
        elif signed:
            raise ValueError("a batch mixes documents with and without MinHash signatures")

        def column(values: list[int], dtype: type) -> np.ndarray:
            return np.array(values, dtype=dtype) if values else np.empty(0, dtype=dtype)

        return cls(
            at=column(at, np.int64),
            fingerprint=column([d.fingerprint for d in docs], np.uint64),
            size=column([d.size for d in docs], np.int64),
            token_count=column([d.token_count for d in docs], np.int64),
            feature_count=column([d.feature_count for d in docs], np.int64),
            chars=column([d.chars for d in docs], np.int64),
            digest=digest,
            encoding=[d.encoding for d in docs],
            encoding_source=[d.encoding_source for d in docs],
            sketch=[d.sketch for d in docs],
            signature=signature,
            skipped=skipped,
            odd_digests=odd,
            file_hash=None if file_hashes is None else hash_column(file_hashes),
        )


    def records(self, paths: Sequence[str]) -> list[Result]:
        """The batch's results as records, result ``k`` under ``paths[k]``."""
        out: list[Result | None] = [None] * self.count
        for k, skip in self.skipped:
            out[k] = SkippedFile(paths[k], skip.stage, skip.reason, skip.failure)
        sketch = self.sketch
        signature = self.signature
        for r, k in enumerate(self.at.tolist()):
            digest = self.odd_digests.get(r) or self.digest[r].tobytes().hex()
            out[k] = FingerprintedDocument(
                paths[k], int(self.fingerprint[r]), self.encoding[r], self.encoding_source[r],
                int(self.size[r]), int(self.token_count[r]), int(self.feature_count[r]), digest,
                int(self.chars[r]), sketch[r],
                signature[r].astype("<u8").tobytes() if signature is not None else b"",
            )  # fmt: skip
        return [r for r in out if r is not None]


def hash_column(file_hashes: Sequence[bytes]) -> np.ndarray:
    """``(len, 16)`` uint8 of 16-byte hashes, zeros for ``b""`` (a file not read)."""
    zero = bytes(_DIGEST_BYTES)
    raw = b"".join(h if len(h) == _DIGEST_BYTES else zero for h in file_hashes)
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(file_hashes), _DIGEST_BYTES).copy()


class DocumentTable(Sequence[FingerprintedDocument]):
    """Fingerprinted documents as columns (see the module docstring). Row ``i`` is document
    ``i``; ``paths[i]`` its path. Built with ``DocumentTable.of`` from records, or filled
    batch by batch (``TableBuilder``)."""

    def __init__(
        self,
        paths: Sequence[str],
        fingerprint: np.ndarray,
        size: np.ndarray,
        token_count: np.ndarray,
        feature_count: np.ndarray,
        chars: np.ndarray,
        digest: np.ndarray,
        encoding: np.ndarray,
        encodings: Sequence[tuple[str, str]],
        sketch: Sequence[bytes],
        signature: list[bytes] | None = None,
        odd_digests: dict[int, str] | None = None,
    ) -> None:
        self.paths = paths
        self.fingerprint = fingerprint
        self.size = size
        self.token_count = token_count
        self.feature_count = feature_count
        self.chars = chars
        self.digest = digest
        # (encoding, encoding_source) of row i: encodings[encoding[i]]
        self.encoding = encoding
        self.encodings = encodings
        self.sketch = sketch
        self.signature = signature
        self.odd_digests = odd_digests or {}

    @classmethod
    def of(cls, docs: Sequence[FingerprintedDocument]) -> DocumentTable:
        """``docs`` as a table (itself when it is one)."""
        if isinstance(docs, DocumentTable):
            return docs
        batch = FingerprintBatch.pack(docs)
        builder = TableBuilder([d.path for d in docs], signatures=batch.signature is not None)
        builder.put(np.arange(len(docs), dtype=np.int64), batch)
        return builder.table()

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> FingerprintedDocument: ...

    @overload
    def __getitem__(self, index: slice) -> list[FingerprintedDocument]: ...

    def __getitem__(
        self, index: int | slice
    ) -> FingerprintedDocument | list[FingerprintedDocument]:
        if isinstance(index, slice):
            return [self._record(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("document table index out of range")
        return self._record(index)

    def __iter__(self) -> Iterator[FingerprintedDocument]:
        # A slice of rows at a time, each column turned into a list at once (a renderer
        # walks every document: 10^6 records).
        for start in range(0, len(self), _ITER_SLICE):
            stop = min(start + _ITER_SLICE, len(self))
            hexes = self.digest[start:stop].tobytes().hex()
            hashes = [hexes[k : k + 32] for k in range(0, len(hexes), 32)]
            for row, text in self.odd_digests.items():
                if start <= row < stop:
                    hashes[row - start] = text
            pairs = [self.encodings[c] for c in self.encoding[start:stop].tolist()]
            signatures = (
                self.signature[start:stop] if self.signature is not None
                else [b""] * (stop - start)
            )  # fmt: skip
            yield from map(
                FingerprintedDocument,
                self.paths[start:stop],
                self.fingerprint[start:stop].tolist(),
                [p[0] for p in pairs],
                [p[1] for p in pairs],
                self.size[start:stop].tolist(),
                self.token_count[start:stop].tolist(),
                self.feature_count[start:stop].tolist(),
                hashes,
                self.chars[start:stop].tolist(),
                self.sketch[start:stop],
                signatures,
            )

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same records (a tuple of them, another table)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def content_hash(self, i: int) -> str:
        odd = self.odd_digests.get(i)
        return odd if odd is not None else self.digest[i].tobytes().hex()

    def digest_keys(self) -> np.ndarray:
        """int64 per row, equal for equal content hashes (the first 8 bytes of the digest;
        a hash kept as given gets the Python hash of its text): equal keys are then
        confirmed with ``content_hash``."""
        keys = self.digest[:, :8].copy().view("<i8").ravel() if len(self) else np.empty(0, "<i8")
        for row, text in self.odd_digests.items():
            keys[row] = hash(text)
        return keys.astype(np.int64)

    def _record(self, i: int) -> FingerprintedDocument:
        encoding, source = self.encodings[int(self.encoding[i])]
        return FingerprintedDocument(
            self.paths[i], int(self.fingerprint[i]), encoding, source, int(self.size[i]),
            int(self.token_count[i]), int(self.feature_count[i]), self.content_hash(i),
            int(self.chars[i]), self.sketch[i],
            self.signature[i] if self.signature is not None else b"",
        )  # fmt: skip


class TableBuilder:
    """Fills a table of ``len(paths)`` rows as batches arrive in any order (``put`` the
    batch's fingerprinted documents at their rows), then ``table(rows)`` keeps the rows
    given (the files fingerprinted, in file order). ``signatures``: keep the MinHash
    signatures (otherwise they are dropped as they arrive)."""

    def __init__(self, paths: Sequence[str], *, signatures: bool = False) -> None:
        n = len(paths)
        self.paths = paths
        self.fingerprint = np.zeros(n, dtype=np.uint64)
        self.size = np.zeros(n, dtype=np.int64)
        self.token_count = np.zeros(n, dtype=np.int64)
        self.feature_count = np.zeros(n, dtype=np.int64)
        self.chars = np.zeros(n, dtype=np.int64)
        self.digest = np.zeros((n, _DIGEST_BYTES), dtype=np.uint8)
        self.encoding = np.zeros(n, dtype=np.int32)
        self._encodings: dict[tuple[str, str], int] = {}
        self.sketch: list[bytes] = [b""] * n
        self._keep_signatures = signatures
        self.signature: list[bytes] | None = None  # made when the first signature arrives
        self.odd_digests: dict[int, str] = {}
        self.filled = np.zeros(n, dtype=bool)

    def put(self, rows: np.ndarray, batch: FingerprintBatch) -> None:
        """The batch's fingerprinted documents at ``rows`` (one per document, in order)."""
        self.fingerprint[rows] = batch.fingerprint
        self.size[rows] = batch.size
        self.token_count[rows] = batch.token_count
        self.feature_count[rows] = batch.feature_count
        self.chars[rows] = batch.chars
        self.digest[rows] = batch.digest
        self.filled[rows] = True
        row_list = rows.tolist()
        codes = self._encodings
        for row, pair in zip(row_list, zip(batch.encoding, batch.encoding_source, strict=True),
                             strict=True):  # fmt: skip
            code = codes.get(pair)
            if code is None:
                code = codes[pair] = len(codes)
            self.encoding[row] = code
        sketch = self.sketch
        for row, value in zip(row_list, batch.sketch, strict=True):
            sketch[row] = value
        if self._keep_signatures and batch.signature is not None:
            if self.signature is None:
                self.signature = [b""] * len(self.paths)
            for row, signature in zip(row_list, batch.signature, strict=True):
                self.signature[row] = signature.tobytes()
        for r, text in batch.odd_digests.items():
            self.odd_digests[row_list[r]] = text

    def table(self, rows: np.ndarray | None = None, *, named: bool = False) -> DocumentTable:
        """The table of ``rows`` (default: every row filled), in that order. ``named``: every
        row is filled, and ``paths`` is the table's own sequence of names (made when asked
        for: a million rows of a dataset), not copied."""
        if rows is None:
            rows = np.flatnonzero(self.filled)
        encodings = sorted(self._encodings, key=self._encodings.__getitem__)
        if rows.size == len(self.paths) and bool((rows == np.arange(rows.size)).all()):
            # Every row, in order (every file fingerprinted): the columns as they are.
            return DocumentTable(
                self.paths if named else list(self.paths), self.fingerprint, self.size,
                self.token_count, self.feature_count, self.chars, self.digest, self.encoding,
                encodings, self.sketch, self.signature, dict(self.odd_digests),
            )  # fmt: skip
        row_list = rows.tolist()
        renumber = {row: k for k, row in enumerate(row_list)} if self.odd_digests else {}
        return DocumentTable(
            [self.paths[r] for r in row_list],
            self.fingerprint[rows],
            self.size[rows],
            self.token_count[rows],
            self.feature_count[rows],
            self.chars[rows],
            self.digest[rows],
            self.encoding[rows],
            encodings,
            [self.sketch[r] for r in row_list],
            [self.signature[r] for r in row_list] if self.signature is not None else None,
            {renumber[r]: t for r, t in self.odd_digests.items() if r in renumber},
        )
