"""The card rules in plain Python: the fast path that decides validity without pydantic.

``gov card verify`` reads thousands of cards per run, so it neither imports pydantic nor
builds a model per card: ``is_card`` checks a value against exactly the rules of
``schema.json`` and the pydantic models (a property test draws cards at the edge of every
rule and holds all three to the same answer). The checks then read the card's JSON object
as it is. Why a card was refused is the JSON Schema's business
(``gov.core.cards.schema.explain``), consulted only then.

The names and limits of the format live here too, so modules that only need them (the
checks, the contracts) stay free of pydantic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from .timestamps import is_rfc3339

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
_UNBOUNDED = 1 << 62


# A valid card as the checks read it: its JSON object, field names as keys.
CardData = Mapping[str, Any]


def _lines(value: Any, most: int, longest: int) -> bool:
    """A list of at most ``most`` non-empty strings of at most ``longest`` characters."""
    if not isinstance(value, list) or len(value) > most:
        return False
    for item in value:  # noqa: SIM110 - a loop: three items are too few to pay for a generator
        if not isinstance(item, str) or not 0 < len(item) <= longest:
            return False
    return True


def _memory(value: Any) -> bool:
    if not isinstance(value, dict) or not value.keys() <= _MEMORY_KEYS:
        return False
    store = value.get("store")
    if not isinstance(store, bool) or "tags" not in value:
        return False
    if "target" in value:
        target = value["target"]
        if not isinstance(target, str) or target not in _TARGETS:
            return False  # null included: the schema allows target to be absent, never null
    elif store:
        return False
    tags = value["tags"]
    if not isinstance(tags, list):
        return False
    for tag in tags:
        if not isinstance(tag, str) or not 0 < len(tag) <= MAX_TAG or _TAG.fullmatch(tag) is None:
            return False
    return True


def is_card(value: Any) -> bool:
    """Whether ``value`` is a valid card: the models' and the schema's answer, computed plainly."""
    if not isinstance(value, dict) or value.keys() != _FIELDS:
        return False
    text = value["schema_version"]
    if not isinstance(text, str) or _VERSION.fullmatch(text) is None:
        return False
    card_type = value["card_type"]
    if not isinstance(card_type, str) or card_type not in _TYPES:
        return False
    for name in ("task_id", "source_agent"):
        text = value[name]
        if not isinstance(text, str) or not text:
            return False
    for name in ("objective", "outcome"):
        text = value[name]
        if not isinstance(text, str) or not 0 < len(text) <= MAX_LINE:
            return False
    text = value["timestamp"]
    if not isinstance(text, str) or not is_rfc3339(text):
        return False
    for name in ("key_facts", "actions_taken", "next_actions"):  # _lines, inlined: the hot loop
        lines = value[name]
        if not isinstance(lines, list) or len(lines) > MAX_LINES:
            return False
        for item in lines:
            if not isinstance(item, str) or not 0 < len(item) <= MAX_LINE:
                return False
    artifacts = value["artifacts"]
    if not _lines(artifacts, MAX_ARTIFACTS, _UNBOUNDED) or (card_type == "PATCH" and not artifacts):
        return False
    confidence = value["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return False
    if not (0 <= confidence <= 1 and math.isfinite(confidence)):
        return False
    return _memory(value["memory_suggestion"])
