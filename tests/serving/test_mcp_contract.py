"""What ``gov mcp`` promises on the wire, per the protocol's 2025 revisions: a missing
resource is ``-32002`` with its URI, and no capability is advertised that is not served."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from gov.core.serving.mcp_server import MAX_DOCUMENT_CHARS, capped
from tests.conftest import gov_command, gov_env


def exchange(index: Path, requests: list[dict[str, Any]], answers: int) -> list[dict[str, Any]]:
    proc = subprocess.Popen(gov_command("mcp", "-i", str(index)), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=gov_env())
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
    proc.stdin.flush()
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        replies = [json.loads(proc.stdout.readline()) for _ in range(answers)]
    finally:
        watchdog.cancel()
        proc.stdin.close()
        proc.wait(timeout=60)
    return replies


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_missing_resource_is_32002_and_prompts_are_not_advertised(example_index: Path,
                                                                  revision: str) -> None:
    uri = "gov://documents/no-such-policy"
    replies = exchange(example_index, [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": revision, "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}},
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/list", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/read",
         "params": {"uri": "gov://documents/deployment"}},
    ], 4)
    by_id = {reply["id"]: reply for reply in replies}
    capabilities = by_id[1]["result"]["capabilities"]
    assert "prompts" not in capabilities
    assert not capabilities["resources"].get("subscribe")
    assert by_id[2]["error"]["code"] == -32002
    assert by_id[2]["error"]["data"] == {"uri": uri}
    assert "no document named 'no-such-policy'" in by_id[2]["error"]["message"]
    assert by_id[3]["error"]["code"] == -32601  # method not found: nothing promised
    assert by_id[4]["result"]["contents"][0]["text"].startswith("# ")


def test_a_huge_document_is_served_capped_and_says_so() -> None:
    small = "x" * 10
    assert capped(small) == small
    huge = "y" * (MAX_DOCUMENT_CHARS * 3)
    served = capped(huge)
    assert served.startswith("y" * MAX_DOCUMENT_CHARS) and len(served) < MAX_DOCUMENT_CHARS + 200
    assert f"{len(huge):,} characters" in served
