"""What a reader is: it turns the bytes of one file into the documents they hold.

A reader never fingerprints and never prints. It yields zero, one or many documents (a
``DecodedDocument``: a stable key, the text, how the bytes became text, and ``Locations``
mapping text offsets to pages, paragraphs or rows), and a ``SkippedFile`` for each part it
cannot read, with the reason. The registry (``simdup.readers``) chooses a reader for a file
by its first bytes, the extension breaking ties; engines run readers inside their workers,
so a slow or crashing extractor stays in a worker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ..records import DecodedDocument, SkippedFile


class Reader(Protocol):
    """Turns the bytes of one file into its documents. ``name`` and ``version`` identify
    what made a document's text (a new version can give other text for the same bytes), with
    the versions of the ``libraries`` it reads with; ``extensions`` (lower case, with the dot)
    name the files it is for; ``contained`` readers run in a child process within the read
    limits (``readers.contained``). ``marks``: byte strings one of which is in the first bytes
    of every file ``sniff`` claims (none for a reader whose ``sniff`` never does): the registry
    asks no reader whose marks a file lacks (most files are text no reader claims)."""

    name: str
    version: str
    extensions: tuple[str, ...]
    marks: tuple[bytes, ...]
    contained: bool
    libraries: tuple[str, ...]

    def sniff(self, head: bytes) -> bool:
        """Whether a file that starts with ``head`` (its first ``HEAD_BYTES``, or all of a
        shorter file) is of this reader's format, by its content alone."""
        ...

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterable[DecodedDocument | SkippedFile]:
        """The documents of the file at ``path`` whose bytes are ``data`` (a generator, for a
        file of many: they are taken one at a time). ``hint`` is what
        this reader recorded of the same file before (``DecodedDocument.encoding``), which
        it may use to read it again alike and faster."""
        ...


# How much of a file the registry looks at to choose its reader.
HEAD_BYTES = 4096


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
