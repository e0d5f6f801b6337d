"""Datasets of rows: each row a document. ``fingerprints`` (rows read in chunks and
fingerprinted by the row engine), ``dedup`` (decisions: which rows to keep, no chaining),
``files`` (``dedup_files``: a dataset deduplicated and written back in its format),
``scanning`` (``scan --records``: rows scanned as documents)."""
