"""An abstention's explanation says what to change: the nearest documents with how far under
the bar each was, and a next step (an example line for a close document, the overlap when the
first two are near-ties, or that nothing came near). Names: ``fused`` orders routes, ``gate``
is what the background gate compares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gov.core.routing.explain import next_steps
from gov.core.routing.indexes import load_index


def near(name: str, gate: float | None, under: float | None, fused: float = 0.1,
         source: str | None = None) -> dict[str, Any]:
    return {"name": name, "source": source, "fused": fused, "gate": gate, "under": under}


def test_a_close_document_gets_an_example_line_naming_its_file() -> None:
    steps = next_steps([near("code-review", 0.189, 0.019, source="policies/code-review.md"),
                        near("testing", 0.129, 0.079)], decided="gate", bar=0.208)
    assert steps == ["add an example line like this prompt to policies/code-review.md "
                     "(it was 0.019 under)"]


def test_nothing_near_says_so_and_that_silence_may_be_right() -> None:
    (step,) = next_steps([near("model-usage", 0.069, 0.139), near("on-call", 0.068, 0.140)],
                         decided="gate", bar=0.208)
    assert step.startswith("nothing came near: the nearest, model-usage, was 0.139 under")
    assert "staying silent is right" in step  # a far near-tie is not an overlap worth fixing


def test_near_ties_are_an_overlap_pointing_at_lint() -> None:
    steps = next_steps([near("deploy-a", 0.200, 0.008), near("deploy-b", 0.197, 0.011)],
                       decided="gate", bar=0.208)
    assert steps[0].startswith("two documents overlap: deploy-a and deploy-b are near-ties")
    assert "gate 0.200 and 0.197" in steps[0] and "gov lint" in steps[0]
    assert steps[1].startswith("add an example line like this prompt to deploy-a")


def test_one_family_close_but_not_tied_is_an_overlap_too() -> None:
    pair = [near("a", 0.200, 0.008), near("b", 0.180, 0.028)]
    assert not next_steps(pair, decided="gate", bar=0.208)[0].startswith("two documents")
    family = next_steps(pair, decided="gate", bar=0.208, same_family=True)
    assert family[0].startswith("two documents overlap: a and b are one family")


def test_a_confidence_abstention_names_the_overlap_by_fused_score() -> None:
    tied = next_steps([near("a", 0.30, None, fused=0.401), near("b", 0.10, None, fused=0.398)],
                      decided="confidence", bar=0.208)
    assert tied == [tied[0]] and "near-ties (fused 0.401 and 0.398)" in tied[0]
    alone = next_steps([near("a", 0.30, None, fused=0.40), near("b", 0.10, None, fused=0.10)],
                       decided="confidence", bar=0.208)
    assert alone == ["add an example line like this prompt to a: it cleared the bar, but the "
                     "router was not sure it is the right document"]


@pytest.mark.parametrize("decided", ["routed", "empty"])
def test_no_step_when_nothing_abstained(decided: str) -> None:
    assert next_steps([near("a", 0.3, None)], decided=decided, bar=0.2) == []
    assert next_steps([], decided="gate", bar=0.2) == []


def test_router_explains_an_abstention_with_gaps_and_steps(fake_index: Path) -> None:
    router = load_index(fake_index)
    answer = router.route("what is the capital of france and why is it paris", record=False,
                          explain=True)
    assert answer.routes == [] and answer.explain is not None
    explained = answer.explain
    assert explained["decided"] == "gate"  # the stand-in index has a background gate
    assert explained["next"][0].startswith("nothing came near"), explained
    nearest = explained["nearest"]
    assert nearest and all({"fused", "gate", "under", "source"} <= set(item) for item in nearest)
    assert all("score" not in item for item in nearest)  # one name per quantity
    gate = explained["gate"]
    assert gate["best"] < gate["threshold"] and nearest[0]["gate"] == gate["best"]
    for item in nearest:  # under is the distance to the threshold, to rounding
        assert item["under"] == pytest.approx(gate["threshold"] - item["gate"], abs=2e-4)
    assert nearest[0]["source"].endswith(f"{nearest[0]['name']}.md")


def test_router_explains_a_route_without_steps(fake_index: Path) -> None:
    router = load_index(fake_index)
    document = router.document("deployment")
    answer = router.route(f"{document.trigger} {document.examples[0]}", record=False,
                          explain=True)
    assert answer.names[:1] == ["deployment"] and answer.explain is not None
    assert answer.explain["decided"] == "routed" and answer.explain["next"] == []
    assert answer.explain["nearest"][0]["fused"] == pytest.approx(answer.routes[0].score, abs=1e-4)
