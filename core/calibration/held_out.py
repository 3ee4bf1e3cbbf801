"""A few-label step judged on held-out prompts (``calibration/few.py``): which prompts
route, and rightly, under a point over scores computed once (:func:`first_routes`, the
selection of a route alone), and one step's paired change against another, top-1 on the
governed prompts less false alarms on the ungoverned, with its standard error (:func:`gain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..routing.select import route_many

if TYPE_CHECKING:
    from ..routing.background import Background
    from ..routing.point import OperatingPoint
    from .scores import Scores

# How much a false alarm costs against a top-1 hit when steps are compared.
FA_WEIGHT = 1.0


@dataclass
class Routed:
    """Each prompt's first route under one point: routed at all, and to an expected document."""

    routed: NDArray[np.bool_]
    correct: NDArray[np.bool_]


def first_routes(point: OperatingPoint, scores: Scores, expected: NDArray[np.bool_],
                 background: Background | None) -> Routed:
    """Which prompts route, and rightly, under ``point``: the selection of a route (the
    background gate, the confidence floor, the floors: :func:`~gov.core.routing.select.route_many`)
    over scores computed once."""
    pooled = scores.with_pool(point.semantic_pool, point.body_surfaces)
    many, routed = route_many(pooled.lexical, pooled.semantic, point, pooled.learned,
                              pooled.families, background, pooled.remarks)
    rows = np.arange(expected.shape[0])
    correct = routed & np.asarray(expected[rows, np.maximum(many.top1, 0)], dtype=bool)
    return Routed(routed, correct)


@dataclass
class Gain:
    """One step's held-out change, prompt by prompt: top-1 on the governed, false alarms on
    the ungoverned, and the combined utility with its standard error."""

    top1: float
    top1_error: float
    false_alarms: float
    utility: float
    error: float


def gain(after: Routed, before: Routed, positive: NDArray[np.bool_]) -> Gain:
    """``after`` against ``before`` on the same prompts (paired)."""
    negative = ~positive
    hits = after.correct[positive].astype(float) - before.correct[positive].astype(float)
    alarms = after.routed[negative].astype(float) - before.routed[negative].astype(float)

    def mean_error(values: NDArray[np.float64]) -> tuple[float, float]:
        if values.size == 0:
            return 0.0, 0.0
        spread = float(values.std(ddof=1)) if values.size > 1 else 0.0
        return float(values.mean()), spread / math.sqrt(values.size)

    top1, top1_error = mean_error(hits)
    fa, fa_error = mean_error(alarms)
    return Gain(top1, top1_error, fa, top1 - FA_WEIGHT * fa,
                math.sqrt(top1_error ** 2 + (FA_WEIGHT * fa_error) ** 2))
