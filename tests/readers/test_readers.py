"""simdup.readers: the one seam that turns a file into documents.

The registry chooses a reader by the file's first bytes, the extension breaking ties; a reader
yields zero, one or many documents or skip records; a scan's engines take a file as one
document and run the reader inside the worker that fingerprints it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdup
import simdup.readers
from simdup.engines.work import fingerprint_file
from simdup.params import FeatureParams
from simdup.readers import (
    PLAIN_TEXT,
    document_of,
    documents_of,
    read_document,
    read_documents,
    read_named,
    reader_for,
)
from simdup.records import DecodedDocument, Locations, SkippedFile, SourceFile
from simdup.text.processor import DocumentProcessor

WORDS = " ".join(f"word{n} term{n * 7 % 50}" for n in range(60))


class FakeReader:
    """A reader of a made-up format: files starting with ``magic``; each line after the first
    is one document (keys ``path#0``, ``path#1``...), and an empty line is a skip record."""

    version = "1"
    contained = False
    libraries: tuple[str, ...] = ()

    def __init__(self, name: str, magic: bytes, extensions: tuple[str, ...]) -> None:
        self.name = name
        self.magic = magic
        self.extensions = extensions
        self.marks = (magic,)

    def sniff(self, head: bytes) -> bool:
        return head.startswith(self.magic)

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        lines = data.decode("utf-8").split("\n")[1:]
        for n, line in enumerate(lines):
            key = f"{path}#{n}"
            if not line:
                yield SkippedFile(key, "read", "empty row")
            else:
                yield DecodedDocument(key, line, self.name, "certain", 1.0, len(line))


ALPHA = FakeReader("alpha", b"#MAGIC", (".alpha",))
BETA = FakeReader("beta", b"#MAGIC", (".beta",))
GAMMA = FakeReader("gamma", b"#OTHER", (".gamma", ".alpha"))


def test_the_first_bytes_choose_the_reader() -> None:
    """Content decides: a file that starts with a reader's magic goes to it, whatever its
    name; a name alone counts only when no reader knows the content."""
    readers = (ALPHA, GAMMA)
    assert reader_for("doc.txt", b"#MAGIC...", readers) is ALPHA
    assert reader_for("doc.gamma", b"#MAGIC...", readers) is ALPHA
    assert reader_for("doc.gamma", b"plain words", readers) is GAMMA
    assert reader_for("doc.txt", b"plain words", readers) is PLAIN_TEXT
    assert reader_for("no-extension", b"", readers) is PLAIN_TEXT


# The starts of files some reader claims, and of some that none does.
_STARTS = [
    b"%PDF-1.7\n", b"junk %PDF-1.4", b"PK\x03\x04\x14\x00word/document.xml",
    b"PK\x03\x04mimetypeapplication/epub+zip", b"PK\x03\x04mimetypeapplication/vnd.oasis",
    b"<!DOCTYPE html>", b"\xef\xbb\xbf <html lang=en>", b"<!-- c --><html>", b"  {\\rtf1\\ansi",
    b"\xd0\xcf\x11\xe0", b"# A heading", b"",
]  # fmt: skip


@given(st.sampled_from(_STARTS), st.binary(max_size=64), st.sampled_from(_STARTS))
def test_a_reader_claims_only_files_that_hold_one_of_its_marks(
    start: bytes, middle: bytes, end: bytes
) -> None:
    """``marks`` is what lets the registry skip asking a reader: every file a reader's
    ``sniff`` claims holds one of them, and the reader chosen is the one asking every reader
    would choose."""
    head = start + middle + end
    for reader in simdup.readers.READERS:
        if reader.sniff(head):
            assert any(mark in head for mark in reader.marks), reader.name
    for path in ("a.txt", "a.html", "a.docx", "a.epub", "a.odt", "noext"):
        claimed = [r for r in simdup.readers.READERS if r.sniff(head)]
        named = [r for r in simdup.readers.READERS if Path(path).suffix in r.extensions]
        if len(claimed) == 1:
            want = claimed[0]
        else:
            among = [r for r in (claimed or simdup.readers.READERS) if r in named]
            want = among[0] if among else claimed[0] if claimed else PLAIN_TEXT
        assert reader_for(path, head) is want


def test_the_extension_breaks_ties_between_readers_of_the_same_bytes() -> None:
    """Two formats with the same first bytes (ZIP containers, say): the one the extension
    names, else the first offered; the suffix is matched without regard to case."""
    readers = (ALPHA, BETA, GAMMA)
    assert reader_for("x.beta", b"#MAGIC", readers) is BETA
    assert reader_for("x.BETA", b"#MAGIC", readers) is BETA
    assert reader_for("x.alpha", b"#MAGIC", readers) is ALPHA
    assert reader_for("x.other", b"#MAGIC", readers) is ALPHA
    assert reader_for("x.gamma", b"#MAGIC", readers) is ALPHA  # gamma's bytes are not these


def test_plain_text_reads_any_text_file(tmp_path: Path) -> None:
    """Today's files go to the plain-text reader, one document each, located by lines."""
    path = tmp_path / "a.txt"
    path.write_text("第一行\nsecond line\n", encoding="gb18030")
    (doc,) = read_documents(str(path), 1 << 20)
    assert isinstance(doc, DecodedDocument)
    assert doc.path == str(path) and doc.text == "第一行\nsecond line\n"
    assert doc.locations is None  # lines of the text


def test_a_file_of_many_documents_gives_each_with_its_own_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader may yield many documents and skip records from one file, each with a stable
    key of its own; read as one document (what a scan's engines take today), such a file is
    a skip record saying so, and a file with none is one saying that."""
    monkeypatch.setattr(simdup.readers, "READERS", (ALPHA,))
    many = tmp_path / "rows.alpha"
    many.write_bytes(b"#MAGIC\nfirst text\n\nthird text")
    found = list(read_documents(str(many), 1 << 20))
    kinds = [type(f).__name__ for f in found]
    assert kinds == ["DecodedDocument", "SkippedFile", "DecodedDocument"]
    assert [f.path for f in found] == [f"{many}#0", f"{many}#1", f"{many}#2"]
    assert read_document(str(many), 1 << 20) == SkippedFile(
        str(many), "read", "holds 3 documents, not one"
    )
    one = tmp_path / "one.alpha"
    one.write_bytes(b"#MAGIC\nonly text")
    assert read_document(str(one), 1 << 20) == DecodedDocument(
        f"{one}#0", "only text", "alpha", "certain", 1.0, 9
    )
    none = tmp_path / "none.alpha"
    none.write_bytes(b"#MAGIC")
    assert list(read_documents(str(none), 1 << 20)) == []
    assert read_document(str(none), 1 << 20) == SkippedFile(str(none), "read", "no documents in it")


def test_document_of_takes_a_lone_skip_record_as_it_is() -> None:
    skip = SkippedFile("p", "decode", "binary file (NUL bytes)")
    assert document_of("p", iter([skip])) is skip


def test_a_file_that_cannot_be_read_is_one_skip_record(tmp_path: Path) -> None:
    """Reading fails before any reader is chosen: the record says why (stage read)."""
    (found,) = read_documents(str(tmp_path / "missing.txt"), 1 << 20)
    assert isinstance(found, SkippedFile) and found.stage == "read"
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    (found,) = read_documents(SourceFile(str(big), 101), 100)
    assert isinstance(found, SkippedFile) and "max-size" in found.reason


def test_bytes_already_read_go_through_the_same_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard input and a URL's bytes are offered to the readers like a file's."""
    monkeypatch.setattr(simdup.readers, "READERS", (ALPHA,))
    (doc,) = documents_of("-", b"#MAGIC\nfrom stdin")
    assert isinstance(doc, DecodedDocument) and doc.text == "from stdin"
    assert read_named("-", 1 << 20, b"plain stdin").text == "plain stdin"
    with pytest.raises(simdup.InputError, match="holds 2 documents"):
        read_named("-", 1 << 20, b"#MAGIC\na\nb")


def test_engines_fingerprint_what_the_chosen_reader_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The processor (run by every engine in its workers) reads a file through the registry:
    a file in a registered format is fingerprinted from the reader's text, under its key."""
    monkeypatch.setattr(simdup.readers, "READERS", (ALPHA,))
    path = tmp_path / "doc.alpha"
    path.write_bytes(b"#MAGIC\n" + WORDS.encode())
    plain = tmp_path / "doc.txt"
    plain.write_text(WORDS, encoding="utf-8")
    proc = DocumentProcessor(FeatureParams())
    ours = fingerprint_file(proc, SourceFile(str(path), path.stat().st_size), 1 << 20)
    theirs = fingerprint_file(proc, SourceFile(str(plain), plain.stat().st_size), 1 << 20)
    assert not isinstance(ours, SkippedFile) and not isinstance(theirs, SkippedFile)
    assert ours.path == f"{path}#0" and ours.encoding == "alpha"
    assert ours.fingerprint == theirs.fingerprint == simdup.fingerprint(WORDS)


def test_a_reader_that_crashes_is_a_skip_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An extractor's bug never stops a run: the file is a skip record of stage internal."""

    class Broken(FakeReader):
        def read(
            self, path: str, data: bytes, hint: str | None = None
        ) -> Iterator[DecodedDocument]:
            raise RuntimeError("the extractor fell over")
            yield  # pragma: no cover

    monkeypatch.setattr(simdup.readers, "READERS", (Broken("broken", b"#MAGIC", ()),))
    path = tmp_path / "doc.x"
    path.write_bytes(b"#MAGIC\n" + WORDS.encode())
    found = fingerprint_file(DocumentProcessor(FeatureParams()), SourceFile(str(path), 10), 1 << 20)
    assert isinstance(found, SkippedFile) and found.stage == "internal"
    assert "the extractor fell over" in found.reason


def test_locations_name_the_part_holding_an_offset() -> None:
    """``Locations.at``: the label of the part an offset falls in; checked on construction."""
    pages = Locations("page", (0, 100, 250), ("i", "ii", "1"))
    assert [pages.at(o) for o in (0, 99, 100, 249, 250, 10_000)] == ["i", "i", "ii", "ii", "1", "1"]
    assert Locations("row", (5,), ("3",)).at(0) is None
    with pytest.raises(ValueError, match="one label per start"):
        Locations("page", (0, 1), ("i",))
    with pytest.raises(ValueError, match="ascend"):
        Locations("page", (10, 0), ("a", "b"))


def test_a_process_forked_in_a_reading_session_reads_through_a_child_of_its_own(
    tmp_path: Path,
) -> None:
    """Two processes writing to one reading child's pipe would read each other's answers: a
    process forked while a session is open (a worker of ``check``) starts its own child at its
    first contained file; the session's own child is its opener's."""
    import os

    from simdup import readers

    page = tmp_path / "p.html"
    page.write_text("<html><body><p>hello there</p></body></html>", encoding="utf-8")
    with readers.reading_session():
        assert not isinstance(readers.read_document(str(page), 1 << 20), SkippedFile)
        parent = readers._SESSION
        assert parent is not None and parent.pid
        pid = os.fork()
        if pid == 0:  # the worker: exit status 0 only when it read through a child of its own
            ok = False
            try:
                found = readers.read_document(str(page), 1 << 20)
                mine = readers._SESSION
                ok = (not isinstance(found, SkippedFile) and mine is not parent
                      and mine is not None and mine.pid not in (0, parent.pid))  # fmt: skip
            finally:
                os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert readers._SESSION is parent  # the opener's, untouched
