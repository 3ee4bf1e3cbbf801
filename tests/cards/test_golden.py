"""Golden cards written by ovi-cards 0.1.0: gov must accept them and judge them as ovi did.

Each check has a pass and a fail card; the fail card fails exactly its own check and the
pass card fails none. For ovi's fifteen checks the files also hold ovi's own verdict,
observed at ``now``, which gov must reproduce field for field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gov.core.cards.checks import CHECKS
from gov.core.cards.contracts import builtin_contract
from gov.core.cards.timestamps import parse_rfc3339
from gov.core.cards.validate import check_card
from gov.core.cards.verify import verify

from .conftest import GOLDEN

VERDICT = ("contract_id", "passed", "hard_failures", "soft_failures", "checks_passed",
           "adjusted_confidence", "confidence_delta")  # fmt: skip
FILES = sorted(GOLDEN.glob("*/*.json"))
CHECK_FILES = [p for p in FILES if p.parent.name != "interop"]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_every_check_has_a_pass_and_a_fail_golden_file() -> None:
    names = {check.name for check in CHECKS}
    assert {p.parent.name for p in CHECK_FILES} == names
    for name in names:
        assert (GOLDEN / name / "pass.json").is_file()
        assert (GOLDEN / name / "fail.json").is_file()


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_card(path: Path) -> None:
    record = load(path)
    check, expect = record["check"], record["expect"]
    assert path.parent.name == check and path.stem == expect
    contract = builtin_contract(record["contract"])
    now = parse_rfc3339(record["now"])
    card, problems = check_card(record["card"])
    if "ovi_valid" in record:
        assert (card is not None) == record["ovi_valid"], problems
    if card is None:
        # Only a PATCH without artifacts: the schema refuses it, so replay the checks.
        assert check == "patch_has_artifacts" and expect == "fail"
        assert [(p.path, p.rule) for p in problems] == [("artifacts", "minItems")]
    verdict = verify(card if card is not None else record["card"], contract, now=now).to_json()
    failures = verdict["hard_failures"] + verdict["soft_failures"]
    if expect == "fail":
        assert failures == [check]
    else:
        assert failures == []
        assert check in verdict["checks_passed"]
    if "ovi_verdict" in record:
        assert {key: verdict[key] for key in VERDICT} == record["ovi_verdict"]


def test_cards_written_by_gov_were_accepted_by_ovi_and_are_still_written_alike() -> None:
    from tests.conftest import invoke_gov

    from .conftest import jsonl

    record = load(GOLDEN / "interop" / "gov_made.json")
    now = parse_rfc3339(record["now"])
    for made in record["cards"]:
        assert made["ovi_valid"] is True
        out = invoke_gov("card", "new", *made["args"], "--timestamp", record["timestamp"], "--format", "jsonl")
        assert out.returncode == 0, out.stderr
        assert jsonl(out.stdout) == [made["card"]]
        card, problems = check_card(made["card"])
        assert card is not None, problems
        verdict = verify(card, now=now).to_json()
        assert {key: verdict[key] for key in VERDICT} == made["ovi_verdict"]
