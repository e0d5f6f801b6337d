"""Decontamination: the training rows that contain evaluation items, removed or reported.

``items`` reads evaluation items (rows of JSON Lines, CSV or Parquet, or whole documents) and
tokenises them into an ``EvalIndex``; ``run`` scans training rows for them
(``decontaminate``; ``worker`` does it to a chunk of rows in a worker process) and writes
the rows that contain none, as ``dedup`` writes rows. The rule
of containment is ``algorithms.containment``'s; ``store`` keeps an ``EvalIndex`` in a
file (``--db``).
"""

from .items import EvalIndex, EvalItem, read_items
from .run import DeconResult, decontaminate

__all__ = ["DeconResult", "EvalIndex", "EvalItem", "decontaminate", "read_items"]
