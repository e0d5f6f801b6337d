"""A supervised pool of worker processes: every task is done once, or the run fails clearly.

``multiprocessing.Pool`` never notices a worker that died (killed by the kernel's OOM killer, a
crash in native code): the task it held is never answered and the parent waits forever.
``concurrent.futures`` notices but then fails every pending task and offers no way to stop its
workers at once. This pool gives each worker one task at a time over its own pipe and watches
the workers' process sentinels beside the pipes, so it always knows which task a dead worker
held: that task goes to a fresh worker, and a task that kills ``MAX_ATTEMPTS`` workers ends the
run with ``WorkerError``. Results are returned by task index, so a retried task gives the same
result in the same place as an uninterrupted run.

Workers ignore SIGINT (Ctrl-C is the parent's to handle: it stops them) and take SIGTERM's
default action (die quietly); on Linux they are also killed when the parent dies, so none is
ever orphaned.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from ..errors import WorkerError

Task = TypeVar("Task")
Result = TypeVar("Result")

# Attempts per task: the first, and one retry in a fresh worker (a worker killed by the OOM
# killer or a stray signal is not the task's fault; one killed twice on the same task is).
MAX_ATTEMPTS = 2
# Seconds a worker gets to exit after SIGTERM when the pool stops, before SIGKILL.
STOP_GRACE = 1.0
# Signals the parent handles (Ctrl-C, kill, a closed terminal); held while forking.
_PARENT_SIGNALS: frozenset[int] = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def pool_context() -> Any:
    """fork where available: workers share the dictionaries loaded in the parent."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _die_with_parent(parent: int) -> None:
    """Linux: have the kernel SIGKILL this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _worker_main(
    conn: Connection,
    parent: int,
    work: Callable[[Any], Any],
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in _PARENT_SIGNALS - {signal.SIGINT}:
        signal.signal(signum, signal.SIG_DFL)
    # Forked while the parent held these signals: take them again (SIGTERM must stop us).
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _PARENT_SIGNALS)
    _die_with_parent(parent)
    if initializer is not None:
        try:
            initializer(*initargs)
        except Exception as exc:
            with contextlib.suppress(OSError, EOFError):
                conn.send(("error", -1, f"{type(exc).__name__}: {exc}"))
            return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone or stopped the pool
        if message is None:
            return
        index, task = message
        try:
            reply: tuple[str, int, Any] = ("ok", index, work(task))
        except Exception as exc:  # a bug in ``work``: the parent reports it
            reply = ("error", index, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (OSError, EOFError):
            return
        except Exception as exc:  # the result could not be pickled
            with contextlib.suppress(OSError, EOFError):
                conn.send(("error", index, f"{type(exc).__name__}: {exc}"))


def describe_exit(exitcode: int | None) -> str:
    """'killed by SIGKILL', 'exited with status 3', ..."""
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"killed by {name}"
    return f"exited with status {exitcode}"


@dataclass(eq=False)
class _Worker:
    process: Any  # multiprocessing.Process of the pool's context
    conn: Connection
    task: int | None = None  # index of the task it holds
    hung_up: bool = False  # its end of the pipe is closed: it is exiting


Held = TypeVar("Held")


class WorkerState(Generic[Held]):
    """The one home of what a worker process holds for its tasks (a processor, an index, the
    run's options): set once by the pool's initializer, in the parent too before the workers
    fork (so that they share what it built, and serial work runs on the same), and read by
    every task. ``what`` names the work, for the error a task run before it is set raises."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._held: Held | None = None

    def set(self, held: Held) -> None:
        self._held = held

    def clear(self) -> None:
        self._held = None

    def get(self) -> Held:
        held = self._held
        if held is None:
            raise RuntimeError(f"{self.what}: this process was not set up for it")
        return held


@dataclass
class WorkerPool(Generic[Task, Result]):
    """``jobs`` processes running ``work`` on tasks; use as a context manager.

    ``initializer(*initargs)`` runs once in each worker before its first task.
    ``describe(task)`` names a task in error messages.
    """

    work: Callable[[Task], Result]
    jobs: int
    initializer: Callable[..., None] | None = None
    initargs: tuple[Any, ...] = ()
    describe: Callable[[Task], str] = repr
    _workers: list[_Worker] = field(default_factory=list)
    _retired: list[Any] = field(default_factory=list)  # processes to reap

    def __enter__(self) -> WorkerPool[Task, Result]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_worker(self) -> _Worker:
        ctx = pool_context()
        parent_end, child_end = ctx.Pipe(duplex=True)
        process = ctx.Process(
            target=_worker_main,
            args=(child_end, os.getpid(), self.work, self.initializer, self.initargs),
            daemon=True,
        )
        # A signal that lands while forking is raised inside fork handlers, where it is lost
        # or leaves a half-made process: hold the parent's signals until the child exists.
        held = _hold(_PARENT_SIGNALS)
        # The parent's objects (a million discovered files, say) stay out of the child's
        # garbage collections: a collection writes to every object it visits, which would copy
        # each page the child shares with the parent (workers grew to 550 MB at 10^6 files).
        # (Objects frozen already, by a scan that keeps them out of collections, stay frozen.)
        frozen_before = gc.get_freeze_count()
        gc.freeze()
        try:
            process.start()
            worker = _Worker(process, parent_end)
            self._workers.append(worker)
        finally:
            if not frozen_before:
                gc.unfreeze()
            _release(held)
        child_end.close()
        return worker

    def _retire(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.conn.close()
        self._retired.append(worker.process)

    def results(self, tasks: Iterable[Task]) -> Iterator[tuple[int, Result]]:
        """``(index, result)`` for every task, in the order they finish.

        ``tasks`` may be a stream: a task is taken from it only when a worker is free for it,
        and kept only until it is answered (a retry needs it), so a stream of 10^6 rows is
        never held whole. Raises ``WorkerError`` when a task's worker died ``MAX_ATTEMPTS``
        times or ``work`` raised.
        """
        source = enumerate(tasks)
        held: dict[int, Task] = {}  # taken and not answered yet
        retry: deque[int] = deque()  # held tasks whose worker died
        attempts: dict[int, int] = {}
        exhausted = False

        def take() -> int | None:
            nonlocal exhausted
            if retry:
                return retry.popleft()
            if exhausted:
                return None
            try:
                index, task = next(source)
            except StopIteration:
                exhausted = True
                return None
            held[index] = task
            return index

        def send(worker: _Worker, index: int) -> bool:
            try:
                worker.conn.send((index, held[index]))
            except OSError:  # it died after answering: its sentinel will retire it
                retry.appendleft(index)
                return False
            worker.task = index
            attempts[index] = attempts.get(index, 0) + 1
            return True

        def assign(worker: _Worker) -> None:
            worker.task = None
            index = take()
            if index is None:
                with contextlib.suppress(OSError):
                    worker.conn.send(None)  # no more work: exit
                return
            send(worker, index)

        def describe(index: int) -> str:
            return self.describe(held[index]) if index in held else "start-up"

        while True:
            # Every task waiting has a worker, up to ``jobs`` at a time.
            while sum(w.task is not None for w in self._workers) < self.jobs:
                index = take()
                if index is None:
                    break
                send(self._start_worker(), index)
            if not held:
                return
            handles: dict[Any, _Worker] = {}
            for worker in self._workers:
                handles[worker.process.sentinel] = worker
                if not worker.hung_up:
                    handles[worker.conn] = worker
            news = {id(handles[h]): handles[h] for h in wait(list(handles))}
            for worker in news.values():
                # Its reply first: a worker may answer and then die.
                reply = None
                if not worker.hung_up and worker.conn.poll():
                    try:
                        reply = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.hung_up = True  # it is exiting: wait for its sentinel only
                if reply is not None:
                    status, index, value = reply
                    if status != "ok":
                        raise WorkerError(f"a worker process failed ({describe(index)}): {value}")
                    del held[index]
                    attempts.pop(index, None)
                    assign(worker)
                    yield index, value
                if worker.process.exitcode is None:
                    continue  # alive, or not reaped yet: its sentinel will say
                lost = worker.task
                self._retire(worker)
                if lost is None:
                    continue  # it had finished (or was told to exit): no work lost
                if attempts[lost] >= MAX_ATTEMPTS:
                    raise WorkerError(
                        f"a worker process was {describe_exit(worker.process.exitcode)} while "
                        f"fingerprinting {describe(lost)}, {attempts[lost]} times "
                        "(out of memory?)"
                    )
                retry.appendleft(lost)  # redone by a fresh worker, first

    def stop(self) -> None:
        """Stop every worker now (SIGTERM, then SIGKILL) and reap it: no orphans, no zombies."""
        workers, self._workers = self._workers, []
        processes = [w.process for w in workers] + self._retired
        self._retired = []
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.conn.close()
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(STOP_GRACE)
            if process.is_alive():
                process.kill()
                process.join()


def chunks_in_order(
    work: Callable[[Task], Result],
    chunks: Iterable[Task],
    jobs: int,
    *,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...] = (),
    describe: Callable[[Task], str] = repr,
) -> Iterator[Result]:
    """``work`` of each chunk, in the chunks' order: by ``jobs`` worker processes as the chunks
    are read (a result that comes early waits for the ones before it), or in this process with
    one job or a single chunk (a pool would cost more than it saves). ``initializer(*initargs)``
    runs here first, so that forked workers share what it builds, and in each worker."""
    initializer(*initargs)
    stream = iter(chunks)
    first = list(itertools.islice(stream, 2))
    if jobs == 1 or len(first) < 2:
        for chunk in itertools.chain(first, stream):
            yield work(chunk)
        return
    pool: WorkerPool[Task, Result] = WorkerPool(
        work, jobs, initializer=initializer, initargs=initargs, describe=describe
    )
    waiting: dict[int, Result] = {}  # finished before an earlier chunk
    due = 0
    with pool:
        for number, result in pool.results(itertools.chain(first, stream)):
            waiting[number] = result
            while due in waiting:
                yield waiting.pop(due)
                due += 1


def _hold(signals: frozenset[int]) -> set[int] | None:
    """Block ``signals`` in this thread (where POSIX allows it); returns the previous mask."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    try:
        return set(signal.pthread_sigmask(signal.SIG_BLOCK, signals))
    except (OSError, ValueError):
        return None


def _release(previous: set[int] | None) -> None:
    """Restore the mask; a signal that arrived meanwhile is handled now."""
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
