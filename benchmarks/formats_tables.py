"""The formats benchmark (``formats.py``): its sections' Markdown tables and targets."""

from __future__ import annotations

from typing import Any

from common import (
    MB,
    fmt,
    markdown_table,
    median,
)
from formats_measure import (
    compared_cell,
)
from formats_texts import (
    F1_TOLERANCE,
    HOW,
    LONG_TARGET_SECONDS,
    MEMBERS,
    SCAN_RATIO_TARGET,
)

# ---------------------------------------------------------------- tables


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def quality_tables(q: dict[str, Any]) -> tuple[str, list[str]]:
    rows = q["rows"]
    names = {
        "plain": "plain-text scan of the original set",
        "mixed": "**simdup scan of the mixed-format set**",
        "bare": "plain-text scan of the bare libraries' texts of the mixed set",
        "sources": "**simdup scan of the mixed set with every document's Markdown source**",
    }
    table = []
    for key, label in names.items():
        r = rows[key]
        c = r["clusters"]
        table.append([label, fmt(r["precision"]), fmt(r["recall"]), fmt(r["f1"]),
                      fmt(c["precision"]), fmt(c["recall"]), fmt(c["f1"]),
                      str(r["predicted_pairs"]), str(r["summary"]["files_skipped"]),
                      fmt(r["seconds"], 2)])  # fmt: skip
    lines = [
        "### Quality (score.py; converted files scored as the documents they came from)",
        "",
        markdown_table(["scan", "pairs P", "pairs R", "pairs F1", "clusters P", "clusters R",
                        "clusters F1", "predicted pairs", "files skipped", "seconds"], table),
    ]  # fmt: skip
    delta = rows["mixed"]["f1"] - rows["plain"]["f1"]
    delta_c = rows["mixed"]["clusters"]["f1"] - rows["plain"]["clusters"]["f1"]
    targets = [
        f"pairs F1 of the mixed set − plain = {delta:+.4f} (target: within "
        f"{F1_TOLERANCE}): {met(abs(delta) <= F1_TOLERANCE)}; clusters F1 {delta_c:+.4f}"
    ]
    delta_s = rows["sources"]["f1"] - rows["plain"]["f1"]
    targets.append(
        f"pairs F1 of the mixed set with the Markdown sources − plain = {delta_s:+.4f} (target: "
        f"within {F1_TOLERANCE}): {met(abs(delta_s) <= F1_TOLERANCE)}"
    )
    sp = q["source_pairs"]
    paired = sum(r["pair"] for r in sp.values())
    clustered = sum(r["cluster"] for r in sp.values())
    documents = sum(r["documents"] for r in sp.values())
    targets.append(
        f"documents found as one with their Markdown source: {paired}/{documents} pairs, "
        f"{clustered}/{documents} in one cluster {met(clustered == documents)}"
    )
    table = [[k, HOW[k], str(r["documents"]), str(r["pair"]), str(r["documents"] - r["pair"]),
              str(r["cluster"])] for k, r in sp.items()]  # fmt: skip
    lines += ["", "Each document of the set and its export, scanned together (the sources "
              "tree): the pair between the Markdown source and the export, per export format:",
              "", markdown_table(["export", "made by", "documents", "pair found", "missed",
                                  "one cluster"], table)]  # fmt: skip
    ch = q["changes"]
    lines += ["", f"Against the plain-text scan the mixed scan loses {ch['lost']} true pairs, "
              f"gains {ch['gained']}, adds {ch['new_fp']} false positives and drops "
              f"{ch['gone_fp']}."]  # fmt: skip
    for r in rows.values():
        for s in r["skipped"][:5]:
            lines.append(f"- skipped: `{s.get('path')}`: {s.get('reason')}")
    table = [
        [k, HOW[k], str(q["formats"].get(k, 0)), str(v[0]), str(v[1]), str(v[2])]
        for k, v in q["by_format"].items()
    ]
    lines += ["", "Positives with a document in each format (a pair of two formats counts in "
              "both rows):", "",
              markdown_table(["format", "made by", "documents", "positives", "found (plain)",
                              "found (mixed)"], table)]  # fmt: skip
    for kind, title in (("lost", "True pairs the mixed scan loses"),
                        ("gained", "True pairs the mixed scan gains"),
                        ("new_fp", "False positives the mixed scan adds"),
                        ("gone_fp", "False positives the mixed scan drops")):  # fmt: skip
        found = q["details"][kind]
        if not found:
            continue
        table = [
            [f"`{d['a']}`", f"`{d['b']}`", " × ".join(d["formats"]), str(d["label_sim"]),
             d["label_kind"], compared_cell(d["plain"]), compared_cell(d["rendered"]),
             compared_cell(d["mixed"])]
            for d in found
        ]  # fmt: skip
        lines += ["", f"{title} ({len(found)} shown; `simdup.compare` of the original "
                  "Markdown files, of the documents rendered as plain text (pandoc) and of the "
                  "converted files: Hamming distance, word-set Jaccard, length ratio, "
                  "verdict):", "",
                  markdown_table(["a", "b", "formats", "label sim", "kind", "originals",
                                  "rendered", "converted"], table)]  # fmt: skip
    if q["fidelity"]:
        table = []
        for kind in MEMBERS:
            f = q["fidelity"].get(kind)
            if not f:
                continue
            worst = ", ".join(
                f"`{w['source'].rpartition('/')[2]}` J={w['jaccard']:.3f} "
                f"len={w['length_ratio']:.3f}" for w in f["worst"])  # fmt: skip
            table.append([kind, str(f["files"]), fmt(f["jaccard_median"]), fmt(f["jaccard_min"]),
                          fmt(f["length_ratio_median"]), fmt(f["length_ratio_min"]),
                          str(f["length_ratio_below_0.97"]), fmt(f["distance_median"], 0),
                          str(f["not_near_duplicates"]), worst])  # fmt: skip
        lines += ["", "Each file's text (documents and families) against its document rendered "
                  "as plain text by pandoc (`simdup.compare`; the plain-text files are those "
                  "renderings re-encoded):", "",
                  markdown_table(["format", "files", "word Jaccard median", "min",
                                  "length ratio median", "min", "length ratio < 0.97",
                                  "Hamming median", "not near-duplicates", "furthest"],
                                 table)]  # fmt: skip
    return "\n".join(lines), targets


def families_table(fam: dict[str, Any], manifest: dict[str, Any]) -> tuple[str, list[str]]:
    table = []
    for name, f in fam.items():
        notes = []
        if f["missing"]:
            notes.append("missing: " + ", ".join(f["missing"]))
        if f["extra"]:
            notes.append("extra: " + ", ".join(f"`{x}`" for x in f["extra"][:5]))
        if f["split"]:
            notes.append("split: " + " | ".join(", ".join(s) for s in f["split"]))
        table.append([name, f"{f['bytes']:,}", str(f["members"]), str(f["clusters"]),
                      f"{f['pairs_reported']}/{f['pairs_possible']}",
                      "yes" if f["ok"] else "**no**", "; ".join(notes)])  # fmt: skip
    ok = sum(f["ok"] for f in fam.values())
    text = "\n".join([
        f"### Families: one document in every format ({', '.join(MEMBERS)})",
        "",
        markdown_table(["family", "Markdown bytes", "members", "clusters", "pairs reported",
                        "one cluster, exactly its members", "notes"], table),
    ])  # fmt: skip
    return text, [f"families that are exactly one cluster: {ok}/{len(fam)} "
                  f"{met(ok == len(fam))}"]  # fmt: skip


def readers_table(r: dict[str, Any]) -> str:
    table = []
    for kind, row in r["formats"].items():
        table.append([
            kind, str(row["files"]), fmt(row["mb"], 2),
            fmt(row["simdup"]["ms_per_file_median"], 1),
            fmt(row["in-place"]["ms_per_file_median"], 1),
            fmt(row["bare"]["ms_per_file_median"], 1),
            fmt(row["simdup"]["ms_per_mb"], 0), fmt(row["in-place"]["ms_per_mb"], 0),
            fmt(row["bare"]["ms_per_mb"], 0),
            fmt(row["simdup_over_bare"], 2), fmt(row["in_place_over_bare"], 2),
        ])  # fmt: skip
    imports = r["imports_seconds"]
    return "\n".join([
        "### Reading each format (fresh process per contender and round, medians)",
        "",
        markdown_table(["format", "files", "MB", "simdup ms/file", "in place ms/file",
                        "bare ms/file", "simdup ms/MB", "in place ms/MB", "bare ms/MB",
                        "simdup ÷ bare", "in place ÷ bare"], table),
        "",
        "simdup: `readers.read_document` as a scan's worker calls it (sniffing, a child process "
        "per file within the read limits; the libraries imported where the reader imports "
        "them); in place: the reader's `read` in this process; bare: the library alone. "
        f"In place and bare import the libraries first ({fmt(imports['bare'], 3)} s, not "
        "counted). Per-file medians are medians over files of each file's median over rounds; "
        "ms/MB is the median total over rounds per MB of input.",
    ])  # fmt: skip


def scan_table(s: dict[str, Any]) -> tuple[str, list[str]]:
    table = []
    base = s["baseline_seconds"]
    for label, runs in s["runs"].items():
        stages = [r.get("stages", {}).get("fingerprint") for r in runs]
        table.append([
            label, fmt(s["medians"][label], 2), " ".join(fmt(r["seconds"], 2) for r in runs),
            fmt(median([r["peak_rss_mb"] or 0 for r in runs]), 0),
            fmt(median([x for x in stages if x is not None]), 2) if any(stages) else "—",
            fmt(s["medians"][label] / base, 2),
        ])  # fmt: skip
    same = all(r.get("identical", True) for k, v in s["runs"].items() for r in v)
    text = "\n".join([
        f"### Whole scan of the mixed tree ({s['files']} files, {s['bytes'] / MB:.1f} MB; "
        f"fresh processes, alternating; {s['jobs']} workers / bare processes)",
        "",
        markdown_table(["run", "median s", "every run", "peak tree RSS MB",
                        "fingerprint stage s", "÷ baseline"], table),
        "",
        f"Baseline: bare extraction + plain-text scan of its texts = {base:.2f} s (medians). "
        f"Every mixed scan gave the pairs and clusters of the quality run: {same}.",
    ])  # fmt: skip
    worst = max(s["ratio_no_cache"], s["ratio_cold_cache"])
    targets = [
        f"scan of the mixed set ÷ (bare extraction + plain-text scan): --no-cache "
        f"{s['ratio_no_cache']:.2f}, empty cache {s['ratio_cold_cache']:.2f} (target ≤ "
        f"{SCAN_RATIO_TARGET}): {met(worst <= SCAN_RATIO_TARGET)}"
    ]
    return text, targets


def long_table(r: dict[str, Any]) -> tuple[str, list[str]]:
    names = {"simdup": "simdup (`read_document`, as a scan's worker)",
             "in-place": "PDF reader in place (pypdfium2 imported before)",
             "bare": "bare pypdfium2: page text (imported before)"}  # fmt: skip
    table = [
        [names[c], fmt(r[c]["seconds"], 3), " ".join(fmt(x, 3) for x in r[c]["every_run"]),
         fmt(r[c]["pages_per_second"], 0), f"{r[c]['chars']:,}"]
        for c in ("simdup", "in-place", "bare")
    ]  # fmt: skip
    text = "\n".join([
        f"### A {r['pages']}-page text PDF ({r['bytes'] / MB:.1f} MB)",
        "",
        markdown_table(["reader", "median s", "every run", "pages/s", "characters"], table),
    ])  # fmt: skip
    s = r["simdup"]["seconds"]
    return text, [f"{r['pages']}-page PDF read by simdup in {s:.3f} s (target ≤ "
                  f"{LONG_TARGET_SECONDS:g} s): {met(s <= LONG_TARGET_SECONDS)}"]  # fmt: skip
