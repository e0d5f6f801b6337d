"""The PyPI ``simhash`` package used off the shelf as a near-duplicate scanner: an anchor.

    python benchmarks/simhash_anchor.py DOCS --out pairs.json [--weights package|float-over-255]

Decodes every file under DOCS (BOM, strict UTF-8, else chardet), fingerprints it with
``Simhash(text)`` (the package's default features: lower-cased character 4-grams of the word
characters, weighted by count), finds pairs with ``SimhashIndex(objs, k=3)`` and writes a JSON
file that ``score.py`` reads (``pairs``), with timings, the fingerprints and the documents the
package failed on.

Run by ``quality.py`` and ``speed.py`` as a subprocess, usually in ``benchmarks/.venv-anchor``
(numpy<2): it imports neither simdup nor psutil.

``--weights package`` calls ``Simhash(text)`` exactly. Under NumPy 2 the package raises
``OverflowError`` for a document in which one feature occurs more than 255 times (it multiplies a
``uint8`` bit array by the count); such documents are recorded in ``failed`` and left out.
``--weights float-over-255`` computes the same features and passes those counts as floats, which
takes the package's float path: integer-valued sums are exact in float64, so the fingerprints are
those NumPy 1 gives (``quality.py`` checks this against the numpy<2 venv).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from itertools import groupby
from pathlib import Path

import numpy as np
from common import decode_anchor, display_path, list_docs
from simhash import Simhash, SimhashIndex

UINT8_MAX = 255
_PROBE = Simhash(0)  # an instance only to reach the package's own tokeniser


def _package_features(text: str) -> dict[str, int]:
    """What ``Simhash.build_by_text`` computes: feature -> count, in the same (sorted) order."""
    features = _PROBE._tokenize(text)
    return {k: sum(1 for _ in g) for k, g in groupby(sorted(features))}


def fingerprint(text: str, weights: str) -> Simhash:
    if weights == "package":
        return Simhash(text)
    counts = _package_features(text)
    return Simhash({k: float(v) if v > UINT8_MAX else v for k, v in counts.items()})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("docs", type=Path, help="folder of documents")
    ap.add_argument("--out", type=Path, required=True, help="JSON file to write")
    ap.add_argument("--weights", choices=("package", "float-over-255"), default="package")
    ap.add_argument("-k", type=int, default=3, help="SimhashIndex tolerance (default 3)")
    args = ap.parse_args(argv)
    # The index logs a warning for every bucket over 200 entries; not what we measure.
    logging.getLogger("simhash").setLevel(logging.ERROR)

    started = time.perf_counter()
    paths = list_docs(args.docs)
    names = [display_path(p, args.docs) for p in paths]
    texts: list[str] = []
    encodings: dict[str, int] = {}
    total_bytes = 0
    for path in paths:
        data = path.read_bytes()
        total_bytes += len(data)
        text, encoding = decode_anchor(data)
        encodings[encoding] = encodings.get(encoding, 0) + 1
        texts.append(text)
    decoded = time.perf_counter()

    hashes: list[Simhash | None] = []
    failed: dict[str, str] = {}
    for name, text in zip(names, texts, strict=True):
        try:
            hashes.append(fingerprint(text, args.weights))
        except (OverflowError, ValueError, FloatingPointError) as exc:
            hashes.append(None)
            failed[name] = f"{type(exc).__name__}: {exc}"
    fingerprinted = time.perf_counter()

    objs = [(str(i), h) for i, h in enumerate(hashes) if h is not None]
    index = SimhashIndex(objs, k=args.k)
    pairs: set[tuple[int, int]] = set()
    for i, h in enumerate(hashes):
        if h is None:
            continue
        for other in index.get_near_dups(h):
            j = int(other)
            if j != i:
                pairs.add((min(i, j), max(i, j)))
    finished = time.perf_counter()

    result = {
        "tool": "simhash (PyPI)",
        "settings": {"features": "Simhash(text) default", "weights": args.weights, "k": args.k},
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "simhash": _version("simhash"),
            "chardet": _version("chardet"),
        },
        "documents": len(paths),
        "bytes": total_bytes,
        "encodings": encodings,
        "failed": failed,
        "seconds": {
            "decode": round(decoded - started, 4),
            "fingerprint": round(fingerprinted - decoded, 4),
            "index": round(finished - fingerprinted, 4),
            "total": round(finished - started, 4),
        },
        "fingerprints": {
            n: f"{h.value:016x}" for n, h in zip(names, hashes, strict=True) if h is not None
        },
        "pairs": [{"a": names[i], "b": names[j]} for i, j in sorted(pairs)],
    }
    args.out.write_text(json.dumps(result, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{len(paths)} documents, {len(failed)} failed, {len(pairs)} pairs, "
        f"{finished - started:.2f} s (numpy {np.__version__})"
    )
    return 0


def _version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
