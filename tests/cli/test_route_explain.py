"""``gov route --explain`` in text: an abstention shows the bar, each nearest document's gate
score and how far under it was, the confidence against its floor with three decimals (never
"0.46 is under 0.46"), and the next step; a route's score is named "fused"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gov.cli.commands.route import abstention_lines
from tests.conftest import invoke_gov


def explained(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "reason": "abstained: ...", "decided": "confidence",
        "gate": {"best": 0.2388, "threshold": 0.2082},
        "confidence": {"value": 0.4571, "floor": 0.46},
        "nearest": [{"name": "a", "fused": 0.40, "gate": 0.2388, "under": None},
                    {"name": "b", "fused": 0.39, "gate": 0.2101, "under": None}],
        "next": ["two documents overlap: a and b are near-ties"]}
    return {**base, **changes}


def test_under_is_visible_in_the_digits() -> None:
    lines = abstention_lines(explained())
    assert "gate 0.239 >= threshold 0.208" in lines
    assert "confidence 0.457 < floor 0.460" in lines  # .2f would print 0.46 and 0.46
    assert "  a  gate 0.239" in lines
    assert lines[-1] == "next: two documents overlap: a and b are near-ties"


def test_gate_abstention_prints_each_gap_and_hides_a_confidence_that_cleared() -> None:
    lines = abstention_lines(explained(
        decided="gate", gate={"best": 0.189, "threshold": 0.2082},
        confidence={"value": 0.51, "floor": 0.46},
        nearest=[{"name": "code-review", "fused": 0.3, "gate": 0.189, "under": 0.0192}],
        next=["add an example line like this prompt to code-review.md (it was 0.019 under)"]))
    assert lines[0] == "gate 0.189 < threshold 0.208"
    assert not any(line.startswith("confidence") for line in lines)
    assert "  code-review  gate 0.189, 0.019 under" in lines


def test_floors_abstention_names_the_floors_and_the_fused_score() -> None:
    lines = abstention_lines(explained(
        decided="floors", gate=None, confidence=None,
        nearest=[{"name": "x", "fused": 0.0, "gate": None, "under": 0.05}], next=[]))
    assert lines == ["nearest:", "  x  fused 0.000, 0.050 under the floors"]


def test_text_route_names_the_fused_score_and_suggests_a_step(fake_index: Path) -> None:
    routed = invoke_gov("route", "roll back the release from last night deployment", "-i",
                        str(fake_index), "--format", "text")
    assert routed.returncode == 0, routed.stderr
    text = routed.stdout.decode()
    route_line = text.splitlines()[1]
    assert route_line.startswith("  1. deployment  fused ") and "score" not in route_line
    quiet = invoke_gov("route", "what is the capital of france and why is it paris", "-i",
                       str(fake_index), "--format", "text")
    text = quiet.stdout.decode()
    assert quiet.returncode == 0 and "no document governs this prompt" in text
    assert "< threshold" in text and " under" in text
    assert "next: nothing came near: the nearest" in text
