"""Discovery in a child process while this one learns the corpus's words.

A worker's first thousands of files cost it three to four times what the rest do: every line
and word is new to its vocabulary (``text.features.Vocabulary``: segmenting, normalising and
hashing each one once), and each worker process learns them on its own. Discovery, meanwhile,
keeps one core busy walking folders while the other waits. So the walk runs in a forked child
that reports the files as it finds them, and this process reads the first of them and digests
their texts until the walk ends: the workers forked next inherit what it learned (the serial
engine, in this process, uses it directly). On the 10^5-file benchmark tree this halves what
the workers spend learning.

Nothing here decides a result: the vocabulary is a memo, and a text's features are the same
whatever it learned before (the slot numbers it gives terms are never reported). Whatever goes
wrong in the child (it dies, cannot fork, sends what cannot be read) ends in discovery done here
instead, the way a scan always did it.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections import deque
from collections.abc import Sequence
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX (and then no fork either)
    fcntl = None  # type: ignore[assignment]

from ..params import SHORT_TEXT_CHARS, FeatureParams
from ..readers import HEAD_BYTES, reader_for
from ..readers.discovery import Discovery, DiscoveryOptions, find_files
from ..readers.files import read_or_skip
from ..records import DecodedDocument, SkippedFile, SourceFile
from ..text.features import vocabulary
from ..text.normalize import markup_marks, strip_ignorables
from .workerpool import _PARENT_SIGNALS, _die_with_parent, _hold, _release, pool_context

# Files larger than this teach little more than their first lines and would keep this process
# from hearing that the walk ended: left to the workers.
LEARN_MAX_BYTES = 1 << 16
# The files the child reports at most: this process digests a few thousand a second, so more
# would only be sent and dropped. Their records (~100 bytes each) fit the pipe's buffer
# (``_PIPE_BYTES``), so the walk never waits for this process to read them.
LEARN_MAX_FILES = 1 << 13
_PIPE_BYTES = 1 << 20


def discover_while_learning(
    roots: Sequence[str], options: DiscoveryOptions, params: FeatureParams
) -> Discovery:
    """``find_files(roots, options)``, walked by a forked child while this process digests
    the plain texts it reports (``features`` of ``params``'s processor: its vocabulary and memo
    of lines fill). Done here, without learning, where a child cannot be forked."""
    context = pool_context()
    if context.get_start_method() != "fork":
        return find_files(roots, options)
    parent_end, child_end = context.Pipe(duplex=False)
    with contextlib.suppress(OSError, AttributeError):  # Linux; elsewhere the default buffer
        fcntl.fcntl(child_end.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    process = context.Process(
        target=_walk_in_child, args=(child_end, os.getpid(), list(roots), options), daemon=True
    )
    held = _hold(_PARENT_SIGNALS)
    try:
        process.start()
    except OSError:
        return find_files(roots, options)
    finally:
        _release(held)
        child_end.close()
    found: Discovery | None = None
    try:
        found = _learn_until_found(parent_end, params)
    finally:
        parent_end.close()
        if found is None and process.is_alive():
            process.kill()
        process.join()
    return found if found is not None else find_files(roots, options)


def _walk_in_child(conn: Any, parent: int, roots: list[str], options: DiscoveryOptions) -> None:
    """The child: discovery, its files sent as found, then the whole result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in _PARENT_SIGNALS - {signal.SIGINT}:
        signal.signal(signum, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _PARENT_SIGNALS)
    _die_with_parent(parent)
    told = 0

    def tell(files: list[SourceFile]) -> bool:
        nonlocal told
        conn.send(("files", files[: LEARN_MAX_FILES - told]))
        told += len(files)
        return told < LEARN_MAX_FILES

    result: tuple[str, Any]
    try:
        result = ("found", find_files(roots, options, on_files=tell))
    except BaseException as exc:  # the parent walks again itself, and meets it there
        result = ("failed", f"{type(exc).__name__}: {exc}")
    with contextlib.suppress(Exception):
        conn.send(result)
    conn.close()


def _learn_until_found(conn: Any, params: FeatureParams) -> Discovery | None:
    """Digest the files the child reports until its result comes (None: it failed)."""
    from ..text.processor import processor_for

    processor: Any = None
    waiting: deque[SourceFile] = deque()
    while True:
        # Every message waiting is taken before each file: the child never waits on a full
        # pipe for long, and the walk's end stops the learning at once.
        while conn.poll(0 if (waiting and processor) or processor is None else None):
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                return None
            if kind == "found":
                return payload if isinstance(payload, Discovery) else None
            if kind != "files":
                return None
            waiting.extend(payload)
        if processor is None:  # the dictionaries load while the child walks
            try:
                processor = processor_for(params)
            except Exception:  # the engine meets it again and says so; nothing is learned
                processor = False
            continue
        if waiting and processor:
            _learn_from(processor, waiting.popleft())


def _learn_from(processor: Any, source: SourceFile) -> None:
    """Digest one file's text, if it is one a reader in this process reads (not a PDF or
    Word file, which go to a bounded child) and not large. Its record is not kept."""
    if source.size > LEARN_MAX_BYTES:
        return
    data = read_or_skip(source, LEARN_MAX_BYTES)
    if isinstance(data, SkippedFile) or not data:
        return
    reader = reader_for(source.path, data[:HEAD_BYTES])
    if reader.contained:
        return
    with contextlib.suppress(Exception):  # the workers meet whatever this was, and say so
        for document in reader.read(source.path, data, None):
            if isinstance(document, DecodedDocument):
                _digest(processor, document.text)
            break


def _digest(processor: Any, text: str) -> None:
    """Fill the vocabulary with ``text``'s words and lines as ``features`` would: a text
    without markup straight into the vocabulary (its comparison form and the rest are not
    needed here: a third of the time), others the whole way (their words are those left
    once the markup is removed)."""
    text = strip_ignorables(text)
    if len(text) < SHORT_TEXT_CHARS:  # judged by its characters: no words to learn
        return
    if markup_marks(text):
        processor.features(text, words_from=SHORT_TEXT_CHARS)
        return
    vocab = vocabulary(processor.segmenter, processor.stopwords)
    vocab.ensure_room()
    vocab.features(text)
