"""The ``decon`` report: JSON Lines, a header and one record per evaluation item found."""

from __future__ import annotations

import json

from ..rows.decon.run import DeconResult
from ..writers.output import output_file


def write_decon_report(path: str, result: DeconResult) -> None:
    """``result.records()`` as JSON Lines at ``path`` (compressed as its name says; a file is
    replaced only when complete, a device or FIFO written as it is: ``OutputTarget``)."""
    with output_file(path, "--report") as out:
        for record in result.records():
            out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
