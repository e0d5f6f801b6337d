"""simdup.report.json: the file records a JSON report writes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st


@given(
    st.one_of(  # names as POSIX gives them: any bytes, undecodable ones as surrogates
        st.text(min_size=1),
        st.binary(min_size=1).map(lambda b: b.decode("utf-8", "surrogateescape")),
    ),
    st.integers(0, 2**64 - 1),
    st.text(max_size=12),
    st.text(max_size=12),
    st.integers(0, 2**62),
    st.text(max_size=40),
)
def test_file_lines_are_the_encoded_file_records(
    path: str, fp: int, encoding: str, source: str, number: int, content_hash: str
) -> None:
    """The file records a JSON report writes directly are ``json.dumps`` of ``file_record``
    (quotes, backslashes, controls and non-ASCII included)."""
    import dataclasses
    import json

    from simdup.document_table import DocumentTable
    from simdup.records import FingerprintedDocument
    from simdup.report.json import file_lines, file_record

    doc = FingerprintedDocument(
        path, fp, encoding, source, number, number + 1, number + 2, content_hash, number + 3
    )
    [line] = file_lines([doc])
    assert line == json.dumps(file_record(doc), ensure_ascii=False)
    assert json.loads(line) == file_record(doc)
    # A scan's table is written from its columns: the same text (canonical hashes as bytes).
    canonical = dataclasses.replace(doc, content_hash=f"{fp:032x}"[-32:])
    lines = list(file_lines([doc, canonical]))
    assert list(file_lines(DocumentTable.of([doc, canonical]))) == lines
