"""Shared helpers of the benchmark programs (standard library only at import time).

``simhash_anchor.py`` imports this module from a separate virtual environment that has neither
simdup nor psutil, so nothing here may import them at module level.
"""

from __future__ import annotations

import codecs
import importlib.util
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# The shared folder sits next to the repository checkout.
DEFAULT_BENCH = REPO.parent / "shared" / "bench" / "visible"
RESULTS = BENCH_DIR / "results"
ANCHOR_VENV = BENCH_DIR / ".venv-anchor"

MB = 1_000_000


# ---------------------------------------------------------------- the benchmark set


def bench_folders(bench: str | os.PathLike[str]) -> tuple[Path, Path]:
    """``(docs folder, labels.json)`` of a benchmark set folder; exits with a message if absent."""
    root = Path(bench)
    docs, labels = root / "docs", root / "labels.json"
    if not docs.is_dir():
        raise SystemExit(f"{docs}: no such folder (give the set folder with --bench)")
    return docs, labels


def default_scorer(bench: str | os.PathLike[str]) -> Path:
    """``score.py`` lives one level above the set folder (``shared/bench/score.py``)."""
    return Path(bench).parent / "score.py"


def list_docs(docs: Path) -> list[Path]:
    """Every regular file under ``docs``, in a deterministic order."""
    return sorted(p for p in docs.rglob("*") if p.is_file())


def display_path(path: Path, docs: Path) -> str:
    """``docs/<h>/<id>.md``: relative to the set folder, as labels.json names documents."""
    return path.relative_to(docs.parent).as_posix()


def load_scorer(path: Path) -> ModuleType:
    """Import the benchmark's ``score.py`` (standard library only) as a module."""
    if not path.is_file():
        raise SystemExit(f"{path}: scorer not found (give it with --score)")
    spec = importlib.util.spec_from_file_location("simdup_bench_score", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- decoding for the anchors

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_anchor(data: bytes) -> tuple[str, str]:
    """Decode as the bench README says the anchors were: BOM, strict UTF-8, else chardet.

    Returns ``(text, encoding)``. Undecodable bytes become U+FFFD (an anchor never skips a file).
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace"), encoding
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    import chardet

    guess = (chardet.detect(data).get("encoding") or "utf-8").lower()
    try:
        codecs.lookup(guess)
    except LookupError:
        guess = "utf-8"
    return data.decode(guess, errors="replace"), guess


# ---------------------------------------------------------------- statistics and tables


def rotated(items: list[Any], round_no: int) -> list[Any]:
    """``items`` in the order of round ``round_no``, rotated left by one a round (ABC BCA
    CAB ...): each contender runs early in some rounds and late in others."""
    k = round_no % len(items) if items else 0
    return items[k:] + items[:k]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def fmt(value: float | None, digits: int = 3) -> str:
    if value is None or value != value:  # None or NaN
        return "—"
    return f"{value:.{digits}f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries only the results."""
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- run information


def reproduce_command(script: str, argv: Sequence[str]) -> str:
    """The command that reproduces this run, from the repository root."""
    try:
        python = os.path.relpath(sys.executable, REPO)
    except ValueError:  # pragma: no cover - other drive on Windows
        python = sys.executable
    if python.startswith(".."):
        python = "python"
    return f"cd <repo> && {python} benchmarks/{script} {shlex.join(argv)}".rstrip()


def git_revision() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head}{' (uncommitted changes)' if dirty else ''}" if head else "unknown"


def environment() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "git": git_revision(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    if hasattr(os, "getloadavg"):
        info["loadavg_start"] = [round(x, 2) for x in os.getloadavg()]
    return info


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def cached_manifest(
    root: Path, key: dict[str, Any], files: Sequence[Path] = ()
) -> dict[str, Any] | None:
    """The ``manifest.json`` of a generated folder ``root`` if it was made with ``key`` (what
    it was generated from) and ``files`` are there too; ``None`` when it must be made anew."""
    path = root / "manifest.json"
    if path.exists() and all(f.exists() for f in files):
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("key") == key:
            return manifest
    return None


def new_generation(root: Path, message: str) -> float:
    """Log ``message`` and empty the generated folder ``root`` (made anew) for a generator to
    fill; returns when it started (``time.perf_counter``)."""
    log(message)
    started = time.perf_counter()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return started


def chosen_sections(ap: Any, text: str, known: Sequence[str]) -> list[str]:
    """The names of a comma-separated ``--sections`` option; one not in ``known`` is a usage
    error of the ``argparse`` parser ``ap``."""
    sections = [s.strip() for s in text.split(",") if s.strip()]
    unknown = set(sections) - set(known)
    if unknown:
        ap.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    return sections


def record_load_end(env: dict[str, Any]) -> None:
    """The load average at the end of the run, into ``env`` (as ``environment`` the start's)."""
    if hasattr(os, "getloadavg"):
        env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]


def write_report(
    path: Path,
    benchmark: str,
    *,
    command: str,
    bench: str | os.PathLike[str],
    environment: dict[str, Any],
    notes: list[str],
    sections: dict[str, dict[str, Any]],
    markdown: str,
) -> None:
    """A benchmark's results file: its sections' raw numbers (their Markdown left out: the
    whole text is kept once, under ``markdown``), then ``wrote PATH`` on stderr."""
    raw = {k: {kk: vv for kk, vv in v.items() if kk != "markdown"} for k, v in sections.items()}
    write_json(
        path,
        {
            "benchmark": benchmark,
            "command": command,
            "bench": os.path.relpath(bench),
            "environment": environment,
            "notes": notes,
            **raw,
            "markdown": markdown,
        },
    )
    log(f"wrote {os.path.relpath(path)}")


def finish_sections_report(
    benchmark: str,
    path: Path,
    *,
    title: str,
    versions: str,
    command: str,
    bench: str | os.PathLike[str],
    environment: dict[str, Any],
    started: float,
    order: Sequence[str],
    sections: dict[str, dict[str, Any]],
    notes: list[str],
    footer: Sequence[str],
) -> None:
    """The end of a benchmark of sections (``speed.py``, ``index.py``): the load and the time
    into ``environment``; then printed, and written to ``path`` (``write_report``), a heading
    ``title (CPUs, load; versions, git)``, the sections' Markdown in ``order``, the ``notes``
    as a list and the ``footer`` lines."""
    env = environment
    record_load_end(env)
    env["benchmark_seconds"] = round(time.perf_counter() - started, 1)
    load = f"load average {env.get('loadavg_start')} → {env.get('loadavg_end')}"
    parts = [f"## {title} ({env['cpus']} CPUs, {load}; {versions}, git {env['git']})", ""]
    for name in order:
        if name in sections:
            parts += [sections[name]["markdown"], ""]
    parts += [f"- {n}" for n in notes]
    parts += ["", *footer]
    text = "\n".join(parts)
    print(text)
    write_report(
        path, benchmark, command=command, bench=bench, environment=env, notes=notes,
        sections=sections, markdown=text,
    )  # fmt: skip


def publish_table(
    name: str, title: str, argv: Sequence[str], bench: str | os.PathLike[str], table: str,
    sections: dict[str, dict[str, Any]],
) -> None:
    """Print a one-table benchmark's Markdown (``title`` and how to reproduce it) and write
    its results file ``RESULTS/<name>.json``."""
    command = reproduce_command(f"{name}.py", argv)
    markdown = f"## {title} (`{command}`)\n\n{table}\n"
    print(markdown)
    write_report(
        RESULTS / f"{name}.json", name, command=command, bench=bench,
        environment=environment(), notes=[], sections=sections, markdown=markdown,
    )  # fmt: skip
