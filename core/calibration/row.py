"""One grid row evaluated: every inner setting of an operating point at once.

A row (fusion, pooling, body weight, floors) ranks every labelled prompt once; the
parameters that act after ranking (the confidence threshold or the background gate's bank
share, the second-route rule, top k) are then evaluated for all prompts together, one
column per threshold, by matrix products. :mod:`gov.core.calibration.grid` runs the rows and
picks the winner by the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..routing.background import Background
from ..routing.confidence import logistic_many
from ..routing.point import OperatingPoint
from ..routing.remarks import vetoes
from ..routing.select import (
    RankedMany,
    background_features,
    clears,
    first_route_columns,
    rank_many,
    second_routes,
)
from .fit import fit_confidence
from .metrics import f1_score
from .scores import Scores

SECOND_RATIOS = (0.0, 0.5, 0.7, 0.85)
# With a learned classifier: the least probability it must give a second route.
SECOND_LEARNED_FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3)
TOP_KS = (1, 2)
# Background gate: the shares of the bank the grid lets route (the threshold it sets).
BACKGROUND_ALPHAS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3)
# Orphan-floor quantiles labels may raise the label-free point's to (never lower: below it,
# the bank shares with the floor off are the columns).
ORPHAN_QUANTILES = (0.7, 0.8, 0.9, 0.95)


@dataclass
class Outcome:
    """One evaluated operating point: its parameters and figures on the labelled set."""

    point: OperatingPoint
    metrics: dict[str, float | None]
    routes: int
    passes_gate: bool

    def row(self) -> dict[str, Any]:
        p = self.point
        return {
            "fusion": p.fusion if p.fusion == "weighted" else f"rrf k={p.rrf_k:g}",
            "semantic_pool": p.semantic_pool,
            "body_surfaces": p.body_surfaces,
            "lexical_floor": p.lexical_floor,
            "semantic_floor": p.semantic_floor,
            "top_k": p.top_k,
            "second_ratio": p.second_ratio,
            "second_learned_floor": p.second_learned_floor,
            "min_confidence": p.min_confidence,
            **self.metrics,
            "passes_gate": self.passes_gate,
        }


def _thresholds(confidence: NDArray[np.float64], negative: NDArray[np.bool_]) -> list[float | None]:
    """No threshold, a coarse ladder, and a step just above each of the top negatives."""
    ladder = [round(float(x), 2) for x in np.arange(0.05, 0.96, 0.05)]
    above = sorted({min(1.0, round(float(c) + 1e-4, 4)) for c in
                    np.sort(confidence[negative])[-40:]}) if negative.any() else []
    values: list[float | None] = [None]
    values.extend(sorted(set(ladder) | set(above)))
    return values


@dataclass
class _Ranked:
    """One grid row's ranking of every prompt, and how it meets the labels: the first and
    second routes (-1 for none), their fused scores, and which of them are expected."""

    many: RankedMany
    top1: NDArray[np.int64]
    top2: NDArray[np.int64]
    has1: NDArray[np.bool_]
    has2: NDArray[np.bool_]
    correct1: NDArray[np.bool_]
    correct2: NDArray[np.bool_]
    positive: NDArray[np.bool_]
    negative: NDArray[np.bool_]
    labels: int


def _ranked(base: OperatingPoint, scores: Scores, expected: NDArray[np.bool_]) -> _Ranked:
    """Rank every prompt once for the row; everything after ranking is evaluated from it."""
    n, _ = expected.shape
    many = rank_many(scores.lexical, scores.semantic, base, scores.learned, scores.families)
    rows = np.arange(n)
    has1 = many.top1 >= 0
    has2 = many.top2 >= 0
    positive = np.asarray(expected.any(axis=1), dtype=bool)
    return _Ranked(
        many=many, top1=many.top1, top2=many.top2, has1=has1, has2=has2,
        correct1=has1 & np.asarray(expected[rows, np.maximum(many.top1, 0)], dtype=bool),
        correct2=has2 & np.asarray(expected[rows, np.maximum(many.top2, 0)], dtype=bool),
        positive=positive, negative=~positive, labels=int(expected.sum()))


@dataclass
class _Columns:
    """The thresholds a row tries, one column each: the cut on ``confidence``, the
    confidence floor kept or dropped (``floors``), and for a background-gated point the
    bank share and orphan quantile that set the cut (``alphas``, ``orphans``; empty
    otherwise)."""

    confidence: NDArray[np.float64]
    thresholds: list[float | None]
    floors: list[float | None]
    confident: NDArray[np.bool_]
    weights: Any = None
    alphas: list[float] = field(default_factory=list)
    orphans: list[float] = field(default_factory=list)
    label_free: float = 0.0


def _background_columns(base: OperatingPoint, scores: Scores, ranked: _Ranked,
                        background: Background, n: int) -> _Columns:
    """A background-gated row's columns: each prompt's best gate score against the
    threshold each share of the bank sets, the label-free share among them."""
    assert scores.semantic is not None
    many = ranked.many
    confidence = background.gate_scores(scores.lexical, scores.semantic, base).max(axis=1)
    confident = np.ones(n, dtype=bool)
    # Labels choose the share itself: the grid's shares are this corpus's, not grown with
    # its size, and with the orphan floor off (labels say where near misses sit); the
    # label-free threshold, floors and all, is one more column.
    label_free = background.alpha(base)
    alphas = sorted(set(BACKGROUND_ALPHAS) | {label_free})
    orphans = [0.0] * len(alphas)
    if base.orphan_quantile > 0:
        raised = sorted({base.orphan_quantile} | {q for q in ORPHAN_QUANTILES
                                                  if q > base.orphan_quantile})
        alphas += [label_free] * len(raised)
        orphans += raised
    thresholds: list[float | None] = [background.threshold(base.with_params(
        background_alpha=alpha, background_alpha_growth=0.0, orphan_quantile=orphan))[0]
        for alpha, orphan in zip(alphas, orphans, strict=True)]
    floors: list[float | None] = [base.min_confidence] * len(alphas)
    if base.min_confidence is not None and base.confidence_weights:
        # The confidence floor kept (as the label-free point has it) and dropped, at
        # every threshold: labels say whether it costs more than it saves here.
        features = background_features(background, confidence, many.fused1, many.fused2,
                                       scores.learned, ranked.top1,
                                       scores.families)
        confident = clears(logistic_many(base.confidence_weights, features),
                           base.min_confidence)
        alphas, orphans = alphas * 2, orphans * 2
        thresholds = thresholds * 2
        floors = floors + [None] * len(floors)
    return _Columns(confidence, thresholds, floors, confident, None, alphas, orphans,
                    label_free)


def _confidence_columns(ranked: _Ranked, learnable_confidence: bool, n: int) -> _Columns:
    """A row's columns from a confidence model fitted on its own first routes: no
    threshold, a ladder, and steps just above the top negatives."""
    has1 = ranked.has1
    weights = (fit_confidence(ranked.many.features[has1], ranked.correct1[has1])
               if learnable_confidence else None)
    confidence = np.zeros(n)
    if weights is not None:
        confidence = logistic_many(weights, ranked.many.features)
    thresholds: list[float | None] = (_thresholds(confidence[has1], ranked.negative[has1])
                  if weights is not None else [None])
    floors: list[float | None] = [None] * len(thresholds)  # the threshold is the confidence's own
    return _Columns(confidence, thresholds, floors, np.ones(n, dtype=bool), weights)


def _second_rules(scores: Scores, ranked: _Ranked,
                  n: int) -> tuple[list[tuple[float, float]], NDArray[np.float64]]:
    """Second-route rules: a share of the first route's fused score, or (with a
    classifier) a least probability from it; and the classifier's probability of each
    prompt's second route."""
    rules = [(ratio, 0.0) for ratio in SECOND_RATIOS]
    learned2 = np.zeros(n)
    if scores.learned is not None:
        rules += [(0.0, floor) for floor in SECOND_LEARNED_FLOORS]
        learned2 = np.where(ranked.has2, scores.learned[np.arange(n),
                                                        np.maximum(ranked.top2, 0)], 0.0)
    return rules, learned2


def evaluate_row(base: OperatingPoint, scores: Scores, expected: NDArray[np.bool_],
                 max_fa: float, learnable_confidence: bool,
                 background: Background | None = None) -> tuple[Outcome, int]:
    """The best inner setting (threshold, second-route rule, top k) of one grid row.

    With ``background`` (a background-gated point), the threshold is the gate's: each
    prompt's best gate score against the threshold each ``BACKGROUND_ALPHAS`` share of the
    bank sets, instead of a fitted confidence model.
    """
    n, _ = expected.shape
    ranked = _ranked(base, scores, expected)
    if background is not None and scores.semantic is not None:
        columns = _background_columns(base, scores, ranked, background, n)
    else:
        columns = _confidence_columns(ranked, learnable_confidence, n)
    # One column per threshold: which prompts route at all. Every figure is then a sum over
    # prompts, so all thresholds are evaluated by one matrix product per second-route rule.
    cut = np.array([-np.inf if t is None else t for t in columns.thresholds])
    floored = np.array([f is not None for f in columns.floors], dtype=bool)
    # A prompt that reads as a remark routes under no column (the point's veto, as routing).
    candidate = (ranked.has1 if scores.remarks is None
                 else ranked.has1 & ~vetoes(scores.remarks, base.remark_veto))
    routes1 = first_route_columns(candidate, columns.confidence, cut, columns.confident,
                                  floored).astype(np.float64)
    rules, learned2 = _second_rules(scores, ranked, n)
    many = ranked.many

    def seconds(top_k: int, rule: tuple[float, float]) -> NDArray[np.bool_]:
        if top_k < 2:
            return np.zeros(n, dtype=bool)
        return second_routes(ranked.has2, many.fused1, many.fused2, learned2, *rule)

    best_key, best_setting, evaluated = _search(base, ranked, columns, routes1, rules,
                                                seconds, max_fa)
    top_k, (ratio, floor), column = best_setting
    metrics, routes = _metrics(ranked, routes1[:, column] > 0, seconds(top_k, (ratio, floor)), n)
    threshold = columns.thresholds[column]
    if columns.alphas:
        point = base.with_params(top_k=top_k, second_ratio=ratio, second_learned_floor=floor,
                                 background_alpha=columns.alphas[column],
                                 background_alpha_growth=0.0,
                                 orphan_quantile=columns.orphans[column],
                                 min_confidence=columns.floors[column])
    else:
        point = base.with_params(top_k=top_k, second_ratio=ratio, second_learned_floor=floor,
                                 min_confidence=threshold,
                                 confidence_weights=(columns.weights if threshold is not None
                                                     else None))
    return Outcome(point, metrics, routes, best_key[0]), evaluated


def _search(base: OperatingPoint, ranked: _Ranked, columns: _Columns,
            routes1: NDArray[np.float64], rules: list[tuple[float, float]],
            seconds: Callable[[int, tuple[float, float]], NDArray[np.bool_]],
            max_fa: float) -> tuple[tuple[bool, float, float, int, float],
                                    tuple[int, tuple[float, float], int], int]:
    """Every (top k, second-route rule, column) of the row, ranked by the rule of the
    module: the gate, then F1, then the label-free setting, then the quieter point.
    Returns the best key, its setting and how many settings were evaluated."""
    negatives = int(ranked.negative.sum())
    labels = ranked.labels
    false_alarms = ranked.negative.astype(np.float64) @ routes1
    first_routes = routes1.sum(axis=0)
    first_correct = ranked.correct1.astype(np.float64) @ routes1
    alphas, floors, label_free = columns.alphas, columns.floors, columns.label_free
    best_key: tuple[bool, float, float, int, float] | None = None
    best_setting: tuple[int, tuple[float, float], int] = (1, (0.0, 0.0), 0)
    evaluated = 0
    for top_k in TOP_KS:
        for rule in rules if top_k > 1 else [(0.0, 0.0)]:
            second = seconds(top_k, rule)
            all_routes = first_routes + second.astype(np.float64) @ routes1
            all_correct = first_correct + (second & ranked.correct2).astype(np.float64) @ routes1
            for column in range(len(columns.thresholds)):
                evaluated += 1
                routes = int(all_routes[column])
                correct = int(all_correct[column])
                f1 = f1_score(correct / routes if routes else None,
                         correct / labels if labels else None)
                fa = float(false_alarms[column]) / negatives if negatives else 0.0
                # Ties go (background) to the label-free share and confidence floor, then to
                # the quieter point.
                nearest = (-abs(alphas[column] - label_free)
                           - (floors[column] != base.min_confidence) if alphas else 0.0)
                key = ((fa <= max_fa + 1e-12) and f1 > 0.0, round(f1, 6), nearest, -routes, -fa)
                if best_key is None or key > best_key:
                    best_key, best_setting = key, (top_k, rule, column)
    assert best_key is not None
    return best_key, best_setting, evaluated


def _metrics(ranked: _Ranked, routed1: NDArray[np.bool_], second: NDArray[np.bool_],
             n: int) -> tuple[dict[str, float | None], int]:
    """The chosen setting's figures on the labelled set, and its number of routes."""
    negatives = int(ranked.negative.sum())
    positives = int(ranked.positive.sum())
    routed2 = routed1 & second
    routes = int(routed1.sum() + routed2.sum())
    correct = int((routed1 & ranked.correct1).sum() + (routed2 & ranked.correct2).sum())
    precision = correct / routes if routes else None
    recall = correct / ranked.labels if ranked.labels else None
    fa_rate = float((routed1 & ranked.negative).sum()) / negatives if negatives else None
    metrics: dict[str, float | None] = {
        "false_alarm_rate": fa_rate,
        "top1": float((routed1 & ranked.correct1).sum()) / positives if positives else None,
        "recall": recall,
        "precision": precision,
        "f1": f1_score(precision, recall),
        "silent_rate": (float((ranked.positive & ~routed1).sum()) / positives
                        if positives else None),
        "routes_per_prompt": routes / n,
    }
    return metrics, routes
