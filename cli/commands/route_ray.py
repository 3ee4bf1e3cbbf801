"""``gov route --engine ray``: the same rows as ``gov route``, routed by a Ray actor pool.

Kept apart from ``cli/route.py`` so that Ray (and this module) load only on this path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from gov.core.errors import UsageError

from .. import conventions
from ..resolve import open_index


@contextlib.contextmanager
def _input_file(path: Path | None) -> Iterator[Path]:
    """``path``, or stdin (or a Parquet file's rows) copied to a temporary JSONL file: actors
    read byte ranges of a file."""
    from gov.core.serving.parquet_input import is_parquet, parquet_to_jsonl

    if path is not None:
        if not path.is_file():
            raise UsageError(f"--input {path}: no such file")
        if not is_parquet(path):
            yield path
            return
    fd, name = tempfile.mkstemp(prefix="gov-route-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as spool:
            if path is not None:
                parquet_to_jsonl(path, spool)
            else:
                shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
        yield Path(name)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def route_on_ray(*, prompt: str | None, text: bool, out_format: str, index: Path | None,
                 corpus: list[Path] | None, operating_point: Path | None, lexical_only: bool,
                 input_path: Path | None, actors: int, batch_size: int, exit_status: bool,
                 fail_fast: bool) -> int:
    """Route JSONL on Ray and write the rows ``gov route`` would, in the same order."""
    if prompt is not None or text:
        raise UsageError("--engine ray routes JSONL (--input FILE or stdin), not a PROMPT or --text")
    if out_format != "jsonl":
        raise UsageError("--engine ray writes jsonl; drop --format or use --format jsonl")
    if fail_fast:
        raise UsageError("--engine ray routes shards in parallel; --on-error fail needs the "
                         "local engine")
    from gov.core.serving import ray_engine

    if not ray_engine.available():
        raise UsageError("--engine ray needs Ray Data: pip install 'gov[ray]'")
    loaded = open_index(index, corpus, operating_point, lexical_only)
    assert loaded.path is not None
    with _input_file(input_path) as source:
        run = ray_engine.route_file(
            loaded.path, source, sys.stdout.buffer, concurrency=actors, batch_size=batch_size,
            operating_point=str(operating_point.resolve()) if operating_point else None,
            lexical_only=lexical_only)
    loads = ", ".join(f"{seconds:.1f}" for seconds in sorted(run.load_seconds)) or "none"
    conventions.notice(f"ray: {run.rows} rows in {run.seconds:.1f} s, {run.shards} shards on "
                       f"{actors} actors; index and model load per actor (s): {loads}")
    if run.degraded:
        conventions.warn(f"routing was lexical-only: {run.degraded}")
    if run.errors:
        conventions.error_line(f"{run.errors} input line(s) were malformed; see the error rows")
        return 1
    return 1 if exit_status and run.abstained else 0
