"""Route a batch of rows: the one entry point every engine shares.

``gov route`` on stdin, the Ray Data actor pool and any other engine (Spark, Dask, a
queue worker) call :func:`route_rows` with rows as dicts and get back exactly the rows
``gov route`` writes: the input's fields passed through, plus ``routes``, ``confidence``
and, when the model could not load, ``degraded``. A row that cannot be routed becomes an
``{"error": {"line", "message"}}`` row at its position, never an exception, so a shard
keeps "one output row per input row" and a caller can re-join outputs to inputs by
position. :func:`route_jsonl` does the same from raw JSONL lines, parsing them exactly
as the command does (line numbers, byte-order mark, blank lines).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gov.core.routing.router import Index
    from gov.core.routing.select import RouteResult

GOV_KEYS = ("routes", "degraded", "confidence", "error")
DEFAULT_BATCH_SIZE = 32


def row_problem(row: Any) -> str | None:
    """Why ``row`` cannot be routed (``None`` when it can)."""
    if not isinstance(row, dict):
        return "expected a JSON object with a 'prompt' field"
    if not isinstance(row.get("prompt"), str):
        return "field 'prompt' " + ("is missing" if "prompt" not in row else "must be a string")
    return None


def output_row(record: dict[str, Any], result: RouteResult) -> dict[str, Any]:
    """The routed row: ``record`` without gov's own keys, then gov's answer."""
    out = {key: value for key, value in record.items() if key not in GOV_KEYS}
    out["routes"] = [route.to_json() for route in result.routes]
    if result.degraded:
        out["degraded"] = result.degraded
    if result.confidence is not None:
        out["confidence"] = round(result.confidence, 4)
    return out


def error_row(line: int, message: str) -> dict[str, Any]:
    return {"error": {"line": line, "message": message}}


def route_rows(index: Index, rows: Sequence[Any], *, lines: Sequence[int] | None = None,
               batch_size: int = DEFAULT_BATCH_SIZE) -> list[dict[str, Any]]:
    """Route ``rows`` (dicts with a ``prompt``; other fields pass through), in order.

    ``lines`` numbers the rows for error rows (default: 1, 2, ...); prompts are embedded
    ``batch_size`` at a time.
    """
    numbers = list(lines) if lines is not None else list(range(1, len(rows) + 1))
    if len(numbers) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(numbers)} line numbers")
    return _route(index, rows, [row_problem(row) for row in rows], numbers, batch_size)


def _route(index: Index, rows: Sequence[Any], problems: Sequence[str | None],
           numbers: Sequence[int], batch_size: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    step = max(1, batch_size)
    for start in range(0, len(rows), step):
        chunk = range(start, min(start + step, len(rows)))
        prompts = [rows[i]["prompt"] for i in chunk if problems[i] is None]
        results = iter(index.route_many(prompts) if prompts else ())
        for i in chunk:
            problem = problems[i]
            out.append(output_row(rows[i], next(results)) if problem is None
                       else error_row(numbers[i], problem))
    return out


@dataclass
class BatchCounts:
    """What a caller reports at the end: rows written, error rows, rows that routed nothing."""

    rows: int = 0
    errors: int = 0
    abstained: int = 0

    def add(self, row: dict[str, Any]) -> None:
        self.rows += 1
        if "error" in row:
            self.errors += 1
        elif not row.get("routes"):
            self.abstained += 1


def parse_jsonl(raw_lines: Iterable[bytes], first_line: int = 1
                ) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, problem)`` per non-blank line, as ``gov route`` reads stdin."""
    from gov.core.jsonl import BOM, decode_line

    for number, raw in enumerate(raw_lines, start=first_line):
        stripped = raw.rstrip(b"\r\n")
        if number == 1 and stripped.startswith(BOM):
            stripped = stripped[len(BOM) :]
        if not stripped.strip():
            continue
        line = decode_line(stripped, number)
        if line.error is not None:
            yield number, None, line.error
        else:
            yield number, line.value, row_problem(line.value)


def route_jsonl(index: Index, raw_lines: Iterable[bytes], *, first_line: int = 1,
                batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[dict[str, Any]]:
    """Route raw JSONL lines (numbered from ``first_line``), one output row per record."""
    pending: list[tuple[int, Any, str | None]] = []
    for item in parse_jsonl(raw_lines, first_line):
        pending.append(item)
        if len(pending) >= batch_size:
            yield from _route_parsed(index, pending, batch_size)
            pending = []
    if pending:
        yield from _route_parsed(index, pending, batch_size)


def _route_parsed(index: Index, items: list[tuple[int, Any, str | None]], batch_size: int
                  ) -> list[dict[str, Any]]:
    return _route(index, [value for _n, value, _p in items], [p for _n, _v, p in items],
                  [n for n, _v, _p in items], batch_size)
