"""A 4 MB prompt through the warm server: routed on its prefix in seconds, without holding up
other sessions' turns, and without leaving the server larger."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from gov.core.serving import wire
from tests.conftest import gov_command, gov_env, run_gov
from tests.serving.test_server import start_server


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _payload(prompt: str) -> bytes:
    return json.dumps({"prompt": prompt, "cwd": "/tmp", "hook_event_name": "UserPromptSubmit"}).encode()


@pytest.mark.slow
@pytest.mark.model
def test_a_four_megabyte_prompt_is_quick_and_leaves_the_server_as_it_was(
        tmp_path: Path, example_index: Path) -> None:
    runtime = {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}
    server = start_server(runtime)
    try:
        small = _payload("roll back last night's release, checkout is throwing 500s")
        for _ in range(3):
            assert b"deployment" in run_gov("hook", "codex", "-i", str(example_index),
                                            input=small, env=runtime).stdout
        before = _rss(server.pid)
        big = _payload("roll back the release " + "and the logs say " * 240_000)  # 4 MB, within the stdin cap
        assert 4_000_000 < len(big) <= wire.MAX_STDIN
        command = gov_command("hook", "codex", "-i", str(example_index))
        began = time.monotonic()
        large = subprocess.Popen(command, env=gov_env(runtime), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.2)
        other = run_gov("hook", "codex", "-i", str(example_index), input=small, env=runtime)
        other_done = time.monotonic() - began
        _out, err = large.communicate(big, timeout=60)
        large_done = time.monotonic() - began
        assert large.returncode == 0 and b"Traceback" not in err
        assert large_done <= 3.0, f"the 4 MB prompt took {large_done:.1f} s"
        assert b"deployment" in other.stdout and other_done <= 3.0
        time.sleep(0.5)
        grown = _rss(server.pid) - before
        print(f"4 MB prompt {large_done:.2f} s; other turn {other_done:.2f} s; "
              f"server grew {grown / 1024**2:.0f} MB")
        assert grown <= 64 * 1024**2, f"the server kept {grown / 1024**2:.0f} MB more"
    finally:
        server.terminate()
        server.wait(timeout=30)
