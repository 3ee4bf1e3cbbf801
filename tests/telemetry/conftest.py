"""Telemetry tests start with telemetry off, and share a small log whose figures are known."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from gov.core import telemetry


@pytest.fixture(autouse=True)
def telemetry_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from gov.core.telemetry import sinks

    monkeypatch.delenv(telemetry.ENV_PATH, raising=False)
    monkeypatch.setattr(sinks, "_otel_blocked", False)  # an in-process hook test blocks it
    telemetry.reset_sink()
    yield
    telemetry.reset_sink()


DAY1 = 1_764_547_200.0  # 2025-12-01T00:00:00Z
DAY2 = DAY1 + 86_400
FP = "f" * 64


def _event(ts: float, outcome: str, delivered: float, route: float | None,
           **fields: Any) -> bytes:
    event = telemetry.make_event(outcome=outcome, adapter=fields.pop("adapter", "hook"),
                                 ts=ts, delivered_ms=delivered, route_ms=route,
                                 index_fingerprint=FP, **fields)
    return orjson.dumps(event) + b"\n"


@pytest.fixture
def known_log() -> list[bytes]:
    """10 events over 2 days, plus 1 torn, 2 foreign, 1 newer-schema and 1 blank line.

    routed 5 (deployment 3, on-call 2, incident-response 1), abstained 3, failed 2
    (index_load, route), degraded 2; delivered 10, 20, ... 100 ms; warm route 2, 4, 3, 5,
    6, 7, 9, 10 ms (failures have none); adapters hook 8, cli 1, mcp 1.
    """
    return [
        _event(DAY1 + 10, "routed", 10, 2, routes=["deployment"]),
        _event(DAY1 + 20, "routed", 20, 4, routes=["deployment", "on-call"], adapter="cli"),
        b'{"ts":"2025-12-01T00:00:25.000Z","v":1,"outcome":"rou\n',  # torn
        _event(DAY1 + 30, "abstained", 30, 3),
        _event(DAY1 + 40, "failed", 40, None, failure_class="index_load"),
        b'{"hello": "another program"}\n',  # foreign
        b"[1, 2, 3]\n",  # foreign
        b"\n",
        _event(DAY2 + 10, "routed", 50, 5, routes=["on-call"]),
        _event(DAY2 + 20, "routed", 60, 6, routes=["deployment"], adapter="mcp"),
        _event(DAY2 + 30, "abstained", 70, 7),
        _event(DAY2 + 40, "failed", 80, None, failure_class="route", degraded=True),
        b'{"ts":"2025-12-02T00:00:45.000Z","v":3,"outcome":"routed"}\n',  # newer schema
        _event(DAY2 + 50, "routed", 90, 9, routes=["incident-response"], degraded=True),
        _event(DAY2 + 60, "abstained", 100, 10),
    ]


@pytest.fixture
def known_log_file(known_log: list[bytes], tmp_path: Path) -> Path:
    path = tmp_path / "telemetry.jsonl"
    path.write_bytes(b"".join(known_log))
    return path
