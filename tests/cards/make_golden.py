#!/usr/bin/env python3
"""Regenerate the golden cards under tests/cards/golden with ovi-cards 0.1.0.

Run it with an interpreter that has ovi-cards (gov's tests never need it)::

    /tmp/ovi-venv/bin/python tests/cards/make_golden.py --gov "/tmp/venv/bin/gov"

For every check it writes ``<check>/pass.json`` and ``<check>/fail.json``: a card built by
ovi-cards, the instant it was verified at (``now``) and, for the fifteen checks ovi-cards
has, what ovi-cards' ``validate_card`` and ``verify_card`` answered. gov's tests replay
each card with ``--now`` set to that instant and must get the same answer. A fail card
fails exactly its own check; a pass card fails none. With ``--gov`` it also asks ovi-cards
to validate cards written by ``gov card new`` (``interop/gov_made.json``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ovi_cards import CardType, OVICard, builder, validate_card, verify_card

HERE = Path(__file__).parent / "golden"
NOW = datetime.now(UTC)
RECENT = (NOW - timedelta(hours=1)).isoformat()
OLD = (NOW - timedelta(days=3)).isoformat()
VERDICT = ("contract_id", "passed", "hard_failures", "soft_failures", "checks_passed",
           "adjusted_confidence", "confidence_delta")  # fmt: skip

BASE: dict[str, dict[str, Any]] = {
    "RESULT": dict(
        task_id="review-auth-7", source_agent="reviewer:gpt-4o",
        objective="Review the auth module for injection bugs",
        outcome="Found two injection bugs in the auth login handler",
        key_facts=["login handler built SQL from raw input"],
        actions_taken=["Ran static analysis on the auth package"],
        next_actions=["Add a regression test for the login query"],
        artifacts=["auth/login.py"], confidence=0.9,
    ),
    "ERROR": dict(
        task_id="deploy-21", source_agent="deployer:gpt-4o",
        objective="Deploy release 2.1 to staging",
        outcome="Deploy to staging stopped: migration error on the orders table",
        key_facts=["Migration 42 locks the orders table for 90 s"],
        next_actions=["Split migration 42 into batches"], confidence=0.7,
    ),
    "PLAN": dict(
        task_id="build-speed-3", source_agent="planner:claude",
        objective="Speed up the nightly build",
        outcome="We should cache dependencies to speed up the nightly build",
        next_actions=["Add a dependency cache step to the nightly job"], confidence=0.6,
    ),
    "PATCH": dict(
        task_id="login-loop-9", source_agent="coder:gpt-4o",
        objective="Fix the login redirect loop",
        outcome="Patched the login redirect loop in the session handler",
        key_facts=["Redirect now checks the session cookie first"],
        actions_taken=["Edited auth/session.py"], artifacts=["auth/session.py"],
        confidence=0.85,
    ),
    "NOTE": dict(
        task_id="queue-watch-2", source_agent="observer:local",
        objective="Observe queue latency during the evening peak",
        outcome="Queue latency peaked at 900 ms during the evening peak",
        key_facts=["Latency follows the number of busy workers"], confidence=0.7,
    ),
}  # fmt: skip

# check -> (card type, changes for the pass card, changes for the fail card, note)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any], str]] = {
    "outcome_not_empty": ("RESULT", {"outcome": "Auth fixed."}, {"outcome": "Auth fixed"},
                          "11 characters after stripping pass; 10 fail"),
    "outcome_not_generic": ("RESULT", {"outcome": "Done reviewing the auth module"},
                            {"outcome": "  Completed successfully. ",
                             "key_facts": ["auth login handler built SQL from raw input"]},
                            "only a bare stock phrase is generic"),
    "objective_outcome_alignment": (
        "RESULT",
        {"outcome": "Found two problems in the login handler",
         "key_facts": ["the auth handler built SQL from raw input"]},
        {"outcome": "Found two problems in the login handler",
         "key_facts": ["handler built SQL from raw input"]},
        "a significant objective word in a key fact is enough"),
    "confidence_not_default": ("RESULT", {"confidence": 0.51}, {"confidence": 0.5},
                               "only exactly 0.5 is the placeholder"),
    "timestamp_recent": ("RESULT", {"timestamp": (NOW - timedelta(hours=23)).isoformat()},
                         {"timestamp": OLD}, "23 hours old passes; 3 days old fails"),
    "result_has_key_facts": ("RESULT", {}, {"key_facts": []}, ""),
    "result_has_actions": ("RESULT", {}, {"actions_taken": []}, ""),
    "error_has_diagnosis": ("ERROR", {}, {"key_facts": []}, ""),
    "error_has_next_actions": ("ERROR", {}, {"next_actions": []}, ""),
    "error_outcome_describes_failure": (
        "ERROR", {"outcome": "Deploy to staging: the orders migration hit an error"},
        {"outcome": "Deploy to staging failed on the orders table migration"},
        "quirk: the failure words match 'fail' but not 'failed'"),
    "patch_has_artifacts": ("PATCH", {}, {"artifacts": []},
                            "a PATCH without artifacts is invalid by schema; the check is "
                            "replayed on the raw card"),
    "patch_has_actions": ("PATCH", {}, {"actions_taken": []}, ""),
    "patch_key_facts_describe_change": ("PATCH", {}, {"key_facts": []}, ""),
    "plan_has_next_actions": ("PLAN", {}, {"next_actions": []}, ""),
    "plan_outcome_is_proposal": (
        "PLAN", {"outcome": "Caching dependencies will speed up the nightly build"},
        {"outcome": "Caching dependencies speeds up the nightly build"}, ""),
    "note_actions_empty": ("NOTE", {}, {"actions_taken": ["Read the queue dashboard"]},
                           "ovi-cards' note builder drops actions; the card is built directly"),
}  # fmt: skip

# The extended contract's checks: gov-only, so no ovi-cards verdict is recorded.
EXTENDED: dict[str, tuple[str, dict[str, Any], dict[str, Any], str]] = {
    "timestamp_current": ("RESULT", {"timestamp": (NOW + timedelta(minutes=2)).isoformat()},
                          {"timestamp": (NOW + timedelta(hours=1)).isoformat()},
                          "up to 5 minutes ahead is clock skew; an hour ahead is not"),
    "outcome_differs_from_objective": (
        "RESULT", {}, {"outcome": "Review the auth module for injection bugs."},
        "an outcome that only restates the objective says nothing"),
    "error_outcome_names_failure": (
        "ERROR", {"outcome": "Deploy to staging failed on the orders table migration"},
        {"outcome": "Deploy to staging stopped at the orders table migration"},
        "'failed' counts here, unlike in the default contract"),
    "plan_outcome_proposes": (
        "PLAN", {"outcome": "Proposed caching dependencies for the nightly build"},
        {"outcome": "Caching dependencies speeds up the nightly build"}, ""),
}  # fmt: skip

MAKERS = {"RESULT": builder.result, "ERROR": builder.error, "PLAN": builder.plan,
          "PATCH": builder.patch, "NOTE": builder.note}  # fmt: skip


def make(card_type: str, changes: dict[str, Any]) -> tuple[dict[str, Any], str]:
    fields = {**BASE[card_type], "timestamp": RECENT, **changes}
    if card_type == "NOTE" and fields.get("actions_taken"):
        card = builder.note(**{k: v for k, v in fields.items() if k != "actions_taken"})
        data = card.model_dump(mode="json")
        data["actions_taken"] = fields["actions_taken"]
        return data, "ovi_cards.builder.note, then actions_taken set"
    if card_type == "PATCH" and not fields.get("artifacts"):
        fields["artifacts"] = ["placeholder"]
        data = builder.patch(**fields).model_dump(mode="json")
        data["artifacts"] = []
        return data, "ovi_cards.builder.patch, then artifacts emptied"
    return MAKERS[card_type](**fields).model_dump(mode="json"), f"ovi_cards.builder.{card_type.lower()}"


def observe(card: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    checked = validate_card(card)
    if checked.valid:
        model = checked.card
    else:  # replay the checks on the raw card, as gov's test does
        model = OVICard.model_construct(**{**card, "card_type": CardType(card["card_type"])})
    verdict = verify_card(model).model_dump(mode="json")
    return checked.valid, {key: verdict[key] for key in VERDICT}


def write(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gov", help="the gov command, to check its cards in ovi-cards")
    args = parser.parse_args()
    for contract, cases in (("default", CASES), ("extended", EXTENDED)):
        for check, (card_type, good, bad, note) in cases.items():
            for expect, changes in (("pass", good), ("fail", bad)):
                card, made_by = make(card_type, changes)
                valid, verdict = observe(card)
                record: dict[str, Any] = {
                    "check": check, "contract": contract, "expect": expect,
                    "now": NOW.isoformat(), "produced_by": f"{made_by} (ovi-cards 0.1.0)",
                    "card": card,
                }  # fmt: skip
                if note:
                    record["note"] = note
                if contract == "default":
                    record["ovi_valid"] = valid
                    record["ovi_verdict"] = verdict
                    failures = verdict["hard_failures"] + verdict["soft_failures"]
                    wanted = [check] if expect == "fail" else []
                    assert failures == wanted, (check, expect, failures)
                write(HERE / check / f"{expect}.json", record)
    if args.gov:
        interop(shlex.split(args.gov))


def interop(gov: list[str]) -> None:
    stamp = RECENT
    calls = [
        ["RESULT", "--task-id", "t-1", "--agent", "coder:gpt-4o", "--objective",
         "Rebuild the search index", "--outcome", "Search index rebuilt in 40 s",
         "--fact", "Index holds 120k documents", "--action", "Ran the index build"],
        ["ERROR", "--task-id", "t-2", "--agent", "deployer:gpt-4o", "--objective",
         "Deploy release 2.1", "--outcome", "Deploy error: migration timeout",
         "--fact", "Migration 42 timed out", "--next", "Split migration 42", "--tag", "deploy"],
        ["PLAN", "--task-id", "t-3", "--agent", "planner:claude", "--objective",
         "Speed up the nightly build", "--outcome", "We should cache dependencies",
         "--next", "Add a cache step"],
        ["PATCH", "--task-id", "t-4", "--agent", "coder:gpt-4o", "--objective",
         "Fix the login loop", "--outcome", "Login loop fixed in the session handler",
         "--artifact", "auth/session.py", "--action", "Edited auth/session.py",
         "--store", "KV", "--tag", "auth", "--tag", "login-loop"],
        ["NOTE", "--task-id", "t-5", "--agent", "observer:local", "--objective",
         "Watch queue latency", "--outcome", "Latency peaked at 900 ms at 21:00",
         "--confidence", "0.65", "--store", "none"],
    ]  # fmt: skip
    made = []
    for call in calls:
        argv = [*gov, "card", "new", *call, "--timestamp", stamp, "--format", "jsonl"]
        done = subprocess.run(argv, capture_output=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"gov card new failed: {done.stderr.decode()}")
        card = json.loads(done.stdout)
        valid, verdict = observe(card)
        made.append({"args": call, "card": card, "ovi_valid": valid, "ovi_verdict": verdict})
    write(HERE / "interop" / "gov_made.json", {"now": NOW.isoformat(), "timestamp": stamp,
                                                "cards": made})  # fmt: skip


if __name__ == "__main__":
    main()
