"""The passage entries of the scan cache (``store.passages``): what is stored is read back the
same, places and how a pair was found included; only the most recently used few are kept."""

from __future__ import annotations

import os
from pathlib import Path

from simdup.passages.store import KEEP, PassageStore, passage_key
from simdup.records import PassagePair, PassageSpan, Place, RepeatedPassage
from simdup.store.cache import PASSAGES, ScanCache


def _span(path: str, line: int, place: Place | None = None) -> PassageSpan:
    preview = "Préview \udce9"  # a surrogate: a file name or text not valid UTF-8
    return PassageSpan(path, line, line + 4, 10 * line, 10 * line + 300, 55, preview, place)


def test_an_entry_reads_back_what_was_stored(tmp_path: Path) -> None:
    pairs = (
        PassagePair(_span("a.pdf", 3, Place("page", "12", "13")), _span("b.txt", 8), 0.875),
        PassagePair(_span("c.docx", 1, Place("paragraph", "4", "4")), _span("d", 2), 1.0,
                    "reworded"),
    )  # fmt: skip
    repeated = (RepeatedPassage(2, (_span("a.pdf", 40), _span("c.docx", 9))),)
    stats = {"documents": 4, "candidates": 2, "files_unreadable": 0}
    with ScanCache(tmp_path / "cache") as cache:
        store = PassageStore(cache)
        key = passage_key({"passages": {"min_words": 25}}, [("a.pdf", "00" * 16)], [("a", "b")])
        store.save(key, pairs, repeated, stats)
        stored = store.load(key)
        assert cache.info().passages == 1
    assert stored is not None
    assert stored.pairs == pairs and stored.repeated == repeated and stored.stats == stats
    assert [(p.a.preview, p.a.place, p.how) for p in stored.pairs] == [
        (p.a.preview, p.a.place, p.how) for p in pairs
    ]
    # Previews are the documents' text: the entry is its owner's alone, whatever the umask.
    (entry,) = (tmp_path / "cache").glob("*" + PASSAGES)
    assert entry.stat().st_mode & 0o077 == 0


def test_the_key_changes_with_what_passages_depend_on() -> None:
    settings = {"passages": {"min_words": 25}, "max_previews": 40}
    files = [("a", "11" * 16), ("b", "22" * 16)]
    key = passage_key(settings, files, [("a", "b")])
    assert key == passage_key(settings, files, [("a", "b")])
    assert key != passage_key({**settings, "max_previews": 0}, files, [("a", "b")])
    assert key != passage_key(settings, [("a", "11" * 16), ("b", "33" * 16)], [("a", "b")])
    assert key != passage_key(settings, files[::-1], [("a", "b")])
    assert key != passage_key(settings, files, [])


def test_only_the_most_recently_used_entries_are_kept(tmp_path: Path) -> None:
    with ScanCache(tmp_path / "cache") as cache:
        store = PassageStore(cache)
        keys = [passage_key({"n": n}, [], []) for n in range(KEEP + 3)]
        for n, key in enumerate(keys):
            store.save(key, (), (), {"n": n})
            path = os.path.join(cache.path, key + PASSAGES)
            os.utime(path, ns=(n * 10**9, n * 10**9))  # one second apart, in order
        assert store.load(keys[0]) is None  # dropped
        assert [store.load(k) is not None for k in keys[3:]] == [True] * KEEP
        assert len(list((tmp_path / "cache").glob("*" + PASSAGES))) == KEEP
        cache.clear()
        assert not list((tmp_path / "cache").glob("*" + PASSAGES))
