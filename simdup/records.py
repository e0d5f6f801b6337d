"""Plain records that flow between the pipeline stages.

file (``SourceFile``) -> ``DecodedDocument`` -> ``FeatureVector`` -> ``FingerprintedDocument``
-> ``DuplicatePair`` -> ``Cluster`` -> ``ScanResult``. A file that drops out at any stage becomes
a ``SkippedFile`` saying where and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

import numpy as np


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A regular file found by discovery. ``path`` is as the user will see it.

    ``device`` and ``inode`` identify the file discovery found (0: not known); it is read only
    if the file opened at ``path`` is still that one. ``follow`` says whether ``path`` may end
    in a symbolic link (the user named one, or ``--follow-symlinks``): otherwise a link found
    there when reading was put there after discovery and is not followed. ``mtime_ns`` is the
    modification time discovery saw (0: not known), which lets the scan cache reuse a file's
    fingerprint without opening it.
    """

    path: str
    size: int
    device: int = 0
    inode: int = 0
    follow: bool = False
    mtime_ns: int = 0

    # Records pickle as plain tuples: a slotted dataclass's own pickling looks its fields up
    # for every object (1.6x slower over the 10^5 records a scan sends between processes).
    def __reduce__(self) -> tuple[type[SourceFile], tuple[str, int, int, int, bool, int]]:
        return SourceFile, (self.path, self.size, self.device, self.inode, self.follow,
                            self.mtime_ns)  # fmt: skip


class SourceFiles(Sequence[SourceFile]):
    """Files found by discovery, as columns: ``paths`` and one numpy array per number.

    A million ``SourceFile`` objects cost ~330 bytes each (the object, an int object per
    number); as columns, ~150 (mostly the path). ``files[i]`` makes the record; a slice is
    a ``SourceFiles`` again (what a batch of work pickles: a few arrays, not a record per
    file)."""

    def __init__(
        self,
        paths: list[str],
        size: np.ndarray,
        device: np.ndarray,
        inode: np.ndarray,
        follow: np.ndarray,
        mtime_ns: np.ndarray,
    ) -> None:
        self.paths = paths
        self.size = size  # int64
        self.device = device  # uint64
        self.inode = inode  # uint64
        self.follow = follow  # bool
        self.mtime_ns = mtime_ns  # int64

    @classmethod
    def of(cls, files: Iterable[SourceFile]) -> SourceFiles:
        """``files`` as columns (itself when it is a ``SourceFiles``)."""
        if isinstance(files, SourceFiles):
            return files
        items = list(files)
        return cls(
            [f.path for f in items],
            np.array([f.size for f in items], dtype=np.int64),
            np.array([f.device for f in items], dtype=np.uint64),
            np.array([f.inode for f in items], dtype=np.uint64),
            np.array([f.follow for f in items], dtype=bool),
            np.array([f.mtime_ns for f in items], dtype=np.int64),
        )

    def take(self, rows: Sequence[int] | np.ndarray) -> SourceFiles:
        """The files at ``rows``, in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        paths = self.paths
        return SourceFiles(
            [paths[r] for r in rows.tolist()], self.size[rows], self.device[rows],
            self.inode[rows], self.follow[rows], self.mtime_ns[rows],
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> SourceFile: ...

    @overload
    def __getitem__(self, index: slice) -> SourceFiles: ...

    def __getitem__(self, index: int | slice) -> SourceFile | SourceFiles:
        if isinstance(index, slice):
            return SourceFiles(
                self.paths[index], self.size[index], self.device[index], self.inode[index],
                self.follow[index], self.mtime_ns[index],
            )  # fmt: skip
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("source file index out of range")
        return SourceFile(
            self.paths[index], int(self.size[index]), int(self.device[index]),
            int(self.inode[index]), bool(self.follow[index]), int(self.mtime_ns[index]),
        )  # fmt: skip

    def __iter__(self) -> Iterator[SourceFile]:
        return map(
            SourceFile, self.paths, self.size.tolist(), self.device.tolist(),
            self.inode.tolist(), self.follow.tolist(), self.mtime_ns.tolist(),
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same records (a list of them, another table)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that was not fingerprinted: the stage that dropped it and why."""

    path: str
    stage: str  # discovery | read | decode | features | internal
    reason: str
    # False for files passed over on purpose (a second path to a file already read, a symbolic
    # link not followed, a special file, a file over --max-size): --strict ignores those.
    failure: bool = True

    def __reduce__(self) -> tuple[type[SkippedFile], tuple[str, str, str, bool]]:
        return SkippedFile, (self.path, self.stage, self.reason, self.failure)


@dataclass(frozen=True, slots=True)
class SkippedRow(SkippedFile):
    """A row of a dataset that is no document (stage ``row``): ``path`` is its key as a
    document's would be (its id when it has one that can be read, else ``file#row``), and where
    it is: its ``file``, ``row`` (0-based; -1: given in memory without a file) and ``line``
    (1-based, the line its reason names; None in Parquet and in memory), and its ``id`` (None:
    none readable)."""

    file: str = ""
    row: int = -1
    line: int | None = None
    id: str | None = None

    @classmethod
    def of(
        cls, file: str, row: int, reason: str, line: int | None = None, ident: str | None = None
    ) -> SkippedRow:
        """The record of row ``row`` of ``file``, keyed by ``ident`` when it has one that can be
        read, else ``file#row`` (line -1 is None: the row has none)."""
        key = ident if ident is not None else f"{file}#{row}"
        at = line if line is None or line >= 0 else None
        return cls(key, "row", reason, file=file, row=row, line=at, id=ident)

    def __reduce__(self) -> tuple[type[SkippedRow], tuple[Any, ...]]:  # type: ignore[override]
        return SkippedRow, (self.path, self.stage, self.reason, self.failure, self.file,
                            self.row, self.line, self.id)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Locations:
    """Where the parts of a document's text come from, for reports: ``kind`` names the parts
    ("page", "paragraph", "chapter", "row"), ``starts[i]`` is the text offset (in code points)
    where part ``i`` begins (ascending, the first 0) and ``labels[i]`` is how a report names it
    (a printed page label such as "iv", a paragraph number). A plain text has none: its lines
    are its locations, found in the text itself."""

    kind: str
    starts: tuple[int, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.starts) != len(self.labels):
            raise ValueError("locations need one label per start")
        # sorted() of ascending starts is one linear pass in C (a generator over the pairs
        # cost ~40 us a document of 500 lines).
        if list(self.starts) != sorted(self.starts):
            raise ValueError("location starts must ascend")

    def at(self, offset: int) -> str | None:
        """The label of the part holding text offset ``offset`` (None before the first)."""
        from bisect import bisect_right

        part = bisect_right(self.starts, offset) - 1
        return self.labels[part] if part >= 0 else None

    def place(self, start: int, end: int) -> Place | None:
        """Where text offsets ``start:end`` are: the parts holding their first and last
        characters (None when the range lies before the first part)."""
        last = self.at(max(start, end - 1))
        if last is None:
            return None
        return Place(self.kind, self.at(start) or last, last)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a region of a document is, in the parts its reader found (``Locations``): the
    ``kind`` of part and the labels of the first and the last it spans. Reports write it
    ``p. 12 (iv)``, ``pp. 12-13``, ``¶ 41-43``, ``ch. Introduction``."""

    kind: str
    first: str
    last: str

    def label(self) -> str:
        """How a report names the place."""
        span = self.first if self.first == self.last else f"{self.first}-{self.last}"
        if self.kind == "page":
            return f"p. {span}" if self.first == self.last else f"pp. {span}"
        if self.kind == "paragraph":
            return f"¶ {span}"
        if self.kind == "chapter":
            return (
                f"ch. {self.first}"
                if self.first == self.last
                else (f"ch. {self.first} to {self.last}")
            )
        if self.kind == "line":
            return f"line {span}" if self.first == self.last else f"lines {span}"
        return f"{self.kind} {span}"


@dataclass(frozen=True, slots=True)
class FileText:
    """The file's decoded characters when its reader made other text of them (``markup``:
    "markdown" or "html"), so that offsets in that text can be given back in the file's
    (``text.file_offsets``). Plain text has none (its text is the file's characters), nor
    do extracted formats (PDF, Word, EPUB...: their offsets are in the extracted text)."""

    text: str
    markup: str


@dataclass(frozen=True, slots=True)
class DecodedDocument:
    """One document a reader made of a file: its key (``path``: the file's path, or the path
    and the document's place in it for a file of many), its text, how the bytes became text,
    and where its parts come from (``locations``; None: the lines of the text)."""

    path: str
    text: str
    encoding: str
    # "bom" and "utf-8" are certain; "detected" came from chardet; "fallback" means
    # undecodable bytes were replaced.
    encoding_source: str
    confidence: float
    size: int
    locations: Locations | None = None
    # The file's own characters when the text is a rendering of them (Markdown, HTML).
    origin: FileText | None = None


@dataclass(frozen=True, slots=True)
class FeatureVector:
    """Weighted terms of one document plus the facts needed to verify and report it.

    Term ``i`` is ``term_table[slots[i]]`` and has 64-bit hash ``hashes[i]`` and weight
    ``weights[i]``. The table is the process's vocabulary (never changed, only appended to), so
    the term strings are only gathered when asked for (``terms``): a scan never needs them.
    """

    term_table: Sequence[str]
    slots: np.ndarray  # int64 indices into term_table
    hashes: np.ndarray  # uint64
    weights: np.ndarray  # float64
    token_count: int
    chars: int  # length of the whitespace-collapsed text
    # xxh3-128 of the comparison form (``text.normalize.comparison_form``): equal means "exact
    # duplicate".
    content_hash: str
    # The hashes of the words of the markup removed before weighting (URLs, link targets,
    # tags, front matter; ``features.markup_word_hashes``): not features (they would make
    # unrelated documents collide), but words of the text all the same, which the word set
    # that verifies a pair counts.
    markup_hashes: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))
    # The comparison form itself (what a short text is judged by).
    form: str = ""
    # A short text's form with its blocks marked (``text.normalize.block_form``; the form
    # itself for a long text): what its record keeps, for the block-move similarity.
    blocks: str = ""

    @property
    def terms(self) -> list[str]:
        return list(map(self.term_table.__getitem__, self.slots.tolist()))

    @property
    def word_hashes(self) -> np.ndarray:
        """The hashes of the document's word set: its terms and the words of its markup (with
        repeats; a sketch keeps distinct values)."""
        if not self.markup_hashes.size:
            return self.hashes
        return np.concatenate((self.hashes, self.markup_hashes))

    def __len__(self) -> int:
        """The number of distinct terms."""
        return int(self.slots.size)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.terms, self.weights.tolist(), strict=True))


@dataclass(frozen=True, slots=True)
class FingerprintedDocument:
    path: str
    fingerprint: int
    encoding: str
    encoding_source: str
    size: int
    token_count: int
    feature_count: int
    content_hash: str
    chars: int
    # What verifies the document against another. A text of ``SHORT_TEXT_CHARS`` characters or
    # more: the bottom-k sketch of its word set (little-endian uint32, ascending). A shorter one:
    # its comparison form (UTF-8), compared by edit similarity (``join.verify``).
    sketch: bytes = field(repr=False, default=b"")
    # MinHash signature (little-endian uint64), only for --method minhash.
    minhash: bytes = field(repr=False, default=b"")

    def minhash_array(self) -> np.ndarray:
        return np.frombuffer(self.minhash, dtype="<u8")

    def __reduce__(self) -> tuple[type[FingerprintedDocument], tuple[Any, ...]]:
        return FingerprintedDocument, (
            self.path, self.fingerprint, self.encoding, self.encoding_source, self.size,
            self.token_count, self.feature_count, self.content_hash, self.chars, self.sketch,
            self.minhash,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    a: str
    b: str
    distance: int
    # Estimated Jaccard similarity of the two word sets, when verification computed it.
    similarity: float | None
    exact: bool


@dataclass(frozen=True, slots=True)
class ClusterMember:
    path: str
    distance: int  # Hamming distance to the representative (0 for the representative)
    similarity: float | None
    exact_duplicate: bool  # same normalised text as the representative


@dataclass(frozen=True, slots=True)
class Cluster:
    id: int
    representative: str
    members: tuple[ClusterMember, ...]
    max_distance: int  # largest Hamming distance between any two members


@dataclass(frozen=True, slots=True)
class PassageSpan:
    """Lines ``start_line..end_line`` (1-based, inclusive, of the file as stored) of ``path``,
    which are code points ``start_char:end_char`` of its decoded characters (of the text
    extracted from a PDF, Word, ODT, EPUB or RTF file, whose ``place`` says where) and hold
    ``words`` words. ``read_start:read_end``: the same in the text its reader made of a
    Markdown or HTML file (None: ``start_char:end_char``, the text being the file's or the
    extracted one). ``preview``: the first characters of the passage, for text and HTML
    output only."""

    path: str
    start_line: int
    end_line: int
    start_char: int
    end_char: int
    words: int
    preview: str = field(default="", compare=False)
    # Where it is in the parts its reader found (pages of a PDF, paragraphs of a Word file);
    # None for a plain text, whose lines say where.
    place: Place | None = None
    read_start: int | None = None
    read_end: int | None = None

    def as_read(self) -> tuple[int, int]:
        """Its offsets in the text its reader made (the file's for plain text)."""
        if self.read_start is None or self.read_end is None:
            return self.start_char, self.end_char
        return self.read_start, self.read_end


@dataclass(frozen=True, slots=True)
class PassagePair:
    """Two regions that are copies of each other (``scan --passages``); ``similarity``: the
    Jaccard similarity of their token sets; ``how``: "verbatim" (exact runs, a few tokens
    edited) or "reworded" (sentences compared as bags of words, ``--passage-reworded``)."""

    a: PassageSpan
    b: PassageSpan
    similarity: float
    how: str = "verbatim"


@dataclass(frozen=True, slots=True)
class RepeatedPassage:
    """A passage found in ``count`` documents (boilerplate), reported once: where it occurs."""

    count: int
    occurrences: tuple[PassageSpan, ...]


class RowPlace(NamedTuple):
    """Where a row of a dataset is: its input file, its row (0-based) and its line (1-based;
    None in Parquet)."""

    file: str
    row: int
    line: int | None


@dataclass(frozen=True, slots=True)
class ScanResult:
    settings: dict[str, Any]
    files: Sequence[FingerprintedDocument]  # a tuple, or a DocumentTable (a scan's)
    skipped: tuple[SkippedFile, ...]
    pairs: tuple[DuplicatePair, ...]
    clusters: tuple[Cluster, ...]
    stats: dict[str, Any]
    # Only with passages (``settings["passages"]`` is then set): duplicated passages.
    passages: tuple[PassagePair, ...] = ()
    repeated_passages: tuple[RepeatedPassage, ...] = ()
    # Only for rows (``scan --records``): where each document of ``files`` is.
    places: Sequence[RowPlace] | None = None
    # Only with a baseline: the pairs ``(a, b)`` of ``pairs`` it accepts (``outcome``).
    accepted: frozenset[tuple[str, str]] | None = None


@dataclass(frozen=True, slots=True)
class SharedTerm:
    term: str
    weight_a: float
    weight_b: float


@dataclass(frozen=True, slots=True)
class DiffHunk:
    """One changed passage of two texts: lines ``a_start..a_end`` of A (1-based, inclusive;
    ``a_end < a_start`` when A has none there) became lines ``b_start..b_end`` of B."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    a_lines: tuple[str, ...]
    b_lines: tuple[str, ...]
    # Where the lines are in a paged document (PDF pages, Word paragraphs; None: plain text).
    a_place: Place | None = None
    b_place: Place | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    a: FingerprintedDocument
    b: FingerprintedDocument
    distance: int
    simhash_similarity: float
    cosine: float
    jaccard: float
    threshold: int
    near_duplicate: bool
    reason: str  # why the verdict is what it is
    length_ratio: float
    shared_terms: tuple[SharedTerm, ...]
    only_a: tuple[SharedTerm, ...]
    only_b: tuple[SharedTerm, ...]
    settings: dict[str, Any]
    # The changed passages (``compare --explain``), at most MAX_HUNKS of them; empty otherwise.
    diff: tuple[DiffHunk, ...] = ()
    diff_truncated: bool = False


SIMILARITY_BINS = 10  # deciles of the Jaccard estimate


@dataclass(frozen=True)
class Calibration:
    """What ``calibrate`` measured of a corpus (``report.calibration`` renders it)."""

    documents: int
    skipped: int
    radius: int
    # nearest[d]: documents whose nearest neighbour is at distance d (d <= radius)
    nearest: tuple[int, ...]
    # documents with no neighbour within the radius
    isolated: int
    # pairs[d][b]: pairs at distance d whose Jaccard estimate falls in decile b
    pairs: tuple[tuple[int, ...], ...]
    # pairs[d] that also pass the length check of verification
    length_ok: tuple[int, ...]
    settings: dict[str, Any]
