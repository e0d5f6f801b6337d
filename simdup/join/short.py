"""Two short texts judged: the edit similarity of their comparison forms, or their block-move
similarity when one of them has more than one block (``algorithms.move_join``).

A short text's record keeps, in place of a sketch, its comparison form with its blocks (its
sentences and paragraphs) marked (``text.normalize.block_form``): ``short_form`` gives the form
back, ``short_blocks`` the marked form. ``short_join`` finds every pair within the threshold by
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


def has_blocks(a: str, b: str) -> bool:
    """Whether either of two marked forms has more than one block (else their block-move
    similarity is their edit similarity)."""
    return move_join.BLOCK_MARK in a or move_join.BLOCK_MARK in b


def short_join(
    marked: list[str], threshold: float, progress: Progress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)``, ``i < j``, of short texts (forms with their blocks marked) whose
    edit similarity or block-move similarity reaches ``threshold``: the edit join of their
    forms and the block-move join of the pairs it cannot settle (a text of more than one
    block in them), both exact. A pair may come twice. ``progress(done, total)``: the edit
    join told as the first half, the block-move join as the second."""

    def half(offset: int) -> Progress | None:
        if progress is None:
            return None
        told = progress
        return lambda done, total: told((offset * total + done) // 2, total)

    forms = [unmarked_form(m) for m in marked]
    ei, ej, _ = edit_join.join(forms, threshold, progress=half(0))
    del forms
    mi, mj, _ = move_join.join(marked, threshold, progress=half(1), one_block_pairs=False)
    return np.concatenate((ei, mi)), np.concatenate((ej, mj))


def short_similarities(
    marked_a: list[str], marked_b: list[str], threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair ``(marked_a[n], marked_b[n])``: its similarity, exact where it reaches
    ``threshold`` (the edit similarity of the forms; where that is below the threshold and
    either text has blocks, the block-move similarity when it reaches it), and whether the
    block-move similarity decided."""
    edit = edit_join.edit_similarities(
        [unmarked_form(m) for m in marked_a], [unmarked_form(m) for m in marked_b]
    )
    moved = np.zeros(edit.size, dtype=bool)
    below = np.flatnonzero(edit < threshold).tolist()
    maybe = [p for p in below if has_blocks(marked_a[p], marked_b[p])]
    if maybe:
        got = move_join.move_similarities_near(
            [marked_a[p] for p in maybe], [marked_b[p] for p in maybe], threshold
        )
        better = got >= threshold
        at = np.asarray(maybe, dtype=np.int64)[better]
        edit[at] = got[better]
        moved[at] = True
    return edit, moved
