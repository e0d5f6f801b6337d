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


def test_cache_info_shows_the_sentence_cache_after_the_scans() -> None:
    """The sentence cache's block of ``simdup cache info`` (golden): what it holds, none yet,
    or a file that cannot be read (its size, and what removes it)."""
    from simdup.report.store import render_cache_info
    from simdup.store.sentence_vectors import SentenceCacheInfo

    held = SentenceCacheInfo("s.sqlite", True, 1, 60, 147_000_000, 1 << 30, ("model-a",))
    out = io.StringIO()
    render_cache_info("c", None, 1 << 31, "text", out, held)
    assert out.getvalue().split("\n\n", 1)[1] == (
        "sentence cache  s.sqlite (check --semantic)\n"
        "  sentences     60 of 1 source\n"
        "  model         model-a\n"
        "  size          147,000,000 bytes\n"
        "  bound         1,073,741,824 bytes of vectors (least recently used dropped past it)\n"
    )
    none = io.StringIO()
    render_cache_info("c", None, 1 << 31, "text", none, SentenceCacheInfo("s.sqlite", False))
    assert none.getvalue().endswith("sentence cache  s.sqlite (check --semantic)\n  none yet\n")
    broken = io.StringIO()
    damaged = SentenceCacheInfo("s.sqlite", True, bytes=10, error="not a simdup database")
    render_cache_info("c", None, 1 << 31, "text", broken, damaged)
    assert (
        "  cannot be read: not a simdup database (simdup cache clear removes it)\n"
        "  size          10 bytes\n"
    ) in broken.getvalue()
