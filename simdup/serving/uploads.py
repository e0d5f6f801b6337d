"""A request's files, saved where nothing else can reach them and within bounds.

Every upload is written into a private temporary folder (``tempfile.mkdtemp``: mode 0700)
under a name made here (``document-0001.docx``: a counter and an extension a reader knows, or
none); the name the client gave is only ever shown (``Saved.name``), never used as a path, so
``../../x`` writes nothing outside the folder. The folder is removed when the answer is made.
A ZIP of a class is unpacked member by member into the same folder, each member's bytes
counted as they are inflated (a member's declared size is not trusted), within the request's
file count and ``max_unpacked`` bytes in all.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from typing import BinaryIO

from ..readers import READERS
from ..records import SkippedFile

ROLES = ("document", "source")
# The extensions a reader knows (and plain text's): a saved file keeps one of these, so the
# reader is chosen as for the same file on disk; any other is dropped (read as plain text).
KNOWN_EXTENSIONS = frozenset(
    {ext for reader in READERS for ext in reader.extensions} | {".txt", ".text"}
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CHUNK = 1 << 16


class TooLarge(Exception):
    """The request is over one of its limits (answered 413)."""


@dataclass(frozen=True)
class Limits:
    """What one request may bring: ``max_bytes`` of body, ``max_files`` files (a ZIP's
    members counted one by one), ``max_unpacked`` bytes inflated from its ZIPs."""

    max_bytes: int = 50 << 20
    max_files: int = 200
    max_unpacked: int = 200 << 20


@dataclass(frozen=True)
class Saved:
    """One uploaded file: its role, the name shown for it, where it was saved."""

    role: str
    name: str
    path: str


@dataclass
class UploadFolder:
    """The private folder of one request and the files saved in it."""

    limits: Limits = field(default_factory=Limits)
    root: str = field(init=False)
    files: list[Saved] = field(default_factory=list)
    failures: list[SkippedFile] = field(default_factory=list)
    _count: int = 0
    _unpacked: int = 0

    def __post_init__(self) -> None:
        # realpath: the check reports a file under the path it was given, and this is what
        # the paths are mapped back from (``/tmp`` may be a link).
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="simdup-serve-"))
        os.chmod(self.root, 0o700)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> UploadFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def of(self, role: str) -> list[Saved]:
        return [f for f in self.files if f.role == role]

    def names(self) -> dict[str, str]:
        """Each saved file's path and the name shown for it."""
        return {f.path: f.name for f in self.files}

    def new_file(self, role: str, client_name: str) -> tuple[str, BinaryIO]:
        """A new file of ``role`` (its path and an open handle), counted against the limit;
        its name is ``client_name`` made fit to show, never to use."""
        if role not in ROLES:
            raise ValueError(role)
        self._count += 1
        if self._count > self.limits.max_files:
            raise TooLarge(f"more than {self.limits.max_files} files in one request")
        ext = os.path.splitext(client_name)[1].lower()
        ext = ext if ext in KNOWN_EXTENSIONS or ext == ".zip" else ""
        path = os.path.join(self.root, f"{role}-{self._count:04d}{ext}")
        handle = open(path, "xb")  # noqa: SIM115 - closed by the caller (a streamed part)
        self.files.append(Saved(role, self._unique(display_name(client_name)), path))
        return path, handle

    def _unique(self, name: str) -> str:
        taken = {f.name for f in self.files}
        if name not in taken:
            return name
        n = 2
        while f"{name} ({n})" in taken:
            n += 1
        return f"{name} ({n})"

    def unpack_zips(self) -> None:
        """Replace each saved ZIP by its members of known formats (a class in one archive)."""
        for saved in [f for f in self.files if f.path.endswith(".zip")]:
            self.files.remove(saved)
            try:
                self._unpack(saved)
            except TooLarge:
                raise
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
                self.failures.append(SkippedFile(saved.name, "read", f"not a readable ZIP: {exc}"))
            finally:
                os.unlink(saved.path)

    def _unpack(self, saved: Saved) -> None:
        with zipfile.ZipFile(saved.path) as archive:
            members = [m for m in archive.infolist() if _wanted(m)]
            if not members:
                self.failures.append(
                    SkippedFile(saved.name, "read", "the ZIP holds no document of a known format")
                )
            for member in members:
                name = f"{saved.name}/{_member_name(member)}"
                path, handle = self.new_file(saved.role, name)
                with handle, archive.open(member) as source:
                    while chunk := source.read(_CHUNK):
                        self._unpacked += len(chunk)
                        if self._unpacked > self.limits.max_unpacked:
                            raise TooLarge(
                                f"the ZIPs inflate to more than {self.limits.max_unpacked >> 20} MB"
                            )
                        handle.write(chunk)


def display_name(client_name: str) -> str:
    """A client's file name as shown: no control characters, at most 200 characters."""
    name = _CONTROL.sub("", client_name).strip() or "upload"
    return name[:200]


def _wanted(member: zipfile.ZipInfo) -> bool:
    """A file of a known format, not a folder, a macOS resource fork or a hidden file."""
    base = member.filename.replace("\\", "/").rsplit("/", 1)[-1]
    if member.is_dir() or not base or base.startswith(".") or "__MACOSX/" in member.filename:
        return False
    return os.path.splitext(base)[1].lower() in KNOWN_EXTENSIONS


def _member_name(member: zipfile.ZipInfo) -> str:
    """The member's name as its maker wrote it: a ZIP made on a Chinese Windows names its
    members in GBK without the UTF-8 flag (``zipfile`` then decodes them as CP437)."""
    name = member.filename
    if not member.flag_bits & 0x800:
        raw = name.encode("cp437", errors="replace")
        for encoding in ("utf-8", "gbk"):
            try:
                name = raw.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    return name.replace("\\", "/")


class FormReader:
    """A ``multipart/form-data`` body read as it arrives: each ``document`` or ``source`` file
    part streamed into ``folder``, other fields dropped. ``feed`` raises ``TooLarge`` once the
    body passes ``max_bytes`` (so a body without a Content-Length is cut off too) and
    ``ValueError`` on a body that is not multipart."""

    def __init__(self, folder: UploadFolder, content_type: str) -> None:
        from python_multipart.multipart import MultipartParser, parse_options_header

        kind, options = parse_options_header(content_type)
        boundary = options.get(b"boundary")
        if kind != b"multipart/form-data" or not boundary:
            raise ValueError("the body must be multipart/form-data with files named document")
        self.folder = folder
        self.received = 0
        self._field = b""
        self._value = b""
        self._headers: dict[bytes, bytes] = {}
        self._handle: BinaryIO | None = None
        self._parse = parse_options_header
        self._parser = MultipartParser(boundary, {
            "on_part_begin": self._begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_done,
            "on_part_data": self._data,
            "on_part_end": self._end,
        })  # fmt: skip

    def feed(self, chunk: bytes) -> None:
        self.received += len(chunk)
        if self.received > self.folder.limits.max_bytes:
            raise TooLarge(f"the request is over {self.folder.limits.max_bytes >> 20} MB")
        self._parser.write(chunk)

    def finish(self) -> None:
        self._parser.finalize()
        self.close()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def _begin(self) -> None:
        self._headers = {}

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._field.lower()] = self._value
        self._field = self._value = b""

    def _headers_done(self) -> None:
        _, options = self._parse(self._headers.get(b"content-disposition", b""))
        role = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if role in ROLES and filename is not None:
            _, self._handle = self.folder.new_file(role, filename.decode("utf-8", "replace"))

    def _data(self, data: bytes, start: int, end: int) -> None:
        if self._handle is not None:
            self._handle.write(data[start:end])

    def _end(self) -> None:
        self.close()
