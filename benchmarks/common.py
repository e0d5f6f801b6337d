"""Shared helpers of the benchmark programs (standard library only at import time).

``simhash_anchor.py`` imports this module from a separate virtual environment that has neither
simdup nor psutil, so nothing here may import them at module level.
"""

from __future__ import annotations

import codecs
import contextlib
import importlib.util
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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


# ---------------------------------------------------------------- measured subprocesses


@dataclass
class Measured:
    """One finished subprocess: wall time and memory."""

    command: list[str]
    seconds: float
    returncode: int
    # ru_maxrss of the reaped child: the largest RSS of any single process of its tree.
    max_rss_mb: float
    # Sum of the RSS of the whole process tree, sampled (psutil), highest sample. Pages that
    # forked workers share with their parent count once per process here.
    tree_peak_rss_mb: float | None
    stdout: str = ""
    stderr: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # Sum of the PSS (proportional set size: a page shared by k processes counts 1/k in each)
    # of the tree, highest sample: the memory the command really holds (Linux; else None).
    tree_peak_pss_mb: float | None = None


def _descendants(pid: int) -> list[Any]:
    """The processes below ``pid`` (psutil reads every process of the system to find them:
    ~2 ms of CPU)."""
    import psutil

    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return []


def _memory_of(procs: Sequence[Any], pss: bool) -> tuple[int, int]:
    """Summed RSS and PSS (0 unless ``pss``) of ``procs``."""
    import psutil

    rss = proportional = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            if pss:
                full = p.memory_full_info()
                rss += full.rss
                proportional += full.pss
            else:
                rss += p.memory_info().rss
    return rss, proportional


# Linux carries a process's peak RSS across exec, and a child made with vfork/posix_spawn
# starts from its parent's peak: a command spawned straight from this (large) process would
# report at least our own peak as its max RSS. So commands are started by a fresh, small
# launcher, which spawns the command, reaps it with wait4 and writes "<maxrss> <seconds>"
# (ru_maxrss of the command's tree, wall seconds from spawn to exit) to the file in argv[1].
_LAUNCHER = """
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
t = time.perf_counter() - t
with open(out, "w") as f:
    f.write(f"{usage.ru_maxrss} {t}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def warm_page_cache(root: Path) -> int:
    """Read every file under ``root`` once, untimed, so that the first timed run does not pay
    for the disk and the contenders meet the same page cache (the runs then alternate). Returns
    the bytes read."""
    total = 0
    for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
        if path.is_file():
            with open(path, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    total += len(chunk)
    return total


def run_measured(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    interval: float = 0.05,
    heartbeat: Callable[[float], None] | None = None,
    heartbeat_every: float = 30.0,
    pss_interval: float = 0.5,
) -> Measured:
    """Run ``command`` to completion: wall time, max RSS (wait4) and sampled tree RSS.

    The command runs under a small launcher (see ``_LAUNCHER``) that times it and reads its
    max RSS; a sampler thread sums the RSS of its process tree every ``interval`` seconds when
    psutil is installed, and every ``pss_interval`` seconds finds the tree anew and sums its
    PSS. The sampler must not slow what it measures, and on two cores a contender using both
    shares them with it: PSS walks every page table of the tree (/proc/PID/smaps_rollup),
    which 20 times a second slowed a scan of 10^5 documents by ~7% and one of 10^6 (2.4 GB in
    three processes) by ~75%, and finding the tree reads every process of the system (~2 ms).
    The peaks sampled last seconds.
    """
    try:
        import psutil  # noqa: F401

        sampling = True
    except ImportError:
        sampling = False
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory(prefix="simdup-bench-") as tmp,
    ):
        usage_file = Path(tmp) / "usage"
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(usage_file)]
        started = time.perf_counter()
        proc = subprocess.Popen(launcher + list(command), cwd=cwd, stdout=out, stderr=err)
        peak = peak_pss = 0
        pss = sys.platform.startswith("linux")
        done = threading.Event()

        def sample() -> None:
            nonlocal peak, peak_pss
            last_beat = last_tree = started
            tree: list[Any] = []
            while not done.wait(interval):
                if sampling:
                    anew = time.perf_counter() - last_tree >= pss_interval or not tree
                    if anew:
                        tree, last_tree = _descendants(proc.pid), time.perf_counter()
                    rss, proportional = _memory_of(tree, pss and anew)
                    peak, peak_pss = max(peak, rss), max(peak_pss, proportional)
                now = time.perf_counter()
                if heartbeat and now - last_beat >= heartbeat_every:
                    heartbeat(now - started)
                    last_beat = now

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        returncode = proc.wait()
        outer_seconds = time.perf_counter() - started
        done.set()
        sampler.join()
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        try:
            maxrss_text, seconds_text = usage_file.read_text().split()
            maxrss, seconds = int(maxrss_text), float(seconds_text)
        except (OSError, ValueError):  # the launcher itself failed (e.g. command not found)
            maxrss, seconds = 0, outer_seconds
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    scale = 1 if sys.platform == "darwin" else 1024
    return Measured(
        command=list(command),
        seconds=seconds,
        returncode=returncode,
        max_rss_mb=maxrss * scale / MB,
        tree_peak_rss_mb=peak / MB if sampling else None,
        tree_peak_pss_mb=peak_pss / MB if sampling and pss else None,
        stdout=stdout,
        stderr=stderr,
    )


# ---------------------------------------------------------------- the numpy<2 anchor venv


def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def anchor_requirements() -> list[str]:
    """numpy<2 plus the same simhash and chardet versions as the bench venv."""
    reqs = ["numpy<2"]
    for name in ("simhash", "chardet"):
        version = _installed_version(name)
        reqs.append(f"{name}=={version}" if version else name)
    return reqs


def anchor_python(create: bool = True) -> tuple[Path | None, str]:
    """The Python of ``benchmarks/.venv-anchor`` (numpy<2), created on first use.

    Returns ``(python or None, note)``. The PyPI ``simhash`` package multiplies a ``uint8``
    bit array by a feature's count; NumPy 2 raises ``OverflowError`` when the count exceeds
    255, NumPy 1 silently widened the type. This venv runs the package as its author tested it.
    """
    bindir = "Scripts" if os.name == "nt" else "bin"
    python = ANCHOR_VENV / bindir / ("python.exe" if os.name == "nt" else "python")
    stamp = ANCHOR_VENV / ".installed"
    wanted = "\n".join(anchor_requirements())
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python, f"{ANCHOR_VENV.relative_to(REPO)} ({', '.join(wanted.splitlines())})"
    if not create:
        return None, "anchor venv not created (--no-anchor-venv)"
    log(f"creating {ANCHOR_VENV.relative_to(REPO)} with {', '.join(wanted.splitlines())} ...")
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--clear", str(ANCHOR_VENV)],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            + wanted.splitlines(),
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        tail = detail.decode("utf-8", "replace").strip().splitlines()[-1:] if detail else []
        return None, f"could not create the anchor venv: {exc} {' '.join(tail)}".strip()
    stamp.write_text(wanted)
    return python, f"{ANCHOR_VENV.relative_to(REPO)} ({', '.join(wanted.splitlines())})"


def run_record(m: Any) -> dict[str, Any]:
    """What a benchmark keeps of one measured run (``run_measured``'s result)."""
    return {
        "seconds": m.seconds,
        "returncode": m.returncode,
        "max_rss_mb": m.max_rss_mb,
        "tree_peak_rss_mb": m.tree_peak_rss_mb,
        "tree_peak_pss_mb": m.tree_peak_pss_mb,
    }


def rounds_of_dedup_runs(
    runnable: list[dict[str, Any]],
    repeat: int,
    label: str,
    removals: Callable[[Path], Any],
    first_score: Callable[[dict[str, Any], Any], dict[str, Any]],
    inputs: Sequence[Path] = (),
) -> None:
    """Run each contender (``name``, ``command``, ``folder``, ``removed_file``) in a fresh
    process, ``repeat`` rounds in rotated order (ABC BCA CAB ...), appending a record of each run
    to its ``runs``: seconds, exit status, peak memory, and whether it removed what its first
    successful run removed (``removals`` reads that from ``removed_file``); the first
    successful run is scored (``first_score(contender, removed)``, into ``score``). The
    ``inputs`` are read once first, untimed (``warm_page_cache``)."""
    for c in runnable:
        c["runs"] = []
    if inputs:
        warmed = sum(warm_page_cache(path) for path in inputs)
        log(f"{label}: inputs read once, untimed ({warmed // MB} MB)")
    for round_no in range(repeat):
        for c in rotated(runnable, round_no):
            shutil.rmtree(c["folder"], ignore_errors=True)
            c["folder"].mkdir(parents=True)
            log(f"{label} round {round_no + 1}/{repeat}: {c['name']} ...")
            m = run_measured(
                c["command"],
                cwd=REPO,
                heartbeat=lambda s, name=c["name"]: log(f"  ... {name} {s:.0f} s"),
            )
            run = run_record(m)
            log(
                f"  {m.seconds:.1f} s, tree peak PSS {m.tree_peak_pss_mb or 0:.0f} MB "
                f"(RSS sum {m.tree_peak_rss_mb or 0:.0f} MB)"
            )
            if m.returncode != 0:
                run["stderr"] = m.stderr[-2000:]
                log(f"  failed ({m.returncode}): {m.stderr.strip().splitlines()[-1:]}")
            else:
                removed = removals(c["removed_file"])
                if "score" not in c:
                    log("  scoring ...")
                    c["score"] = first_score(c, removed)
                    c["removals"] = removed
                run["same_removals"] = removed == c["removals"]
            c["runs"].append(run)
