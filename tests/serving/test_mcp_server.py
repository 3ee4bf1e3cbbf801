"""The MCP tools through the real MCP client over stdio: the tools, their schemas, the guarantees.

One server serves the whole module (start-up loads the model once); each test drives it
with the SDK's ``ClientSession`` from a background event loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import POLICIES, gov_command

if TYPE_CHECKING:  # the SDK is imported by the tests that start a server, not at collection
    from mcp import ClientSession, StdioServerParameters

TOOLS = {"route_policies", "get_policy", "create_card", "validate_card", "verify_card"}


NAMES = sorted(p.stem for p in POLICIES.glob("*.md") if "**Status:** retired" not in p.read_text())


GOOD_CARD = {
    "schema_version": "0.1.0",
    "card_type": "RESULT",
    "task_id": "T-42",
    "source_agent": "codex:gpt-5",
    "timestamp": "2026-01-01T09:30:00Z",
    "objective": "Fix the flaky checkout integration test",
    "outcome": "The checkout integration test now passes on 50 consecutive runs",
    "key_facts": ["The checkout test raced the payment stub's start-up"],
    "actions_taken": ["Waited for the payment stub's readiness probe before the test"],
    "next_actions": [],
    "artifacts": ["tests/test_checkout.py"],
    "confidence": 0.9,
    "memory_suggestion": {"store": False, "tags": []},
}


def field(obj: Any, snake: str, camel: str) -> Any:
    """A result attribute under the SDK 2 name or the SDK 1 one."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


class Client:
    """A live ``ClientSession`` on a server process, driven from synchronous tests."""

    def __init__(self, index: Path, env: dict[str, str] | None = None,
                 args: list[str] | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready: Future[ClientSession] = Future()
        self.stop: asyncio.Event | None = None
        command, *arguments = gov_command(*(args or ["mcp", "-i", str(index), "--quiet"]))
        from mcp import StdioServerParameters

        params = StdioServerParameters(command=command, args=arguments, env=env)
        self.done = asyncio.run_coroutine_threadsafe(self._hold(params), self.loop)
        self.session = self.ready.result(timeout=180)

    async def _hold(self, params: StdioServerParameters) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        self.stop = asyncio.Event()
        try:
            # The server's stderr goes to this test's stderr, named here: the SDK's default is
            # whatever sys.stderr was when it was first imported (perhaps inside invoke_gov).
            async with stdio_client(params, errlog=sys.stderr) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                self.ready.set_result(session)
                await self.stop.wait()
        except BaseException as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            raise

    def run(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout=120)

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.run(lambda: self.session.call_tool(tool, arguments))

    def close(self) -> None:
        assert self.stop is not None
        self.loop.call_soon_threadsafe(self.stop.set)
        self.done.result(timeout=60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def index_path(example_index: Path) -> Path:
    """The example index (the servers only read it)."""
    return example_index


@pytest.fixture(scope="module")
def client(index_path: Path) -> Iterator[Client]:
    live = Client(index_path)
    yield live
    live.close()


def structured(result: Any) -> dict[str, Any]:
    assert not field(result, "is_error", "isError"), result.content
    content = field(result, "structured_content", "structuredContent")
    assert isinstance(content, dict)
    return content


def error_text(result: Any) -> str:
    assert field(result, "is_error", "isError")
    return "\n".join(block.text for block in result.content)


def rule_text(text: str) -> list[str]:
    """A document's rule text as fragments: each body line's sentences of 30 characters or more.

    Headings and the routing-surface lines (trigger, examples) are left out: ``why`` may
    quote an example prompt, which is a routing surface, not a rule.
    """
    fragments = []
    for line in text.splitlines():
        if line.startswith(("#", "**Agent-", "**Family:", "**Depends-on:", "**Status:")):
            continue
        body = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line)
        fragments.extend(s for s in re.split(r"(?<=[.:;])\s+", body) if len(s) >= 30)
    return fragments


def test_every_tool_has_an_output_schema(client: Client) -> None:
    listed = client.run(client.session.list_tools).tools
    assert {tool.name for tool in listed} == TOOLS
    for tool in listed:
        schema = field(tool, "output_schema", "outputSchema")
        assert schema["type"] == "object", tool.name
        assert schema["properties"], tool.name
        assert tool.description, tool.name


def test_structured_content_matches_its_schema(client: Client) -> None:
    from jsonschema import Draft202012Validator

    schemas = {tool.name: field(tool, "output_schema", "outputSchema")
               for tool in client.run(client.session.list_tools).tools}
    calls = {
        "route_policies": {"prompt": "roll back the release from last night"},
        "get_policy": {"name": "deployment"},
        "create_card": {k: GOOD_CARD[k] for k in
                        ("card_type", "task_id", "source_agent", "objective", "outcome")},
        "validate_card": {"card": {"card_type": "NOTE"}},
        "verify_card": {"card": GOOD_CARD},
    }
    assert set(calls) == TOOLS
    for tool, arguments in calls.items():
        content = structured(client.call(tool, arguments))
        errors = list(Draft202012Validator(schemas[tool]).iter_errors(content))
        assert not errors, (tool, errors)


@pytest.mark.parametrize("prompt", [
    "roll back the release from last night",
    "the stripe secret key leaked in a commit, rotate it",
    "write a migration that adds a non-null column to the orders table",
])
def test_route_policies_names_at_most_two(client: Client, index_path: Path, prompt: str) -> None:
    from gov.core.routing.indexes import load_index

    out = structured(client.call("route_policies", {"prompt": prompt}))
    assert set(out) == {"routes", "degraded"}
    assert out["degraded"] is False
    assert len(out["routes"]) <= 2  # which documents is the router's business: compared below
    for route in out["routes"]:
        assert set(route) == {"name", "score", "why"}
        assert route["name"] in NAMES
        assert isinstance(route["score"], float) and route["score"] > 0
        assert route["why"]
    local = load_index(index_path).route(prompt).routes[:2]
    assert [(r["name"], r["why"]) for r in out["routes"]] == [(r.name, r.why) for r in local]
    assert [r["score"] for r in out["routes"]] == pytest.approx([r.score for r in local], abs=1e-6)


def test_route_policies_routes_a_rollback_to_deployment(client: Client) -> None:
    prompt = "roll back the release from last night"
    out = structured(client.call("route_policies", {"prompt": prompt}))
    assert out["routes"][0]["name"] == "deployment"


def test_route_policies_abstains_on_an_unrelated_prompt(client: Client) -> None:
    out = structured(client.call("route_policies", {"prompt": "bake a lemon drizzle cake"}))
    assert out == {"routes": [], "degraded": False}


def test_route_policies_never_returns_rule_text(client: Client) -> None:
    prompts = [
        "ship the payments build to prod on friday evening",
        "our on-call rotation needs a new secondary for the weekend",
        "log the customer's email address when checkout fails",
        "bump the lodash dependency to the latest major",
    ]
    bodies = {name: rule_text((POLICIES / f"{name}.md").read_text()) for name in NAMES}
    assert all(len(fragments) >= 5 for fragments in bodies.values())
    routed = set()
    for prompt in prompts:
        result = client.call("route_policies", {"prompt": prompt})
        wire = json.dumps(structured(result)) + "".join(block.text for block in result.content)
        for name, paragraphs in bodies.items():
            for paragraph in paragraphs:
                assert paragraph not in wire, (prompt, name)
                first_sentence = paragraph.split(". ")[0]
                assert first_sentence not in wire, (prompt, name)
        routed.update(route["name"] for route in structured(result)["routes"])
    assert routed, "the prompts should route somewhere for the check to mean anything"


def test_get_policy_returns_the_whole_document(client: Client) -> None:
    for name in NAMES:
        out = structured(client.call("get_policy", {"name": name}))
        assert out == {"name": name, "text": (POLICIES / f"{name}.md").read_text()}


def test_get_policy_unknown_name_suggests_the_nearest(client: Client) -> None:
    text = error_text(client.call("get_policy", {"name": "deploymnet"}))
    assert "deploymnet" in text and "did you mean deployment" in text
    assert "access-control" not in text  # the nearest names, never the whole list
    retired = error_text(client.call("get_policy", {"name": "legacy-release-train"}))
    assert "is retired" in retired


@pytest.mark.parametrize("name", [
    "../../etc/passwd",
    "/etc/passwd",
    "deployment.md",
    "./deployment",
    "policies/deployment.md",
    str(POLICIES / "deployment.md"),
    "legacy-release-train",
])
def test_get_policy_path_is_an_error_not_a_read(client: Client, name: str) -> None:
    text = error_text(client.call("get_policy", {"name": name}))
    assert "no document named" in text or "is retired" in text
    assert "root:" not in text
    assert "All production deploys go through" not in text
    assert "Rules" not in text


def test_create_card_fills_in_the_defaults(client: Client) -> None:
    from gov.core.cards.validate import check_card

    arguments = {k: GOOD_CARD[k] for k in
                 ("card_type", "task_id", "source_agent", "objective", "outcome", "key_facts")}
    card = structured(client.call("create_card", {**arguments, "card_type": "ERROR"}))["card"]
    parsed, problems = check_card(card)
    assert parsed is not None, problems
    assert card["card_type"] == "ERROR"
    assert card["task_id"] == "T-42"
    assert card["schema_version"] == "0.1.0"
    assert card["confidence"] == 0.7
    assert card["memory_suggestion"] == {"store": True, "target": "SOP", "tags": []}
    assert card["key_facts"] == GOOD_CARD["key_facts"]
    assert card["actions_taken"] == [] and card["artifacts"] == []


def test_create_card_breaking_a_rule_is_an_error_naming_it(client: Client) -> None:
    arguments = {k: GOOD_CARD[k] for k in
                 ("card_type", "task_id", "source_agent", "objective", "outcome")}
    text = error_text(client.call("create_card", {**arguments, "key_facts": ["a", "b", "c", "d"]}))
    assert "key_facts" in text and "at most 3" in text
    text = error_text(client.call("create_card", {**arguments, "card_type": "PATCH"}))
    assert "artifact" in text


def test_validate_card_lists_every_problem(client: Client) -> None:
    bad = {**GOOD_CARD, "confidence": 1.5, "timestamp": "yesterday", "surprise": True}
    del bad["task_id"]
    out = structured(client.call("validate_card", {"card": bad}))
    assert out["valid"] is False and out["card"] is None
    paths = {problem["path"] for problem in out["errors"]}
    assert {"confidence", "timestamp", "task_id"} <= paths
    assert any(problem["rule"] == "required" for problem in out["errors"])
    assert all(problem["message"] for problem in out["errors"])


def test_validate_card_accepts_a_good_card_as_object_or_text(client: Client) -> None:
    for card in (GOOD_CARD, json.dumps(GOOD_CARD)):
        out = structured(client.call("validate_card", {"card": card}))
        assert out == {"valid": True, "errors": [], "card": GOOD_CARD}
    out = structured(client.call("validate_card", {"card": "{not json"}))
    assert out["valid"] is False and out["errors"][0]["rule"] == "json"


def test_verify_card_passes_a_good_card(client: Client) -> None:
    out = structured(client.call("verify_card", {"card": GOOD_CARD}))
    assert out["valid"] is True and out["errors"] == []
    verdict = out["verification"]
    assert verdict["passed"] is True
    assert verdict["contract_id"] == "result-default"
    assert verdict["hard_failures"] == []
    assert verdict["adjusted_confidence"] == pytest.approx(
        GOOD_CARD["confidence"] + verdict["confidence_delta"])


def test_verify_card_adjusts_the_confidence_of_a_weak_card(client: Client) -> None:
    weak = {**GOOD_CARD, "outcome": "done", "key_facts": [], "actions_taken": []}
    out = structured(client.call("verify_card", {"card": weak}))
    verdict = out["verification"]
    assert verdict["passed"] is False
    assert "outcome_not_empty" in verdict["hard_failures"]
    assert verdict["soft_failures"]
    assert verdict["adjusted_confidence"] < weak["confidence"]
    assert verdict["confidence_delta"] < 0
    from gov.core.cards.validate import parse_card
    from gov.core.cards.verify import verify

    local = verify(parse_card(weak)).to_json()
    assert verdict["hard_failures"] == local["hard_failures"]
    assert verdict["adjusted_confidence"] == local["adjusted_confidence"]


def test_verify_card_reports_an_invalid_card_without_verifying(client: Client) -> None:
    out = structured(client.call("verify_card", {"card": {"card_type": "RESULT"}}))
    assert out["valid"] is False and out["verification"] is None
    assert {"task_id", "outcome"} <= {problem["path"] for problem in out["errors"]}


def test_verify_card_contract_is_a_builtin_name_never_a_path(client: Client) -> None:
    out = structured(client.call("verify_card", {"card": GOOD_CARD, "contract": "extended"}))
    assert out["verification"]["contract_id"] == "result-extended"
    result = client.call("verify_card", {"card": GOOD_CARD, "contract": "/etc/passwd"})
    text = error_text(result)
    assert "root:" not in text


# --- wrong arguments get one line naming the field and rule; ovi-cards' names work ----------

CARD_FIELDS = ("card_type", "task_id", "source_agent", "objective", "outcome")


@pytest.mark.parametrize(("tool", "arguments", "message"), [
    ("create_card", {"key_facts": "one fact"}, "key_facts: must be an array (type)"),
    ("create_card", {"key_facts": ["a", "b", "c", "d"]}, "key_facts: must have at most 3 items, has 4 (maxItems)"),
    ("create_card", {"card_type": "MEMO"}, "card_type: must be one of RESULT, ERROR, PLAN, PATCH, NOTE (enum)"),
    ("create_card", {"task_id": None}, "task_id: required field is missing (required)"),
    ("create_card", {"task_id": 42}, "task_id: must be a string (type)"),
    ("create_card", {"confidence": "high"}, "confidence: must be a number (type)"),
    ("create_card", {"confidence": 2}, "confidence: must be between 0 and 1 (maximum)"),
    ("create_card", {"memory_suggestion": "keep"}, "memory_suggestion: must be an object (type)"),
    ("create_card", {"store_memory": True}, "memory_target: required when store_memory is true (required)"),
    ("create_card", {"memory_tags": ["Not Kebab"]}, "memory_tags[0]: must be lower-case kebab-case"),
    ("create_card", {"store_memory": "maybe"}, "store_memory: must be true or false (type)"),
    ("create_card", {"memory_suggestion": {"store": False, "tags": []}, "store_memory": False},
     "memory_suggestion: give memory_suggestion or store_memory, memory_target and memory_tags, not both"),
    ("validate_card", {}, "card: required argument is missing (required)"),
    ("validate_card", {"card": GOOD_CARD, "card_json": GOOD_CARD}, "card: give card or card_json, not both"),
    ("verify_card", {"card": GOOD_CARD, "contract": "/etc/passwd"}, "contract: must be one of default, extended (enum)"),
    ("verify_card", {"card": GOOD_CARD, "strict": "yes"}, "strict: must be true or false (type)"),
])  # fmt: skip
def test_a_wrong_argument_is_one_line_naming_field_and_rule(
    client: Client, tool: str, arguments: dict[str, Any], message: str
) -> None:
    if tool == "create_card":
        arguments = {**{k: GOOD_CARD[k] for k in CARD_FIELDS}, **arguments}
        arguments = {k: v for k, v in arguments.items() if v is not None}
    text = error_text(client.call(tool, arguments))
    assert message in text, text
    assert "\n" not in text.strip()
    assert "validation error" not in text and "pydantic" not in text and "input_value" not in text


def test_ovi_cards_argument_names_work_unchanged(client: Client) -> None:
    """An agent written for ovi-cards' MCP server sends card_json and the memory arguments."""
    out = structured(client.call("validate_card", {"card_json": GOOD_CARD}))
    assert out == {"valid": True, "errors": [], "card": GOOD_CARD}
    out = structured(client.call("verify_card", {"card_json": GOOD_CARD}))
    assert out["valid"] is True and out["verification"]["contract_id"] == "result-default"
    arguments = {**{k: GOOD_CARD[k] for k in CARD_FIELDS}, "card_type": "result",
                 "key_facts": ["one"], "actions_taken": ["two"], "confidence": 0.9,
                 "store_memory": True, "memory_target": "KV", "memory_tags": ["ovi", "compat"]}
    card = structured(client.call("create_card", arguments))["card"]
    assert card["card_type"] == "RESULT" and card["confidence"] == 0.9
    assert card["memory_suggestion"] == {"store": True, "target": "KV", "tags": ["ovi", "compat"]}
    quiet = structured(client.call("create_card", {**arguments, "store_memory": False,
                                                   "memory_target": None}))["card"]
    assert quiet["memory_suggestion"] == {"store": False, "tags": ["ovi", "compat"]}


def test_tool_input_schemas_name_the_required_arguments(client: Client) -> None:
    listed = {tool.name: field(tool, "input_schema", "inputSchema")
              for tool in client.run(client.session.list_tools).tools}
    create = listed["create_card"]
    assert set(create["required"]) == set(CARD_FIELDS)
    assert {"store_memory", "memory_target", "memory_tags", "memory_suggestion"} <= set(create["properties"])
    assert create["properties"]["key_facts"]["type"] == "array"
    for name in ("validate_card", "verify_card"):
        assert {"card", "card_json"} <= set(listed[name]["properties"])
    assert listed["verify_card"]["properties"]["contract"]["enum"] == ["default", "extended"]


def test_an_exported_card_is_what_create_card_answers(client: Client) -> None:
    """gov card export --to mcp gives the tool result gov's server sends, under its outputSchema."""
    from jsonschema import Draft202012Validator

    from gov.core.cards.mcp_result import card_to_result

    schemas = {tool.name: field(tool, "output_schema", "outputSchema")
               for tool in client.run(client.session.list_tools).tools}
    arguments = {k: GOOD_CARD[k] for k in (*CARD_FIELDS, "key_facts", "actions_taken", "artifacts",
                                           "confidence", "timestamp")}
    result = client.call("create_card", arguments)
    served = structured(result)
    exported = card_to_result(served["card"])
    assert exported["structuredContent"] == served
    assert list(Draft202012Validator(schemas["create_card"]).iter_errors(exported["structuredContent"])) == []
    assert json.loads(exported["content"][0]["text"]) == json.loads(result.content[0].text)
    assert exported["isError"] is False


# --- telemetry ----------------------------------------------------------------------


def test_one_telemetry_event_per_route_call(index_path: Path, tmp_path: Path) -> None:
    import os

    sink = tmp_path / "events.jsonl"
    env = {"PATH": os.environ.get("PATH", ""), "GOV_TELEMETRY_PATH": str(sink)}
    live = Client(index_path, env=env)
    try:
        live.call("route_policies", {"prompt": "roll back the release from last night"})
        live.call("route_policies", {"prompt": "bake a lemon drizzle cake"})
        live.call("get_policy", {"name": "deployment"})
    finally:
        live.close()
    events = [json.loads(line) for line in sink.read_text().splitlines()]
    assert [event["adapter"] for event in events] == ["mcp", "mcp"]
    assert [event["outcome"] for event in events] == ["routed", "abstained"]
    assert events[0]["routes"][0] == "deployment"
    assert events[1]["routes"] == []
    for event in events:
        assert event["degraded"] is False
        assert event["corpus_size"] == len(NAMES)
        assert event["delivered_ms"] >= event["route_ms"] > 0


def test_harness_configs_start_a_working_server(index_path: Path) -> None:
    import tomllib

    from tests.conftest import EXAMPLES

    cursor = json.loads((EXAMPLES / "harness" / "cursor-mcp.json").read_text())["mcpServers"]["gov"]
    codex = tomllib.loads((EXAMPLES / "harness" / "codex-config.toml").read_text())
    for server in (cursor, codex["mcp_servers"]["gov"]):
        assert server["command"] == "gov"
        args = list(server["args"])
        assert args[0] == "mcp"
        args[args.index("-i") + 1] = str(index_path)
        live = Client(index_path, args=args)  # the configured arguments, with our index
        try:
            tools = live.run(live.session.list_tools).tools
            assert {tool.name for tool in tools} == TOOLS
        finally:
            live.close()


@pytest.mark.slow
def test_importing_the_server_module_loads_no_sdk() -> None:
    import subprocess

    code = ("import sys, gov.core.serving.mcp_server; "
            "print(sorted(m for m in ('mcp', 'typer', 'rich') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                            check=True)
    assert result.stdout.decode().strip() == "[]"
