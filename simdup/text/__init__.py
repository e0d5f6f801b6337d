"""Layer 2, text: from bytes to the terms a fingerprint is made of, one stage per module.

``decoding`` (bytes -> text: BOM, strict UTF-8, chardet), ``normalize`` (invisible characters,
markup), ``textscan`` (words and units, the memo of lines), ``segmentation`` (jieba or
rjieba), ``stopwords``, ``idf`` and ``features`` (weighted terms), ``lines`` (the lines of a
text), and ``processor`` (one document -> its fingerprint record).
"""
