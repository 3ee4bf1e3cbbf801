"""The card tools' arguments: what each takes, the names ovi-cards uses, and one-line errors.

The MCP server and the CLI both build cards from loose input (a tool call's JSON arguments,
command-line options), so both read it here. Nothing is coerced silently except what a tool
call cannot help: a number or a boolean sent as text. A wrong argument is a
``CardArgumentError`` whose message is one line naming the argument and the rule, as the
CLI says it: ``key_facts: must have at most 3 items, has 4 (maxItems)``.

ovi-cards' MCP server names two things differently, and an agent written for it works
unchanged here: ``card_json`` for ``card``, and ``store_memory``, ``memory_target`` and
``memory_tags`` for the fields of ``memory_suggestion``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import GovError
from .schema import Problem

BUILTIN_CONTRACTS = ("default", "extended")
CARD_ALIAS = "card_json"
# ovi-cards' create_card arguments for the fields of memory_suggestion.
MEMORY_ALIASES = {"store_memory": "store", "memory_target": "target", "memory_tags": "tags"}
REQUIRED_FIELDS = ("card_type", "task_id", "source_agent", "objective", "outcome")
_TEXT = {"type": "string"}
_LINES = {"type": "array", "items": {"type": "string"}}


class CardArgumentError(GovError):
    """A tool argument that is missing, of the wrong type, or breaks a card rule."""

    exit_code = 2
    failure_class = "input"

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__(problem_text(self.problems))


def problem_text(problems: Iterable[Problem]) -> str:
    """Problems as one line: ``path: message (rule); ...``."""
    return "; ".join(str(problem) for problem in problems)


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a card tool: its name, JSON Schema, description and whether required."""

    name: str
    schema: Mapping[str, Any]
    description: str
    required: bool = False


CREATE_CARD = (
    Argument("card_type", {"type": "string", "enum": ["RESULT", "ERROR", "PLAN", "PATCH", "NOTE"]},
             "RESULT, ERROR, PLAN, PATCH or NOTE (any case).", True),
    Argument("task_id", _TEXT, "The task the card answers.", True),
    Argument("source_agent", _TEXT, "Who wrote the card, '{type}:{model}' by convention.", True),
    Argument("objective", _TEXT, "What the agent was asked to do (1-256 characters).", True),
    Argument("outcome", _TEXT, "What happened, in one sentence (1-256 characters).", True),
    Argument("key_facts", _LINES, "Up to three facts the orchestrator needs."),
    Argument("actions_taken", _LINES, "Up to three things the agent did (none for a NOTE)."),
    Argument("next_actions", _LINES, "Up to three things that should happen next."),
    Argument("artifacts", {"type": "array", "items": {"type": "string"}},
             "Up to ten paths, URLs or ids holding the detail; a PATCH names at least one."),
    Argument("confidence", {"type": "number", "minimum": 0, "maximum": 1},
             "0 to 1; default per type: RESULT 0.8, ERROR 0.7, PLAN 0.6, PATCH 0.85, NOTE 0.7."),
    Argument("memory_suggestion", {"type": "object"},
             "{store, target, tags}; default per type: an ERROR is stored as an SOP, a PATCH "
             "as a BEST_PRACTICE, others not stored."),
    Argument("store_memory", {"type": "boolean"},
             "ovi-cards' name for memory_suggestion.store (give these or memory_suggestion)."),
    Argument("memory_target", {"type": ["string", "null"],
                               "enum": ["SOP", "BEST_PRACTICE", "SHORT_TERM", "LONG_TERM", "KV", None]},
             "ovi-cards' name for memory_suggestion.target."),
    Argument("memory_tags", _LINES, "ovi-cards' name for memory_suggestion.tags."),
    Argument("timestamp", _TEXT, "RFC 3339 time of the card; default: now, in UTC."),
)  # fmt: skip
_CARD = {"type": ["object", "string"]}
CHECK_CARD = (
    Argument("card", _CARD, "The card: a JSON object, or its JSON text."),
    Argument(CARD_ALIAS, _CARD, "ovi-cards' name for card; give one of the two."),
)
VERIFY_CARD = (
    *CHECK_CARD,
    Argument("contract", {"type": "string", "enum": list(BUILTIN_CONTRACTS), "default": "default"},
             "The built-in contract: default (ovi-cards 0.1.0 exactly) or extended."),
    Argument("strict", {"type": "boolean", "default": False}, "Fail the card on SOFT failures too."),
)
ARGUMENTS = {"create_card": CREATE_CARD, "validate_card": CHECK_CARD, "verify_card": VERIFY_CARD}


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise CardArgumentError([Problem(name, "type", "must be true or false")])


def _number(value: Any) -> Any:
    """A number sent as text becomes the number; anything else is left for the card rules."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    return value


def _rename(problem: Problem, aliases: Mapping[str, str]) -> Problem:
    """A card problem in the words of the arguments the caller used."""
    for alias, field in aliases.items():
        path = f"memory_suggestion.{field}"
        if problem.path == path or problem.path.startswith(path + "["):
            message = problem.message.replace("store is true", "store_memory is true")
            return Problem(alias + problem.path[len(path) :], problem.rule, message)
    return problem


def card_fields(arguments: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """``create_card``'s arguments as card fields, and the ovi-cards names that were used.

    Arguments that are ``None`` count as absent (the memory fields then take the card type's
    defaults, merged with what was given); ``card_type`` may be in any case;
    ``confidence`` may come as text. Raises ``CardArgumentError`` for memory arguments given
    both ways or a non-boolean ``store_memory``.
    """
    given = {key: value for key, value in arguments.items() if value is not None}
    used = {alias: field for alias, field in MEMORY_ALIASES.items() if alias in given}
    if used and "memory_suggestion" in given:
        raise CardArgumentError([Problem(
            "memory_suggestion", "oneOf",
            "give memory_suggestion or store_memory, memory_target and memory_tags, not both",
        )])
    fields = {key: value for key, value in given.items() if key not in MEMORY_ALIASES}
    if isinstance(fields.get("card_type"), str):
        fields["card_type"] = fields["card_type"].upper()
    if "confidence" in fields:
        fields["confidence"] = _number(fields["confidence"])
    if used:
        memory: dict[str, Any] = {}
        if "store_memory" in given:
            memory["store"] = _flag(given["store_memory"], "store_memory")
        if "memory_target" in given:
            target = given["memory_target"]
            memory["target"] = target.upper() if isinstance(target, str) else target
        if "memory_tags" in given:
            memory["tags"] = given["memory_tags"]
        fields["memory_suggestion"] = memory
    return fields, used


def create_card(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The card ``create_card``'s arguments describe, defaults filled in, as JSON data."""
    from .build import build_card
    from .validate import CardInvalid

    fields, used = card_fields(arguments)
    missing = [Problem(name, "required", "required field is missing")
               for name in REQUIRED_FIELDS if name not in fields]  # fmt: skip
    if missing:
        raise CardArgumentError(missing)
    try:
        card = build_card(fields)
    except CardInvalid as exc:
        # Who spoke ovi-cards' memory arguments hears about them by those names.
        aliases = MEMORY_ALIASES if used else {}
        raise CardArgumentError(_rename(problem, aliases) for problem in exc.problems) from None
    return card.to_json()


def card_argument(arguments: Mapping[str, Any]) -> Any:
    """The card a ``validate_card`` or ``verify_card`` call names, as ``card`` or ``card_json``."""
    has_card = arguments.get("card") is not None
    has_alias = arguments.get(CARD_ALIAS) is not None
    if has_card and has_alias:
        raise CardArgumentError([Problem("card", "oneOf", "give card or card_json, not both")])
    if not (has_card or has_alias):
        raise CardArgumentError([Problem("card", "required", "required argument is missing")])
    return arguments["card"] if has_card else arguments[CARD_ALIAS]


def contract_argument(arguments: Mapping[str, Any]) -> str:
    """The built-in contract a call names (``default`` when it names none); never a path."""
    name = arguments.get("contract")
    if name is None:
        return "default"
    if name not in BUILTIN_CONTRACTS:
        raise CardArgumentError([Problem("contract", "enum", "must be one of default, extended")])
    return str(name)


def strict_argument(arguments: Mapping[str, Any]) -> bool:
    value = arguments.get("strict")
    return False if value is None else _flag(value, "strict")


def memory_option(store: str | None, tags: list[str] | None) -> dict[str, Any] | None:
    """``memory_suggestion`` from the CLI's ``--store TARGET|none`` and ``--tag`` options."""
    if store is None and not tags:
        return None
    memory: dict[str, Any] = {}
    if store is not None:
        if store.lower() == "none":
            memory["store"] = False
        else:
            memory["store"] = True
            memory["target"] = store.upper()
    if tags:
        memory["tags"] = list(tags)
    return memory
