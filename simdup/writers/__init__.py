"""Writers: what simdup writes to a file, each file appearing only complete (``output``), and
rows written back in the format they were read, one module a format as ``readers/`` reads them
(``jsonl``, ``delimited``, ``parquet``), given what ``base`` describes, through ``rows``."""
