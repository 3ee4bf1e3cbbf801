"""Prompts from a Parquet file, as the JSONL rows ``gov route`` reads.

Logs of prompts often live in Parquet. ``gov route --input FILE.parquet`` (either engine)
turns each row into one JSON line — every column kept, values JSON cannot hold written as
strings — and routes those lines exactly as it routes JSONL, so the output is the same rows
in the same order, and an error row's ``line`` is the Parquet row number (from 1).
pyarrow comes with the ``gov[ray]`` extra; it is imported only here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from ..errors import InputError, UsageError

INSTALL_HINT = "pip install 'gov[ray]' (or pyarrow)"


def is_parquet(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower() in (".parquet", ".pq")


def parquet_to_jsonl(path: str | os.PathLike[str], sink: IO[bytes], batch_rows: int = 4096) -> int:
    """Write every row of ``path`` to ``sink`` as a JSON line; return the row count."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"reading Parquet needs pyarrow: {INSTALL_HINT}") from None
    import orjson

    rows = 0
    try:
        reader = pq.ParquetFile(path)
        for batch in reader.iter_batches(batch_size=batch_rows):
            for record in batch.to_pylist():
                sink.write(orjson.dumps(record, default=str,
                                        option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS))
                rows += 1
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    return rows
