"""The card JSON Schema: loading it, and turning a rejection into field-and-rule problems.

jsonschema is imported only here and only when a card was rejected (or on request), so
the common case of a valid card never pays for it. gov checks the ``date-time`` format
and reads ``$`` as the end of the string, as ECMA-262 does; Python's ``re`` would let a
trailing newline through, which other validators of the same schema would not.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .timestamps import is_rfc3339

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.protocols import Validator
    from pydantic import ValidationError

SCHEMA_PATH = Path(__file__).with_name("schema.json")
CONTRACT_SCHEMA_PATH = Path(__file__).with_name("contract.schema.json")

TIMESTAMP_HINT = "an RFC 3339 date-time with a time zone, e.g. 2025-01-31T09:30:00Z"
_PATTERN_HINTS = {
    "schema_version": "MAJOR.MINOR.PATCH, e.g. 0.1.0",
    "timestamp": TIMESTAMP_HINT,
    "tags": "lower-case kebab-case: a-z, 0-9 and '-', not starting with '-'",
}
_JSON_TYPES = {
    "string": "a string",
    "array": "an array",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a card is invalid: where (field path), which rule, and what to fix."""

    path: str
    rule: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "rule": self.rule, "message": self.message}

    def __str__(self) -> str:
        return f"{self.path}: {self.message} ({self.rule})"


@functools.cache
def card_schema() -> dict[str, Any]:
    """The card JSON Schema (draft 2020-12) shipped with gov."""
    loaded: dict[str, Any] = orjson.loads(SCHEMA_PATH.read_bytes())
    return loaded


@functools.cache
def contract_schema() -> dict[str, Any]:
    """The JSON Schema of a verification contract file."""
    loaded: dict[str, Any] = orjson.loads(CONTRACT_SCHEMA_PATH.read_bytes())
    return loaded


@functools.cache
def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    # Our patterns are anchored with a final '$'; make it mean "end of string" only.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


@functools.cache
def card_validator() -> Validator:
    """A cached jsonschema validator for cards that checks ``date-time`` as gov does."""
    from jsonschema import Draft202012Validator, FormatChecker, validators
    from jsonschema.exceptions import ValidationError as SchemaError

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[SchemaError]:
        if validator.is_type(instance, "string") and not _ecma_pattern(patrn).search(instance):
            yield SchemaError(f"{instance!r} does not match {patrn!r}")

    def date_time(instance: object) -> bool:
        # Formats only constrain strings; other types are the "type" keyword's business.
        return not isinstance(instance, str) or is_rfc3339(instance)

    plain = Draft202012Validator.TYPE_CHECKER

    def finite_number(_checker: Any, instance: Any) -> bool:
        # NaN and the infinities are not JSON numbers, though Python hands them over as floats.
        return bool(plain.is_type(instance, "number")) and math.isfinite(instance)

    checker = FormatChecker(formats=())
    checker.checks("date-time")(date_time)
    types = plain.redefine("number", finite_number)
    cls = validators.extend(Draft202012Validator, {"pattern": pattern}, type_checker=types)
    validator: Validator = cls(card_schema(), format_checker=checker)
    return validator


def schema_accepts(value: Any) -> bool:
    """Whether the JSON Schema (as gov checks it) accepts ``value``."""
    return bool(card_validator().is_valid(value))


def _path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "$"


def _join(base: str, name: str) -> str:
    return name if base == "$" else f"{base}.{name}"


def _field_name(parts: list[Any]) -> str:
    names = [p for p in parts if isinstance(p, str)]
    return names[-1] if names else ""


def _describe(error: SchemaError) -> list[Problem]:
    parts = list(error.absolute_path)
    path = _path(parts)
    rule = str(error.validator)
    value = error.validator_value
    instance = error.instance
    name = _field_name(parts)
    if rule == "required":
        missing = [key for key in value if isinstance(instance, dict) and key not in instance]
        conditional = "then" in error.absolute_schema_path
        why = "required when store is true" if conditional else "required field is missing"
        return [Problem(_join(path, key), "required", why) for key in missing]
    if rule == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = sorted(k for k in instance if k not in known) if isinstance(instance, dict) else []
        return [Problem(_join(path, key), rule, "unknown field") for key in extra]
    if rule == "type":
        if path == "$":
            return [Problem(path, rule, "a card must be a JSON object")]
        return [Problem(path, rule, f"must be {_JSON_TYPES.get(str(value), str(value))}")]
    if rule == "enum":
        return [Problem(path, rule, "must be one of " + ", ".join(map(str, value)))]
    if rule == "minLength":
        return [Problem(path, rule, "must not be empty")]
    if rule == "maxLength":
        return [Problem(path, rule, f"must be at most {value} characters, has {len(instance)}")]
    if rule == "maxItems":
        return [Problem(path, rule, f"must have at most {value} items, has {len(instance)}")]
    if rule == "minItems":
        return [Problem(path, rule, "a PATCH card needs at least one artifact")]
    if rule in ("pattern", "format"):
        hint = _PATTERN_HINTS.get(name, f"must match {value}")
        return [Problem(path, rule, f"must be {hint}")]
    if rule in ("minimum", "maximum"):
        return [Problem(path, rule, "must be between 0 and 1")]
    return [Problem(path, rule, error.message)]


def _order(problem: Problem) -> tuple[int, str]:
    fields: list[str] = card_schema()["required"]
    top = re.split(r"[.\[]", problem.path, maxsplit=1)[0]
    rank = -1 if top == "$" else (fields.index(top) if top in fields else len(fields))
    return (rank, problem.path)


def explain(value: Any, rejection: ValidationError | None = None) -> list[Problem]:
    """Every reason the schema gives for rejecting ``value``, one problem per field and rule.

    ``rejection`` (the models' verdict) is the fallback should the schema find nothing,
    which the property tests say cannot happen.
    """
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for error in card_validator().iter_errors(value):
        for problem in _describe(error):
            key = (problem.path, problem.message)
            if key not in seen:
                seen.add(key)
                problems.append(problem)
    if not problems and rejection is not None:
        for item in rejection.errors():
            problems.append(Problem(_path(item["loc"]), item["type"], item["msg"]))
    return sorted(problems, key=_order)
