"""Model fits calibration needs: the document classifier, the confidence model, and the
fusion weights.

The classifier (many classes, hundreds of dimensions) and the fusion weights use
scikit-learn, imported only here: a route never imports it. The confidence model has a
handful of standardised features and is fitted once per grid row, so it is a few lines of
Newton's method that take milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .scores import Scores



def fit_confidence(features: NDArray[np.float64], correct: NDArray[np.bool_]
                    ) -> tuple[float, ...] | None:
    """Logistic model of "the top route is right", in raw-feature weights (plain math later)."""
    if correct.all() or not correct.any():
        return None
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    usable = scale > 1e-9
    standard = np.zeros_like(features)
    standard[:, usable] = (features[:, usable] - mean[usable]) / scale[usable]
    fitted = logistic_fit(standard, correct.astype(np.float64))
    coef = np.zeros(features.shape[1])
    coef[usable] = fitted[1:][usable] / scale[usable]
    intercept = float(fitted[0]) - float(np.dot(coef, mean))
    return (round(intercept, 6), *(round(float(c), 6) for c in coef))


def logistic_fit(x: NDArray[np.float64], y: NDArray[np.float64], penalty: float = 1.0,
                  iterations: int = 50) -> NDArray[np.float64]:
    """L2-penalised logistic regression by Newton's method: intercept first, then weights.

    A handful of standardised features needs no solver library, and this runs once per
    grid row, so it has to take milliseconds.
    """
    design = np.hstack([np.ones((x.shape[0], 1)), x])
    weights = np.zeros(design.shape[1])
    ridge = np.full(design.shape[1], penalty)
    ridge[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ weights, -30, 30)))
        gradient = design.T @ (p - y) + ridge * weights
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(ridge + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return weights


def fusion_weights(scores: Scores, expected: NDArray[np.bool_]) -> tuple[float, float, float]:
    """Learn (lexical, semantic, learned) weights from each positive's top candidates."""
    from sklearn.linear_model import LogisticRegression

    signals = [scores.lexical]
    if scores.semantic is not None:
        signals.append(scores.semantic)
    if scores.learned is not None:
        signals.append(scores.learned)
    stacked = np.stack(signals, axis=2)
    positive = np.flatnonzero(expected.any(axis=1))
    if positive.size == 0:
        return 1.0, 1.0, 0.0
    ranking = stacked[positive].sum(axis=2)
    candidates = np.argsort(-ranking, axis=1)[:, :10]
    rows = np.repeat(positive, candidates.shape[1])
    columns = candidates.ravel()
    x = stacked[rows, columns]
    y = expected[rows, columns]
    if y.all() or not y.any():
        return 1.0, 1.0, 0.0
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y.astype(int))
    coef = np.maximum(model.coef_[0], 0.0)
    if coef.sum() <= 0:
        return 1.0, 1.0, 0.0
    coef = coef / coef.sum()
    values = [float(round(c, 4)) for c in coef] + [0.0] * (3 - coef.size)
    if scores.semantic is None:
        values = [values[0], 0.0, 0.0]
    return values[0], values[1], values[2]
