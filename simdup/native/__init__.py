"""The optional C accelerator ``simdup.native._speedups``, when built and not switched off.

setup.py builds it when a C compiler is available (``optional=True``: without one the install
still succeeds). Every native function has a pure-Python twin that defines what it must return,
named in ``TWINS`` (the one list of them; tests/native/test_native.py checks that it names every
native function and that each twin imports, and the Hypothesis equivalence tests take the
twins from it). ``SIMDUP_PURE_PYTHON=1`` in the environment forces the Python versions.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any


def _load() -> ModuleType | None:
    if os.environ.get("SIMDUP_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _speedups
    except ImportError:
        return None
    return _speedups


speedups: ModuleType | None = _load()
NATIVE = speedups is not None

# Native name -> "module:definition" of the Python twin that gives the same result. The memo of
# units and the edge vocabulary are tables the C code keeps; their twin is the class that
# reads like the dict the Python versions keep.
TWINS: dict[str, str] = {
    # text
    "collapse": "simdup.text.textscan:collapse_python",
    "digest": "simdup.text.textscan:digest_python",
    "unit_memo": "simdup.text.textscan:UnitMemo",
    "unit_memo_size": "simdup.text.textscan:UnitMemo",
    "unit_memo_clear": "simdup.text.textscan:UnitMemo",
    "unit_memo_units": "simdup.text.textscan:UnitMemo",
    "unit_memo_get": "simdup.text.textscan:UnitMemo",
    "count_controls": "simdup.readers.decoding:count_controls_python",
    "strip_ignorables": "simdup.text.normalize:strip_ignorables_python",
    "strip_urls": "simdup.text.normalize:strip_urls_python",
    "strip_link_targets": "simdup.text.normalize:strip_link_targets_python",
    "markup_marks": "simdup.text.normalize:markup_marks_python",
    "word_runs": "simdup.text.normalize:word_runs_python",
    "folded_word_runs": "simdup.text.normalize:folded_word_runs_python",
    "bigram_hashes": "simdup.algorithms.edit_join:bigram_hashes_python",
    "bigram_features": "simdup.algorithms.edit_join:bigram_features_python",
    "markup_word_hashes": "simdup.text.features:markup_word_hashes_python",
    "form_token_count": "simdup.text.features:form_token_count_python",
    # fingerprints and sketches
    "simhash": "simdup.algorithms.simhash:simhash_python",
    "simhash_of_weights": "simdup.algorithms.simhash:simhash_of_weights_python",
    "bottom_k": "simdup.algorithms.sketch:bottom_k",
    "bottom_k_jaccard": "simdup.algorithms.sketch:estimate_jaccard",
    "bottom_k_jaccard_pairs": "simdup.algorithms.sketch:estimate_jaccard",
    "minhash_signature": "simdup.algorithms.minhash:signature_python",
    "document_parts": "simdup.text.processor:document_parts_python",
    "weighted_terms": "simdup.text.features:weighted_terms_python",
    # the index
    "table_pairs": "simdup.algorithms.index:_table_pairs_numpy",
    # the edit join of short texts
    "edit_prefixes": "simdup.algorithms.edit_join:prefixes_python",
    "edit_window_pairs": "simdup.algorithms.edit_join:window_pairs_python",
    "edit_histograms": "simdup.algorithms.edit_join:character_histograms_python",
    "edit_windows": "simdup.algorithms.edit_join:windows_python",
    # readers
    "markdown_lines": "simdup.readers.markdown_lines:markdown_lines_python",
    "jsonl_texts": "simdup.readers.rows:jsonl_texts_python",
    # fragment tokens and decon's k-gram probe
    "fragment_tokens": "simdup.text.tokens:tokenize_python",
    "row_token_hashes": "simdup.text.tokens:row_token_hashes_python",
    "row_letter_hashes": "simdup.text.letters:row_letter_hashes_python",
    "gram_rows": "simdup.algorithms.containment:gram_rows_python",
    "gram_hits": "simdup.algorithms.containment:gram_hits_python",
    "best_window": "simdup.algorithms.containment:best_window_python",
    "near_groups": "simdup.algorithms.containment:near_groups_python",
    # copied fragments
    "winnow": "simdup.algorithms.winnowing:winnow_python",
    "fragment_chains": "simdup.algorithms.fragments:fragment_chains_python",
}


def twin(name: str) -> Any:
    """The Python twin of native function ``name`` (imported on demand: the registry names
    modules above this one, which may not import it at load time)."""
    module, _, attribute = TWINS[name].partition(":")
    return getattr(importlib.import_module(module), attribute)
