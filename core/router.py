"""Turn per-document scores into routes: admission floors, fusion, selection, abstention.

Scoring a prompt (TF-IDF and cosine over every surface) happens once; selection is a
cheap function of those scores and an operating point, so calibration can score a
labelled set once and select under many points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gov.core.operating_point import OperatingPoint

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Route:
    """One routed document: the fused score that ordered it, each raw score, the evidence."""

    name: str
    score: float
    lexical: float | None
    semantic: float | None
    why: str
    dependency_of: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "score": round(self.score, 6),
            "lexical": None if self.lexical is None else round(self.lexical, 6),
            "semantic": None if self.semantic is None else round(self.semantic, 6),
            "why": self.why,
        }
        if self.dependency_of is not None:
            out["dependency_of"] = self.dependency_of
        return out


@dataclass
class RouteResult:
    """The routes for one prompt (empty: abstained) and the notices that apply."""

    routes: list[Route]
    degraded: str | None = None
    confidence: float | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [route.name for route in self.routes]


@dataclass(frozen=True)
class Candidate:
    """A selected document index with its fused score and admitted raw scores."""

    doc: int
    fused: float
    lexical: float | None
    semantic: float | None


def _rank_contribution(scores: FloatArray, floor: float, k: float, weight: float,
                       fused: FloatArray) -> NDArray[np.bool_]:
    admitted = (scores >= floor) & (scores > 0.0)
    if weight <= 0.0 or not admitted.any():
        return admitted
    indices = np.flatnonzero(admitted)
    order = indices[np.argsort(-scores[indices], kind="stable")]
    fused[order] += weight / (k + np.arange(1, order.size + 1, dtype=np.float64))
    return admitted


def confidence_features(lexical: FloatArray, semantic: FloatArray | None, top: int) -> list[float]:
    """Features of "the top route is right": its scores and its margins over the rest."""

    def margin(scores: FloatArray) -> float:
        if scores.size < 2:
            return float(scores[top])
        others = np.delete(scores, top)
        return float(scores[top] - others.max())

    lex_top = float(lexical[top])
    sem_top = float(semantic[top]) if semantic is not None else 0.0
    sem_margin = margin(semantic) if semantic is not None else 0.0
    return [sem_top, sem_margin, lex_top, margin(lexical)]


def logistic(weights: tuple[float, ...], features: list[float]) -> float:
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], features, strict=False))
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def select(
    lexical: FloatArray, semantic: FloatArray | None, point: OperatingPoint
) -> tuple[list[Candidate], float | None]:
    """Pick at most ``top_k`` documents, or none; also return the calibrated confidence."""
    fused = np.zeros(lexical.shape[0], dtype=np.float64)
    lex_ok = _rank_contribution(lexical, point.lexical_floor, point.rrf_k,
                                point.lexical_weight, fused)
    if semantic is not None:
        sem = semantic.astype(np.float64, copy=False)
        sem_ok = _rank_contribution(sem, point.semantic_floor, point.rrf_k,
                                    point.semantic_weight, fused)
    else:
        sem = None
        sem_ok = np.zeros_like(lex_ok)
    candidates = np.flatnonzero(fused > 0.0)
    if candidates.size == 0:
        return [], None
    tiebreak = sem[candidates] if sem is not None else lexical[candidates]
    order = candidates[np.lexsort((-tiebreak, -fused[candidates]))]
    top = int(order[0])
    confidence = None
    if point.confidence_weights:
        confidence = logistic(point.confidence_weights, confidence_features(lexical, sem, top))
        if point.min_confidence is not None and confidence < point.min_confidence:
            return [], confidence
    chosen: list[Candidate] = []
    for doc in order[: point.top_k]:
        index = int(doc)
        if chosen and fused[index] < point.second_ratio * chosen[0].fused:
            break
        chosen.append(
            Candidate(
                doc=index,
                fused=float(fused[index]),
                lexical=float(lexical[index]) if lex_ok[index] else None,
                semantic=float(sem[index]) if sem is not None and sem_ok[index] else None,
            )
        )
    return chosen, confidence
