"""``dedup --spans``: repeated paragraphs, lines and runs of sentences removed from every row
but the first that has them (``run.dedup_spans``)."""

from .run import SpansResult, dedup_spans

__all__ = ["SpansResult", "dedup_spans"]
