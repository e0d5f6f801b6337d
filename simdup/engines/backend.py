"""Where a scan's files are listed, fingerprinted and joined: the one object ``scan()`` takes.

A ``Backend`` is three choices a scan makes: how it finds its files (``find``), what
fingerprints them (``engine``, made from the scan's options once the files are counted: the
method, and with it the parameters, depends on their number) and where candidates are joined
and verified (``join``; None: in this process). The default is this machine's; a Dask
cluster, a store of fingerprints or a given engine replace one choice or more (``cli.scan``
builds them), and the scan cache wraps a backend (``scanning.cache.CachedBackend``).

A scan asks its backend for a ``ScanRun`` once it knows its files and settings (``start``):
the run's four steps are what a scan does with them, so a backend that remembers scans
changes a scan by changing its run, never by a branch in ``scan()``. ``reuse``: a whole result
known already (else None); ``engine``: what fingerprints the files; ``join``: where the
fingerprinted documents are joined; ``save``: what is kept of the finished scan.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..document_table import DocumentTable
from ..join.finish import Joined
from ..join.local import LocalJoin
from ..join.verify import VerifiedPair
from ..readers.discovery import Discovery, DiscoveryOptions, find_files
from ..records import SkippedFile
from . import make_engine
from .base import Engine
from .warmup import discover_while_learning

if TYPE_CHECKING:
    from ..join import Join
    from ..options import ScanOptions
    from ..records import ScanResult, SourceFile
    from .rows import RowEngine


@dataclass
class Fingerprinted:
    """What the engine made of a scan's files: the documents in discovery order (``table``,
    those of ``files[positions]``), every file dropped on the way (``skips``, discovery's
    first; ``dropped``: the engine's, with their file indexes), the documents' MinHash band
    keys when taken, and the hash of each file's bytes (zeros where not known)."""

    table: DocumentTable
    skips: list[SkippedFile]
    keys: np.ndarray | None
    positions: np.ndarray
    dropped: list[tuple[int, SkippedFile]]
    file_hash: np.ndarray


def local_engine(options: ScanOptions) -> Engine:
    """The engine of this machine for a scan's resolved options (serial, or a process pool
    for ``options.jobs``)."""
    return make_engine(options.features, max_size=options.discovery.max_size, jobs=options.jobs)


@dataclass(frozen=True)
class Reused:
    """A scan's whole result known before any file is read: its documents, the skip records
    of the files discovery found, the candidates counted when it was made, and its pairs and
    clusters."""

    docs: DocumentTable
    skips: list[SkippedFile]
    candidates: int
    joined: Joined


class ScanRun:
    """One scan's use of a backend (see the module docstring): with no memory, nothing is
    reused or saved, the files are not kept past fingerprinting, and the join is the backend's
    or this process's."""

    def __init__(self, engine: Engine, join: Join | None, band_keys: bool) -> None:
        self.engine = engine
        self._join = join
        # A MinHash scan joined here takes its documents' band keys as they arrive and keeps
        # their records without signatures (``collect_fingerprints``).
        self.band_keys = band_keys

    def reuse(self, files: Sequence[SourceFile]) -> Reused | None:
        return None

    def kept(self, files: Sequence[SourceFile]) -> Sequence[SourceFile] | None:
        """``files`` when ``save`` needs them, else None: what the rest of a scan needs of
        discovery is its counts (a million ``SourceFile`` records: 180 MB)."""
        return None

    def join(self, got: Fingerprinted) -> Join:
        """Where ``got``'s documents are joined: the backend's join, else one here, which is
        handed the band keys (``got`` lets go of them: the join frees them when it can)."""
        if self._join is not None:
            return self._join
        keys, got.keys = got.keys, None
        return LocalJoin(keys)

    def save(
        self,
        files: Sequence[SourceFile] | None,
        got: Fingerprinted,
        result: ScanResult,
        verified: Sequence[VerifiedPair],
    ) -> None:
        return None


@dataclass(frozen=True)
class Backend:
    """See the module docstring. ``local``: the files are fingerprinted in this process or in
    processes forked from it, so that, with the default ``find``, discovery may walk in a
    child while this process learns the corpus's words (``engines.warmup``)."""

    find: Callable[[list[str], DiscoveryOptions], Discovery] = find_files
    engine: Callable[[ScanOptions], Engine] = local_engine
    join: Join | None = None
    local: bool = True
    # The engine of datasets of rows (``scan --records``; None: worker processes here).
    row_engine: RowEngine | None = None

    @classmethod
    def with_engine(cls, engine: Engine) -> Backend:
        """This machine's discovery and join, the files fingerprinted by ``engine``."""
        return cls(engine=lambda options: engine, local=False)

    def wrapping_engine(self, wrap: Callable[[Engine, ScanOptions], Engine]) -> Backend:
        """This backend with its engine wrapped (``scan --passages`` has the local engine
        make each text's passage tokens as it fingerprints it)."""
        inner = self.engine
        return replace(self, engine=lambda options: wrap(inner(options), options))

    def discover(self, roots: list[str], options: ScanOptions) -> Discovery:
        """The files under ``roots``: walked in a child while this process learns their words
        (``engines.warmup``) when it will fingerprint them and the walk is its own, else found
        by ``find``."""
        if self.local and self.find is find_files and self.learns(roots, options):
            return discover_while_learning(roots, options.discovery, options.features)
        return self.find(roots, options.discovery)

    def learns(self, roots: Sequence[str], options: ScanOptions) -> bool:
        """Whether learning the words of the files found pays: for folders (a file named
        alone is read at once)."""
        return any(os.path.isdir(root) for root in roots)

    def start(
        self, roots: Sequence[str], options: ScanOptions, settings: dict[str, Any], *,
        keep_outcome: bool, keep_signatures: bool,
    ) -> ScanRun:  # fmt: skip
        """One scan of ``roots`` with its resolved ``options`` and ``settings`` (its
        ``ScanOptions.describe``); ``keep_outcome``: its pairs are among its own files (not
        with a reference index); ``keep_signatures``: its MinHash signatures are kept."""
        engine = self.engine(options)
        if engine.params != options.features:
            raise ValueError("the engine's parameters are not the scan's (options.features)")
        band_keys = options.method == "minhash" and self.join is None and not keep_signatures
        return ScanRun(engine, self.join, band_keys)


LOCAL = Backend()
