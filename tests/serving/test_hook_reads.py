"""Was the route read? Post-tool payloads of every harness, through the real hook and server.

Recorded payload shapes (``tests/data/harness/``) carry the tool calls: ``gov show NAME``
in a shell, a read of the document's file, ``get_policy`` or a ``gov://documents/NAME``
resource over MCP. A replayed session must give exactly the expected counts in
``gov telemetry report --format json``, and canaries put in every prompt, path, session id
and tool input must appear nowhere in the log.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gov.core.serving.reads import Catalogue, reads
from tests.conftest import POLICIES, run_gov
from tests.serving.hook_contracts import (
    CODEX_TOOL_INPUT,
    fixture,
    prompt_payload,
)
from tests.serving.test_hook_harnesses import run_hook, runtime, server, start_server

__all__ = ["runtime", "server"]

CANARIES = ["sk-live-CANARY4242prompt", "CANARYpath7781", "ghp_CANARYtool0000input",
            "CANARYsession5150"]
ROUTED = f"roll back last night's release, checkout is throwing 500s {CANARIES[0]}"
SECRET = f"the stripe API key leaked in a public gist, rotate it now {CANARIES[0]}"
NAMES = sorted(p.stem for p in POLICIES.glob("*.md") if "**Status:** retired" not in p.read_text())


@pytest.fixture(scope="module")
def corpus_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose path holds a canary, with its policies and its own index (built once:
    the tests read it and write only to their own runtime folders and logs)."""
    project = tmp_path_factory.mktemp("reads") / CANARIES[1] / "project"
    shutil.copytree(POLICIES, project / "policies")
    built = run_gov("index", str(project / "policies"), "-o", str(project / ".gov" / "index"), "-q")
    assert built.returncode == 0, built.stderr
    return project


def catalogue(project: Path) -> Catalogue:
    return Catalogue(NAMES, {name: str(project / "policies" / f"{name}.md") for name in NAMES})


def tool_payload(harness: str, project: Path, tool: str, tool_input: Any,
                 session: str = "s-1") -> dict[str, Any]:
    """A post-tool event as ``harness`` sends it."""
    if harness == "claude-code":
        data = fixture("claude-post-tool-use.write.input.example.json")
        data.update(tool_name=tool, tool_input=tool_input, tool_response={"stdout": ""})
    elif harness == "codex":
        data = {"cwd": "", "hook_event_name": "PostToolUse", "model": "gpt-5-codex",
                "permission_mode": "default", "session_id": "", "tool_input": tool_input,
                "tool_name": tool, "tool_response": "ok", "tool_use_id": "call-1",
                "transcript_path": None, "turn_id": "t-1"}
    elif harness == "gemini":
        data = fixture("gemini-after-tool.input.synthesized.json")
        data.update(tool_name=tool, tool_input=tool_input, transcript_path="")
        if tool.startswith("mcp_"):
            data["mcp_context"] = copy.deepcopy(fixture("gemini-after-tool.mcp.input.synthesized.json")
                                                ["mcp_context"]) | {"server_name": "gov",
                                                                    "tool_name": "get_policy"}
    elif harness == "cursor":
        data = fixture("cursor-post-tool-use.input.example.json") | {
            "hook_event_name": "postToolUse", "conversation_id": "", "tool_name": tool,
            "tool_input": tool_input}
    else:  # copilot, camelCase: no event name, toolArgs as JSON text
        data = fixture("copilot-post-tool-use.input.legacy-example.json") | {
            "sessionId": "", "toolName": tool, "toolArgs": json.dumps(tool_input)}
    data["cwd"] = str(project)
    data["sessionId" if harness == "copilot" else
         "conversation_id" if harness == "cursor" else "session_id"] = session
    if harness == "codex":
        jsonschema.validate(data, CODEX_TOOL_INPUT)
    return data  # type: ignore[no-any-return]


# --- recognising reads, harness by harness ----------------------------------------------


@pytest.mark.parametrize(("harness", "tool", "tool_input", "expected"), [
    ("claude-code", "Bash", {"command": f"cd /tmp && gov show deployment -i .gov/index  # {CANARIES[2]}",
                             "description": CANARIES[2]}, [("deployment", "show")]),
    ("claude-code", "Read", {"file_path": "ABS/policies/testing.md"}, [("testing", "file")]),
    ("claude-code", "mcp__gov__get_policy", {"name": "on-call"}, [("on-call", "mcp")]),
    ("claude-code", "ReadMcpResourceTool", {"server": "gov", "uri": "gov://documents/on-call"},
     [("on-call", "mcp")]),
    ("codex", "Bash", {"command": "cat policies/deployment.md | head -40"}, [("deployment", "file")]),
    ("codex", "Bash", {"command": "GOV_INDEX=x gov show --format json testing; gov show nope"},
     [("testing", "show")]),
    ("codex", "mcp__policies__get_policy", {"name": "deployment"}, [("deployment", "mcp")]),
    ("gemini", "run_shell_command", {"command": "python -m gov.cli.entry show on-call"},
     [("on-call", "show")]),
    ("gemini", "read_file", {"file_path": "policies/deployment.md"}, [("deployment", "file")]),
    ("gemini", "mcp_gov_get_policy", {"name": "testing"}, [("testing", "mcp")]),
    ("cursor", "Shell", {"command": "less ./policies/testing.md"}, [("testing", "file")]),
    ("copilot", "bash", {"command": "gov show deployment"}, [("deployment", "show")]),
    ("copilot", "view", {"path": "policies/on-call.md"}, [("on-call", "file")]),
    # not reads: writing, removing, another file, an unknown name, a search
    ("claude-code", "Write", {"file_path": "ABS/policies/testing.md", "content": "x"}, []),
    ("codex", "Bash", {"command": "rm policies/deployment.md && gov route 'deployment'"}, []),
    ("gemini", "read_file", {"file_path": "README.md"}, []),
    ("claude-code", "mcp__gov__get_policy", {"name": "../../etc/passwd"}, []),
])
def test_reads_are_recognised_in_every_harness_payload(harness: str, tool: str, tool_input: Any,
                                                        expected: list[tuple[str, str]],
                                                        tmp_path: Path) -> None:
    project = tmp_path / "project"
    raw = json.loads(json.dumps(tool_input).replace("ABS", str(project)))
    payload = tool_payload(harness, project, tool, raw)
    assert reads(payload, catalogue(project), str(project)) == expected


def test_cursor_shell_and_mcp_events_carry_their_own_fields(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shell = fixture("cursor-after-shell-execution.input.example.json") | {
        "command": "cat policies/testing.md"}
    assert reads(shell, catalogue(project), str(project)) == [("testing", "file")]
    mcp = fixture("cursor-after-mcp-execution.input.example.json") | {
        "tool_name": "get_policy", "tool_input": json.dumps({"name": "deployment"})}
    assert reads(mcp, catalogue(project), str(project)) == [("deployment", "mcp")]


# --- a replayed session, end to end -----------------------------------------------------


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.slow
def test_a_replayed_session_gives_exactly_the_expected_read_counts(
        server: subprocess.Popen[bytes], corpus_project: Path, runtime: dict[str, str],
        tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    env = {**runtime, "GOV_TELEMETRY_PATH": str(log)}
    p = corpus_project
    one, two, three = (f"{CANARIES[3]}-{n}" for n in (1, 2, 3))
    steps: list[tuple[str, dict[str, Any]]] = [
        # claude-code session one: deployment routed then read with gov show; a second turn
        # routes secrets-management too (never read); testing read without being routed
        ("claude-code", prompt_payload("claude-code", ROUTED, p, one)),
        ("claude-code", tool_payload("claude-code", p, "Bash", {
            "command": f"gov show deployment  # {CANARIES[2]}", "description": CANARIES[2]}, one)),
        ("claude-code", prompt_payload("claude-code", SECRET, p, one)),
        ("claude-code", tool_payload("claude-code", p, "Read",
                                     {"file_path": str(p / "policies" / "testing.md")}, one)),
        ("claude-code", tool_payload("claude-code", p, "Bash",
                                     {"command": f"echo {CANARIES[2]}"}, one)),
        # gemini session two: deployment routed, read as a file; on-call read over MCP, unrouted
        ("gemini", prompt_payload("gemini", ROUTED, p, two)),
        ("gemini", tool_payload("gemini", p, "read_file", {"file_path": "policies/deployment.md"}, two)),
        ("gemini", tool_payload("gemini", p, "mcp_gov_get_policy", {"name": "on-call"}, two)),
        # codex session three: deployment routed, never read
        ("codex", prompt_payload("codex", ROUTED, p, three)),
        ("codex", tool_payload("codex", p, "Bash", {"command": f"git status  # {CANARIES[2]}"}, three)),
    ]
    for harness, payload in steps:
        result = run_hook(harness, payload=payload, env=env)
        assert result.returncode == 0 and result.stderr == b"", (harness, result.stderr)
        if payload.get("hook_event_name") in ("PostToolUse", "AfterTool"):
            assert result.stdout == b""
    report_run = run_gov("telemetry", "report", str(log), "-i", str(p / ".gov" / "index"),
                         "--format", "json")
    assert report_run.returncode == 0, report_run.stderr
    report = json.loads(report_run.stdout)
    assert report["reads"]["overall"] == {
        "routed": 4, "read_after_routing": 2, "read_unrouted": 2, "routed_never_read": 2,
        "read_rate": 0.5}
    by_name = {row["name"]: row for row in report["reads"]["documents"]}
    assert by_name["deployment"] | {} == {"name": "deployment", "routed": 3, "read_after_routing": 2,
                                        "read_unrouted": 0, "routed_never_read": 1,
                                        "read_rate": 0.6667}
    assert by_name["secrets-management"]["routed_never_read"] == 1
    assert by_name["testing"]["read_unrouted"] == 1 and by_name["on-call"]["read_unrouted"] == 1
    assert report["outcomes"]["routed"]["count"] == 4
    assert report["latency_ms"]["by_adapter"]["hook"]["delivered"]["count"] == 4
    read_events = [e for e in events(log) if e["kind"] == "read"]
    assert sorted((e["document"], e["via"], e["routed"]) for e in read_events) == [
        ("deployment", "file", True), ("deployment", "show", True), ("on-call", "mcp", False),
        ("testing", "file", False)]
    shown = next(e for e in read_events if e["via"] == "show")
    assert shown["turns_since_route"] == 0 and shown["seconds_since_route"] >= 0
    data = log.read_bytes()
    for canary in CANARIES:
        assert canary.encode() not in data, canary
    assert str(p).encode() not in data and b"gov show" not in data


@pytest.mark.slow
def test_without_a_server_a_private_state_file_carries_the_route_to_the_read(
        corpus_project: Path, runtime: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    env = {**runtime, "GOV_TELEMETRY_PATH": str(log)}
    session = f"{CANARIES[3]}-file"
    result = run_hook("claude-code", "--serve", "never", env=env,
                      payload=prompt_payload("claude-code", ROUTED, corpus_project, session))
    assert b"deployment" in result.stdout
    files = list((Path(runtime["GOV_RUNTIME_DIR"]) / "sessions").glob("*.json"))
    assert len(files) == 1 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    state = files[0].read_bytes()
    assert CANARIES[3].encode() not in state and CANARIES[0].encode() not in state
    assert set(json.loads(state)["routed"]) == {"deployment"}
    result = run_hook("claude-code", "--serve", "never", env=env, payload=tool_payload(
        "claude-code", corpus_project, "Bash", {"command": "gov show deployment"}, session))
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    read = [e for e in events(log) if e["kind"] == "read"]
    assert [(e["document"], e["routed"], e["turns_since_route"]) for e in read] == [
        ("deployment", True, 0)]
    # a warm server started now takes the session over from its file
    proc = start_server(runtime)
    try:
        run_hook("claude-code", env=env, payload=prompt_payload(
            "claude-code", "rotate the on-call pager rota for next week", corpus_project, session))
        result = run_hook("claude-code", env=env, payload=tool_payload(
            "claude-code", corpus_project, "Read",
            {"file_path": str(corpus_project / "policies" / "deployment.md")}, session))
        assert result.returncode == 0 and result.stderr == b""
        assert not files[0].exists()  # adopted, and deleted
        assert len([e for e in events(log) if e["kind"] == "read"]) == 1  # read already: no news
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert os.environ.get("GOV_TELEMETRY_PATH") != str(log)
