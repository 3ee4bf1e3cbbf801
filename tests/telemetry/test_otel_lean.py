"""OpenTelemetry costs nothing when it is off, and the hook process never exports.

Checked with ``python -X importtime`` on real processes: with no ``OTEL_*`` variable set a
one-shot ``gov route`` (telemetry on) imports neither gov's exporter module nor the SDK;
the hook's in-process fallback imports neither even with an endpoint set (the warm server
exports its turns); and a warm server whose collector is down still answers every turn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_gov
from tests.serving.hook_contracts import context_of, prompt_payload, valid_output
from tests.serving.test_hook_harnesses import run_hook, start_server

OTEL_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_SDK_DISABLED")
ROUTED = "roll back last night's release, checkout is throwing 500s"
DEAD_COLLECTOR = "http://127.0.0.1:9"


def imported(stderr: bytes) -> set[str]:
    lines = [line for line in stderr.decode().splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


def otel_modules(modules: set[str]) -> set[str]:
    return {name for name in modules
            if name.startswith("opentelemetry") or name == "gov.core.telemetry.otel"}


@pytest.fixture()
def no_otel(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OTEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_otel")
def test_a_one_shot_route_with_telemetry_on_imports_no_opentelemetry(example_index: Path,
                                                                      tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    env = {**os.environ, "NO_COLOR": "1", "GOV_TELEMETRY_PATH": str(log)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "gov.cli.entry", "route",
                           ROUTED, "-i", str(example_index), "--lexical-only", "--format", "jsonl"],
                          capture_output=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = imported(done.stderr)
    assert "gov.core.telemetry.sinks" in modules  # telemetry did run
    assert not otel_modules(modules), otel_modules(modules)
    [event] = [json.loads(line) for line in log.read_text().splitlines()]
    assert event["adapter"] == "cli" and event["outcome"] == "routed"


@pytest.mark.usefixtures("no_otel")
def test_the_in_process_hook_never_imports_opentelemetry_even_with_an_endpoint_set(
        example_index: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".gov").mkdir(parents=True)
    (project / ".gov" / "index").write_bytes(example_index.read_bytes())
    log = tmp_path / "telemetry.jsonl"
    env = {"GOV_RUNTIME_DIR": str(tmp_path / "rt"), "GOV_TELEMETRY_PATH": str(log),
           "OTEL_EXPORTER_OTLP_ENDPOINT": DEAD_COLLECTOR}
    prompt = run_hook("claude-code", "--serve", "never", env=env, python_args=("-X", "importtime"),
                      payload=prompt_payload("claude-code", ROUTED, project, "s-lean"))
    assert "deployment" in context_of(valid_output("claude-code", prompt.stdout))
    tool = run_hook("claude-code", "--serve", "never", env=env, python_args=("-X", "importtime"),
                    payload={"hook_event_name": "PostToolUse", "session_id": "s-lean",
                             "cwd": str(project), "tool_name": "Bash",
                             "tool_input": {"command": "gov show deployment"}})
    assert tool.returncode == 0 and tool.stdout == b""
    for result in (prompt, tool):
        modules = imported(result.stderr)
        assert "gov.core.telemetry.sinks" in modules
        assert not otel_modules(modules), otel_modules(modules)
    kinds = [json.loads(line)["kind"] for line in log.read_text().splitlines()]
    assert kinds == ["route", "read"]  # the log is written all the same


def test_a_warm_server_whose_collector_is_down_answers_every_turn(example_index: Path,
                                                                   tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk")
    project = tmp_path / "project"
    (project / ".gov").mkdir(parents=True)
    (project / ".gov" / "index").write_bytes(example_index.read_bytes())
    log = tmp_path / "telemetry.jsonl"
    runtime = {"GOV_RUNTIME_DIR": str(tmp_path / "rt"), "OTEL_EXPORTER_OTLP_ENDPOINT": DEAD_COLLECTOR,
               "OTEL_EXPORTER_OTLP_TIMEOUT": "0.5", "OTEL_METRIC_EXPORT_INTERVAL": "200"}
    proc = start_server(runtime)
    try:
        for turn in range(3):
            result = run_hook("codex", env={**runtime, "GOV_TELEMETRY_PATH": str(log)},
                              payload=prompt_payload("codex", ROUTED, project, f"s-{turn}"))
            assert result.returncode == 0 and result.stderr == b""
            assert "deployment" in context_of(valid_output("codex", result.stdout))
        status = run_gov("serve", "--status", env=runtime)
        assert status.returncode == 0, status.stderr  # still up after exporting to nowhere
    finally:
        proc.terminate()
        _, server_err = proc.communicate(timeout=30)
    assert b"Traceback" not in server_err and b"Failed to export" not in server_err
    assert [json.loads(line)["outcome"] for line in log.read_text().splitlines()] == ["routed"] * 3
