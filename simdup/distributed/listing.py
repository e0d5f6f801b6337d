"""Files behind fsspec URLs (``s3://bucket/prefix``, ``gs://...``, ``hdfs://...``,
``file:///...``), listed in parts for very large trees.

A URL naming a file is that file. A URL naming a folder is listed one level on the client;
each of its sub-folders is then listed whole (``fs.find``) by a Dask task, so a tree of 10^8
objects is listed by all workers at once rather than by one process. The matching package
(``s3fs``, ``gcsfs``, ``pyarrow`` for HDFS) must be installed on the client and on the workers.

The rules of local discovery apply where they have a meaning for object stores: ``--include``
and ``--exclude`` (matched against the name and the path below the URL), hidden names
(``.``-prefixed, unless ``--hidden``) and ``--max-size``. Ignore files, symbolic links and
file identities do not exist there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..readers.discovery import Discovery, DiscoveryOptions, _is_hidden, _matches
from ..records import SkippedFile, SourceFile


def _filesystem(url: str) -> tuple[Any, str]:
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(url)
    return fs, str(root)


def _url(fs: Any, path: str) -> str:
    return str(fs.unstrip_protocol(path))


def list_tree(url: str) -> list[tuple[str, int]]:
    """``(url, size)`` of every file below ``url`` (run on a worker)."""
    fs, root = _filesystem(url)
    found = fs.find(root, detail=True)
    return [(_url(fs, p), int(info.get("size") or 0)) for p, info in sorted(found.items())]


def _relative(url: str, base: str) -> str:
    return url[len(base) :].lstrip("/") if url.startswith(base) else url.rsplit("/", 1)[-1]


def find_urls(
    urls: Sequence[str], options: DiscoveryOptions, client: Any | None = None
) -> Discovery:
    """The files behind ``urls`` in path order, and those passed over (a missing URL, a file
    over ``--max-size``). With ``client``, sub-folders are listed by its workers."""
    files: list[SourceFile] = []
    skipped: list[SkippedFile] = []
    seen: set[str] = set()
    for url in urls:
        try:
            fs, root = _filesystem(url)
            info = fs.info(root)
        except (OSError, ValueError) as exc:
            skipped.append(SkippedFile(url, "discovery", str(exc) or type(exc).__name__))
            continue
        base = _url(fs, root).rstrip("/")
        found: list[tuple[str, int]] = []
        explicit = info.get("type") != "directory"
        if explicit:
            found.append((url, int(info.get("size") or 0)))
        else:
            folders = []
            for entry in fs.ls(root, detail=True):
                if entry.get("type") == "directory":
                    folders.append(_url(fs, entry["name"]))
                else:
                    found.append((_url(fs, entry["name"]), int(entry.get("size") or 0)))
            if client is not None and folders:
                for part in client.gather(client.map(list_tree, folders, pure=False)):
                    found.extend(part)
            else:
                for folder in folders:
                    found.extend(list_tree(folder))
        for path, size in found:
            rel = path.rsplit("/", 1)[-1] if explicit else _relative(path, base)
            if not explicit:
                if not options.hidden and any(_is_hidden(part) for part in rel.split("/")):
                    continue
                if options.include and not _matches(options.include, rel):
                    continue
            if options.exclude and _matches(options.exclude, rel):
                continue
            if path in seen:
                continue
            seen.add(path)
            if size > options.max_size:
                reason = f"larger than --max-size ({size} > {options.max_size} bytes)"
                skipped.append(SkippedFile(path, "discovery", reason, failure=False))
                continue
            files.append(SourceFile(path, size))
    files.sort(key=lambda f: f.path)
    skipped.sort(key=lambda s: s.path)
    return Discovery(files, skipped, 0)
