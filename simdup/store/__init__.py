"""Stored state: the scan cache (``cache``: a folder of snapshots, ``snapshot`` and
``columns`` their rows and file format) and named indexes (``index``, ``index_layout``,
``index_query``: one SQLite file each, opened by ``database``), and sentence embeddings
kept once (``sentence_vectors``). A scan's use of the cache is ``scanning.cache``'s; the
passages and decontamination items kept beside them are their verbs' (``passages.store``,
``rows.decon.store``)."""
