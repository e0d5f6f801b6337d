"""Documents in other formats: simdup's readers on a mixed-format copy of the labelled set.

    python benchmarks/formats.py --bench ../shared/bench/visible      (or: make bench-formats)
    python benchmarks/formats.py --repeat 3 --sections quality,families,readers,scan,long

The benchmark set is Markdown. This program makes (once; cached in benchmarks/results/formats/,
converted again when the tools' versions in its ``stamp.json`` change) a copy of it in which
each document, its text decoded as labels.json says, is ONE of: plain text rendered by pandoc
(``-t plain``, written back in the original's encoding and line ends), DOCX, ODT, HTML, EPUB or
RTF made by pandoc, Word 97-2003 ``.doc`` or PDF made by pandoc and LibreOffice, or PDF made by
pandoc and headless Chromium (print to PDF); which one is chosen by a hash of the document's
id. Labels stay valid: a file is scored as the document it came from. Next to the documents,
``families/``: 12 documents made of paragraphs of the set (each paragraph used once, no two
from one lineage of revisions), each as its Markdown source and in all nine formats; and a
300-page text PDF. Beside it, ``sources/``: every document of the set twice, as its Markdown
file (as the set has it) and as its export in the mixed set (issue 34).

Measured, each in the same run:

- **quality**: ``simdup scan`` of the mixed tree (fresh process, ``--no-cache``), pairs and
  clusters scored with the set's ``score.py`` beside the plain-text scan of the original set,
  and beside the plain-text scan of the texts the bare libraries extract; the positives found
  per format; every pair the mixed scan loses or gains, with ``simdup.compare`` of the
  originals, of the documents rendered as plain text and of the converted files; how close
  each format's text is to its document rendered as plain text (word-set Jaccard, length
  ratio: what verification looks at);
- **sources**: ``simdup scan`` of the sources tree, scored like the mixed one (pairs F1 within
  0.01 of the plain-text scan), and per export format how many documents are found as one with
  their Markdown source (the pair reported; both in one cluster);
- **families**: each family must be exactly one cluster, with all its members (its Markdown
  source included) and nothing else;
- **readers**: per format, every document read in a fresh process per contender and round, the
  contenders alternating: by simdup as a scan's worker reads it (``readers.read_document``: a
  child process per file within the read limits), by the reader in place, and by the bare
  libraries (pypdfium2 page text; lxml over the DOCX, ODT and EPUB XML; ``lxml.html``;
  striprtf; antiword); medians per file and per MB;
- **scan**: fresh processes, alternating (``--repeat`` rounds): ``simdup scan`` of the mixed
  tree with ``--no-cache`` and with an empty cache folder (``--cache``), against the bare
  extraction of the same files (this program with ``--bare-extract``, as many processes as
  simdup has workers, texts written out) plus ``simdup scan --no-cache`` of those texts (target:
  at most 1.3 times); and, as a diagnostic, the scan with every reader run in place;
- **long**: a 300-page text PDF (documents of the set concatenated, pandoc, LibreOffice) read by
  simdup's PDF reader (target: 1 s) and by bare pypdfium2 (pages/s).

Printed as Markdown; every number in benchmarks/results/formats.json, the predictions and
reports in benchmarks/results/formats/out/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BENCH,
    RESULTS,
    bench_folders,
    default_scorer,
    environment,
    load_scorer,
    reproduce_command,
    write_report,
)
from formats_extract import (
    bare_extract,
    comparable,
    import_libraries,
    load_report,
    scan_in_place,
    time_files,
)
from formats_make import build
from formats_measure import (
    families_check,
    long_pdf,
    quality,
    reader_times,
    scan_times,
)
from formats_tables import (
    families_table,
    long_table,
    quality_tables,
    readers_table,
    scan_table,
)
from formats_texts import FORMATS_DIR

# ---------------------------------------------------------------- main


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS
        return max(1, os.cpu_count() or 1)


SECTIONS = ("quality", "families", "readers", "scan", "long")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="set folder (docs/, labels)")
    ap.add_argument("--score", type=Path, help="score.py (default: next to the set folder)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every timed contender")
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"of {', '.join(SECTIONS)}")
    ap.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        help="bare extraction processes (default: as many as simdup's workers)",
    )
    ap.add_argument("--convert-jobs", type=int, default=2, help="converters run at once")
    ap.add_argument("--rebuild", action="store_true", help="convert everything again")
    ap.add_argument("--build-only", action="store_true", help="make the files, measure nothing")
    ap.add_argument(
        "--diagnose", type=int, default=40, help="pairs of each kind of change compared in detail"
    )
    ap.add_argument(
        "--no-fidelity",
        dest="fidelity",
        action="store_false",
        help="skip comparing every converted document with its original",
    )
    # Internal: what the measured subprocesses run.
    ap.add_argument("--bare-extract", nargs=2, metavar=("SRC", "DST"), help=argparse.SUPPRESS)
    ap.add_argument("--time-files", nargs=3, metavar=("WHO", "LIST", "OUT"), help=argparse.SUPPRESS)
    if argv[:1] == ["--scan-in-place"]:  # internal too: the rest are simdup scan's arguments
        scan_in_place(argv[1:])
        return 0
    args = ap.parse_args(argv)
    if args.bare_extract:
        bare_extract(Path(args.bare_extract[0]), Path(args.bare_extract[1]), args.jobs)
        return 0
    if args.time_files:
        who, listing, out = args.time_files
        result = time_files(who, json.loads(Path(listing).read_text()))
        Path(out).write_text(json.dumps(result))
        return 0

    sections = [s for s in args.sections.split(",") if s]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    try:
        import_libraries()
    except ImportError as exc:
        raise SystemExit(f"{exc}: pip install -e '.[bench,docs]'") from exc
    env = environment()
    manifest = build(args.bench, args.convert_jobs, args.rebuild)
    if args.build_only:
        return 0
    scorer = load_scorer(args.score or default_scorer(args.bench))
    _, labels_path = bench_folders(args.bench)
    labels = scorer.load_labels(str(labels_path))
    command = reproduce_command("formats.py", argv)
    results: dict[str, dict[str, Any]] = {}
    parts = [f"## simdup on documents in other formats\n\n`{command}`\n"]
    targets: list[str] = []
    mixed_report = FORMATS_DIR / "out" / "mixed.report.json"
    with tempfile.TemporaryDirectory(prefix="simdup-bench-formats-") as tmp_name:
        tmp = Path(tmp_name)
        if "quality" in sections or not mixed_report.exists():
            results["quality"] = quality(args, manifest, scorer, labels, tmp)
            text, found = quality_tables(results["quality"])
            parts.append(text)
            targets += found
        report = load_report(mixed_report)
        if "families" in sections:
            results["families"] = {"families": families_check(manifest, report)}
            text, found = families_table(results["families"]["families"], manifest)
            parts.append(text)
            targets += found
        if "readers" in sections:
            results["readers"] = reader_times(args, manifest, tmp)
            parts.append(readers_table(results["readers"]))
        if "scan" in sections:
            results["scan"] = scan_times(args, manifest, tmp, comparable(report))
            text, found = scan_table(results["scan"])
            parts.append(text)
            targets += found
        if "long" in sections:
            results["long"] = long_pdf(args, manifest, tmp)
            text, found = long_table(results["long"])
            parts.append(text)
            targets += found
    parts.append("### Targets (issue 24)\n\n" + "\n".join(f"- {t}" for t in targets))
    markdown = "\n\n".join(parts) + "\n"
    print(markdown)
    if hasattr(os, "getloadavg"):
        env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    env["tools"] = manifest["stamp"]["tools"]
    from simdup.readers import readers_description

    env["readers"] = readers_description()
    write_report(
        RESULTS / "formats.json",
        "formats",
        command=command,
        bench=args.bench,
        environment=env,
        notes=targets,
        sections={**results, "build": {k: v for k, v in manifest.items() if k != "files"}},
        markdown=markdown,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
