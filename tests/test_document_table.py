"""simdup.document_table: documents held as columns give back exactly the records put in."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdup
from simdup.algorithms.minhash import band_keys
from simdup.document_table import DocumentTable, FingerprintBatch, TableBuilder
from simdup.engines import packed
from simdup.records import FingerprintedDocument, SkippedFile

HEX = "0123456789abcdef"

# Content hashes as scans make them (32 lowercase hex digits), and others a stored record may
# hold (empty: a bare stored fingerprint; upper case; another length), kept as given.
content_hashes = st.one_of(
    st.text(HEX, min_size=32, max_size=32),
    st.sampled_from(["", "ABCDEF" * 5 + "AB", "abc", "zz" * 16]),
)


@st.composite
def documents(draw: st.DrawFn, signed: bool) -> FingerprintedDocument:
    return FingerprintedDocument(
        path=draw(st.text(min_size=1, max_size=20)),
        fingerprint=draw(st.integers(0, 2**64 - 1)),
        encoding=draw(st.sampled_from(["utf-8", "gb18030", "utf-16"])),
        encoding_source=draw(st.sampled_from(["utf-8", "bom", "detected"])),
        size=draw(st.integers(0, 2**40)),
        token_count=draw(st.integers(0, 2**31)),
        feature_count=draw(st.integers(0, 2**20)),
        content_hash=draw(content_hashes),
        chars=draw(st.integers(0, 2**40)),
        sketch=draw(st.binary(max_size=64).map(lambda b: b[: len(b) // 4 * 4])),
        minhash=draw(st.binary(min_size=32, max_size=32)) if signed else b"",
    )


document_lists = st.booleans().flatmap(lambda s: st.lists(documents(s), max_size=12))


@settings(max_examples=200)
@given(document_lists)
def test_a_table_gives_back_every_record(docs: list[FingerprintedDocument]) -> None:
    """Iterated, indexed (also from the end), sliced or compared, a table is its records."""
    table = DocumentTable.of(docs)
    assert len(table) == len(docs)
    assert list(table) == docs
    assert [table[i] for i in range(len(docs))] == docs
    assert [table[-i] for i in range(1, len(docs) + 1)] == docs[::-1] if docs else True
    assert table[1:3] == docs[1:3]
    assert table == tuple(docs) and tuple(docs) == table
    assert DocumentTable.of(table) is table
    with pytest.raises(IndexError):
        table[len(docs)]


@settings(max_examples=200)
@given(document_lists)
def test_digest_keys_are_equal_for_equal_content_hashes(docs: list[FingerprintedDocument]) -> None:
    """Equal content hashes have equal keys (the verifier then confirms equal keys)."""
    table = DocumentTable.of(docs)
    keys = table.digest_keys()
    for i, a in enumerate(docs):
        assert table.content_hash(i) == a.content_hash
        for j, b in enumerate(docs):
            if a.content_hash == b.content_hash:
                assert keys[i] == keys[j]


@settings(max_examples=100)
@given(document_lists, st.randoms(use_true_random=False))
def test_batches_arriving_in_any_order_fill_the_table_in_file_order(
    docs: list[FingerprintedDocument], rng: object
) -> None:
    """Results (some skipped) packed in batches, pickled as between processes, put in any
    order: the table of the rows filled is the fingerprinted documents in file order."""
    results: list[FingerprintedDocument | SkippedFile] = []
    for k, doc in enumerate(docs):
        results.append(doc if k % 3 else SkippedFile(doc.path, "decode", "binary file"))
    order = list(range(len(results)))
    rng.shuffle(order)  # type: ignore[attr-defined]
    builder = TableBuilder([r.path for r in results], signatures=True)
    skipped: list[tuple[int, SkippedFile]] = []
    for indexes, batch in packed(((i, results[i]) for i in order), size=4):
        batch = pickle.loads(pickle.dumps(batch))
        assert batch.count == indexes.size
        builder.put(indexes[batch.at], batch)
        skipped += [(int(indexes[k]), s) for k, s in batch.skipped]
    assert sorted(skipped) == [(k, r) for k, r in enumerate(results) if k % 3 == 0]
    expected = [r for r in results if isinstance(r, FingerprintedDocument)]
    assert list(builder.table()) == expected


@settings(max_examples=100)
@given(st.lists(documents(True), max_size=12), st.sampled_from([(2, 2), (4, 1), (1, 3)]))
def test_keyed_batches_carry_band_keys_instead_of_signatures(
    docs: list[FingerprintedDocument], layout: tuple[int, int]
) -> None:
    """With a band layout a batch holds its documents' band keys (those of their signatures)
    and no signatures; a batch of skipped files only has none; the rest is unchanged."""
    results: list[FingerprintedDocument | SkippedFile] = [
        doc if k % 4 else SkippedFile(doc.path, "decode", "binary file")
        for k, doc in enumerate(docs)
    ]
    bands, rows = layout
    for (indexes, batch), (same, plain) in zip(
        packed(enumerate(results), size=3, bands=layout),
        packed(enumerate(results), size=3),
        strict=True,
    ):
        batch = pickle.loads(pickle.dumps(batch))
        assert np.array_equal(indexes, same) and batch.signature is None
        assert batch.band_keys is not None and batch.band_keys.shape == (batch.at.size, bands)
        if plain.signature is not None:
            assert np.array_equal(batch.band_keys, band_keys(plain.signature, bands, rows))
        assert batch.skipped == plain.skipped and batch.sketch == plain.sketch


def test_a_batch_cannot_mix_signed_and_unsigned_documents() -> None:
    signed = FingerprintedDocument("a", 1, "utf-8", "utf-8", 1, 1, 1, "0" * 32, 1, b"", b"x" * 8)
    unsigned = FingerprintedDocument("b", 1, "utf-8", "utf-8", 1, 1, 1, "0" * 32, 1)
    with pytest.raises(ValueError, match="MinHash"):
        FingerprintBatch.pack([signed, unsigned])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_scan_keeps_its_documents_as_a_table(sample_corpus: Path, jobs: int) -> None:
    """A scan's ``files`` are a DocumentTable whose columns agree with its records."""
    result = simdup.scan([str(sample_corpus)], jobs=jobs)
    table = result.files
    assert isinstance(table, DocumentTable) and len(table) > 10
    assert table.fingerprint.tolist() == [d.fingerprint for d in table]
    assert table.chars.tolist() == [d.chars for d in table]
    assert int(table.size.sum()) == result.stats["bytes_read"]
    assert np.array_equal(table.fingerprint, np.array([d.fingerprint for d in table], np.uint64))
