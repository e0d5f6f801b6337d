"""Markdown as rendered, by substitutions over the whole text that keep every line where it is
(experimental: the speed of ``strip_markup``, the words of the line-by-line reader)."""

from __future__ import annotations

import html
import re
from html.entities import html5

# Patterns of whole lines start at the line break before the line (a literal the regex engine
# searches for fast; the text is given one in front), and end before the next one.
_EOL = r"(?=\n|\Z)"
# A fenced code block: its opening line (with the info string), its content, its closing line
# (or the end of the text). Block quote markers may precede the fences.
_FENCE_LINE = re.compile(r"\n[ \t]{0,3}(?:>[ \t]?)*(`{3,}|~{3,})([^\n]*)")
_FRONT_MATTER = re.compile(r"\A\n(?:---[ \t]*\n.*?\n(?:---|\.\.\.)|\+\+\+[ \t]*\n.*?\n\+\+\+)"
                           rf"[ \t]*{_EOL}", re.S)  # fmt: skip
_CODE_SPAN = re.compile(r"(`(?<!``)`*)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_COMMENT = re.compile(r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<![A-Za-z][^>]*>", re.S)
_HIDDEN_ELEMENT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_ATTRIBUTE = r"(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)"
_TAG = re.compile(rf"<[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+"
                       r"(?:\.[\w-]+)*)>")  # fmt: skip
_REFERENCE = re.compile(
    r"\n[ \t]{0,3}\[((?:[^\]\\\n]|\\.){1,999})\]:[ \t]*(?:<[^>\n]*>|\S+)"
    rf"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*{_EOL}"
)
_FOOTNOTE_DEFINITION = re.compile(r"\n([ \t]{0,3})\[\^[^\]\s]+\]:")
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]\s]+\]")
_CONTAINER = re.compile(r"\n[ \t]{0,3}:{3,}[^\n]*")
_DIRECTIVE_LINE = re.compile(rf"\n[ \t]*(?:\{{\{{[^\n]*\}}\}}|\{{%[^\n]*%\}})[ \t]*{_EOL}")
_DIRECTIVE = re.compile(r"\{\{[^{}\n]*\}\}|\{%[^%\n]*%\}")
_TABLE_DELIMITER = re.compile(
    rf"\n[ \t]*\|?[ \t]*:?-+:?[ \t]*\|[ \t]*(?::?-+:?[ \t]*\|?[ \t]*)*{_EOL}|"
    rf"\n[ \t]*\|[ \t]*:?-+:?[ \t]*\|?[ \t]*{_EOL}"
)
# A line of "=" or "-" under a paragraph line makes it a heading; alone, or a line of three
# "*", "-" or "_" (spaces between allowed), it is a thematic break: no text either way.
_RULE = re.compile(
    rf"\n[ \t]{{0,3}}(?:(=+|-+)[ \t]*|(?:\*[ \t]*){{3,}}|(?:-[ \t]*){{3,}}|(?:_[ \t]*){{3,}}){_EOL}"
)
_ATX_CLOSE = re.compile(rf"\n([ \t]{{0,3}}#{{1,6}}[ \t]+[^\n]*?)[ \t]+#+[ \t]*{_EOL}")
# A link's destination and title after its text: ](destination "title")
_DESTINATION = re.compile(
    r"\]\([ \t]*\n?[ \t]*(?:<[^<>\n]*>|[^\s()]*+(?:\([^\s()]*+\)[^\s()]*+)*+)"
    r"(?:[ \t]*\n?[ \t]*(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*\n?[ \t]*\)"
)
_REFERENCE_LINK = re.compile(r"\]\[((?:[^\]\\\n]|\\.)*)\]")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_HARD_BREAK = re.compile(r"\\(?=\n)")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|([A-Za-z][A-Za-z0-9]{1,31}));")


def _entity(match: re.Match[str]) -> str:
    """A character reference as CommonMark reads it: a known name or a number, with its
    semicolon; anything else stays as written."""
    name = match.group(1)
    if name is None:
        return html.unescape(match.group())
    return html5.get(name + ";", match.group())


def _label(text: str) -> str:
    """A link label as CommonMark matches it: case folded, inner whitespace one space."""
    return " ".join(text.split()).casefold()


def _blank(match: re.Match[str]) -> str:
    """A match made its line breaks only."""
    return "\n" * match.group().count("\n")


def _space(match: re.Match[str]) -> str:
    """A match made one space and its line breaks."""
    return " " + "\n" * match.group().count("\n")


def markdown_text_fast(source: str) -> str:
    """The text of Markdown ``source`` as its rendering shows it, line for line: line k of the
    result holds what line k of ``source`` shows."""
    if "\r" in source:
        source = "\n".join(line.rstrip("\r") for line in source.split("\n"))
    # One line break in front: patterns of whole lines start at the break before the line.
    source = _FRONT_MATTER.sub(_blank, "\n" + source, count=1)
    labels = _labels(source)
    out: list[str] = []
    at = 0
    opened: re.Match[str] | None = None
    for fence in _FENCE_LINE.finditer(source):
        if opened is None:
            if fence.group(1)[0] == "`" and "`" in fence.group(2):
                continue  # an info string with a backtick: no fence (a code span)
            opened = fence
            out.append(_prose(source[at : fence.start()], labels))
            out.append("\n")  # the opening line, info string and all, shows nothing
            at = fence.end()
        elif (
            fence.group(1)[0] == opened.group(1)[0]
            and len(fence.group(1)) >= len(opened.group(1))
            and not fence.group(2).strip()
        ):
            out.append(source[at : fence.start()])  # the code, as written
            out.append("\n")  # the closing line shows nothing
            at = fence.end()
            opened = None
    if opened is not None:  # a fence left open runs to the end of the document
        out.append(source[at:])
    else:
        out.append(_prose(source[at:], labels))
    return "".join(out)[1:]


def _labels(source: str) -> set[str]:
    return {_label(m.group(1)) for m in _REFERENCE.finditer(source)} if "]:" in source else set()


_SLOT = re.compile("\ue000([0-9]+)\ue001")


def _prose(text: str, labels: set[str]) -> str:
    """Markdown outside fenced code: code spans kept as written, the rest made its text. The
    spans wait in numbered slots (private-use characters) while the rest is worked on."""
    if not text:
        return text
    if "`" not in text:
        return _markup(text, labels)
    spans: list[str] = []

    def park(span: re.Match[str]) -> str:
        code = span.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]
        spans.append(code)
        return f"\ue000{len(spans) - 1}\ue001"

    if "\ue000" in text:  # the text has slot marks of its own: piece by piece
        out: list[str] = []
        at = 0
        for span in _CODE_SPAN.finditer(text):
            out.append(_markup(text[at : span.start()], labels))
            spans.clear()
            park(span)
            out.append(spans[0])
            at = span.end()
        out.append(_markup(text[at:], labels))
        return "".join(out)
    parked = _CODE_SPAN.sub(park, text)
    if not spans:
        return _markup(text, labels)
    return _SLOT.sub(lambda m: spans[int(m.group(1))], _markup(parked, labels))


def _rules(text: str) -> str:
    """Setext underlines made their paragraph line a heading, thematic breaks removed."""
    out: list[str] = []
    at = 0
    for rule in _RULE.finditer(text):
        underline = rule.group(1)
        if underline is not None:
            line_start = text.rfind("\n", 0, rule.start()) + 1
            line = text[line_start : rule.start()]
            if line.strip() and line_start >= at:
                out.append(text[at:line_start])
                out.append(("# " if underline[0] == "=" else "## ") + line.lstrip())
                out.append("\n")
                at = rule.end()
                continue
            if underline[0] == "=":
                continue  # "===" alone is text
        out.append(text[at : rule.start()])
        out.append("\n")
        at = rule.end()
    if not out:
        return text
    out.append(text[at:])
    return "".join(out)


def _markup(text: str, labels: set[str]) -> str:
    """Text outside code: every construct a reader does not see removed, line breaks kept."""
    if "<" in text:
        text = _HIDDEN_ELEMENT.sub(_blank, text)
        text = _COMMENT.sub(_blank, text)
        text = _AUTOLINK.sub(lambda m: m.group(1), text)
        text = _TAG.sub(_space, text)
    if "]:" in text:
        text = _REFERENCE.sub("\n", text)
    if "[^" in text:
        text = _FOOTNOTE_DEFINITION.sub(r"\n\1", text)
        text = _FOOTNOTE_REFERENCE.sub("", text)
    if ":::" in text:
        text = _CONTAINER.sub("\n", text)
    if "{" in text:
        text = _DIRECTIVE_LINE.sub("\n", text)
        text = _DIRECTIVE.sub("", text)
    if "-" in text and "|" in text:
        text = _TABLE_DELIMITER.sub("\n", text)
    text = _rules(text)
    if "#" in text:
        text = _ATX_CLOSE.sub(r"\n\1", text)
    if "](" in text:
        text = _DESTINATION.sub(lambda m: "]" + "\n" * m.group().count("\n"), text)
    if "][" in text:
        text = _REFERENCE_LINK.sub(
            lambda m: "]" if _label(m.group(1)) in labels or not m.group(1) else m.group(), text
        )
    if "\\" in text:
        text = _HARD_BREAK.sub("", text)
        text = _ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = _ENTITY.sub(_entity, text)
    return text
