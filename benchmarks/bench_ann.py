#!/usr/bin/env python3
"""Approximate search past 10^6 surfaces: usearch (HNSW) against LanceDB (IVF-PQ), measured.

Exact routing multiplies the prompt's vector with every surface: at 10^6 surfaces that is
1.5 GB of float32 read per prompt (about 0.1 s on two cores), so beyond that size gov
needs an approximate index. This measures both candidates on the same data:

* data: ``--count`` 384-d float32 unit vectors (default 10^6) drawn around ``--clusters``
  centres (documents written from a few thousand topics are not uniform on the sphere,
  and uniform random vectors are a needlessly hard, unrealistic case for any ANN index);
  queries are held-out vectors drawn the same way;
* truth: exact top-2 by brute force (cosine = dot product on unit vectors);
* per engine, in its own process so memory is its own: build time, index size on disk,
  then in a fresh process that opens the saved index: recall@2 against exact, one-query
  latency (p50, p95, single thread, as a route would ask) and peak RSS.

Neither engine is a gov dependency: run it with an interpreter that has them::

    python3 -m venv /tmp/ann-venv && /tmp/ann-venv/bin/pip install numpy usearch lancedb psutil
    /tmp/ann-venv/bin/python benchmarks/bench_ann.py --count 1000000 --work /tmp/ann
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384


def make_data(work: Path, count: int, queries: int, clusters: int, seed: int) -> None:
    """Write base.npy, queries.npy and truth.npy (exact top-2 ids) under ``work``."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, DIM), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)

    def draw(n: int) -> np.ndarray:
        out = np.empty((n, DIM), dtype=np.float32)
        for start in range(0, n, 100_000):
            m = min(100_000, n - start)
            chunk = centres[rng.integers(0, clusters, m)]
            chunk = chunk + 0.08 * rng.standard_normal((m, DIM), dtype=np.float32)
            out[start : start + m] = chunk / np.linalg.norm(chunk, axis=1, keepdims=True)
        return out

    base = np.lib.format.open_memmap(work / "base.npy", mode="w+", dtype=np.float32,
                                     shape=(count, DIM))
    for start in range(0, count, 100_000):
        base[start : start + min(100_000, count - start)] = draw(min(100_000, count - start))
    base.flush()
    query = draw(queries)
    np.save(work / "queries.npy", query)
    started = time.perf_counter()
    best = np.full((queries, 2), -np.inf, dtype=np.float32)
    ids = np.zeros((queries, 2), dtype=np.int64)
    for start in range(0, count, 200_000):
        sims = query @ np.asarray(base[start : start + 200_000]).T
        top = np.argpartition(-sims, 1, axis=1)[:, :2]
        vals = np.take_along_axis(sims, top, axis=1)
        both_vals = np.concatenate([best, vals], axis=1)
        both_ids = np.concatenate([ids, top + start], axis=1)
        order = np.argsort(-both_vals, axis=1)[:, :2]
        best = np.take_along_axis(both_vals, order, axis=1)
        ids = np.take_along_axis(both_ids, order, axis=1)
    np.save(work / "truth.npy", ids)
    exact_ms = []
    for row in query[:50]:
        t = time.perf_counter()
        for start in range(0, count, 200_000):
            np.asarray(base[start : start + 200_000]) @ row
        exact_ms.append((time.perf_counter() - t) * 1000)
    (work / "exact.json").write_text(json.dumps({
        "truth_seconds": round(time.perf_counter() - started, 1),
        "exact_query_ms_p50": round(statistics.median(exact_ms), 1)}))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_usearch(work: Path, params: dict[str, Any]) -> dict[str, Any]:
    from usearch.index import Index

    base = np.load(work / "base.npy", mmap_mode="r")
    index = Index(ndim=DIM, metric="ip", dtype=params.get("dtype", "f16"),
                  connectivity=params.get("connectivity", 16),
                  expansion_add=params.get("expansion_add", 128))
    started = time.perf_counter()
    for start in range(0, base.shape[0], 100_000):
        chunk = np.ascontiguousarray(base[start : start + 100_000])
        index.add(np.arange(start, start + chunk.shape[0]), chunk, threads=2)
    seconds = time.perf_counter() - started
    path = work / "usearch.index"
    index.save(str(path))
    return {"build_seconds": round(seconds, 1), "size_mb": round(path.stat().st_size / 2**20, 1),
            "build_rss_mb": round(rss_mb())}


def query_usearch(work: Path, params: dict[str, Any]) -> tuple[list[list[int]], list[float]]:
    from usearch.index import Index

    index = Index.restore(str(work / "usearch.index"), view=True)
    index.expansion_search = params.get("expansion_search", 64)
    queries = np.load(work / "queries.npy")
    found, times = [], []
    for row in queries:
        started = time.perf_counter()
        matches = index.search(row, 2, threads=1)
        times.append((time.perf_counter() - started) * 1000)
        found.append([int(k) for k in matches.keys])
    return found, times


def build_lancedb(work: Path, params: dict[str, Any]) -> dict[str, Any]:
    import lancedb
    import pyarrow as pa

    base = np.load(work / "base.npy", mmap_mode="r")
    folder = work / "lance"
    shutil.rmtree(folder, ignore_errors=True)
    db = lancedb.connect(str(folder))
    started = time.perf_counter()

    def batches() -> Any:
        for start in range(0, base.shape[0], 100_000):
            chunk = np.ascontiguousarray(base[start : start + 100_000])
            vectors = pa.FixedSizeListArray.from_arrays(pa.array(chunk.reshape(-1)), DIM)
            yield pa.record_batch([pa.array(np.arange(start, start + chunk.shape[0])), vectors],
                                  names=["id", "vector"])

    schema = pa.schema([("id", pa.int64()), ("vector", pa.list_(pa.float32(), DIM))])
    table = db.create_table("surfaces", data=batches(), schema=schema)
    loaded = time.perf_counter() - started
    table.create_index(metric="dot", vector_column_name="vector",
                       index_type=params.get("index_type", "IVF_PQ"),
                       num_partitions=params.get("partitions", 1024),
                       num_sub_vectors=params.get("sub_vectors", 96))
    seconds = time.perf_counter() - started
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return {"build_seconds": round(seconds, 1), "write_seconds": round(loaded, 1),
            "size_mb": round(size / 2**20, 1), "build_rss_mb": round(rss_mb())}


def query_lancedb(work: Path, params: dict[str, Any]) -> tuple[list[list[int]], list[float]]:
    import lancedb

    table = lancedb.connect(str(work / "lance")).open_table("surfaces")
    queries = np.load(work / "queries.npy")
    found, times = [], []
    for row in queries:
        started = time.perf_counter()
        result = (table.search(row, vector_column_name="vector").distance_type("dot")
                  .nprobes(params.get("nprobes", 20)).refine_factor(params.get("refine", 10))
                  .limit(2).select(["id"]).to_arrow())
        times.append((time.perf_counter() - started) * 1000)
        found.append(result.column("id").to_pylist())
    return found, times


ENGINES = {"usearch": (build_usearch, query_usearch), "lancedb": (build_lancedb, query_lancedb)}


def child(engine: str, phase: str, work: Path, params: dict[str, Any]) -> dict[str, Any]:
    build, query = ENGINES[engine]
    if phase == "build":
        return build(work, params)
    found, times = query(work, params)
    truth = np.load(work / "truth.npy")
    hits = sum(len(set(f) & set(t.tolist())) for f, t in zip(found, truth, strict=True))
    times.sort()
    return {"recall_at_2": round(hits / (2 * len(truth)), 4),
            "query_ms_p50": round(statistics.median(times), 2),
            "query_ms_p95": round(times[int(0.95 * (len(times) - 1))], 2),
            "query_rss_mb": round(rss_mb())}


def run_child(engine: str, phase: str, work: Path, params: dict[str, Any]) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", engine, phase, "--work", str(work),
               "--params", json.dumps(params)]
    done = subprocess.run(command, capture_output=True, text=True, check=False,
                          env={**os.environ, "OMP_NUM_THREADS": "2"})
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/gov-ann"))
    parser.add_argument("--engines", default="usearch,lancedb")
    parser.add_argument("--params", default="{}")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "PHASE"))
    args = parser.parse_args()
    params = json.loads(args.params)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.work, params)))
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    if not (args.work / "truth.npy").is_file():
        started = time.perf_counter()
        make_data(args.work, args.count, args.queries, args.clusters, args.seed)
        print(f"data: {args.count:,} vectors in {time.perf_counter() - started:.0f} s", flush=True)
    exact = json.loads((args.work / "exact.json").read_text())
    print(json.dumps({"engine": "exact (numpy, float32)", **exact}), flush=True)
    for engine in args.engines.split(","):
        built = run_child(engine, "build", args.work, params.get(engine, {}))
        queried = run_child(engine, "query", args.work, params.get(engine, {}))
        print(json.dumps({"engine": engine, **built, **queried}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
