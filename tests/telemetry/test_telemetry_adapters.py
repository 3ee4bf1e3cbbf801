"""Canary secrets through every adapter that records events: none reaches the sink.

Prompts full of secrets go through ``gov route`` (argument and JSONL, good and bad
lines), ``gov hook``, the library and the MCP tool, with the corpus and the index under
a folder whose name is itself a canary. The log must hold only whole, valid events from
all four adapters, and no trace of any canary.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gov.core import telemetry

SECRET_PROMPTS = [
    "deploy the release to production with key sk-live-51HcanaryQWERTYuiop0987654321",
    "rotate the leaked token ghp_CanaryToken1234567890abcdefABCDEF12 for the on-call pager",
    "my password is hunter2-canary, store it for the deployment",
    "copy /home/alice/.ssh/id_rsa to the deploy host and page alice@example.com",
]
TRACES = [b"canary", b"Canary", b"alice", b"hunter2", b"id_rsa", b"sk-live", b"ghp_",
          b"example.com", b"password", b"leaked", b".md", b"/tmp", b"policies"]


def _gov(*args: str, log: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, telemetry.ENV_PATH: str(log), "NO_COLOR": "1"}
    env.pop("GOV_INDEX", None)
    return subprocess.run([sys.executable, "-m", "gov.cli.entry", *args], input=stdin,
                          capture_output=True, env=env, timeout=300, check=False)


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
    built = subprocess.run(
        [sys.executable, "-m", "gov.cli.entry", "index", str(folder), "-o", str(index),
         "--lexical-only", "--quiet"],
        capture_output=True, timeout=300, check=False,
    )
    if built.returncode != 0:
        pytest.fail(built.stderr.decode())
    return index


def test_no_canary_reaches_the_sink_through_any_adapter(canary_index: Path,
                                                        tmp_path: Path) -> None:
    pytest.importorskip("gov.core.serving.mcp_server", reason="the MCP adapter is not built yet")
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
