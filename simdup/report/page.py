"""The page shell of the HTML reports: what the scan report (``html``) and the duplicate check's
report (``check_html``) write alike, so that the two pages cannot drift apart where they mean
the same thing.

Both are one self-contained page (inline CSS, no scripts, no external resources): ``html_page``
writes its head (the language, the title, the style sheet) and its end; ``PAGE_STYLE`` is the
start both style sheets share (the body, headings, tables and their cells), each report adding
its own rules after it. The rest is the parts both pages show the same way: a file name
(``path_html``), a setting's value (``setting_text``), every setting in a folded table
(``settings_details``), the files a run skipped (``skipped_section``), and two texts with the
words that differ marked (``inline_diff``: the scan report's diffs, the check report's
fragments beside their sources).

Everything taken from a result (paths, texts, settings, reasons, the words of a language) is
escaped here with ``html.escape``; paths are first written with ``display_path``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from html import escape
from typing import Any

from ..names import display_path
from ..records import SkippedFile

# Where a page is written: ``stream.write``.
Write = Callable[[str], Any]

# The rules both style sheets start with; a report's own rules follow (and may override them).
PAGE_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222}
h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.num{text-align:right}"""

# Character-level diffs are quadratic in the worst case: longer pairs of texts are marked as a
# whole.
MAX_INLINE_CHARS = 5000

# Changed texts are compared by word (Latin, digits) or by character (CJK, punctuation), so
# "office" -> "workplace" is marked as one word, not as scattered letters.
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|\s+|.", re.S)


@contextmanager
def html_page(w: Write, *, title: str, style: str, lang: str = "en") -> Iterator[None]:
    """The page around what the ``with`` block writes: its head, with ``title`` (plain text)
    and the style sheet ``style`` inline, before; its end after. A block that raises leaves
    the page unended (a broken report is not made to look whole)."""
    w(f"<!DOCTYPE html>\n<html lang='{lang}'><head><meta charset='utf-8'>")
    w("<meta name=viewport content='width=device-width,initial-scale=1'>")
    w(f"<title>{escape(title)}</title><style>{style}</style></head><body>\n")
    yield
    w("</body></html>\n")


def path_html(path: str) -> str:
    """A file name as the pages show it: as ``display_path`` writes it, escaped, in ``code``."""
    return f"<code>{escape(display_path(path))}</code>"


def setting_text(value: Any) -> str:
    """A setting's value as text (not yet escaped): a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _flat_settings(settings: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted key, value as text)`` for every setting, nested ones under their parents'
    keys (``features.shingle``)."""
    for key, value in settings.items():
        if isinstance(value, dict):
            yield from _flat_settings(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", setting_text(value)


def settings_details(settings: dict[str, Any], w: Write, summary: str = "Settings") -> None:
    """Every setting of a run, one row each, in a table folded under ``summary``: the whole
    record of how a result was made, which a reader opens only when asking."""
    w(f"<details><summary>{escape(summary)}</summary>\n<table class=settings>\n")
    for key, value in _flat_settings(settings):
        key, value = escape(key), escape(value)
        w(f"<tr><td><code>{key}</code></td><td><code>{value}</code></td></tr>\n")
    w("</table>\n</details>\n")


def skipped_section(
    skipped: Sequence[SkippedFile],
    w: Write,
    *,
    title: str,
    file: str = "file",
    stage: str = "stage",
    reason: str = "reason",
    passed_over: str = "(passed over)",
    none: str = "None.",
) -> None:
    """The files a run skipped, last on a page: one row each with the stage and the reason, a
    file passed over on purpose (not a failure) said so. The words are the page's language
    (English by default)."""
    w(f"<h2 id=skipped>{escape(title)}</h2>\n")
    if not skipped:
        w(f"<p class=note>{escape(none)}</p>\n")
        return
    w(
        f"<table class=skipped><tr><th>{escape(file)}</th><th>{escape(stage)}</th>"
        f"<th>{escape(reason)}</th></tr>\n"
    )
    for s in skipped:
        passed = "" if s.failure else f" <span class=note>{escape(passed_over)}</span>"
        w(
            f"<tr><td>{path_html(s.path)}</td><td>{escape(s.stage)}</td>"
            f"<td>{escape(s.reason)}{passed}</td></tr>\n"
        )
    w("</table>\n")


def inline_diff(old: str, new: str) -> tuple[str, str]:
    """Both texts escaped, with the words (a CJK character each) that differ wrapped in
    ``del``/``ins`` (the scan report's diffs, the check report's fragments)."""
    if len(old) + len(new) > MAX_INLINE_CHARS:
        return f"<del>{escape(old)}</del>", f"<ins>{escape(new)}</ins>"
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    left: list[str] = []
    right: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            left.append(escape("".join(a[i1:i2])))
            right.append(escape("".join(b[j1:j2])))
            continue
        if i2 > i1:
            left.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            right.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return "".join(left), "".join(right)
