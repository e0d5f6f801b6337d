"""Measured subprocesses and the anchors' environment, shared by the benchmark programs
(standard library only at import time, as ``common``): a command run to completion with its
wall time and the peak memory of its process tree, the numpy<2 virtual environment the PyPI
``simhash`` anchor runs in, and the alternating rounds of the dedup contenders."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import ANCHOR_VENV, MB, REPO, log, rotated

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
