"""The join at scale: candidate pairs, verification and clusters on a Dask cluster.

Candidates (the same set as ``simdup.join.verify.candidate_pairs``, so the same count):

* ``method="simhash"``: the Manku-style block tables of ``simdup.algorithms.index`` (the layout
  ``choose_layout`` picks for the search radius). Identical fingerprints are collapsed first
  (a shuffle by fingerprint gives every pair of exact copies, distance 0); each distinct
  fingerprint is exploded to one ``(table, masked key)`` row per table; the rows are shuffled
  by key, so every bucket lands whole in one partition, where ``index.table_pairs`` emits the
  bucket's pairs within the radius that this table owns (each pair comes from exactly one
  table, so there is nothing to de-duplicate); the pairs of distinct fingerprints are then
  expanded to the documents that carry them.
* ``method="minhash"``: each signature is exploded to one ``(band, key)`` row per band
  (``minhash.band_keys``), shuffled by key, paired within buckets
  (``minhash.equal_key_pairs``), and pairs found in several bands are dropped
  (``drop_duplicates``, one more shuffle).

Verification: the candidates are joined twice with the records (on ``i``, then on ``j``) and
``Verifier.judge``, the one rule, decides within each partition.

Clusters: connected components of the verified pairs by min-label propagation (each round,
every edge offers the smaller label of its two ends to both, every vertex keeps the smallest
offer and then takes its label's label, which halves chains; a round that lowers no label
ends it), on the driver when there are at most ``driver_edges`` pairs. Greedy centre
clustering never crosses a component (a centre takes only its neighbours) and visits the
documents of a component in the same relative order as the whole graph's, so each component
is clustered by ``join.local.build_clusters`` on a worker, and the clusters are numbered as
``build_clusters`` numbers them (largest first, then by representative): the result is the
local one, for ``--cluster centers`` and ``components`` alike.

Memory per worker: a partition holds at most ``rows_per_partition`` rows (default 200,000):
key rows are 20 to 28 bytes, candidate rows with both records' payload about 2 x (32-byte
content hash + 1 kB sketch) = 2.1 kB, so ~420 MB for the largest partition at the defaults;
above ``P2P_ROWS`` rows a shuffle is Dask's peer-to-peer one, which spills to disk.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from ..algorithms.clustering import connected_components
from ..algorithms.index import Layout, choose_layout, table_pairs
from ..algorithms.minhash import band_keys, choose_bands, equal_key_pairs
from ..join.local import build_clusters
from ..join.verify import VerifiedPair, Verifier, form_and_short_candidates, indexed_rows
from ..options import ScanOptions
from ..params import SHORT_TEXT_CHARS
from ..records import Cluster, FingerprintedDocument
from .cluster import worker_count

if TYPE_CHECKING:
    import pandas as pd

# At or below this many verified pairs, components are found on the driver (a union-find over
# 10^6 pairs takes about a second; a distributed round costs about that much).
DRIVER_EDGES = 1_000_000
ROWS_PER_PARTITION = 200_000
# Components per clustering task.
COMPONENTS_PER_TASK = 5_000
MAX_ROUNDS = 100


# Below this many rows a shuffle is done by tasks (lower fixed cost, ~0.3 s less per shuffle
# here); above, by Dask's peer-to-peer shuffle, whose memory stays bounded (it spills to disk).
P2P_ROWS = 2_000_000


def _config(rows: int = 0) -> Any:
    import dask

    return dask.config.set(
        {
            # Sketches and signatures are bytes: keep object columns as they are.
            "dataframe.convert-string": False,
            "dataframe.shuffle.method": "p2p" if rows >= P2P_ROWS else "tasks",
        }
    )


# ------------------------------------------------------------ partition functions (workers)


def _simhash_keys(part: pd.DataFrame, layout: Layout) -> pd.DataFrame:
    """One ``(table, key, fingerprint)`` row per table for each distinct fingerprint."""
    import pandas as pd

    fps = part["fingerprint"].to_numpy(np.uint64)
    masks = layout.block_masks()
    frames = []
    for t, table in enumerate(combinations(range(layout.blocks), layout.key_blocks)):
        mask = np.uint64(sum(masks[j] for j in table))
        frames.append(
            pd.DataFrame(
                {"table": np.full(fps.size, t, np.int32), "key": fps & mask, "fingerprint": fps}
            )
        )
    return pd.concat(frames, ignore_index=True) if frames else _empty_keys()


def _empty_keys() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {
            "table": np.empty(0, np.int32),
            "key": np.empty(0, np.uint64),
            "fingerprint": np.empty(0, np.uint64),
        }
    )


def _simhash_bucket_pairs(part: pd.DataFrame, layout: Layout, radius: int) -> pd.DataFrame:
    """The pairs of distinct fingerprints ``(fa, fb, distance)`` that the buckets of this
    partition own (whole buckets: the rows were shuffled by table and key)."""
    import pandas as pd

    tables = list(combinations(range(layout.blocks), layout.key_blocks))
    out_a, out_b, out_d = [], [], []
    for t, rows in part.groupby("table", sort=True):
        fps = rows["fingerprint"].to_numpy(np.uint64)
        a, b, d = table_pairs(fps, layout, tables[int(str(t))], radius)
        out_a.append(fps[a])
        out_b.append(fps[b])
        out_d.append(d)
    if not out_a:
        return pd.DataFrame(
            {
                "fa": np.empty(0, np.uint64),
                "fb": np.empty(0, np.uint64),
                "distance": np.empty(0, np.int64),
            }
        )
    return pd.DataFrame(
        {
            "fa": np.concatenate(out_a),
            "fb": np.concatenate(out_b),
            "distance": np.concatenate(out_d).astype(np.int64),
        }
    )


def _pairs_frame(i: np.ndarray, j: np.ndarray, distance: np.ndarray) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {
            "i": np.minimum(i, j).astype(np.int64),
            "j": np.maximum(i, j).astype(np.int64),
            "distance": distance.astype(np.int64),
        }
    )


def _expand(part: pd.DataFrame) -> pd.DataFrame:
    return _pairs_frame(
        part["ia"].to_numpy(np.int64), part["ib"].to_numpy(np.int64), part["distance"].to_numpy()
    )


def _copies_pairs(part: pd.DataFrame) -> pd.DataFrame:
    """Every pair of documents with the same fingerprint (distance 0); the rows were shuffled
    by fingerprint, so each group is whole here."""
    ids = part["id"].to_numpy(np.int64)
    pairs = equal_key_pairs(part["fingerprint"].to_numpy(np.uint64))
    i, j = ids[pairs[:, 0]], ids[pairs[:, 1]]
    return _pairs_frame(i, j, np.zeros(i.size, np.int64))


def _band_keys(part: pd.DataFrame, bands: int, rows: int, perms: int) -> pd.DataFrame:
    import pandas as pd

    n = len(part)
    raw = b"".join(part["minhash"].tolist())
    signatures = np.frombuffer(raw, dtype="<u8").reshape(n, perms)
    keys = band_keys(signatures, bands, rows)
    return pd.DataFrame(
        {
            "band": np.repeat(np.arange(bands, dtype=np.int32)[None, :], n, 0).ravel(),
            "key": keys.ravel(),
            "id": np.repeat(part["id"].to_numpy(np.int64), bands),
            "fingerprint": np.repeat(part["fingerprint"].to_numpy(np.uint64), bands),
        }
    )


def _band_bucket_pairs(part: pd.DataFrame) -> pd.DataFrame:
    out = [_pairs_frame(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64))]
    for _, rows in part.groupby("band", sort=True):
        pairs = equal_key_pairs(rows["key"].to_numpy(np.uint64))
        ids = rows["id"].to_numpy(np.int64)
        fps = rows["fingerprint"].to_numpy(np.uint64)
        a, b = pairs[:, 0], pairs[:, 1]
        out.append(_pairs_frame(ids[a], ids[b], np.bitwise_count(fps[a] ^ fps[b])))
    import pandas as pd

    return pd.concat(out, ignore_index=True)


def _document(
    content_hash: str, chars: int, sketch: bytes, minhash: bytes
) -> FingerprintedDocument:
    # What the verifier reads: the content hash, the length and the sketch.
    return FingerprintedDocument("", 0, "", "", 0, 0, 0, content_hash, int(chars), sketch, minhash)


def _verify_partition(part: pd.DataFrame, options: ScanOptions) -> pd.DataFrame:
    import pandas as pd

    verifier = Verifier(options)
    empty = b""
    found: list[VerifiedPair] = []
    columns = [
        part[c].tolist()
        for c in ("i", "j", "distance", "content_hash_a", "chars_a", "payload_a",
                  "content_hash_b", "chars_b", "payload_b")
    ]  # fmt: skip
    for i, j, d, ha, ca, pa, hb, cb, pb in zip(*columns, strict=True):
        a = _document(ha, ca, pa, empty)
        b = _document(hb, cb, pb, empty)
        pair = verifier.verified(i, j, a, b, int(d))
        if pair is not None:
            found.append(pair)
    return pd.DataFrame(
        {
            "i": np.array([p.i for p in found], np.int64),
            "j": np.array([p.j for p in found], np.int64),
            "distance": np.array([p.distance for p in found], np.int64),
            "similarity": np.array(
                [np.nan if p.similarity is None else p.similarity for p in found], np.float64
            ),
            "exact": np.array([p.exact for p in found], bool),
            # The block-move similarity decided (two short texts): the rule an audit names.
            "moved": np.array([p.moved for p in found], bool),
        }
    )


def _component_clusters(task: bytes, method: str, sketch_size: int) -> bytes:
    """``build_clusters`` over whole components (their union: no pair crosses two of them).

    The documents and pairs come pickled, and so go the clusters: Dask serialises a list
    element by element, which is ~100x slower than one pickle of records."""
    docs, pairs = pickle.loads(task)
    return pickle.dumps(build_clusters(docs, pairs, method, sketch_size), protocol=5)


# ------------------------------------------------------------ the join (driver)


def _meta(**columns: Any) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({name: np.empty(0, dtype) for name, dtype in columns.items()})


PAIRS_META = {"i": np.int64, "j": np.int64, "distance": np.int64}
VERIFIED_META = {**PAIRS_META, "similarity": np.float64, "exact": bool, "moved": bool}


def candidate_frame(records: Any, options: ScanOptions, n: int, npartitions: int) -> Any:
    """The candidate pairs ``(i, j, distance)`` of ``records`` (a Dask frame with ``id``,
    ``fingerprint`` and, for MinHash, ``minhash`` columns; ``n`` rows)."""
    import dask.dataframe as dd

    meta = _meta(**PAIRS_META)
    if options.method == "minhash":
        bands, rows = choose_bands(options.min_similarity, options.minhash_perms)
        keys = records[["id", "fingerprint", "minhash"]].map_partitions(
            _band_keys,
            bands,
            rows,
            options.minhash_perms,
            meta=_meta(band=np.int32, key=np.uint64, id=np.int64, fingerprint=np.uint64),
        )
        buckets = keys.shuffle(on=["band", "key"], npartitions=npartitions)
        pairs = buckets.map_partitions(_band_bucket_pairs, meta=meta)
        return pairs.drop_duplicates(subset=["i", "j"], split_out=npartitions)
    radius = options.search_radius
    fp_ids = records[["id", "fingerprint"]]
    distinct = fp_ids[["fingerprint"]].drop_duplicates(split_out=npartitions)
    layout = choose_layout(n, radius)
    keys = distinct.map_partitions(_simhash_keys, layout, meta=_empty_keys())
    buckets = keys.shuffle(on=["table", "key"], npartitions=npartitions)
    fpairs = buckets.map_partitions(
        _simhash_bucket_pairs,
        layout,
        radius,
        meta=_meta(fa=np.uint64, fb=np.uint64, distance=np.int64),
    )
    side_a = fp_ids.rename(columns={"id": "ia", "fingerprint": "fa"})
    side_b = fp_ids.rename(columns={"id": "ib", "fingerprint": "fb"})
    expanded = (
        fpairs.merge(side_a, on="fa", npartitions=npartitions)
        .merge(side_b, on="fb", npartitions=npartitions)
        .map_partitions(_expand, meta=meta)
    )
    copies = fp_ids.shuffle(on="fingerprint", npartitions=npartitions).map_partitions(
        _copies_pairs, meta=meta
    )
    return dd.concat([expanded, copies])


def verified_frame(candidates: Any, records: Any, options: ScanOptions, npartitions: int) -> Any:
    """The candidates that ``Verifier.judge`` finds near: ``(i, j, distance, similarity,
    exact)``, similarity NaN where the rule did not need it."""
    # Both methods judge pairs by the sketches (``Verifier.estimate``): the signatures are
    # not needed past the band keys.
    payload = "sketch"
    side = records[["id", "content_hash", "chars", payload]]
    side_a = side.rename(
        columns={
            "id": "i",
            "content_hash": "content_hash_a",
            "chars": "chars_a",
            payload: "payload_a",
        }
    )
    side_b = side.rename(
        columns={
            "id": "j",
            "content_hash": "content_hash_b",
            "chars": "chars_b",
            payload: "payload_b",
        }
    )
    joined = candidates.merge(side_a, on="i", npartitions=npartitions).merge(
        side_b, on="j", npartitions=npartitions
    )
    return joined.map_partitions(_verify_partition, options, meta=_meta(**VERIFIED_META))


def min_label_components(edges: Any, npartitions: int, max_rounds: int = MAX_ROUNDS) -> pd.Series:
    """Connected components of ``edges`` (a Dask frame of ``i``, ``j``): for each vertex, the
    smallest vertex of its component, by min-label propagation with pointer jumping."""
    import dask.dataframe as dd

    # Persisted, so that each round's plan starts from data on the workers, not from the
    # expression that made the edges (planning it again each round cost more than the round).
    edges = edges.persist()
    ends = dd.concat(
        [edges[["i"]].rename(columns={"i": "v"}), edges[["j"]].rename(columns={"j": "v"})]
    )
    labels = ends.drop_duplicates(split_out=npartitions)
    labels = labels.assign(label=labels["v"]).persist()
    # Labels only ever go down, so an unchanged sum (modulo 2^64) means no label changed while
    # fewer than 2^64 / (vertices x largest id) could wrap: beyond 4 x 10^9 vertices.
    total = int(labels["label"].sum().compute())
    for _ in range(max_rounds):
        with_i = edges.merge(
            labels.rename(columns={"v": "i", "label": "li"}), on="i", npartitions=npartitions
        )
        both = with_i.merge(
            labels.rename(columns={"v": "j", "label": "lj"}), on="j", npartitions=npartitions
        )
        low = both.assign(m=both["li"].where(both["li"] < both["lj"], both["lj"]))
        offers = dd.concat(
            [
                low[["i", "m"]].rename(columns={"i": "v"}),
                low[["j", "m"]].rename(columns={"j": "v"}),
            ]
        )
        new = offers.groupby("v").m.min(split_out=npartitions).reset_index()
        new = new.rename(columns={"m": "label"})
        jump = new.rename(columns={"v": "label", "label": "up"})
        jumped = new.merge(jump, on="label", how="left", npartitions=npartitions)
        lower = jumped["up"].where(jumped["up"] < jumped["label"], jumped["label"])
        labels = jumped.assign(label=lower.astype(np.int64))[["v", "label"]].persist()
        now = int(labels["label"].sum().compute())
        if now == total:
            break
        total = now
    else:  # pragma: no cover - a chain longer than 2^100
        raise RuntimeError("min-label propagation did not converge")
    frame = labels.compute()
    return frame.set_index("v")["label"]


class DaskJoin:
    """``simdup.join.Join`` on the cluster of ``client``: the same pairs and clusters as
    ``LocalJoin``."""

    def __init__(
        self,
        client: Any,
        *,
        driver_edges: int = DRIVER_EDGES,
        rows_per_partition: int = ROWS_PER_PARTITION,
    ) -> None:
        self.client = client
        self.driver_edges = driver_edges
        self.rows_per_partition = rows_per_partition

    def _workers(self) -> int:
        return max(1, worker_count(self.client))

    def _npartitions(self, rows: int) -> int:
        return max(self._workers(), math.ceil(rows / self.rows_per_partition))

    def records(self, docs: Sequence[FingerprintedDocument]) -> Any:
        """``docs`` as a Dask frame (``id`` is the position in ``docs``), its partitions
        scattered to the workers rather than embedded in the task graph."""
        import dask.dataframe as dd

        from .fingerprints import documents_frame

        size = -(-len(docs) // self._npartitions(len(docs)))
        parts = [
            documents_frame(docs[start : start + size], first_id=start)
            for start in range(0, len(docs), size)
        ]
        futures = self.client.scatter(parts, hash=False)
        return dd.from_delayed(futures, meta=documents_frame([]), verify_meta=False)

    def pairs(
        self, docs: Sequence[FingerprintedDocument], options: ScanOptions
    ) -> tuple[int, list[VerifiedPair]]:
        if len(docs) < 2:
            return 0, []
        if options.method == "minhash":
            keys = choose_bands(options.min_similarity, options.minhash_perms)[0]
        else:
            keys = choose_layout(len(docs), options.search_radius).tables
        rows = len(docs) * keys
        with _config(rows):
            records = self.records(docs)
            npartitions = self._npartitions(rows)
            # The documents the index proposes pairs among, as the local join's
            # (``indexed_rows``: with verification, short texts come from the short-text joins
            # below; the index would count and judge them a second time).
            chars = np.fromiter((d.chars for d in docs), dtype=np.int64, count=len(docs))
            long = indexed_rows(chars, options)
            indexed = records if long is None else records[records["chars"] >= SHORT_TEXT_CHARS]
            size = len(docs) if long is None else int(long.size)
            candidates = candidate_frame(indexed, options, size, npartitions).persist()
            verified = verified_frame(candidates, records, options, npartitions)
            # Documents of one form and short texts within the edit similarity: proposed here,
            # where the records are (a digest and a short form each); counted once with the
            # index's candidates, as the local join counts them.
            extra = form_and_short_candidates(docs, options)
            import pandas as pd

            proposed = pd.DataFrame({"i": extra.i, "j": extra.j})
            both = candidates[["i", "j"]].merge(proposed, on=["i", "j"]).shape[0]
            count, found, overlap = self.client.compute(
                [candidates.shape[0], verified, both], sync=True
            )
        found = found.sort_values(["i", "j"])
        out = [
            VerifiedPair(
                int(i), int(j), int(d), None if math.isnan(s) else float(s), bool(e), bool(m)
            )
            for i, j, d, s, e, m in zip(
                found["i"].tolist(),
                found["j"].tolist(),
                found["distance"].tolist(),
                found["similarity"].tolist(),
                found["exact"].tolist(),
                found["moved"].tolist(),
                strict=True,
            )
        ]
        seen = {(p.i, p.j) for p in out}
        out += [p for p in Verifier(options).pairs(docs, extra) if (p.i, p.j) not in seen]
        out.sort(key=lambda p: (p.i, p.j))
        return int(count) + len(extra) - int(overlap), out

    def components(self, n: int, pairs: Sequence[VerifiedPair]) -> list[list[int]]:
        """The connected components (lists of document positions) with at least one pair."""
        if len(pairs) <= self.driver_edges:
            flat = [(p.i, p.j) for p in pairs]
            return [members for _, members in connected_components(n, flat, [0] * n)]
        import dask.dataframe as dd
        import pandas as pd

        with _config(len(pairs)):
            edges = pd.DataFrame(
                {
                    "i": np.array([p.i for p in pairs], np.int64),
                    "j": np.array([p.j for p in pairs], np.int64),
                }
            )
            npartitions = self._npartitions(len(pairs))
            size = -(-len(edges) // npartitions)
            parts = [edges.iloc[start : start + size] for start in range(0, len(edges), size)]
            frame = dd.from_delayed(self.client.scatter(parts, hash=False), meta=edges.iloc[:0])
            labels = min_label_components(frame, npartitions)
        groups: dict[int, list[int]] = {}
        for v, label in zip(labels.index.tolist(), labels.tolist(), strict=True):
            groups.setdefault(int(label), []).append(int(v))
        return list(groups.values())

    def clusters(
        self,
        docs: Sequence[FingerprintedDocument],
        pairs: Sequence[VerifiedPair],
        method: str,
        sketch_size: int,
    ) -> list[Cluster]:
        if not pairs:
            return []
        components = self.components(len(docs), pairs)
        # Whole components per task, about COMPONENTS_PER_TASK of them; a document's place is
        # (task, position among the task's documents).
        where: dict[int, tuple[int, int]] = {}
        task_docs: list[list[FingerprintedDocument]] = []
        for c, members in enumerate(components):
            if c % COMPONENTS_PER_TASK == 0:
                task_docs.append([])
            current = task_docs[-1]
            for v in members:
                where[v] = (len(task_docs) - 1, len(current))
                current.append(docs[v])
        task_pairs: list[list[VerifiedPair]] = [[] for _ in task_docs]
        for p in pairs:
            t, a = where[p.i]
            _, b = where[p.j]
            task_pairs[t].append(replace(p, i=min(a, b), j=max(a, b)))
        tasks = [pickle.dumps(task, protocol=5) for task in zip(task_docs, task_pairs, strict=True)]
        futures = self.client.map(
            _component_clusters,
            self.client.scatter(tasks, hash=False),
            method=method,
            sketch_size=sketch_size,
            pure=False,
        )
        built = [c for batch in self.client.gather(futures) for c in pickle.loads(batch)]
        # build_clusters' numbering over the whole graph: largest first, then representative.
        built.sort(key=lambda c: (-len(c.members), c.representative))
        return [replace(c, id=n) for n, c in enumerate(built, 1)]
