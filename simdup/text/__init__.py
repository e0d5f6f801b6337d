"""Layer 2, text: from a decoded text to the terms a fingerprint is made of, one stage per module.

``normalize`` (invisible characters, markup, NFKC and case), ``variants`` (traditional and
simplified Chinese as one), ``textscan`` (words, CJK runs, units), ``segmentation`` (jieba or
rjieba), ``stopwords``, ``idf`` and ``features`` (weighted terms), ``processor`` (one document
-> its fingerprint record); for copied text, ``tokens`` (tokens that keep their place),
``file_offsets`` and ``lines`` (where a reader's characters are in the file), ``sentence_bags``
and ``stemming`` (sentences as bags of features), ``particles`` (Japanese and Korean words)
and ``embeddings`` (what a sentence means). Decoding bytes is the readers'.
"""
