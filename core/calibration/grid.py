"""Choose an operating point from labelled prompts: score once, select many times.

Scoring (TF-IDF, embeddings) is the slow part of a route and does not depend on the
operating point, so every labelled prompt is scored once; each grid point then re-runs
only the selection, and the parameters that act after ranking (the confidence threshold,
the second-route rule, top k) are evaluated for all prompts at once with numpy.

The rule that picks the winner: (1) no false alarm on the negatives (``max_fa`` relaxes
this hard gate), (2) the highest F1, (3) on a tie the quieter point (fewer routes).

With ``learn``, the labelled positives become further surfaces of their documents and
train a linear classifier over embeddings. Both are cross-fitted: each prompt is scored
by surfaces and a classifier that never saw it, so the figures are not memorised ones;
the point that is saved then uses every positive.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from gov.core.errors import InputError
from gov.core.routing.point import OperatingPoint
from gov.core.routing.select import POOLS, pool_similarities, rank_many
from gov.core.scoring.learned import LearnedArrays
from gov.core.scoring.pooling import mix_bodies

if TYPE_CHECKING:
    from gov.core.routing.router import Index

RULE = ("(1) zero false alarms on the negatives is a hard gate{relaxed}, (2) then the highest "
        "F1, (3) ties go to the quieter point (fewer routes per prompt)")
LEXICAL_FLOORS = (0.05, 0.10, 0.15, 0.20, 0.30, 0.40)
SEMANTIC_FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40, 0.50)
SECOND_RATIOS = (0.0, 0.5, 0.7, 0.85)
# With a learned classifier: the least probability it must give a second route.
SECOND_LEARNED_FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3)
# With body vectors: the weights of the body evidence in the semantic score.
BODY_WEIGHTS = (0.3, 0.5, 0.7)
TOP_KS = (1, 2)
FOLDS = 5
CLASSIFIER_C = 10.0
Progress = Callable[[str], None]


@dataclass
class Labelled:
    """Labelled prompts: each with its expected document names ([] = none governs)."""

    prompts: list[str]
    expected: list[frozenset[str]]
    kinds: list[str | None]

    @property
    def negatives(self) -> int:
        return sum(1 for names in self.expected if not names)


def read_labelled(records: Sequence[tuple[str, Any]]) -> Labelled:
    """Rows as (where, decoded JSON); a row without prompt or expected is an error there."""
    prompts: list[str] = []
    expected: list[frozenset[str]] = []
    kinds: list[str | None] = []
    for where, record in records:
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object with 'prompt' and 'expected'")
        prompt = record.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(f"{where}: field 'prompt' must be a string")
        names = record.get("expected")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{where}: field 'expected' must be a list of document names "
                             "([] for a prompt no document governs)")
        kind = record.get("kind")
        prompts.append(prompt)
        expected.append(frozenset(names))
        kinds.append(kind if isinstance(kind, str) else None)
    if not prompts:
        raise InputError("no labelled prompts to calibrate on")
    return Labelled(prompts, expected, kinds)


@dataclass
class Scores:
    """Every prompt's per-document scores: what selection needs, computed once."""

    lexical: NDArray[np.float64]
    semantic: NDArray[np.float64] | None
    learned: NDArray[np.float64] | None = None
    # The semantic matrix under each pooling of surface similarities (``semantic`` is "max").
    pooled: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    # With body vectors (gov index --bodies): each prompt's mean passage similarity per
    # document, and which documents have a body.
    body: NDArray[np.float64] | None = None
    has_body: NDArray[np.bool_] | None = None

    def with_pool(self, pool: str, body_weight: float = 0.0) -> Scores:
        semantic = self.pooled.get(pool, self.semantic)
        if semantic is not None and body_weight > 0.0 and self.body is not None \
                and self.has_body is not None:
            semantic = mix_bodies(semantic, self.body, self.has_body[None, :], body_weight)
        return Scores(self.lexical, semantic, self.learned, self.pooled, self.body, self.has_body)

    def body_weights(self) -> tuple[float, ...]:
        """The body weights the grid tries: none without body vectors."""
        return (0.0, *BODY_WEIGHTS) if self.body is not None else (0.0,)


def _fold(prompt: str, folds: int) -> int:
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % folds


def _fit_classifier(vectors: NDArray[np.float32], owners: NDArray[np.int64], classes: int,
                    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Multinomial logistic regression over embeddings; one row per class index."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=CLASSIFIER_C, max_iter=500)
    model.fit(vectors, owners)
    weights = np.zeros((classes, vectors.shape[1]), dtype=np.float32)
    bias = np.full(classes, -1e4, dtype=np.float32)
    seen = np.asarray(model.classes_, dtype=np.int64)
    if seen.size == 2:
        # scikit-learn keeps one row for two classes: split it into two opposite logits.
        weights[seen[1]] = model.coef_[0] / 2
        weights[seen[0]] = -model.coef_[0] / 2
        bias[seen[1]] = model.intercept_[0] / 2
        bias[seen[0]] = -model.intercept_[0] / 2
    else:
        weights[seen] = model.coef_
        bias[seen] = model.intercept_
    return weights, bias


def _probabilities(vectors: NDArray[np.float32], weights: NDArray[np.float32],
                   bias: NDArray[np.float32], documents: int) -> NDArray[np.float64]:
    """Each document's probability (a "no document" class past them takes its share)."""
    logits = (vectors @ weights.T + bias).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)
    return logits[:, :documents]


def score(index: Index, labelled: Labelled, learn: bool = False,
          progress: Progress | None = None) -> tuple[Scores, LearnedArrays | None]:
    """Score every prompt once; with ``learn``, cross-fit and return what to keep."""
    if progress:
        progress(f"scoring {len(labelled.prompts)} prompts")
    lexical, vectors = index.score_many(labelled.prompts)
    body, has_body = _body_scores(index, vectors)
    if vectors is None:
        if learn:
            raise InputError("--learn needs the embedding model: the index has no embeddings "
                             "or the model could not load")
        return Scores(lexical, None), None
    base_sims = (vectors @ np.asarray(index.embeddings, dtype=np.float32).T).astype(np.float64)
    base_starts = np.asarray(index._starts, dtype=np.int64)
    if not learn:
        pooled = {pool: pool_similarities(base_sims, base_starts, pool).astype(np.float64)
                  for pool in POOLS}
        return Scores(lexical, pooled["max"], None, pooled, body, has_body), None
    position = {name: i for i, name in enumerate(index.names)}
    rows: list[int] = []
    owners: list[int] = []
    for row, names in enumerate(labelled.expected):
        for name in sorted(names):
            if name in position:
                rows.append(row)
                owners.append(position[name])
    if not rows:
        raise InputError("--learn needs labelled positives that name documents of the index")
    assert index.embeddings is not None
    documents = len(index.names)
    learned_vectors = vectors[rows]
    learned_owner = np.asarray(owners, dtype=np.int64)
    prompt_fold = np.array([_fold(p, FOLDS) for p in labelled.prompts])
    surface_fold = prompt_fold[rows]
    # Each prompt meets only other folds' positives as learned surfaces: the nearest one per
    # document for "max", and their sum and count for "mean".
    sims = (vectors @ learned_vectors.T).astype(np.float64)
    same_fold = prompt_fold[:, None] == surface_fold[None, :]
    owner_matrix = np.zeros((learned_owner.size, documents))
    owner_matrix[np.arange(learned_owner.size), learned_owner] = 1.0
    learned_sum = np.where(same_fold, 0.0, sims) @ owner_matrix
    fold_counts = np.zeros((FOLDS, documents))
    np.add.at(fold_counts, (surface_fold, learned_owner), 1.0)
    learned_count = fold_counts.sum(axis=0)[None, :] - fold_counts[prompt_fold]
    sims[same_fold] = -1.0
    learned_best = np.full((len(labelled.prompts), documents), -1.0)
    for document in np.unique(learned_owner):
        learned_best[:, document] = sims[:, learned_owner == document].max(axis=1)
    base_best = np.maximum.reduceat(base_sims, base_starts, axis=1)
    base_count = np.diff(np.append(base_starts, base_sims.shape[1])).astype(np.float64)
    best = np.maximum(base_best, learned_best)
    mean = (np.add.reduceat(base_sims, base_starts, axis=1) + learned_sum) / (
        base_count[None, :] + learned_count)
    pooled = {"max": best, "mean": mean, "max_mean": (best + mean) / 2}
    base_vectors = np.asarray(index.embeddings, dtype=np.float32)
    base_owner = np.asarray(index.surface_doc, dtype=np.int64)
    # The negatives train a "no document" class (index ``documents``), cross-fitted alike.
    negative_rows = np.array([r for r, names in enumerate(labelled.expected) if not names],
                             dtype=np.int64)
    abstain = negative_rows.size > 0
    classes = documents + (1 if abstain else 0)
    base_vectors = np.vstack([base_vectors, vectors[negative_rows]]) if abstain else base_vectors
    base_owner = np.concatenate([base_owner, np.full(negative_rows.size, documents)])
    base_fold = np.concatenate([np.full(index.embeddings.shape[0], -1),
                                prompt_fold[negative_rows]])
    probabilities = np.zeros((len(labelled.prompts), documents), dtype=np.float64)
    for fold in range(FOLDS):
        held = prompt_fold == fold
        if not held.any():
            continue
        if progress:
            progress(f"learning: classifier for fold {fold + 1} of {FOLDS}")
        keep = surface_fold != fold
        base_keep = base_fold != fold
        weights, bias = _fit_classifier(
            np.vstack([base_vectors[base_keep], learned_vectors[keep]]),
            np.concatenate([base_owner[base_keep], learned_owner[keep]]), classes)
        probabilities[held] = _probabilities(vectors[held], weights, bias, documents)
    if progress:
        progress("learning: classifier on every positive")
    weights, bias = _fit_classifier(np.vstack([base_vectors, learned_vectors]),
                                    np.concatenate([base_owner, learned_owner]), classes)
    learned = LearnedArrays(
        vectors=np.ascontiguousarray(learned_vectors, dtype=np.float32),
        names=[index.names[o] for o in owners],
        texts=[labelled.prompts[r] for r in rows],
        classifier_weights=weights,
        classifier_bias=bias,
        classifier_names=list(index.names),
        abstain_class=abstain,
    )
    return Scores(lexical, pooled["max"], probabilities, pooled, body, has_body), learned


def _body_scores(index: Index, vectors: NDArray[np.float32] | None
                 ) -> tuple[NDArray[np.float64] | None, NDArray[np.bool_] | None]:
    """Each prompt's mean passage similarity per document, when the index has bodies."""
    if vectors is None or index.body_vectors is None or index.body_present is None:
        return None, None
    body = (vectors @ np.asarray(index.body_vectors, dtype=np.float32).T).astype(np.float64)
    return body, index.body_present


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
            "body_weight": p.body_weight,
            "lexical_floor": p.lexical_floor,
            "semantic_floor": p.semantic_floor,
            "top_k": p.top_k,
            "second_ratio": p.second_ratio,
            "second_learned_floor": p.second_learned_floor,
            "min_confidence": p.min_confidence,
            **self.metrics,
            "passes_gate": self.passes_gate,
        }


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


def _expected_matrix(index_names: Sequence[str], labelled: Labelled) -> NDArray[np.bool_]:
    position = {name: i for i, name in enumerate(index_names)}
    matrix = np.zeros((len(labelled.prompts), len(index_names)), dtype=bool)
    for row, names in enumerate(labelled.expected):
        for name in names:
            if name in position:
                matrix[row, position[name]] = True
    return matrix


def _fit_confidence(features: NDArray[np.float64], correct: NDArray[np.bool_]
                    ) -> tuple[float, ...] | None:
    """Logistic model of "the top route is right", in raw-feature weights (plain math later)."""
    if correct.all() or not correct.any():
        return None
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    usable = scale > 1e-9
    standard = np.zeros_like(features)
    standard[:, usable] = (features[:, usable] - mean[usable]) / scale[usable]
    fitted = _logistic_fit(standard, correct.astype(np.float64))
    coef = np.zeros(features.shape[1])
    coef[usable] = fitted[1:][usable] / scale[usable]
    intercept = float(fitted[0]) - float(np.dot(coef, mean))
    return (round(intercept, 6), *(round(float(c), 6) for c in coef))


def _logistic_fit(x: NDArray[np.float64], y: NDArray[np.float64], penalty: float = 1.0,
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


def _thresholds(confidence: NDArray[np.float64], negative: NDArray[np.bool_]) -> list[float | None]:
    """No threshold, a coarse ladder, and a step just above each of the top negatives."""
    ladder = [round(float(x), 2) for x in np.arange(0.05, 0.96, 0.05)]
    above = sorted({min(1.0, round(float(c) + 1e-4, 4)) for c in
                    np.sort(confidence[negative])[-40:]}) if negative.any() else []
    values: list[float | None] = [None]
    values.extend(sorted(set(ladder) | set(above)))
    return values


def _f1(precision: float | None, recall: float | None) -> float:
    if not precision or not recall:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _evaluate_row(base: OperatingPoint, scores: Scores, expected: NDArray[np.bool_],
                  max_fa: float, learnable_confidence: bool) -> tuple[Outcome, int]:
    """The best inner setting (threshold, second-route rule, top k) of one grid row."""
    n, _ = expected.shape
    many = rank_many(scores.lexical, scores.semantic, base, scores.learned)
    top1, top2, fused1, fused2 = many.top1, many.top2, many.fused1, many.fused2
    rows = np.arange(n)
    has1 = top1 >= 0
    has2 = top2 >= 0
    correct1 = has1 & np.asarray(expected[rows, np.maximum(top1, 0)], dtype=bool)
    correct2 = has2 & np.asarray(expected[rows, np.maximum(top2, 0)], dtype=bool)
    positive = np.asarray(expected.any(axis=1), dtype=bool)
    negative = ~positive
    labels = int(expected.sum())
    weights = (_fit_confidence(many.features[has1], correct1[has1])
               if learnable_confidence else None)
    confidence = np.zeros(n)
    if weights is not None:
        z = np.asarray(weights[0] + many.features[:, : len(weights) - 1] @ np.asarray(weights[1:]),
                       dtype=np.float64)
        confidence = np.where(z < -60, 0.0, 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60))))
    thresholds = _thresholds(confidence[has1], negative[has1]) if weights is not None else [None]
    # One column per threshold: which prompts route at all. Every figure is then a sum over
    # prompts, so all thresholds are evaluated by one matrix product per second-route rule.
    cut = np.array([-np.inf if t is None else t for t in thresholds])
    routes1 = (has1[:, None] & (confidence[:, None] >= cut[None, :])).astype(np.float64)
    negatives = int(negative.sum())
    positives = int(positive.sum())
    false_alarms = negative.astype(np.float64) @ routes1
    first_routes = routes1.sum(axis=0)
    first_correct = correct1.astype(np.float64) @ routes1
    best_key: tuple[bool, float, int, float] | None = None
    best_setting: tuple[int, tuple[float, float], int] = (1, (0.0, 0.0), 0)
    evaluated = 0
    # Second-route rules: a share of the first route's fused score, or (with a classifier)
    # a least probability from it.
    rules = [(ratio, 0.0) for ratio in SECOND_RATIOS]
    learned2 = np.zeros(n)
    if scores.learned is not None:
        rules += [(0.0, floor) for floor in SECOND_LEARNED_FLOORS]
        learned2 = np.where(has2, scores.learned[rows, np.maximum(top2, 0)], 0.0)

    def second_routes(top_k: int, rule: tuple[float, float]) -> NDArray[np.bool_]:
        if top_k < 2:
            return np.zeros(n, dtype=bool)
        ratio, floor = rule
        return np.asarray(has2 & (fused2 >= ratio * fused1) & (learned2 >= floor), dtype=bool)

    for top_k in TOP_KS:
        for rule in rules if top_k > 1 else [(0.0, 0.0)]:
            second = second_routes(top_k, rule)
            all_routes = first_routes + second.astype(np.float64) @ routes1
            all_correct = first_correct + (second & correct2).astype(np.float64) @ routes1
            for column in range(len(thresholds)):
                evaluated += 1
                routes = int(all_routes[column])
                correct = int(all_correct[column])
                f1 = _f1(correct / routes if routes else None,
                         correct / labels if labels else None)
                fa = float(false_alarms[column]) / negatives if negatives else 0.0
                key = ((fa <= max_fa + 1e-12) and f1 > 0.0, round(f1, 6), -routes, -fa)
                if best_key is None or key > best_key:
                    best_key, best_setting = key, (top_k, rule, column)
    top_k, (ratio, floor), column = best_setting
    threshold = thresholds[column]
    second = second_routes(top_k, (ratio, floor))
    routed1 = routes1[:, column] > 0
    routed2 = routed1 & second
    routes = int(routed1.sum() + routed2.sum())
    correct = int((routed1 & correct1).sum() + (routed2 & correct2).sum())
    precision = correct / routes if routes else None
    recall = correct / labels if labels else None
    fa_rate = float((routed1 & negative).sum()) / negatives if negatives else None
    metrics: dict[str, float | None] = {
        "false_alarm_rate": fa_rate,
        "top1": float((routed1 & correct1).sum()) / positives if positives else None,
        "recall": recall,
        "precision": precision,
        "f1": _f1(precision, recall),
        "silent_rate": float((positive & ~routed1).sum()) / positives if positives else None,
        "routes_per_prompt": routes / n,
    }
    point = base.with_params(top_k=top_k, second_ratio=ratio, second_learned_floor=floor,
                             min_confidence=threshold,
                             confidence_weights=weights if threshold is not None else None)
    assert best_key is not None
    return Outcome(point, metrics, routes, best_key[0]), evaluated


def _better(a: Outcome, b: Outcome | None) -> bool:
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
    expected = _expected_matrix(index_names, labelled)
    notes = []
    if labelled.negatives == 0:
        notes.append("no negatives (expected: []) in the labelled set: the false-alarm rate is "
                     "unmeasured and the gate cannot hold")
    floors_semantic = semantic_floors if scores.semantic is not None else (start.semantic_floor,)
    rows: list[Outcome] = []
    winner: Outcome | None = None
    evaluated = 0
    pools = [pool for pool in POOLS if pool in scores.pooled] or [start.semantic_pool]
    settings = [fusion for pool in pools for weight in scores.body_weights()
                for fusion in fusions(scores.with_pool(pool, weight), expected,
                                      start.with_params(semantic_pool=pool, body_weight=weight))]
    for fusion in settings:
        pooled = scores.with_pool(fusion.semantic_pool, fusion.body_weight)
        for lexical_floor in lexical_floors:
            for semantic_floor in floors_semantic:
                point = fusion.with_params(lexical_floor=float(lexical_floor),
                                           semantic_floor=float(semantic_floor))
                # Routing ignores the confidence model without embeddings (lexical-only).
                best, count = _evaluate_row(point, pooled, expected, max_fa,
                                            confidence and scores.semantic is not None)
                evaluated += count
                rows.append(best)
                if best.passes_gate and _better(best, winner):
                    winner = best
    relaxed = "" if max_fa == 0 else f" (relaxed by --max-fa to {max_fa:g})"
    return Calibration(rows, winner, RULE.format(relaxed=relaxed), max_fa, labelled.negatives,
                       len(labelled.prompts) - labelled.negatives, evaluated, notes)


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
        return point.with_params(learned_surfaces=None, learned=None, learned_weight=0.0)
    return point.with_params(learned_surfaces=learned_file, learned=learned_info)


def describe(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "nan"
    return f"{value:.3f}"
