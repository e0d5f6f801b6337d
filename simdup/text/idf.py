"""IDF weights: jieba's IDF table, shipped with simdup as a compact array keyed by token hash.

The table is jieba 0.42.1's ``analyse/idf.txt`` (270,132 words, MIT licence) stored in
``data/idf_jieba.npz`` as the sorted 64-bit token hashes of its words, an index into its 3,328
distinct values, and the median value, which words it does not list receive. Two reasons:

- Loading it takes ~2 ms instead of 0.14 s for parsing the text file in every process.
- The weights do not depend on the installed jieba: the same text has the same fingerprint on
  every machine (``ALGORITHM_VERSION`` covers the table).

A word is looked up by the same ``token_hash`` its feature uses (XXH3-64, collisions among
these words: none; tests/text/test_idf.py rebuilds the table from jieba's file and compares).
Rebuild it with ``python -m simdup.text.idf PATH/TO/idf.txt``.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import resources
from io import BytesIO

import numpy as np

from ..algorithms.hashing import token_hash

TABLE_FILE = "idf_jieba.npz"
_MEDIAN_QUANTILE = 0.5


class IdfTable:
    """Sorted word hashes with their IDF values, and the value for words not listed."""

    def __init__(self, hashes: np.ndarray, value_index: np.ndarray, values: np.ndarray,
                 default: float) -> None:  # fmt: skip
        self.hashes = hashes
        self.value_index = value_index
        self.values = values
        self.default = default

    def __len__(self) -> int:
        return int(self.hashes.size)

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """IDF values (float64) of the words with these token hashes."""
        hashes = np.asarray(hashes, dtype=np.uint64)
        if self.hashes.size == 0 or hashes.size == 0:
            return np.full(hashes.shape, self.default, dtype=np.float64)
        # Few numpy calls: a vocabulary looks up a document's new words, a handful at a time.
        at = np.searchsorted(self.hashes, hashes)
        np.minimum(at, self.hashes.size - 1, out=at)
        found = self.hashes[at] == hashes
        return np.where(found, self.values[self.value_index[at]], self.default)

    def idf(self, word: str) -> float:
        """The IDF of one (normalised) word."""
        return float(self.lookup(np.array([token_hash(word)], dtype=np.uint64))[0])


def build(text: str) -> IdfTable:
    """The table for the contents of a jieba ``idf.txt`` ("word value" per line)."""
    fields = text.split()  # no word holds a space
    words, numbers = fields[0::2], np.array(fields[1::2], dtype=np.float64)
    if len(words) != numbers.size:
        raise ValueError("idf.txt: every line must be 'word value'")
    hashes = np.array([token_hash(w) for w in words], dtype=np.uint64)
    order = np.argsort(hashes, kind="stable")
    hashes, numbers = hashes[order], numbers[order]
    if np.any(hashes[1:] == hashes[:-1]):
        raise ValueError("idf.txt: two words share a token hash (or a word is listed twice)")
    values, value_index = np.unique(numbers, return_inverse=True)
    middle = int(numbers.size * _MEDIAN_QUANTILE)
    default = float(np.partition(numbers, middle)[middle]) if numbers.size else 1.0
    return IdfTable(hashes, value_index.astype(np.uint16), values, default)


def save(table: IdfTable) -> bytes:
    buffer = BytesIO()
    np.savez(buffer, hashes=table.hashes, value_index=table.value_index, values=table.values,
             default=np.float64(table.default))  # fmt: skip
    return buffer.getvalue()


@lru_cache(maxsize=1)
def jieba_table() -> IdfTable:
    """The shipped table (loaded once per process)."""
    data = resources.files("simdup").joinpath("data", TABLE_FILE).read_bytes()
    with np.load(BytesIO(data)) as npz:
        return IdfTable(npz["hashes"], npz["value_index"], npz["values"], float(npz["default"]))


def main(argv: list[str]) -> int:
    """``python -m simdup.text.idf IDF_TXT [OUT]``: write the table built from jieba's idf.txt."""
    if not 1 <= len(argv) <= 2:
        print("usage: python -m simdup.text.idf PATH/TO/jieba/analyse/idf.txt [OUT.npz]",
              file=sys.stderr)  # fmt: skip
        return 2
    with open(argv[0], encoding="utf-8") as handle:
        table = build(handle.read())
    out = argv[1] if len(argv) == 2 else str(resources.files("simdup").joinpath("data", TABLE_FILE))
    with open(out, "wb") as handle:
        handle.write(save(table))
    print(f"{out}: {len(table)} words, {table.values.size} distinct values, "
          f"default {table.default}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
