"""The verification checks: each asks one question of a valid card.

The first fifteen reproduce ovi-cards 0.1.0 exactly, word lists, stop list and quirks
included (its failure words match ``fail`` but not ``failed``; an unparseable timestamp
passes; a future one passes), because those answers are what cards are already judged
by. Improvements are separate checks with their own names, used by the ``extended``
contract and never by ``default``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .plain import CardData
from .timestamps import parse_rfc3339

# --- word lists that are compatibility facts (ovi-cards 0.1.0) ------------------------

_STOP_WORDS = frozenset((
    "about", "also", "been", "could", "does", "each", "from", "have", "into", "just",
    "like", "made", "make", "more", "most", "only", "over", "should", "some", "such",
    "than", "that", "them", "then", "they", "this", "very", "were", "what", "when",
    "where", "which", "will", "with", "would", "your",
))  # fmt: skip
# Maximal runs of ASCII letters, 4 or more long (a shorter run cannot match at all).
_LONG_RUNS = re.compile(r"[A-Za-z]{4,}")
_LONG_RUNS_LOWER = re.compile(r"[a-z]{4,}")

# A bare stock phrase, any case, optionally ending in one period. ``\s*`` (not ``\s+``)
# between words is part of the contract: "tasKcomplete" counts as generic too.
_STOCK_PHRASES = (
    "done",
    "finished",
    "success",
    "ok",
    r"completed?\s*successfully",
    r"task\s*completed?",
    r"no\s*issues?\s*found",
    r"everything\s*looks?\s*good",
)
_GENERIC = re.compile("(?:" + "|".join(_STOCK_PHRASES) + r")\.?", re.IGNORECASE)

_FAILURE_WORDS = (
    "error", "fail", "crash", "exception", "timeout", "refused", "denied", "broken",
    "unable", "cannot", r"could\s*not", "couldn'?t", r"did\s*not", "didn'?t", "missing",
    "invalid", "corrupt", "unreachable", "rejected",
)  # fmt: skip
_PROPOSAL_WORDS = (
    "should", "will", "plan", "propose", "recommend", "suggest", "could", "would",
    "intend", "approach",
)  # fmt: skip


def _whole_words(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE)


# The same words grouped by their first letters, so the engine tries one branch per
# position instead of all nineteen: the same language, matched several times faster.
_FAILURE = re.compile(
    r"\b(?:broken|c(?:rash|annot|ould(?:\s*not|n'?t)|orrupt)|d(?:enied|id(?:\s*not|n'?t))"
    r"|e(?:rror|xception)|fail|invalid|missing|re(?:fused|jected)|timeout|un(?:able|reachable))\b",
    re.IGNORECASE,
)
_PROPOSAL = re.compile(
    r"\b(?:should|will|plan|propose|recommend|suggest|could|would|intend|approach)\b", re.IGNORECASE
)

# --- word lists of the extended contract ---------------------------------------------

_FAILURE_EXTENDED_WORDS = (
    "errors?", "errored", r"fail(?:s|ed|ing|ures?)?", r"crash(?:es|ed|ing)?", "exceptions?",
    r"panic(?:s|ked)?", "timeouts?", r"time[ds]?[- ]?out", r"refus(?:ed|es|ing)",
    r"den(?:ied|ies)", "broken?", "unable", "cannot", "can[’']?t", r"could\s*not",
    "couldn[’']?t", r"did\s*not", "didn[’']?t", r"does\s*not", "doesn[’']?t",
    r"was\s*not", "wasn[’']?t", "missing", "invalid", r"corrupt(?:ed|ion)?", "unreachable",
    r"reject(?:ed|s)?", r"not\s+found", r"abort(?:ed|s)?", "unavailable", "forbidden",
    "unauthori[sz]ed", r"regress(?:ed|ion)?",
)  # fmt: skip
_PROPOSAL_EXTENDED_WORDS = (
    "should", "shall", "will", "could", "would", "might", r"plan(?:s|ned|ning)?",
    r"propos(?:e|es|ed|al|ing)", r"recommend(?:s|ed|ation)?", r"suggest(?:s|ed|ion)?",
    r"intend(?:s|ed)?", r"approach(?:es)?", r"next\s+steps?", r"going\s+to",
)  # fmt: skip


@functools.cache
def _failure_extended() -> re.Pattern[str]:
    return _whole_words(_FAILURE_EXTENDED_WORDS)  # compiled on first use: default never needs it


@functools.cache
def _proposal_extended() -> re.Pattern[str]:
    return _whole_words(_PROPOSAL_EXTENDED_WORDS)

_DAY_HOURS = 24
_FUTURE_SKEW = timedelta(minutes=5)


def _runs(text: str) -> list[str]:
    """Lower-cased runs of ASCII letters at least 4 long, stop words included."""
    if text.isascii():
        # Lower-casing first is only safe for ASCII: 'İ' or the Kelvin sign would turn
        # into ASCII letters and change the runs.
        return _LONG_RUNS_LOWER.findall(text.lower())
    return [run.lower() for run in _LONG_RUNS.findall(text)]


def significant_words(text: str) -> set[str]:
    """Lower-cased runs of ASCII letters at least 4 long, minus the stop list."""
    words = set(_runs(text))
    words -= _STOP_WORDS
    return words


@dataclass(frozen=True, slots=True)
class Check:
    """One named question, the card types it applies to, and what a failure means."""

    name: str
    card_types: frozenset[str] | None  # None: every card type
    test: Callable[[CardData, datetime], bool]
    reason: str


# --- the ovi-cards 0.1.0 checks ------------------------------------------------------


def _outcome_not_empty(card: CardData, now: datetime) -> bool:
    return len(card["outcome"].strip()) > 10


def _outcome_not_generic(card: CardData, now: datetime) -> bool:
    return _GENERIC.fullmatch(card["outcome"].strip()) is None


# For ASCII text the runs come faster from bytes: every byte but a-z becomes a space, and
# split() then yields exactly the maximal runs of a-z that _LONG_RUNS_LOWER would find.
_RUN_TABLE = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
_STOP_BYTES = frozenset(word.encode() for word in _STOP_WORDS)


def _ascii_runs(text: str) -> list[bytes]:
    return text.lower().encode("ascii").translate(_RUN_TABLE).split()


def _objective_outcome_alignment(card: CardData, now: datetime) -> bool:
    objective, outcome = card["objective"], card["outcome"]
    facts = card["key_facts"]
    if objective.isascii() and outcome.isascii():  # this check runs on every card
        wanted = {w for w in _ascii_runs(objective) if len(w) > 3 and w not in _STOP_BYTES}
        if len(wanted) < 2:
            return True  # too little to compare: the check abstains by passing
        # Runs too short to be significant can never match: no filtering needed.
        if not wanted.isdisjoint(_ascii_runs(outcome)):
            return True
        said = "\n".join(facts)  # no run crosses the line break between two facts
        if said.isascii():
            return not wanted.isdisjoint(_ascii_runs(said))
        return not {w.decode() for w in wanted}.isdisjoint(_runs(said))
    words = significant_words(objective)
    if len(words) < 2:
        return True
    # A stop word can never match, since ``words`` has none: runs need no filtering.
    return not words.isdisjoint(_runs(outcome)) or (
        bool(facts) and not words.isdisjoint(_runs("\n".join(facts)))
    )


def _confidence_not_default(card: CardData, now: datetime) -> bool:
    return bool(card["confidence"] != 0.5)


def _timestamp_recent(card: CardData, now: datetime) -> bool:
    # Parsed as ovi-cards parses it; anything it cannot compare passes.
    try:
        stamp = datetime.fromisoformat(card["timestamp"].replace("Z", "+00:00"))
        return (now - stamp).total_seconds() / 3600 < _DAY_HOURS
    except Exception:  # every unreadable timestamp passes, by contract
        return True


def _has_key_facts(card: CardData, now: datetime) -> bool:
    return bool(card["key_facts"])


def _has_actions(card: CardData, now: datetime) -> bool:
    return bool(card["actions_taken"])


def _has_next_actions(card: CardData, now: datetime) -> bool:
    return bool(card["next_actions"])


def _has_artifacts(card: CardData, now: datetime) -> bool:
    return bool(card["artifacts"])


def _error_outcome_describes_failure(card: CardData, now: datetime) -> bool:
    return _FAILURE.search(card["outcome"]) is not None


def _plan_outcome_is_proposal(card: CardData, now: datetime) -> bool:
    return _PROPOSAL.search(card["outcome"]) is not None


def _note_actions_empty(card: CardData, now: datetime) -> bool:
    return not card["actions_taken"]


# --- the extended checks -------------------------------------------------------------


def _timestamp_current(card: CardData, now: datetime) -> bool:
    try:
        age = now - parse_rfc3339(card["timestamp"])
    except (ValueError, OverflowError):
        return False
    return -_FUTURE_SKEW <= age < timedelta(hours=_DAY_HOURS)


def _error_outcome_names_failure(card: CardData, now: datetime) -> bool:
    return _failure_extended().search(card["outcome"]) is not None


def _plan_outcome_proposes(card: CardData, now: datetime) -> bool:
    return _proposal_extended().search(card["outcome"]) is not None


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!")


def _outcome_differs_from_objective(card: CardData, now: datetime) -> bool:
    return _normalised(card["outcome"]) != _normalised(card["objective"])


def _only(*types: str) -> frozenset[str]:
    return frozenset(types)


CHECKS: tuple[Check, ...] = (
    Check("outcome_not_empty", None, _outcome_not_empty,
          "outcome says almost nothing (10 characters or fewer)."),
    Check("outcome_not_generic", None, _outcome_not_generic,
          "outcome is a stock phrase, not a result."),
    Check("objective_outcome_alignment", None, _objective_outcome_alignment,
          "neither outcome nor key_facts mention a significant word of the objective."),
    Check("confidence_not_default", None, _confidence_not_default,
          "confidence is exactly 0.5, the usual placeholder."),
    Check("timestamp_recent", None, _timestamp_recent,
          "timestamp is more than 24 hours old."),
    Check("result_has_key_facts", _only("RESULT"), _has_key_facts,
          "RESULT lists no key_facts."),
    Check("result_has_actions", _only("RESULT"), _has_actions,
          "RESULT lists no actions_taken."),
    Check("error_has_diagnosis", _only("ERROR"), _has_key_facts,
          "ERROR gives no diagnosis in key_facts."),
    Check("error_has_next_actions", _only("ERROR"), _has_next_actions,
          "ERROR proposes no recovery in next_actions."),
    Check("error_outcome_describes_failure", _only("ERROR"), _error_outcome_describes_failure,
          "ERROR outcome uses none of the failure words."),
    Check("patch_has_artifacts", _only("PATCH"), _has_artifacts,
          "PATCH names no artifact it changed."),
    Check("patch_has_actions", _only("PATCH"), _has_actions,
          "PATCH lists no actions_taken."),
    Check("patch_key_facts_describe_change", _only("PATCH"), _has_key_facts,
          "PATCH has no key_facts describing the change."),
    Check("plan_has_next_actions", _only("PLAN"), _has_next_actions,
          "PLAN lists no next_actions."),
    Check("plan_outcome_is_proposal", _only("PLAN"), _plan_outcome_is_proposal,
          "PLAN outcome uses none of the proposal words."),
    Check("note_actions_empty", _only("NOTE"), _note_actions_empty,
          "NOTE lists actions_taken; a note only observes."),
    Check("timestamp_current", None, _timestamp_current,
          "timestamp is more than 24 hours old or more than 5 minutes ahead."),
    Check("outcome_differs_from_objective", None, _outcome_differs_from_objective,
          "outcome only restates the objective."),
    Check("error_outcome_names_failure", _only("ERROR"), _error_outcome_names_failure,
          "ERROR outcome does not say what failed."),
    Check("plan_outcome_proposes", _only("PLAN"), _plan_outcome_proposes,
          "PLAN outcome does not propose anything."),
)  # fmt: skip

CHECKS_BY_NAME: dict[str, Check] = {check.name: check for check in CHECKS}
