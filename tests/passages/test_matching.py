"""Passage matching (``simdup.passages.matching``): which copies two documents' shared
fingerprints lead to."""

from __future__ import annotations

from pathlib import Path

from simdup.passages import scan_passages
from tests.conftest import pseudo_words


def _words(seed: int, n: int) -> list[str]:
    return pseudo_words(seed, n).split()


def test_a_copy_of_one_place_of_a_sentence_its_source_repeats_is_found(tmp_path: Path) -> None:
    """A reference page repeats one sentence under each of its ten entries; the last entry
    (a few words of its own, edited in the copy, and the sentence) is pasted into another
    page. The copy's fingerprints shared in full are the sentence's, which the page holds
    first under its first entry: the copy is found at the last, with its lines."""
    sentence = " ".join(_words(960, 18))
    entries = []
    for n in range(10):
        name = " ".join(_words(961 + n, 8))
        entries.append(f"## Entry {n}\n\n{name}\n{sentence}\n\n{pseudo_words(980 + n, 30)}")
    a = "\n".join(entries)
    last = a.split("\n").index(" ".join(_words(970, 8)))
    own = _words(970, 8)
    own[3] = "edited"
    copy = f"{' '.join(own)}\n{sentence}"
    b = f"{pseudo_words(990, 60)}\n{copy}\n\n{pseudo_words(991, 60)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    assert (p.a.start_line, p.a.end_line) == (last + 1, last + 2)
    b_first = b.split("\n").index(" ".join(own)) + 1
    assert (p.b.start_line, p.b.end_line) == (b_first, b_first + 1)


def test_a_short_copy_whose_words_its_source_holds_earlier_is_found(tmp_path: Path) -> None:
    """Five lines of 15 words are pasted from a page that holds their first nine words, and
    their last nine, earlier in other places (a code block's lines used again): every k-gram
    of the copy is first found there, with fewer equal tokens around it than an anchor needs;
    the copy is found at its own place."""
    words = _words(1000, 15)
    copy = "\n".join(" ".join(words[n : n + 3]) for n in range(0, 15, 3))
    earlier = [
        f"{pseudo_words(1001, 20)}{' '.join(words[:9])} {pseudo_words(1002, 12)}",
        f"{pseudo_words(1003, 20)}{' '.join(words[6:])} {pseudo_words(1004, 12)}",
    ]
    a = "\n".join([*earlier, pseudo_words(1005, 40), copy, "", pseudo_words(1006, 40)])
    b = f"{pseudo_words(1007, 60)}\n{copy}\n\n{pseudo_words(1008, 60)}"
    (tmp_path / "a.txt").write_text(a, "utf-8")
    (tmp_path / "b.txt").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    a_first = a.split("\n").index(copy.split("\n")[0]) + 1
    b_first = b.split("\n").index(copy.split("\n")[0]) + 1
    assert (p.a.start_line, p.a.end_line) == (a_first, a_first + 4)
    assert (p.b.start_line, p.b.end_line) == (b_first, b_first + 4)


def test_markdown_lines_copied_out_of_a_code_block_are_found_as_written(tmp_path: Path) -> None:
    """a shows a Vue template in a code block; b pasted its lines without the fences, so b
    renders them as HTML (its tags hidden, a few words shown): the text as read differs, the
    lines as written are the same. One passage, those lines on both sides, in the files'
    lines and characters, with the rendered text's offsets besides (before, none: as read,
    the copy was too few words)."""
    template = (
        '<template>\n  <main class="loader">\n    <h1>Colada Loader Example</h1>\n'
        '    <fieldset :disabled="isLoading">\n      <legend>Controls</legend>\n'
        '      <button @click="refresh()">Refresh</button>\n'
        '      <button @click="reload()">Refetch</button>\n    </fieldset>\n'
        "  </main>\n</template>"
    )
    a = f"# A\n\n{pseudo_words(1010, 60)}\n```vue\n{template}\n```\n\n{pseudo_words(1011, 60)}"
    b = f"# B\n\n{pseudo_words(1012, 60)}\n{template}\n\n{pseudo_words(1013, 60)}"
    (tmp_path / "a.md").write_text(a, "utf-8")
    (tmp_path / "b.md").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    for span, text in ((p.a, a), (p.b, b)):
        first = text.split("\n").index("<template>") + 1
        assert (span.start_line, span.end_line) == (first, first + 9)
        assert text[span.start_char : span.end_char] == template
        assert span.read_start is not None and span.read_end is not None


def test_a_page_as_shown_pasted_into_markdown_is_found_as_read(tmp_path: Path) -> None:
    """a's paragraph has a link every twelve words; b holds the paragraph as a browser shows
    it (the link texts, no targets), in a Markdown page: as written, the link targets cut
    every run of equal words short; as read, the two are one copy."""
    words = _words(1020, 60)
    linked, shown = [], []
    for n in range(0, 60, 12):
        text = f"{words[n]} {words[n + 1]}"
        linked += [f"[{text}](https://example.org/guide/{words[n]}/{words[n + 1]}.html)"]
        shown += [text]
        linked += words[n + 2 : n + 12]
        shown += words[n + 2 : n + 12]
    a = f"# A\n\n{pseudo_words(1021, 80)}\n{' '.join(linked)}\n\n{pseudo_words(1022, 80)}"
    b = f"# B\n\n{pseudo_words(1023, 80)}\n{' '.join(shown)}\n\n{pseudo_words(1024, 80)}"
    (tmp_path / "a.md").write_text(a, "utf-8")
    (tmp_path / "b.md").write_text(b, "utf-8")
    (p,) = scan_passages([str(tmp_path)], jobs=1).passages
    for span, text, line in ((p.a, a, linked), (p.b, b, shown)):
        at = text.split("\n").index(" ".join(line)) + 1
        assert (span.start_line, span.end_line) == (at, at)
