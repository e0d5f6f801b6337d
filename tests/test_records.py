"""simdup.records: the records that cross between processes pickle to themselves."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from simdup.records import FingerprintedDocument, SkippedFile, SourceFile

RECORDS = [
    SourceFile("docs/a.txt", 10, device=3, inode=4, follow=True, mtime_ns=5),
    SkippedFile("docs/b.bin", "decode", "binary file", failure=False),
    FingerprintedDocument(
        "docs/c.txt", 2**64 - 1, "gb18030", "detected", 11, 12, 13, "ff" * 16, 14,
        sketch=b"\x01" * 40, minhash=b"\x02" * 128,
    ),
]  # fmt: skip


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_pickle_with_every_field(record: object) -> None:
    """Records pickle as plain tuples (faster than a slotted dataclass's own state): every
    field, none at its default, survives the round trip, and a new field cannot be forgotten
    in ``__reduce__`` without this failing."""
    assert dataclasses.is_dataclass(record)
    copy = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    assert copy == record and type(copy) is type(record)
    constructor, args = record.__reduce__()  # type: ignore[misc]
    assert len(args) == len(dataclasses.fields(record))
    for field in dataclasses.fields(record):
        assert getattr(record, field.name) != field.default, field.name


def test_source_files_as_columns_give_back_every_record() -> None:
    """``SourceFiles`` (discovery's columns) is the records it was made of: indexed, from
    the end, iterated, sliced (a ``SourceFiles`` again, as a batch of work pickles it),
    reordered with ``take``."""
    from simdup.records import SourceFiles

    records = [
        SourceFile(f"docs/{n}.txt", 2**40 + n, device=2**63 + n, inode=n, follow=n % 2 == 0,
                   mtime_ns=10**18 + n)
        for n in range(7)
    ]  # fmt: skip
    files = SourceFiles.of(records)
    assert SourceFiles.of(files) is files
    assert list(files) == records and files == records and records == files
    assert [files[i] for i in range(7)] == records and files[-1] == records[-1]
    part = files[2:5]
    assert isinstance(part, SourceFiles) and list(part) == records[2:5]
    copy = pickle.loads(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    assert list(copy) == records[2:5]
    assert list(files.take([6, 0, 3])) == [records[6], records[0], records[3]]
    with pytest.raises(IndexError):
        files[7]
