"""Parquet written back as it was read: filtered row group by row group (a batch at a time, so
that a row group is held once, its written rows, not read whole and then copied by the filter),
with the first input's schema, key-value metadata (a ``huggingface`` key included) and
compression; every input must have that schema. A note adds its columns to every row; a
rewritten row has its text column (top-level) replaced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..readers.rows.base import RowOptions
from ..readers.rows.parquet import PARQUET_READ
from .base import Plan, Rewrite
from .output import output_file


def _arrow_type(kind: str) -> Any:
    import pyarrow as pa

    return {"bool": pa.bool_(), "int": pa.int64(), "string": pa.string(),
            "strings": pa.list_(pa.string())}[kind]  # fmt: skip


def write_parquet(inputs: Sequence[str], output: str, options: RowOptions, plan: Plan) -> int:
    """The rows of Parquet ``inputs`` that ``plan`` writes into ``output``, as it says.
    Returns the rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pq.ParquetFile(inputs[0])
    schema = first.schema_arrow
    meta = first.metadata
    compression = (
        meta.row_group(0).column(0).compression.lower() if meta.num_row_groups else "snappy"
    )
    written_schema = schema
    if plan.notes is not None:
        for name, kind in plan.columns:
            written_schema = written_schema.append(pa.field(name, _arrow_type(kind)))
    written = 0
    with output_file(output) as out:
        writer = pq.ParquetWriter(out, written_schema, compression=compression)
        try:
            for f, path in enumerate(inputs):
                source = pq.ParquetFile(path, **PARQUET_READ)
                if not source.schema_arrow.equals(schema, check_metadata=False):
                    raise ConfigError(f"{path}: its schema is not {inputs[0]}'s")
                offset = 0
                for group in range(source.metadata.num_row_groups):
                    batches = []
                    for batch in source.iter_batches(batch_size=8192, row_groups=[group]):
                        numbers = np.arange(offset, offset + batch.num_rows)
                        offset += batch.num_rows
                        chosen = _chosen(batch, numbers, f, options.text_field, plan,
                                         written_schema)  # fmt: skip
                        if chosen.num_rows:
                            batches.append(chosen)
                    if batches:
                        table = pa.Table.from_batches(batches, written_schema)
                        writer.write_table(table)
                        written += table.num_rows
        finally:
            writer.close()
    return written


def _chosen(
    batch: Any,
    numbers: np.ndarray,
    f: int,
    field: str,
    plan: Plan,
    schema: Any,
) -> Any:
    """The rows of a record batch (rows ``numbers`` of input ``f``) as ``plan`` writes them:
    those it keeps, rewritten, with the columns of their notes (``schema``)."""
    import pyarrow as pa

    gone: set[int] = set()
    if plan.rewrite is not None:
        batch, gone = _rewritten_batch(batch, numbers, f, field, plan.rewrite)
    if plan.notes is not None:
        noted = [plan.notes(f, n) for n in numbers.tolist()]
        added = [pa.array([note[name] for note in noted], type=_arrow_type(kind))
                 for name, kind in plan.columns]  # fmt: skip
        batch = pa.RecordBatch.from_arrays([*batch.columns, *added], schema=schema)
        if plan.kept is None and not gone:
            return batch
    kept = plan.kept
    mask = kept[f].of(numbers) if kept is not None else np.ones(numbers.size, dtype=bool)
    if gone:
        mask &= np.array([n not in gone for n in numbers.tolist()], dtype=bool)
    return batch.filter(pa.array(mask))


def _rewritten_batch(
    batch: Any, numbers: np.ndarray, f: int, field: str, rewrite: Rewrite
) -> tuple[Any, set[int]]:
    """A record batch with the text column (top-level) of its rewritten rows changed, and the
    row numbers rewritten to None (to be left out)."""
    import pyarrow as pa

    rows = numbers.tolist()
    changes = {k: change for k, n in enumerate(rows) if (change := rewrite(f, n)) is not None}
    if not changes:
        return batch, set()
    at = batch.schema.get_field_index(field)
    if at < 0:
        raise ConfigError(f"rewriting Parquet rows needs a top-level text column ({field!r})")
    texts = batch.column(at).to_pylist()
    gone: set[int] = set()
    for k, change in changes.items():
        new = change(texts[k])
        if new is None:
            gone.add(rows[k])
        else:
            texts[k] = new
    columns = list(batch.columns)
    columns[at] = pa.array(texts, type=batch.schema.field(at).type)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema), gone
