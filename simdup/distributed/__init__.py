"""Scale-out on Dask: the same scan on a cluster, with the same result as the local engines.

Nothing here imports Dask when ``simdup`` is imported: each module imports it inside the
functions that need it, after ``require_dask`` has checked that the ``simdup[dask]`` extra is
installed. The parts:

* ``cluster``: connect to a scheduler (``--scheduler``, ``DASK_SCHEDULER_ADDRESS``) or start
  a local cluster; check that every worker runs this simdup version;
* ``engine``: ``DaskEngine``, the ``simdup.engines.Engine`` of a cluster (partitions of sources
  fingerprinted on workers by ``DocumentProcessor``, as the local engines do);
* ``join``: ``DaskJoin`` (``simdup.join.Join``): block or band keys shuffled, pairs
  verified by ``Verifier.judge`` within partitions, connected components by min-label
  propagation, clusters by ``build_clusters`` per component;
* ``fingerprints``: fingerprint records as Parquet, with the algorithm version and parameters
  in the file metadata (``--write-fingerprints``, ``--fingerprints``);
* ``rows``: ``DaskRowEngine``, the ``engines.rows.RowEngine`` of a cluster (workers read
  partitions of datasets of rows themselves and fingerprint them, for ``dedup`` and
  ``scan --records``, or run a verb's worker on them, for ``decon`` and ``dedup --spans``);
* ``listing``: fsspec URLs (``s3://``, ``gs://``, ``hdfs://``...), listed by the workers;
* ``session``: what ``--engine dask`` puts together for one run.
"""

from __future__ import annotations

from ..errors import MissingExtraError

EXTRA = "dask"


def require_dask(feature: str = "--engine dask") -> None:
    """Raise ``MissingExtraError`` (with the ``pip install "simdup[dask]"`` line) unless Dask's
    distributed scheduler, its dataframes and pyarrow can be imported."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(feature, EXTRA) from exc


def require_parquet(feature: str) -> None:
    """Raise ``MissingExtraError`` unless pyarrow (part of the extra) can be imported."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(feature, EXTRA) from exc
