"""When two sentences are a seed and when seeds are a reworded passage or a summary
(``SentenceRule``): every bound of ``sentences`` and ``summaries`` in one place, with why it
is what it is and where it was measured. ``sentences`` re-exports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SentenceRule:
    """When two sentences are a seed and when seeds are a reworded passage."""

    min_cosine: float = 0.33
    min_dice: float = 0.33
    # Seeds compare words as written, not by their stems (``sentences.seeds``): documents on
    # one subject use its words in every form ("argument", "arguments"), and stems made their
    # sentences seeds; a changed form is evidence that extends a passage (the sentences
    # between and beside seeds, a passage's bags as wholes read stems), not one that starts
    # it. Chapters on one subject (English, benchmarks/same_subject.py): character precision
    # 0.83 as written, 0.68 by stems; train: 04 translation obfuscation (a round trip through
    # another language changes forms) 0.849 as written, 0.881 by stems, 03 0.853 / 0.857,
    # 05 0.695 / 0.698, 02 0.980 / 0.979. Precision on one subject first: a teacher checks a
    # class writing on one topic.
    seeds_by_stems: bool = False
    max_gap: int = 4  # sentences between two seeds of one passage, on each side
    min_passage_cosine: float = 0.5
    min_passage_containment: float = 0.5
    min_words: float = 16.0  # a passage's length on each side, in words (a CJK character 8/13)
    # The share of a passage's sentences (on each side) that are in a seed: a reworded copy
    # rewords nearly every sentence; a template shared by two documents has a line here and
    # there, with other text between.
    min_density: float = 0.5
    # Seed sentences of a passage on each side: one reworded sentence alone is too often a
    # sentence that says the like ("X is a solution for asynchronous programming").
    min_seeds: int = 2
    # A passage's first and last seeds (in query order) must reach this cosine; weaker ones
    # at its ends are let go.
    min_edge_cosine: float = 0.4
    # ... and this share of the query sentence's distinct features in the source sentence.
    min_edge_containment: float = 0.4
    max_feature_sentences: int = 64  # a feature in more sentences of a side seeds nothing
    # Sentences of the query between two seeds of a passage that are no seed themselves
    # belong to it only when this share of their features is in the source sentences between
    # (and of) those seeds: a reworded sentence too changed to seed still keeps most of its
    # words; the author's own sentence between two copies (a comment, a byline, a host
    # paragraph on the same subject) does not, and the passage is cut there (``_evidenced``).
    min_gap_containment: float = 0.25
    min_gap_containment_one: float = 0.1  # ... when the stretch is one sentence
    # A passage's ends on each side are its first and last words found in the other side's
    # passage when the words outside them weigh this many words or more (``_on_shared_words``).
    max_end_stretch: float = 6.0
    # Summaries (``summaries``): a block of the query whose sentences seed, in order, with
    # sentences of a source stretch half as long again or longer (in words: rewording makes
    # a passage a few tenths longer or shorter at most, a summary leaves out a third or more
    # of what it condenses), however far apart they lie there (up to Sanchez-Perez et al.'s
    # summary gap, 24 sentences). Three seeds at least: the order of two says little.
    # Thresholds below marked "train" were chosen on PAN 2013's training corpus (03 random
    # and 04 translation obfuscation; 02 and 01 watched for precision), never its test corpus.
    # One seed sentence on a side (one long sentence copied as one or two) is a passage when
    # seeds' cosine and the share of the query sentence's features in the source's both
    # reach ``single_min_cosine`` and both sides weigh ``single_min_words`` (``_single``): a
    # long sentence that keeps half its words copies it (a shuffle across sentence ends often
    # leaves one copied sentence seeding alone); a short one may merely say the like
    # (``min_seeds``). Train: 03 +0.02, 04 +0.015, 02 precision -0.004.
    single_min_cosine: float = 0.5
    single_min_words: float = 20.0
    # A passage grows by a neighbouring sentence, on either side, when this share of its
    # features is in the other side's passage (``_grown``). Train: recall +0.02 (03, 04) at
    # precision -0.00/-0.01; at 0.5, 04 +0.01 more, but the English planted set of
    # benchmarks/rewording.py lost 0.02 of precision (the host's sentences beside a copy).
    grow_min_containment: float = 0.7
    summaries: bool = True
    summary_min_compression: float = 1.5
    summary_max_gap: int = 24
    summary_min_seeds: int = 3
    # Summaries of a whole source (``summaries._of_documents``), chosen on PAN 2013's training
    # corpus only (05 summaries against 01 no plagiarism, and 02 and 03, whose documents are
    # on their sources' subjects). A block of 3 sentences or more, each with half its
    # features in the source (summary sentences there: 9 in 10; others: 1 in 30), their mean
    # 0.4 above the median of the rest of the document (summaries: 19 in 20; at 0.3, three
    # pages on their source's subject in 01 once words are stems), alike to the source as a bag
    # at 0.3 (summaries: 0.38 or more for 9 in 10), the only such block of the document (a
    # summary: 224 in 232; 02 and 03 documents mostly have several) and at most half of it.
    summary_of_documents: bool = True
    summary_min_sentences: int = 3
    summary_min_containment: float = 0.5
    summary_min_lift: float = 0.4
    summary_min_document_cosine: float = 0.3
    # The source 2.5 times as long as the block or longer (summaries there: 2.9 times at
    # least; a page on the subject of a short source, in no plagiarism: 2.1).
    summary_min_document_compression: float = 2.5
    # Spread over the source, as a reworded copy is not: the source sentences nearest 3 of its
    # sentences or more (cosine 0.2, Dice 0.1: a summary sentence shares fewer words with any
    # one source sentence than a reworded one) at most half of the source sentences from the
    # first to the last of them (summaries: 0.4 or less for 9 in 10; copies in 03: 0.3 or
    # more for 9 in 10), and no source stretch half as long again as the block holding more
    # than 0.8 of its features that the source has (summaries found: 6 of 174 above; blocks
    # found over 02 and 03 copies: 8 of 17).
    summary_match_min_cosine: float = 0.2
    summary_match_min_dice: float = 0.1
    summary_min_matches: int = 3
    summary_max_match_density: float = 0.5
    summary_max_passage_share: float = 0.8
    # What it condenses: the shortest stretch of the source holding 0.95 of its features
    # found in the source; the whole source when that is 0.7 of it or more (a summary of a
    # document draws on all of it, and PAN's cases are the whole source).
    summary_stretch_share: float = 0.95
    summary_whole_share: float = 0.7
    # A copied passage of this many sentences in a block makes it no summary (a copy amid the
    # author's own sentences on its subject); shorter copies are pieces of one (summaries
    # copy a sentence or two here and there). 5 found 0.03-0.05 more plagdet on 05 and calls a
    # copy of four sentences between sentences on its subject a summary.
    summary_max_copy_sentences: int = 3
    # A summary brings its source's words into the document: of the words of a summary that
    # the source has, at most this share are in the rest of the document
    # (``summaries._own_words``). An author writing on the source's subject uses its words all
    # through the document; a block of it that merely says the like (a chapter's closing
    # advice, a book's other chapter on the topic) draws no words from the source that the
    # author does not use elsewhere. Train (05): 95 in 100 summaries found 0.57 or less
    # (chains of seeds in order) and 0.48 or less (document-level evidence); the blocks found
    # in chapters on one subject (benchmarks/same_subject.py): 0.79 or more but two (0.44).
    summary_max_own_words: float = 0.6
    # A reworded passage brings this many distinct words of its source passage (stems; CJK:
    # character pairs) that the document's own text has nowhere: outside the passage and
    # outside every sentence that seeds with the source (``sentences.brings_source_words``).
    # A copy carries words of its source into the document; the author's own sentence
    # restating what the document says elsewhere (a chapter's summary of its own rule, a
    # book's second explanation of one fact) carries none or one. Sentences that seed are no
    # evidence of the author's words: two passages copied from one source share its words,
    # and a short answer revised from one source draws on it all through. Chapters on one
    # subject: character precision 0.78 -> 0.83 (English), 0.87 -> 0.90 (Chinese), recall
    # unchanged; train: 02 precision +0.003, 03 -0.004, 04 -0.006, 05 -0.001; short answers
    # unchanged (AUC 0.965). Counting seeded sentences as the author's own: English 0.87, but
    # a heavily revised short answer is lost (AUC 0.956).
    min_drawn_words: int = 2

    def describe(self) -> dict[str, float | int]:
        return {
            "sentence_min_cosine": self.min_cosine,
            "sentence_min_dice": self.min_dice,
            "seeds_by_stems": self.seeds_by_stems,
            "passage_max_gap_sentences": self.max_gap,
            "passage_min_cosine": self.min_passage_cosine,
            "passage_min_containment": self.min_passage_containment,
            "passage_min_words": self.min_words,
            "passage_min_density": self.min_density,
            "passage_min_seed_sentences": self.min_seeds,
            "passage_min_edge_cosine": self.min_edge_cosine,
            "passage_min_edge_containment": self.min_edge_containment,
            "max_feature_sentences": self.max_feature_sentences,
            "gap_min_containment": self.min_gap_containment,
            "gap_min_containment_one_sentence": self.min_gap_containment_one,
            "passage_max_unshared_end_words": self.max_end_stretch,
            "single_seed_min_cosine": self.single_min_cosine,
            "single_seed_min_words": self.single_min_words,
            "grow_min_containment": self.grow_min_containment,
            "summaries": self.summaries,
            "summary_min_compression": self.summary_min_compression,
            "summary_max_gap_sentences": self.summary_max_gap,
            "summary_min_seed_sentences": self.summary_min_seeds,
            "summary_of_documents": self.summary_of_documents,
            "summary_min_sentences": self.summary_min_sentences,
            "summary_min_sentence_containment": self.summary_min_containment,
            "summary_min_containment_lift": self.summary_min_lift,
            "summary_min_document_cosine": self.summary_min_document_cosine,
            "summary_min_document_compression": self.summary_min_document_compression,
            "summary_match_min_cosine": self.summary_match_min_cosine,
            "summary_match_min_dice": self.summary_match_min_dice,
            "summary_min_matched_sentences": self.summary_min_matches,
            "summary_max_match_density": self.summary_max_match_density,
            "summary_max_share_in_one_passage": self.summary_max_passage_share,
            "summary_stretch_share": self.summary_stretch_share,
            "summary_whole_source_share": self.summary_whole_share,
            "summary_max_copied_sentences": self.summary_max_copy_sentences,
            "summary_max_share_of_own_words": self.summary_max_own_words,
            "passage_min_words_drawn_from_source": self.min_drawn_words,
        }
