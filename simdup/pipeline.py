"""Orchestration: discovery -> decoding -> features -> fingerprint -> index -> verify -> clusters.

The library never prints and never exits; progress is reported through a plain callback.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .clustering import METHODS, cluster, max_pairwise_distance
from .decoding import decode_file
from .discovery import DiscoveryOptions, discover
from .errors import ConfigError, InputError
from .features import extract_features, vocabulary
from .idf import jieba_table
from .index import MAX_THRESHOLD, near_pairs
from .minhash import band_candidates, choose_bands
from .minhash import estimate as minhash_estimate
from .minhash import signature as minhash_signature
from .params import FeatureParams
from .records import (
    Cluster,
    ClusterMember,
    Comparison,
    DecodedDocument,
    DuplicatePair,
    FeatureVector,
    FingerprintedDocument,
    ScanResult,
    SharedTerm,
    SkippedFile,
    SourceFile,
)
from .segmentation import Segmenter, get_segmenter
from .simhash import BITS, hamming, simhash
from .sketch import bottom_k, sketch_jaccard
from .stopwords import bundled_stopwords
from .workerpool import WorkerPool

Progress = Callable[[int, int], None]

DEFAULT_THRESHOLD = 3
DEFAULT_VERIFY_RADIUS = 12
DEFAULT_MIN_SIMILARITY = 0.8
DEFAULT_MIN_LENGTH_RATIO = 0.9
METHODS_CANDIDATES = ("auto", "simhash", "minhash")
# An exact Hamming join at the verification radius grows with N^2 / 2^(key bits): ~1 s for
# 20,000 documents, ~13 s for 100,000, hours for millions. Above this many files "auto"
# generates candidates with MinHash LSH instead, which grows linearly (same verification).
AUTO_MINHASH_ABOVE = 50_000


@dataclass(frozen=True)
class ScanOptions:
    """Everything a scan needs besides the paths."""

    threshold: int = DEFAULT_THRESHOLD
    features: FeatureParams = field(default_factory=FeatureParams)
    discovery: DiscoveryOptions = field(default_factory=DiscoveryOptions)
    verify: bool = True
    verify_radius: int = DEFAULT_VERIFY_RADIUS
    min_similarity: float = DEFAULT_MIN_SIMILARITY
    min_length_ratio: float = DEFAULT_MIN_LENGTH_RATIO
    cluster_method: str = "centers"
    jobs: int | None = None  # None: all cores
    # Candidate generation: "simhash" block index, "minhash" LSH, or "auto" (simhash up to
    # AUTO_MINHASH_ABOVE files, minhash above; simhash whenever verification is off).
    method: str = "auto"
    minhash_perms: int = 128

    def __post_init__(self) -> None:
        for name in ("threshold", "verify_radius"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_THRESHOLD:
                raise ConfigError(f"{name} must be between 0 and {MAX_THRESHOLD}, got {value}")
        if not 0.0 <= self.min_similarity <= 1.0:
            raise ConfigError("min_similarity must be between 0 and 1")
        if not 0.0 <= self.min_length_ratio <= 1.0:
            raise ConfigError("min_length_ratio must be between 0 and 1")
        if self.cluster_method not in METHODS:
            raise ConfigError(f"unknown cluster method {self.cluster_method!r}")
        if self.method not in METHODS_CANDIDATES:
            raise ConfigError(
                f"unknown method {self.method!r} (choose from {', '.join(METHODS_CANDIDATES)})"
            )
        if self.jobs is not None and self.jobs < 1:
            raise ConfigError("jobs must be at least 1")

    @property
    def search_radius(self) -> int:
        """Hamming radius of candidate generation."""
        return max(self.threshold, self.verify_radius) if self.verify else self.threshold

    def describe(self, backend: str) -> dict[str, Any]:
        features = self.features.describe()
        features["segmenter"] = backend
        return {
            "method": self.method,
            "minhash_perms": self.minhash_perms if self.method == "minhash" else None,
            "threshold": self.threshold,
            "verify": self.verify,
            "verify_radius": self.verify_radius if self.verify else None,
            "min_similarity": self.min_similarity if self.verify else None,
            "min_length_ratio": self.min_length_ratio if self.verify else None,
            "cluster_method": self.cluster_method,
            "features": features,
            "max_size": self.discovery.max_size,
            "include": list(self.discovery.include),
            "exclude": list(self.discovery.exclude),
            "hidden": self.discovery.hidden,
            "follow_symlinks": self.discovery.follow_symlinks,
        }


# ---------------------------------------------------------------- one document


class DocumentProcessor:
    """Turns one file or text into a fingerprinted document. One per process."""

    def __init__(self, params: FeatureParams) -> None:
        self.params = params
        self.segmenter: Segmenter = get_segmenter(params.segmenter, params.user_dict)
        words = bundled_stopwords() if params.stopwords else frozenset()
        self.stopwords = frozenset(words | params.extra_stopwords)
        # Built before workers fork, so that they share it.
        self.vocabulary = vocabulary(self.segmenter, self.stopwords)
        jieba_table()

    def features(self, text: str) -> FeatureVector:
        p = self.params
        return extract_features(
            text,
            self.segmenter,
            self.stopwords,
            markup=p.markup,
            weighting=p.weighting,
            ngram=p.ngram,
        )

    def fingerprint_features(self, fv: FeatureVector) -> tuple[int, bytes, bytes]:
        """SimHash fingerprint, bottom-k sketch and (if asked for) MinHash signature."""
        hashes, weights = fv.hashes, fv.weights
        sketch = bottom_k(hashes, self.params.sketch_size).astype("<u4").tobytes()
        perms = self.params.minhash_perms
        signature = minhash_signature(hashes, perms).astype("<u8").tobytes() if perms else b""
        return simhash(hashes, weights), sketch, signature

    def document(self, doc: DecodedDocument) -> FingerprintedDocument | SkippedFile:
        fv = self.features(doc.text)
        if len(fv) < self.params.min_features:
            return SkippedFile(
                doc.path,
                "features",
                f"too short to fingerprint: {len(fv)} distinct words "
                f"(minimum {self.params.min_features})",
            )
        fp, sketch, signature = self.fingerprint_features(fv)
        return FingerprintedDocument(
            path=doc.path,
            fingerprint=fp,
            encoding=doc.encoding,
            encoding_source=doc.encoding_source,
            size=doc.size,
            token_count=fv.token_count,
            feature_count=len(fv),
            content_hash=fv.content_hash,
            chars=fv.chars,
            sketch=sketch,
            minhash=signature,
        )

    def file(self, source: SourceFile, max_size: int) -> FingerprintedDocument | SkippedFile:
        """One file's fingerprint, or the record of why it has none. One bad file never stops a
        run: even an unexpected error (a bug, memory exhausted by one huge text) becomes a
        skip record of stage ``internal``, which ``--strict`` counts."""
        try:
            decoded = decode_file(source, max_size)
            if isinstance(decoded, SkippedFile):
                return decoded
            return self.document(decoded)
        except MemoryError:
            return SkippedFile(source.path, "internal", "out of memory while fingerprinting it")
        except Exception as exc:
            reason = f"internal error: {type(exc).__name__}: {exc}"
            return SkippedFile(source.path, "internal", reason)


_WORKER: DocumentProcessor | None = None
_WORKER_MAX_SIZE = 0


def _init_worker(params: FeatureParams, max_size: int) -> None:
    global _WORKER, _WORKER_MAX_SIZE
    _WORKER = DocumentProcessor(params)
    _WORKER_MAX_SIZE = max_size


def _describe_batch(batch: tuple[int, Sequence[SourceFile]]) -> str:
    _, sources = batch
    first = sources[0].path if sources else "?"
    return f"a batch of {len(sources)} files from {first!r}"


def _work_batch(
    batch: tuple[int, Sequence[SourceFile]],
) -> tuple[int, list[FingerprintedDocument | SkippedFile]]:
    assert _WORKER is not None
    start, sources = batch
    return start, [_WORKER.file(source, _WORKER_MAX_SIZE) for source in sources]


MAX_BATCH = 128
MIN_BATCH = 4


def batches(files: Sequence[SourceFile], jobs: int) -> list[tuple[int, Sequence[SourceFile]]]:
    """Consecutive runs of files with their start index, each 1/(2 jobs) of what is left
    (guided scheduling): batches shrink towards the end so that no worker is left with a long
    batch while the others idle."""
    out: list[tuple[int, Sequence[SourceFile]]] = []
    start = 0
    while start < len(files):
        size = min(MAX_BATCH, max(MIN_BATCH, -(-(len(files) - start) // (2 * jobs))))
        out.append((start, files[start : start + size]))
        start += size
    return out


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def fingerprint_files(
    files: Sequence[SourceFile],
    params: FeatureParams,
    *,
    max_size: int,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> Iterable[FingerprintedDocument | SkippedFile]:
    """Fingerprint files, in worker processes when it pays; results in the order of ``files``.

    Workers take the largest files first. Near-duplicates have similar sizes, so a worker meets
    a document's other versions in neighbouring batches, where its memo of lines already holds
    most of their lines; and the small files left for the end balance the load.
    """
    jobs = jobs or default_jobs()
    total = len(files)
    # A pool costs more than it saves on small inputs; results are identical either way.
    if jobs > 1 and total >= 4 * jobs and sum(f.size for f in files) > (1 << 20):
        _init_worker(params, max_size)  # load dictionaries once, before fork
        order = sorted(range(total), key=lambda i: (-files[i].size, i))
        work = batches([files[i] for i in order], jobs)
        results: list[FingerprintedDocument | SkippedFile | None] = [None] * total
        done = 0
        with WorkerPool(
            _work_batch,
            jobs,
            initializer=_init_worker,
            initargs=(params, max_size),
            describe=_describe_batch,
        ) as pool:
            for _, (start, batch) in pool.results(work):
                for k, result in enumerate(batch):
                    results[order[start + k]] = result
                done += len(batch)
                if progress:
                    progress(done, total)
        for finished in results:
            assert finished is not None
            yield finished
        return
    processor = DocumentProcessor(params)
    for done, source in enumerate(files, 1):
        result = processor.file(source, max_size)
        if progress:
            progress(done, total)
        yield result


# ---------------------------------------------------------------- the corpus


def _candidates(
    docs: Sequence[FingerprintedDocument], options: ScanOptions
) -> tuple[np.ndarray, ...]:
    """Candidate pairs ``(i, j, hamming distance)`` from the chosen method."""
    fps = np.array([d.fingerprint for d in docs], dtype=np.uint64)
    if options.method == "simhash":
        return near_pairs(fps, options.search_radius)
    signatures = np.stack([d.minhash_array() for d in docs]) if docs else np.empty((0, 1), "<u8")
    bands, rows = choose_bands(options.min_similarity, options.minhash_perms)
    pairs = band_candidates(signatures, bands, rows)
    ii, jj = pairs[:, 0], pairs[:, 1]
    return ii, jj, np.bitwise_count(fps[ii] ^ fps[jj])


def _similarity(a: FingerprintedDocument, b: FingerprintedDocument, options: ScanOptions) -> float:
    if options.method == "minhash":
        return minhash_estimate(a.minhash_array(), b.minhash_array())
    return sketch_jaccard(a.sketch, b.sketch, options.features.sketch_size)


def find_pairs(
    docs: Sequence[FingerprintedDocument], options: ScanOptions
) -> tuple[list[tuple[int, int, int, float | None]], dict[str, int]]:
    """Verified near-duplicate pairs ``(i, j, distance, similarity)`` among ``docs``.

    Identical normalised texts are always a pair. With ``verify`` every other candidate (within
    ``verify_radius``, or from MinHash LSH) is kept only when the shorter text is at least
    ``min_length_ratio`` of the longer and the estimated word-set Jaccard reaches
    ``min_similarity``. Without it, candidates within ``threshold`` are kept as they are.
    """
    ii, jj, dd = _candidates(docs, options)
    verify = options.verify or options.method == "minhash"
    out: list[tuple[int, int, int, float | None]] = []
    for i, j, d in zip(ii.tolist(), jj.tolist(), dd.tolist(), strict=True):
        a, b = docs[i], docs[j]
        if a.content_hash == b.content_hash:
            out.append((i, j, d, 1.0))
        elif not verify:
            out.append((i, j, d, None))
        elif min(a.chars, b.chars) >= options.min_length_ratio * max(a.chars, b.chars):
            sim = _similarity(a, b, options)
            if sim >= options.min_similarity:
                out.append((i, j, d, round(sim, 4)))
    return out, {"candidates": int(ii.size), "verified": len(out)}


def build_clusters(
    docs: Sequence[FingerprintedDocument],
    pairs: Sequence[tuple[int, int, int, float | None]],
    method: str,
    sketch_size: int,
) -> list[Cluster]:
    # Among equally connected documents the longest becomes the representative, then the path.
    order_key = [(-d.chars, d.path) for d in docs]
    groups = cluster(len(docs), [(i, j) for i, j, _, _ in pairs], order_key, method)
    built = []
    for rep, members in groups:
        r = docs[rep]
        rows = []
        for m in members:
            doc = docs[m]
            exact = doc.content_hash == r.content_hash
            sim = (
                1.0
                if exact
                else round(sketch_jaccard(r.sketch, doc.sketch, sketch_size), 4)
            )
            rows.append(
                ClusterMember(doc.path, hamming(r.fingerprint, doc.fingerprint), sim, exact)
            )
        rows.sort(key=lambda c: (c.path != r.path, c.distance, c.path))
        spread = max_pairwise_distance([docs[m].fingerprint for m in members])
        built.append((r.path, rows, spread))
    built.sort(key=lambda c: (-len(c[1]), c[0]))
    return [Cluster(n, rep, tuple(rows), spread) for n, (rep, rows, spread) in enumerate(built, 1)]


def resolve_options(
    options: ScanOptions | None, overrides: dict[str, Any], files: int | None = None
) -> ScanOptions:
    """``options`` (or the defaults) with keyword overrides applied and made consistent; a
    method of "auto" is decided once the number of ``files`` is known."""
    options = (
        replace(options or ScanOptions(), **overrides) if overrides else options or ScanOptions()
    )
    if options.method == "auto" and files is not None:
        large = options.verify and files > AUTO_MINHASH_ABOVE
        options = replace(options, method="minhash" if large else "simhash")
    if options.method == "minhash" and options.features.minhash_perms != options.minhash_perms:
        features = replace(options.features, minhash_perms=options.minhash_perms)
        options = replace(options, features=features)
    return options


def fingerprint_corpus(
    files: Sequence[SourceFile],
    skipped: Sequence[SkippedFile],
    options: ScanOptions,
    progress: Progress | None = None,
) -> tuple[list[FingerprintedDocument], list[SkippedFile]]:
    """Fingerprinted documents in discovery order, and every file dropped on the way."""
    docs: list[FingerprintedDocument] = []
    skips = list(skipped)
    for result in fingerprint_files(
        files,
        options.features,
        max_size=options.discovery.max_size,
        jobs=options.jobs,
        progress=progress,
    ):
        if isinstance(result, SkippedFile):
            skips.append(result)
        else:
            docs.append(result)
    return docs, skips


def scan(
    paths: Iterable[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    *,
    progress: Progress | None = None,
    **overrides: Any,
) -> ScanResult:
    """Find near-duplicate documents under ``paths``.

    ``options`` is a ``ScanOptions``; keyword arguments override its fields, e.g.
    ``scan(["docs"], threshold=2, jobs=1)``.
    """
    options = resolve_options(options, overrides)
    started = time.perf_counter()
    files, skipped = discover([os.fspath(p) for p in paths], options.discovery)
    options = resolve_options(options, overrides={}, files=len(files))
    discovered = time.perf_counter()
    docs, skips = fingerprint_corpus(files, skipped, options, progress)
    fingerprinted = time.perf_counter()
    raw_pairs, counts = find_pairs(docs, options)
    clusters = build_clusters(docs, raw_pairs, options.cluster_method, options.features.sketch_size)
    finished = time.perf_counter()
    pairs = []
    for i, j, d, sim in raw_pairs:
        a, b = docs[i].path, docs[j].path
        if b < a:
            a, b = b, a
        pairs.append(DuplicatePair(a, b, d, sim, docs[i].content_hash == docs[j].content_hash))
    pairs.sort(key=lambda p: (p.a, p.b))
    backend = get_segmenter(options.features.segmenter, options.features.user_dict).backend
    stats = {
        "files_found": len(files),
        "files_fingerprinted": len(docs),
        "files_skipped": len(skips),
        "bytes_read": sum(d.size for d in docs),
        "candidates": counts["candidates"],
        "pairs": len(pairs),
        "clusters": len(clusters),
        "seconds": {
            "discovery": round(discovered - started, 3),
            "fingerprint": round(fingerprinted - discovered, 3),
            "index_and_cluster": round(finished - fingerprinted, 3),
            "total": round(finished - started, 3),
        },
    }
    return ScanResult(
        settings=options.describe(backend),
        files=tuple(docs),
        skipped=tuple(sorted(skips, key=lambda s: s.path)),
        pairs=tuple(pairs),
        clusters=tuple(clusters),
        stats=stats,
    )


# ---------------------------------------------------------------- single texts


_PROCESSORS: dict[FeatureParams, DocumentProcessor] = {}


def _processor(params: FeatureParams) -> DocumentProcessor:
    proc = _PROCESSORS.get(params)
    if proc is None:
        proc = _PROCESSORS[params] = DocumentProcessor(params)
    return proc


def fingerprint(text: str, params: FeatureParams | None = None, **options: Any) -> int:
    """The 64-bit SimHash fingerprint of ``text``.

    Keyword arguments are ``FeatureParams`` fields (``weighting``, ``stopwords``, ...).
    """
    params = replace(params or FeatureParams(), **options) if options else params or FeatureParams()
    proc = _processor(params)
    return proc.fingerprint_features(proc.features(text))[0]


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    dot = sum(w * b[t] for t, w in a.items() if t in b)
    na = math.sqrt(sum(w * w for w in a.values()))
    nb = math.sqrt(sum(w * w for w in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def compare(
    path_a: str | os.PathLike[str],
    path_b: str | os.PathLike[str],
    options: ScanOptions | None = None,
    *,
    top: int = 10,
    **overrides: Any,
) -> Comparison:
    """How close two documents are, and why. Raises ``InputError`` if one cannot be read."""

    options = (
        replace(options or ScanOptions(), **overrides) if overrides else options or ScanOptions()
    )
    params = options.features
    proc = _processor(params)
    docs: list[FingerprintedDocument] = []
    vectors: list[FeatureVector] = []
    texts: list[str] = []
    for path in (os.fspath(path_a), os.fspath(path_b)):
        decoded = decode_file(path, options.discovery.max_size)
        if isinstance(decoded, SkippedFile):
            raise InputError(path, decoded.reason)
        texts.append(decoded.text)
        fv = proc.features(decoded.text)
        if not len(fv):
            raise InputError(path, "no words to compare")
        fp, sketch, _ = proc.fingerprint_features(fv)
        vectors.append(fv)
        docs.append(
            FingerprintedDocument(
                path,
                fp,
                decoded.encoding,
                decoded.encoding_source,
                decoded.size,
                fv.token_count,
                len(fv),
                fv.content_hash,
                fv.chars,
                sketch,
            )
        )
    a, b = docs
    va, vb = vectors
    if params.weighting != "tfidf":
        tfidf_proc = _processor(replace(params, weighting="tfidf"))
        va, vb = (tfidf_proc.features(t) for t in texts)
    tfidf_a, tfidf_b = va.as_dict(), vb.as_dict()
    cosine = _cosine(tfidf_a, tfidf_b)
    sa, sb = set(tfidf_a), set(tfidf_b)
    jaccard = len(sa & sb) / len(sa | sb)
    distance = hamming(a.fingerprint, b.fingerprint)
    length_ratio = min(a.chars, b.chars) / max(a.chars, b.chars, 1)
    if a.content_hash == b.content_hash:
        near, reason = True, "identical normalised text"
    elif not options.verify:
        near = distance <= options.threshold
        reason = f"distance {distance} {'<=' if near else '>'} threshold {options.threshold}"
    elif distance > options.search_radius:
        near, reason = False, f"distance {distance} > verify radius {options.search_radius}"
    elif length_ratio < options.min_length_ratio:
        near = False
        reason = f"length ratio {length_ratio:.2f} < {options.min_length_ratio}"
    else:
        near = jaccard >= options.min_similarity
        reason = (
            f"distance {distance} <= verify radius {options.search_radius}, word-set Jaccard "
            f"{jaccard:.2f} {'>=' if near else '<'} {options.min_similarity}"
        )
    shared = sorted(sa & sb, key=lambda t: (-min(tfidf_a[t], tfidf_b[t]), t))[:top]
    only_a = sorted(sa - sb, key=lambda t: (-tfidf_a[t], t))[:top]
    only_b = sorted(sb - sa, key=lambda t: (-tfidf_b[t], t))[:top]

    def term(t: str) -> SharedTerm:
        return SharedTerm(t, round(tfidf_a.get(t, 0.0), 4), round(tfidf_b.get(t, 0.0), 4))

    return Comparison(
        a=a,
        b=b,
        distance=distance,
        simhash_similarity=1.0 - distance / BITS,
        cosine=round(cosine, 6),
        jaccard=round(jaccard, 6),
        threshold=options.threshold,
        near_duplicate=near,
        reason=reason,
        length_ratio=round(length_ratio, 4),
        shared_terms=tuple(term(t) for t in shared),
        only_a=tuple(term(t) for t in only_a),
        only_b=tuple(term(t) for t in only_b),
        settings=options.describe(proc.segmenter.backend),
    )
