"""The confidence that the top route is right: features of the scores, and a logistic model.

Calibration fits the model's weights on labelled prompts (``gov calibrate``); routing
applies them and abstains below the point's ``min_confidence``. Features are computed
for a matrix of prompts at once; a route passes one row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# The order is fixed and only ever extended at the end, so a point with fewer confidence
# weights than features keeps its meaning.
FEATURES = ("semantic_top", "semantic_margin", "lexical_top", "lexical_margin", "learned_top",
            "learned_margin", "fused_top", "fused_margin", "learned_mass", "log_mass_fused")


def _top_and_margin(scores: NDArray[np.floating] | None, top: NDArray[np.intp]
                    ) -> tuple[FloatArray, FloatArray]:
    """Each row's score at ``top`` and its margin over the row's best other score."""
    n = top.shape[0]
    if scores is None:
        return np.zeros(n), np.zeros(n)
    rows = np.arange(n)
    safe = np.maximum(top, 0)
    value = scores[rows, safe].astype(np.float64)
    if scores.shape[1] < 2:
        return value, value.copy()
    others = scores.astype(np.float64, copy=True)
    others[rows, safe] = -np.inf
    return value, value - others.max(axis=1)


def features(lexical: FloatArray, semantic: NDArray[np.floating] | None,
             learned: FloatArray | None, fused: FloatArray, top: NDArray[np.intp]
             ) -> FloatArray:
    """One row of :data:`FEATURES` per prompt (rows of 2-d score matrices), for the
    candidate ``top[i]`` of prompt *i*; rows whose ``top`` is -1 (no candidate) are 0."""
    columns: list[FloatArray] = []
    for signal in (semantic, lexical, learned, fused):
        columns.extend(_top_and_margin(signal, top))
    if learned is not None:
        # The probability the classifier leaves for any document (1 without a "none" class),
        # and its log plus the log of the fused top: "a document at all" and "this one".
        mass = learned.sum(axis=1)
        columns.append(mass)
        columns.append(np.log(np.maximum(mass, 1e-6)) + np.log(np.maximum(columns[6], 1e-6)))
    else:
        columns.extend((np.zeros(top.shape[0]), np.zeros(top.shape[0])))
    out = np.stack(columns, axis=1)
    out[top < 0] = 0.0
    return out


def logistic_many(weights: Sequence[float], features: FloatArray) -> FloatArray:
    """The model's probability per row (weights: intercept, then one per feature used)."""
    z = weights[0] + features[:, : len(weights) - 1] @ np.asarray(weights[1:], dtype=np.float64)
    return np.where(z < -60, 0.0, 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60))))


def logistic(weights: Sequence[float], features: Sequence[float]) -> float:
    """The model's probability for one row of features."""
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], features, strict=False))
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
