"""Route a stream of rows: the one path every batch engine shares.

``gov route`` on stdin, the Ray Data actor pool and any other engine (Spark, Dask, a
queue worker) route rows through :func:`stream`, batched for one embedding call per
batch, and write :meth:`~gov.core.routing.answer.RouteAnswer.row` for each: the input's
fields passed through, plus ``routes``, ``confidence`` and, when the model could not
load, ``degraded``. A row that cannot be routed becomes an ``{"error": {"line",
"message"}}`` row at its position, never an exception, so a shard keeps "one output row
per input row" and a caller can re-join outputs to inputs by position.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .answer import RouteAnswer, error_row

if TYPE_CHECKING:
    from .router import Router

DEFAULT_BATCH_SIZE = 32


class Item(NamedTuple):
    """One input row: its line number, its decoded value, and why it cannot be routed
    (``None`` when it can)."""

    line: int
    value: Any
    problem: str | None


class Routed(NamedTuple):
    """One output: the input item, its answer (``None`` for an item with a problem), and
    when routing its batch began (a ``time.perf_counter`` reading, for latency figures)."""

    item: Item
    answer: RouteAnswer | None
    started: float

    def row(self) -> dict[str, Any]:
        """What ``gov route`` writes for this item."""
        if self.answer is None:
            return error_row(self.item.line, self.item.problem or "cannot route this row")
        return self.answer.row(self.item.value)


def row_problem(row: Any) -> str | None:
    """Why ``row`` cannot be routed (``None`` when it can)."""
    if not isinstance(row, dict):
        return "expected a JSON object with a 'prompt' field"
    if not isinstance(row.get("prompt"), str):
        return "field 'prompt' " + ("is missing" if "prompt" not in row else "must be a string")
    return None


def stream(router: Router, items: Iterable[Item], *, batch_size: int = DEFAULT_BATCH_SIZE,
           explain: bool = False) -> Iterator[Routed]:
    """Route ``items`` in order, ``batch_size`` prompts per embedding call; the adapter
    records telemetry (the router does not). ``explain`` adds each answer's explanation."""
    step = max(1, batch_size)
    batch: list[Item] = []
    for item in items:
        batch.append(item)
        if len(batch) >= step:
            yield from _route(router, batch, explain)
            batch = []
    if batch:
        yield from _route(router, batch, explain)


def _route(router: Router, batch: Sequence[Item], explain: bool) -> list[Routed]:
    started = time.perf_counter()
    prompts = [item.value["prompt"] for item in batch if item.problem is None]
    answers = iter(router.route_many(prompts, record=False, explain=explain) if prompts else ())
    return [Routed(item, next(answers) if item.problem is None else None, started)
            for item in batch]


def parse_jsonl(raw_lines: Iterable[bytes], first_line: int = 1) -> Iterator[Item]:
    """One item per non-blank JSONL line, as ``gov route`` reads stdin."""
    from ..jsonl import BOM, decode_line

    for number, raw in enumerate(raw_lines, start=first_line):
        stripped = raw.rstrip(b"\r\n")
        if number == 1 and stripped.startswith(BOM):
            stripped = stripped[len(BOM) :]
        if not stripped.strip():
            continue
        line = decode_line(stripped, number)
        if line.error is not None:
            problem = line.error
            if problem.startswith("invalid JSON") and stripped.lstrip()[:1].isalpha():
                problem += " (it reads as plain text: for one prompt per line, use --text)"
            yield Item(number, None, problem)
        else:
            yield Item(number, line.value, row_problem(line.value))


def parse_text(raw_lines: Iterable[bytes]) -> Iterator[Item]:
    """One item per non-blank plain-text line (``gov route --text``)."""
    for number, raw in enumerate(raw_lines, start=1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            yield Item(number, None, f"line is not valid UTF-8 (byte {exc.start})")
            continue
        if line.strip():
            yield Item(number, {"prompt": line}, None)


def route_rows(router: Router, rows: Sequence[Any], *, lines: Sequence[int] | None = None,
               batch_size: int = DEFAULT_BATCH_SIZE) -> list[dict[str, Any]]:
    """Route ``rows`` (dicts with a ``prompt``; other fields pass through), in order.

    ``lines`` numbers the rows for error rows (default: 1, 2, ...).
    """
    numbers = list(lines) if lines is not None else list(range(1, len(rows) + 1))
    if len(numbers) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(numbers)} line numbers")
    items = (Item(number, row, row_problem(row)) for number, row in zip(numbers, rows,
                                                                        strict=True))
    return [routed.row() for routed in stream(router, items, batch_size=batch_size)]


def route_jsonl(router: Router, raw_lines: Iterable[bytes], *, first_line: int = 1,
                batch_size: int = DEFAULT_BATCH_SIZE) -> Iterator[dict[str, Any]]:
    """Route raw JSONL lines (numbered from ``first_line``), one output row per record."""
    for routed in stream(router, parse_jsonl(raw_lines, first_line), batch_size=batch_size):
        yield routed.row()


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
