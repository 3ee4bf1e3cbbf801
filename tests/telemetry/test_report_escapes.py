"""``gov telemetry report`` on a terminal shows a log's control sequences as visible text:
a log line someone else wrote (or a crafted document name) cannot retitle the terminal,
clear it or reorder what it shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gov.core import telemetry

HOSTILE = ["deploy\x1b]0;owned\x07ment", "\x1b[2Jwipe", "on\u202ecall"]


@pytest.mark.slow
def test_report_escapes_names_from_the_log(tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    event = telemetry.make_event(outcome="routed", adapter="hook", routes=["deployment"],
                                 ts=1_764_547_200.0, delivered_ms=10.0, route_ms=2.0)
    lines = [orjson.dumps(event)]
    for name in HOSTILE:  # written by hand, as a log edited by someone else would hold them
        lines.append(orjson.dumps({**event, "routes": [name]}))
    log.write_bytes(b"\n".join(lines) + b"\n")
    env = {k: v for k, v in os.environ.items() if k not in (telemetry.ENV_PATH, "NO_COLOR")}
    done = subprocess.run([sys.executable, "-m", "gov.cli.entry", "telemetry", "report",
                           str(log), "--color", "always"], capture_output=True, env=env,
                          timeout=120, check=False)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert "\x1b[" in out  # coloured: drawn as on a terminal
    assert "\x1b]" not in out and "\x07" not in out and "\x1b[2J" not in out
    assert "\u202e" not in out
    assert "\\x1b" in out  # shown, escaped
