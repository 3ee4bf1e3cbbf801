"""The ``gov mcp`` command: its help, the missing SDK, and stdout kept for the protocol."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import gov_command, gov_env, run_gov


def test_missing_sdk_exits_2_with_one_line(example_index: Path) -> None:
    import subprocess

    code = ("import sys; sys.modules['mcp'] = None; from gov.cli.entry import main; "
            f"main(['mcp', '-i', {str(example_index)!r}])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                            check=False)
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1
    assert "gov[mcp]" in lines[0]
    assert result.stdout == b""


@pytest.mark.slow
def test_help_has_an_example() -> None:
    result = run_gov("mcp", "--help")
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "Example:" in text
    assert "gov mcp -i" in text


def test_stdout_carries_only_the_protocol_and_hang_up_exits_0(example_index: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "route_policies", "arguments": {"prompt": "roll back the release"}}},
    ]
    import subprocess

    # Hang up once the last reply has come: a client that closes stdin with a request still
    # in flight may lose its reply (the SDK stops serving on end of input), and did so in
    # about one run in fifteen when this test hung up straight after writing.
    proc = subprocess.Popen(gov_command("mcp", "-i", str(example_index)),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=gov_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write("".join(json.dumps(request) + "\n" for request in requests).encode())
    proc.stdin.flush()
    watchdog = threading.Timer(120, proc.kill)  # a server that never answers fails, not hangs
    watchdog.start()
    try:
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
    finally:
        watchdog.cancel()
    proc.stdin.close()
    rest, err = proc.stdout.read(), proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert rest == b""  # nothing but the two replies on stdout
    assert [reply["id"] for reply in replies] == [1, 2]
    assert all(reply["jsonrpc"] == "2.0" for reply in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "gov"
    routed = replies[1]["result"]["structuredContent"]["routes"]
    assert routed and routed[0]["name"] == "deployment"
    assert b"serving" in err  # the notice went to stderr, not into the protocol
