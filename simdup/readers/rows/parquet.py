"""Parquet rows: the text column (and the id and order columns) of a file read a batch at a
time, its column chunks through a small buffer (``PARQUET_READ``), a row group or a run of
them at a time for a Dask partition (``parquet_rows``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import MissingExtraError
from ...records import SkippedFile
from .base import (
    DEFAULT_ID_FIELD,
    PARQUET_CUT,
    UNREADABLE_PARQUET,
    Numbering,
    Row,
    RowOptions,
    field_value,
    record_id,
    record_id_text,
)

# Column chunks read through a 1 MB buffer, page by page, not whole: a row group of 10^5 short
# rows otherwise costs ~200 MB at once (measured: 261 -> 159 MB peak reading 10^5 rows).
PARQUET_READ: dict[str, Any] = {"buffer_size": 1 << 20, "pre_buffer": False}


def parquet_rows(
    path: str, options: RowOptions, groups: range | None = None, first_row: int = 0
) -> Iterator[Row | SkippedFile]:
    """The rows of a Parquet file (of its row groups ``groups``, the first numbered
    ``first_row``: a partition read on a Dask worker)."""
    rows = Numbering(path, options)
    rows.row = first_row
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("reading Parquet rows", "rows") from exc
    try:
        parquet = pq.ParquetFile(path, **PARQUET_READ)
    except Exception as exc:  # pyarrow's errors: a damaged or truncated file
        yield rows.skip(f"{UNREADABLE_PARQUET}: {exc}")
        return
    top = options.text_field.split(".")[0]
    names = parquet.schema_arrow.names
    if top not in names:
        yield rows.skip(f"no column {options.text_field!r} (columns: {', '.join(names)})")
        return
    id_name = options.id_field or DEFAULT_ID_FIELD
    columns = [top] + [f.split(".")[0] for f in (id_name, options.order_field) if f]
    columns = [c for c in dict.fromkeys(columns) if c in names]
    try:
        chosen = list(groups) if groups is not None else None
        for batch in parquet.iter_batches(columns=columns, batch_size=4096, row_groups=chosen):
            for record in batch.to_pylist():
                found, text = field_value(record, options.text_field)
                if not found:
                    reason = f"no text field {options.text_field!r}"
                    yield rows.skip(reason, None, record_id_text(record, options))
                    continue
                found_id, ident = record_id(record, options)
                order = field_value(record, options.order_field)[1] if options.order_field else None
                yield rows.made(text, ident, found_id, None, order)
    except Exception as exc:  # a damaged row group
        yield rows.skip(f"{PARQUET_CUT}: {exc}")


