"""Latency histograms in fixed memory: log-spaced bins, percentiles within 1%.

A month of hook events costs the same memory as an hour of them: each latency lands in
one of a fixed set of bins, and a percentile is read off the bins.
"""

from __future__ import annotations

import math
from typing import Any

# Latency bins: bin 0 holds [0, LOW_MS]; bin i >= 1 holds [LOW_MS*R^(i-1), LOW_MS*R^i).
# A percentile is reported as its bin's geometric middle, so its relative error is at
# most sqrt(R) - 1 (just under 1%); the top bin also holds everything above HIGH_MS, and
# the minimum and maximum are kept exactly.
LOW_MS = 1e-3
HIGH_MS = 1e7
RATIO = 1.02
BINS = math.ceil(math.log(HIGH_MS / LOW_MS) / math.log(RATIO)) + 1
MAX_RELATIVE_ERROR = math.sqrt(RATIO) - 1

# Coarse buckets (ms) for the latency picture.
PICTURE_EDGES = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0,
                 5000.0, 10000.0, math.inf)


INV_LOW = 1.0 / LOW_MS
INV_LOG_R = 1.0 / math.log(RATIO)
TOP_BIN = BINS - 1


class LatencyHistogram:
    """Counts of latencies in fixed log-spaced bins, plus the exact minimum and maximum."""

    __slots__ = ("counts", "high", "low", "n")

    def __init__(self) -> None:
        self.counts = [0] * BINS
        self.n = 0
        self.low = math.inf
        self.high = -math.inf

    @staticmethod
    def bin_of(ms: float) -> int:
        if ms <= LOW_MS:
            return 0
        return min(int(math.log(ms * INV_LOW) * INV_LOG_R) + 1, TOP_BIN)

    @staticmethod
    def middle(i: int) -> float:
        """The value that stands for bin ``i``: its geometric middle."""
        if i == 0:
            return LOW_MS / 2
        return LOW_MS * RATIO ** (i - 1) * math.sqrt(RATIO)

    def add(self, ms: float) -> None:
        self.counts[self.bin_of(ms)] += 1
        self.n += 1
        self.low = min(self.low, ms)
        self.high = max(self.high, ms)

    def quantile(self, q: float) -> float | None:
        """The nearest-rank ``q`` quantile, within :data:`MAX_RELATIVE_ERROR`; None if empty."""
        if not self.n:
            return None
        rank = max(1, math.ceil(q * self.n))
        if rank >= self.n:
            return self.high  # the extremes are kept exactly
        if rank == 1:
            return self.low
        seen = 0
        for i, count in enumerate(self.counts):
            seen += count
            if seen >= rank:
                return min(max(self.middle(i), self.low), self.high)
        return self.high  # pragma: no cover - the counts always add up to n

    def buckets(self, edges: tuple[float, ...] = PICTURE_EDGES) -> list[dict[str, Any]]:
        """Counts regrouped into coarse ``edges`` (each bin goes where its middle falls)."""
        totals = [0] * (len(edges) - 1)
        for i, count in enumerate(self.counts):
            if count:
                middle = self.middle(i)
                for j in range(len(totals)):
                    if middle < edges[j + 1]:
                        totals[j] += count
                        break
        used = [j for j, count in enumerate(totals) if count]
        if not used:
            return []
        return [
            {"from_ms": edges[j], "to_ms": None if math.isinf(edges[j + 1]) else edges[j + 1],
             "count": totals[j]}
            for j in range(used[0], used[-1] + 1)
        ]

    def summary(self) -> dict[str, Any]:
        return {
            "count": self.n,
            "p50": round_ms(self.quantile(0.50)),
            "p90": round_ms(self.quantile(0.90)),
            "p99": round_ms(self.quantile(0.99)),
            "max": round_ms(self.high) if self.n else None,
        }


def round_ms(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
