"""Hypothesis strategies shared by the test modules.

Random 64-bit fingerprints almost never fall within a few bits of each other, so a property
checked only on uniform values would never see a pair. These strategies plant near pairs
(copies with 0..k+1 bits flipped, straddling any threshold up to ``max_flips - 1``) and large
groups of identical fingerprints (exact copies are the common case in real corpora).
"""

from __future__ import annotations

from hypothesis import strategies as st

MAX64 = (1 << 64) - 1

fingerprints = st.integers(min_value=0, max_value=MAX64)
"""Any 64-bit unsigned fingerprint."""

# Fingerprints that exercise the edges of the bit layout.
edge_fingerprints = st.sampled_from(
    [0, MAX64, 1, 1 << 63, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0xFFFFFFFF, 0xFFFFFFFF << 32]
)


def flip_bits(value: int, positions: list[int]) -> int:
    """``value`` with the bits at ``positions`` inverted."""
    for p in positions:
        value ^= 1 << p
    return value


@st.composite
def near_copy(draw: st.DrawFn, value: int, max_flips: int) -> int:
    """``value`` with between 0 and ``max_flips`` distinct random bits flipped."""
    flips = draw(st.integers(min_value=0, max_value=max_flips))
    positions = draw(st.lists(st.integers(0, 63), min_size=flips, max_size=flips, unique=True))
    return flip_bits(value, positions)


@st.composite
def fingerprint_lists(
    draw: st.DrawFn,
    *,
    max_base: int = 24,
    max_planted: int = 24,
    max_flips: int = 10,
    max_copies: int = 12,
) -> list[int]:
    """A shuffled list of fingerprints with planted near pairs and repeated values.

    Starts from random (and a few edge) fingerprints, then adds near copies of existing entries
    (chains too: a copy of a copy) and exact copies, in random order.
    """
    base = draw(st.lists(st.one_of(fingerprints, edge_fingerprints), min_size=0, max_size=max_base))
    values = list(base)
    if values:
        for _ in range(draw(st.integers(0, max_planted))):
            source = values[draw(st.integers(0, len(values) - 1))]
            values.append(draw(near_copy(source, max_flips)))
        for _ in range(draw(st.integers(0, 3))):
            source = values[draw(st.integers(0, len(values) - 1))]
            values.extend([source] * draw(st.integers(1, max_copies)))
    return draw(st.permutations(values)) if values else values


@st.composite
def many_identical(draw: st.DrawFn, *, max_copies: int = 80, max_flips: int = 10) -> list[int]:
    """Mostly one fingerprint repeated many times, plus near copies of it and a few others."""
    value = draw(st.one_of(fingerprints, edge_fingerprints))
    values = [value] * draw(st.integers(2, max_copies))
    for _ in range(draw(st.integers(0, 6))):
        near = draw(near_copy(value, max_flips))
        values.extend([near] * draw(st.integers(1, 5)))
    values.extend(draw(st.lists(fingerprints, max_size=4)))
    return draw(st.permutations(values))


fingerprint_sets = st.one_of(fingerprint_lists(), many_identical())
"""Either kind of fingerprint list: the strategy most index properties draw from."""


# ---------------------------------------------------------------- markup documents

_WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "omega", "Zeta", "copy", "text",
                          "中文", "段落", "复制", "检查", "42", "x7"])  # fmt: skip


@st.composite
def _inline(draw: st.DrawFn) -> str:
    """A word of a line, in one of the inline forms Markdown renders to its word."""
    word = draw(_WORDS)
    form = draw(st.sampled_from(["plain", "em", "strong", "code", "link", "image", "ref",
                                 "entity", "escape", "html", "autolink"]))  # fmt: skip
    return {
        "plain": word,
        "em": f"*{word}*",
        "strong": f"__{word}__",
        "code": f"`{word}`",
        "link": f"[{word}](http://example.com/{word}/words \"title words\")",
        "image": f"![{word}](pics/{word}.png)",
        "ref": f"[{word}][label]",
        "entity": f"{word}&amp;&#x4e2d;",
        "escape": f"\\*{word}\\_",
        "html": f"<span class=\"{word}\">{word}</span>",
        "autolink": f"<https://example.com/{word}>",
    }[form]


@st.composite
def markdown_documents(draw: st.DrawFn) -> str:
    """A Markdown file of headings (ATX and setext), paragraphs, lists, block quotes, tables
    and code blocks whose lines hold words in the inline forms Markdown renders (emphasis,
    code spans, links, images, references, character references, escapes, HTML): what the
    file offsets of its rendering (``text.file_offsets``) are tested on."""

    def line() -> str:
        return " ".join(draw(st.lists(_inline(), min_size=1, max_size=6)))

    blocks = []
    for kind in draw(st.lists(st.sampled_from(["heading", "setext", "para", "list", "quote",
                                               "table", "code"]), min_size=1, max_size=6)):
        if kind == "heading":
            blocks.append(f"{'#' * draw(st.integers(1, 4))} {line()}")
        elif kind == "setext":
            blocks.append(f"{line()}\n{draw(st.sampled_from(['===', '---']))}")
        elif kind == "para":
            blocks.append("\n".join(line() for _ in range(draw(st.integers(1, 3)))))
        elif kind == "list":
            blocks.append("\n".join(f"- {line()}" for _ in range(draw(st.integers(1, 3)))))
        elif kind == "quote":
            blocks.append(f"> {line()}")
        elif kind == "table":
            blocks.append(f"| {line()} | {line()} |\n|---|---|\n| {line()} | {line()} |")
        else:
            blocks.append("```\n" + " ".join(draw(st.lists(_WORDS, min_size=1))) + "\n```")
    return "\n\n".join(blocks) + "\n\n[label]: http://example.com/label\n"
