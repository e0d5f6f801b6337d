"""The rjieba + rensa pipeline of rows.py: a dataset of rows deduplicated in one process.

    python benchmarks/rows_anchor.py IN.jsonl.zst OUT.jsonl.zst REMOVED.jsonl [--bands 16]

What an informed user writes in an afternoon to deduplicate a zstd-compressed JSON Lines dump
with the libraries of issue 12: read the file (a ``zstandard`` stream reader, ``json.loads`` per
line), ``rjieba.cut`` each row's ``text``, its word set (whitespace-only tokens dropped), a
``RMinHash(num_perm=128, seed=42)`` of it into a ``RMinHashLSH(threshold=0.8, num_perm=128,
num_bands=16)`` (scale_anchor.py's parameters and code). Then, for each row in order that is
not removed yet, its LSH candidates further down the file that are not removed yet either and
whose estimated Jaccard is >= 0.8 are removed as duplicates of it (so the first row of a group
is kept, as ``simdup dedup``'s default ``--keep first`` does). Last, the file is read again
and the kept rows' lines are written as they were to OUT (zstd, level 3), and REMOVED lists each
removed row as ``{"key": id, "duplicate_of": id, "similarity": estimated Jaccard}`` (the field
names of ``simdup dedup --removed``).
"""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator

import zstandard
from scale_anchor import THRESHOLD, rensa_index, words


def lines(path: str) -> Iterator[bytes]:
    """The lines of a zstd-compressed file, decompressed as they are read."""
    with open(path, "rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        yield from io.BufferedReader(reader, 1 << 20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="rows as zstd-compressed JSON Lines ({id, text, ...})")
    ap.add_argument("output", help="the kept rows (zstd-compressed JSON Lines)")
    ap.add_argument("removed", help="the removed rows (JSON Lines)")
    ap.add_argument("--bands", type=int, default=16, help="RMinHashLSH num_bands (default 16)")
    args = ap.parse_args()

    ids: list[object] = []

    def word_sets() -> Iterator[set[str]]:
        for line in lines(args.input):
            row = json.loads(line)
            ids.append(row["id"])
            yield words(row["text"])

    sketches, lsh = rensa_index(word_sets(), args.bands)
    duplicate_of: dict[int, tuple[int, float]] = {}
    for i, m in enumerate(sketches):
        if i in duplicate_of:
            continue
        for j in sorted(lsh.query(m)):
            if j > i and j not in duplicate_of:
                est = m.jaccard(sketches[j])
                if est >= THRESHOLD:
                    duplicate_of[j] = (i, est)

    with (
        open(args.output, "wb") as raw,
        zstandard.ZstdCompressor(level=3).stream_writer(raw) as out,
    ):
        for i, line in enumerate(lines(args.input)):
            if i not in duplicate_of:
                out.write(line if line.endswith(b"\n") else line + b"\n")
    with open(args.removed, "w", encoding="utf-8") as f:
        for j in sorted(duplicate_of):
            i, est = duplicate_of[j]
            record = {"key": ids[j], "duplicate_of": ids[i], "similarity": round(est, 4)}
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
