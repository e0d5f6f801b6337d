"""The scan cache: what earlier scans learned of their files, kept in a folder of snapshots.

A scan's key is its fingerprint parameters (``FeatureParams.cache_key()``: every option, the
stopword and user-dictionary contents, the algorithm version), its MinHash band layout and the
folders it scans. Under that key the folder holds

* ``KEY.snapshot``: the rows of every file of the last completed scan (``store.snapshot``),
  with its pairs and clusters, written in one piece to a temporary name and renamed over the
  old one, so that a reader sees the old snapshot or the new one, whole;
* ``KEY.PID-N.journal``: the records of a scan still running, appended a batch at a time as
  its workers finish them, so that a run killed midway keeps what it had done. A journal is
  locked while its scan runs; a later scan folds the unlocked journals it finds into what it
  knows, and removes them once its own snapshot is written;
* ``PKEY.passages``: the passages of a ``scan --passages`` (``store.passages``, under a key of
  their own), the few most recently used only.

The folder holds at most ``max_bytes`` (``DEFAULT_MAX_BYTES``, ``--cache-size``): past that,
the least recently used snapshots (and passage entries) are removed whole. A damaged snapshot
or journal is removed with a warning and the scan goes on without it; any other trouble (a
full disk, a folder that cannot be written) turns the cache off for the rest of the run with a
warning: a cache never fails a scan. A folder that is not a simdup scan cache (it holds other
files and no ``CACHEDIR.TAG`` of simdup's), or a file at the cache's path, is never touched.
The library never prints; warnings go to the ``warn`` callback.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import xxhash

from ..errors import StoreError
from .columns import FrameError, JournalWriter, read_frame_file, read_journal, write_frame_file
from .snapshot import Rows, SavedJoin

if TYPE_CHECKING:
    from types import TracebackType

Warn = Callable[[str], None]

CACHE_DIR_NAME = "scans"
CACHE_DIR_ENV = "SIMDUP_CACHE_DIR"
# The earlier cache (one SQLite file), removed from the default folder when found there.
_OLD_CACHE_FILE = "fingerprints.sqlite"
# A snapshot costs ~0.8-1.3 kB a short document (its sketch is most of it): 2 GiB holds a
# tree of a million short documents with room for smaller ones beside it.
DEFAULT_MAX_BYTES = 2 << 30
SNAPSHOT = ".snapshot"
JOURNAL = ".journal"
# The passages of a scan (``store.passages``): kept beside the snapshots, bounded with them.
PASSAGES = ".passages"
# The cache directory tagging standard (https://bford.info/cachedir/): backup tools skip the
# folder, and simdup knows the folder as its own.
TAG_FILE = "CACHEDIR.TAG"
TAG = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# This folder is simdup's scan cache: fingerprints of files already scanned.\n"
    b"# It can be removed at any time (simdup cache clear).\n"
)
FORMAT = 1

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: journals are folded only when complete
    fcntl = None  # type: ignore[assignment]


def cache_root() -> str:
    """simdup's cache folder: ``$SIMDUP_CACHE_DIR``, else the user's
    (``platformdirs.user_cache_dir("simdup")``, e.g. ``~/.cache/simdup`` on Linux)."""
    folder = os.environ.get(CACHE_DIR_ENV)
    if not folder:
        import platformdirs

        folder = platformdirs.user_cache_dir("simdup", appauthor=False)
    return folder


def default_cache_path() -> str:
    """The scan cache's folder: ``scans`` in ``cache_root()``."""
    return os.path.join(cache_root(), CACHE_DIR_NAME)


def cache_inside(cache_path: str | os.PathLike[str], roots: Iterable[str]) -> str | None:
    """The first of ``roots`` (files or folders to be scanned) that holds the cache folder
    (or would hold it: it need not exist yet), else None. Symbolic links are resolved."""
    cache = os.path.realpath(cache_path)
    for root in roots:
        real = os.path.realpath(root)
        if real == cache:
            return root
        with contextlib.suppress(ValueError):  # another drive (Windows)
            if os.path.commonpath([real, cache]) == real:
                return root
    return None


def scan_key(params_key: str, bands: tuple[int, int] | None, roots: Sequence[str]) -> str:
    """The name under which a scan's snapshot is kept: its fingerprint parameters, its band
    layout and the absolute paths of the folders and files it scans."""
    absolute = [os.path.normpath(os.path.abspath(os.fspath(r))) for r in roots]
    text = json.dumps([FORMAT, params_key, bands, absolute], ensure_ascii=False)
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogateescape"))


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """The state of a cache folder, and what this ``ScanCache`` did with it so far."""

    path: str
    snapshots: int
    files: int  # rows remembered, over every snapshot
    bytes: int  # on disk: snapshots, journals and passages
    max_bytes: int
    hits: int = 0  # files whose record was reused (``reread`` of them after reading the file)
    reread: int = 0  # hits found by the hash of the file's bytes (touched files)
    misses: int = 0  # files left to the engine
    passages: int = 0  # scans' passages remembered (``store.passages``)


@dataclass
class Remembered:
    """What the cache knows under a key: the rows of its files (a snapshot's, then those of
    journals of scans killed since), and the outcome of the snapshot's scan, numbered over the
    snapshot's own documents (``outcome_rows`` rows, the first of ``rows``)."""

    rows: Rows
    outcome: SavedJoin | None
    outcome_rows: int
    journals: list[str]


class Journal:
    """The journal of one running scan (see the module docstring): ``add(rows)`` appends."""

    def __init__(self, cache: ScanCache, path: str) -> None:
        self._cache = cache
        self.path = path
        self._writer: JournalWriter | None = JournalWriter(path)
        if fcntl is not None:
            fcntl.flock(self._writer.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def add(self, rows: Rows) -> None:
        if self._writer is None or not len(rows):
            return
        try:
            self._writer.append(rows.columns(), rows.meta())
        except OSError as exc:
            self.close(remove=True)
            self._cache.trouble(exc, "writing its journal")

    def close(self, remove: bool) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if remove:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


class ScanCache:
    """The scan cache in the folder ``path`` (default: ``default_cache_path()``), created if
    needed. Use it as a context manager, or ``close()``.

    Raises ``StoreError`` when ``path`` cannot be used and must not be touched: a file, or a
    folder holding other things. A folder at the default location belongs to simdup."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        warn: Warn | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be at least 1")
        self._owned = path is None
        self.path = default_cache_path() if path is None else os.fspath(path)
        self.max_bytes = max_bytes
        self._warn = warn or (lambda message: None)
        self._clock = clock
        self.hits = self.reread = self.misses = 0
        self.usable = True
        self._journals: list[Journal] = []
        self._open()

    # ------------------------------------------------------------ opening and trouble

    def _open(self) -> None:
        path = self.path
        if os.path.lexists(path) and not os.path.isdir(path):
            raise StoreError(path, "is a file, not a scan cache folder (not touched)")
        if os.path.isdir(path) and not self._ours(path):
            raise StoreError(
                path, "is a folder that is not simdup's scan cache (it holds other files; "
                "not touched)"
            )
        try:
            # The user's cache folder is private (paths of their documents); a folder given
            # explicitly keeps whatever mode the user's umask gives it.
            os.makedirs(path, mode=0o700 if self._owned else 0o777, exist_ok=True)
            tag = os.path.join(path, TAG_FILE)
            if not os.path.exists(tag):
                with open(tag, "wb") as handle:
                    handle.write(TAG)
        except OSError as exc:
            raise StoreError(path, f"cannot create it: {exc.strerror or exc}") from exc
        if self._owned:  # the SQLite cache of simdup before its snapshots: simdup's own file
            old = os.path.join(os.path.dirname(path), _OLD_CACHE_FILE)
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(old + suffix)

    def _ours(self, path: str) -> bool:
        """An empty folder, one tagged by simdup, or the default folder (simdup's own)."""
        if self._owned:
            return True
        try:
            with open(os.path.join(path, TAG_FILE), "rb") as handle:
                if handle.read(len(TAG)) == TAG:
                    return True
        except OSError:
            pass
        try:
            return not os.listdir(path)
        except OSError:
            return False

    def trouble(self, exc: BaseException, doing: str) -> None:
        """Turn the cache off for the rest of the run, with a warning."""
        if self.usable:
            self._warn(f"scan cache {self.path}: {exc} while {doing}; not used for the rest "
                       "of the run")  # fmt: skip
        self.usable = False

    # ------------------------------------------------------------ reading

    def _file(self, key: str, suffix: str) -> str:
        return os.path.join(self.path, key + suffix)

    def knows(self, key: str) -> bool:
        """Whether anything is remembered under ``key`` (a snapshot or a journal), without
        reading it."""
        if not self.usable:
            return False
        return os.path.exists(self._file(key, SNAPSHOT)) or bool(self._journal_names(key))

    def load(self, key: str) -> Remembered | None:
        """What the cache knows under ``key``: its snapshot's rows and outcome, with the rows
        of the journals of scans killed since (None: nothing, or the cache is off)."""
        if not self.usable:
            return None
        parts: list[Rows] = []
        outcome: SavedJoin | None = None
        snapshot = self._file(key, SNAPSHOT)
        try:
            frame = read_frame_file(snapshot)
            if frame.meta.get("format") != FORMAT or frame.meta.get("key") != key:
                raise FrameError("written for another key or format")
            rows = Rows.of_frame(frame)
            rows.verify()
            parts.append(rows)
            if "outcome" in frame.meta:
                outcome = SavedJoin.of_frame(frame, frame.meta["outcome"])
            with contextlib.suppress(OSError):
                os.utime(snapshot)  # its last use, for eviction
        except FileNotFoundError:
            pass
        except (FrameError, ValueError, KeyError, TypeError) as exc:
            self._warn(f"scan cache {snapshot} is damaged ({exc}): removed")
            with contextlib.suppress(OSError):
                os.unlink(snapshot)
            parts, outcome = [], None
        except OSError as exc:
            self.trouble(exc, "reading a snapshot")
            return None
        outcome_rows = len(parts[0]) if parts else 0
        journals = []
        for name in self._journal_names(key):
            path = os.path.join(self.path, name)
            if not self._unlocked(path):
                continue  # a scan still running
            try:
                found = [Rows.of_frame(frame) for frame in read_journal(path)]
                for rows in found:
                    rows.verify()
            except (FrameError, ValueError, KeyError, TypeError) as exc:
                self._warn(f"scan cache {path} is damaged ({exc}): removed")
                with contextlib.suppress(OSError):
                    os.unlink(path)
                continue
            except OSError:
                continue
            parts.extend(found)
            journals.append(path)
        if not parts:
            return None
        return Remembered(Rows.joined(parts), outcome, outcome_rows, journals)

    def _journal_names(self, key: str) -> list[str]:
        try:
            names = os.listdir(self.path)
        except OSError:
            return []
        return sorted(n for n in names if n.startswith(key + ".") and n.endswith(JOURNAL))

    @staticmethod
    def _unlocked(path: str) -> bool:
        """A journal no running scan holds (its scan was killed, or ended)."""
        if fcntl is None:
            return True
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)  # releases the lock taken to test

    # ------------------------------------------------------------ writing

    def journal(self, key: str) -> Journal | None:
        """A journal for a scan under ``key`` (None when the cache is off)."""
        if not self.usable:
            return None
        name = f"{key}.{os.getpid()}-{time.monotonic_ns()}{JOURNAL}"
        try:
            journal = Journal(self, os.path.join(self.path, name))
        except OSError as exc:
            self.trouble(exc, "starting a journal")
            return None
        self._journals.append(journal)
        return journal

    def save(
        self,
        key: str,
        rows: Rows,
        outcome: SavedJoin | None,
        folded: Sequence[str] = (),
        journal: Journal | None = None,
    ) -> None:
        """Write the snapshot of a completed scan under ``key`` (replacing the old one), then
        remove the journals it folded in and its own, and evict past the bound."""
        if not self.usable:
            return
        meta: dict[str, Any] = {"format": FORMAT, "key": key, **rows.meta()}
        columns = rows.columns()
        if outcome is not None:
            meta["outcome"] = outcome.meta()
            columns.update(outcome.columns())
        path = self._file(key, SNAPSHOT)
        try:
            size = write_frame_file(path, columns, meta)
        except (OSError, TypeError, ValueError) as exc:
            self.trouble(exc, "writing a snapshot")
            return
        for done in folded:
            with contextlib.suppress(OSError):
                os.unlink(done)
        if journal is not None:
            journal.close(remove=True)
        if size > self.max_bytes:
            with contextlib.suppress(OSError):
                os.unlink(path)
            self._warn(
                f"scan cache: the snapshot of this scan ({size:,} bytes) is larger than the "
                f"cache's bound ({self.max_bytes:,} bytes, --cache-size): not kept"
            )
            return
        self._evict(keep=path)

    def _entries(self) -> list[tuple[float, int, str]]:
        """(last use, bytes, path) of every snapshot, journal and passage entry."""
        found = []
        try:
            names = os.listdir(self.path)
        except OSError:
            return []
        for name in names:
            if not name.endswith((SNAPSHOT, JOURNAL, PASSAGES)):
                continue
            path = os.path.join(self.path, name)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                found.append((st.st_mtime, st.st_size, path))
        return found

    def _evict(self, keep: str) -> None:
        """Remove the least recently used snapshots (whole) until the folder holds at most
        ``max_bytes``; the snapshot just written (``keep``) and running journals stay."""
        entries = self._entries()
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            if path == keep or (path.endswith(JOURNAL) and not self._unlocked(path)):
                continue
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size

    # ------------------------------------------------------------ maintenance

    def info(self) -> CacheInfo:
        """Snapshots, files remembered, passage entries and bytes on disk of the folder; this
        object's hits and misses."""
        snapshots = files = size = passages = 0
        for _, bytes_, path in self._entries():
            size += bytes_
            passages += path.endswith(PASSAGES)
            if path.endswith(SNAPSHOT):
                snapshots += 1
                with contextlib.suppress(OSError, FrameError, ValueError, KeyError, TypeError):
                    files += int(read_frame_file(path).meta["rows"])
        return CacheInfo(self.path, snapshots, files, size, self.max_bytes, self.hits,
                         self.reread, self.misses, passages)  # fmt: skip

    def clear(self) -> None:
        """Remove every snapshot, finished journal and passage entry."""
        for _, _, path in self._entries():
            if path.endswith(JOURNAL) and not self._unlocked(path):
                continue
            with contextlib.suppress(OSError):
                os.unlink(path)

    def close(self) -> None:
        """Close the journals of scans that did not complete (they stay, for the next scan)."""
        for journal in self._journals:
            journal.close(remove=False)
        self._journals.clear()

    def __enter__(self) -> ScanCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()



def open_cache(
    roots: Iterable[str | os.PathLike[str]],
    path: str | os.PathLike[str] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    warn: Warn | None = None,
) -> ScanCache | None:
    """The scan cache at ``path`` (None: ``default_cache_path()``) for a scan of ``roots``;
    or None, with a warning to ``warn``, when the cache folder is inside one of ``roots`` (a
    cache is never part of what is scanned) or the default cache cannot be used (a read-only
    home, say). A cache named explicitly that cannot be used raises ``StoreError``: the user
    asked for that folder."""
    say = warn or (lambda message: None)
    cache_path = default_cache_path() if path is None else os.fspath(path)
    inside = cache_inside(cache_path, [os.fspath(r) for r in roots])
    if inside is not None:
        say(f"scan cache {cache_path} is inside {inside}, which is scanned: cache not used")
        return None
    try:
        return ScanCache(path, max_bytes=max_bytes, warn=warn)
    except StoreError as exc:
        if path is not None:
            raise
        say(f"scan cache {exc}: cache not used")
        return None
