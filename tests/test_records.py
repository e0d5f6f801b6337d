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
