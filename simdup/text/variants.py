"""Traditional and simplified Chinese characters read as one when copied text is matched.

A simplified Chinese text copied in traditional characters (or the reverse, or with the
Taiwan and Hong Kong variant forms) shares almost no run of characters with its source, so a
checker that compares characters as written misses it. Tokens (``simdup.text.tokens``) are
therefore compared with every traditional or variant character read as its simplified form.

The table is OpenCC's (Apache-2.0): each character of the CJK blocks converted on its own by
OpenCC's ``t2s``, else ``tw2s``, else ``hk2s`` configuration, kept when the result is one other
character, chains followed to their end (``麼`` → ``么`` → ``幺``). It is stored in
``data/ts_chars.txt`` (pairs of characters, one per line), so that the same text folds the same
on every machine whether or not OpenCC is installed; ``SOURCE`` names what made it and is part
of every check report's settings.

Folding is per character and the same on both sides. A character that stands for different
simplified ones in different words (``乾`` in ``乾隆`` and ``乾燥``) folds to one of them on
both sides alike, so matching stays consistent; the folded form is never shown.

Rebuild the table with ``python -m simdup.text.variants`` (needs ``pip install opencc``).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import resources

TABLE_FILE = "ts_chars.txt"
# What made the table (the first line of the file says the same).
SOURCE = "opencc 1.4.2 t2s/tw2s/hk2s characters"
_CONFIGS = ("t2s.json", "tw2s.json", "hk2s.json")
# The CJK blocks whose characters are converted: unified ideographs, extension A, the
# compatibility ideographs, and the supplementary ideographic plane's extensions.
_BLOCKS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))


def build() -> dict[str, str]:
    """The table from the installed OpenCC: traditional or variant character -> simplified."""
    import opencc  # a development tool only: simdup reads the stored table

    converters = [opencc.OpenCC(config) for config in _CONFIGS]
    table: dict[str, str] = {}
    for lo, hi in _BLOCKS:
        for code in range(lo, hi + 1):
            char = chr(code)
            for converter in converters:
                converted = converter.convert(char)
                if converted != char:
                    break
            if converted != char and len(converted) == 1:
                table[char] = converted
    for char in table:  # follow chains, so that folding twice is folding once
        seen = {char}
        while table[char] in table and table[char] not in seen:
            seen.add(table[char])
            table[char] = table[table[char]]
    return table


def dumps(table: dict[str, str]) -> str:
    lines = [f"# {SOURCE}: traditional or variant character, then its simplified form"]
    lines += [f"{t}{s}" for t, s in sorted(table.items())]
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def simplified_forms() -> dict[int, int]:
    """The stored table as code points: traditional or variant -> simplified."""
    text = resources.files("simdup").joinpath("data", TABLE_FILE).read_text(encoding="utf-8")
    table: dict[int, int] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            table[ord(line[0])] = ord(line[1])  # the traditional character, the simplified
    return table


def main(argv: list[str]) -> int:
    target = argv[0] if argv else str(resources.files("simdup").joinpath("data", TABLE_FILE))
    with open(target, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(dumps(build()))
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
