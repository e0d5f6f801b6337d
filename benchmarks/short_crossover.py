"""Where words stop judging: the crossover between short texts (characters) and long ones (words).

    python benchmarks/short_crossover.py --bench ../shared/bench/visible   (make bench-short)

Paragraphs and list items of 100 to 1,000 characters are cut from the set's Markdown exactly as
short.py cuts its rows (its code, imported), and each gets one edited copy with an edit
similarity in [0.90, 0.99] (short.py's ``edited_copy``): every pair is a near-duplicate by the
project's definition. For each length band the benchmark reports the share of pairs that each
rule of the verifier accepts, from simdup's own records:

- words: the rule for long texts (fingerprints within the verify radius, length ratio, word-set
  Jaccard of the bottom-k sketches at ``min_similarity``), on word-mode records;
- characters: the rule for short texts (edit similarity of the comparison forms at
  ``min_edit_similarity``), on character-mode records;

and the seconds each takes to make the records. ``params.SHORT_TEXT_CHARS`` is chosen where the
words rule reaches the characters rule's recall; the table goes to docs/performance.md.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

from common import DEFAULT_BENCH, bench_folders, decode_anchor, list_docs, markdown_table
from short_copies import Alphabet, edited_copy
from short_rows import markdown_blocks

from simdup.algorithms.edit_join import edit_similarity
from simdup.algorithms.simhash import hamming
from simdup.algorithms.sketch import sketch_jaccard
from simdup.options import ScanOptions
from simdup.text.processor import processor_for

BANDS = ((100, 199), (200, 299), (300, 399), (400, 499), (500, 699), (700, 999), (1000, 1999))


def pairs(docs: Path, per_band: int, seed: int) -> dict[tuple[int, int], list[tuple[str, str]]]:
    """Up to ``per_band`` (original, edited copy) pairs per band of the original's length."""
    # Blocks, and runs of neighbouring blocks of one file joined (passages of every length).
    rng = random.Random(seed)
    blocks: list[str] = []
    for path in list_docs(docs):
        if path.suffix.lower() in (".md", ".markdown"):
            text, _ = decode_anchor(path.read_bytes())
            found = list(markdown_blocks(text.replace("\r\n", "\n")))
            for start in range(len(found)):
                run = " ".join(found[start : start + rng.choice((1, 2, 4, 8, 16))])
                if len(run) >= 100:
                    blocks.append(run)
    blocks = sorted(set(blocks))
    rng.shuffle(blocks)
    alphabet = Alphabet(blocks)
    out: dict[tuple[int, int], list[tuple[str, str]]] = defaultdict(list)
    for block in blocks:
        band = next((b for b in BANDS if b[0] <= len(block) <= b[1]), None)
        if band is None or len(out[band]) >= per_band:
            continue
        made = edited_copy(block, rng, alphabet, (0.90, 0.99))
        if made is not None:
            out[band].append((block, made[0]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--per-band", type=int, default=400)
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    docs, _ = bench_folders(args.bench)
    options = ScanOptions()
    proc = processor_for(options.features)
    found = pairs(docs, args.per_band, args.seed)
    rows = []
    for band in BANDS:
        got: Counter[str] = Counter()
        for a, b in found[band]:
            fa, fb = proc.features(a), proc.features(b)
            (pa, sa, _), (pb, sb, _) = proc.fingerprint_features(fa), proc.fingerprint_features(fb)
            ratio = min(fa.chars, fb.chars) / max(fa.chars, fb.chars)
            words = (
                hamming(pa, pb) <= options.search_radius
                and ratio >= options.min_length_ratio
                and sketch_jaccard(sa, sb, options.features.sketch_size) >= options.min_similarity
            )
            chars = edit_similarity(fa.form, fb.form) >= options.min_edit_similarity
            got["pairs"] += 1
            got["words"] += words or fa.content_hash == fb.content_hash
            got["chars"] += chars or fa.content_hash == fb.content_hash
        n = max(got["pairs"], 1)
        rows.append([f"{band[0]}–{band[1]}", str(got["pairs"]), f"{got['words'] / n:.3f}",
                     f"{got['chars'] / n:.3f}"])  # fmt: skip
    print(markdown_table(["characters", "pairs", "words rule: recall", "characters rule: recall"],
                         rows))  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
