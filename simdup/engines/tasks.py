"""Tasks: a function over items, the results in the items' order, run here or on a cluster.

The seam for work that is neither fingerprinting files (``base.Engine``) nor a verb's chunks of
rows (``rows.RowEngine``): ``index add --semantic`` reads and cuts files into sentences, then
embeds runs of sentences. ``LocalTasks`` runs each item in this process when it is asked for;
``distributed.tasks.DaskTasks`` on the workers of a cluster, a few items ahead. The function
and the items travel to the workers pickled: a module-level function and plain data. The same
function over the same items gives the same results wherever it runs, so the caller decides
everything that could differ (how items are cut) before handing them over.

``Origin`` is where the client runs, for a task that reads files where it is run.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from ..__about__ import __version__
from ..params import ALGORITHM_VERSION
from ..records import SourceFile
from .workerpool import WorkerState as WorkerState  # what a verb's worker holds for its tasks
from .workerpool import chunks_in_order

Item = TypeVar("Item")
Output = TypeVar("Output")

# What a worker must run to take part: the same simdup and algorithm as the client.
VERSION = (__version__, ALGORITHM_VERSION)


class Tasks(Protocol):
    """``func`` of each of ``items``, in their order."""

    def map(self, func: Callable[[Item], Output], items: Iterable[Item]) -> Iterator[Output]: ...


def chunks_on_cores(
    work: Callable[[Item], Output], chunks: Iterable[Item], jobs: int, *,
    initializer: Callable[..., None], initargs: tuple[object, ...] = (),
    describe: Callable[[Item], str] = repr,
) -> Iterator[Output]:  # fmt: skip
    """``work`` of each chunk, in the chunks' order, by ``jobs`` forked worker processes of
    the supervised pool (``workerpool.chunks_in_order``: in this process with one job or one
    chunk); ``initializer(*initargs)`` runs here first, so that the workers share what it
    sets (a verb's ``WorkerState``)."""
    return chunks_in_order(work, chunks, jobs, initializer=initializer, initargs=initargs,
                           describe=describe)  # fmt: skip


class LocalTasks:
    """Each item's task run in this process, when its result is asked for."""

    def map(self, func: Callable[[Item], Output], items: Iterable[Item]) -> Iterator[Output]:
        return map(func, items)


@dataclass(frozen=True)
class Origin:
    """Where the client runs: relative paths are resolved against its working folder, and
    file identities (device, inode) hold only on its host."""

    cwd: str
    host: str
    version: tuple[str, str] = VERSION

    @classmethod
    def here(cls) -> Origin:
        return cls(os.getcwd(), socket.gethostname())

    def path(self, path: str) -> str:
        """``path`` as this process opens it: a relative one from the client's folder (as
        given where that is this process's folder, so that messages name it as given)."""
        if os.path.isabs(path) or os.getcwd() == self.cwd:
            return path
        return os.path.join(self.cwd, path)

    def source(self, source: SourceFile) -> SourceFile:
        """``source`` as this process reads it: its path from the client's folder, its
        identity checked only on the client's host (an NFS mount has another device number
        on each machine)."""
        local = replace(source, path=self.path(source.path))
        if socket.gethostname() != self.host:
            local = replace(local, device=0, inode=0)
        return local
