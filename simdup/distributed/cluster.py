"""A connection to a Dask cluster: an existing scheduler, or a local cluster started for the run.

Every worker must run the simdup version of the client (and so the same algorithm version),
or the fingerprints computed there could differ from those computed here: ``connect`` asks
each worker, and each task checks again (``check_version``), since workers may join later.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

from ..engines import default_jobs
from ..engines.tasks import VERSION as VERSION  # what a worker must run (re-exported)
from ..errors import SimdupError
from . import require_dask

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
# Seconds to wait for a scheduler to answer and for its first worker to appear.
CONNECT_TIMEOUT = 30.0


class ClusterError(SimdupError):
    """The Dask cluster cannot run this scan (no workers, another simdup version there)."""


class VersionMismatch(ClusterError):
    """A worker runs another simdup (or algorithm) version than the client."""


def worker_version() -> tuple[str, str]:
    """``(simdup version, algorithm version)`` of the process it runs in (a worker)."""
    return VERSION


def check_version(expected: tuple[str, str]) -> None:
    """Raise ``VersionMismatch`` when this process (a worker) runs another version."""
    if tuple(expected) != VERSION:
        raise VersionMismatch(_mismatch("a worker", VERSION, expected))


def worker_count(client: Any) -> int:
    """How many workers the scheduler of ``client`` has now (all of them listed: the
    default lists only a few)."""
    return len(client.scheduler_info(n_workers=-1).get("workers", {}))


def task_result(future: Any) -> Any:
    """The result of a finished Dask task; a task that failed ends the run (``ClusterError``
    naming why; ``VersionMismatch`` as raised)."""
    try:
        return future.result()
    except VersionMismatch:
        raise
    except Exception as exc:
        raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from exc


def _mismatch(who: str, found: tuple[str, str], expected: tuple[str, str]) -> str:
    return (
        f"{who} runs simdup {found[0]} ({found[1]}) but this client runs simdup {expected[0]} "
        f"({expected[1]}): install the same simdup version on the client and every worker"
    )


@dataclass
class Connection:
    """A ``distributed.Client``, and the local cluster started for it (None: a scheduler given)."""

    client: Any
    local_cluster: Any = None
    address: str = ""
    closers: list[Any] = field(default_factory=list)

    @property
    def dashboard(self) -> str | None:
        """The dashboard's address, when the scheduler serves one."""
        try:
            link = self.client.dashboard_link
        except Exception:  # no dashboard service (bokeh not installed there)
            return None
        return str(link) if link else None

    def workers(self) -> int:
        return worker_count(self.client)

    def close(self) -> None:
        self.client.close()
        if self.local_cluster is not None:
            self.local_cluster.close()


def connect(
    address: str | None = None,
    *,
    workers: int | None = None,
    threads_per_worker: int = 1,
    timeout: float = CONNECT_TIMEOUT,
) -> Connection:
    """A client of the scheduler at ``address`` (else ``$DASK_SCHEDULER_ADDRESS``); with
    neither, a local cluster of ``workers`` processes (default: one per core) on 127.0.0.1.

    Raises ``MissingExtraError`` without the extra, ``ClusterError`` when the scheduler does
    not answer or has no worker within ``timeout`` seconds, ``VersionMismatch`` when a worker
    runs another simdup version.
    """
    require_dask()
    from distributed import Client, LocalCluster

    # The peer-to-peer shuffle logs each shuffle's start and end at WARNING level.
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    address = address or os.environ.get(SCHEDULER_ENV) or None
    local = None
    try:
        if address:
            client = Client(address, timeout=timeout)
        else:
            # One thread per worker process: segmentation holds the GIL.
            local = LocalCluster(
                n_workers=workers or default_jobs(),
                threads_per_worker=threads_per_worker,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR,
            )
            client = Client(local)
    except OSError as exc:  # includes asyncio/tornado time-outs and refused connections
        if local is not None:
            local.close()
        raise ClusterError(f"cannot connect to the Dask scheduler {address}: {exc}") from exc
    connection = Connection(client, local, str(client.scheduler.address))
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception as exc:
        connection.close()
        raise ClusterError(
            f"the Dask scheduler {connection.address} has no worker after {timeout:g} s"
        ) from exc
    try:
        check_workers(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def check_workers(connection: Connection) -> None:
    """Raise ``VersionMismatch`` unless every worker runs this client's simdup version."""
    try:
        found = connection.client.run(worker_version)
    except ImportError as exc:
        raise VersionMismatch(
            f"a worker cannot import simdup ({exc}): install the same simdup version on the "
            "client and every worker"
        ) from exc
    for worker, version in sorted(found.items()):
        if tuple(version) != VERSION:
            raise VersionMismatch(_mismatch(f"worker {worker}", tuple(version), VERSION))
