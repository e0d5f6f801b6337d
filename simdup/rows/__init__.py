"""Datasets of rows, each row a document: the wing of the three verbs over rows.

``fingerprints`` (rows read in chunks and fingerprinted by the row engine), ``dedup``
(decisions: which rows to keep, no chaining), ``dedup_files`` (``dedup_files``: a dataset
deduplicated and written back in its format), ``scan_records`` (``scan --records``: rows
scanned as documents), ``audit`` (``dedup --audit``); ``decon/`` (training rows that contain
evaluation items) and ``spans/`` (``dedup --spans``: repeated paragraphs, lines and runs of
sentences cut from rows). Each verb's worker says what a worker does with a chunk of rows;
how chunks reach the workers and come back in order is ``engines.rows``'."""
