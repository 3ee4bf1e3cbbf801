"""The confidence floor under the background gate: a prompt that clears the threshold still
abstains when its first route is unlikely to be right, and says so."""

from __future__ import annotations

import numpy as np
import pytest

from gov.core.routing.background import Background
from gov.core.routing.confidence import logistic_many
from gov.core.routing.point import OperatingPoint
from gov.core.routing.select import background_features, select

BANK = np.linspace(0.0, 0.5, 401, dtype=np.float32)
# Confidence = logistic(-2 + 10 * margin): a margin of 0.2 is the even point.
WEIGHTS = (-2.0, 0.0, 10.0, 0.0)


def gated(floor: float | None) -> tuple[OperatingPoint, Background]:
    point = OperatingPoint(gate="background", background_alpha=0.05, fusion="weighted",
                           lexical_weight=0.0, semantic_weight=1.0, hub_weight=0.0,
                           confidence_weights=WEIGHTS, min_confidence=floor)
    return point, Background(np.zeros(3, dtype=np.float32), BANK, None, {})


def test_a_clear_winner_routes_and_names_the_floor_it_cleared() -> None:
    point, background = gated(0.5)
    chosen, confidence, reason, gate = select(np.zeros(3), np.array([0.9, 0.3, 0.1]), point,
                                              None, background)
    assert chosen[0].doc == 0
    assert confidence == pytest.approx(float(logistic_many(WEIGHTS, np.array([[
        background.rarities(np.array([0.9]))[0], 0.6, 0.0]]))[0]))
    assert gate is not None and gate.top > gate.threshold
    assert reason.startswith("routed: best gate score 0.900 clears the threshold")
    assert f"its confidence {confidence:.3f} the point's floor 0.500" in reason


def test_a_split_prompt_over_the_threshold_abstains_under_the_floor() -> None:
    semantic = np.array([0.9, 0.85, 0.1])
    point, background = gated(0.5)
    chosen, confidence, reason, gate = select(np.zeros(3), semantic, point, None, background)
    assert chosen == [] and confidence is not None and confidence < 0.5
    assert gate is not None and gate.top > gate.threshold
    assert reason == (f"abstained: best gate score 0.900 clears the threshold {gate.threshold:.3f}, "
                      f"but confidence {confidence:.3f} is under the point's floor 0.500")
    # Without the floor the same prompt routes: the floor, not the threshold, held it back.
    off, _ = gated(None)
    assert [c.doc for c in select(np.zeros(3), semantic, off, None, background).chosen][:1] == [0]


def test_rarity_is_the_smoothed_share_of_the_bank_scoring_as_high() -> None:
    _, background = gated(None)
    rarity = background.rarities(np.array([-1.0, 0.25, 0.5, 2.0]))
    # 401 bank scores: all of them at least -1.0; 201 at least 0.25; 1 at least 0.5; none 2.0
    assert rarity == pytest.approx([0.0, -np.log10(202 / 402), -np.log10(2 / 402),
                                    -np.log10(1 / 402)])


def test_the_features_are_rarity_margin_head_and_mass_per_prompt() -> None:
    _, background = gated(None)
    # Two prompts over three documents; the second prompt has no first route (-1).
    learned = np.array([[0.7, 0.1, 0.05], [0.2, 0.1, 0.0]])
    rows = background_features(background, np.array([0.9, 0.1]), np.array([0.8, 0.3]),
                               np.array([0.2, 0.0]), learned, np.array([0, -1]))
    assert rows.shape == (2, 4)
    assert rows[:, 0] == pytest.approx(background.rarities(np.array([0.9, 0.1])))
    assert rows[:, 1] == pytest.approx([0.6, 0.3]) and rows[:, 2] == pytest.approx([0.7, 0.0])
    # The head's mass on any document: 1 less what it leaves on "none".
    assert rows[:, 3] == pytest.approx([0.85, 0.3])


def test_a_family_pools_the_head_probability_of_its_members() -> None:
    _, background = gated(None)
    learned = np.array([[0.3, 0.25, 0.2]])
    families = np.array([0, 0, 1])
    pooled = background_features(background, np.array([0.5]), np.array([0.4]), np.array([0.1]),
                                 learned, np.array([1]), families)
    alone = background_features(background, np.array([0.5]), np.array([0.4]), np.array([0.1]),
                                learned, np.array([1]))
    assert pooled[0, 2] == pytest.approx(0.55) and alone[0, 2] == pytest.approx(0.25)


def test_without_a_head_the_head_feature_is_zero_and_the_mass_one() -> None:
    _, background = gated(None)
    rows = background_features(background, np.array([0.5]), np.array([0.4]), np.array([0.1]),
                               None, np.array([0]))
    assert rows[0, 2] == 0.0 and rows[0, 3] == 1.0
