"""The warm server: concurrent clients, reloads, kills, garbage, idle exit, ownership."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gov.core.serving import wire
from gov.core.serving.protocol import request, socket_name
from tests.conftest import gov_command, gov_env, run_gov


def start_server(env: dict[str, str], idle: int = 120) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(gov_command("serve", "--idle-timeout", str(idle)), env=gov_env(env),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sock = Path(env["GOV_RUNTIME_DIR"]) / socket_name()
    deadline = time.time() + 90  # a busy machine loads the model slowly
    while time.time() < deadline:
        if sock.exists() and request(wire.Ping(), path=sock) is not None:
            return proc
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode() if proc.stderr else "server died")
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not start")


@pytest.fixture()
def runtime(tmp_path: Path) -> dict[str, str]:
    return {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}


@pytest.fixture()
def server(runtime: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_server(runtime)
    yield proc
    proc.terminate()
    proc.wait(timeout=30)


def hook(index: Path, prompt: str, env: dict[str, str], serve: str = "auto",
         *extra: str) -> subprocess.CompletedProcess[bytes]:
    stdin = json.dumps({"prompt": prompt, "cwd": "/tmp", "hook_event_name": "UserPromptSubmit"})
    return run_gov("hook", "codex", "-i", str(index), "--serve", serve, input=stdin, env=env,
                   python=extra)


def context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] if result.stdout else ""


PROMPTS = [
    "roll back last night's release, checkout is throwing 500s",
    "rotate the stripe key that leaked into the build logs",
    "what's the capital of france and why is it paris",
    "the pager went off for checkout-api at 3am, what do I do first?",
]


def test_warm_answers_equal_in_process_and_skip_heavy_imports(server: subprocess.Popen[bytes],
                                                              runtime: dict[str, str],
                                                              example_index: Path) -> None:
    for prompt in PROMPTS:
        assert context(hook(example_index, prompt, runtime)) == context(
            hook(example_index, prompt, runtime, "never"))
    warm = hook(example_index, PROMPTS[0], runtime, "auto", "-X", "importtime")
    imported = {line.rsplit("|", 1)[1].strip().split(".")[0]
                for line in warm.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "gov" in imported
    assert not imported & {"numpy", "typer", "rich", "fastembed", "onnxruntime", "click"}


def test_eight_concurrent_hooks_get_correct_answers(server: subprocess.Popen[bytes],
                                                    runtime: dict[str, str], example_index: Path) -> None:
    expected = {p: context(hook(example_index, p, runtime, "never")) for p in PROMPTS}
    jobs = [PROMPTS[i % len(PROMPTS)] for i in range(16)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda p: (p, context(hook(example_index, p, runtime))), jobs))
    assert all(answer == expected[prompt] for prompt, answer in got)
    info = request(wire.Ping(), path=Path(runtime["GOV_RUNTIME_DIR"]) / socket_name())
    assert info is not None and info.requests >= 16


@pytest.mark.slow
def test_changed_index_is_reloaded(server: subprocess.Popen[bytes], runtime: dict[str, str],
                                   tmp_path: Path) -> None:
    corpus = tmp_path / "docs.jsonl"
    target = tmp_path / "idx"
    corpus.write_text(json.dumps({"name": "kites", "trigger": "Flying kites on windy beaches"}) + "\n")
    assert run_gov("index", str(corpus), "-o", str(target)).returncode == 0
    prompt = "which kite should I fly at the beach when it's windy"
    assert "kites" in context(hook(target, prompt, runtime))
    corpus.write_text(json.dumps({"name": "kite-flying", "trigger": "Flying kites on windy beaches"}) + "\n")
    assert run_gov("index", str(corpus), "-o", str(target)).returncode == 0
    assert "kite-flying" in context(hook(target, prompt, runtime))


def test_killed_server_falls_back_to_in_process(runtime: dict[str, str], example_index: Path) -> None:
    proc = start_server(runtime)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert (Path(runtime["GOV_RUNTIME_DIR"]) / socket_name()).exists()  # stale socket left behind
    result = hook(example_index, PROMPTS[0], {**runtime, "GOV_SERVE_TIMEOUT": "0.5"})
    assert "deployment" in context(result)
    run_gov("serve", "--stop", env=runtime)


def test_garbage_answers_fall_back(runtime: dict[str, str], example_index: Path) -> None:
    folder = Path(runtime["GOV_RUNTIME_DIR"])
    folder.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(folder / socket_name()))
    listener.listen(8)
    stop = threading.Event()

    def garbage() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.sendall(b"\x00\xffnot json at all\n")
            conn.close()

    thread = threading.Thread(target=garbage, daemon=True)
    thread.start()
    try:
        (folder / socket_name().replace(".sock", ".spawned")).touch()  # keep the hook from starting a real server here
        result = hook(example_index, PROMPTS[0], runtime)
        assert context(result) == context(hook(example_index, PROMPTS[0], runtime, "never"))
        assert "deployment" in context(result)
    finally:
        stop.set()
        thread.join()
        listener.close()


@pytest.mark.slow
def test_bad_requests_do_not_take_the_server_down(server: subprocess.Popen[bytes],
                                                  runtime: dict[str, str]) -> None:
    sock_path = Path(runtime["GOV_RUNTIME_DIR"]) / socket_name()
    for junk in (b"garbage\n", b"[1,2]\n", b'{"op": "route", "index": "relative"}\n',
                 b'{"op": "route", "index": "/nonexistent", "prompt": "x"}\n', b'{"op": "nope"}\n', b"",
                 b"[" * 100_000 + b"\n", b'{"op": "route", "prompt": "\xff\xfe"}\n', b'{"op": NaN}\n'):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(sock_path))
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            reply = json.loads(sock.recv(65536))
        assert reply["ok"] is False and reply["error"]
    assert request(wire.Ping(), path=sock_path) is not None
    assert server.poll() is None


@pytest.mark.slow
def test_status_stop_and_idle_exit(runtime: dict[str, str]) -> None:
    assert run_gov("serve", "--status", env=runtime).returncode == 1
    proc = start_server(runtime, idle=2)
    status = run_gov("serve", "--status", "--format", "json", env=runtime)
    assert status.returncode == 0 and json.loads(status.stdout)["running"] is True
    assert proc.wait(timeout=60) == 0  # idle timeout
    assert not (Path(runtime["GOV_RUNTIME_DIR"]) / socket_name()).exists()
    proc = start_server(runtime)
    assert run_gov("serve", "--stop", env=runtime).returncode == 0
    assert proc.wait(timeout=30) == 0


def test_runtime_folder_owned_by_someone_else_is_refused(runtime: dict[str, str],
                                                         example_index: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to give a folder to another user")
    folder = Path(runtime["GOV_RUNTIME_DIR"])
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    refused = run_gov("serve", env=runtime)
    assert refused.returncode == 2 and "belongs to uid 4242" in refused.stderr.decode()
    result = hook(example_index, PROMPTS[0], runtime)  # the hook still answers, in-process
    assert "deployment" in context(result)
    assert "belongs" not in result.stderr.decode()


def test_server_started_by_the_hook_imports_nothing_from_the_working_folder(
        tmp_path: Path, example_index: Path) -> None:
    """A cloned repository's own ``gov/`` package must never run: the hook starts the warm
    server from the runtime folder, with the working folder kept off ``sys.path``."""
    repo = tmp_path / "cloned-repo"
    marker = tmp_path / "planted-code-ran"
    for package in ("gov", "gov/cli"):
        (repo / package).mkdir(parents=True)
        (repo / package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({package!r} + '\\n')\n")
    (repo / "gov" / "cli" / "entry.py").write_text(
        f"open({str(marker)!r}, 'a').write('entry\\n')\n")
    runtime = {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}
    payload = json.dumps({"prompt": PROMPTS[0], "cwd": str(repo),
                          "hook_event_name": "UserPromptSubmit"})
    # As a harness runs it: the console script, in the repository's folder (-P: a console
    # script never puts the working folder on sys.path either).
    result = subprocess.run([sys.executable, "-P", "-m", "gov.cli.entry", "hook", "codex", "-i",
                             str(example_index)], input=payload.encode(), cwd=repo,
                            capture_output=True, env={**os.environ, **runtime}, timeout=120,
                            check=False)
    assert "deployment" in context(result)
    sock = Path(runtime["GOV_RUNTIME_DIR"]) / socket_name()
    deadline = time.time() + 60
    info = None
    while time.time() < deadline and info is None:
        info = request(wire.Ping(), path=sock) if sock.exists() else None
        time.sleep(0.2)
    try:
        assert not marker.exists(), "planted code ran: " + marker.read_text()
        assert info is not None, "the hook did not start a warm server"
    finally:
        run_gov("serve", "--stop", env=runtime)
