"""simdup.algorithms.containment: the index of evaluation items that decontamination looks rows
up in."""

from __future__ import annotations

import numpy as np

from simdup.algorithms.containment import ContainmentRule, ItemIndex
from simdup.text.tokens import tokenize


def test_a_crowded_template_gives_no_hits() -> None:
    template = tokenize("which of the following statements best describes the").hashes
    items = [np.concatenate([template, tokenize(f"option {n} alpha beta gamma").hashes])
             for n in range(100)]  # fmt: skip
    index = ItemIndex(items, ContainmentRule(max_items=10))
    assert index.common > 0
    assert index.contained(template) == []
