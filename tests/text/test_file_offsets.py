"""simdup.text.file_offsets: where each character of a Markdown or HTML file's rendering is in
the file. A word of the rendering maps to the file's characters of that word (its markup,
character references and escapes inside, nothing of another word), in order."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given

from simdup.readers.html import HtmlReader
from simdup.readers.markdown import MarkdownReader
from simdup.records import DecodedDocument
from simdup.text.file_offsets import FileOffsets, file_offsets
from tests.strategies import markdown_documents

_WORD = re.compile(r"\w+")
# What a word's characters in the file may hold besides the word: emphasis and escapes.
_MARKUP = re.compile(r"[*_`\\]")


def _read(reader: MarkdownReader | HtmlReader, name: str, text: str) -> DecodedDocument:
    (document,) = list(reader.read(name, text.encode("utf-8")))
    assert isinstance(document, DecodedDocument) and document.origin is not None
    return document


def _offsets(document: DecodedDocument) -> FileOffsets:
    assert document.origin is not None
    return file_offsets(document.text, document.origin, document.locations)


def _words_in_file(document: DecodedDocument) -> list[tuple[str, str, int]]:
    """Each word of the rendering, the file's characters its offsets name (markup removed,
    references decoded), and where they start."""
    assert document.origin is not None
    offsets, file = _offsets(document), document.origin.text
    found = []
    for word in _WORD.finditer(document.text):
        start, end = offsets.span(word.start(), word.end())
        found.append((_MARKUP.sub("", word.group()),
                      html.unescape(_MARKUP.sub("", file[start:end])), start))  # fmt: skip
    return found


@given(markdown_documents())
def test_every_word_of_a_markdown_rendering_is_its_words_in_the_file(source: str) -> None:
    """Headings, emphasis, code spans, links, images, references, entities, escapes, tables,
    lists, inline HTML: each rendered word is found at the file's characters of that word,
    and the words come in the file's order."""
    document = _read(MarkdownReader(), "doc.md", source)
    found = _words_in_file(document)
    assert [(w, f) for w, f, _ in found if w != f] == []
    starts = [s for _, _, s in found]
    assert starts == sorted(starts)


def test_a_markdown_line_maps_to_the_same_line_of_the_file() -> None:
    source = "Title\n=====\n\nSome **bold** [link](http://x.org/a \"t\") &amp; `code`.\n"
    document = _read(MarkdownReader(), "doc.md", source)
    offsets = _offsets(document)
    line_3 = document.text.split("\n")[3]
    start = document.text.index(line_3)
    begin, end = offsets.span(start, start + len(line_3))
    assert source[begin:end] == "Some **bold** [link](http://x.org/a \"t\") &amp; `code`."
    assert offsets.lines(begin, end) == (4, 4)
    # The "#" a setext heading is given is no character of the file: an empty range.
    assert offsets.span(0, 1)[1] - offsets.span(0, 1)[0] == 0
    assert source[slice(*offsets.span(2, 7))] == "Title"


def test_an_html_page_maps_its_words_past_tags_scripts_and_hidden_text() -> None:
    """Words of an HTML page map to the page's characters: not into <head>, <script>, a tag's
    attributes or hidden elements, which hold the same words."""
    pytest.importorskip("lxml")
    page = (
        "<html><head><title>copy words</title>\n"
        "<script>var copy = 'words here';</script></head>\n<body>\n"
        "<h2 class=\"copy\">Copy &amp; words</h2>\n"
        "<p>These <b>copy</b> words\nhere, and a <a href=\"http://copy.org/words\">link</a>.</p>"
        "<div hidden>copy words</div><p>Copy words again&nbsp;&#169;.</p>\n"
        "<table><tr><td>copy</td><td>words</td></tr></table>\n</body></html>\n"
    )
    document = _read(HtmlReader(), "page.html", page)
    found = _words_in_file(document)
    assert [(w, f) for w, f, _ in found if w != f] == []
    body = page.index("<body>")
    assert all(start > body for _, _, start in found)
    hidden = range(page.index("<div hidden>"), page.index("</div>"))
    assert not any(start in hidden for _, _, start in found)
