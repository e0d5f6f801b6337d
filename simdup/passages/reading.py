"""Reading files again for their passages: ``read_passages`` (in worker processes when they
pay, largest files first) and ``SourceTexts`` (a source's decoded text by path, for the
previews of the text report). A file that can no longer be read is left out, never fatal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engines import batches, default_jobs
from ..engines.workerpool import WorkerPool, WorkerState
from ..params import FeatureParams
from ..readers import read_document
from ..records import DecodedDocument, SkippedFile, SourceFile
from .documents import DocumentPassages, PassageProcessor, written_text
from .options import PassageOptions

# What a worker process reading files holds, from ``_init_worker``.
_STATE: WorkerState[tuple[PassageProcessor, int]] = WorkerState("reading passages")


def _init_worker(params: FeatureParams, passages: PassageOptions, max_size: int) -> None:
    _STATE.set((PassageProcessor(params, passages), max_size))


def _read(
    proc: PassageProcessor, source: SourceFile | str, max_size: int
) -> DocumentPassages | None:
    """The passages of one file, or None when it can no longer be read (it was fingerprinted
    a moment ago; a file changed since is left out of passage matching, never fatal)."""
    try:
        decoded = read_document(source, max_size)
    except Exception:
        return None
    if isinstance(decoded, SkippedFile):
        return None
    path = source if isinstance(source, str) else source.path
    try:
        return proc.document(
            path,
            decoded.text,
            decoded.locations,
            decoded.origin is not None,
            written_text(decoded.origin),
        )
    except MemoryError:
        return None


def _work_batch(
    batch: tuple[int, Sequence[SourceFile]],
) -> tuple[int, list[DocumentPassages | None]]:
    proc, max_size = _STATE.get()
    start, sources = batch
    return start, [_read(proc, source, max_size) for source in sources]


def _describe_batch(batch: tuple[int, Sequence[SourceFile]]) -> str:
    _, sources = batch
    first = sources[0].path if sources else "?"
    return f"passages of a batch of {len(sources)} files from {first!r}"


def read_passages(
    sources: Sequence[SourceFile],
    params: FeatureParams,
    passages: PassageOptions,
    *,
    max_size: int,
    jobs: int | None = None,
) -> list[DocumentPassages | None]:
    """The passages of each source, in order (None: it could not be read again)."""
    jobs = jobs or default_jobs()
    total_size = sum(s.size for s in sources)
    if jobs == 1 or len(sources) < 4 * jobs or total_size < (1 << 20):
        proc = PassageProcessor(params, passages)
        return [_read(proc, s, max_size) for s in sources]
    _init_worker(params, passages, max_size)  # dictionaries loaded once, before fork
    # Largest first, in batches that shrink towards the end, as the fingerprint engine does.
    order = sorted(range(len(sources)), key=lambda i: (-sources[i].size, i))
    out: list[DocumentPassages | None] = [None] * len(sources)
    with WorkerPool(
        _work_batch,
        jobs,
        initializer=_init_worker,
        initargs=(params, passages, max_size),
        describe=_describe_batch,
    ) as pool:
        for _, (start, results) in pool.results(batches([sources[i] for i in order], jobs)):
            for k, result in enumerate(results):
                out[order[start + k]] = result
    return out


@dataclass(frozen=True)
class SourceTexts:
    """The decoded document of a source by path, read again (None: changed or gone since it was
    read; its passages get no preview). A class, so that worker processes can be sent it."""

    sources: dict[str, SourceFile]
    max_size: int
    # The encoding detection chose for a file when the scan read it: used again.
    detected: dict[str, str] = field(default_factory=dict)

    def __call__(self, path: str) -> DecodedDocument | None:
        try:
            decoded = read_document(self.sources[path], self.max_size, self.detected.get(path))
        except Exception:
            return None
        return None if isinstance(decoded, SkippedFile) else decoded
