"""``DaskTasks``: the ``engines.tasks.Tasks`` of a cluster, a function over items run by its
workers, the results in the items' order.

Items are handed out as they are asked for, at most ``ahead`` (two per worker by default) in
flight: the client never holds more than those, whatever the number of items, and a lazy
stream of items (made from the results of another map) is read no faster than its results are
used. Every task checks that its worker runs the client's simdup; a task that fails ends the
run (``ClusterError``); a worker lost mid-run has its tasks run again elsewhere by Dask.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ..engines.tasks import VERSION
from .cluster import check_version, task_result, worker_count

Item = TypeVar("Item")
Output = TypeVar("Output")


def run_task(func: Callable[[Item], Output], item: Item, version: tuple[str, str]) -> Output:
    """``func(item)`` (run on a worker)."""
    check_version(version)
    return func(item)


class DaskTasks:
    """Tasks run by the workers of ``client`` (a ``distributed.Client``)."""

    def __init__(self, client: Any, ahead: int | None = None) -> None:
        self.client = client
        self.ahead = ahead

    def map(self, func: Callable[[Item], Output], items: Iterable[Item]) -> Iterator[Output]:
        ahead = self.ahead or 2 * max(1, worker_count(self.client))
        waiting: deque[Any] = deque()
        try:
            for item in items:
                waiting.append(self.client.submit(run_task, func, item, VERSION, pure=False))
                while len(waiting) >= ahead:
                    yield task_result(waiting.popleft())
            while waiting:
                yield task_result(waiting.popleft())
        finally:
            self.client.cancel(list(waiting))
