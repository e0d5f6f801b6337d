"""``simdup scan --engine dask`` (and ``dedup --engine dask``): one connection, and the
engines, join and file listing made on it. The CLI opens one per run (``open_session``) and
closes it when the run ends."""

from __future__ import annotations

from collections.abc import Sequence

from ..options import ScanOptions
from ..readers.discovery import Discovery, DiscoveryOptions, find_files
from .cluster import Connection, connect
from .engine import DaskEngine, is_url
from .join import DaskJoin
from .listing import find_urls
from .rows import DaskRowEngine
from .tasks import DaskTasks


class DaskSession:
    """A Dask cluster for one scan (``scheduler``: an address, else
    ``$DASK_SCHEDULER_ADDRESS``, else a local cluster of ``workers`` processes)."""

    def __init__(self, scheduler: str | None = None, *, workers: int | None = None) -> None:
        self.connection: Connection = connect(scheduler, workers=workers)
        self.join = DaskJoin(self.connection.client)

    @property
    def dashboard(self) -> str | None:
        return self.connection.dashboard

    def engine(self, options: ScanOptions) -> DaskEngine:
        return DaskEngine(options.features, options.discovery.max_size, self.connection.client)

    def row_engine(self) -> DaskRowEngine:
        """The engine of datasets of rows (``--records``, ``dedup``, ``decon``) on this
        cluster."""
        return DaskRowEngine(self.connection.client)

    def tasks(self) -> DaskTasks:
        """Other work on this cluster (``index add --semantic``: sentences read and embedded)."""
        return DaskTasks(self.connection.client)

    def find(self, paths: Sequence[str], options: DiscoveryOptions) -> Discovery:
        """Local paths as a local scan finds them; fsspec URLs listed by the workers."""
        local = [p for p in paths if not is_url(p)]
        urls = [p for p in paths if is_url(p)]
        found = find_files(local, options)
        if not urls:
            return found
        remote = find_urls(urls, options, self.connection.client)
        return Discovery(
            sorted([*found.files, *remote.files], key=lambda f: f.path),
            sorted(found.skipped + remote.skipped, key=lambda s: s.path),
            found.ignored,
        )

    def close(self) -> None:
        self.connection.close()
