"""Find the files to scan: walk folders, apply globs, skip what is not a regular text file.

Never blocks (FIFOs, sockets and devices are skipped by their type, without opening them),
never loops (directories are identified by device and inode), never reads a file twice (a
path given twice, overlapping roots, hard links). Everything passed over for a reason the
user may not expect becomes a ``SkippedFile``.

Ignore rules (``DiscoveryOptions.ignore_files``): ``.simdupignore`` files are read in every
walked folder; inside a git work tree (a parent folder holds ``.git``) so are ``.gitignore``
files at every level, from the repository root down, and ``.git/info/exclude``. The syntax and
the matching are git's (the ``pathspec`` library); a deeper file overrides a shallower one, and
in one folder ``.simdupignore`` overrides ``.gitignore``. An ignored file is not a
``SkippedFile`` (the user asked for it to be left out): it is only counted; an ignored folder
is counted once and not walked. A file named as a root is scanned even if ignored, as
``git add -f`` would add it.
"""

from __future__ import annotations

import codecs
import fnmatch
import operator
import os
import re
import stat
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pathspec

from ..errors import ConfigError
from ..records import SkippedFile, SourceFile, SourceFiles

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj"})
DEFAULT_MAX_SIZE = 64 * 1024 * 1024
SIMDUP_IGNORE = ".simdupignore"
GIT_IGNORE = ".gitignore"


@dataclass(frozen=True)
class DiscoveryOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hidden: bool = False
    follow_symlinks: bool = False
    max_size: int = DEFAULT_MAX_SIZE
    # What reading one file of a complex format (PDF, Word, ...) may take: wall seconds and
    # bytes of memory (``readers.ReadLimits``).
    read_timeout: float = 60.0
    read_memory: int = 2 << 30
    # Paths (files or folders) never scanned, e.g. the output file.
    avoid: tuple[str, ...] = ()
    # Read a file reachable by several paths (hard links, repeated paths) only once.
    unique_files: bool = True
    # Honour .simdupignore, and .gitignore / .git/info/exclude inside a git work tree.
    ignore_files: bool = True


@dataclass(frozen=True)
class Discovery:
    """What discovery found: the files to read, what was passed over, and how many files and
    folders the ignore rules left out (not skips: nothing went wrong with them)."""

    files: Sequence[SourceFile] = field(default_factory=list)  # a SourceFiles from find_files
    skipped: list[SkippedFile] = field(default_factory=list)
    ignored: int = 0


@dataclass(frozen=True)
class _IgnoreLayer:
    """The patterns of one folder's ignore files. ``strip`` is that folder's path relative to
    the walk root (with a trailing slash; empty for the root and for folders above it) and
    ``add`` the walk root's path relative to the folder (for folders above the root), so that a
    walk-relative path becomes relative to the folder, as git matches it."""

    strip: str
    add: str
    spec: pathspec.GitIgnoreSpec

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a ``!`` pattern; None: no pattern matches."""
        path = self.add + rel[len(self.strip) :] + ("/" if is_dir else "")
        return self.spec.check_file(path).include


def _read_patterns(path: str) -> list[str]:
    """The lines of an ignore file; an unreadable one counts as empty, as git treats it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    return data.decode("utf-8", "surrogateescape").splitlines()


def _layer(directory: str, names: Iterable[str], strip: str, add: str) -> _IgnoreLayer | None:
    """The ignore layer of ``directory`` from those of ``names`` found there, or None."""
    lines: list[str] = []
    for name in names:  # later files win within the folder
        lines += _read_patterns(os.path.join(directory, name))
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return _IgnoreLayer(strip, add, spec) if lines else None


def repository_root(path: str) -> str | None:
    """The nearest folder at or above ``path`` holding ``.git`` (folder or file), or None."""
    current = os.path.abspath(path)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _ancestor_layers(root: str) -> tuple[tuple[_IgnoreLayer, ...], bool]:
    """The ignore layers above the walk ``root`` (repository root down to its parent, with
    ``.git/info/exclude`` first and weakest), and whether ``root`` is in a git work tree."""
    repo = repository_root(root)
    if repo is None:
        return (), False
    layers: list[_IgnoreLayer] = []
    absolute = os.path.abspath(root)
    below = os.path.relpath(absolute, repo).replace(os.sep, "/")
    below = "" if below == "." else below + "/"
    exclude = _layer(os.path.join(repo, ".git", "info"), ["exclude"], "", below)
    if exclude is not None:
        layers.append(exclude)
    folder = repo
    parts = [p for p in below.split("/") if p]
    for depth in range(len(parts)):  # the root's own files are read by the walk
        add = "/".join(parts[depth:]) + "/"
        layer = _layer(folder, [GIT_IGNORE, SIMDUP_IGNORE], "", add)
        if layer is not None:
            layers.append(layer)
        folder = os.path.join(folder, parts[depth])
    return tuple(layers), True


def _ignored(layers: tuple[_IgnoreLayer, ...], rel: str, is_dir: bool) -> bool:
    for layer in reversed(layers):  # the deepest folder with a matching pattern decides
        decision = layer.decide(rel, is_dir)
        if decision is not None:
            return decision
    return False


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


_entry_name = operator.attrgetter("name")
S_ISREG, S_ISDIR = stat.S_ISREG, stat.S_ISDIR


class _Walker:
    def __init__(
        self, options: DiscoveryOptions, on_files: Callable[[list[SourceFile]], bool] | None = None
    ) -> None:
        self.options = options
        self.on_files = on_files
        self.reported = 0  # files handed to ``on_files`` so far
        # The files found, a column per field of SourceFile (no object per file).
        self.paths: list[str] = []
        self.sizes = array("q")
        self.devices = array("Q")
        self.inodes = array("Q")
        self.follows = array("b")
        self.mtimes = array("q")
        self.skipped: list[SkippedFile] = []
        self.seen_files: dict[tuple[int, int], str] = {}
        self.ignored = 0
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
        size = st.st_size
        if size > o.max_size:
            reason = f"larger than --max-size ({size} > {o.max_size} bytes)"
            self._skip(path, reason, failure=False)
            return
        # What was found, so that reading can refuse another file put at this path since.
        self.paths.append(path)
        self.sizes.append(size)
        self.devices.append(st.st_dev)
        self.inodes.append(st.st_ino)
        self.follows.append(follow)
        self.mtimes.append(st.st_mtime_ns)

    def files(self) -> SourceFiles:
        """The files found, ordered by path."""
        paths = self.paths
        order = sorted(range(len(paths)), key=paths.__getitem__)
        found = SourceFiles(
            paths,
            np.frombuffer(self.sizes, dtype=np.int64),
            np.frombuffer(self.devices, dtype=np.uint64),
            np.frombuffer(self.inodes, dtype=np.uint64),
            np.frombuffer(self.follows, dtype=np.int8).astype(bool),
            np.frombuffer(self.mtimes, dtype=np.int64),
        )
        return found.take(order)

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
        in_repo = False
        root_layers: tuple[_IgnoreLayer, ...] = ()
        if o.ignore_files:
            root_layers, in_repo = _ancestor_layers(root)
        ignore_names = [GIT_IGNORE, SIMDUP_IGNORE] if in_repo else [SIMDUP_IGNORE]
        # Iterative depth-first walk: deep trees cannot overflow the stack.
        Frame = tuple[str, str, tuple[int, int] | None, tuple[_IgnoreLayer, ...]]
        stack: list[Frame] = [(root, "", None, root_layers)]
        visited_dirs: set[tuple[int, int]] = set()
        while stack:
            directory, rel_dir, leaving, layers = stack.pop()
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
                    entries = sorted(it, key=_entry_name)
            except OSError as exc:
                self._skip(directory, exc.strerror or str(exc))
                continue
            active.add(identity)
            stack.append((directory, rel_dir, identity, layers))
            if o.ignore_files:
                present = {e.name for e in entries}
                names = [n for n in ignore_names if n in present]
                strip = f"{rel_dir}/" if rel_dir else ""
                own = _layer(directory, names, strip, "") if names else None
                if own is not None:
                    layers = (*layers, own)
            subdirs: list[Frame] = []
            prefix = f"{rel_dir}/" if rel_dir else ""
            for entry in entries:
                name = entry.name
                path = entry.path  # os.path.join(directory, name), made by scandir
                rel = prefix + name
                # (scandir never lists "." or "..": a leading dot is a hidden name)
                if not o.hidden and (name[0] == "." or name in VCS_DIRS):
                    continue
                if layers and name != ".git":
                    try:
                        # git matches a symbolic link as a file, whatever it points to.
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        is_dir = False
                    if _ignored(layers, rel, is_dir):
                        self.ignored += 1
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
                mode = st.st_mode
                if S_ISREG(mode):
                    self._add_file(path, st, explicit=False, rel=rel, follow=o.follow_symlinks)
                elif S_ISDIR(mode):
                    if o.exclude and _matches(o.exclude, rel):
                        continue
                    subdirs.append((path, rel, None, layers))
                else:
                    self._skip(path, f"not a regular file ({_kind(st.st_mode)})", failure=False)
            stack.extend(reversed(subdirs))
            if self.on_files is not None and len(self.paths) - self.reported >= _REPORT_EVERY:
                self.report()

    def report(self) -> None:
        """The files found since the last report, to ``on_files`` (in the order found)."""
        start, end = self.reported, len(self.paths)
        self.reported = end
        if self.on_files is not None and end > start:
            more = self.on_files([
                SourceFile(self.paths[k], self.sizes[k], self.devices[k], self.inodes[k],
                           bool(self.follows[k]), self.mtimes[k])
                for k in range(start, end)
            ])  # fmt: skip
            if not more:
                self.on_files = None


# Files found before ``on_files`` hears of them (after a folder is listed).
_REPORT_EVERY = 256


def find_files(
    paths: Iterable[str],
    options: DiscoveryOptions | None = None,
    *,
    on_files: Callable[[list[SourceFile]], bool] | None = None,
) -> Discovery:
    """Regular files under ``paths`` in a deterministic order, what was passed over, and how
    many files and folders the ignore rules left out. ``on_files`` hears of the files as the
    walk finds them, a few hundred at a time, in the order found (not the order returned),
    until it returns False."""
    walker = _Walker(options or DiscoveryOptions(), on_files)
    for path in paths:
        walker.add_root(os.fspath(path))
    walker.report()
    skipped = sorted(walker.skipped, key=lambda s: s.path)
    return Discovery(walker.files(), skipped, walker.ignored)


def discover(
    paths: Iterable[str], options: DiscoveryOptions | None = None
) -> tuple[list[SourceFile], list[SkippedFile]]:
    """Regular files under ``paths`` in a deterministic order, and what was passed over (a
    list of records; ``find_files`` keeps them as columns)."""
    found = find_files(paths, options)
    return list(found.files), found.skipped


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
