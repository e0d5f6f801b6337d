"""One timed ``simdup.near_pairs`` join over synthetic fingerprints; prints one JSON line.

    python benchmarks/index_join.py --n 1000000 --case random --layout auto

Run by ``speed.py`` once per measurement, each in a fresh process, so the process's max RSS
(read by the parent with ``wait4``) is the memory of one join plus its input.

Cases: ``random``: ``n`` uniformly random 64-bit fingerprints of which 1% are planted near
copies of others (1 to 3 bits flipped; each source used once). ``identical``: the same, then
``--identical`` (default 10,001) of them set to one value, so that group alone gives
C(10001, 2) = 50,005,000 pairs at distance 0.

Layouts: ``auto`` (``near_pairs`` chooses) or ``BxM`` (``simdup.algorithms.index.Layout(B, M)``;
``4x1`` is the classic four 16-bit tables for k=3).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time

import numpy as np


def planted(n: int, fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """``n`` fingerprints: random ones plus ``n * fraction`` copies with 1-3 bits flipped."""
    p = int(n * fraction)
    base = rng.integers(0, np.iinfo(np.uint64).max, size=n - p, dtype=np.uint64, endpoint=True)
    sources = rng.choice(n - p, size=p, replace=False)
    flips = rng.integers(1, 4, size=p)
    # Three distinct bit positions per copy: redraw the rows that repeat one.
    pos = rng.integers(0, 64, size=(p, 3))
    while True:
        bad = (pos[:, 0] == pos[:, 1]) | (pos[:, 0] == pos[:, 2]) | (pos[:, 1] == pos[:, 2])
        if not bad.any():
            break
        pos[bad] = rng.integers(0, 64, size=(int(bad.sum()), 3))
    bits = np.left_shift(np.uint64(1), pos.astype(np.uint64))
    bits[np.arange(3)[None, :] >= flips[:, None]] = 0
    masks = np.bitwise_or.reduce(bits, axis=1)
    fps = np.concatenate([base, base[sources] ^ masks])
    rng.shuffle(fps)
    return fps, p


def _status_mb(field: str) -> float | None:
    """A ``/proc/self/status`` memory line (``VmRSS``, ``VmHWM``) in MB; None off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0), so the peak of the join alone is read."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


def max_rss_mb() -> float:
    """Peak RSS of this process (``getrusage``; on Linux it also counts the peak before exec)."""
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="One timed simdup.near_pairs join.")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--case", choices=("random", "identical"), default="random")
    ap.add_argument("--layout", default="auto", help="auto, or BxM for Layout(B, M)")
    ap.add_argument("--threshold", type=int, default=3)
    ap.add_argument("--planted", type=float, default=0.01, help="fraction of planted near copies")
    ap.add_argument("--identical", type=int, default=10_001)
    ap.add_argument("--seed", type=int, default=20240501)
    args = ap.parse_args(argv)

    import simdup
    from simdup.algorithms import index as simdup_index

    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    fps, planted_pairs = planted(args.n, args.planted, rng)
    if args.case == "identical":
        same = rng.choice(args.n, size=args.identical, replace=False)
        fps[same] = fps[same[0]]
    generated = time.perf_counter() - started

    layout = None
    if args.layout != "auto":
        blocks, key_blocks = (int(x) for x in args.layout.lower().split("x"))
        layout = simdup_index.Layout(blocks, key_blocks)

    gc.collect()
    rss_start = _status_mb("VmRSS")
    peak_reset = reset_peak_rss()
    started = time.perf_counter()
    if layout is None:
        i, j, d = simdup.near_pairs(fps, args.threshold)
    else:
        i, j, d = simdup.near_pairs(fps, args.threshold, layout=layout)
    seconds = time.perf_counter() - started
    peak_join = _status_mb("VmHWM") if peak_reset else None

    distinct = int(np.unique(fps).size)
    chooser = getattr(simdup_index, "choose_layout", None)
    used = (
        layout if layout is not None else (chooser(distinct, args.threshold) if chooser else None)
    )
    result = {
        "n": args.n,
        "case": args.case,
        "layout": args.layout,
        "layout_used": None if used is None else f"{used.blocks}x{used.key_blocks}",
        "tables": None if used is None else int(used.tables),
        "threshold": args.threshold,
        "distinct": distinct,
        "planted_pairs": planted_pairs,
        "pairs": int(i.size),
        "pairs_by_distance": np.bincount(np.asarray(d, dtype=np.int64)).tolist(),
        "seconds": round(seconds, 4),
        "generate_seconds": round(generated, 4),
        "rss_at_join_start_mb": None if rss_start is None else round(rss_start, 1),
        "peak_rss_during_join_mb": None if peak_join is None else round(peak_join, 1),
        "max_rss_mb": round(max_rss_mb(), 1),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
