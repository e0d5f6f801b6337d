"""The Markdown reader: the text a reader of the rendered document sees, each line located by
its line in the file.

What is kept (CommonMark, with GitHub's tables and footnotes): headings, paragraphs, list
items, block quotes, table rows (cells joined by `` | ``, as the Word, OpenDocument and HTML
readers read a row), code block contents, link and image texts, the text inside HTML
elements, footnote texts. What is left out: front matter, link destinations and titles, link
reference definitions, fence info strings, HTML tags, attributes and comments, the contents
of ``<script>`` and ``<style>``, the markers of headings, quotes and tables, thematic breaks,
custom container fences (``::: tip``) and template directives (``{{ ... }}``, ``{% ... %}``),
which renderers (mdBook, VuePress, Hugo, Jekyll) replace or hide.

Headings come out as Markdown headings (``## Title``), as the HTML and Word readers write
them, so that passages and sections start there. Emphasis markers and list bullets are
punctuation: they make no word and no letter of the comparison form, and are left as written.
Inline work never adds or removes a line break, so each line of the output is a line of the
file (``markdown_text``'s second value). The bytes are decoded as any text file is
(``text.decoding``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from itertools import accumulate

from ..records import DecodedDocument, Locations, SkippedFile
from ..text.decoding import decode_again, decode_data

_FRONT_MATTER_OPEN = re.compile(r"(---|\+\+\+)[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)")
_QUOTE = re.compile(r"[ \t]{0,3}>[ \t]?")
_LIST_MARKER = re.compile(r"[ \t]{0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)")
_ATX = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*")
_BREAK = re.compile(r"[ \t]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})")
_REFERENCE = re.compile(
    r"[ \t]{0,3}\[((?:[^\]\\]|\\.){1,999})\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?[ \t]*"
)
_FOOTNOTE = re.compile(r"[ \t]{0,3}\[\^[^\]\s]+\]:[ \t]?(.*)")
_CONTAINER = re.compile(r"[ \t]{0,3}:{3,}.*")
_DIRECTIVE_LINE = re.compile(r"[ \t]*(?:\{\{.*\}\}|\{%.*%\})[ \t]*")
_DIRECTIVE = re.compile(r"\{\{[^{}\n]*\}\}|\{%[^%\n]*%\}")
_TABLE_DELIMITER = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
# HTML blocks (CommonMark 4.6): kinds 1-5 end at their closing mark, 6 and 7 at a blank line.
_HTML_RAW = re.compile(r"[ \t]{0,3}<(script|pre|style|textarea)(?:[\s>]|$)", re.I)
_HTML_BLOCK_TAG = re.compile(
    r"[ \t]{0,3}</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|"
    r"colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|"
    r"frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    r"noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|"
    r"thead|title|tr|track|ul)(?:[\s/>]|$)",
    re.I,
)
_ATTRIBUTE = r"(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)"
_OPEN_TAG = rf"<[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*\s*/?>"
_CLOSE_TAG = r"</[A-Za-z][A-Za-z0-9-]*\s*>"
_HTML_LONE_TAG = re.compile(rf"[ \t]{{0,3}}(?:{_OPEN_TAG}|{_CLOSE_TAG})[ \t]*")
_HTML_OTHER = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}
_HTML_DECLARATION = re.compile(r"[ \t]{0,3}<![A-Za-z]")
# Inline: what is removed (kept as the line breaks it holds).
_TAG_OR_COMMENT = re.compile(rf"<!--.*?-->|{_OPEN_TAG}|{_CLOSE_TAG}|<\?.*?\?>", re.S)
_DROPPED_ELEMENT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+"
                       r"(?:\.[\w-]+)*)>")  # fmt: skip
_ESCAPABLE = re.compile(r"\\([!-/:-@\[-`{-~])")
# A line that can only be paragraph text (no block starts with its first character), when it
# holds no "|" (a table row): most lines of a document.
_PLAIN_START = re.compile(r"[ \t]*[^\s#>+*\-\d|:{<`~=_\[]")
# Where inline work may be needed: the text between is copied as it is.
_SPECIAL = re.compile(r"[\\`<&{\[!]")
_TICKS = re.compile(r"`+")
_BRACKET_STOP = re.compile(r"[\\`\[\]]")
# A destination with no parentheses or escapes in it, and its title: most links.
_SIMPLE_DESTINATION = re.compile(
    r"\([ \t\n]*(?:<[^<>\n]*>|[^\s()<>\\]*)(?:[ \t\n]+(?:\"[^\"\\]*\"|'[^'\\]*'))?[ \t]*\)"
)


def _label(text: str) -> str:
    """A link label as CommonMark matches it: case folded, inner whitespace one space."""
    return " ".join(text.split()).casefold()


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after a YAML (``---``) or TOML (``+++``) front matter."""
    if not lines or not (opened := _FRONT_MATTER_OPEN.fullmatch(lines[0])):
        return 0
    closers = ("---", "...") if opened.group(1) == "---" else ("+++",)
    for i in range(1, len(lines)):
        if lines[i].strip() in closers:
            return i + 1
    return 0


def _strip_tags(text: str) -> str:
    """Text of HTML: elements whose content is never shown left out, tags and comments removed
    (their line breaks kept), entities decoded."""
    text = _DROPPED_ELEMENT.sub(lambda m: "\n" * m.group().count("\n"), text)
    text = _TAG_OR_COMMENT.sub(lambda m: " " + "\n" * m.group().count("\n"), text)
    return html.unescape(text)


def _cells(row: str) -> list[str]:
    """The cells of a table row: split at pipes outside code spans and not escaped."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells, current, ticks, k = [], [], 0, 0
    while k < len(row):
        ch = row[k]
        if ch == "\\" and k + 1 < len(row) and row[k + 1] == "|":
            current.append("|")
            k += 2
            continue
        if ch == "`":
            run = len(row[k:]) - len(row[k:].lstrip("`"))
            ticks = 0 if ticks == run else (run if ticks == 0 else ticks)
            current.append("`" * run)
            k += run
            continue
        if ch == "|" and not ticks:
            cells.append("".join(current))
            current = []
        else:
            current.append(ch)
        k += 1
    cells.append("".join(current))
    return [c.strip() for c in cells]


class _Inline:
    """Inline Markdown of one block made the text a reader sees (``text``)."""

    def __init__(self, labels: set[str]) -> None:
        self.labels = labels

    def text(self, source: str) -> str:
        if _SPECIAL.search(source) is None:
            return source
        out: list[str] = []
        self._run(source, out)
        return "".join(out)

    def _run(self, s: str, out: list[str]) -> None:
        k, n = 0, len(s)
        search = _SPECIAL.search
        while k < n:
            found_at = search(s, k)
            if found_at is None:
                out.append(s[k:])
                return
            at = found_at.start()
            if at > k:
                out.append(s[k:at])
                k = at
            ch = s[k]
            if ch == "\\" and k + 1 < n:
                if s[k + 1] == "\n":  # a hard line break
                    out.append("\n")
                    k += 2
                    continue
                if _ESCAPABLE.match(s, k):
                    out.append(s[k + 1])
                    k += 2
                    continue
            if ch == "`":
                run = _TICKS.match(s, k).end() - k  # type: ignore[union-attr]
                end = self._closing_ticks(s, k + run, run)
                if end < 0:
                    out.append("`" * run)
                    k += run
                    continue
                code = s[k + run : end]
                if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
                    code = code[1:-1]
                out.append(code)
                k = end + run
                continue
            if ch == "<":
                found = _AUTOLINK.match(s, k)
                if found:
                    out.append(found.group(1))
                    k = found.end()
                    continue
                found = _DROPPED_ELEMENT.match(s, k) or _TAG_OR_COMMENT.match(s, k)
                if found:
                    out.append(" " + "\n" * found.group().count("\n"))
                    k = found.end()
                    continue
            if ch == "&":
                end = s.find(";", k, k + 40)
                if end > k:
                    decoded = html.unescape(s[k : end + 1])
                    if decoded != s[k : end + 1]:
                        out.append(decoded)
                        k = end + 1
                        continue
            if ch == "{" and (found := _DIRECTIVE.match(s, k)):
                out.append("\n" * found.group().count("\n"))
                k = found.end()
                continue
            if ch == "[" or (ch == "!" and k + 1 < n and s[k + 1] == "["):
                done = self._link(s, k, out)
                if done > k:
                    k = done
                    continue
            out.append(ch)
            k += 1

    @staticmethod
    def _closing_ticks(s: str, start: int, run: int) -> int:
        """Where a run of exactly ``run`` backticks starts at or after ``start`` (-1: none)."""
        for found in _TICKS.finditer(s, start):
            if found.end() - found.start() == run:
                return found.start()
        return -1

    def _link(self, s: str, k: int, out: list[str]) -> int:
        """A link or image at ``k`` made its text (appended to ``out``): the index after it,
        or ``k`` when there is none (the bracket is text)."""
        image = s[k] == "!"
        opening = k + 1 if image else k
        if s.startswith("[^", opening):  # a footnote reference: a number a reader sees
            end = s.find("]", opening)
            if end > 0 and "\n" not in s[opening:end] and " " not in s[opening:end]:
                return end + 1
            return k
        close = self._matching_bracket(s, opening)
        if close < 0:
            return k
        inner = s[opening + 1 : close]
        after = close + 1
        if after < len(s) and s[after] == "(":
            end = self._destination_end(s, after)
            if end > 0:
                self._run(inner, out)
                out.append("\n" * s[after:end].count("\n"))
                return end
        if after < len(s) and s[after] == "[":
            end = s.find("]", after + 1)
            if end > 0:
                label = s[after + 1 : end] or inner
                if _label(label) in self.labels:
                    self._run(inner, out)
                    out.append("\n" * s[after:end].count("\n"))
                    return end + 1
            return k
        if _label(inner) in self.labels and not image:
            self._run(inner, out)
            return after
        if image and _label(inner) in self.labels:
            self._run(inner, out)
            return after
        return k

    @staticmethod
    def _matching_bracket(s: str, opening: int) -> int:
        depth, k = 0, opening
        search = _BRACKET_STOP.search
        while (found := search(s, k)) is not None:
            k = found.start()
            ch = s[k]
            if ch == "\\":
                k += 2
                continue
            if ch == "`":  # brackets inside a code span do not count
                run = _TICKS.match(s, k).end() - k  # type: ignore[union-attr]
                end = _Inline._closing_ticks(s, k + run, run)
                k = end + run if end >= 0 else k + run
                continue
            if ch == "[":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return k
            k += 1
        return -1

    @staticmethod
    def _destination_end(s: str, paren: int) -> int:
        """The index after ``(destination "title")`` opening at ``paren`` (-1: not one)."""
        simple = _SIMPLE_DESTINATION.match(s, paren)
        if simple is not None and "\n\n" not in simple.group():
            return simple.end()
        depth, k = 0, paren
        quote = ""
        while k < len(s):
            ch = s[k]
            if ch == "\\":
                k += 2
                continue
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'" and s[k - 1] in " \t\n":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return k + 1
            elif ch == "\n" and s[k - 1] == "\n":
                return -1
            k += 1
        return -1


def markdown_text(source: str) -> tuple[str, list[int]]:
    """The text of Markdown ``source`` as a reader of its rendering sees it, and the line of
    ``source`` (1-based) each of its lines comes from. Blocks are separated by a blank line."""
    lines = source.split("\n")
    if "\r" in source:
        lines = [line.rstrip("\r") for line in lines]
    labels = {
        _label(m.group(1))
        for line in lines
        if "]:" in line and (m := _REFERENCE.fullmatch(line))
    }
    inline = _Inline(labels)
    out_lines: list[str] = []
    out_numbers: list[int] = []

    def emit_lines(numbered: list[tuple[str, int]]) -> None:
        if out_lines and out_lines[-1] and numbered:
            out_lines.append("")
            out_numbers.append(numbered[0][1])
        for line, number in numbered:
            out_lines.append(line)
            out_numbers.append(number)

    def emit(block: str, first: int) -> None:
        pieces = block.split("\n")
        if out_lines and out_lines[-1]:
            out_lines.append("")
            out_numbers.append(first)
        out_lines.extend(pieces)
        out_numbers.extend(range(first, first + len(pieces)))

    paragraph: list[str] = []
    paragraph_start = 0

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            emit(inline.text("\n".join(paragraph)), paragraph_start)
            paragraph = []

    i = _front_matter_end(lines)
    plain_start = _PLAIN_START.match
    count = len(lines)
    while i < count:
        raw = lines[i]
        number = i + 1
        if plain_start(raw) and "|" not in raw:
            if not paragraph:
                paragraph_start = number
            paragraph.append(raw)
            i += 1
            continue
        if not raw or raw.isspace():
            flush()
            i += 1
            continue
        line = raw
        depth = 0
        while (quoted := _QUOTE.match(line)) is not None:
            line = line[quoted.end() :]
            depth += 1
        if (marker := _LIST_MARKER.match(line)) is not None and not _BREAK.fullmatch(line):
            line = line[marker.end() :]
        if not line.strip():
            flush()
            i += 1
            continue
        if fence := _FENCE.match(line):
            mark = fence.group(1)
            if mark[0] == "~" or "`" not in fence.group(2):
                flush()
                closing = re.compile(rf"[ \t]{{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*")
                code: list[str] = []
                i += 1
                first = mark[0]
                while i < count:
                    body = lines[i]
                    for _ in range(depth):  # the markers of a fence inside a block quote
                        q = _QUOTE.match(body)
                        if q is None:
                            break
                        body = body[q.end() :]
                    if first in body[:4] and closing.fullmatch(body):
                        break
                    code.append(body)
                    i += 1
                if code:
                    if out_lines and out_lines[-1]:
                        out_lines.append("")
                        out_numbers.append(number + 1)
                    out_lines.extend(code)
                    out_numbers.extend(range(number + 1, number + 1 + len(code)))
                i += 1
                continue
        if not paragraph and (block := _html_block_end(lines, i, line)) is not None:
            end, shown = block
            text = "\n".join(lines[i:end])
            if shown:
                stripped = _strip_tags(text)
                if stripped.strip():
                    emit(stripped, number)
            i = end
            continue
        if not paragraph and _REFERENCE.fullmatch(line):
            i += 1
            continue
        if _CONTAINER.fullmatch(line) or _DIRECTIVE_LINE.fullmatch(line):
            flush()
            i += 1
            continue
        if heading := _ATX.fullmatch(line):
            flush()
            title = inline.text(heading.group(2) or "").strip()
            if title:
                emit(f"{heading.group(1)} {title}", number)
            i += 1
            continue
        if paragraph and _SETEXT.fullmatch(line):
            # The paragraph above is a heading (level 1 under "=", 2 under "-").
            paragraph[0] = ("# " if line.strip()[0] == "=" else "## ") + paragraph[0].lstrip()
            flush()
            i += 1
            continue
        if _BREAK.fullmatch(line):
            flush()
            i += 1
            continue
        if (
            "|" in line and i + 1 < len(lines)
            and _TABLE_DELIMITER.fullmatch(lines[i + 1])
            and "|" in lines[i + 1]
        ):  # fmt: skip
            flush()
            rows = [(number, line)]
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                rows.append((i + 1, lines[i]))
                i += 1
            emit_lines([(" | ".join(inline.text(c) for c in _cells(row)), row_number)
                        for row_number, row in rows])  # fmt: skip
            continue
        if footnote := _FOOTNOTE.fullmatch(line):
            flush()
            line = footnote.group(1)
        if not paragraph:
            paragraph_start = number
        paragraph.append(line)
        i += 1
    flush()
    while out_lines and not out_lines[-1].strip():
        out_lines.pop()
        out_numbers.pop()
    return "\n".join(out_lines), out_numbers


def _html_block_end(lines: list[str], i: int, line: str) -> tuple[int, bool] | None:
    """An HTML block starting at line ``i`` (``line``: its content): the index after it, and
    whether its text is shown; None when no HTML block starts there."""
    raw = _HTML_RAW.match(line)
    if raw:
        closing = f"</{raw.group(1).lower()}>"
        end = i
        while end < len(lines) and closing not in lines[end].lower():
            end += 1
        return min(end + 1, len(lines)), raw.group(1).lower() in ("pre", "textarea")
    stripped = line.lstrip(" \t")
    for opening, closing in _HTML_OTHER.items():
        if stripped.startswith(opening):
            end = i
            while end < len(lines) and closing not in lines[end][
                (len(lines[end]) - len(stripped) + len(opening)) if end == i else 0 :
            ]:
                end += 1
            return min(end + 1, len(lines)), opening == "<![CDATA["
    if _HTML_DECLARATION.match(line):
        end = i
        while end < len(lines) and ">" not in lines[end]:
            end += 1
        return min(end + 1, len(lines)), False
    if _HTML_BLOCK_TAG.match(line) or _HTML_LONE_TAG.fullmatch(line):
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1
        return end, True
    return None


class MarkdownReader:
    """Markdown files (``.md``, ``.markdown``, ...), read as their rendering shows them."""

    name = "markdown"
    version = "1"
    extensions: tuple[str, ...] = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn")
    marks: tuple[bytes, ...] = ()  # no first bytes say Markdown: the extension does
    contained = False  # linear in the text, no library: read in the worker itself
    libraries: tuple[str, ...] = ()

    def sniff(self, head: bytes) -> bool:
        return False

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        decoded = decode_again(path, data, hint) if hint else decode_data(path, data)
        if isinstance(decoded, SkippedFile):
            yield decoded
            return
        text, numbers = markdown_text(decoded.text)
        # Each line starts one past the end of the one before.
        ends = accumulate(len(line) + 1 for line in text.split("\n"))
        starts = (0, *ends)[: len(numbers)]
        yield DecodedDocument(
            path, text, decoded.encoding, decoded.encoding_source, decoded.confidence,
            decoded.size, Locations("line", starts, tuple(map(str, numbers))),
        )  # fmt: skip
