"""Stored state: the scan cache and named indexes, in SQLite (``database.py`` opens both)."""
