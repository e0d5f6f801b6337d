"""Reading a document in a child process with bounded time and memory.

A reader of a complex format (PDF, Word, e-books) runs third-party parsers on bytes that may be
hostile: a compressed stream that inflates to gigabytes, references that loop, a page tree of a
million nodes, or a bug in native code. Such a reader runs in a forked child of the process
that would have run it (``read_contained``): the child gets an address-space limit
(``ReadLimits.memory`` on top of what it inherits) and the parent a deadline
(``ReadLimits.seconds``); what the child made comes back through a pipe. A child that runs out
of time is killed, one that runs out of memory or crashes is reaped, and the file becomes a
skip record saying which: the run goes on, the worker that read it too.

A fork for every file costs ~10 ms (the fork, the pages copied on write, the exit), more than
reading most Word files takes. So a scan keeps one reading child per worker
(``ReadingProcess``, within a ``readers.reading_session``): it reads file after file, the
deadline counted per file, and is replaced after a failure (out of time, out of memory,
crashed) or once it has grown. Outside a session (``compare``), ``read_contained`` forks one
child for one file. Where ``fork`` does not exist, the reader runs in place, unbounded.
"""

from __future__ import annotations

import contextlib
import faulthandler
import functools
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .base import ReadLimits

T = TypeVar("T")

_HEADER = struct.Struct("<Q")

# Imported once, here: a child importing it for its memory limit costs ~2 ms a file.
with contextlib.suppress(ImportError):  # not on Windows
    import resource  # noqa: F401


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


def _limit_memory(memory: int) -> int:
    """In a child: its address space limited to what it holds plus ``memory``; the limit."""
    limit = _address_space() + memory
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    return limit


def _outcome(work: Callable[[], Any]) -> bytes:
    """``work()`` as the message a child sends: ``("ok", result)`` or why there is none."""
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
    return _HEADER.pack(len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd`` (blocking), or None at its end."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _become_child(keep: tuple[int, ...]) -> None:
    """In a forked child: Ctrl-C is the parent's to handle, a crash is reported by the
    parent in one line, and no descriptor but ``keep`` stays open (a child must not hold a
    pipe of a worker pool, nor a cache journal's lock)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.disable()
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, _max_fd())


def _max_fd() -> int:
    try:
        return min(os.sysconf("SC_OPEN_MAX"), 1 << 16)
    except (ValueError, OSError):
        return 4096


def _failure(status: int, limits: ReadLimits) -> ReadFailed:
    """Why a child that sent no result ended (``status`` from ``waitpid``)."""
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return ReadFailed(f"its reader crashed ({name}); out of memory?")
    return ReadFailed("its reader ended without a result (out of memory?)")


def _result(kind: str, value: Any, limits: ReadLimits) -> Any:
    if kind == "memory":
        limit = limits.memory / (1 << 20)
        raise ReadFailed(f"reading it needed more than the read memory limit ({limit:.0f} MB)")
    if kind == "error":
        raise ReadFailed(str(value))
    return value


def read_contained(work: Callable[[], T], limits: ReadLimits) -> T:
    """``work()`` run in a child forked for it within ``limits``; its result, or
    ``ReadFailed`` saying why there is none (out of time, out of memory, crashed)."""
    child = ReadingProcess(lambda _: work())
    try:
        result: T = child.call(None, limits)
        return result
    finally:
        child.close()


# A reading child is replaced after this many files, or once its address space has grown by
# half its memory limit (a library's leaks and a heap's fragments never pile up).
_FILES_PER_CHILD = 2000


class ReadingProcess:
    """A child that reads files one after another: ``call(request)`` sends ``request`` to
    it, where ``serve(request)`` runs within the read limits (forked at the first call, with
    whatever ``serve`` needs imported already), and returns what it made, or raises
    ``ReadFailed``. A child past its deadline is killed; after any failure but a reader's
    own error the next call forks a new one."""

    def __init__(self, serve: Callable[[Any], Any]) -> None:
        self.serve = serve
        self.pid = 0
        self.requests = self.responses = -1
        self.limits: ReadLimits | None = None
        self.served = 0

    def call(self, request: Any, limits: ReadLimits) -> Any:
        if not hasattr(os, "fork"):  # pragma: no cover - Windows: in place
            return self.serve(request)
        message = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        for attempt in (1, 2):
            if self.pid and (self.limits != limits or self.served >= _FILES_PER_CHILD):
                self.close()
            if not self.pid:
                self._start(limits)
            try:
                _write_all(self.requests, _HEADER.pack(len(message)) + message)
                break
            except OSError:  # it ended while idle (killed from outside): a new one, once
                failed = self._reap()
                if attempt == 2:
                    raise failed from None
        self.served += 1
        return self._answer(limits)

    def _start(self, limits: ReadLimits) -> None:
        request_r, request_w = os.pipe()
        response_r, response_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 0
            try:
                os.close(request_w)
                os.close(response_r)
                _become_child((request_r, response_w))
                self._serve_all(request_r, response_w, limits.memory)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(request_r)
        os.close(response_w)
        self.pid, self.requests, self.responses = pid, request_w, response_r
        self.limits, self.served = limits, 0

    def _serve_all(self, requests: int, responses: int, memory: int) -> None:
        """In the child: requests until the parent goes away (the end of its pipe)."""
        limit = _limit_memory(memory)
        while True:
            header = _read_exactly(requests, _HEADER.size)
            if header is None:
                return
            body = _read_exactly(requests, _HEADER.unpack(header)[0])
            if body is None:
                return
            answer = _outcome(functools.partial(self.serve, pickle.loads(body)))
            # Grown by half its limit: it says so, and ends; the parent forks a fresh child.
            grown = _address_space() > limit - memory // 2
            _write_all(responses, answer + (b"\1" if grown else b"\0"))
            if grown:
                return

    def _answer(self, limits: ReadLimits) -> Any:
        chunks: list[bytes] = []
        have = 0
        need = _HEADER.size
        deadline = time.monotonic() + limits.seconds
        while have < need:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise ReadFailed(
                    f"took longer than the read time limit ({limits.seconds:g} s)"
                )
            ready, _, _ = select.select([self.responses], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.responses, 1 << 20)
            if not chunk:
                raise self._reap()
            chunks.append(chunk)
            have += len(chunk)
            if need == _HEADER.size and have >= _HEADER.size:
                # The message, then one byte: 1 when the child ends after it.
                need = _HEADER.size + _HEADER.unpack(b"".join(chunks)[: _HEADER.size])[0] + 1
        data = b"".join(chunks)
        kind, value = pickle.loads(data[_HEADER.size : need - 1])
        if kind == "memory" or data[need - 1 : need] == b"\1":
            self.close()  # its heap may be left in any state; or it has grown and ends
        return _result(kind, value, limits)

    def _reap(self) -> ReadFailed:
        """The child ended: reaped, and why."""
        limits = self.limits or ReadLimits()
        self._close_pipes()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        return _failure(status, limits)

    def _close_pipes(self) -> None:
        for fd in (self.requests, self.responses):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.requests = self.responses = -1

    def close(self) -> None:
        """Stop the child (killed: it may be in the middle of a file)."""
        if not self.pid:
            return
        self._close_pipes()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        self.pid = 0
