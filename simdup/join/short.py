"""Two short texts judged: the edit similarity of their comparison forms, or, when both have
two blocks or more (paragraphs, list items, headings), their block-move similarity
(``algorithms.move_join``): a text of one block has nothing to move.

A short text's record keeps, in place of a sketch, its comparison form with its blocks marked
(``text.normalize.block_form``): ``short_form`` gives the form back, ``short_blocks`` the
marked form. ``short_join`` finds every pair within the threshold by
either similarity; ``short_similarities`` judges candidate pairs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..algorithms import edit_join, move_join
from ..text.normalize import unmarked_form

# Told ``(done, total)`` as a long step goes (``engines.base.Progress``).
Progress = Callable[[int, int], None]


def short_form(sketch: bytes) -> str:
    """A short text's comparison form, from its record's sketch (its form with its blocks
    marked, ``text.normalize.block_form``)."""
    return unmarked_form(sketch.decode("utf-8", "surrogatepass"))


def short_blocks(sketch: bytes) -> str:
    """A short text's form with its blocks marked (``move_join.BLOCK_MARK``), from its
    record's sketch."""
    return sketch.decode("utf-8", "surrogatepass")


def both_have_blocks(a: str, b: str) -> bool:
    """Whether both marked forms have two blocks or more (the block-move similarity judges
    such a pair only)."""
    return move_join.BLOCK_MARK in a and move_join.BLOCK_MARK in b


def short_join(
    marked: list[str], threshold: float, progress: Progress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)``, ``i < j``, of short texts (forms with their blocks marked) whose
    edit similarity reaches ``threshold``, or whose block-move similarity does and both have
    blocks: the edit join of their forms and the block-move join of the texts with blocks,
    both exact. A pair may come twice. ``progress(done, total)``: the edit join told as the
    first half, the block-move join as the second."""

    def half(offset: int) -> Progress | None:
        if progress is None:
            return None
        told = progress
        return lambda done, total: told((offset * total + done) // 2, total)

    forms = [unmarked_form(m) for m in marked]
    ei, ej, _ = edit_join.join(forms, threshold, progress=half(0))
    del forms
    blocky = np.flatnonzero(
        np.fromiter((move_join.BLOCK_MARK in m for m in marked), dtype=bool, count=len(marked))
    )
    mi, mj, _ = move_join.join([marked[k] for k in blocky.tolist()], threshold, half(1))
    return np.concatenate((ei, blocky[mi])), np.concatenate((ej, blocky[mj]))


def short_similarities(
    marked_a: list[str], marked_b: list[str], threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair ``(marked_a[n], marked_b[n])``: its similarity, exact where it reaches
    ``threshold`` (the edit similarity of the forms; where that is below the threshold and
    both texts have blocks, the block-move similarity when it reaches it), and whether the
    block-move similarity decided."""
    edit = edit_join.edit_similarities(
        [unmarked_form(m) for m in marked_a], [unmarked_form(m) for m in marked_b]
    )
    moved = np.zeros(edit.size, dtype=bool)
    below = np.flatnonzero(edit < threshold).tolist()
    maybe = [p for p in below if both_have_blocks(marked_a[p], marked_b[p])]
    if maybe:
        got = move_join.move_similarities_near(
            [marked_a[p] for p in maybe], [marked_b[p] for p in maybe], threshold
        )
        better = got >= threshold
        at = np.asarray(maybe, dtype=np.int64)[better]
        edit[at] = got[better]
        moved[at] = True
    return edit, moved
