"""Writers: what simdup writes to a file, each file appearing only complete (``output``)."""
