"""The JSON Schema and the pydantic models accept and reject exactly the same cards.

Cards are drawn near the edges of every rule: lengths 0/1/256/257, list sizes at and
past their limits, wrong JSON types, nulls, unknown fields, store without a target,
tags and versions with stray newlines or non-ASCII digits, and timestamps that are
almost RFC 3339.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov.core.cards.plain import is_card
from gov.core.cards.schema import card_validator, schema_accepts
from gov.core.cards.validate import check_card

from .conftest import base_card

FIELDS = list(base_card())
LIST_FIELDS = ["key_facts", "actions_taken", "next_actions", "artifacts"]

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)  # fmt: skip
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
edgy_text = st.one_of(
    st.text(min_size=0, max_size=3),
    st.sampled_from(["", " ", "a", "x" * 255, "x" * 256, "x" * 257, "é" * 256, "é" * 257,
                     "\n", "a\n", "done", "ok"]),
)  # fmt: skip
timestamps = st.one_of(
    st.sampled_from([
        "2025-06-01T09:00:00Z", "2025-06-01t09:00:00z", "2025-06-01T09:00:00.123456789+05:30",
        "2025-06-01T09:00:00", "2025-06-01 09:00:00Z", "2025-06-01T09:00:00Z\n",
        "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2025-13-01T00:00:00Z",
        "2025-04-31T00:00:00Z", "2025-06-01T24:00:00Z", "2025-06-01T23:59:60Z",
        "2025-06-01T23:59:61Z", "2025-06-01T09:00:00+24:00", "2025-06-01T09:00:00+23:59",
        "2025-06-01T09:00:00-00:00", "2025-06-01T09:00Z", "20250601T090000Z",
        "٢٠٢٥-06-01T09:00:00Z",
        "2025-06-00T09:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.9Z", "",
    ]),
    st.builds(
        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}".format,
        st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 25),
        st.integers(0, 61), st.integers(0, 61),
        st.sampled_from(["Z", "z", "+00:00", "-23:59", "+24:00", "+05:60", ""]),
    ),
)  # fmt: skip
tags = st.one_of(
    st.from_regex(r"[a-z0-9][a-z0-9-]{0,70}", fullmatch=True),
    st.sampled_from(["", "-a", "A", "a_b", "a\n", "ab-", "é", "x" * 64, "x" * 65]),
)
versions = st.one_of(
    st.sampled_from(["0.1.0", "1.2.3", "0.1", "0.1.0\n", "v0.1.0", "1.2.3-rc1", "١.٠.٠", ""]),
    st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}", fullmatch=True),
)
numbers = st.one_of(
    st.floats(-0.5, 1.5, allow_nan=False),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), -0.0]),
    st.sampled_from([0, 1, 2, -1, 0.0, -0.0, 1.0, True, False]),
    st.integers(-2, 2), st.text(max_size=3),
)  # fmt: skip


@st.composite
def mutation(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from([
        "drop", "extra", "retype", "text", "list", "item", "number", "timestamp", "version",
        "card_type", "memory", "tags", "patch",
    ]))  # fmt: skip

    def apply(card: dict[str, Any]) -> None:
        if kind == "drop":
            card.pop(draw(st.sampled_from(FIELDS)), None)
        elif kind == "extra":
            card[draw(st.sampled_from(["extra", "notes", "Task_id"]))] = draw(json_values)
        elif kind == "retype":
            card[draw(st.sampled_from(FIELDS))] = draw(json_values)
        elif kind == "text":
            field = draw(st.sampled_from(["task_id", "source_agent", "objective", "outcome"]))
            card[field] = draw(edgy_text)
        elif kind == "list":
            field = draw(st.sampled_from(LIST_FIELDS))
            card[field] = draw(st.lists(edgy_text, max_size=12))
        elif kind == "item":
            field = draw(st.sampled_from(LIST_FIELDS))
            card[field] = [draw(st.one_of(edgy_text, json_values))]
        elif kind == "number":
            card["confidence"] = draw(numbers)
        elif kind == "timestamp":
            card["timestamp"] = draw(timestamps)
        elif kind == "version":
            card["schema_version"] = draw(versions)
        elif kind == "card_type":
            card["card_type"] = draw(
                st.sampled_from(["RESULT", "ERROR", "PLAN", "PATCH", "NOTE", "result", "Note", "", "OTHER"])
            )
        elif kind == "memory":
            memory: dict[str, Any] = {}
            if draw(st.booleans()):
                memory["store"] = draw(st.one_of(st.booleans(), json_scalars))
            if draw(st.booleans()):
                memory["target"] = draw(
                    st.sampled_from(
                        ["SOP", "BEST_PRACTICE", "SHORT_TERM", "LONG_TERM", "KV", None, "sop", ""]
                    )
                )
            if draw(st.booleans()):
                memory["tags"] = draw(st.lists(tags, max_size=3))
            if draw(st.integers(0, 9)) == 0:
                memory["extra"] = 1
            card["memory_suggestion"] = memory if draw(st.integers(0, 9)) else draw(json_values)
        elif kind == "tags":
            card["memory_suggestion"] = {"store": False, "tags": draw(st.lists(tags, max_size=3))}
        elif kind == "patch":
            card["card_type"] = "PATCH"
            card["artifacts"] = draw(st.lists(st.sampled_from(["a.py", ""]), max_size=2))

    return apply


@st.composite
def cards(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 19)) == 0:
        return draw(json_values)
    card = copy.deepcopy(base_card())
    for apply in draw(st.lists(mutation(), min_size=0, max_size=3)):
        apply(card)
    return card


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cards())
def test_schema_and_models_agree(card: Any) -> None:
    model, problems = check_card(card)
    assert (model is not None) == schema_accepts(card), (card, problems)
    # The plain rules that gov card verify decides with give the same answer too.
    assert is_card(card) == (model is not None), (card, problems)
    # A rejection is always explained by the schema itself, never by the fallback.
    if model is None:
        assert problems
        assert list(card_validator().iter_errors(card))


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    from jsonschema import Draft202012Validator

    from gov.core.cards.schema import card_schema, contract_schema

    Draft202012Validator.check_schema(card_schema())
    Draft202012Validator.check_schema(contract_schema())


def test_nan_and_infinite_confidence_are_refused_by_schema_and_models_alike() -> None:
    from gov.core.cards.schema import Problem

    for value in (float("nan"), float("inf"), -float("inf")):
        card = base_card(confidence=value)
        model, problems = check_card(card)
        assert model is None and not schema_accepts(card)
        assert problems == [Problem("confidence", "type", "must be a number")]
