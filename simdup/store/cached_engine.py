"""An engine that reuses the scan cache: unchanged files are never opened, the rest go to the
wrapped engine in one call (so a process pool still shares them out) and are remembered as
each result arrives.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence

from ..discovery import DEFAULT_MAX_SIZE
from ..engines import Engine, Progress, Result, Sink, StreamingEngine, TextTask, in_file_order
from ..errors import StoreError
from ..records import SourceFile
from .cache import DEFAULT_MAX_ENTRIES, FingerprintCache, Warn, cache_inside, default_cache_path


class CachedEngine:
    """``inner``'s results, taken from ``cache`` where it holds them (see
    ``simdup.store.cache``): identical records, in the order of ``files``, with the current
    paths. ``max_size`` bounds what the cache reads to hash a file (default: ``inner``'s)."""

    def __init__(
        self, inner: Engine, cache: FingerprintCache, *, max_size: int | None = None
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.params = inner.params
        if max_size is None:
            max_size = getattr(inner, "max_size", DEFAULT_MAX_SIZE)
        self.max_size: int = max_size

    def run(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[Result]:
        yield from in_file_order(self.completed(files, progress), len(files))

    def completed(
        self, files: Sequence[SourceFile], progress: Progress | None = None
    ) -> Iterator[tuple[int, Result]]:
        """``(index in files, result)``: the cache's hits first, then the wrapped engine's
        results as it finishes them, each stored as it comes (one transaction per batch), so
        a run killed midway keeps every fingerprint finished before its last batch."""
        key = self.params.cache_key()
        found = self.cache.lookup(key, files, self.max_size)
        held = found.results
        missed = [i for i, r in enumerate(held) if r is None]
        total, hits = len(files), len(files) - len(missed)
        if progress and hits:
            progress(hits, total)
        for i, hit in enumerate(held):
            if hit is not None:
                held[i] = None  # the caller holds it now
                yield i, hit
        if not missed:
            self.cache.flush()  # the last-use stamps of the hits
            return
        inner_progress = None
        if progress is not None:
            report = progress

            def inner_progress(done: int, _: int) -> None:
                report(hits + done, total)

        work = [files[i] for i in missed]
        if isinstance(self.inner, StreamingEngine):
            computed = self.inner.completed(work, inner_progress)
        else:
            computed = enumerate(self.inner.run(work, inner_progress))
        try:
            for j, result in computed:
                i = missed[j]
                hashed = found.hashes.get(i)
                if hashed is not None:
                    self.cache.add(key, files[i], hashed[0], hashed[1], result)
                yield i, result
        except (Exception, GeneratorExit):
            self.cache.flush()
            raise
        # Not on Ctrl-C or SIGTERM: a stopped run must end at once, not wait for a lock.
        self.cache.flush()

    def with_task(self, task: TextTask, sink: Sink) -> CachedEngine | None:
        """The same cache in front of the wrapped engine running ``task``: the files the
        cache answers are not read, so ``task`` sees only the others (None when the wrapped
        engine cannot run it)."""
        inner = self.inner.with_task(task, sink)
        return None if inner is None else self.with_inner(inner)

    def with_inner(self, inner: Engine) -> CachedEngine:
        """The same cache in front of another engine (with the same parameters)."""
        if inner.params != self.params:
            raise ValueError("the engine's parameters are not the cache's")
        return CachedEngine(inner, self.cache, max_size=self.max_size)

    def close(self) -> None:
        """Close the cache (writing what is queued)."""
        self.cache.close()


def with_cache(
    engine: Engine,
    roots: Iterable[str | os.PathLike[str]],
    path: str | os.PathLike[str] | None = None,
    *,
    warn: Warn | None = None,
    max_entries: int = DEFAULT_MAX_ENTRIES,
) -> Engine:
    """``engine`` behind the scan cache at ``path`` (None: ``default_cache_path()``), for a
    scan of ``roots``; or ``engine`` itself, with a warning to ``warn``, when the cache file
    is inside one of ``roots`` (a cache is never part of what is scanned) or the default cache
    cannot be opened (a read-only home, say). A cache named explicitly that cannot be used
    raises ``StoreError``: the user asked for that file."""
    say = warn or (lambda message: None)
    cache_path = default_cache_path() if path is None else os.fspath(path)
    inside = cache_inside(cache_path, [os.fspath(r) for r in roots])
    if inside is not None:
        say(f"scan cache {cache_path} is inside {inside}, which is scanned: cache not used")
        return engine
    try:
        cache = FingerprintCache(path, max_entries=max_entries, warn=warn)
    except StoreError as exc:
        if path is not None:
            raise
        say(f"scan cache {exc}: cache not used")
        return engine
    return CachedEngine(engine, cache)
