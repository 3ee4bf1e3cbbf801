"""The calibration grid: the rule, its speed and exactness, the body weight, the classifier floor."""

from __future__ import annotations

import time

import numpy as np
import pytest

from gov.core.calibration import grid as cal
from gov.core.calibration.labelled import Labelled
from gov.core.calibration.scores import Scores
from gov.core.routing.background import Background
from gov.core.routing.point import OperatingPoint
from gov.core.routing.select import select

NAMES = ["alpha", "beta", "gamma"]


def labelled(expected: list[list[str]]) -> Labelled:
    return Labelled([f"prompt {i}" for i in range(len(expected))],
                        [frozenset(e) for e in expected], [None] * len(expected))


def separable() -> tuple[Labelled, Scores]:
    """Positives score 0.6 on their document; negatives at most 0.3 anywhere."""
    expected = [["alpha"], ["beta"], ["gamma"], ["alpha"], [], []]
    semantic = np.array([[0.6, 0.2, 0.1], [0.2, 0.6, 0.1], [0.1, 0.2, 0.6], [0.6, 0.1, 0.3],
                         [0.3, 0.28, 0.1], [0.1, 0.3, 0.29]])
    return labelled(expected), Scores(np.zeros_like(semantic), semantic)


def test_zero_false_alarms_is_a_hard_gate_then_f1() -> None:
    data, scores = separable()
    result = cal.calibrate(NAMES, data, scores, confidence=False)
    assert result.winner is not None
    m = result.winner.metrics
    assert m["false_alarm_rate"] == 0.0
    assert m["f1"] == pytest.approx(1.0)
    assert result.winner.point.semantic_floor > 0.3
    # Loose floors route the negatives: those rows fail the gate and are still printed.
    loose = [row for row in result.rows if row.point.semantic_floor <= 0.25]
    assert loose and not any(row.passes_gate for row in loose)
    assert "hard gate" in result.rule and "F1" in result.rule and "quieter" in result.rule


def test_ties_go_to_the_quieter_point() -> None:
    quiet = cal.Outcome(OperatingPoint(top_k=1), {"f1": 0.8, "false_alarm_rate": 0.0}, 10, True)
    loud = cal.Outcome(OperatingPoint(top_k=2), {"f1": 0.8, "false_alarm_rate": 0.0}, 14, True)
    better = cal.Outcome(OperatingPoint(), {"f1": 0.81, "false_alarm_rate": 0.0}, 30, True)
    gated = cal.Outcome(OperatingPoint(), {"f1": 0.99, "false_alarm_rate": 0.2}, 5, False)
    assert cal.better(quiet, loud) and not cal.better(loud, quiet)
    assert cal.better(better, quiet)
    assert cal.better(quiet, gated) and not cal.better(gated, quiet)


def test_max_fa_relaxes_the_gate_and_no_survivor_is_reported() -> None:
    # The negative scores like a positive: no floor separates them.
    expected = [["alpha"], ["beta"], []]
    semantic = np.array([[0.6, 0.1, 0.1], [0.1, 0.6, 0.1], [0.6, 0.1, 0.1]])
    data, scores = labelled(expected), Scores(np.zeros_like(semantic), semantic)
    strict = cal.calibrate(NAMES, data, scores, confidence=False)
    assert strict.winner is None
    assert all(not row.passes_gate for row in strict.rows)
    relaxed = cal.calibrate(NAMES, data, scores, confidence=False, max_fa=1.0)
    assert relaxed.winner is not None and relaxed.winner.metrics["false_alarm_rate"] == 1.0
    assert "relaxed by --max-fa to 1" in relaxed.rule


def test_no_negatives_is_noted() -> None:
    data = labelled([["alpha"], ["beta"]])
    semantic = np.array([[0.6, 0.1, 0.1], [0.1, 0.6, 0.1]])
    result = cal.calibrate(NAMES, data, Scores(np.zeros_like(semantic), semantic))
    assert result.winner is not None
    assert result.winner.metrics["false_alarm_rate"] is None
    assert any("unmeasured" in note for note in result.notes)


def test_confidence_threshold_abstains_where_floors_cannot() -> None:
    # Negatives have a high top score but no margin; positives a clear margin.
    expected = [["alpha"], ["beta"], ["gamma"], [], []] * 4
    rows = [[0.7, 0.3, 0.2], [0.3, 0.7, 0.2], [0.2, 0.3, 0.7], [0.7, 0.69, 0.2],
            [0.2, 0.69, 0.7]] * 4
    semantic = np.array(rows) + np.random.default_rng(0).normal(0, 0.005, (20, 3))
    data, scores = labelled(expected), Scores(np.zeros_like(semantic), semantic)
    assert cal.calibrate(NAMES, data, scores, confidence=False).winner is None
    result = cal.calibrate(NAMES, data, scores)
    assert result.winner is not None
    point = result.winner.point
    assert point.confidence_weights is not None and point.min_confidence is not None
    assert result.winner.metrics["false_alarm_rate"] == 0.0
    assert result.winner.metrics["top1"] == 1.0
    # The selection the route path runs agrees with the grid's figures.
    for row in range(len(expected)):
        chosen, _, *_ = select(scores.lexical[row], semantic[row], point)
        assert bool(chosen) == bool(expected[row])


def test_a_six_by_six_grid_over_a_thousand_prompts_takes_seconds() -> None:
    rng = np.random.default_rng(3)
    documents = 20
    truth = rng.integers(0, documents, 1000)
    semantic = rng.random((1000, documents)) * 0.5
    semantic[np.arange(1000), truth] += 0.3
    lexical = np.where(rng.random((1000, documents)) < 0.2, rng.random((1000, documents)), 0.0)
    expected = [[f"d{t}"] if i % 5 else [] for i, t in enumerate(truth)]
    data = labelled(expected)
    started = time.perf_counter()
    result = cal.calibrate([f"d{i}" for i in range(documents)], data,
                           Scores(lexical, semantic), max_fa=0.2)
    elapsed = time.perf_counter() - started
    assert len(result.rows) == 2 * 36
    assert result.evaluated > 2 * 36 * 5
    assert elapsed < 20.0, elapsed


def test_a_classifier_floor_on_the_second_route_finds_two_document_prompts() -> None:
    # Under RRF the runner-up always scores about as high as the first (ranks 1 and 2 on
    # both signals), so no score ratio tells a two-document prompt from a one-document one;
    # the classifier's probability of the runner-up does.
    expected = [["alpha"], ["beta"], ["alpha", "beta"], ["gamma"], ["beta", "gamma"]] * 3
    semantic = np.array([[0.6, 0.55, 0.1], [0.55, 0.6, 0.1], [0.6, 0.55, 0.1],
                         [0.1, 0.55, 0.6], [0.1, 0.6, 0.55]] * 3)
    learned = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.5, 0.4, 0.1],
                        [0.05, 0.05, 0.9], [0.1, 0.45, 0.45]] * 3)
    data = labelled(expected)
    scores = Scores(np.zeros_like(semantic), semantic, learned)
    base = OperatingPoint(fusion="rrf", learned_weight=1.0)
    best, _ = cal.evaluate_row(base, scores, cal.expected_matrix(NAMES, data), 0.0, False)
    point = best.point
    assert point.top_k == 2 and point.second_learned_floor > 0.0
    assert best.metrics["f1"] == pytest.approx(1.0)
    for row, names in enumerate(expected):
        chosen, _, *_ = select(scores.lexical[row], semantic[row], point, learned[row])
        assert sorted(NAMES[c.doc] for c in chosen) == sorted(names)
    shown = [outcome.row() for outcome in cal.calibrate(NAMES, data, scores, confidence=False).rows]
    assert all("second_learned_floor" in row for row in shown)


def test_calibration_weighs_the_body_when_it_separates() -> None:
    # Surfaces cannot tell alpha's prompts from beta's; the bodies can.
    names = ["alpha", "beta", "gamma"]
    expected = [["alpha"], ["beta"], ["alpha"], ["beta"], [], []] * 3
    semantic = np.array([[0.5, 0.5, 0.1], [0.5, 0.5, 0.1], [0.5, 0.49, 0.1], [0.49, 0.5, 0.1],
                         [0.3, 0.3, 0.1], [0.3, 0.3, 0.1]] * 3)
    body = np.array([[0.8, 0.1, 0.0], [0.1, 0.8, 0.0], [0.8, 0.1, 0.0], [0.1, 0.8, 0.0],
                     [0.1, 0.1, 0.0], [0.1, 0.1, 0.0]] * 3)
    data = Labelled([f"p{i}" for i in range(len(expected))], [frozenset(e) for e in expected],
                    [None] * len(expected))
    without = cal.calibrate(names, data, Scores(np.zeros_like(semantic), semantic), confidence=False)
    scores = Scores(np.zeros_like(semantic), semantic, None, {}, body,
                    np.array([True, True, False]), np.array([1, 1, 1]))
    assert scores.body_choices()[0] == 0.0 and len(scores.body_choices()) > 1
    result = cal.calibrate(names, data, scores, confidence=False)
    assert result.winner is not None and result.winner.point.body_surfaces > 0
    assert result.winner.metrics["f1"] == pytest.approx(1.0)
    assert without.winner is None or (without.winner.metrics["f1"] or 0) < 1.0
    assert {row.point.body_surfaces for row in result.rows} == set(scores.body_choices())


def orphan_gated() -> tuple[OperatingPoint, Background]:
    """A label-free point whose orphan floor (0.70) sits over its bank share's (0.475)."""
    bank = np.linspace(0.0, 0.5, 401, dtype=np.float32)
    orphans = np.linspace(0.4, 0.9, 51, dtype=np.float32)
    base = OperatingPoint(gate="background", background_alpha=0.05, orphan_quantile=0.6,
                          lexical_weight=0.0, hub_weight=0.0)
    return base, Background(np.zeros(3, dtype=np.float32), bank, None, {}, orphans)


def moved_without_a_miss(base: OperatingPoint, background: Background,
                         expected: list[list[str]], semantic: np.ndarray) -> cal.Outcome:
    """The label-free point moved by these labels, which it must then route perfectly."""
    best, _ = cal.evaluate_row(base, Scores(np.zeros_like(semantic), semantic),
                               cal.expected_matrix(NAMES, labelled(expected)), 0.0, False,
                               background)
    assert best.passes_gate and best.metrics["top1"] == 1.0
    assert best.metrics["false_alarm_rate"] == 0.0
    return best


@pytest.mark.parametrize(("positive", "negative", "orphan_quantile"), [
    (0.6, 0.3, 0.0),  # the orphan floor silences this corpus's prompts: labels lower it
    (0.8, 0.6, 0.6),  # near misses over every bank share: only the orphan floor holds them
    (0.88, 0.78, 0.8),  # near misses over the floor too: labels raise it (0.80 at q 0.8)
])
def test_labels_choose_between_the_bank_shares_and_the_label_free_floors(
        positive: float, negative: float, orphan_quantile: float) -> None:
    base, background = orphan_gated()
    assert background.threshold(base) == (pytest.approx(0.70), "orphans")
    expected = [["alpha"], ["beta"], ["gamma"], [], []]
    semantic = np.full((5, 3), 0.1)
    for row in range(3):
        semantic[row, row] = positive
    semantic[3, 0] = semantic[4, 2] = negative
    best = moved_without_a_miss(base, background, expected, semantic)
    assert best.point.orphan_quantile == orphan_quantile
    assert best.point.background_alpha_growth == 0.0


@pytest.mark.parametrize(("positive", "negative", "floor"), [
    # Near misses score over the corpus's prompts, split between two documents: only the
    # confidence floor holds them, so labels keep it.
    ([0.8, 0.2, 0.1], [0.85, 0.8, 0.1], 0.5),
    # The corpus's own prompts are split between two documents: the floor silences them,
    # while every bank share keeps the negatives out, so labels drop it.
    ([0.8, 0.75, 0.1], [0.3, 0.1, 0.1], None),
])
def test_labels_keep_or_drop_the_label_free_confidence_floor(
        positive: list[float], negative: list[float], floor: float | None) -> None:
    base = OperatingPoint(gate="background", background_alpha=0.05, fusion="weighted",
                          lexical_weight=0.0, hub_weight=0.0,
                          confidence_weights=(-2.0, 0.0, 10.0, 0.0), min_confidence=0.5)
    background = Background(np.zeros(3, dtype=np.float32),
                            np.linspace(0.0, 0.5, 401, dtype=np.float32), None, {})
    expected = [["alpha"]] * 3 + [[]] * 2
    semantic = np.array([positive] * 3 + [negative] * 2)
    best = moved_without_a_miss(base, background, expected, semantic)
    assert best.point.min_confidence == floor
    for row, names in enumerate(expected):
        chosen = select(np.zeros(3), semantic[row], best.point, None, background).chosen
        assert [NAMES[c.doc] for c in chosen[:1]] == names
