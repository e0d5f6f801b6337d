"""simdup.options: the options of a scan, checked where they are made."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simdup.options import ScanOptions


def test_options_resolve_once() -> None:
    """replace() keeps validation: a bad radius is refused where the options are made."""
    with pytest.raises(ValueError):
        replace(ScanOptions(), verify_radius=99)
