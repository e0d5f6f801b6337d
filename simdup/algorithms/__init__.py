"""Layer 1, the algorithms: one structure or method per module, on ints, arrays and strings.

``hashing`` (the stable token hash), ``simhash`` (weighted 64-bit SimHash), ``sketch``
(bottom-k sketches and their Jaccard estimate), ``minhash`` (signatures and LSH bands),
``index`` (the exact pigeonhole Hamming index) and ``clustering`` (centres or components).
They import nothing above the shared records (tests/contract/test_architecture.py).
"""
