"""simdup.text.variants: the stored table of traditional and variant characters."""

from __future__ import annotations

import pytest


def test_the_stored_variant_table_is_what_opencc_makes():
    """data/ts_chars.txt is rebuilt from the installed OpenCC (the version SOURCE names)."""
    opencc = pytest.importorskip("opencc")
    from importlib import metadata

    from simdup.text import variants

    made_by = variants.SOURCE.split()[1]
    if metadata.version("opencc") != made_by:
        pytest.skip(f"the table was made by opencc {made_by}, {metadata.version('opencc')} is here")
    assert {ord(t): ord(s) for t, s in variants.build().items()} == variants.simplified_forms()
    assert opencc is not None
