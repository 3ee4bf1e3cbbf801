"""Lint configuration as data: which rules run, how severe each is, and their thresholds.

gov ships ``default.lint.json``; a corpus may carry a ``gov-lint.json`` beside its
documents (or ``gov lint --config FILE``) that overrides any of it, checked against
``lint-config.schema.json``: a rule set to ``off`` does not run. A document switches rules
off for itself with a ``**Lint-ignore:** rule-id, …`` line (``lint-ignore:`` in front
matter).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..bounded import MEGABYTE, read_regular
from ..errors import GovError
from ..index.neighbours import Thresholds as DuplicateThresholds
from .rules import BY_ID

CONFIG_LIMIT = 1 * MEGABYTE  # bytes of a lint config read at most

_HERE = Path(__file__).parent
FILE_NAME = "gov-lint.json"


class LintConfigError(GovError):
    """A lint config file that cannot be read or breaks its schema."""

    exit_code = 2
    failure_class = "input"


@dataclass(frozen=True)
class LintConfig:
    """Severity per rule ("off": not run), thresholds, the context budget, and the file."""

    severities: Mapping[str, str]
    thresholds: Mapping[str, float]
    max_tokens: int | None = None
    source: str | None = None
    disabled: frozenset[str] = field(default_factory=frozenset)

    def enabled(self, rule: str) -> bool:
        return self.severities.get(rule, "off") != "off" and rule not in self.disabled

    def severity(self, rule: str) -> str:
        return self.severities[rule]

    def threshold(self, name: str) -> float:
        return float(self.thresholds[name])

    def whole(self, name: str) -> int:
        return int(self.thresholds[name])

    def duplicates(self) -> DuplicateThresholds:
        """The near-duplicate thresholds, as the index layer takes them."""
        return DuplicateThresholds(**{name: self.threshold(name) for name in
                                      DuplicateThresholds.__dataclass_fields__})

    def with_options(self, max_tokens: int | None = None,
                     disabled: Sequence[str] = ()) -> LintConfig:
        """This config with command-line options on top."""
        unknown = [rule for rule in disabled if rule not in BY_ID]
        if unknown:
            raise LintConfigError(f"--disable: unknown rule {unknown[0]!r} (rules: "
                                  f"{', '.join(BY_ID)})")
        return LintConfig(self.severities, self.thresholds,
                          max_tokens if max_tokens is not None else self.max_tokens,
                          self.source, self.disabled | frozenset(disabled))

    def to_json(self) -> dict[str, Any]:
        return {"rules": {rule: ("off" if rule in self.disabled else severity)
                          for rule, severity in self.severities.items()},
                "thresholds": dict(self.thresholds), "max_tokens": self.max_tokens,
                "source": self.source}


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((_HERE / "lint-config.schema.json").read_bytes())
    return loaded


@functools.cache
def default_config() -> LintConfig:
    data = orjson.loads((_HERE / "default.lint.json").read_bytes())
    return LintConfig(dict(data["rules"]), dict(data["thresholds"]), data.get("max_tokens"))


def _line_of(text: str, key: str) -> int | None:
    match = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _check(data: Any, text: str, shown: str) -> None:
    """Raise one error naming the file, line and field of the first schema problem."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(_schema()).iter_errors(data),
                    key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return
    error = errors[0]
    parts = [str(part) for part in error.absolute_path]
    key = parts[-1] if parts else None
    message = error.message
    if "propertyNames" in error.absolute_schema_path:
        parts.append(str(error.instance))
        key = str(error.instance)
        message = f"unknown rule (rules: {', '.join(BY_ID)})"
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = sorted(str(k) for k in error.instance if k not in known)
        parts.extend(extra[:1])
        key = extra[0] if extra else key
        message = "unknown field"
    line = _line_of(text, key) if key else None
    where = f"{shown}:{line}" if line else shown
    raise LintConfigError(f"{where}: {'.'.join(parts) or 'config'}: {message}")


def load_config(path: str | os.PathLike[str] | None) -> LintConfig:
    """gov's defaults, overridden by the config file at ``path`` (when given)."""
    base = default_config()
    if path is None:
        return base
    shown = str(path)
    try:
        raw = read_regular(path, CONFIG_LIMIT)
    except OSError as exc:
        raise LintConfigError(f"{shown}: cannot read the lint config: "
                              f"{exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise LintConfigError(f"{shown}: not valid JSON ({exc})") from None
    _check(data, raw.decode("utf-8", "replace"), shown)
    severities = {**base.severities, **data.get("rules", {})}
    thresholds = {**base.thresholds, **data.get("thresholds", {})}
    max_tokens = data.get("max_tokens", base.max_tokens)
    return LintConfig(severities, thresholds, max_tokens, shown)


def find_config(roots: Sequence[str | os.PathLike[str]]) -> Path | None:
    """The ``gov-lint.json`` in the first corpus folder that has one (a file's folder)."""
    for root in roots:
        if str(root) == "-":
            continue
        folder = Path(root)
        if folder.is_file():
            folder = folder.parent
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate
    return None
