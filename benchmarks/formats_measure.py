"""The formats benchmark (``formats.py``): its sections' measurements (quality,
families, reader times, whole scans, the long PDF)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from common import (
    MB,
    REPO,
    bench_folders,
    log,
    median,
    rotated,
)
from formats_extract import (
    Mapping,
    bare_extract,
    comparable,
    load_report,
    predictions,
    run_checked,
    scored,
    simdup_scan,
    write_predictions,
)
from formats_texts import (
    BENCH_DIR,
    FORMATS,
    FORMATS_DIR,
    rel,
)

# ---------------------------------------------------------------- quality


def compared(a: Path, b: Path) -> dict[str, Any]:
    """``simdup.compare`` of two files: what decides a pair."""
    import simdup

    try:
        c = simdup.compare(rel(a), rel(b), top=8)
    except Exception as exc:  # a file that cannot be read
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "distance": c.distance,
        "jaccard": round(c.jaccard, 4),
        "length_ratio": round(c.length_ratio, 4),
        "near_duplicate": c.near_duplicate,
        "reason": c.reason,
        "only_a": [t.term for t in c.only_a],
        "only_b": [t.term for t in c.only_b],
    }


def compared_cell(c: dict[str, Any]) -> str:
    if "error" in c:
        return "unreadable: " + str(c["error"]).rpartition(": ")[2][:60]
    verdict = "yes" if c["near_duplicate"] else "no"
    return f"d={c['distance']} J={c['jaccard']:.3f} len={c['length_ratio']:.3f} {verdict}"


def quality(
    args: argparse.Namespace,
    manifest: dict[str, Any],
    scorer: Any,
    labels: dict[str, Any],
    tmp: Path,
) -> dict[str, Any]:
    """The plain-text scan of the set, the scan of the mixed tree and the plain-text scan of
    the bare libraries' texts, scored; what the mixed scan loses and gains, and why."""
    docs, _ = bench_folders(args.bench)
    mixed = FORMATS_DIR / "mixed"
    out = FORMATS_DIR / "out"
    out.mkdir(parents=True, exist_ok=True)
    extracted = tmp / "extracted"
    log("quality: plain-text scan of the set, scan of the mixed tree, bare extraction ...")
    runs = {
        "plain": run_checked(simdup_scan([rel(docs)], out / "plain.report.json", ["--no-cache"])),
        "mixed": run_checked(simdup_scan([rel(mixed)], out / "mixed.report.json", ["--no-cache"])),
        "sources": run_checked(
            simdup_scan([rel(FORMATS_DIR / "sources")], out / "sources.report.json", ["--no-cache"])
        ),
    }
    started = time.perf_counter()
    bare_extract(mixed, extracted, args.jobs)
    bare_seconds = time.perf_counter() - started
    runs["bare"] = run_checked(
        simdup_scan([str(extracted)], out / "bare.report.json", ["--no-cache"])
    )
    reports = {k: load_report(out / f"{k}.report.json") for k in runs}
    mapping = Mapping(manifest, mixed, extracted)
    with_sources = Mapping(manifest, FORMATS_DIR / "sources", files=manifest["sources"])
    fmt_of = {f["source"]: f["format"] for f in manifest["files"]}
    file_of = {f["source"]: mixed / f["path"] for f in manifest["files"]}
    rendered = {f["source"]: FORMATS_DIR / f["rendered"] for f in manifest["files"]}

    def plain_doc(path: str) -> str | None:
        full = (REPO / path).resolve()
        try:
            return full.relative_to(docs.resolve().parent).as_posix()
        except ValueError:
            return None

    rows: dict[str, Any] = {}
    for key, to_doc in (("plain", plain_doc), ("mixed", mapping.document),
                        ("bare", mapping.document),
                        ("sources", with_sources.document)):  # fmt: skip
        predicted = predictions(reports[key], to_doc)
        write_predictions(out, key, predicted)
        rows[key] = scored(scorer, labels, predicted)
        rows[key]["seconds"] = runs[key]["seconds"]
        rows[key]["summary"] = reports[key]["summary"]
        rows[key]["skipped"] = reports[key]["skipped"]
    rows["bare"]["extraction_seconds"] = bare_seconds

    # What the mixed scan loses and gains against the plain one.
    info = {(p["a"], p["b"]): p for p in labels["pairs"]}
    plain, mix = rows["plain"], rows["mixed"]
    changes = {
        "lost": sorted(plain["_tp"] - mix["_tp"]),
        "gained": sorted(mix["_tp"] - plain["_tp"]),
        "new_fp": sorted(mix["_fp"] - plain["_fp"]),
        "gone_fp": sorted(plain["_fp"] - mix["_fp"]),
    }
    details: dict[str, list[dict[str, Any]]] = {}
    for kind, pairs in changes.items():
        details[kind] = []
        for a, b in pairs[: args.diagnose]:
            label = info.get((a, b))
            details[kind].append({
                "a": a, "b": b, "formats": [fmt_of[a], fmt_of[b]],
                "label_sim": label["sim"] if label else None,
                "label_kind": label["kind"] if label else "negative",
                "plain": compared(args.bench / a, args.bench / b),
                "rendered": compared(rendered[a], rendered[b]),
                "mixed": compared(file_of[a], file_of[b]),
            })  # fmt: skip

    # Positives per format: those with a document in that format, found by each scan.
    by_format: dict[str, list[int]] = {k: [0, 0, 0] for k in FORMATS}
    for (a, b), p in info.items():
        if p["label"] != "pos":
            continue
        for kind in {fmt_of[a], fmt_of[b]}:
            by_format[kind][0] += 1
            by_format[kind][1] += (a, b) in plain["_tp"]
            by_format[kind][2] += (a, b) in mix["_tp"]

    source_pairs = markdown_source_pairs(manifest, reports["sources"], with_sources)

    fidelity: dict[str, Any] = {}
    if args.fidelity:
        log("quality: each file's text against its document rendered as plain text ...")
        per: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for f in manifest["files"]:
            c = compared(FORMATS_DIR / f["rendered"], mixed / f["path"])
            c["source"] = f["source"]
            per[f["format"]].append(c)
        for kind, found in per.items():
            ok = [c for c in found if "error" not in c]
            fidelity[kind] = {
                "files": len(found),
                "errors": len(found) - len(ok),
                "jaccard_median": median([c["jaccard"] for c in ok]),
                "jaccard_min": min((c["jaccard"] for c in ok), default=None),
                "length_ratio_median": median([c["length_ratio"] for c in ok]),
                "length_ratio_min": min((c["length_ratio"] for c in ok), default=None),
                "length_ratio_below_0.97": sum(c["length_ratio"] < 0.97 for c in ok),
                "distance_median": median([c["distance"] for c in ok]),
                "not_near_duplicates": sum(not c["near_duplicate"] for c in ok),
                "worst": sorted(ok, key=lambda c: c["jaccard"] + c["length_ratio"])[:3],
            }
    for r in rows.values():
        r.pop("_tp")
        r.pop("_fp")
    return {
        "rows": rows,
        "changes": {k: len(v) for k, v in changes.items()},
        "details": details,
        "by_format": by_format,
        "source_pairs": source_pairs,
        "fidelity": fidelity,
        "formats": Counter(
            f["format"] for f in manifest["files"] if f["source"].startswith("docs/")
        ),  # fmt: skip
    }


def markdown_source_pairs(
    manifest: dict[str, Any], report: dict[str, Any], mapping: Mapping
) -> dict[str, dict[str, int]]:
    """Per export format, how many documents of the set the scan of the sources tree found as
    one with their Markdown source: the pair reported, and both in one cluster."""
    exports: dict[str, str] = {f["source"]: f["export"] for f in manifest["sources"]}
    paired: set[str] = set()
    for p in report["pairs"]:
        a, b = mapping.member(p["a"]), mapping.member(p["b"])
        if a and b:
            fa, fb = mapping.files[a], mapping.files[b]
            if fa["source"] == fb["source"] and {fa["format"], fb["format"]} >= {"md"}:
                paired.add(fa["source"])
    together: set[str] = set()
    for c in report["clusters"]:
        kinds: dict[str, set[str]] = defaultdict(set)
        for m in c["members"]:
            member = mapping.member(m["path"])
            if member:
                f = mapping.files[member]
                kinds[f["source"]].add("md" if f["format"] == "md" else "export")
        together |= {doc for doc, k in kinds.items() if len(k) == 2}
    out: dict[str, dict[str, int]] = {}
    for doc, kind in exports.items():
        row = out.setdefault(kind, {"documents": 0, "pair": 0, "cluster": 0})
        row["documents"] += 1
        row["pair"] += doc in paired
        row["cluster"] += doc in together
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- families


def families_check(manifest: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """Each family must be exactly one cluster of the mixed scan: all its members, nothing
    else."""
    mapping = Mapping(manifest, FORMATS_DIR / "mixed")
    fmt_of = {f["path"]: f["format"] for f in manifest["files"]}
    clusters = [
        {mapping.member(m["path"]) or m["path"] for m in c["members"]} for c in report["clusters"]
    ]
    pairs = {frozenset((mapping.member(p["a"]), mapping.member(p["b"]))) for p in report["pairs"]}
    out = {}
    for name, members in manifest["families"].items():
        wanted = set(members)
        touching = [c for c in clusters if c & wanted]
        found = set().union(*touching) if touching else set()
        n = len(members)
        out[name] = {
            "members": n,
            "clusters": len(touching),
            "ok": len(touching) == 1 and touching[0] == wanted,
            "missing": sorted(fmt_of[m] for m in wanted - found),
            "extra": sorted(found - wanted),
            "split": [sorted(fmt_of.get(m, m) for m in c & wanted) for c in touching]
            if len(touching) > 1 else [],
            "pairs_reported": sum(
                frozenset((a, b)) in pairs for i, a in enumerate(members) for b in members[i + 1:]
            ),
            "pairs_possible": n * (n - 1) // 2,
            "bytes": manifest["family_bytes"][name],
        }  # fmt: skip
    return out


# ---------------------------------------------------------------- reader times


def reader_times(args: argparse.Namespace, manifest: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """Every document of the mixed set read by each contender in a fresh process per round,
    the contenders alternating; per format, medians."""
    mixed = FORMATS_DIR / "mixed"
    files = [f for f in manifest["files"] if f["source"].startswith("docs/")]
    paths = [rel(mixed / f["path"]) for f in files]
    listing = tmp / "files.json"
    listing.write_text(json.dumps(paths))
    contenders = ["simdup", "in-place", "bare"]
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    for round_no in range(args.repeat):
        for contender in rotated(contenders, round_no):
            log(f"readers {round_no + 1}/{args.repeat}: {contender} ...")
            out = tmp / "times.json"
            run_checked([sys.executable, str(BENCH_DIR / "formats.py"), "--time-files",
                         contender, str(listing), str(out)])  # fmt: skip
            runs[contender].append(json.loads(out.read_text()))
    per: dict[str, Any] = {}
    for kind in FORMATS:
        idx = [i for i, f in enumerate(files) if f["format"] == kind]
        if not idx:
            continue
        size = sum((mixed / files[i]["path"]).stat().st_size for i in idx)
        row: dict[str, Any] = {"files": len(idx), "mb": size / MB}
        for c in contenders:
            per_file = [median([r["seconds"][i] for r in runs[c]]) for i in idx]
            totals = [sum(r["seconds"][i] for i in idx) for r in runs[c]]
            row[c] = {
                "ms_per_file_median": 1000 * median(per_file),
                "seconds_total_median": median(totals),
                "ms_per_mb": 1000 * median(totals) / (size / MB),
                "skipped": sorted(
                    {files[i]["path"] for r in runs[c] for i in idx if r["chars"][i] < 0}
                ),  # fmt: skip
            }
        row["simdup_over_bare"] = row["simdup"]["seconds_total_median"] / max(
            row["bare"]["seconds_total_median"], 1e-9
        )
        row["in_place_over_bare"] = row["in-place"]["seconds_total_median"] / max(
            row["bare"]["seconds_total_median"], 1e-9
        )
        per[kind] = row
    imports = {c: median([r["imports"] for r in runs[c]]) for c in contenders}
    return {"formats": per, "imports_seconds": imports, "runs": runs}


# ---------------------------------------------------------------- whole scans


def scan_times(
    args: argparse.Namespace, manifest: dict[str, Any], tmp: Path, expected: Any
) -> dict[str, Any]:
    """Fresh processes, alternating: the scans of the mixed tree against bare extraction plus
    a plain-text scan of its texts."""
    docs, _ = bench_folders(args.bench)
    mixed = rel(FORMATS_DIR / "mixed")
    extracted = tmp / "scan-extracted"
    cache = tmp / "cache"
    out = tmp / "scan.json"
    bare_cmd = [sys.executable, str(BENCH_DIR / "formats.py"), "--bare-extract", mixed,
                str(extracted), "--jobs", str(args.jobs)]  # fmt: skip
    run_checked(bare_cmd)  # the texts the plain-text scan reads
    contenders = {
        "scan mixed --no-cache": simdup_scan([mixed], out, ["--no-cache"]),
        "scan mixed, empty cache": simdup_scan([mixed], out, ["--cache", str(cache)]),
        "bare extraction": bare_cmd,
        "scan of the extracted texts --no-cache": simdup_scan([str(extracted)], out,
                                                              ["--no-cache"]),
        "scan of the original set --no-cache": simdup_scan([rel(docs)], out, ["--no-cache"]),
        "scan mixed --no-cache, readers in place (diagnostic)": [
            sys.executable, str(BENCH_DIR / "formats.py"), "--scan-in-place",
            *simdup_scan([mixed], out, ["--no-cache"])[4:],
        ],
    }  # fmt: skip
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in contenders}
    for round_no in range(args.repeat):
        for label in rotated(list(contenders), round_no):
            if label == "scan mixed, empty cache":
                shutil.rmtree(cache, ignore_errors=True)
            if label == "bare extraction":
                shutil.rmtree(extracted, ignore_errors=True)
            log(f"scan {round_no + 1}/{args.repeat}: {label} ...")
            measured = run_checked(contenders[label])
            measured.pop("stdout")
            if label.startswith("scan"):
                report = load_report(out)
                measured["stages"] = report["summary"]["seconds"]
                if label.startswith("scan mixed"):
                    measured["identical"] = comparable(report) == expected
            runs[label].append(measured)
            log(f"  {measured['seconds']:.2f} s")
    medians = {k: median([r["seconds"] for r in v]) for k, v in runs.items()}
    baseline = medians["bare extraction"] + medians["scan of the extracted texts --no-cache"]
    per_round = [
        runs["bare extraction"][i]["seconds"]
        + runs["scan of the extracted texts --no-cache"][i]["seconds"]
        for i in range(args.repeat)
    ]
    return {
        "jobs": args.jobs,
        "runs": runs,
        "medians": medians,
        "baseline_seconds": baseline,
        "baseline_per_round": per_round,
        "ratio_no_cache": medians["scan mixed --no-cache"] / baseline,
        "ratio_cold_cache": medians["scan mixed, empty cache"] / baseline,
        "files": len(manifest["files"]),
        "bytes": sum(
            (FORMATS_DIR / "mixed" / f["path"]).stat().st_size for f in manifest["files"]
        ),  # fmt: skip
    }


# ---------------------------------------------------------------- the long PDF


def long_pdf(args: argparse.Namespace, manifest: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """The 300-page PDF read in fresh processes, alternating: by simdup as a scan's worker
    does, by the PDF reader in place, and by bare pypdfium2."""
    path = rel(FORMATS_DIR / manifest["long_pdf"]["path"])
    listing = tmp / "long.json"
    listing.write_text(json.dumps([path]))
    contenders = ["simdup", "in-place", "bare"]
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    for round_no in range(args.repeat):
        for contender in rotated(contenders, round_no):
            out = tmp / "long-times.json"
            run_checked([sys.executable, str(BENCH_DIR / "formats.py"), "--time-files",
                         contender, str(listing), str(out)])  # fmt: skip
            runs[contender].append(json.loads(out.read_text()))
    pages = manifest["long_pdf"]["pages"]
    result: dict[str, Any] = {"pages": pages, "bytes": manifest["long_pdf"]["bytes"]}
    for c in contenders:
        seconds = median([r["seconds"][0] for r in runs[c]])
        result[c] = {
            "seconds": seconds,
            "every_run": [r["seconds"][0] for r in runs[c]],
            "pages_per_second": pages / seconds,
            "chars": runs[c][0]["chars"][0],
            "imports_seconds": median([r["imports"] for r in runs[c]]),
        }
    return result
