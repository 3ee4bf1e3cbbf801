"""The card rules in plain Python: the fast path that decides validity without pydantic.

``gov card verify`` reads thousands of cards per run, so it neither imports pydantic nor
builds a model per card: ``accept`` checks a value against exactly the rules of
``schema.json`` and the pydantic models (a property test draws cards at the edge of every
rule and holds all three to the same answer) and returns a ``CardView``, the card's fields
as attributes, or None. Why a card was refused is the JSON Schema's business
(``gov.core.cards.schema.explain``), consulted only then.

The names and limits of the format live here too, so modules that only need them (the
checks, the contracts) stay free of pydantic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Protocol

from gov.core.cards.timestamps import is_rfc3339

SCHEMA_VERSION = "0.1.0"
CARD_TYPES = ("RESULT", "ERROR", "PLAN", "PATCH", "NOTE")
MEMORY_TARGETS = ("SOP", "BEST_PRACTICE", "SHORT_TERM", "LONG_TERM", "KV")
# The order in which fields are written, the same as ovi-cards writes them.
FIELD_ORDER = (
    "schema_version",
    "card_type",
    "task_id",
    "source_agent",
    "timestamp",
    "objective",
    "outcome",
    "key_facts",
    "actions_taken",
    "next_actions",
    "artifacts",
    "confidence",
    "memory_suggestion",
)
MAX_LINE = 256
MAX_LINES = 3
MAX_ARTIFACTS = 10
MAX_TAG = 64

_FIELDS = frozenset(FIELD_ORDER)
_MEMORY_KEYS = frozenset(("store", "target", "tags"))
_TYPES = frozenset(CARD_TYPES)
_TARGETS = frozenset(MEMORY_TARGETS)
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_TAG = re.compile(r"[a-z0-9][a-z0-9-]*")


class CardLike(Protocol):
    """What the checks read of a card: a pydantic ``Card`` and a ``CardView`` both are one."""

    @property
    def card_type(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def timestamp(self) -> str: ...
    @property
    def objective(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def key_facts(self) -> Sequence[str]: ...
    @property
    def actions_taken(self) -> Sequence[str]: ...
    @property
    def next_actions(self) -> Sequence[str]: ...
    @property
    def artifacts(self) -> Sequence[str]: ...
    @property
    def confidence(self) -> float: ...


class CardView:
    """A valid card's fields as attributes, over the very value that was checked."""

    __slots__ = (
        "actions_taken",
        "artifacts",
        "card_type",
        "confidence",
        "key_facts",
        "next_actions",
        "objective",
        "outcome",
        "task_id",
        "timestamp",
        "value",
    )

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value
        self.card_type: str = value["card_type"]
        self.task_id: str = value["task_id"]
        self.timestamp: str = value["timestamp"]
        self.objective: str = value["objective"]
        self.outcome: str = value["outcome"]
        self.key_facts: list[str] = value["key_facts"]
        self.actions_taken: list[str] = value["actions_taken"]
        self.next_actions: list[str] = value["next_actions"]
        self.artifacts: list[str] = value["artifacts"]
        self.confidence: float = float(value["confidence"])

    def to_json(self) -> dict[str, Any]:
        """The card as JSON-ready data, fields in wire order."""
        return {name: self.value[name] for name in FIELD_ORDER}


def _text(value: Any, longest: int | None = MAX_LINE) -> bool:
    return isinstance(value, str) and len(value) > 0 and (longest is None or len(value) <= longest)


def _lines(value: Any, most: int = MAX_LINES, longest: int | None = MAX_LINE) -> bool:
    if not isinstance(value, list) or len(value) > most:
        return False
    return all(isinstance(item, str) and len(item) > 0 and (longest is None or len(item) <= longest)
               for item in value)  # fmt: skip


def _memory(value: Any) -> bool:
    if not isinstance(value, dict) or not value.keys() <= _MEMORY_KEYS:
        return False
    store = value.get("store")
    if type(store) is not bool or "tags" not in value:
        return False
    if "target" in value:
        target = value["target"]
        if not (isinstance(target, str) and target in _TARGETS):
            return False  # null included: the schema allows target to be absent, never null
    elif store:
        return False
    tags = value["tags"]
    if not isinstance(tags, list):
        return False
    return all(isinstance(tag, str) and 0 < len(tag) <= MAX_TAG and _TAG.fullmatch(tag) is not None
               for tag in tags)  # fmt: skip


def _confidence(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and 0 <= value <= 1


def is_card(value: Any) -> bool:
    """Whether ``value`` is a valid card: the models' and the schema's answer, computed plainly."""
    if not isinstance(value, dict) or len(value) != len(_FIELDS) or value.keys() != _FIELDS:
        return False
    version = value["schema_version"]
    card_type = value["card_type"]
    artifacts = value["artifacts"]
    timestamp = value["timestamp"]
    return (
        isinstance(version, str) and _VERSION.fullmatch(version) is not None
        and isinstance(card_type, str) and card_type in _TYPES
        and _text(value["task_id"], None) and _text(value["source_agent"], None)
        and isinstance(timestamp, str) and is_rfc3339(timestamp)
        and _text(value["objective"]) and _text(value["outcome"])
        and _lines(value["key_facts"]) and _lines(value["actions_taken"])
        and _lines(value["next_actions"])
        and _lines(artifacts, MAX_ARTIFACTS, None)
        and (card_type != "PATCH" or len(artifacts) > 0)
        and _confidence(value["confidence"])
        and _memory(value["memory_suggestion"])
    )  # fmt: skip


def accept(value: Any) -> CardView | None:
    """The card's view when ``value`` is a valid card, else None."""
    return CardView(value) if is_card(value) else None
