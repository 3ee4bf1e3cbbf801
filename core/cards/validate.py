"""Decide whether a value is a valid card: strict models first, the schema to explain."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .models import Card
from .schema import Problem, explain


def check_card(value: Any) -> tuple[Card | None, list[Problem]]:
    """The parsed card and no problems, or no card and every problem found."""
    try:
        return Card.model_validate(value), []
    except ValidationError as rejection:
        return None, explain(value, rejection)


def parse_card(value: Any) -> Card:
    """The card, or ``CardInvalid`` listing its problems."""
    card, problems = check_card(value)
    if card is None:
        raise CardInvalid(problems)
    return card


class CardInvalid(ValueError):
    """A value that is not a valid card; ``problems`` says why."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(map(str, problems)) or "not a valid card")
        self.problems = problems
