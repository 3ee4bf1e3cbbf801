"""Admission floors, reciprocal-rank fusion, selection and abstention, on known scores; the
vectorised ranking agrees with the route path."""

from __future__ import annotations

import numpy as np
import pytest

from gov.core.routing.confidence import features as confidence_features
from gov.core.routing.point import OperatingPoint
from gov.core.routing.select import (
    Gate,
    deciding_rule,
    nearest_documents,
    rank,
    rank_many,
    route_many,
    second_routes,
    select,
)

POINT = OperatingPoint()  # floors 0.10 / 0.25, k = 60, two routes


def test_rrf_adds_one_over_k_plus_rank_from_each_scorer() -> None:
    lexical = np.array([0.50, 0.20, 0.05, 0.0])
    semantic = np.array([0.30, 0.60, 0.40, 0.10])
    chosen, confidence, *_ = select(lexical, semantic, POINT)
    assert confidence is None
    # doc0: lexical rank 1 + semantic rank 3; doc1: lexical rank 2 + semantic rank 1.
    fused = {c.doc: c.fused for c in chosen}
    assert [c.doc for c in chosen] == [1, 0]
    assert np.isclose(fused[1], 1 / 62 + 1 / 61)
    assert np.isclose(fused[0], 1 / 61 + 1 / 63)


def test_scores_below_a_floor_are_not_admitted_and_are_reported_as_null() -> None:
    lexical = np.array([0.05, 0.0])
    semantic = np.array([0.30, 0.20])
    (only,), *_ = select(lexical, semantic, POINT)
    assert only.doc == 0 and only.lexical is None and only.semantic == 0.30


def test_a_prompt_no_scorer_admits_routes_to_nothing() -> None:
    chosen, _, *_ = select(np.array([0.09, 0.0]), np.array([0.24, 0.1]), POINT)
    assert chosen == []


def test_at_most_top_k_routes() -> None:
    lexical = np.linspace(0.9, 0.2, 6)
    chosen, _, *_ = select(lexical, np.linspace(0.8, 0.3, 6), POINT)
    assert len(chosen) == 2
    one, _, *_ = select(lexical, None, POINT.with_params(top_k=1))
    assert len(one) == 1


def test_lexical_only_when_there_is_no_semantic_score() -> None:
    chosen, _, *_ = select(np.array([0.0, 0.4, 0.2]), None, POINT)
    assert [c.doc for c in chosen] == [1, 2]
    assert all(c.semantic is None for c in chosen)


def test_confidence_gate_abstains_below_the_threshold() -> None:
    point = POINT.with_params(confidence_weights=(-5.0, 10.0, 0.0, 0.0, 0.0), min_confidence=0.5)
    sure, conf_sure, *_ = select(np.zeros(2), np.array([0.9, 0.3]), point)
    unsure, conf_unsure, *_ = select(np.zeros(2), np.array([0.3, 0.29]), point)
    assert sure and conf_sure is not None and conf_sure > 0.5
    assert unsure == [] and conf_unsure is not None and conf_unsure < 0.5


def test_second_ratio_drops_a_weak_second_route() -> None:
    lexical = np.array([0.5, 0.0])
    semantic = np.array([0.6, 0.3])
    both, _, *_ = select(lexical, semantic, POINT)
    assert len(both) == 2
    one, _, *_ = select(lexical, semantic, POINT.with_params(second_ratio=0.6))
    assert [c.doc for c in one] == [0]


def test_second_learned_floor_needs_the_classifier_to_back_a_second_route() -> None:
    lexical = np.zeros(3)
    semantic = np.array([0.6, 0.55, 0.1])
    point = POINT.with_params(second_learned_floor=0.2)
    shared = np.array([0.5, 0.4, 0.1])  # both documents govern: the classifier splits its mass
    lone = np.array([0.9, 0.05, 0.05])  # a near runner-up the classifier does not back
    assert [c.doc for c in select(lexical, semantic, point, shared).chosen] == [0, 1]
    assert [c.doc for c in select(lexical, semantic, point, lone).chosen] == [0]
    # Without a classifier the floor has nothing to read and does not apply.
    assert [c.doc for c in select(lexical, semantic, point).chosen] == [0, 1]


@pytest.mark.parametrize("fusion", ["rrf", "weighted"])
def test_vectorised_ranking_matches_the_route_path(fusion: str) -> None:
    rng = np.random.default_rng(7)
    lexical = np.where(rng.random((300, 12)) < 0.4, rng.random((300, 12)) * 0.6, 0.0)
    semantic = rng.random((300, 12)) * 0.8
    semantic[:20] = np.round(semantic[:20], 1)  # ties must break the same way
    learned = rng.dirichlet(np.ones(12), size=300)
    point = OperatingPoint(fusion=fusion, lexical_floor=0.1, semantic_floor=0.3,
                           lexical_weight=0.3, semantic_weight=0.5, learned_weight=0.2)
    many = rank_many(lexical, semantic, point, learned)
    for row in range(300):
        order, fusion, _ = rank(lexical[row], semantic[row], point, learned[row])
        fused = fusion.fused
        assert many.top1[row] == (order[0] if order.size else -1)
        assert many.top2[row] == (order[1] if order.size > 1 else -1)
        if order.size:
            assert many.fused1[row] == pytest.approx(fused[order[0]])
            features = confidence_features(lexical[row][None, :], semantic[row][None, :],
                                           learned[row][None, :], fused[None, :], order[:1])
            assert many.features[row] == pytest.approx(features[0])


@pytest.mark.parametrize(("ratio", "learned_floor"), [(0.0, 0.0), (0.85, 0.0), (0.0, 0.2)])
def test_the_rules_calibration_uses_decide_as_a_route_does(ratio: float,
                                                          learned_floor: float) -> None:
    # Calibration decides who routes and who takes a second route over many prompts at once
    # (route_many, second_routes); each prompt must get what select gives it alone.
    rng = np.random.default_rng(11)
    lexical = np.where(rng.random((200, 8)) < 0.4, rng.random((200, 8)) * 0.6, 0.0)
    semantic = rng.random((200, 8)) * 0.7
    learned = rng.dirichlet(np.ones(8), size=200)
    point = POINT.with_params(confidence_weights=(-4.0, 9.0, 0.0, 0.0, 0.0),
                              min_confidence=0.4, second_ratio=ratio,
                              second_learned_floor=learned_floor)
    many, routed = route_many(lexical, semantic, point, learned)
    rows = np.arange(200)
    learned2 = np.where(many.top2 >= 0, learned[rows, np.maximum(many.top2, 0)], 0.0)
    second = second_routes(many.top2 >= 0, many.fused1, many.fused2, learned2, ratio,
                           learned_floor)
    assert 0 < routed.sum() < 200 and second[routed].sum() > 0
    for row in range(200):
        chosen = select(lexical[row], semantic[row], point, learned[row]).chosen
        assert bool(routed[row]) == bool(chosen)
        if chosen:
            assert (len(chosen) == 2) == bool(second[row])


def test_the_explanation_names_the_rule_that_decided() -> None:
    gate = Gate(top=0.2, threshold=0.3, guard="bank")
    assert deciding_rule(True, gate, 0.1, 0.5) == "routed"
    assert deciding_rule(False, gate, 0.9, 0.5) == "gate"
    assert deciding_rule(False, gate._replace(top=0.4), 0.1, 0.5) == "confidence"
    assert deciding_rule(False, None, 0.6, 0.5) == "floors"
    lexical = np.array([0.1, 0.5, 0.0])
    semantic = np.array([0.2, 0.1, 0.3])
    none = np.array([], dtype=np.intp)
    assert list(nearest_documents(lexical, semantic, none, None, 2)) == [2, 0]
    assert list(nearest_documents(lexical, None, none, None, 2)) == [1, 0]
    assert list(nearest_documents(lexical, semantic, np.array([1, 0]), None, 1)) == [1]
    assert list(nearest_documents(lexical, semantic, none, np.array([0.1, 0.9, 0.5]), 3)) \
        == [1, 2, 0]
