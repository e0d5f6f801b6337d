"""Renderers for ``simdup calibrate``."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TextIO

from ..__about__ import __version__
from ..params import ALGORITHM_VERSION
from ..records import SIMILARITY_BINS, Calibration

_BAR = 40


def render_calibration_text(c: Calibration, stream: TextIO) -> None:
    w = stream.write
    w(f"{c.documents} documents ({c.skipped} skipped); histograms up to distance {c.radius}\n\n")
    w("Nearest-neighbour Hamming distance (documents):\n")
    top = max([*c.nearest, c.isolated, 1])
    for d, n in enumerate(c.nearest):
        w(f"  {d:>3}  {n:>7}  {'#' * round(_BAR * n / top)}\n")
    w(f"  >{c.radius:<2}  {c.isolated:>7}  {'#' * round(_BAR * c.isolated / top)}\n\n")
    w(
        "Pairs by Hamming distance and word-set Jaccard (deciles),"
        " and how many pass the length check:\n"
    )
    header = "".join(f"{b / SIMILARITY_BINS:>7.1f}" for b in range(SIMILARITY_BINS))
    w(f"  dist {header}   length ok\n")
    for d, row in enumerate(c.pairs):
        if any(row):
            w(f"  {d:>4} {''.join(f'{n:>7}' for n in row)}   {c.length_ok[d]:>9}\n")
    w(
        "\nNear-duplicates show up as pairs at small distances with high Jaccard; a wide empty\n"
        "band between them and the bulk is where --verify-radius and --min-similarity belong.\n"
    )


def render_calibration_json(c: Calibration, stream: TextIO) -> None:
    doc = {
        "schema": "simdup-calibrate/1",
        "simdup_version": __version__,
        "algorithm_version": ALGORITHM_VERSION,
        **asdict(c),
    }
    json.dump(doc, stream, ensure_ascii=False, indent=2)
    stream.write("\n")
