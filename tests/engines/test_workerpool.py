"""simdup.engines.workerpool: every task done once, a dead worker's task redone, never a hang or an
orphan. The command-line cases (a worker SIGKILLed during a real ``-j2`` scan, SIGTERM, SIGHUP,
the parent killed) are in tests/contract/test_bad_inputs.py."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from simdup.engines.workerpool import MAX_ATTEMPTS, WorkerPool, WorkerState, describe_exit
from simdup.errors import WorkerError

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the tests' work functions "
    "are defined in a test module, which a spawned worker would import anew"
)

MARKS: Path | None = None  # folder where work functions leave a mark per attempt


def square(n: int) -> int:
    return n * n


def die_once_on_3(n: int) -> int:
    """SIGKILL its own worker the first time it meets task 3 (as the OOM killer would)."""
    assert MARKS is not None
    mark = MARKS / f"attempt-{n}-{os.getpid()}"
    mark.touch()
    if n == 3 and len(list(MARKS.glob("attempt-3-*"))) == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def always_die_on_3(n: int) -> int:
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def raise_on_3(n: int) -> int:
    if n == 3:
        raise ValueError("three is not allowed")
    return n


def failing_initializer() -> None:
    raise RuntimeError("no dictionary")


def _children_alive() -> list[int]:
    return [p.pid for p in multiprocessing.active_children()]


def run(work, tasks, jobs=2, **kw):  # type: ignore[no-untyped-def]
    with WorkerPool(work, jobs, **kw) as pool:
        return dict(pool.results(tasks))


def test_every_task_is_done_once() -> None:
    """Each task's result comes back once, under its index."""
    assert run(square, list(range(50))) == {i: i * i for i in range(50)}
    assert _children_alive() == []


def test_more_workers_than_tasks_and_no_tasks() -> None:
    """Only as many workers as there are tasks; no tasks: nothing to do, nothing started."""
    assert run(square, [7], jobs=4) == {0: 49}
    assert run(square, [], jobs=4) == {}


def test_a_worker_killed_on_a_task_is_replaced_and_the_task_redone(tmp_path: Path) -> None:
    """SIGKILL of the worker holding task 3: a fresh worker does it again; the results are
    complete and the same as without the kill."""
    global MARKS
    MARKS = tmp_path
    try:
        got = run(die_once_on_3, list(range(12)))
    finally:
        MARKS = None
    assert got == {i: i * i for i in range(12)}
    attempts = sorted(p.name for p in tmp_path.glob("attempt-3-*"))
    assert len(attempts) == 2, attempts  # tried twice, in two different processes
    assert _children_alive() == []


def test_a_task_that_kills_every_worker_fails_clearly_and_quickly() -> None:
    """A task whose worker dies MAX_ATTEMPTS times ends the run with WorkerError naming the
    signal; no hang, no worker left."""
    started = time.monotonic()
    with pytest.raises(WorkerError, match=r"killed by SIGKILL .*task 3.*2 times"):
        run(always_die_on_3, list(range(8)), describe=lambda n: f"task {n}")
    assert time.monotonic() - started < 30
    assert MAX_ATTEMPTS == 2
    assert _children_alive() == []


def test_an_exception_in_work_is_a_worker_error() -> None:
    """A bug in the work function is reported with its message, not as a hang."""
    with pytest.raises(WorkerError, match="ValueError: three is not allowed"):
        run(raise_on_3, list(range(8)))
    assert _children_alive() == []


def test_an_initializer_that_fails_is_a_worker_error() -> None:
    """A worker that cannot start says why."""
    with pytest.raises(WorkerError, match="start-up.*RuntimeError: no dictionary"):
        run(square, list(range(8)), initializer=failing_initializer)
    assert _children_alive() == []


def test_leaving_early_stops_every_worker() -> None:
    """The consumer stops after the first result (an exception, Ctrl-C): no worker is left."""
    with WorkerPool(square, 2) as pool:
        for _ in pool.results(list(range(100))):
            break
    assert _children_alive() == []


def test_describe_exit() -> None:
    """Exit statuses read as a person would say them."""
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(-15) == "killed by SIGTERM"
    assert describe_exit(3) == "exited with status 3"
    assert describe_exit(None) == "stopped answering"


def test_worker_state_is_set_once_and_read_by_tasks_in_the_workers() -> None:
    """What the initializer sets (here, before fork and in each worker) every task reads;
    read before it is set, it says which work was not set up."""
    fresh: WorkerState[int] = WorkerState("counting")
    with pytest.raises(RuntimeError, match="counting"):
        fresh.get()
    _OFFSET.set(1000)
    with WorkerPool(_add_offset, 2, initializer=_OFFSET.set, initargs=(7,)) as pool:
        got = sorted(result for _, result in pool.results(range(5)))
    assert got == [7, 8, 9, 10, 11]
    assert _OFFSET.get() == 1000  # the parent's own is its own
    _OFFSET.clear()
    with pytest.raises(RuntimeError):
        _OFFSET.get()


def _add_offset(n: int) -> int:
    return n + _OFFSET.get()


_OFFSET: WorkerState[int] = WorkerState("adding an offset")
