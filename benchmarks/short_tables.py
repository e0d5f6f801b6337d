"""The short-text benchmark (``short.py``): the report. The heading (rows, originals and
copies by language and kind), the table of the contenders (edited recall by band, exact and
normalised recall, hard negatives and false removals, seconds, rows/s, peak PSS), recall of
every kind by band and language, the issue's targets and their verdicts, a few of simdup's
false removals and misses, and the legend. Run short.py, not this."""

from __future__ import annotations

import json
from typing import Any

from common import MB, fmt, markdown_table
from dedup_runs import output_checks, verdict
from short_rows import BAND_NAMES, KINDS, LANGS

# The targets.
TARGET_EDITED_RECALL = 0.95
TARGET_FALSE_REMOVALS = 0.01
TARGET_EXACT_RECALL = 1.0


def _recall(cell: dict[str, Any]) -> str:
    return f"{fmt(cell['recall'])} ({cell['found']}/{cell['planted']})" if cell else "—"


def main_table(result: dict[str, Any]) -> str:
    rows = []
    for c in result["contenders"]:
        s = c.get("score")
        secs = c.get("median_seconds")
        runs = " ".join(f"{r['seconds']:.1f}" for r in c["runs"])
        if not s:
            rows.append([c["name"], *["—"] * 10, f"failed ({runs})", "—", "—"])
            continue
        rec = s["recall"]
        rows.append(
            [
                c["name"],
                *[fmt(rec["edited"][b]["recall"]) for b in BAND_NAMES],
                fmt(rec["edited"]["all"]["recall"]),
                fmt(rec["exact"]["all"]["recall"]),
                fmt(rec["normalised"]["all"]["recall"]),
                f"{s['negatives_removed']}/{s['negatives']}",
                f"{s['false_removals']} ({100 * s['false_removal_share']:.1f}%)"
                if s["removed"]
                else "0",
                str(s["removed"]),
                f"{fmt(secs, 2)} ({runs})",
                fmt(c.get("rows_per_second"), 0),
                fmt(c.get("median_peak_pss_mb"), 0),
            ]
        )
    rows.append(
        [
            "*issue 32 target*",
            *[f"≥ {TARGET_EDITED_RECALL}"] * 4,
            "",
            f"{TARGET_EXACT_RECALL}",
            f"{TARGET_EXACT_RECALL}",
            "",
            f"≤ {100 * TARGET_FALSE_REMOVALS:.0f}%",
            "",
            "",
            "",
            "",
        ]
    )
    return markdown_table(
        [
            "contender",
            *[f"edited {b}" for b in BAND_NAMES],
            "edited all",
            "exact",
            "normalised",
            "hard negatives removed",
            "false removals (share)",
            "rows removed",
            "seconds: median (runs)",
            "rows/s",
            "peak PSS MB",
        ],
        rows,
    )


def detail_table(result: dict[str, Any]) -> str:
    """Recall (found/planted) of every kind by band and language, per contender; for the
    hard negatives, the share removed as a duplicate of their original."""
    rows = []
    for c in result["contenders"]:
        s = c.get("score")
        if not s:
            continue
        for kind in KINDS:
            cells = s["recall"][kind]
            label = "negatives removed" if kind == "negative" else kind
            rows.append(
                [
                    f"{c['key']}: {label}",
                    *[_recall(cells[b]) for b in BAND_NAMES],
                    _recall(cells["all"]),
                    *[_recall(cells[f"lang:{lang}"]) for lang in LANGS],
                ]
            )
    return markdown_table(["kind", *BAND_NAMES, "all", *LANGS], rows)


def targets(result: dict[str, Any]) -> list[str]:
    lines = []
    c = next((c for c in result["contenders"] if c["key"] == "simdup"), {})
    s = c.get("score")
    if not s:
        return ["- simdup did not run to the end: no figures"]
    rec = s["recall"]
    bands = [rec["edited"][b]["recall"] for b in BAND_NAMES]
    shown = ", ".join(f"{b} {v:.3f}" for b, v in zip(BAND_NAMES, bands, strict=True))
    lines.append(
        f"- edited recall ≥ {TARGET_EDITED_RECALL} in every band: {shown} → "
        f"{verdict(all(v >= TARGET_EDITED_RECALL for v in bands))}"
    )
    share = s["false_removal_share"] if s["removed"] else 0.0
    lines.append(
        f"- false removals ≤ {100 * TARGET_FALSE_REMOVALS:.0f}% of the rows removed: "
        f"{s['false_removals']} of {s['removed']} ({100 * share:.2f}%) → "
        f"{verdict(share <= TARGET_FALSE_REMOVALS)} ({s['negatives_removed']} of "
        f"{s['negatives']} hard negatives removed as a duplicate of their original)"
    )
    for kind in ("exact", "normalised"):
        value = rec[kind]["all"]["recall"]
        lines.append(
            f"- {kind} recall = 1.0: {value:.4f} → {verdict(value >= TARGET_EXACT_RECALL)}"
        )
    lines += output_checks(result["contenders"])
    summary = result.get("simdup_summary")
    if summary:
        too_short = summary["too_short"]
        tail = summary["stderr_tail"][-1] if summary["stderr_tail"] else ""
        lines.append(
            "- simdup's summary (a run without -q): "
            + (
                f"{too_short} rows too short to judge"
                if too_short is not None
                else 'no "too short" count'
            )
            + (f"; `{tail.strip()}`" if tail else "")
        )
    return lines


def examples_text(result: dict[str, Any]) -> str:
    c = next((c for c in result["contenders"] if c["key"] == "simdup"), {})
    ex = (c.get("score") or {}).get("examples")
    if not ex:
        return ""
    out = ["simdup, a few false removals (removed ← kept, edit similarity):"]
    if not ex["false_removals"]:
        out.append("- (none)")
    for e in ex["false_removals"]:
        out.append(
            f"- {e['removed']} ← {e['kept']} ({e['edit_similarity']:.3f}): "
            f"{json.dumps(e['removed_text'], ensure_ascii=False)} ← "
            f"{json.dumps(e['kept_text'], ensure_ascii=False)}"
        )
    out.append("\nsimdup, a few edited copies missed (original → copy, edit similarity):")
    if not ex["missed_edited"]:
        out.append("- (none)")
    for e in ex["missed_edited"]:
        out.append(
            f"- {e['original']} → {e['copy']} ({e['band']}, {e['lang']}, "
            f"{e['edit_similarity']:.3f}): {json.dumps(e['original_text'], ensure_ascii=False)}"
            f" → {json.dumps(e['copy_text'], ensure_ascii=False)}"
        )
    return "\n".join(out)


def heading(result: dict[str, Any], repeat: int) -> str:
    langs = result["originals_by_language"]
    copies = result["copies_by_language"]
    per_kind = {k: sum(v.values()) for k, v in result["copies_by_kind_and_band"].items()}
    return (
        f"### {result['rows_total']:,} short rows ({result['bytes'] / MB:.1f} MB of JSON "
        f"Lines): {result['originals']:,} originals (zh {langs.get('zh', 0):,}, mixed "
        f"{langs.get('mixed', 0):,}, en {langs.get('en', 0):,}) and {result['copies']:,} "
        f"planted copies ({', '.join(f'{k} {v}' for k, v in per_kind.items())}; zh "
        f"{copies.get('zh', 0)}, mixed {copies.get('mixed', 0)}, en {copies.get('en', 0)}), "
        f"{repeat} alternating round(s)"
        + "".join(
            f"; band {band}: {result['copies_wanted_per_band'] - short} copies of "
            f"{result['copies_wanted_per_band']} wanted (too few distinct rows of that length)"
            for band, short in result.get("copies_short_by_band", {}).items()
        )
    )


LEGEND = (
    "Rows of 20–300 characters cut from the set's Markdown; bands are the original's length "
    "in characters. Edited copies have an edit similarity of 0.90–0.99 to their original, "
    "hard negatives 0.70–0.85 (normalised forms: NFKC, casefold, [\\W_]+ → one space, no "
    "space between CJK ideographs; rapidfuzz Levenshtein normalized_similarity). A planted "
    "pair is found when one row was removed as a duplicate of the other, or both as "
    "duplicates of one kept row. False removals: removed rows whose kept row is not a "
    "near-duplicate (edit similarity < 0.90), share of the rows removed. zh / mixed / en: "
    "CJK-heavy, Latin-heavy with some CJK, no CJK. Medians of alternating runs on a shared, "
    "noisy machine; peak PSS: highest sampled sum over the command's processes."
)
