"""One stage of ``make bench-dask`` in this (fresh) process, on one engine, its figures written
as JSON: ``dask_bench.py`` runs it under ``measured.run_measured`` for each stage and engine.

    python benchmarks/dask_stage.py dedup --engine dask --workers 2 --data rows.jsonl \\
        --tmp DIR --out stage.json

Stages (each through the library call its verb makes, with the verb's defaults):

- ``dedup``: ``dedup_files`` of the rows (``simdup dedup``); the seconds of each step the verb
  names (read and fingerprint, finding candidates, verifying, writing);
- ``decon``: ``decontaminate`` of the rows against ``--items`` (``simdup decon``): index,
  scan, write;
- ``spans``: ``dedup_spans`` of the rows by paragraph (``simdup dedup --spans paragraph``):
  read and cut, decide and write;
- ``embed``: ``add_sentence_vectors`` of the files listed in ``--docs-list`` into a new index
  (``simdup index add --semantic``): read, cut and embed.

``--engine local`` is what the verb does on this machine (``--workers`` worker processes; the
embedding in this process, as ``index add --semantic`` does); ``--engine dask`` a local Dask
cluster of ``--workers`` processes of one thread, started here (its start is timed apart).
Besides the steps, the JSON holds this process's (the client's) peak RSS and its RSS once the
engine was ready, so that the client's memory per row can be read off."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STAGES = ("dedup", "decon", "spans", "embed")


class Steps:
    """Wall seconds of consecutive named steps: ``begin(name)`` ends the step before."""

    def __init__(self, first: str) -> None:
        self.seconds: dict[str, float] = {}
        self._name = first
        self._at = time.perf_counter()

    def begin(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[self._name] = round(self.seconds.get(self._name, 0.0) + now - self._at, 3)
        self._name, self._at = name, now

    def end(self) -> dict[str, float]:
        self.begin("")
        return self.seconds


def _rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


def _dedup(args: argparse.Namespace, engine: Any) -> dict[str, Any]:
    import simdup.rows.dedup
    from simdup.readers.rows import RowOptions
    from simdup.rows.dedup_files import dedup_files

    # How many candidate pairs the join proposed and how many were verified: the count that
    # grows faster than the rows (the verb reports only its decisions).
    counted: dict[str, int] = {}
    verified_pairs = simdup.rows.dedup.verified_pairs

    def counting(*args: Any, **kwargs: Any) -> Any:
        candidates, pairs = verified_pairs(*args, **kwargs)
        counted.update(candidates=candidates, verified=len(pairs))
        return candidates, pairs

    simdup.rows.dedup.verified_pairs = counting  # type: ignore[assignment]

    steps = Steps("read and fingerprint")
    named = {"finding candidates": "find candidates", "verifying": "verify", "writing": "write"}
    run = dedup_files(
        [args.data], str(args.tmp / "clean.jsonl"), rows=RowOptions(id_field="id"),
        engine=engine, stage=lambda name: steps.begin(named.get(name, name)),
    )  # fmt: skip
    return {"steps": steps.end(), "rows": len(run.decisions), "removed": run.decisions.removed,
            **counted}  # fmt: skip


def _decon(args: argparse.Namespace, engine: Any) -> dict[str, Any]:
    from simdup.algorithms.containment import ContainmentRule
    from simdup.readers.rows import RowOptions
    from simdup.rows.decon.items import EvalIndex, read_items

    started = time.perf_counter()
    evals = EvalIndex.build(read_items([str(args.items)]), ContainmentRule())
    built = time.perf_counter() - started
    from simdup.rows.decon.run import decontaminate

    result = decontaminate([args.data], evals, rows=RowOptions(id_field="id"),
                           output=str(args.tmp / "clean.jsonl"), engine=engine)  # fmt: skip
    steps = {"build item index": round(built, 3), "scan": result.seconds["scan"],
             "write": result.seconds["write"]}  # fmt: skip
    return {"steps": steps, "rows": result.rows_read, "items": len(evals.items),
            "contaminated": result.rows_contaminated}  # fmt: skip


def _spans(args: argparse.Namespace, engine: Any) -> dict[str, Any]:
    from simdup.readers.rows import RowOptions
    from simdup.rows.spans.run import dedup_spans

    steps = Steps("read and cut")
    result = dedup_spans([args.data], str(args.tmp / "clean.jsonl"), unit="paragraph",
                         rows=RowOptions(id_field="id"), engine=engine,
                         stage=lambda name: steps.begin("decide and write"))  # fmt: skip
    return {"steps": steps.end(), "rows": result.rows_read, "spans_removed": result.spans_removed}


def _embed(args: argparse.Namespace, tasks: Any) -> dict[str, Any]:
    from simdup.checking.meaning import add_sentence_vectors
    from simdup.store.index import Index

    paths = args.docs_list.read_text(encoding="utf-8").split("\n")
    started = time.perf_counter()
    with Index(str(args.tmp / "index.sqlite")) as index:
        done = add_sentence_vectors(index.sentence_vectors(), [p for p in paths if p],
                                    tasks=tasks)  # fmt: skip
    seconds = time.perf_counter() - started
    return {"steps": {"read, cut and embed": round(seconds, 3)}, "documents": done.documents,
            "sentences": done.sentences}  # fmt: skip


RUNNERS: dict[str, Callable[[argparse.Namespace, Any], dict[str, Any]]] = {
    "dedup": _dedup, "decon": _decon, "spans": _spans, "embed": _embed,
}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stage", choices=STAGES)
    ap.add_argument("--engine", choices=("local", "dask"), required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", help="the rows (uncompressed JSON Lines)")
    ap.add_argument("--items", type=Path, help="decon's evaluation items (JSON Lines)")
    ap.add_argument("--docs-list", type=Path, help="embed's files, one path a line")
    ap.add_argument("--tmp", type=Path, required=True, help="an empty folder for the outputs")
    ap.add_argument("--out", type=Path, required=True, help="the figures, as JSON")
    args = ap.parse_args()
    figures: dict[str, Any] = {"stage": args.stage, "engine": args.engine,
                               "workers": args.workers}  # fmt: skip
    session = None
    started = time.perf_counter()
    if args.engine == "dask":
        from simdup.distributed.session import DaskSession

        session = DaskSession(None, workers=args.workers)
        figures["cluster_start_seconds"] = round(time.perf_counter() - started, 3)
        engine = session.tasks() if args.stage == "embed" else session.row_engine()
    elif args.stage == "embed":
        from simdup.engines.tasks import LocalTasks

        engine = LocalTasks()
    else:
        from simdup.engines.rows import LocalRowEngine

        engine = LocalRowEngine(args.workers)
    figures["client_ready_rss_mb"] = round(_rss_mb(), 1)
    try:
        ran = time.perf_counter()
        figures.update(RUNNERS[args.stage](args, engine))
        figures["stage_seconds"] = round(time.perf_counter() - ran, 3)
    finally:
        if session is not None:
            session.close()
    # ru_maxrss of this process alone (KB on Linux): the workers are other processes.
    own = resource.getrusage(resource.RUSAGE_SELF)
    figures["client_peak_rss_mb"] = round(own.ru_maxrss / 1024, 1)
    # CPU seconds of the whole tree, cluster start included: the workers have been reaped
    # (the pool closed, the cluster stopped), so RUSAGE_CHILDREN holds them. On shared cores
    # a run's wall time depends on what else runs, its CPU time much less.
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
    figures["tree_cpu_seconds"] = round(cpu, 2)
    args.out.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
