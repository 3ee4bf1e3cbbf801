"""Telemetry through the real adapters: right outcomes, and no secret ever reaches the sink."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gov.core import telemetry
from gov.core.routing.indexes import load_index
from tests.conftest import run_gov

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
    result = run_gov("route", "-i", str(example_index), input=stdin,
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
    run_gov("route", PROMPT, "-i", str(tmp_path / "nope"), env={"GOV_TELEMETRY_PATH": str(sink)})
    (event,) = events(sink)
    assert event["outcome"] == "failed" and event["failure_class"] == "index_load"
    assert_clean(sink)


def test_hook_records_and_leaks_nothing(example_index: Path, tmp_path: Path) -> None:
    sink = tmp_path / "events.jsonl"
    env = {**os.environ, "GOV_TELEMETRY_PATH": str(sink), "GOV_RUNTIME_DIR": str(tmp_path / "rt")}
    payloads = [
        {"prompt": PROMPT, "cwd": CANARIES[3], "session_id": CANARIES[1]},
        {"prompt": "what's the capital of france and why is it paris", "cwd": "/tmp"},
        {"prompt": PROMPT, "cwd": str(tmp_path)},  # no index under this cwd
    ]
    for index, payload in enumerate(payloads):
        args = ["-i", str(example_index)] if index < 2 else []
        subprocess.run([sys.executable, "-m", "gov.cli.entry", "hook", "codex", *args, "--serve", "never"],
                       input=json.dumps(payload).encode(), env=env, capture_output=True, check=True)
    got = events(sink)
    assert [e["outcome"] for e in got] == ["routed", "abstained", "failed"]
    assert got[2]["failure_class"] == "index_load"
    assert all(e["adapter"] == "hook" and e["delivered_ms"] > 0 for e in got)
    assert_clean(sink)


def test_library_records_only_when_enabled(example_index: Path) -> None:
    sink = telemetry.MemorySink()
    index = load_index(example_index)
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
