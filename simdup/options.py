"""The options of a scan (and of compare, calibrate, query): one frozen record, validated once.

``resolve_options`` applies keyword overrides and decides ``method="auto"`` once the number of
files is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .algorithms.clustering import METHODS
from .algorithms.edit_join import JOIN_VERSION
from .algorithms.index import MAX_THRESHOLD
from .errors import ConfigError
from .params import FeatureParams
from .readers import readers_description
from .readers.discovery import DiscoveryOptions

DEFAULT_THRESHOLD = 3
DEFAULT_VERIFY_RADIUS = 12
DEFAULT_MIN_SIMILARITY = 0.8
DEFAULT_MIN_LENGTH_RATIO = 0.9
# Short texts: the project's definition of a near-duplicate itself (README).
DEFAULT_MIN_EDIT_SIMILARITY = 0.9
METHODS_CANDIDATES = ("auto", "simhash", "minhash")
# An exact Hamming join at the verification radius grows with N^2 / 2^(key bits): ~1 s for
# 20,000 documents, ~13 s for 100,000, hours for millions. Above this many files "auto"
# generates candidates with MinHash LSH instead, which grows linearly (same verification).
AUTO_MINHASH_ABOVE = 50_000


@dataclass(frozen=True)
class ScanOptions:
    """Everything a scan needs besides the paths."""

    threshold: int = DEFAULT_THRESHOLD
    features: FeatureParams = field(default_factory=FeatureParams)
    discovery: DiscoveryOptions = field(default_factory=DiscoveryOptions)
    verify: bool = True
    verify_radius: int = DEFAULT_VERIFY_RADIUS
    min_similarity: float = DEFAULT_MIN_SIMILARITY
    min_length_ratio: float = DEFAULT_MIN_LENGTH_RATIO
    # Two short texts (``params.SHORT_TEXT_CHARS``) are near-duplicates at this edit similarity.
    min_edit_similarity: float = DEFAULT_MIN_EDIT_SIMILARITY
    cluster_method: str = "centers"
    jobs: int | None = None  # None: all cores
    # Candidate generation: "simhash" block index, "minhash" LSH, or "auto" (simhash up to
    # AUTO_MINHASH_ABOVE files, minhash above; simhash whenever verification is off).
    method: str = "auto"
    minhash_perms: int = 128

    def __post_init__(self) -> None:
        for name in ("threshold", "verify_radius"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_THRESHOLD:
                raise ConfigError(f"{name} must be between 0 and {MAX_THRESHOLD}, got {value}")
        if not 0.0 <= self.min_similarity <= 1.0:
            raise ConfigError("min_similarity must be between 0 and 1")
        if not 0.0 <= self.min_length_ratio <= 1.0:
            raise ConfigError("min_length_ratio must be between 0 and 1")
        if not 0.7 <= self.min_edit_similarity <= 1.0:
            raise ConfigError("min_edit_similarity must be between 0.7 and 1")
        if self.cluster_method not in METHODS:
            raise ConfigError(f"unknown cluster method {self.cluster_method!r}")
        if self.method not in METHODS_CANDIDATES:
            raise ConfigError(
                f"unknown method {self.method!r} (choose from {', '.join(METHODS_CANDIDATES)})"
            )
        if self.jobs is not None and self.jobs < 1:
            raise ConfigError("jobs must be at least 1")

    @property
    def search_radius(self) -> int:
        """Hamming radius of candidate generation."""
        return max(self.threshold, self.verify_radius) if self.verify else self.threshold

    def describe(self, backend: str) -> dict[str, Any]:
        features = self.features.describe()
        features["segmenter"] = backend
        return {
            "method": self.method,
            "minhash_perms": self.minhash_perms if self.method == "minhash" else None,
            "threshold": self.threshold,
            "verify": self.verify,
            "verify_radius": self.verify_radius if self.verify else None,
            "min_similarity": self.min_similarity if self.verify else None,
            "min_length_ratio": self.min_length_ratio if self.verify else None,
            "min_edit_similarity": self.min_edit_similarity if self.verify else None,
            "edit_join": JOIN_VERSION if self.verify else None,
            "cluster_method": self.cluster_method,
            "features": features,
            "max_size": self.discovery.max_size,
            "read_timeout": self.discovery.read_timeout,
            "read_memory": self.discovery.read_memory,
            "readers": readers_description(),
            "include": list(self.discovery.include),
            "exclude": list(self.discovery.exclude),
            "hidden": self.discovery.hidden,
            "follow_symlinks": self.discovery.follow_symlinks,
            "ignore_files": self.discovery.ignore_files,
        }


def resolve_options(
    options: ScanOptions | None, overrides: dict[str, Any], files: int | None = None
) -> ScanOptions:
    """``options`` (or the defaults) with keyword overrides applied and made consistent; a
    method of "auto" is decided once the number of ``files`` is known."""
    options = (
        replace(options or ScanOptions(), **overrides) if overrides else options or ScanOptions()
    )
    if options.method == "auto" and files is not None:
        large = options.verify and files > AUTO_MINHASH_ABOVE
        options = replace(options, method="minhash" if large else "simhash")
    if options.method == "minhash" and options.features.minhash_perms != options.minhash_perms:
        features = replace(options.features, minhash_perms=options.minhash_perms)
        options = replace(options, features=features)
    return options


def for_rows(options: ScanOptions) -> ScanOptions:
    """``options`` for the rows of a dataset: ``auto`` markup is none (``FeatureParams.for_rows``:
    a row is compared as written unless its markup is named)."""
    features = options.features.for_rows()
    return options if features is options.features else replace(options, features=features)
