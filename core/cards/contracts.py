"""Verification contracts as data: which checks run, how hard each is, what failing costs.

Two contracts ship with gov: ``default`` (ovi-cards 0.1.0, exactly) and ``extended``
(its quirks fixed). A contract file may ``extend`` either and override a few settings.
The repository checks have severities in a contract like the others, and run only when a
repository is given.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import orjson

from ..bounded import MEGABYTE, read_regular
from ..errors import GovError
from .checks import CHECKS, Check
from .plain import CARD_TYPES
from .repo_checks import REPO_CHECKS, RepoCheck

CONTRACT_LIMIT = 1 * MEGABYTE  # bytes of a contract file read at most

Severity = Literal["HARD", "SOFT", "OFF"]
# Every check a contract can name: the card's own, then the repository ones.
CHECK_NAMES = tuple(check.name for check in CHECKS) + tuple(check.name for check in REPO_CHECKS)
BUILTIN = ("default", "extended")
_HERE = Path(__file__).parent


class ContractError(GovError):
    """A contract file that cannot be read or breaks the contract schema."""

    exit_code = 2
    failure_class = "input"


@dataclass(frozen=True, slots=True)
class Step:
    """One check as a contract runs it on one card type."""

    check: Check
    hard: bool


@dataclass(frozen=True, slots=True)
class RepoStep:
    """One repository check as a contract runs it on one card type."""

    check: RepoCheck
    hard: bool


class Plan(NamedTuple):
    """One card type's steps, column by column."""

    names: tuple[str, ...]
    tests: tuple[Callable[[Any, Any], bool], ...]
    hard: tuple[bool, ...]
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Contract:
    """A named set of check severities with the penalties and the pass mark."""

    id: str
    severities: Mapping[str, Severity]
    hard_penalty: float = 0.25
    soft_penalty: float = 0.1
    min_adjusted_confidence: float = 0.0
    description: str = ""
    source: str = "built in"  # "built in", or the path the contract was read from
    steps: Mapping[str, tuple[Step, ...]] = field(init=False, repr=False, compare=False)
    repo_steps: Mapping[str, tuple[RepoStep, ...]] = field(init=False, repr=False, compare=False)
    # Per card type, the steps' names, tests, hardness and reasons side by side, and the id
    # results report: what the verify loop reads, flat, for every card.
    plans: Mapping[str, Plan] = field(init=False, repr=False, compare=False)
    ids: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plans: dict[str, tuple[Step, ...]] = {}
        repo_plans: dict[str, tuple[RepoStep, ...]] = {}
        for card_type in CARD_TYPES:
            plans[card_type] = tuple(
                Step(check, self.severities[check.name] == "HARD")
                for check in CHECKS
                if self.severities.get(check.name, "OFF") != "OFF"
                and (check.card_types is None or card_type in check.card_types)
            )
            repo_plans[card_type] = tuple(
                RepoStep(check, self.severities[check.name] == "HARD")
                for check in REPO_CHECKS
                if self.severities.get(check.name, "OFF") != "OFF"
                and (check.card_types is None or card_type in check.card_types)
            )
        object.__setattr__(self, "steps", plans)
        object.__setattr__(self, "repo_steps", repo_plans)
        flat = {
            card_type: Plan(
                tuple(s.check.name for s in steps),
                tuple(s.check.test for s in steps),
                tuple(s.hard for s in steps),
                tuple(s.check.reason for s in steps),
            )
            for card_type, steps in plans.items()
        }
        object.__setattr__(self, "plans", flat)
        object.__setattr__(self, "ids", {card_type: self.contract_id(card_type) for card_type in CARD_TYPES})

    def contract_id(self, card_type: str) -> str:
        """The id a result reports, one per card type as ovi-cards does: ``result-default``."""
        return f"{card_type.lower()}-{self.id}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "hard_penalty": self.hard_penalty,
            "soft_penalty": self.soft_penalty,
            "min_adjusted_confidence": self.min_adjusted_confidence,
            "checks": {name: self.severities.get(name, "OFF") for name in CHECK_NAMES},
        }


def _from_data(data: Mapping[str, Any], base: Contract | None, source: str = "built in") -> Contract:
    severities: dict[str, Severity] = dict(base.severities) if base else {}
    severities.update(data.get("checks", {}))
    return Contract(
        id=data["id"],
        severities=severities,
        hard_penalty=float(data.get("hard_penalty", base.hard_penalty if base else 0.25)),
        soft_penalty=float(data.get("soft_penalty", base.soft_penalty if base else 0.1)),
        min_adjusted_confidence=float(
            data.get("min_adjusted_confidence", base.min_adjusted_confidence if base else 0.0)
        ),
        description=str(data.get("description", "")),
        source=source,
    )


@functools.cache
def builtin_contract(name: str) -> Contract:
    """A contract shipped with gov: ``default`` or ``extended``."""
    if name not in BUILTIN:
        raise ContractError(f"no built-in contract named {name!r} (built in: {', '.join(BUILTIN)})")
    data = orjson.loads((_HERE / f"{name}.contract.json").read_bytes())
    return _from_data(data, None)


def default_contract() -> Contract:
    return builtin_contract("default")


def _line_of(text: str, key: str) -> int | None:
    match = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load_contract(spec: str) -> Contract:
    """A built-in contract by name, or a contract file by path, checked against its schema.

    A built-in name always means the built-in contract, whatever the current folder holds:
    a file or folder called ``default`` is read only when named as a path (``./default``).
    """
    if spec in BUILTIN:
        return builtin_contract(spec)
    path = Path(spec)
    try:
        raw = read_regular(path, CONTRACT_LIMIT)
    except OSError as exc:
        raise ContractError(f"{spec}: cannot read contract: {exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ContractError(f"{spec}: not valid JSON: {exc}") from None
    from jsonschema import Draft202012Validator

    from .schema import contract_schema

    errors = sorted(
        Draft202012Validator(contract_schema()).iter_errors(data),
        key=lambda e: list(map(str, e.absolute_path)),
    )
    if errors:
        error = errors[0]
        parts = [str(p) for p in error.absolute_path]
        rule = str(error.validator)
        line_key = parts[-1] if parts else None
        message = error.message
        if "propertyNames" in error.absolute_schema_path:
            rule = "propertyNames"
            parts.append(str(error.instance))
            line_key = str(error.instance)
            message = "unknown check (see `gov card contract default` for the names)"
        elif rule == "additionalProperties" and isinstance(error.instance, dict):
            known = set(error.schema.get("properties", {}))
            extra = sorted(str(k) for k in error.instance if k not in known)
            parts.extend(extra[:1])
            line_key = extra[0] if extra else None
            message = "unknown field"
        where = ".".join(parts) or "contract"
        line = _line_of(raw.decode("utf-8", "replace"), line_key) if line_key else None
        at = f"{spec}:{line}" if line else spec
        raise ContractError(f"{at}: {where}: {message} ({rule})")
    base = builtin_contract(data["extends"]) if "extends" in data else None
    return _from_data(data, base, source=spec)


def describe_source(contract: Contract) -> str:
    """Which contract ran, for people: ``contract default, built in``."""
    where = "built in" if contract.source == "built in" else f"from {contract.source}"
    return f"contract {contract.id}, {where}"
