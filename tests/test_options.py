"""simdup.options: the options of a scan, checked where they are made."""

from __future__ import annotations

from dataclasses import replace

import pytest

import simdup
from simdup.options import ScanOptions


def test_options_resolve_once() -> None:
    """replace() keeps validation: a bad radius is refused where the options are made."""
    with pytest.raises(ValueError):
        replace(ScanOptions(), verify_radius=99)


def test_bad_options_are_config_errors() -> None:
    """Out-of-range options raise ConfigError when the options are built."""
    for bad in (
        {"threshold": 32},
        {"threshold": -1},
        {"min_similarity": 1.5},
        {"cluster_method": "kmeans"},
        {"jobs": 0},
        {"method": "lsh"},
    ):
        with pytest.raises(simdup.ConfigError):
            ScanOptions(**bad)  # type: ignore[arg-type]
