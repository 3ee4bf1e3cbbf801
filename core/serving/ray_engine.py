"""Route a JSONL file on Ray Data: an actor pool that loads the index and model once each.

The input is cut into byte ranges of whole batches of records (the driver counts the lines
before each range, so error rows carry the same line numbers as ``gov route``).
Ray Data hands the ranges to a pool of actors; each actor opens the index and the query
encoder once, reads its range from the file, routes it with :func:`gov.core.routing.pipeline.route_jsonl`
(the function ``gov route`` uses) and returns the output lines as one bytes blob. The
driver writes the blobs in input order (``preserve_order``), so the output is the
single-process output byte for byte.

The records never pass through Arrow: reading JSONL with ``ray.data.read_json`` would
infer a schema, turning missing fields into nulls and reshaping nested values, and one
malformed line would fail the whole read. Actors read the file themselves, so on a
multi-machine cluster the input (and the index) must be at the same path on every node,
e.g. a shared file system. Ray is imported only here, only when this engine is chosen.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

DEFAULT_SHARD_RECORDS = 4096


@dataclass(frozen=True)
class Shard:
    """A byte range of the input that starts at a line start and ends after a newline."""

    start: int
    end: int
    first_line: int


def shards(path: str | os.PathLike[str], batch_size: int = 32,
           shard_records: int = DEFAULT_SHARD_RECORDS) -> list[Shard]:
    """Cut ``path`` into ranges of whole batches of records (non-blank lines).

    Each range holds a multiple of ``batch_size`` records, so every actor embeds and
    scores exactly the batches a single process would: a matrix product's last bits
    depend on how many prompts share it, and the outputs must match to the last digit.
    """
    from ..jsonl import BOM

    per_shard = max(1, shard_records // batch_size) * batch_size
    out: list[Shard] = []
    start = position = records = 0
    first = 1
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            position += len(raw)
            content = raw[len(BOM):] if number == 1 and raw.startswith(BOM) else raw
            if content.strip():
                records += 1
                if records == per_shard:
                    out.append(Shard(start, position, first))
                    start, first, records = position, number + 1, 0
    if position > start:
        out.append(Shard(start, position, first))
    return out


def read_shard(path: str | os.PathLike[str], shard: Shard) -> list[bytes]:
    """The lines of one shard, newlines kept, as ``for raw in stream`` would give them."""
    with open(path, "rb") as handle:
        handle.seek(shard.start)
        data = handle.read(shard.end - shard.start)
    return data.splitlines(keepends=True)


class ShardRouter:
    """A Ray Data actor: the index and model loaded once, then any number of shards."""

    def __init__(self, index_path: str, input_path: str, *, batch_size: int,
                 operating_point: str | None = None, lexical_only: bool = False,
                 threads: int | None = 1, blas_threads: int | None = None) -> None:
        started = time.perf_counter()
        if blas_threads:
            # The driver's BLAS thread count, not Ray's one per actor CPU: a matrix product's
            # last bits depend on how many threads share it, and rows must match gov route's.
            from threadpoolctl import threadpool_limits

            self._blas = threadpool_limits(limits=blas_threads, user_api="blas")
        from ..routing.indexes import load_index
        from ..routing.point import load_operating_point

        point = load_operating_point(operating_point) if operating_point else None
        self.index = load_index(index_path, operating_point=point, lexical_only=lexical_only)
        if threads and self.index.degraded is None:
            pin_encoder(self.index, threads)
        self.index.scorer.embed(["warm up"])  # load the model now, so its cost is measured here
        self.load_seconds = time.perf_counter() - started
        self.reported = False
        self.input_path = input_path
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        from ..jsonl import dumps
        from ..routing.pipeline import BatchCounts, route_jsonl

        blobs, counts_rows, errors, abstained, loads = [], [], [], [], []
        for start, end, first in zip(batch["start"], batch["end"], batch["first_line"],
                                     strict=True):
            shard = Shard(int(start), int(end), int(first))
            counts = BatchCounts()
            parts = []
            for row in route_jsonl(self.index, read_shard(self.input_path, shard),
                                   first_line=shard.first_line, batch_size=self.batch_size):
                counts.add(row)
                parts.append(dumps(row))
            blobs.append(b"".join(parts))
            counts_rows.append(counts.rows)
            errors.append(counts.errors)
            abstained.append(counts.abstained)
            loads.append(-1.0 if self.reported else self.load_seconds)
            self.reported = True
        import numpy as np

        out = np.empty(len(blobs), dtype=object)
        out[:] = blobs
        return {"out": out, "rows": np.array(counts_rows), "errors": np.array(errors),
                "abstained": np.array(abstained), "load_seconds": np.array(loads),
                "degraded": np.array([self.index.degraded_reason or ""] * len(blobs),
                                     dtype=object)}


def pin_encoder(index: Any, threads: int) -> None:
    """Give ``index`` a query encoder with ``threads`` intra-op threads (one per actor CPU).

    onnxruntime otherwise starts one thread per core in every actor, and N actors on N
    cores would fight over them.
    """
    from ..encode import bundle
    from ..encode.embedding import OnnxEncoder
    from ..errors import ModelError

    spec = bundle.spec(index.model_id)
    if spec.runtime != "onnx":
        return
    with contextlib.suppress(ModelError):  # the index's own loader degrades and says why
        index.use_encoder(OnnxEncoder(threads=threads, spec=spec))


@dataclass
class RayRun:
    """What a Ray run did: rows, errors, abstentions, per-actor load seconds, wall time."""

    rows: int = 0
    errors: int = 0
    abstained: int = 0
    shards: int = 0
    load_seconds: list[float] = field(default_factory=list)
    degraded: str | None = None
    seconds: float = 0.0


def available() -> bool:
    """Whether Ray Data can be imported (the ``gov[ray]`` extra)."""
    try:
        import ray.data  # noqa: F401
    except ImportError:
        return False
    return True


def route_file(index_path: str | os.PathLike[str], input_path: str | os.PathLike[str],
               output: IO[bytes], *, concurrency: int = 2, batch_size: int = 32,
               shard_records: int | None = None, operating_point: str | None = None,
               lexical_only: bool = False, cpus_per_actor: float = 1.0,
               address: str | None = None, on_row: Callable[[int], None] | None = None
               ) -> RayRun:
    """Route the JSONL file ``input_path`` on a Ray actor pool, writing JSONL to ``output``.

    Connects to ``address`` (or ``$RAY_ADDRESS``), else starts a local Ray; a Ray already
    initialised in this process is used as it is. ``shard_records`` defaults to a quarter
    of each actor's share (at most ``DEFAULT_SHARD_RECORDS``), so every actor has work.
    """
    import logging

    import ray

    began = time.perf_counter()
    # Ray Data logs each execution at INFO on stderr; gov's stderr is for gov's own notices.
    logging.getLogger("ray").setLevel(logging.WARNING)
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
    try:
        run = _run(index_path, input_path, output, concurrency=concurrency,
                   batch_size=batch_size, shard_records=shard_records,
                   operating_point=operating_point, lexical_only=lexical_only,
                   cpus_per_actor=cpus_per_actor, on_row=on_row)
    finally:
        if started_here:
            ray.shutdown()
    run.seconds = time.perf_counter() - began
    return run


def _run(index_path: str | os.PathLike[str], input_path: str | os.PathLike[str],
         output: IO[bytes], *, concurrency: int, batch_size: int, shard_records: int | None,
         operating_point: str | None, lexical_only: bool, cpus_per_actor: float,
         on_row: Callable[[int], None] | None) -> RayRun:
    import logging

    import ray.data

    logging.getLogger("ray.data").setLevel(logging.WARNING)  # set up by importing ray.data
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    source = str(Path(input_path).resolve())
    if shard_records is None:
        with open(source, "rb") as handle:
            lines = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
        shard_records = min(DEFAULT_SHARD_RECORDS, max(batch_size, lines // (4 * concurrency)))
    pieces = shards(source, batch_size, shard_records)
    run = RayRun(shards=len(pieces))
    if not pieces:
        return run
    items = [{"start": s.start, "end": s.end, "first_line": s.first_line} for s in pieces]
    threads = max(1, int(cpus_per_actor))
    blas_threads = _blas_threads()
    dataset = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
        ShardRouter,
        fn_constructor_kwargs={"index_path": str(Path(index_path).resolve()),
                               "input_path": source, "batch_size": batch_size,
                               "operating_point": operating_point,
                               "lexical_only": lexical_only, "threads": threads,
                               "blas_threads": blas_threads},
        batch_size=1,
        num_cpus=cpus_per_actor,
        compute=ray.data.ActorPoolStrategy(size=concurrency),
        batch_format="numpy",
    )
    for batch in _ordered(dataset):
        for blob, rows, errors, abstained, load, degraded in zip(
                batch["out"], batch["rows"], batch["errors"], batch["abstained"],
                batch["load_seconds"], batch["degraded"], strict=True):
            output.write(blob)
            run.rows += int(rows)
            run.errors += int(errors)
            run.abstained += int(abstained)
            if load >= 0:
                run.load_seconds.append(float(load))
            if degraded:
                run.degraded = str(degraded)
            if on_row is not None:
                on_row(int(rows))
    output.flush()
    return run


def _blas_threads() -> int | None:
    """How many threads this process's BLAS uses (what ``gov route`` here would use)."""
    try:
        import numpy  # noqa: F401  (loads the BLAS that threadpoolctl reports)
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    counts = [int(pool["num_threads"]) for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return max(counts) if counts else None


def _ordered(dataset: Any) -> Iterator[dict[str, Any]]:
    yield from dataset.iter_batches(batch_size=None, batch_format="numpy")
