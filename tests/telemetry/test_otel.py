"""OpenTelemetry export (``gov[otel]``): spans and metrics with exactly the event's fields.

The SDK's in-memory exporters receive what an OTLP collector would; a real OTLP exporter
aimed at a port where nothing listens shows that failures are swallowed and counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gov.core import telemetry
from gov.core.telemetry import otel, sinks
from tests.conftest import REPO

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
CANARIES = ["sk-live-CANARY4242prompt", "CANARYpath7781", "ghp_CANARYtool0000input",
            "CANARYsession5150"]


@pytest.fixture()
def exported(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    for name in (ENDPOINT, "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    spans, metrics = InMemorySpanExporter(), InMemoryMetricReader()
    otel.install(span_exporter=spans, metric_reader=metrics)
    yield spans, metrics
    otel.shutdown()


def points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def test_export_switches_on_with_the_standard_variables_only(monkeypatch: pytest.MonkeyPatch) -> None:
    otel.shutdown()
    monkeypatch.delenv(ENDPOINT, raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", raising=False)
    assert not sinks.otel_wanted() and not telemetry.enabled()
    monkeypatch.setenv(ENDPOINT, "http://127.0.0.1:9")
    assert sinks.otel_wanted() and telemetry.enabled()
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert not sinks.otel_wanted()


def test_a_route_is_a_span_with_exactly_the_event_fields_and_counted(
        exported: tuple[InMemorySpanExporter, InMemoryMetricReader], example_index: Path) -> None:
    from gov.core.routing.indexes import load_index

    spans, metrics = exported
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    load_index(example_index).route(f"roll back last night's release, checkout 500s {CANARIES[0]}")
    [event] = sink.events
    [span] = spans.get_finished_spans()
    assert span.name == "gov.route"
    assert dict(span.attributes) == {f"gov.{k}": tuple(v) if isinstance(v, list) else v
                                     for k, v in event.items() if v is not None}
    assert (span.end_time - span.start_time) / 1e6 == pytest.approx(event["delivered_ms"], abs=0.01)
    found = points(metrics)
    [count] = found["gov.route.attempts"]
    assert count.value == 1 and dict(count.attributes) == {"gov.outcome": "routed",
                                                           "gov.adapter": "library"}
    [histogram] = found["gov.route.delivered"]
    assert histogram.count == 1 and histogram.sum == pytest.approx(event["delivered_ms"])
    assert CANARIES[0] not in span.to_json()


def test_hook_turns_and_reads_reach_the_spans_without_a_trace_of_the_canaries(
        exported: tuple[InMemorySpanExporter, InMemoryMetricReader], example_index: Path,
        tmp_path: Path) -> None:
    """The warm server's turn function, run here so the in-memory exporter sees it."""
    from gov.core.serving import hook_turn
    from gov.core.serving.sessions import SessionFiles

    spans, metrics = exported
    sink = telemetry.MemorySink()
    project = tmp_path / CANARIES[1]
    project.mkdir()
    backend = hook_turn.InProcess(files=SessionFiles(str(tmp_path / "sessions")))
    session = f"{CANARIES[3]}-otel"
    payloads = [
        {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(project),
         "prompt": f"roll back last night's release, checkout is throwing 500s {CANARIES[0]}"},
        {"hook_event_name": "PostToolUse", "session_id": session, "cwd": str(project),
         "tool_name": "Bash", "tool_input": {"command": f"gov show deployment # {CANARIES[2]}"}},
        {"hook_event_name": "PostToolUse", "session_id": session, "cwd": str(project),
         "tool_name": "mcp__gov__get_policy", "tool_input": {"name": "testing", "x": CANARIES[2]}},
    ]
    for payload in payloads:
        turn = hook_turn.run(["claude-code", "-i", str(example_index)], json.dumps(payload).encode(),
                             cwd=str(project), environ={}, start=time.perf_counter(),
                             backend=backend, sink=sink)
        assert turn.stderr == ""
        turn.finish()
    assert [(e["kind"], e.get("outcome"), e.get("document")) for e in sink.events] == [
        ("route", "routed", None), ("read", None, "deployment"), ("read", None, "testing")]
    finished = spans.get_finished_spans()
    assert [span.name for span in finished] == ["gov.route", "gov.read", "gov.read"]
    for span, event in zip(finished, sink.events, strict=True):
        assert dict(span.attributes) == otel.attributes(event)
    reads = points(metrics)["gov.reads"]
    assert sorted((dict(p.attributes)["gov.routed"], p.value) for p in reads) == [(False, 1), (True, 1)]
    dumped = "".join(span.to_json() for span in finished) + json.dumps(sink.events)
    for canary in CANARIES:
        assert canary not in dumped, canary
    assert str(project) not in dumped


def test_an_unreachable_collector_is_swallowed_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENDPOINT, "http://127.0.0.1:9")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")
    otel.shutdown()
    before = telemetry.stats()["otel_export_failures"]
    telemetry.set_sink(None)
    started = time.perf_counter()
    telemetry.record(outcome="abstained", adapter="cli")  # no JSONL sink: OpenTelemetry only
    assert time.perf_counter() - started < 0.5  # queued, not exported on the caller's time
    otel._state["tracer_provider"].force_flush(timeout_millis=5000)
    assert telemetry.stats()["otel_export_failures"] > before
    otel.shutdown()


def test_a_cli_route_with_the_collector_down_exits_cleanly_and_promptly(example_index: Path) -> None:
    env = {**os.environ, ENDPOINT: "http://127.0.0.1:9", "NO_COLOR": "1"}
    env.pop("GOV_TELEMETRY_PATH", None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gov.cli.entry", "route", "roll back the release",
                           "-i", str(example_index), "--lexical-only", "--format", "jsonl"],
                          capture_output=True, env=env, cwd=REPO, timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert b"Traceback" not in done.stderr and b"opentelemetry" not in done.stderr.lower()
    assert b"Failed to export" not in done.stderr
    assert json.loads(done.stdout)["routes"] is not None
    assert time.perf_counter() - started < 30
