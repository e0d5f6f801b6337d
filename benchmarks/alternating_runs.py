"""What ``scale.py`` and ``rows.py`` share around their alternating runs: the options both take
first (the visible set, the sizes to generate, ``--large``, ``--repeat``, ``--seed``,
``--rensa-bands``, in that order: their ``--help`` lists them so), the sizes those options ask
for (the order of the contenders in each round is ``common.rotated``)."""

from __future__ import annotations

import argparse

from common import DEFAULT_BENCH


def add_size_options(
    ap: argparse.ArgumentParser, sizes: str, default: str, sizes_help: str, large_help: str
) -> None:
    """``--bench``, the comma-separated sizes (the option ``sizes``, default ``default``),
    ``--large`` (also 10^6), ``--repeat``, ``--seed`` and ``--rensa-bands``."""
    ap.add_argument(
        "--bench", default=str(DEFAULT_BENCH), help="the visible set (paragraph source)"
    )
    ap.add_argument(sizes, default=default, help=sizes_help)
    ap.add_argument("--large", action="store_true", help=large_help)
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument(
        "--rensa-bands", type=int, default=16, help="RMinHashLSH num_bands (default 16)"
    )


def sizes_asked(text: str, large: bool) -> list[int]:
    """The sizes of a comma-separated option (``1e4,1e5``), with 10^6 added for ``--large``."""
    sizes = [int(float(x)) for x in text.split(",") if x]
    if large and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    return sizes
