"""Contracts are data: built-in ones match their schema, files extend and override them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gov.core.cards.checks import CHECKS
from gov.core.cards.contracts import CHECK_NAMES, ContractError, builtin_contract, load_contract
from gov.core.cards.repo_checks import REPO_CHECKS
from gov.core.cards.schema import contract_schema
from gov.core.cards.validate import parse_card
from gov.core.cards.verify import verify

from .conftest import base_card

NOW = datetime(2025, 6, 1, 12, tzinfo=UTC)
OVI_SEVERITIES = {
    "outcome_not_empty": "HARD", "outcome_not_generic": "SOFT",
    "objective_outcome_alignment": "SOFT", "confidence_not_default": "SOFT",
    "timestamp_recent": "SOFT", "result_has_key_facts": "SOFT", "result_has_actions": "SOFT",
    "error_has_diagnosis": "HARD", "error_has_next_actions": "HARD",
    "error_outcome_describes_failure": "SOFT", "patch_has_artifacts": "HARD",
    "patch_has_actions": "HARD", "patch_key_facts_describe_change": "SOFT",
    "plan_has_next_actions": "HARD", "plan_outcome_is_proposal": "SOFT",
    "note_actions_empty": "SOFT",
}  # fmt: skip


@pytest.mark.parametrize("name", ["default", "extended"])
def test_builtin_contracts_match_the_contract_schema(name: str) -> None:
    path = Path(__file__).resolve().parents[2] / "core" / "cards" / f"{name}.contract.json"
    data = json.loads(path.read_text())
    assert list(Draft202012Validator(contract_schema()).iter_errors(data)) == []
    assert set(data["checks"]) == set(CHECK_NAMES) == {check.name for check in (*CHECKS, *REPO_CHECKS)}


def test_default_contract_is_ovis() -> None:
    """Without a repository (ovi-cards has none) the default contract runs ovi's checks alone."""
    default = builtin_contract("default")
    repo_checks = {check.name for check in REPO_CHECKS}
    active = {k: v for k, v in default.severities.items() if v != "OFF" and k not in repo_checks}
    assert active == OVI_SEVERITIES
    assert (default.hard_penalty, default.soft_penalty, default.min_adjusted_confidence) == (
        0.25, 0.1, 0.0
    )  # fmt: skip


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "team.contract.json"
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def test_a_file_extends_a_builtin_and_overrides_it(tmp_path: Path) -> None:
    contract = load_contract(write(tmp_path, {
        "id": "team", "extends": "default", "hard_penalty": 0.5,
        "checks": {"result_has_key_facts": "HARD", "confidence_not_default": "OFF"},
    }))  # fmt: skip
    card = parse_card(base_card(key_facts=[], confidence=0.5))
    result = verify(card, contract, now=NOW)
    assert result.contract_id == "result-team"
    assert result.hard_failures == ["result_has_key_facts"]
    assert "confidence_not_default" not in result.checks_passed + result.soft_failures
    assert result.adjusted_confidence == 0.0 and result.passed is False


def test_a_file_without_extends_runs_only_what_it_names(tmp_path: Path) -> None:
    contract = load_contract(write(tmp_path, {
        "id": "tiny", "soft_penalty": 0.2, "checks": {"result_has_key_facts": "SOFT"},
    }))  # fmt: skip
    result = verify(parse_card(base_card(key_facts=[], outcome="Done.")), contract, now=NOW)
    assert (result.checks_passed, result.soft_failures) == ([], ["result_has_key_facts"])
    assert result.adjusted_confidence == 0.6 and result.passed is True


def test_minimum_adjusted_confidence_fails_a_card(tmp_path: Path) -> None:
    contract = load_contract(write(tmp_path, {
        "id": "picky", "extends": "default", "min_adjusted_confidence": 0.75,
    }))  # fmt: skip
    result = verify(parse_card(base_card(key_facts=[])), contract, now=NOW)
    assert result.hard_failures == [] and result.adjusted_confidence == 0.7
    assert result.passed is False and "below the contract's minimum" in result.summary


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"id": "x", "checks": {"no_such_check": "HARD"}},
            r":4: checks\.no_such_check: unknown check",
        ),
        (
            {"id": "x", "checks": {"outcome_not_empty": "MEDIUM"}},
            r":4: checks\.outcome_not_empty: ",
        ),
        ({"id": "x", "hard_penalty": 2}, r":3: hard_penalty: .*\(maximum\)"),
        ({"id": "x", "colour": "red"}, r":3: colour: unknown field"),
        ({"checks": {}}, r"contract: 'id' is a required property"),
        ({"id": "x", "extends": "ovi"}, r"extends"),
    ],
)
def test_bad_contract_files_name_file_line_and_field(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ContractError, match=message) as caught:
        load_contract(write(tmp_path, data))
    assert str(caught.value).startswith(str(tmp_path / "team.contract.json"))
    assert caught.value.exit_code == 2


def test_unreadable_contracts(tmp_path: Path) -> None:
    with pytest.raises(ContractError, match="cannot read"):
        load_contract(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    with pytest.raises(ContractError, match="not valid JSON"):
        load_contract(str(bad))


# --- built-in names win over files in the current folder --------------------------------

VAGUE = base_card(outcome="Done.", key_facts=[], actions_taken=[])


@pytest.mark.slow
def test_a_folder_named_like_a_builtin_does_not_shadow_it(tmp_path: Path) -> None:
    from tests.conftest import run_gov

    (tmp_path / "default").mkdir()
    (tmp_path / "extended").mkdir()
    (tmp_path / "card.json").write_text(json.dumps(base_card()))
    for args, name in (([], "default"), (["-c", "default"], "default"), (["-c", "extended"], "extended")):
        out = run_gov("card", "verify", "card.json", "--now", "2025-06-01T12:00:00Z", *args,
                      cwd=tmp_path)  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert f"(contract {name}, built in)" in out.stderr.decode()


@pytest.mark.slow
def test_a_file_named_like_a_builtin_is_used_only_when_named_as_a_path(tmp_path: Path) -> None:
    from tests.conftest import run_gov

    from .conftest import jsonl

    (tmp_path / "default").write_text(json.dumps({"id": "evil"}))
    (tmp_path / "card.json").write_text(json.dumps(VAGUE))
    now = ["--now", "2025-06-01T12:00:00Z"]
    builtin = run_gov("card", "verify", "card.json", *now, cwd=tmp_path)
    [result] = jsonl(builtin.stdout)
    assert builtin.returncode == 1 and result["contract_id"] == "result-default"
    assert "outcome_not_empty" in result["hard_failures"]
    assert "(contract default, built in)" in builtin.stderr.decode()
    named = run_gov("card", "verify", "card.json", *now, "-c", "./default", cwd=tmp_path)
    [result] = jsonl(named.stdout)
    assert named.returncode == 0 and result["contract_id"] == "result-evil"
    assert "(contract evil, from ./default)" in named.stderr.decode()


def test_load_contract_prefers_builtins_and_reads_clear_paths(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "default").write_text(json.dumps({"id": "evil"}))
    (tmp_path / "extended.json").write_text(json.dumps({"id": "mine", "extends": "extended"}))
    assert load_contract("default").id == "default"
    assert load_contract("default").source == "built in"
    assert load_contract("./default").id == "evil"
    assert load_contract("./default").source == "./default"
    assert load_contract("extended.json").id == "mine"
    assert load_contract("extended").id == "extended"
