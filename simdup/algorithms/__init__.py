"""Layer 1, the algorithms: one structure or method per module, on ints, arrays and strings.

Near-duplicates: ``hashing`` (the stable token hash), ``simhash`` (weighted 64-bit SimHash),
``sketch`` (bottom-k sketches and their Jaccard estimate), ``minhash`` (signatures and LSH
bands), ``index`` (the exact pigeonhole Hamming index), ``edit_join`` and ``move_join`` (short
texts by edit and block-move similarity, exact) and ``clustering`` (centres or components).
Copies: ``winnowing`` and ``fragments`` (exact runs), ``sentence_rule``, ``sentences`` and
``summaries`` (reworded passages and summaries), ``sentence_meaning`` (passages alike in
meaning), ``merging`` (one source's copies as one), ``bag_index`` (sources by shared words)
and ``containment`` (evaluation items in training rows). They import nothing above the shared
records (tests/contract/test_architecture.py).
"""
