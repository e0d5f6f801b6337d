"""Find the files to scan: walk folders, apply globs, skip what is not a regular text file.

Never blocks (FIFOs, sockets and devices are skipped by their type, without opening them),
never loops (directories are identified by device and inode), never reads a file twice (a
path given twice, overlapping roots, hard links). Everything passed over for a reason the
user may not expect becomes a ``SkippedFile``.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import ConfigError
from .records import SkippedFile, SourceFile

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj"})
DEFAULT_MAX_SIZE = 64 * 1024 * 1024


@dataclass(frozen=True)
class DiscoveryOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hidden: bool = False
    follow_symlinks: bool = False
    max_size: int = DEFAULT_MAX_SIZE
    # Paths (files or folders) never scanned, e.g. the output file.
    avoid: tuple[str, ...] = ()
    # Read a file reachable by several paths (hard links, repeated paths) only once.
    unique_files: bool = True


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _matches(patterns: Iterable[str], rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in patterns)


def _is_hidden(name: str) -> bool:
    return name.startswith(".") and name not in (".", "..")


class _Walker:
    def __init__(self, options: DiscoveryOptions) -> None:
        self.options = options
        self.files: list[SourceFile] = []
        self.skipped: list[SkippedFile] = []
        self.seen_files: dict[tuple[int, int], str] = {}
        self.avoid = {os.path.realpath(p) for p in options.avoid}

    def _skip(self, path: str, reason: str, failure: bool = True) -> None:
        self.skipped.append(SkippedFile(path, "discovery", reason, failure))

    def _add_file(
        self, path: str, st: os.stat_result, explicit: bool, rel: str, follow: bool
    ) -> None:
        o = self.options
        if not explicit and o.include and not _matches(o.include, rel):
            return
        if o.exclude and _matches(o.exclude, rel):
            return
        if self.avoid and os.path.realpath(path) in self.avoid:
            return
        if o.unique_files:
            identity = (st.st_dev, st.st_ino)
            first = self.seen_files.get(identity)
            if first is not None:
                if first != path:
                    reason = f"same file as {first} (hard link, symlink or repeated path)"
                    self._skip(path, reason, failure=False)
                return
            self.seen_files[identity] = path
        if st.st_size > o.max_size:
            reason = f"larger than --max-size ({st.st_size} > {o.max_size} bytes)"
            self._skip(path, reason, failure=False)
            return
        # What was found, so that reading can refuse another file put at this path since.
        self.files.append(
            SourceFile(path, st.st_size, st.st_dev, st.st_ino, follow, st.st_mtime_ns)
        )

    def add_root(self, root: str) -> None:
        try:
            lst = os.lstat(root)
        except OSError as exc:
            self._skip(root, exc.strerror or str(exc))
            return
        try:
            st = os.stat(root) if stat.S_ISLNK(lst.st_mode) else lst
        except OSError:
            self._skip(root, "dangling symbolic link")
            return
        if stat.S_ISDIR(st.st_mode):
            self._walk(root, st)
        elif stat.S_ISREG(st.st_mode):
            # A file named on the command line is scanned even if hidden or a symlink.
            follow = self.options.follow_symlinks or stat.S_ISLNK(lst.st_mode)
            self._add_file(root, st, explicit=True, rel=os.path.basename(root), follow=follow)
        else:
            self._skip(root, f"not a regular file ({_kind(st.st_mode)})", failure=False)

    def _walk(self, root: str, root_stat: os.stat_result) -> None:
        o = self.options
        active: set[tuple[int, int]] = set()
        # Iterative depth-first walk: deep trees cannot overflow the stack.
        stack: list[tuple[str, str, tuple[int, int] | None]] = [(root, "", None)]
        visited_dirs: set[tuple[int, int]] = set()
        while stack:
            directory, rel_dir, leaving = stack.pop()
            if leaving is not None:
                active.discard(leaving)
                continue
            try:
                dst = os.stat(directory)
            except OSError as exc:
                self._skip(directory, exc.strerror or str(exc))
                continue
            identity = (dst.st_dev, dst.st_ino)
            if identity in active:
                self._skip(directory, "symbolic link loop")
                continue
            if identity in visited_dirs:
                continue
            if self.avoid and os.path.realpath(directory) in self.avoid:
                continue
            visited_dirs.add(identity)
            try:
                with os.scandir(directory) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self._skip(directory, exc.strerror or str(exc))
                continue
            active.add(identity)
            stack.append((directory, rel_dir, identity))
            subdirs: list[tuple[str, str, None]] = []
            for entry in entries:
                name = entry.name
                path = os.path.join(directory, name)
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if not o.hidden and (_is_hidden(name) or name in VCS_DIRS):
                    continue
                try:
                    is_link = entry.is_symlink()
                    if is_link and not o.follow_symlinks:
                        reason = "symbolic link (use --follow-symlinks to follow)"
                        self._skip(path, reason, failure=False)
                        continue
                    st = entry.stat(follow_symlinks=True)
                except FileNotFoundError:
                    self._skip(path, "dangling symbolic link" if entry.is_symlink() else "vanished")
                    continue
                except OSError as exc:
                    self._skip(path, exc.strerror or str(exc))
                    continue
                if stat.S_ISDIR(st.st_mode):
                    if o.exclude and _matches(o.exclude, rel):
                        continue
                    subdirs.append((path, rel, None))
                elif stat.S_ISREG(st.st_mode):
                    self._add_file(path, st, explicit=False, rel=rel, follow=o.follow_symlinks)
                else:
                    self._skip(path, f"not a regular file ({_kind(st.st_mode)})", failure=False)
            stack.extend(reversed(subdirs))


def discover(
    paths: Iterable[str], options: DiscoveryOptions | None = None
) -> tuple[list[SourceFile], list[SkippedFile]]:
    """Regular files under ``paths`` in a deterministic order, and what was passed over."""
    walker = _Walker(options or DiscoveryOptions())
    for path in paths:
        walker.add_root(os.fspath(path))
    files = sorted(walker.files, key=lambda f: f.path)
    skipped = sorted(walker.skipped, key=lambda s: s.path)
    return files, skipped


# Checked longest first: the UTF-32-LE BOM starts with the UTF-16-LE BOM.
_LIST_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# The line breaks of bytes.splitlines(); str.splitlines() would also split at U+2028, \x1c...
_LINE_BREAK = re.compile("\r\n|\r|\n")
_NUL_HINT = (
    "the list holds NUL bytes: for a NUL-separated list (find -print0, git ls-files -z) "
    "use -0/--null"
)


def read_path_list(data: bytes, null: bool) -> list[str]:
    """The paths in a ``--files-from`` list: one per line, or NUL-separated if ``null``.

    Items are bytes in the file-system encoding, as ``find`` and ``git ls-files`` write them; a
    UTF-8 BOM is dropped; a list with a UTF-16 or UTF-32 BOM (Windows PowerShell 5 writes
    UTF-16) is decoded first. Blank items are ignored. A list holding NUL bytes without
    ``null`` (``find -print0`` without ``-0``) raises ``ConfigError``: no path holds a NUL.
    """
    for bom, encoding in _LIST_BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                reason = f"it starts with a {encoding} byte order mark but is not {encoding}"
                raise ConfigError(f"{reason} ({exc.reason} at byte {exc.start})") from exc
            if "\0" in text and not null:
                raise ConfigError(_NUL_HINT)
            texts = text.split("\0") if null else _LINE_BREAK.split(text)
            return [item for item in texts if item.strip()]
    data = data.removeprefix(codecs.BOM_UTF8)
    if b"\0" in data and not null:
        raise ConfigError(_NUL_HINT)
    items = data.split(b"\0") if null else data.splitlines()
    return [os.fsdecode(item) for item in items if item.strip()]
