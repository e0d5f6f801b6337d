"""simdup.report.store: what ``simdup cache info`` says."""

from __future__ import annotations

import io


def test_cache_info_says_where_the_cache_is_and_what_it_holds() -> None:
    """``simdup cache info`` (golden), for a cache folder and for none."""
    import json

    from simdup.report.store import render_cache_info
    from simdup.store.cache import CacheInfo

    info = CacheInfo("c", 3, 1234, 5_000_000, 1 << 31, passages=2)
    out = io.StringIO()
    render_cache_info("c", info, 1 << 31, "text", out)
    assert out.getvalue() == (
        "cache        c\n"
        "scans        3 (1,234 files)\n"
        "passages     2 (scan --passages results kept)\n"
        "size         5,000,000 bytes\n"
        "bound        2,147,483,648 bytes (least recently used scans dropped past it)\n"
    )
    none = io.StringIO()
    render_cache_info("c", None, 1 << 30, "json", none)
    assert json.loads(none.getvalue()) == {
        "path": "c", "scans": 0, "files": 0, "passages": 0, "bytes": 0, "max_bytes": 1 << 30
    }
