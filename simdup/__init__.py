"""simdup: find near-duplicate documents with SimHash.

>>> import simdup
>>> simdup.hamming(simdup.fingerprint("some text"), simdup.fingerprint("some text"))
0
"""

from typing import TYPE_CHECKING, Any

from .__about__ import __version__
from .errors import ConfigError, InputError, MissingExtraError, SimdupError
from .params import ALGORITHM_VERSION, FeatureParams

if TYPE_CHECKING:
    from .algorithms.index import BlockIndex, near_pairs
    from .algorithms.simhash import hamming
    from .checking import CheckOptions, CheckResult, DocumentCheck, FragmentRule, check
    from .comparing import compare
    from .options import ScanOptions
    from .readers.rows import Row, RowOptions, read_records
    from .records import (
        Cluster,
        ClusterMember,
        Comparison,
        DuplicatePair,
        ScanResult,
        SkippedFile,
    )
    from .rows.dedup import Dedup, dedup_records, dedup_rows
    from .rows.dedup_files import dedup_files
    from .rows.scan_records import scan_rows
    from .rows.spans import SpansResult, dedup_spans
    from .scanning import scan
    from .store.index import Index, IndexMatch, IndexStats
    from .text.processor import fingerprint

# Loaded on first use (PEP 562): `import simdup.cli` must not pay for the whole library (a
# rescan answered from the cache needs no segmenter, no index store, no comparison).
_LAZY = {
    "compare": "comparing",
    "Dedup": "rows.dedup",
    "dedup_records": "rows.dedup",
    "dedup_rows": "rows.dedup",
    "dedup_files": "rows.dedup_files",
    "dedup_spans": "rows.spans",
    "SpansResult": "rows.spans",
    "scan_rows": "rows.scan_records",
    "check": "checking",
    "CheckOptions": "checking",
    "CheckResult": "checking",
    "DocumentCheck": "checking",
    "FragmentRule": "checking",
    "BlockIndex": "algorithms.index",
    "near_pairs": "algorithms.index",
    "ScanOptions": "options",
    "Row": "readers.rows",
    "RowOptions": "readers.rows",
    "read_records": "readers.rows",
    "fingerprint": "text.processor",
    "Cluster": "records",
    "ClusterMember": "records",
    "Comparison": "records",
    "DuplicatePair": "records",
    "ScanResult": "records",
    "SkippedFile": "records",
    "scan": "scanning",
    "hamming": "algorithms.simhash",
    "Index": "store.index",
    "IndexMatch": "store.index",
    "IndexStats": "store.index",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'simdup' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ALGORITHM_VERSION",
    "BlockIndex",
    "CheckOptions",
    "CheckResult",
    "Cluster",
    "ClusterMember",
    "Comparison",
    "ConfigError",
    "Dedup",
    "DocumentCheck",
    "DuplicatePair",
    "FeatureParams",
    "FragmentRule",
    "Index",
    "IndexMatch",
    "IndexStats",
    "InputError",
    "MissingExtraError",
    "Row",
    "RowOptions",
    "ScanOptions",
    "ScanResult",
    "SimdupError",
    "SkippedFile",
    "SpansResult",
    "__version__",
    "check",
    "compare",
    "dedup_files",
    "dedup_records",
    "dedup_rows",
    "dedup_spans",
    "fingerprint",
    "hamming",
    "near_pairs",
    "read_records",
    "scan",
    "scan_rows",
]
