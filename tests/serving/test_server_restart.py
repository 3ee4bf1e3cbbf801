"""A warm server that dies while hooks wait: one hook starts the next server, the others wait
for it or answer nothing; no hook loads the model on its own (issue: a memory storm)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import gov_command, gov_env, run_gov
from tests.serving.test_server import start_server

HOOKS = 24
LIMIT = 1.5 * 1024**3  # bytes of resident memory for every gov process together


def _rss_of(marker: bytes) -> int:
    """Resident bytes of every process whose environment holds ``marker``."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


@pytest.mark.slow
@pytest.mark.model
def test_killing_the_server_while_hooks_wait_loads_the_model_at_most_once(
        tmp_path: Path, example_index: Path) -> None:
    runtime = {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}
    marker = f"GOV_RUNTIME_DIR={runtime['GOV_RUNTIME_DIR']}".encode()
    server = start_server(runtime)
    payload = json.dumps({"prompt": "roll back last night's release, checkout is throwing 500s",
                          "cwd": "/tmp", "hook_event_name": "UserPromptSubmit"}).encode()
    command = gov_command("hook", "codex", "-i", str(example_index))
    assert b"deployment" in run_gov("hook", "codex", "-i", str(example_index), input=payload,
                                    env=runtime).stdout  # the server has the index loaded
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_of(marker))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        server.send_signal(signal.SIGSTOP)  # wedged: the hooks connect and wait
        hooks = [subprocess.Popen(command, env=gov_env(runtime), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(HOOKS)]
        for hook in hooks:
            assert hook.stdin is not None
            hook.stdin.write(payload)
            hook.stdin.close()
        time.sleep(0.5)  # the hooks are waiting on it
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        for hook in hooks:
            hook.wait(timeout=120)
        results = [(hook.stdout.read(), hook.stderr.read()) for hook in hooks]  # type: ignore[union-attr]
        time.sleep(0.5)
    finally:
        done.set()
        sampler.join()
        run_gov("serve", "--stop", env=runtime)
    assert [hook.returncode for hook in hooks] == [0] * HOOKS, [err for _, err in results]
    assert all(b"Traceback" not in err for _, err in results)
    assert peak[0] <= LIMIT, f"gov processes peaked at {peak[0] / 1024**2:.0f} MB"
    answered = [out for out, _ in results if out]
    print(f"peak {peak[0] / 1024**2:.0f} MB; {len(answered)} of {HOOKS} hooks answered")
    assert all(b"deployment" in out for out in answered)
