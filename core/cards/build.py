"""Build cards with the defaults of ovi-cards' builders, so either tool's cards look alike.

Defaults: timestamp now (UTC), schema 0.1.0, a confidence per card type, and a memory
suggestion per type (an ERROR is stored as an SOP, a PATCH as a best practice, the rest
are not stored).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .models import SCHEMA_VERSION, Card
from .schema import Problem
from .timestamps import now_utc
from .validate import CardInvalid, parse_card

DEFAULT_CONFIDENCE = {"RESULT": 0.8, "ERROR": 0.7, "PLAN": 0.6, "PATCH": 0.85, "NOTE": 0.7}
DEFAULT_MEMORY_TARGET = {"ERROR": "SOP", "PATCH": "BEST_PRACTICE"}
_LISTS = ("key_facts", "actions_taken", "next_actions", "artifacts")


def default_memory(card_type: str) -> dict[str, Any]:
    target = DEFAULT_MEMORY_TARGET.get(card_type)
    if target is None:
        return {"store": False, "tags": []}
    return {"store": True, "target": target, "tags": []}


def _memory(card_type: str, given: Any) -> Any:
    if not isinstance(given, Mapping):
        return default_memory(card_type) if given is None else given
    memory = default_memory(card_type)
    if given.get("store") is False and "target" not in given:
        memory.pop("target", None)
    memory.update(given)
    return memory


def build_card(fields: Mapping[str, Any], *, now: str | None = None) -> Card:
    """A valid card from partial ``fields`` (card field names), defaults filled in.

    Raises ``CardInvalid`` naming each field and the rule it breaks.
    """
    card_type = fields.get("card_type")
    if card_type is None:
        raise CardInvalid([Problem("card_type", "required", "required field is missing")])
    if card_type == "NOTE" and fields.get("actions_taken"):
        raise CardInvalid([Problem("actions_taken", "note", "a NOTE only observes: it records no actions")])
    known = isinstance(card_type, str) and card_type in DEFAULT_CONFIDENCE
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "card_type": card_type,
        "task_id": fields.get("task_id"),
        "source_agent": fields.get("source_agent"),
        "timestamp": now or now_utc().isoformat(),
        "objective": fields.get("objective"),
        "outcome": fields.get("outcome"),
        **{name: [] for name in _LISTS},
        "confidence": DEFAULT_CONFIDENCE[card_type] if known else 0.8,
        "memory_suggestion": None,
    }
    for key, value in fields.items():
        if value is not None and key != "memory_suggestion":
            data[key] = value
    data["memory_suggestion"] = _memory(card_type if known else "", fields.get("memory_suggestion"))
    for key in ("task_id", "source_agent", "objective", "outcome"):
        if data[key] is None:
            del data[key]  # reported as a missing required field
    return parse_card(data)
