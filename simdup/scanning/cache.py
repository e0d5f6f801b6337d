"""The scan cache as a backend: reuse what is known, fingerprint what changed, remember.

``CachedBackend`` wraps a backend's choices with a ``ScanCache``: its runs (``CachedRun``) are
the backend's run with one scan's use of the cache (``CachedScan``) in each step.

``CachedScan`` loads what the cache remembers under the scan's key and matches it with the
files discovery found:

* a file whose path, size, modification time and inode are those remembered (and whose time
  is older than when it was last looked at, by more than ``RACY_NS``) is a *hit*: its record
  is reused and the file is not opened;
* a file at a remembered path whose time or size changed is read and hashed here; the same
  bytes (a touched file, a fresh checkout) are a hit too;
* everything else is a *miss* for the engine (``CachedEngine``), whose workers fingerprint
  it and hash its bytes; their batches are journaled as they come.

When every file is an unchanged hit and the settings are those of the remembered scan, its
result is reused as it is (``reuse``): no file is read and nothing is joined. Otherwise the
join starts from the remembered pairs (``join``: ``join.incremental``): only the pairs that
involve a changed file are looked for. The scan's snapshot is written at the end (``save``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import xxhash

from ..document_table import DocumentTable, FingerprintBatch
from ..engines import BandLayout, Batches, Engine, Progress, Result, Sink, TextTask
from ..engines.backend import Backend, Fingerprinted, Reused, ScanRun
from ..engines.batching import PACKED_BATCH, batches_of, in_file_order
from ..join import Join
from ..join.finish import Joined
from ..join.incremental import IncrementalJoin, Previous
from ..join.local import LocalJoin
from ..join.verify import VerifiedPair, band_layout, duplicate_pair
from ..options import ScanOptions, resolve_options
from ..readers import files as file_io
from ..readers import readers_key
from ..records import ScanResult, SkippedFile, SourceFile, SourceFiles
from ..store.cache import Journal, Remembered, ScanCache, scan_key
from ..store.snapshot import DOC, Blobs, Rows, SavedJoin

# A file modified this close to the moment it was last looked at may have been modified again
# within the same timestamp tick (2 s on FAT, a clock tick elsewhere) with the same size: its
# size and time prove nothing, so it is checked by content ("racy git") until it is older.
RACY_NS = 2_000_000_000


def _settings_key(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Matched:
    """The files of a scan against the remembered rows: ``row[i]`` is the row whose record
    file ``i`` reuses or would (-1: none), ``hit[i]`` whether it is reused, ``in_place[i]``
    whether that row is the file's own (its path: not a renamed or copied file's), ``hashed``
    the hashes of the files read here, by file index."""

    row: np.ndarray
    hit: np.ndarray
    in_place: np.ndarray
    hashed: dict[int, bytes]


def cached_scan_key(params_key: str, bands: BandLayout | None, roots: Sequence[str]) -> str:
    """The key of a scan of ``roots`` in the cache: its fingerprint parameters
    (``FeatureParams.cache_key``), band layout and roots, and the readers (their versions and
    libraries' make the texts)."""
    return scan_key(params_key + readers_key(), bands, roots)


@dataclass(frozen=True)
class CachedBackend(Backend):
    """A backend whose scans are remembered in ``scan_cache`` (see the module docstring); the
    other choices are the wrapped backend's (``around``). A scan joined elsewhere (a Dask
    cluster) or keeping its MinHash signatures is not remembered: its run is the wrapped
    backend's."""

    scan_cache: ScanCache | None = None

    @classmethod
    def around(cls, inner: Backend, cache: ScanCache) -> CachedBackend:
        return cls(**{f.name: getattr(inner, f.name) for f in fields(Backend)}, scan_cache=cache)

    def learns(self, roots: Sequence[str], options: ScanOptions) -> bool:
        """Not for folders the cache knows: a rescan's files are mostly answered by the cache,
        and learning their words would be wasted."""
        if not super().learns(roots, options):
            return False
        if self.scan_cache is None:
            return True
        methods = ("simhash", "minhash") if options.method == "auto" else (options.method,)
        for method in methods:
            resolved = resolve_options(options, {"method": method})
            bands = band_layout(resolved) if method == "minhash" else None
            if self.scan_cache.knows(cached_scan_key(resolved.features.cache_key(), bands, roots)):
                return False
        return True

    def start(
        self, roots: Sequence[str], options: ScanOptions, settings: dict[str, Any], *,
        keep_outcome: bool, keep_signatures: bool,
    ) -> ScanRun:  # fmt: skip
        run = super().start(roots, options, settings, keep_outcome=keep_outcome,
                            keep_signatures=keep_signatures)  # fmt: skip
        if self.scan_cache is None or self.join is not None or keep_signatures:
            return run
        memory = CachedScan(
            self.scan_cache, roots, options.features.cache_key(), settings,
            bands=band_layout(options) if options.method == "minhash" else None,
            keep_outcome=keep_outcome, max_size=options.discovery.max_size,
        )  # fmt: skip
        return CachedRun(run.engine, memory, run.band_keys)


class CachedRun(ScanRun):
    """One scan's run with the cache (``CachedScan``) in each of its steps."""

    def __init__(self, engine: Engine, memory: CachedScan, band_keys: bool) -> None:
        super().__init__(memory.engine(engine), None, band_keys)
        self.memory = memory

    def reuse(self, files: Sequence[SourceFile]) -> Reused | None:
        reused = self.memory.reuse(SourceFiles.of(files))
        if reused is None:
            return None
        docs, skips, outcome = reused
        pairs = sorted((duplicate_pair(docs, p) for p in outcome.verified()),
                       key=lambda p: (p.a, p.b))  # fmt: skip
        joined = Joined(tuple(pairs), tuple(outcome.clusters(docs.paths)))
        return Reused(docs, skips, int(outcome.stats.get("candidates", 0)), joined)

    def kept(self, files: Sequence[SourceFile]) -> Sequence[SourceFile] | None:
        return files

    def join(self, got: Fingerprinted) -> Join:
        return self.memory.join(got.positions, got.keys)

    def save(
        self,
        files: Sequence[SourceFile] | None,
        got: Fingerprinted,
        result: ScanResult,
        verified: Sequence[VerifiedPair],
    ) -> None:
        assert files is not None  # ``kept``
        self.memory.save(SourceFiles.of(files), got.table, got.positions, got.dropped,
                         got.file_hash, got.keys, result, verified)  # fmt: skip


class CachedScan:
    """One scan's use of ``cache`` (see the module docstring). ``roots``: what the scan
    scans; ``settings``: its ``ScanOptions.describe`` (a result is reused only for the same);
    ``bands``: the band layout of a MinHash scan (its band keys are remembered);
    ``keep_outcome``: remember the scan's pairs and clusters (not with ``--against``, whose
    pairs involve stored documents)."""

    def __init__(
        self,
        cache: ScanCache,
        roots: Sequence[str],
        params_key: str,
        settings: dict[str, Any],
        *,
        bands: BandLayout | None,
        keep_outcome: bool = True,
        max_size: int,
    ) -> None:
        self.cache = cache
        self.key = cached_scan_key(params_key, bands, roots)
        self.settings = settings
        self.bands = bands
        self.keep_outcome = keep_outcome
        self.max_size = max_size
        self.started_ns = time.time_ns()
        self.remembered: Remembered | None = cache.load(self.key)
        self.matched: Matched | None = None
        self._journal: Journal | None = None

    # ------------------------------------------------------------ matching

    def match(self, files: Sequence[SourceFile]) -> Matched:
        """Which files are hits (see the module docstring); computed once per scan."""
        if self.matched is not None:
            return self.matched
        found = SourceFiles.of(files)
        n = len(found)
        known = self.remembered.rows if self.remembered is not None else None
        if known is None or not len(known):
            none = np.zeros(n, bool)
            self.matched = Matched(np.full(n, -1, np.int64), none, none, {})
            return self.matched
        row = known.rows_of(found.paths).copy()
        in_place = row >= 0
        at = np.flatnonzero(in_place)
        r = row[at]
        same = (
            (known.size[r] == found.size[at])
            & (known.mtime_ns[r] == found.mtime_ns[at])
            & (known.inode[r] == found.inode[at])
            & (found.mtime_ns[at] != 0)
            & (found.mtime_ns[at] < known.checked_ns[r] - RACY_NS)
        )
        hit = np.zeros(n, dtype=bool)
        hit[at[same]] = True
        hashed: dict[int, bytes] = {}
        # Touched or racy files at a remembered path, and files at new paths (renamed,
        # copied): read and hashed here; the same bytes are the same record.
        by_hash: dict[bytes, int] | None = None
        for i in np.flatnonzero(~hit).tolist():
            try:
                data = file_io.read_bytes(found[i], self.max_size)
            except (OSError, file_io.ReadFailure):
                continue  # the engine meets the same trouble and records it
            digest = xxhash.xxh3_128_digest(data)
            hashed[i] = digest
            k = int(row[i])
            if k < 0:
                if by_hash is None:
                    by_hash = {h.tobytes(): j for j, h in enumerate(known.file_hash)}
                    by_hash.pop(bytes(16), None)  # rows whose bytes were never read
                k = row[i] = by_hash.get(digest, -1)
            if k >= 0 and digest == known.file_hash[k].tobytes():
                hit[i] = True
                self.cache.reread += 1
        self.cache.hits += int(hit.sum())
        self.cache.misses += n - int(hit.sum())
        self.matched = Matched(row, hit, in_place, hashed)
        return self.matched

    # ------------------------------------------------------------ the whole result

    def reuse(
        self, files: SourceFiles
    ) -> tuple[DocumentTable, list[SkippedFile], SavedJoin] | None:
        """The remembered documents, skip records and outcome, when every file is an
        unchanged hit of the remembered scan (same files, in the same order) and its settings
        are this scan's; else None."""
        remembered = self.remembered
        if remembered is None or remembered.outcome is None or not self.keep_outcome:
            return None
        if _settings_key(remembered.outcome.settings) != _settings_key(self.settings):
            return None
        rows = remembered.rows
        if len(files) != remembered.outcome_rows or len(rows) != len(files):
            return None
        matched = self.match(files)
        if matched.hashed or not bool(matched.hit.all()):
            return None
        if not bool((matched.row == np.arange(len(files))).all()):
            return None
        docs = np.flatnonzero(rows.kind == DOC)
        table = _table_of(rows, docs)
        skips = [
            SkippedFile(rows.paths[r], *rows.skips[int(rows.skip[r])])
            for r in np.flatnonzero(rows.kind != DOC).tolist()
        ]
        return table, skips, remembered.outcome

    # ------------------------------------------------------------ the engine and the join

    def engine(self, inner: Engine) -> CachedEngine:
        return CachedEngine(inner, self)

    def join(self, docs_positions: np.ndarray, keys: np.ndarray | None) -> Join:
        """The join of this scan: from the remembered pairs when the remembered scan had the
        same settings (only pairs involving a changed document are looked for), else the
        whole join. ``docs_positions``: the file index of each fingerprinted document."""
        remembered, matched = self.remembered, self.matched
        usable = (
            remembered is not None
            and remembered.outcome is not None
            and matched is not None
            and _settings_key(remembered.outcome.settings) == _settings_key(self.settings)
        )
        if not usable:
            return LocalJoin(keys)
        assert remembered is not None and matched is not None and remembered.outcome is not None
        rows = remembered.rows
        # The remembered scan's documents: its snapshot's rows of kind DOC, numbered in order.
        own = rows.kind[: remembered.outcome_rows] == DOC
        doc_number = np.full(len(rows), -1, dtype=np.int64)
        doc_number[np.flatnonzero(own)] = np.arange(int(own.sum()))
        file_row = matched.row[docs_positions]
        # A renamed or copied file's pairs are looked for anew (another file may hold the
        # same remembered record).
        reused = matched.hit[docs_positions] & matched.in_place[docs_positions]
        previous_doc = np.where(reused, doc_number[np.where(file_row >= 0, file_row, 0)], -1)
        outcome = remembered.outcome
        doc_rows = np.flatnonzero(own)
        band_keys = rows.keys()
        previous = Previous(
            fingerprint=rows.fingerprint[doc_rows], chars=rows.chars[doc_rows],
            band_keys=None if band_keys is None else band_keys[doc_rows],
            pair_i=outcome.pair_i, pair_j=outcome.pair_j, pair_distance=outcome.pair_distance,
            pair_similarity=outcome.pair_similarity, pair_exact=outcome.pair_exact,
            candidates=int(outcome.stats.get("candidates", 0)),
        )  # fmt: skip
        return IncrementalJoin(previous, previous_doc, keys)

    # ------------------------------------------------------------ remembering

    def journal(self) -> Journal | None:
        if self._journal is None:
            self._journal = self.cache.journal(self.key)
        return self._journal

    def save(
        self,
        files: SourceFiles,
        table: DocumentTable,
        positions: np.ndarray,
        skipped: Sequence[tuple[int, SkippedFile]],
        file_hash: np.ndarray,
        keys: np.ndarray | None,
        result: ScanResult | None,
        verified: Sequence[VerifiedPair] = (),
    ) -> None:
        """Remember the scan: its files' rows and (``result``, unless ``keep_outcome`` is
        off) its ``verified`` pairs (numbered over ``table``) and clusters."""
        if not self.cache.usable:
            return
        rows = Rows.of_scan(files, table, positions, skipped, file_hash, self.started_ns, keys)
        outcome = None
        if result is not None and self.keep_outcome:
            stats = {k: v for k, v in result.stats.items() if k != "seconds"}
            outcome = SavedJoin.of(result.settings, stats, table.paths, verified,
                                 result.clusters)  # fmt: skip
        folded = self.remembered.journals if self.remembered is not None else []
        self.cache.save(self.key, rows, outcome, folded, self._journal)
        self._journal = None


def _table_of(rows: Rows, docs: np.ndarray) -> DocumentTable:
    """The remembered documents ``docs`` (rows of kind DOC) as a table, columns not copied
    where they need not be (the sketches stay in the snapshot until asked for)."""
    odd = {}
    if rows.odd_digests:
        renumber = {int(r): k for k, r in enumerate(docs.tolist())}
        odd = {renumber[r]: t for r, t in rows.odd_digests.items() if r in renumber}
    paths = rows.paths if docs.size == len(rows) else [rows.paths[r] for r in docs.tolist()]
    sketch = rows.sketch
    if docs.size != len(rows):
        sketch = sketch.subset(docs) if isinstance(sketch, Blobs) else [sketch[r] for r in docs]
    return DocumentTable(
        paths, rows.fingerprint[docs], rows.doc_size[docs], rows.token_count[docs],
        rows.feature_count[docs], rows.chars[docs], rows.digest[docs], rows.encoding[docs],
        list(rows.encodings), sketch, None, odd,
    )  # fmt: skip


class CachedEngine:
    """``inner``'s results for the files of ``scan``: the hits from the cache, the misses
    from ``inner`` (in one call, so that a process pool still shares them out), journaled as
    they arrive. Identical records, with the current paths."""

    def __init__(self, inner: Engine, scan: CachedScan) -> None:
        self.inner = inner
        self.scan = scan
        self.params = inner.params

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        paths = SourceFiles.of(files).paths
        done = (
            (int(index), result)
            for indexes, batch in self.completed_batches(files, progress)
            for index, result in zip(indexes.tolist(), batch.records(
                [paths[i] for i in indexes.tolist()]), strict=True)
        )  # fmt: skip
        yield from in_file_order(done, len(files))

    def completed_batches(
        self,
        files: Sequence[SourceFile],
        progress: Progress | None = None,
        bands: BandLayout | None = None,
    ) -> Batches:
        """The hits first, a batch of ``PACKED_BATCH`` at a time; then ``inner``'s batches of
        the misses as they come, each journaled."""
        found = SourceFiles.of(files)
        matched = self.scan.match(found)
        known = self.scan.remembered.rows if self.scan.remembered is not None else None
        hits = np.flatnonzero(matched.hit)
        total = len(found)
        if known is not None and hits.size:
            if bands is not None and known.keys() is None:
                raise RuntimeError("the remembered rows have no band keys for this scan")
            for start in range(0, hits.size, PACKED_BATCH):
                indexes = hits[start : start + PACKED_BATCH]
                rows = matched.row[indexes]
                yield indexes, known.batch(rows, [found.paths[i] for i in indexes.tolist()])
            if progress:
                progress(int(hits.size), total)
        missed = np.flatnonzero(~matched.hit)
        if not missed.size:
            return
        inner_progress = None
        if progress is not None:
            report, base = progress, int(hits.size)

            def inner_progress(done: int, _: int) -> None:
                report(base + done, total)

        work = found.take(missed)
        for indexes, batch in batches_of(self.inner, work, inner_progress, bands):
            positions = missed[indexes]
            # Opened once the first batch is back: worker processes forked before must not
            # hold its lock (they would keep a killed run's journal locked).
            journal = self.scan.journal()
            if journal is not None:
                journal.add(_rows_of_batch(found.take(positions), batch, self.scan.started_ns))
            yield positions, batch

    def with_task(self, task: TextTask, sink: Sink) -> CachedEngine | None:
        """The same cache in front of the inner engine running ``task``: the files the
        cache answers are not read, so ``task`` sees only the others (None when the inner
        engine cannot run it)."""
        inner = self.inner.with_task(task, sink)
        return None if inner is None else CachedEngine(inner, self.scan)


def _rows_of_batch(sources: SourceFiles, batch: FingerprintBatch, checked_ns: int) -> Rows:
    """The rows of a batch of fingerprinted files (for the journal): its columns as they
    are, with a code per (encoding, source) pair."""
    codes: dict[tuple[str, str], int] = {}
    encoding = np.array(
        [codes.setdefault(pair, len(codes))
         for pair in zip(batch.encoding, batch.encoding_source, strict=True)],
        dtype=np.int32,
    )  # fmt: skip
    paths = sources.paths
    table = DocumentTable(
        [paths[k] for k in batch.at.tolist()], batch.fingerprint, batch.size,
        batch.token_count, batch.feature_count, batch.chars, batch.digest, encoding,
        list(codes), batch.sketch, None, batch.odd_digests,
    )  # fmt: skip
    hashes = batch.file_hash
    if hashes is None:
        hashes = np.zeros((len(sources), 16), dtype=np.uint8)
    return Rows.of_scan(sources, table, batch.at, batch.skipped, hashes, checked_ns,
                        batch.band_keys)  # fmt: skip
