"""Reading a document in a child process with bounded time and memory.

A reader of a complex format (PDF, Word, e-books) runs third-party parsers on bytes that may be
hostile: a compressed stream that inflates to gigabytes, references that loop, a page tree of a
million nodes, or a bug in native code. Such a reader runs in a forked child of the process
that would have run it (``read_contained``): the child gets an address-space limit
(``ReadLimits.memory`` on top of what it inherits) and the parent a deadline
(``ReadLimits.seconds``); what the child made comes back through a pipe. A child that runs out
of time is killed, one that runs out of memory or crashes is reaped, and the file becomes a
skip record saying which: the run goes on, the worker that read it too.

Forking a worker costs ~1 ms (its pages are shared, copy on write), less than reading a page of
a PDF. Where ``fork`` does not exist, the reader runs in place, unbounded.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_HEADER = struct.Struct("<Q")

# Imported once, here: a child importing it for its memory limit costs ~2 ms a file.
with contextlib.suppress(ImportError):  # not on Windows
    import resource  # noqa: F401


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """What reading one file may take: ``seconds`` of wall time and ``memory`` bytes of
    address space beyond what the reading process already holds (``--read-timeout``,
    ``--read-memory``)."""

    seconds: float = 60.0
    memory: int = 2 << 30

    def __post_init__(self) -> None:
        if self.seconds <= 0 or self.memory <= 0:
            raise ValueError("read limits must be positive")


class ReadFailed(Exception):
    """Reading a file in its child process ended without a result: ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _address_space() -> int:
    """This process's virtual memory size in bytes (0 when it cannot be known)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            pages = int(handle.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _child(write_fd: int, work: Callable[[], Any], memory: int) -> None:
    """In the child: limit memory, run ``work``, send ``("ok", result)`` or the error back."""
    try:
        import resource

        limit = _address_space() + memory
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    try:
        outcome: tuple[str, Any] = ("ok", work())
    except MemoryError:
        outcome = ("memory", None)
    except RecursionError:
        outcome = ("error", "nested too deeply (recursion limit)")
    except Exception as exc:  # a reader's own failure: reported with its message
        outcome = ("error", f"{type(exc).__name__}: {exc}")
    try:
        data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        data = pickle.dumps(("memory", None))
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        written = os.write(write_fd, view)
        view = view[written:]


def read_contained(work: Callable[[], T], limits: ReadLimits) -> T:
    """``work()`` run in a forked child within ``limits``; its result, or ``ReadFailed``
    saying why there is none (out of time, out of memory, crashed)."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: in place
        return work()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            faulthandler.disable()  # a crash is reported by the parent, in one line
            _child(write_fd, work, limits.memory)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + limits.seconds
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if timed_out:
        raise ReadFailed(f"took longer than the read time limit ({limits.seconds:g} s)")
    data = b"".join(chunks)
    if len(data) < _HEADER.size or len(data) != _HEADER.size + _HEADER.unpack_from(data)[0]:
        if os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            raise ReadFailed(f"its reader crashed ({name}); out of memory?")
        raise ReadFailed("its reader ended without a result (out of memory?)")
    kind, value = pickle.loads(data[_HEADER.size :])
    if kind == "memory":
        limit = limits.memory / (1 << 20)
        raise ReadFailed(f"reading it needed more than the read memory limit ({limit:.0f} MB)")
    if kind == "error":
        raise ReadFailed(str(value))
    result: T = value
    return result
