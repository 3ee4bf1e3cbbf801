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

from gov.core.routing.point import OperatingPoint
from gov.core.scoring.pooling import SurfaceGroups

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


def _rank_contribution(scores: FloatArray, admitted: NDArray[np.bool_], k: float, weight: float,
                       fused: FloatArray) -> None:
    if weight <= 0.0 or not admitted.any():
        return
    indices = np.flatnonzero(admitted)
    order = indices[np.argsort(-scores[indices], kind="stable")]
    fused[order] += weight / (k + np.arange(1, order.size + 1, dtype=np.float64))


FEATURES = ("semantic_top", "semantic_margin", "lexical_top", "lexical_margin", "learned_top",
            "learned_margin", "fused_top", "fused_margin", "learned_mass", "log_mass_fused")


def _margin(scores: FloatArray | None, top: int) -> tuple[float, float]:
    if scores is None:
        return 0.0, 0.0
    value = float(scores[top])
    if scores.size < 2:
        return value, value
    others = np.delete(scores, top)
    return value, value - float(others.max())


def confidence_features(lexical: FloatArray, semantic: FloatArray | None, top: int,
                        learned: FloatArray | None = None,
                        fused: FloatArray | None = None) -> list[float]:
    """Features of "the top route is right": each signal's top score and margin over the rest.

    The order is fixed (``FEATURES``) and only ever extended at the end, so a point with
    fewer confidence weights than features keeps its meaning.
    """
    sem_top, sem_margin = _margin(semantic, top)
    lex_top, lex_margin = _margin(lexical, top)
    head_top, head_margin = _margin(learned, top)
    fused_top, fused_margin = _margin(fused, top)
    # The probability the classifier leaves for any document (1 without a "none" class).
    mass = float(learned.sum()) if learned is not None else 0.0
    # Log of mass times the fused top: "a document at all" and "this one" must both hold.
    joint = (math.log(max(mass, 1e-6)) + math.log(max(fused_top, 1e-6))
             if learned is not None else 0.0)
    return [sem_top, sem_margin, lex_top, lex_margin, head_top, head_margin, fused_top,
            fused_margin, mass, joint]


def logistic(weights: tuple[float, ...], features: list[float]) -> float:
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], features, strict=False))
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


Admitted = NDArray[np.bool_]
POOLS = ("max", "mean", "max_mean")


def pool_similarities(sims: NDArray[np.floating[Any]], starts: NDArray[np.int64],
                      pool: str) -> NDArray[np.float32]:
    """One score per document from its surfaces' similarities (columns grouped by ``starts``):
    see :class:`gov.core.scoring.pooling.SurfaceGroups` (an index keeps one prepared)."""
    return SurfaceGroups(starts, sims.shape[1]).pool(sims, pool)


def fuse(lexical: FloatArray, semantic: FloatArray | None, point: OperatingPoint,
         learned: FloatArray | None = None) -> tuple[FloatArray, Admitted, Admitted]:
    """Fused score per document (0 where no floor admits it), and what each floor admitted.

    A document is a candidate when its lexical or semantic score clears its floor. RRF adds
    ``weight / (k + rank)`` per signal over the documents that signal admitted (the learned
    classifier ranks the admitted documents); weighted fusion adds ``weight * score``.
    """
    lex_ok = (lexical >= point.lexical_floor) & (lexical > 0.0)
    if semantic is not None:
        sem_ok = (semantic >= point.semantic_floor) & (semantic > 0.0)
    else:
        sem_ok = np.zeros_like(lex_ok)
    admitted = lex_ok | sem_ok
    fused = np.zeros(lexical.shape[0], dtype=np.float64)
    use_learned = learned is not None and point.learned_weight > 0.0
    if point.fusion == "weighted":
        if point.lexical_weight > 0.0:
            fused += point.lexical_weight * lexical
        if semantic is not None and point.semantic_weight > 0.0:
            fused += point.semantic_weight * semantic
        if use_learned:
            assert learned is not None
            fused += point.learned_weight * learned
        # A candidate keeps a positive score so "0 means not a candidate" stays true.
        return np.where(admitted, np.maximum(fused, 1e-12), 0.0), lex_ok, sem_ok
    if point.lexical_weight > 0.0:
        _rank_contribution(lexical, lex_ok, point.rrf_k, point.lexical_weight, fused)
    if semantic is not None and point.semantic_weight > 0.0:
        _rank_contribution(semantic, sem_ok, point.rrf_k, point.semantic_weight, fused)
    if use_learned:
        assert learned is not None
        _rank_contribution(learned, admitted, point.rrf_k, point.learned_weight, fused)
    return fused, lex_ok, sem_ok


def ranked(lexical: FloatArray, semantic: NDArray[np.floating[Any]] | None, point: OperatingPoint,
           learned: FloatArray | None = None, limit: int | None = None,
           ) -> tuple[NDArray[np.intp], FloatArray, NDArray[np.bool_], NDArray[np.bool_],
                      float | None]:
    """Candidates best first, the fused scores, the floors' admissions, the confidence.

    With ``limit``, only the first ``limit`` candidates are guaranteed (those tied with the
    last of them come too): a large corpus admits thousands, and sorting them all would
    cost a route a millisecond for nothing.
    """
    sem = semantic.astype(np.float64, copy=False) if semantic is not None else None
    fused, lex_ok, sem_ok = fuse(lexical, sem, point, learned)
    candidates = np.flatnonzero(fused > 0.0)
    if candidates.size == 0:
        return candidates, fused, lex_ok, sem_ok, None
    if limit is not None and candidates.size > 4 * limit + 16:
        values = fused[candidates]
        cut = np.partition(values, values.size - limit)[values.size - limit]
        candidates = candidates[values >= cut]
    tiebreak = sem[candidates] if sem is not None else lexical[candidates]
    order = candidates[np.lexsort((-tiebreak, -fused[candidates]))]
    confidence = None
    # The confidence model is fitted on semantic features; lexical-only (degraded) routing
    # is gated by the floors alone rather than by a model that cannot see its inputs.
    if point.confidence_weights and sem is not None:
        features = confidence_features(lexical, sem, int(order[0]), learned, fused)
        confidence = logistic(point.confidence_weights, features)
    return order, fused, lex_ok, sem_ok, confidence


def select(
    lexical: FloatArray, semantic: NDArray[np.floating[Any]] | None, point: OperatingPoint,
    learned: FloatArray | None = None,
) -> tuple[list[Candidate], float | None]:
    """Pick at most ``top_k`` documents, or none; also return the calibrated confidence.

    ``learned`` is the learned classifier's probability per document, when the point
    carries one (``gov calibrate --learn``).
    """
    order, fused, lex_ok, sem_ok, confidence = ranked(lexical, semantic, point, learned,
                                                      limit=point.top_k)
    if order.size == 0:
        return [], None
    if (confidence is not None and point.min_confidence is not None
            and confidence < point.min_confidence):
        return [], confidence
    # A raw score is reported where it counted: under RRF where its floor admitted the
    # document, under weighted fusion wherever it carries weight.
    weighted = point.fusion == "weighted"
    chosen: list[Candidate] = []
    for doc in order[: point.top_k]:
        index = int(doc)
        if chosen and (fused[index] < point.second_ratio * chosen[0].fused or (
                learned is not None and point.second_learned_floor > 0.0
                and learned[index] < point.second_learned_floor)):
            break
        lex_counts = lex_ok[index] or (weighted and point.lexical_weight > 0
                                       and lexical[index] > 0)
        sem_counts = semantic is not None and (sem_ok[index] or (
            weighted and point.semantic_weight > 0))
        chosen.append(
            Candidate(
                doc=index,
                fused=float(fused[index]),
                lexical=float(lexical[index]) if lex_counts else None,
                semantic=float(semantic[index]) if semantic is not None and sem_counts else None,
            )
        )
    return chosen, confidence


@dataclass(frozen=True)
class RankedMany:
    """The two best candidates of many prompts at once, as calibration needs them."""

    top1: NDArray[np.intp]  # -1: no candidate
    top2: NDArray[np.intp]
    fused1: FloatArray
    fused2: FloatArray
    features: FloatArray  # confidence_features of the top candidate, one row per prompt


def _margins(scores: FloatArray | None, top: NDArray[np.intp]) -> tuple[FloatArray, FloatArray]:
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


def rank_many(lexical: FloatArray, semantic: FloatArray | None, point: OperatingPoint,
              learned: FloatArray | None = None) -> RankedMany:
    """``ranked`` for a matrix of prompts (rows) by documents, vectorised; same order and ties."""
    n, _ = lexical.shape
    lex_ok = (lexical >= point.lexical_floor) & (lexical > 0.0)
    sem = semantic.astype(np.float64, copy=False) if semantic is not None else None
    sem_ok = ((sem >= point.semantic_floor) & (sem > 0.0) if sem is not None
              else np.zeros_like(lex_ok))
    admitted = lex_ok | sem_ok
    use_learned = learned is not None and point.learned_weight > 0.0
    fused = np.zeros(lexical.shape, dtype=np.float64)
    if point.fusion == "weighted":
        if point.lexical_weight > 0.0:
            fused += point.lexical_weight * lexical
        if sem is not None and point.semantic_weight > 0.0:
            fused += point.semantic_weight * sem
        if use_learned:
            assert learned is not None
            fused += point.learned_weight * learned
        fused = np.where(admitted, np.maximum(fused, 1e-12), 0.0)
    else:
        signals: list[tuple[FloatArray, NDArray[np.bool_], float]] = [
            (lexical, lex_ok, point.lexical_weight)]
        if sem is not None:
            signals.append((sem, sem_ok, point.semantic_weight))
        if use_learned:
            assert learned is not None
            signals.append((learned, admitted, point.learned_weight))
        rows = np.arange(n)[:, None]
        for scores, ok, weight in signals:
            if weight <= 0.0:
                continue
            masked = np.where(ok, -scores, np.inf)
            order = np.argsort(masked, axis=1, kind="stable")
            rank = np.empty_like(order)
            rank[rows, order] = np.arange(1, order.shape[1] + 1)
            fused += np.where(ok, weight / (point.rrf_k + rank), 0.0)
    tiebreak = sem if sem is not None else lexical
    order = np.lexsort((-tiebreak, -fused), axis=-1)
    rows1 = np.arange(n)
    top1 = order[:, 0].astype(np.intp)
    fused1 = fused[rows1, top1]
    top1 = np.where(fused1 > 0.0, top1, -1)
    fused1 = np.where(top1 >= 0, fused1, 0.0)
    if order.shape[1] > 1:
        top2 = order[:, 1].astype(np.intp)
        fused2 = fused[rows1, top2]
        top2 = np.where(fused2 > 0.0, top2, -1)
        fused2 = np.where(top2 >= 0, fused2, 0.0)
    else:
        top2 = np.full(n, -1, dtype=np.intp)
        fused2 = np.zeros(n)
    columns: list[FloatArray] = []
    signal: FloatArray | None
    for signal in (sem, lexical, learned, fused):
        value, margin = _margins(signal, top1)
        columns.extend((value, margin))
    if learned is not None:
        mass = learned.sum(axis=1)
        columns.append(mass)
        columns.append(np.log(np.maximum(mass, 1e-6)) + np.log(np.maximum(columns[6], 1e-6)))
    else:
        columns.extend((np.zeros(n), np.zeros(n)))
    features = np.stack(columns, axis=1)
    features[top1 < 0] = 0.0
    return RankedMany(top1, top2, fused1, fused2, features)
