"""Choose an operating point from scored labelled prompts: the grid, and the rule.

Each grid row (fusion, pooling, body weight, floors) re-runs only selection over the
scores computed once (:mod:`gov.core.calibration.scores`); the parameters that act after
ranking (the confidence threshold, the second-route rule, top k) are evaluated for all
prompts at once with numpy.

The rule that picks the winner: (1) no false alarm on the negatives (``max_fa`` relaxes
this hard gate), (2) the highest F1, (3) on a tie the quieter point (fewer routes).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..routing.background import Background
from ..routing.point import POOLS, OperatingPoint
from .crossfit import FOLDS
from .fit import fusion_weights
from .labelled import Labelled
from .row import Outcome as Outcome  # re-exported: grid rows are Outcomes
from .row import evaluate_row as evaluate_row
from .scores import Scores

RULE = ("(1) zero false alarms on the negatives is a hard gate{relaxed}, (2) then the highest "
        "F1, (3) ties go to the quieter point (fewer routes per prompt)")
LEXICAL_FLOORS = (0.05, 0.10, 0.15, 0.20, 0.30, 0.40)
SEMANTIC_FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40, 0.50)


@dataclass
class Calibration:
    """Every grid row (best setting per row), the winner (if any) and the rule."""

    rows: list[Outcome]
    winner: Outcome | None
    rule: str
    max_fa: float
    negatives: int
    positives: int
    evaluated: int
    notes: list[str] = field(default_factory=list)


def expected_matrix(index_names: Sequence[str], labelled: Labelled) -> NDArray[np.bool_]:
    position = {name: i for i, name in enumerate(index_names)}
    matrix = np.zeros((len(labelled.prompts), len(index_names)), dtype=bool)
    for row, names in enumerate(labelled.expected):
        for name in names:
            if name in position:
                matrix[row, position[name]] = True
    return matrix


def better(a: Outcome, b: Outcome | None) -> bool:
    """Is ``a`` preferred to ``b`` by the rule (gate first, then F1, then fewer routes)?"""
    if b is None:
        return True
    if a.passes_gate != b.passes_gate:
        return a.passes_gate
    f1_a, f1_b = round(a.metrics["f1"] or 0.0, 6), round(b.metrics["f1"] or 0.0, 6)
    if f1_a != f1_b:
        return f1_a > f1_b
    if a.routes != b.routes:
        return a.routes < b.routes
    fa_a = a.metrics["false_alarm_rate"] or 0.0
    fa_b = b.metrics["false_alarm_rate"] or 0.0
    return fa_a < fa_b


def fusions(scores: Scores, expected: NDArray[np.bool_], base: OperatingPoint
            ) -> list[OperatingPoint]:
    """The fusion settings the grid tries: oiax's RRF, and weighted fusion with learned weights."""
    learned_weight = 1.0 if scores.learned is not None else 0.0
    out = [base.with_params(fusion="rrf", rrf_k=60.0, lexical_weight=1.0, semantic_weight=1.0,
                            learned_weight=learned_weight)]
    lexical, semantic, learned = fusion_weights(scores, expected)
    out.append(base.with_params(fusion="weighted", lexical_weight=lexical,
                                semantic_weight=semantic, learned_weight=learned))
    return out


def calibrate(
    index_names: Sequence[str],
    labelled: Labelled,
    scores: Scores,
    *,
    max_fa: float = 0.0,
    base: OperatingPoint | None = None,
    lexical_floors: Sequence[float] = LEXICAL_FLOORS,
    semantic_floors: Sequence[float] = SEMANTIC_FLOORS,
    confidence: bool = True,
) -> Calibration:
    """Evaluate the grid and pick the winner by the rule (see the module docstring)."""
    start = base or OperatingPoint()
    start = start.with_params(min_confidence=None, confidence_weights=None, second_ratio=0.0,
                              second_learned_floor=0.0)
    expected = expected_matrix(index_names, labelled)
    notes = []
    if labelled.negatives == 0:
        notes.append("no negatives (expected: []) in the labelled set: the false-alarm rate is "
                     "unmeasured and the gate cannot hold")
    floors_semantic = semantic_floors if scores.semantic is not None else (start.semantic_floor,)
    rows: list[Outcome] = []
    winner: Outcome | None = None
    evaluated = 0
    pools = [pool for pool in POOLS if pool in scores.pooled] or [start.semantic_pool]
    settings = [fusion for pool in pools for weight in scores.body_choices()
                for fusion in fusions(scores.with_pool(pool, weight), expected,
                                      start.with_params(semantic_pool=pool, body_surfaces=weight))]
    for fusion in settings:
        pooled = scores.with_pool(fusion.semantic_pool, fusion.body_surfaces)
        for lexical_floor in lexical_floors:
            for semantic_floor in floors_semantic:
                point = fusion.with_params(lexical_floor=float(lexical_floor),
                                           semantic_floor=float(semantic_floor))
                # Routing ignores the confidence model without embeddings (lexical-only).
                best, count = evaluate_row(point, pooled, expected, max_fa,
                                            confidence and scores.semantic is not None)
                evaluated += count
                rows.append(best)
                if best.passes_gate and better(best, winner):
                    winner = best
    relaxed = "" if max_fa == 0 else f" (relaxed by --max-fa to {max_fa:g})"
    return Calibration(rows, winner, RULE.format(relaxed=relaxed), max_fa, labelled.negatives,
                       len(labelled.prompts) - labelled.negatives, evaluated, notes)


def nudge(index_names: Sequence[str], labelled: Labelled, scores: Scores, *,
          base: OperatingPoint, background: Background, max_fa: float = 0.0) -> Calibration:
    """Move a background-gated point toward a corpus from a few labels, not refit it:
    only the share of the bank that routes, the orphan and confidence floors and the
    second-route rule are searched, the rest stays as the label-free point has it (ties go
    to its own share and floors)."""
    expected = expected_matrix(index_names, labelled)
    pooled = scores.with_pool(base.semantic_pool, base.body_surfaces)
    best, count = evaluate_row(base, pooled, expected, max_fa, False, background)
    relaxed = "" if max_fa == 0 else f" (relaxed by --max-fa to {max_fa:g})"
    notes = ["few labels: the label-free point was moved (its bank share, floors and "
             "second-route rule), not refitted"]
    return Calibration([best], best if best.passes_gate else None,
                       RULE.format(relaxed=relaxed), max_fa, labelled.negatives,
                       len(labelled.prompts) - labelled.negatives, count, notes)


def finish_point(
    result: Calibration,
    *,
    model_id: str | None,
    corpus_id: str,
    corpus_size: int,
    separability: float | None,
    labelled: Labelled,
    learned_file: str | None,
    learned_info: dict[str, Any] | None,
) -> OperatingPoint:
    """The winner as a point to save, with the provenance a reader needs to trust it."""
    assert result.winner is not None
    winner = result.winner
    metrics = {key: (None if value is None else round(value, 4))
               for key, value in winner.metrics.items()}
    provenance: dict[str, Any] = {
        "corpus_id": corpus_id,
        "corpus_size": corpus_size,
        "separability": None if separability is None else round(separability, 4),
        "model_id": model_id,
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "labelled": {"prompts": len(labelled.prompts), "negatives": labelled.negatives},
        "metrics": metrics,
        "rule": result.rule,
        "max_fa": result.max_fa,
        "grid_points": result.evaluated,
        "learned": learned_file is not None,
    }
    if learned_file is not None:
        provenance["figures"] = (f"cross-fitted over {FOLDS} folds: no prompt was scored by "
                                 "what it taught")
    point = replace(winner.point, model_id=model_id, provenance=provenance, source=None)
    if learned_file is None:
        # No learned file: a classifier weight left in the point is the index's own head's.
        return point.with_params(learned_surfaces=None, learned=None)
    return point.with_params(learned_surfaces=learned_file, learned=learned_info)


def describe(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "nan"
    return f"{value:.3f}"
