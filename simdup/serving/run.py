"""The check of one request's files, and the results the page links to.

The check is ``simdup.checking.check``, as ``simdup check`` runs it, with the files saved by
``uploads``; the result's paths are then the names the client gave (a report shows what the
teacher uploaded, never the server's temporary folder). The sources the server was started
with (``--against``, ``--self``, ``--db``) are used with those uploaded; with no source at all,
the documents are checked against each other (a class).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..checking import CheckOptions, CheckResult, DocumentCheck, MeaningRule, SentenceRule, check
from ..records import SkippedFile
from .uploads import UploadFolder


@dataclass(frozen=True)
class ServerSources:
    """The sources every request is checked against (the server's command line)."""

    against: tuple[str, ...] = ()
    own: tuple[str, ...] = ()
    db: str | None = None

    def any(self) -> bool:
        return bool(self.against or self.own or self.db)


def run_check(
    folder: UploadFolder, sources: ServerSources, *, exact_only: bool, semantic: bool
) -> CheckResult:
    """Check the documents of ``folder`` against its sources and the server's; the result
    names every uploaded file by the name its client gave."""
    documents = [f.path for f in folder.of("document")]
    against = [*(f.path for f in folder.of("source")), *sources.against]
    if not against and not sources.any():
        against = list(documents)  # a class, each document against the others
    options = CheckOptions(
        reworded=None if exact_only else SentenceRule(),
        semantic=MeaningRule() if semantic else None,
    )
    if documents:
        result = check(documents, against=against, own=sources.own, db=sources.db,
                       options=options)  # fmt: skip
    else:
        result = CheckResult((), 0, (), options.describe())
    result = renamed(result, folder.root, folder.names())
    return replace(result, skipped=tuple(sorted(
        (*result.skipped, *folder.failures), key=lambda s: s.path)))  # fmt: skip


def renamed(result: CheckResult, root: str, names: dict[str, str]) -> CheckResult:
    """``result`` with each path under ``root`` replaced by its name in ``names``."""

    def name(path: str) -> str:
        if path in names:
            return names[path]
        # Not a saved file (nothing else is under root): never show the folder.
        return path.removeprefix(root).lstrip("/") if path.startswith(root) else path

    def document(doc: DocumentCheck) -> DocumentCheck:
        return replace(
            doc,
            path=name(doc.path),
            largest_source=None if doc.largest_source is None else name(doc.largest_source),
            sources=tuple(replace(s, source=name(s.source)) for s in doc.sources),
            fragments=tuple(replace(f, source=name(f.source)) for f in doc.fragments),
        )

    return replace(
        result,
        documents=tuple(document(d) for d in result.documents),
        skipped=tuple(replace(s, path=name(s.path)) if type(s) is SkippedFile else s
                      for s in result.skipped),
    )  # fmt: skip


class ResultStore:
    """The latest results by id, for the page's links to each report: at most ``count``,
    each for at most ``seconds`` (a server left running does not grow)."""

    def __init__(self, count: int = 32, seconds: float = 3600.0) -> None:
        self.count = count
        self.seconds = seconds
        self._items: OrderedDict[str, tuple[float, CheckResult]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, result: CheckResult) -> str:
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._drop_old()
            self._items[key] = (time.monotonic(), result)
            while len(self._items) > self.count:
                self._items.popitem(last=False)
        return key

    def get(self, key: str) -> CheckResult | None:
        with self._lock:
            self._drop_old()
            found = self._items.get(key)
        return found[1] if found else None

    def _drop_old(self) -> None:
        limit = time.monotonic() - self.seconds
        for key in [k for k, (at, _) in self._items.items() if at < limit]:
            del self._items[key]


def one_document(result: CheckResult, index: int) -> CheckResult:
    """The result of the ``index``-th document of the report's order alone (its own page)."""
    doc = result.ranked()[index]
    return replace(result, documents=(doc,),
                   skipped=tuple(s for s in result.skipped if s.path != doc.path))  # fmt: skip
