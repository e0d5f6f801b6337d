"""simdup: find near-duplicate documents with SimHash.

>>> import simdup
>>> simdup.hamming(simdup.fingerprint("some text"), simdup.fingerprint("some text"))
0
"""

from .__about__ import __version__
from .comparing import compare
from .errors import ConfigError, InputError, MissingExtraError, SimdupError
from .index import BlockIndex, near_pairs
from .options import ScanOptions
from .params import ALGORITHM_VERSION, FeatureParams
from .processor import fingerprint
from .records import Cluster, ClusterMember, Comparison, DuplicatePair, ScanResult, SkippedFile
from .scanning import scan
from .simhash import hamming
from .store.index import Index, IndexMatch, IndexStats

__all__ = [
    "ALGORITHM_VERSION",
    "BlockIndex",
    "Cluster",
    "ClusterMember",
    "Comparison",
    "ConfigError",
    "DuplicatePair",
    "FeatureParams",
    "Index",
    "IndexMatch",
    "IndexStats",
    "InputError",
    "MissingExtraError",
    "ScanOptions",
    "ScanResult",
    "SimdupError",
    "SkippedFile",
    "__version__",
    "compare",
    "fingerprint",
    "hamming",
    "near_pairs",
    "scan",
]
