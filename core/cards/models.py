"""Pydantic models of a task card: the fast path that decides whether a card is valid.

They hold exactly the rules of ``schema.json`` (a property test keeps the two in step).
They are strict, so JSON types are never coerced: ``"0.8"`` is not a confidence and
``1`` is not a boolean. The JSON Schema is only consulted to explain a rejection.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from .plain import CARD_TYPES, FIELD_ORDER, MEMORY_TARGETS, SCHEMA_VERSION
from .timestamps import is_rfc3339

__all__ = ["CARD_TYPES", "FIELD_ORDER", "MEMORY_TARGETS", "SCHEMA_VERSION", "Card", "MemorySuggestion"]

CardType = Literal["RESULT", "ERROR", "PLAN", "PATCH", "NOTE"]
MemoryTarget = Literal["SOP", "BEST_PRACTICE", "SHORT_TERM", "LONG_TERM", "KV"]


def _rfc3339(value: str) -> str:
    if not is_rfc3339(value):
        raise ValueError("must be an RFC 3339 date-time with a time zone")
    return value


NonEmpty = Annotated[str, Field(min_length=1)]
Line = Annotated[str, Field(min_length=1, max_length=256)]
Lines = Annotated[list[Line], Field(max_length=3)]
Tag = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9-]*$")]
Timestamp = Annotated[str, AfterValidator(_rfc3339)]

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)


class MemorySuggestion(BaseModel):
    """Whether and where the orchestrator should store the card."""

    model_config = _STRICT

    store: bool
    target: MemoryTarget | None = None
    tags: list[Tag]

    @model_validator(mode="after")
    def _target_rules(self) -> MemorySuggestion:
        # The schema allows target to be absent but never null.
        if self.target is None and "target" in self.model_fields_set:
            raise ValueError("target must be one of the memory targets, not null")
        if self.store and self.target is None:
            raise ValueError("target is required when store is true")
        return self

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"store": self.store}
        if self.target is not None:
            out["target"] = self.target
        out["tags"] = list(self.tags)
        return out


class Card(BaseModel):
    """One task card, schema version 0.1.0."""

    model_config = _STRICT

    schema_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")]
    card_type: CardType
    task_id: NonEmpty
    source_agent: NonEmpty
    timestamp: Timestamp
    objective: Line
    outcome: Line
    key_facts: Lines
    actions_taken: Lines
    next_actions: Lines
    artifacts: Annotated[list[NonEmpty], Field(max_length=10)]
    confidence: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
    memory_suggestion: MemorySuggestion

    @model_validator(mode="after")
    def _patch_names_artifacts(self) -> Card:
        if self.card_type == "PATCH" and not self.artifacts:
            raise ValueError("a PATCH card needs at least one artifact")
        return self

    def to_json(self) -> dict[str, Any]:
        """The card as JSON-ready data, fields in wire order."""
        return {
            "schema_version": self.schema_version,
            "card_type": self.card_type,
            "task_id": self.task_id,
            "source_agent": self.source_agent,
            "timestamp": self.timestamp,
            "objective": self.objective,
            "outcome": self.outcome,
            "key_facts": list(self.key_facts),
            "actions_taken": list(self.actions_taken),
            "next_actions": list(self.next_actions),
            "artifacts": list(self.artifacts),
            "confidence": self.confidence,
            "memory_suggestion": self.memory_suggestion.to_json(),
        }
