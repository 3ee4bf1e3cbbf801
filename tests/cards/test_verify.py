"""Scoring a card against a contract: rounding and clamping as ovi, the result's fields, strict, now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gov.core.cards.validate import parse_card
from gov.core.cards.verify import verify

from .conftest import base_card

NOW = datetime(2025, 6, 1, 12, tzinfo=UTC)


def test_scoring_rounds_and_clamps_as_ovi() -> None:
    card = parse_card(base_card(outcome="Done.", confidence=0.5, key_facts=[], actions_taken=[]))
    result = verify(card, now=NOW)
    assert result.passed is False
    assert result.hard_failures == ["outcome_not_empty"]
    assert result.adjusted_confidence == 0.0
    assert result.confidence_delta == -0.5
    tiny = verify(parse_card(base_card(confidence=0.00001, key_facts=[])), now=NOW)
    assert tiny.adjusted_confidence == 0.0 and str(tiny.confidence_delta) == "-0.0"
    one = verify(parse_card(base_card(confidence=0.8, key_facts=[])), now=NOW)
    assert (one.adjusted_confidence, one.confidence_delta) == (0.7, -0.1)


def test_result_fields_and_ids() -> None:
    result = verify(parse_card(base_card()), now=NOW).to_json()
    assert list(result) == [
        "contract_id", "passed", "hard_failures", "soft_failures", "checks_passed",
        "adjusted_confidence", "confidence_delta", "summary",
    ]  # fmt: skip
    assert result["contract_id"] == "result-default"
    assert result["checks_passed"] == [
        "outcome_not_empty", "outcome_not_generic", "objective_outcome_alignment",
        "confidence_not_default", "timestamp_recent", "result_has_key_facts",
        "result_has_actions",
    ]  # fmt: skip


def test_strict_fails_on_soft_failures() -> None:
    card = parse_card(base_card(key_facts=[]))
    assert verify(card, now=NOW).passed is True
    strict = verify(card, now=NOW, strict=True)
    assert strict.passed is False and "strict" in strict.summary


def test_now_defaults_to_the_clock() -> None:
    fresh = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    assert "timestamp_recent" in verify(parse_card(base_card(timestamp=fresh))).checks_passed
