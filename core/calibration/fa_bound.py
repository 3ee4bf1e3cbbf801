"""The false-alarm promise of a few labels: a rate seen on the ungoverned labels counts as
kept only when its one-sided Clopper-Pearson upper bound (``CONFIDENCE``) is under
``--max-fa``; how many false alarms the bound allows, and how many more ungoverned labels
it would take (``calibration/few.py`` and ``gov calibrate``'s summary).
"""

from __future__ import annotations

import math

# The one-sided level of the false-alarm bound.
CONFIDENCE = 0.90
LEVEL = f"{CONFIDENCE:.0%}"  # as the lines that state the promise say it


def fa_upper(false_alarms: int, negatives: int, confidence: float = CONFIDENCE) -> float:
    """The one-sided Clopper-Pearson upper bound on a false-alarm rate seen as
    ``false_alarms`` of ``negatives``: 1.0 when nothing was seen."""
    if negatives <= 0 or false_alarms >= negatives:
        return 1.0
    tail = 1.0 - confidence
    if false_alarms == 0:
        return float(1.0 - tail ** (1.0 / negatives))

    def cdf(p: float) -> float:  # P(X <= false_alarms) for X ~ Binomial(negatives, p)
        logs = [math.lgamma(negatives + 1) - math.lgamma(i + 1) - math.lgamma(negatives - i + 1)
                + i * math.log(p) + (negatives - i) * math.log1p(-p)
                for i in range(false_alarms + 1)]
        top = max(logs)
        return math.exp(top) * sum(math.exp(v - top) for v in logs)

    low, high = false_alarms / negatives, 1.0 - 1e-12
    for _ in range(60):
        middle = (low + high) / 2
        if cdf(middle) > tail:
            low = middle
        else:
            high = middle
    return high


def allowed_false_alarms(negatives: int, max_fa: float,
                         confidence: float = CONFIDENCE) -> int | None:
    """The most false alarms among ``negatives`` that still keep ``max_fa`` at the bound
    (``None``: even none would not)."""
    if negatives <= 0 or fa_upper(0, negatives, confidence) > max_fa:
        return None
    allowed = 0
    while allowed + 1 < negatives and fa_upper(allowed + 1, negatives, confidence) <= max_fa:
        allowed += 1
    return allowed


def negatives_needed(negatives: int, false_alarms: int, max_fa: float,
                     confidence: float = CONFIDENCE) -> int | None:
    """How many more ungoverned labels, routed at the rate seen so far, would let the bound
    keep ``max_fa`` (0: it already does; ``None``: at that rate no number would)."""
    rate = false_alarms / negatives if negatives else 0.0
    if rate >= max_fa:
        return None

    def kept(total: int) -> bool:
        return fa_upper(round(rate * total), total, confidence) <= max_fa

    if negatives and kept(negatives):
        return 0
    high = max(negatives, 1)
    while not kept(high):
        high *= 2
        if high > 1_000_000:
            return None
    low = max(negatives, 0)
    while high - low > 1:
        middle = (low + high) // 2
        if kept(middle):
            high = middle
        else:
            low = middle
    return high - negatives
