"""The passage benchmark's timings (run ``passages.py --speed``, not this): ``simdup scan`` of
the set with and without ``--passages``, alternating, each in a fresh process: without the scan
cache, and with the cache on (a first scan, then a rescan of the unchanged set); the ratios, and
whether both report the same pairs and clusters."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, Any]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[2:])} failed: {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def speed(docs: Path, repeat: int) -> dict[str, Any]:
    """``simdup scan`` with and without ``--passages`` on the set, alternating, in fresh
    processes: without the scan cache (``--no-cache``), and as a user runs it (the cache on,
    in a folder of its own: a first scan, then a rescan of the unchanged set)."""
    base = [sys.executable, "-m", "simdup", "scan", str(docs), "-q", "-f", "json"]
    runs = ("scan", "scan --passages")
    kinds = ("no cache", "cache on, first scan", "cache on, rescan")
    times: dict[str, list[float]] = {f"{r} ({k})": [] for k in kinds for r in runs}
    outputs: dict[str, Any] = {}
    for _ in range(repeat):
        for name, extra in zip(runs, ([], ["--passages"]), strict=True):
            seconds, outputs[name] = _timed([*base, "--no-cache", *extra])
            times[f"{name} (no cache)"].append(seconds)
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "SIMDUP_CACHE_DIR": cache}
                for kind in kinds[1:]:
                    seconds, _ = _timed([*base, *extra], env)
                    times[f"{name} ({kind})"].append(seconds)
    plain, with_passages = outputs["scan"], outputs["scan --passages"]
    same = (
        plain["pairs"] == with_passages["pairs"] and plain["clusters"] == with_passages["clusters"]
    )
    medians = {k: statistics.median(v) for k, v in times.items()}
    ratios = {k: medians[f"scan --passages ({k})"] / medians[f"scan ({k})"] for k in kinds}
    return {
        "seconds": times,
        "median": medians,
        "ratio": ratios["no cache"],
        "ratios": ratios,
        "same_pairs_and_clusters": same,
        "passages": len(with_passages.get("passages", [])),
        "repeated_passages": len(with_passages.get("repeated_passages", [])),
    }
