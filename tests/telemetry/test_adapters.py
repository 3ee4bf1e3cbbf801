"""Telemetry through the real adapters (gov route, gov hook, the library, the MCP tool): the right
outcomes, and no secret ever reaches the sink.

The last test pushes prompts full of secrets through all four adapters at once, with the
corpus and the index under a folder whose name is itself a canary. The log must hold only
whole, valid events from all four adapters, and no trace of any canary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gov.core import telemetry
from gov.core.routing.indexes import load_index
from tests.conftest import invoke_gov, run_gov

CANARIES = [
    "sk-live-4f9a8b7c6d5e4f3a2b1c",
    "ghp_CANARYtokenCANARYtoken0123456789",
    "hunter2-password-canary",
    "/home/alice/.ssh/id_rsa",
    "AKIACANARY1234567890",
]


PROMPT = (f"handling a leaked secret: rotating credentials, API keys {CANARIES[0]} and tokens "
          f"{CANARIES[1]} wired into CI config; password {CANARIES[2]}, see {CANARIES[3]} and {CANARIES[4]}")


def events(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_clean(path: Path) -> None:
    raw = path.read_text()
    for canary in [*CANARIES, "handling a leaked", "policies/", ".md"]:
        assert canary not in raw, canary


def test_cli_route_records_each_row_and_leaks_nothing(example_index: Path, tmp_path: Path) -> None:
    sink = tmp_path / "events.jsonl"
    rows = [{"prompt": PROMPT, "secret": CANARIES[2]},
            {"prompt": "what's the capital of france and why is it paris", "k": CANARIES[0]},
            {"no_prompt": CANARIES[3]}]
    stdin = "".join(json.dumps(row) + "\n" for row in rows)
    result = invoke_gov("route", "-i", str(example_index), input=stdin,
                     env={"GOV_TELEMETRY_PATH": str(sink)})
    assert result.returncode == 1  # the third row is malformed
    got = events(sink)
    assert [e["outcome"] for e in got] == ["routed", "abstained", "failed"]
    assert got[0]["routes"] and got[0]["adapter"] == "cli-stream" and got[1]["routes"] == []
    assert got[2]["failure_class"] == "input"
    assert all(e["index_fingerprint"] == load_index(example_index).fingerprint for e in got[:2])
    assert_clean(sink)


def test_cli_missing_index_records_a_failure(tmp_path: Path) -> None:
    sink = tmp_path / "events.jsonl"
    invoke_gov("route", PROMPT, "-i", str(tmp_path / "nope"), env={"GOV_TELEMETRY_PATH": str(sink)})
    (event,) = events(sink)
    assert event["outcome"] == "failed" and event["failure_class"] == "index_load"
    assert_clean(sink)


def test_hook_records_and_leaks_nothing(example_index: Path, tmp_path: Path) -> None:
    sink = tmp_path / "events.jsonl"
    env = {"GOV_TELEMETRY_PATH": str(sink), "GOV_RUNTIME_DIR": str(tmp_path / "rt")}
    payloads = [
        {"prompt": PROMPT, "cwd": CANARIES[3], "session_id": CANARIES[1]},
        {"prompt": "what's the capital of france and why is it paris", "cwd": "/tmp"},
        {"prompt": PROMPT, "cwd": str(tmp_path)},  # no index under this cwd
    ]
    for index, payload in enumerate(payloads):
        args = ["-i", str(example_index)] if index < 2 else []
        done = run_gov("hook", "codex", *args, "--serve", "never", input=json.dumps(payload), env=env)
        assert done.returncode == 0, done.stderr
    got = events(sink)
    assert [e["outcome"] for e in got] == ["routed", "abstained", "failed"]
    assert got[2]["failure_class"] == "index_load"
    assert all(e["adapter"] == "hook" and e["delivered_ms"] > 0 for e in got)
    assert_clean(sink)


def test_library_records_only_when_enabled(fake_index: Path) -> None:
    sink = telemetry.MemorySink()
    index = load_index(fake_index)
    index.route(PROMPT)  # telemetry off: nothing
    telemetry.set_sink(sink)
    try:
        index.route(PROMPT)
        index.route(PROMPT, record=False)
    finally:
        telemetry.reset_sink()
    (event,) = sink.events
    assert event["adapter"] == "library" and event["outcome"] == "routed"
    assert not any(canary in json.dumps(event) for canary in CANARIES)


SECRET_PROMPTS = [
    "deploy the release to production with key sk-live-51HcanaryQWERTYuiop0987654321",
    "rotate the leaked token ghp_CanaryToken1234567890abcdefABCDEF12 for the on-call pager",
    "my password is hunter2-canary, store it for the deployment",
    "copy /home/alice/.ssh/id_rsa to the deploy host and page alice@example.com",
]


TRACES = [b"canary", b"Canary", b"alice", b"hunter2", b"id_rsa", b"sk-live", b"ghp_",
          b"example.com", b"password", b"leaked", b".md", b"/tmp", b"policies"]


def _gov(*args: str, log: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return run_gov(*args, input=stdin, env={telemetry.ENV_PATH: str(log)}, timeout=300)


@pytest.fixture
def canary_index(tmp_path: Path) -> Path:
    folder = tmp_path / "alice-canary-hunter2" / "policies"
    folder.mkdir(parents=True)
    for name, trigger in [
        ("deployment", "Deploying, releasing or rolling back a service in production."),
        ("on-call", "Carrying the pager, paging rules and escalation."),
        ("secrets-management", "Storing, rotating or sharing credentials, tokens and keys."),
    ]:
        (folder / f"{name}.md").write_text(f"# {name}\n\n**Agent-trigger:** {trigger}\n\nRules.\n")
    index = folder.parent / "index"
    built = run_gov("index", str(folder), "-o", str(index), "--lexical-only", "--quiet", timeout=300)
    if built.returncode != 0:
        pytest.fail(built.stderr.decode())
    return index


@pytest.mark.slow
def test_no_canary_reaches_the_sink_through_any_adapter(canary_index: Path,
                                                        tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    index = str(canary_index)
    for prompt in SECRET_PROMPTS:
        done = _gov("route", prompt, "-i", index, "--lexical-only", "--format", "jsonl", log=log)
        assert done.returncode == 0, done.stderr.decode()
    lines = b"".join(orjson.dumps({"prompt": p}) + b"\n" for p in SECRET_PROMPTS)
    lines += b'{"prompt": "sk-live-canary in a torn line\n'
    _gov("route", "-i", index, "--lexical-only", "--format", "jsonl", log=log, stdin=lines)
    for prompt in SECRET_PROMPTS:
        payload = orjson.dumps({"prompt": prompt, "cwd": str(canary_index.parent)})
        done = _gov("hook", "claude-code", "-i", index, "--serve", "never", log=log, stdin=payload)
        assert done.returncode == 0
    _gov("hook", "claude-code", "-i", index + "-missing-canary", "--serve", "never", log=log,
         stdin=orjson.dumps({"prompt": SECRET_PROMPTS[0]}))
    _gov("hook", "claude-code", "--serve", "never", log=log, stdin=b"{not json: hunter2-canary")
    library = (
        "import sys\n"
        "from gov.core.routing.indexes import load_index\n"
        "from gov.core.serving.mcp_server import PolicyTools\n"
        "index = load_index(sys.argv[1], lexical_only=True)\n"
        "for prompt in sys.argv[2:]:\n"
        "    index.route(prompt)\n"
        "tools = PolicyTools(index, warm=False)\n"
        "for prompt in sys.argv[2:]:\n"
        "    tools.route_policies(prompt)\n"
    )
    done = subprocess.run([sys.executable, "-c", library, index, *SECRET_PROMPTS],
                          env={**os.environ, telemetry.ENV_PATH: str(log)},
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()

    data = log.read_bytes()
    found = [trace for trace in TRACES if trace in data]
    assert not found, f"canary traces reached the sink: {found}"
    events = [telemetry.validate_event(orjson.loads(line)) for line in data.splitlines()]
    adapters = {event["adapter"] for event in events}
    assert adapters == {"cli", "cli-stream", "hook", "library", "mcp"}  # stdin rows: cli-stream
    assert len(events) >= 4 * len(SECRET_PROMPTS) + 3
    failures = {event["failure_class"] for event in events if event["outcome"] == "failed"}
    assert {"input", "index_load"} <= failures
    routed = {name for event in events for name in event["routes"]}
    assert routed <= {"deployment", "on-call", "secrets-management"}
