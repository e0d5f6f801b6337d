"""Where a scan's files are listed, fingerprinted and joined: the one object ``scan()`` takes.

A ``Backend`` is three choices a scan makes: how it finds its files (``find``), what
fingerprints them (``engine``, made from the scan's options once the files are counted: the
method, and with it the parameters, depends on their number) and where candidates are joined
and verified (``join``; None: in this process, from what the scan cache remembers when there is
one). The default is this machine's; a Dask cluster, a store of fingerprints or a given engine
replace one choice or more (``cli.scan`` builds them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..readers.discovery import Discovery, DiscoveryOptions, find_files
from . import make_engine
from .base import Engine

if TYPE_CHECKING:
    from ..join import Join
    from ..options import ScanOptions


def local_engine(options: ScanOptions) -> Engine:
    """The engine of this machine for a scan's resolved options (serial, or a process pool
    for ``options.jobs``)."""
    return make_engine(options.features, max_size=options.discovery.max_size, jobs=options.jobs)


@dataclass(frozen=True)
class Backend:
    """See the module docstring. ``local``: the files are fingerprinted in this process or in
    processes forked from it, so that, with the default ``find``, discovery may walk in a
    child while this process learns the corpus's words (``engines.warmup``)."""

    find: Callable[[list[str], DiscoveryOptions], Discovery] = find_files
    engine: Callable[[ScanOptions], Engine] = local_engine
    join: Join | None = None
    local: bool = True

    @classmethod
    def with_engine(cls, engine: Engine) -> Backend:
        """This machine's discovery and join, the files fingerprinted by ``engine``."""
        return cls(engine=lambda options: engine, local=False)


LOCAL = Backend()
