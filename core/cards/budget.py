"""How much of an orchestrator's context cards take, against the raw output they replace.

A card is bounded by its schema, so each step costs about the same (O(1)); raw agent
output grows with the work (O(n)). Sizes are counted in bytes of compact JSON, and in
tokens too when tiktoken and its encoding are at hand. tiktoken downloads encodings on
first use, so offline gov says plainly that it counts bytes only.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

ENCODING = "cl100k_base"
_LOAD_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Sizes:
    """Summary statistics of a list of sizes."""

    count: int
    total: int
    minimum: int
    median: float
    mean: float
    maximum: int

    @classmethod
    def of(cls, sizes: Sequence[int]) -> Sizes:
        if not sizes:
            return cls(0, 0, 0, 0.0, 0.0, 0)
        return cls(
            len(sizes),
            sum(sizes),
            min(sizes),
            float(statistics.median(sizes)),
            statistics.fmean(sizes),
            max(sizes),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "total": self.total,
            "min": self.minimum,
            "median": round(self.median, 1),
            "mean": round(self.mean, 1),
            "max": self.maximum,
        }


@dataclass(frozen=True, slots=True)
class TokenCounter:
    name: str
    count: Callable[[str], int]


def token_counter(timeout: float = _LOAD_TIMEOUT) -> tuple[TokenCounter | None, str]:
    """A tiktoken counter, or None and the plain reason tokens are not counted."""
    try:
        import tiktoken
    except ImportError:
        return None, "tiktoken is not installed, so gov counts bytes only"
    box: dict[str, Any] = {}

    def load() -> None:
        try:
            box["encoding"] = tiktoken.get_encoding(ENCODING)
        except Exception as exc:  # any failure means: no tokens
            box["error"] = exc

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout)
    encoding = box.get("encoding")
    if encoding is None:
        return None, (
            f"tiktoken's {ENCODING} encoding is not available (it is downloaded on first use "
            "and this machine seems offline), so gov counts bytes only"
        )

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return TokenCounter(ENCODING, count), ""


def _reductions(cards: Sequence[int], raws: Sequence[int]) -> list[float]:
    return [1 - card / raw for card, raw in zip(cards, raws, strict=True) if raw > 0]


def _unit_report(cards: Sequence[int], raws: Sequence[int] | None, agents: int, steps: int) -> dict[str, Any]:
    card_sizes = Sizes.of(cards)
    report: dict[str, Any] = {"cards": card_sizes.to_json()}
    if raws is None:
        return report
    raw_sizes = Sizes.of(raws)
    report["raw"] = raw_sizes.to_json()
    if len(raws) == len(cards) and cards:
        reductions = _reductions(cards, raws)
        if reductions:
            report["per_card_reduction"] = {
                "pairs": len(reductions),
                "median": round(statistics.median(reductions), 4),
                "mean": round(statistics.fmean(reductions), 4),
            }
    total_steps = agents * steps
    raw_total = round(raw_sizes.mean * total_steps)
    card_total = round(card_sizes.mean * total_steps)
    report["context_budget"] = {
        "agents": agents,
        "steps": steps,
        "raw_accumulation": raw_total,
        "cards": card_total,
        "savings": round(1 - card_total / raw_total, 4) if raw_total else 0.0,
    }
    return report


def measure(
    cards: Sequence[str],
    raws: Sequence[str] | None = None,
    *,
    agents: int = 5,
    steps: int = 20,
    counter: TokenCounter | None = None,
) -> dict[str, Any]:
    """Sizes of ``cards`` (compact JSON texts) and, when given, of the ``raws`` they replace.

    With raw outputs it adds the per-card reduction (when they pair one to one, in
    order) and the context an orchestrator spends on ``agents`` x ``steps`` outputs.
    """
    report: dict[str, Any] = {
        "bytes": _unit_report(
            [len(c.encode()) for c in cards],
            [len(r.encode()) for r in raws] if raws is not None else None,
            agents,
            steps,
        )
    }
    if counter is not None:
        report["tokens"] = _unit_report(
            [counter.count(c) for c in cards],
            [counter.count(r) for r in raws] if raws is not None else None,
            agents,
            steps,
        )
        report["encoding"] = counter.name
    return report
