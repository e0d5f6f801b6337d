"""One frozen object holding every setting that changes a fingerprint, and the algorithm version.

``ALGORITHM_VERSION`` changes whenever the same text and the same parameters could give a
different fingerprint or sketch (normaliser, segmentation rules, stopword lists, weighting,
hash, the word set a sketch holds). It is
written into every JSON report, so fingerprints from incompatible versions are never compared.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .errors import ConfigError

# 7 (issue 50): a short text's record keeps its comparison form with its paragraphs, list items
# and headings marked (``text.normalize.block_form``), not the bare form; fingerprints unchanged.
ALGORITHM_VERSION = "simdup-simhash64/7"

# Texts shorter than this many characters (whitespace collapsed) are judged by their characters,
# not their words: a fingerprint of character bigrams, and the edit similarity of their
# comparison forms (``text.normalize.comparison_form``) verifies a pair. Measured with
# ``make bench-short`` (docs/performance.md): below it word sets miss reworded copies.
SHORT_TEXT_CHARS = 400

WEIGHTINGS = ("tf", "logtf", "binary", "tfidf")

# What markup a text's characters may hold, removed before it is compared: ``markdown`` (front
# matter, HTML tags and comments, link targets and reference definitions; a bare URL stays in
# the text and leaves the words that weigh), ``html`` (tags and comments), ``none`` (the text as
# written). ``auto``: ``markdown`` for documents, ``none`` for the rows of a dataset: a row is a
# string, and what looks like markup in it is often its content (``ref<T | null>(null)``, two
# links to different places).
MARKUPS = ("none", "markdown", "html")


@dataclass(frozen=True)
class FeatureParams:
    """How a text becomes weighted features and a fingerprint."""

    markup: str = "auto"  # MARKUPS, or auto: markdown for documents, none for rows
    stopwords: bool = True  # drop the bundled stopword lists
    extra_stopwords: frozenset[str] = field(default_factory=frozenset)
    user_dict: str | None = None  # path of a jieba user dictionary
    weighting: str = "tfidf"  # (1 + ln tf) * idf, idf from jieba's table
    ngram: int = 1  # 1: words; 2: words and word bigrams
    sketch_size: int = 256  # bottom-k sketch size kept per document for verification
    segmenter: str = "auto"  # backend only: both give identical tokens
    minhash_perms: int = 0  # MinHash signature length (0: not computed; --method minhash)

    def __post_init__(self) -> None:
        if isinstance(self.markup, bool):  # the setting was a flag before it had three values
            object.__setattr__(self, "markup", "markdown" if self.markup else "none")
        if self.markup != "auto" and self.markup not in MARKUPS:
            raise ConfigError(
                f"unknown markup {self.markup!r} (choose from auto, {', '.join(MARKUPS)})"
            )
        if self.weighting not in WEIGHTINGS:
            raise ConfigError(
                f"unknown weighting {self.weighting!r} (choose from {', '.join(WEIGHTINGS)})"
            )
        if self.ngram not in (1, 2):
            raise ConfigError("ngram must be 1 or 2")
        if self.minhash_perms and not 16 <= self.minhash_perms <= 1024:
            raise ConfigError("minhash_perms must be 0 or between 16 and 1024")
        if not 8 <= self.sketch_size <= 4096:
            raise ConfigError("sketch_size must be between 8 and 4096")

    @property
    def text_markup(self) -> str:
        """The markup removed from a text: ``markup``, ``auto`` being ``markdown`` (a document's;
        rows resolve it first, ``for_rows``)."""
        return "markdown" if self.markup == "auto" else self.markup

    def for_rows(self) -> FeatureParams:
        """These parameters for the rows of a dataset: ``auto`` markup is ``none``."""
        return replace(self, markup="none") if self.markup == "auto" else self

    def describe(self) -> dict[str, Any]:
        """Settings as reported in output (stopword additions as a count and digest)."""
        data = asdict(self)
        data["markup"] = self.text_markup
        data["short_text_chars"] = SHORT_TEXT_CHARS
        extra = sorted(self.extra_stopwords)
        data["extra_stopwords"] = {
            "count": len(extra),
            "sha256": hashlib.sha256("\n".join(extra).encode()).hexdigest()[:16],
        }
        return data

    def cache_key(self) -> str:
        """Identifies everything that can change a fingerprint (not the backend): every field,
        the algorithm version, the whole set of stopword additions and the *content* of the
        user dictionary. The scan cache reuses a fingerprint only under the same key, so the
        dictionary is keyed by its bytes, not its path: edited in place it gives a new key.

        Raises ``ConfigError`` when the user dictionary cannot be read.
        """
        data = self.describe()
        data.pop("segmenter")
        # describe()'s 16-hex-digit digest is for people; a key needs the full, unambiguous one.
        extra = json.dumps(sorted(self.extra_stopwords), ensure_ascii=False)
        data["extra_stopwords"] = hashlib.sha256(extra.encode("utf-8", "surrogatepass")).hexdigest()
        data["user_dict"] = None if self.user_dict is None else _file_digest(self.user_dict)
        data["algorithm"] = ALGORITHM_VERSION
        # markdown and none are keyed as the flag they were (True, False): the same fingerprints,
        # so caches, indexes and stored fingerprints made before stay valid.
        data["markup"] = LEGACY_MARKUP_KEYS.get(self.text_markup, self.text_markup)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


LEGACY_MARKUP_KEYS: dict[str, bool | str] = {"markdown": True, "none": False}


def described_markup(stored: Any) -> Any:
    """A ``markup`` setting as described now, from a description stored before it had three
    values (True: ``markdown``, False: ``none``)."""
    if isinstance(stored, bool):
        return "markdown" if stored else "none"
    return stored


def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise ConfigError(f"user dictionary {path}: {exc.strerror or exc}") from exc
