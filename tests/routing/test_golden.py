"""Routing golden files: for each example policy, prompts it must take, and prompts no
policy may take, under the shipped default operating point and the real model.

A failure here is a routing regression on the bundled examples (or a change to them):
look at ``gov route --explain PROMPT`` for what the router saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gov.core.routing.indexes import load_index
from tests.conftest import REPO

GOLDEN = json.loads((Path(__file__).parent / "golden" / "examples.json").read_text("utf-8"))
TAKE = [(name, prompt) for name, prompts in GOLDEN["take"].items() for prompt in prompts]


def test_every_routable_policy_has_prompts_it_must_take() -> None:
    policies = {p.stem for p in (REPO / GOLDEN["corpus"]).glob("*.md")}
    assert set(GOLDEN["take"]) == policies - set(GOLDEN["never"])
    assert all(len(prompts) >= 1 for prompts in GOLDEN["take"].values())


@pytest.mark.parametrize(("name", "prompt"), TAKE, ids=[f"{n}: {p[:40]}" for n, p in TAKE])
def test_the_policy_takes_its_prompt_first(example_index: Path, name: str, prompt: str) -> None:
    answer = load_index(example_index).route(prompt, record=False, explain=True)
    assert answer.names[:1] == [name], answer.explain


@pytest.mark.parametrize("prompt", GOLDEN["none"])
def test_no_policy_takes_an_ungoverned_prompt(example_index: Path, prompt: str) -> None:
    answer = load_index(example_index).route(prompt, record=False, explain=True)
    assert answer.names == [], answer.explain
    assert answer.reason is not None and answer.reason.startswith("abstained")


def test_a_retired_policy_never_routes(example_index: Path) -> None:
    index = load_index(example_index)
    retired = GOLDEN["never"]
    assert set(retired) <= set(index.header.corpus.retired)
    answers = index.route_many([prompt for _, prompt in TAKE] + GOLDEN["none"], record=False)
    assert not {name for answer in answers for name in answer.names} & set(retired)


def test_the_hook_routes_an_outage_prompt_to_incident_response(example_index: Path) -> None:
    """Tried as a new user would: an obvious outage, through the real hook command."""
    import subprocess
    import sys

    payload = {"prompt": GOLDEN["take"]["incident-response"][0], "cwd": str(REPO),
               "hook_event_name": "UserPromptSubmit", "session_id": "s"}
    result = subprocess.run([sys.executable, "-m", "gov.cli.entry", "hook", "claude-code", "-i",
                             str(example_index), "--serve", "never"],
                            input=json.dumps(payload).encode(), capture_output=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("gov: these team documents govern this request: incident-response")
