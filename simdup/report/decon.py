"""The ``decon`` report: JSON Lines, a header and one record per evaluation item found."""

from __future__ import annotations

import json

from ..decon.run import DeconResult
from ..writers.output import atomic_file


def write_decon_report(path: str, result: DeconResult) -> None:
    """``result.records()`` as JSON Lines at ``path`` (compressed as its name says), in place
    only when complete."""
    with atomic_file(path) as out:
        for record in result.records():
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
