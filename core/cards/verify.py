"""Run a contract's checks over a card and score it as ovi-cards does.

Each HARD failure takes ``hard_penalty`` off the card's confidence and each SOFT one
``soft_penalty``; the result is clamped to [0, 1] and rounded to 4 places. A card passes
when no HARD check fails (and, under ``strict``, no SOFT one either) and its adjusted
confidence reaches the contract's minimum.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .contracts import Contract, default_contract
from .plain import CardData
from .timestamps import now_utc

if TYPE_CHECKING:
    from .models import Card
    from .repo_checks import Repo

ALL_PASSED = "Every check passed."
VERDICT_FIELDS = ("contract_id", "passed", "hard_failures", "soft_failures", "checks_passed",
                  "adjusted_confidence", "confidence_delta", "summary")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Verification:
    """The verdict on one card, with the fields ovi-cards reports, in its order."""

    contract_id: str
    passed: bool
    hard_failures: list[str]
    soft_failures: list[str]
    checks_passed: list[str]
    adjusted_confidence: float
    confidence_delta: float
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "contract_id": self.contract_id,
            "passed": self.passed,
            "hard_failures": self.hard_failures,
            "soft_failures": self.soft_failures,
            "checks_passed": self.checks_passed,
            "adjusted_confidence": self.adjusted_confidence,
            "confidence_delta": self.confidence_delta,
            "summary": self.summary,
        }


def judge(
    card: CardData,
    contract: Contract,
    now: datetime,
    strict: bool = False,
    repo: Repo | None = None,
    where: str = "",
) -> tuple[str, bool, list[str], list[str], list[str], float, float, str]:
    """The verdict's fields in ovi-cards' order, as a tuple: the loop over thousands of cards
    puts them straight into each result."""
    card_type = card["card_type"]
    names, tests, hardness, why = contract.plans[card_type]
    outcomes = [test(card, now) for test in tests]
    hard: list[str] = []
    soft: list[str] = []
    reasons: list[str] = []
    if all(outcomes):
        passed_checks = list(names)
    else:
        passed_checks = []
        for name, ok, is_hard, reason in zip(names, outcomes, hardness, why, strict=True):
            if ok:
                passed_checks.append(name)
            else:
                (hard if is_hard else soft).append(name)
                reasons.append(reason)
    if repo is not None:
        for repo_step in contract.repo_steps[card_type]:
            failure = repo_step.check.test(card, repo, where)
            if failure is None:
                passed_checks.append(repo_step.check.name)
                continue
            (hard if repo_step.hard else soft).append(repo_step.check.name)
            reasons.append(failure)
    confidence = float(card["confidence"])
    penalty = len(hard) * contract.hard_penalty + len(soft) * contract.soft_penalty
    adjusted = max(0.0, min(1.0, confidence - penalty))
    delta = adjusted - confidence
    adjusted = round(adjusted, 4)
    passed = not hard and not (strict and soft)
    if adjusted < contract.min_adjusted_confidence:
        passed = False
        reasons.append(
            f"adjusted confidence {adjusted} is below the contract's minimum "
            f"{contract.min_adjusted_confidence}."
        )
    elif strict and soft:
        reasons.append("strict: SOFT failures fail the card.")
    summary = " ".join(reasons) if reasons else ALL_PASSED
    return (contract.ids[card_type], passed, hard, soft, passed_checks, adjusted, round(delta, 4),
            summary)  # fmt: skip


def verdict(
    card: CardData,
    contract: Contract,
    now: datetime,
    strict: bool = False,
    repo: Repo | None = None,
    where: str = "",
) -> dict[str, Any]:
    """The verdict on a valid card as JSON data, fields in ovi-cards' order."""
    return dict(zip(VERDICT_FIELDS, judge(card, contract, now, strict, repo, where), strict=True))


def verify(
    card: Card | CardData,
    contract: Contract | None = None,
    *,
    now: datetime | None = None,
    strict: bool = False,
    repo: Repo | None = None,
    where: str = "",
) -> Verification:
    """Verify a valid card (a ``Card``, or its JSON object) against ``contract`` (``default``
    when omitted).

    ``now`` fixes the clock the timestamp checks compare against, so results can be
    reproduced; it must be timezone-aware. With ``repo`` (``repo_checks.open_repo``) the
    contract's repository checks run too; ``where`` names the card's place for them (a
    second report of the same task points at the first).
    """
    chosen = contract or default_contract()
    data = card if isinstance(card, Mapping) else card.to_json()
    return Verification(**verdict(data, chosen, now or now_utc(), strict, repo, where))
