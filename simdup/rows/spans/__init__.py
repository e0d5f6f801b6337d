"""``dedup --spans``: repeated paragraphs, lines and runs of sentences removed from every row
but the first that has them (``run.dedup_spans``): ``units`` cuts one text into units and
windows, ``worker`` does it to a chunk of rows in a worker process."""

from .run import SpansResult, dedup_spans

__all__ = ["SpansResult", "dedup_spans"]
