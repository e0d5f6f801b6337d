"""``scan``: discovery -> engine (fingerprints) -> candidates -> verification -> clusters.

``run`` is the scan itself (``scan``, ``collect_fingerprints``); ``backend`` the one object it
takes for where files are listed, fingerprinted and joined (``Backend``, ``LOCAL``: this
machine); ``cache`` the backend that wraps another with the scan cache (``CachedBackend``:
reuse, fingerprint only what changed, remember). The library never prints and never exits;
progress is reported through a plain callback.
"""

from ..engines.backend import LOCAL as LOCAL
from ..engines.backend import Backend as Backend
from ..engines.backend import Fingerprinted as Fingerprinted
from .cache import RACY_NS as RACY_NS
from .cache import CachedBackend as CachedBackend
from .run import collect_fingerprints as collect_fingerprints
from .run import fingerprint_corpus as fingerprint_corpus
from .run import scan as scan
from .run import scan_cache_key as scan_cache_key

__all__ = ["LOCAL", "Backend", "CachedBackend", "scan"]
